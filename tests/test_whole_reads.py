"""Names a loop reads whole (``np.sum(w)``, ``X[i] - w``) that may share memory with an array it
writes (``analysis.aliasing._whole_reads``): each binding that reaches the loop is followed, and
the loop is refused (PF203), checked at run time (``np.may_share_memory``) or rewritten as it is.
Each case is also run: the rewrite returns what the loop returns on the array and on a copy."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

REFUSED, CHECKED, PLAIN = "refused", "checked", "plain"

CASES = [
    # (binding before the loop, the statement in the loop, outcome)
    ("w = X", "X[i] = X[i] + np.sum(w)", REFUSED),
    ("w = X\n    v = w", "X[i] = X[i] + np.sum(v)", REFUSED),
    ("w = X[1:]", "X[i] = X[i] + np.sum(w)", REFUSED),
    ("w = X.T", "X[i] = X[i] + w.sum()", REFUSED),
    ("w = X.reshape(-1)", "X[i] = X[i] + w.max()", REFUSED),
    ("w = np.asarray(X)", "X[i] = X[i] + np.sum(w)", REFUSED),
    ("w = X[0, ...]", "X[i] = X[i] * w", REFUSED),
    ("w = X[None]", "X[i] = X[i] + np.sum(w)", REFUSED),
    ("w = X[0]", "X[i] = X[i] - w", REFUSED),  # a row: a view the first iteration zeroes
    ("w = X[0]\n    c = w[0:1]", "X[i] = X[i] - c", REFUSED),
    ("w = X[0, 1]", "X[i] = X[i] - w", PLAIN),  # one element: a copy
    ("w = X[0]\n    c = w[1]", "X[i] = X[i] / c", PLAIN),
    ("w = X\n    c = w[0, 0]", "X[i] = X[i] / c", PLAIN),
    ("w = X.copy()", "X[i] = X[i] + np.sum(w)", PLAIN),
    ("w = X.copy()", "X[i] = X[i] + abs(len(w)) + min(w.shape)", PLAIN),
    ("w = X.T\n    for _ in range(2):\n        w = w.T", "X[i] = X[i] + np.sum(w)", REFUSED),  # (a cycle)
    ("w = X + 0.0", "X[i] = X[i] + np.sum(w)", PLAIN),
    ("n, m = X.shape", "X[i] = X[i] * m", PLAIN),
    ("w = X if len(X) > 9 else X.copy()", "X[i] = X[i] + np.sum(w)", CHECKED),
    ("w = np.add(X, 0.0, out=X)", "X[i] = X[i] + np.sum(w)", CHECKED),
    ("w = X\n    w += 0.0", "X[i] = X[i] + np.sum(w)", CHECKED),
    ("if len(X) > 1:\n        w = X\n    else:\n        w = X.copy()", "X[i] = X[i] + np.sum(w)", REFUSED),
    ("if len(X) > 1:\n        w = X.copy()\n    else:\n        w = X[1:]", "X[i] = X[i] + np.sum(w)", REFUSED),
    ("if len(X) > 1:\n        w = X.copy()\n    else:\n        w = np.zeros(2)", "X[i] = X[i] + np.sum(w)", PLAIN),
    ("w = X", "w[i] = w[i] + np.sum(X)", REFUSED),  # written through the other name
    ("w = X[:, 0]", "w[i] = w[i] + np.sum(X)", REFUSED),
]


def _source(binding: str, statement: str) -> str:
    return ("import numpy as np\n\n\ndef f(X):\n    " + binding + "\n    for i in range(X.shape[0]):\n        "
            + statement + "\n    return X\n")


@pytest.mark.parametrize("binding, statement, outcome", CASES, ids=[f"{b} | {s}".replace("\n", "; ") for b, s, _ in CASES])
def test_a_name_read_whole_is_traced_to_the_written_array(binding, statement, outcome):
    source = _source(binding, statement)
    result = transpile_source(source, "m.py", backend="direct", shapes={"X": 2})
    plan = [p for p in result.plans if p.function == "f"][-1]  # (the loop after the binding)
    if outcome == REFUSED:
        assert not plan.rewritten and any(r.code in ("PF203", "PF301") for r in plan.remarks), \
            [f"{r.code} {r.message}" for r in plan.remarks]
        return
    assert plan.rewritten, [f"{r.code} {r.message}" for r in plan.remarks]
    # (one check where the name is untraced, and none else: no builtin, module or number checked)
    assert result.code.count("may_share_memory") == 2 * (outcome == CHECKED), result.code  # (apart's two arms)
    if outcome == CHECKED:
        assert "may_share_memory(X, w)" in result.code, result.code
    before, after = run_module(source), run_module(result.code)
    for make in (lambda: np.arange(1.0, 7.0).reshape(3, 2), lambda: np.full((4, 2), 2.0)):
        np.testing.assert_array_equal(after["f"](make()), before["f"](make()))


def test_a_closure_name_and_a_global_read_whole_are_checked():
    """A closure's name and a global some function binds again (``global G``) may be the array
    the loop writes; a module constant bound once to a literal (``OFFSETS``) is not."""
    source = textwrap.dedent("""\
        import numpy as np

        G = None
        OFFSETS = [1.0, 2.0]


        def set_global(value):
            global G
            G = value
            return value


        def outer(X):
            def inner(Y):
                for i in range(Y.shape[0]):
                    Y[i] = Y[i] + np.sum(X)
                return Y
            return inner(X)


        def with_global(Y):
            for i in range(Y.shape[0]):
                Y[i] = Y[i] + np.sum(G)
            return Y


        def with_constant(Y):
            for i in range(Y.shape[0]):
                Y[i] = Y[i] + np.sum(OFFSETS)
            return Y
        """)
    result = transpile_source(source, "m.py", backend="direct", shapes={"X": 2, "Y": 2, "value": 2})
    assert {p.function for p in result.plans if p.rewritten} == {"outer.inner", "with_global", "with_constant"}
    assert "may_share_memory(Y, X)" in result.code and "may_share_memory(Y, G)" in result.code, result.code
    assert "may_share_memory(Y, OFFSETS)" not in result.code
    before, after = run_module(source), run_module(result.code)
    np.testing.assert_array_equal(after["outer"](np.arange(1.0, 7.0).reshape(3, 2)),
                                  before["outer"](np.arange(1.0, 7.0).reshape(3, 2)))
    np.testing.assert_array_equal(after["with_global"](after["set_global"](np.arange(6.0).reshape(3, 2))),
                                  before["with_global"](before["set_global"](np.arange(6.0).reshape(3, 2))))


def test_an_argument_read_through_another_name_or_bound_again_is_checked():
    source = textwrap.dedent("""\
        import numpy as np


        def other_name(x, y):
            w = y[1:]
            for i in range(1, len(x)):
                x[i] = w[i - 1] + 1.0
            return x


        def bound_again(x, y):
            y = np.asarray(y)
            for i in range(1, len(x)):
                x[i] = y[i - 1] + 1.0
            return x


        def fresh_again(x, y):
            y = y.copy()
            for i in range(1, len(x)):
                x[i] = y[i - 1] + 1.0
            return x
        """)
    result = transpile_source(source, "m.py", backend="direct", shapes={"x": 1, "y": 1})
    assert {p.function for p in result.plans if p.rewritten} == {"other_name", "bound_again", "fresh_again"}
    for name in ("other_name", "bound_again"):
        body = result.code[result.code.index(f"def {name}"):]
        assert "may_share_memory(x, y)" in body[:body.index("return x")], body
    fresh = result.code[result.code.index("def fresh_again"):]
    assert "may_share_memory" not in fresh
    before, after = run_module(source), run_module(result.code)
    for name in ("other_name", "bound_again", "fresh_again"):
        v, u = np.array([2.0, 3.0, 5.0, 7.0, 11.0]), np.array([2.0, 3.0, 5.0, 7.0, 11.0])
        np.testing.assert_array_equal(after[name](v, v), before[name](u, u))


def test_the_remark_says_which_binding_makes_the_name_the_written_array():
    source = _source("w = X", "X[i] = X[i] + np.sum(w)")
    (plan,) = transpile_source(source, "m.py", backend="direct", shapes={"X": 2}).plans
    assert any(r.code == "PF203" and "used whole" in r.message for r in plan.remarks), plan.remarks
    source = _source("w = X[1:]", "X[i] = X[i] + np.sum(w)")
    (plan,) = transpile_source(source, "m.py", backend="direct", shapes={"X": 2}).plans
    message = ("`w` is a view of `X` (bound at line 5), which the loop writes while it reads the view, so "
               "iterations see one another's writes (make a copy with `.copy()`)")
    assert any(r.code == "PF203" and r.message == message and r.lineno == 7 for r in plan.remarks), plan.remarks
    source = _source("w = X[0]", "X[i] = X[i] - w")
    (plan,) = transpile_source(source, "m.py", backend="direct", shapes={"X": 2}).plans
    assert any("`w` may be a view of `X`, which the loop writes" in r.message for r in plan.remarks), plan.remarks


def test_a_fresh_local_written_beside_an_argument_read_whole_needs_no_check():
    """The argument ``v`` cannot be the new array ``out``; a closure's ``v`` that a module
    constant of the same name shadows is the closure's, and is checked."""
    source = textwrap.dedent("""\
        import numpy as np

        v = [1.0, 2.0]


        def fresh(X, v):
            out = np.zeros(X.shape)
            for i in range(X.shape[0]):
                out[i] = X[i] + np.sum(v)
            return out


        def outer(v):
            def inner(Y):
                for i in range(Y.shape[0]):
                    Y[i] = Y[i] + np.sum(v)
                return Y
            return inner(v)
        """)
    result = transpile_source(source, "m.py", backend="direct", shapes={"X": 2, "Y": 2})
    assert {p.function for p in result.plans if p.rewritten} == {"fresh", "outer.inner"}
    fresh = result.code[result.code.index("def fresh"):result.code.index("def outer")]
    assert "may_share_memory(out, v)" not in fresh, fresh
    assert "may_share_memory(Y, v)" in result.code[result.code.index("def outer"):]
    before, after = run_module(source), run_module(result.code)
    np.testing.assert_array_equal(after["outer"](np.arange(1.0, 7.0).reshape(3, 2)),
                                  before["outer"](np.arange(1.0, 7.0).reshape(3, 2)))


def test_an_argument_read_whole_through_another_name_is_checked():
    source = textwrap.dedent("""\
        import numpy as np


        def other_name(x, y):
            w = y
            for i in range(len(x)):
                x[i] = x[i] + np.sum(w)
            return x
        """)
    result = transpile_source(source, "m.py", backend="direct", shapes={"x": 1, "y": 1})
    assert result.plans[0].rewritten and "may_share_memory(x, y)" in result.code, result.code
    before, after = run_module(source), run_module(result.code)
    v, u = np.array([2.0, 3.0, 5.0]), np.array([2.0, 3.0, 5.0])
    np.testing.assert_array_equal(after["other_name"](v, v), before["other_name"](u, u))
