"""NumPy list comprehensions read as arrays (``np.array([...])``, ``np.sum([...])``, ``sum([...])``)
rewritten by the direct backend, and the ones that must stay."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source


def _run(code, name, *args):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace[name](*args)


def _only_plan(result):
    (plan,) = result.plans
    return plan


REWRITTEN = {
    "array of dots": ("np.array([np.dot(x, w) for x in X])", "X, w"),
    "sum over an axis": ("np.sum([np.tanh(x) * 2.0 for x in X], axis=0)", "X, w"),
    "python sum by index": ("sum([w[i] * i for i in range(len(w))])", "X, w"),
    "python max": ("max([w[i] - i for i in range(len(w))])", "X, w"),
    "argmax": ("np.argmax([np.abs(x).sum() for x in X])", "X, w"),
    "stack on another axis": ("np.stack([x * 2 for x in X], axis=1)", "X, w"),
    "asarray of rows": ("np.asarray([x for x in X])", "X, w"),
    "enumerate": ("np.array([x * k for k, x in enumerate(X)])", "X, w"),
    "rows of pairs": ("np.array([[x[0], x[1] * 2] for x in X])", "X, w"),
}


@pytest.mark.parametrize("expr, params", REWRITTEN.values(), ids=REWRITTEN.keys())
def test_a_comprehension_read_as_an_array_is_batched(expr, params):
    source = f"import numpy as np\n\n\ndef f({params}):\n    return {expr}\n"
    result = transpile_source(source, "m.py")
    plan = _only_plan(result)
    assert plan.rewritten, [r.message for r in plan.remarks]
    batched = result.code.split("else:")[0]
    assert " for " not in batched.split("if ", 1)[1].split(":\n", 1)[1]  # no comprehension left
    rng = np.random.default_rng(3)
    for n in (1, 4, 0):
        X, w = rng.standard_normal((n, 3)), rng.standard_normal(3)
        try:
            want = _run(source, "f", X.copy(), w)
        except ValueError as exc:  # no items (np.argmax, np.stack of none): the rewrite raises too
            with pytest.raises(type(exc)):
                _run(result.code, "f", X.copy(), w)
            continue
        got = _run(result.code, "f", X.copy(), w)
        assert type(got) is type(want) or np.isscalar(got) and np.isscalar(want)
        if "np.dot" in expr:  # BLAS fixes no order for a dot product's sum: ddot per row and
            # einsum over the batch may differ in the last bit (NumPy 2.4 on this machine does)
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14, atol=1e-15)
        else:
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert np.asarray(got).dtype == np.asarray(want).dtype


def test_the_batched_array_never_aliases_an_argument():
    """``np.asarray([r for r in X])`` is a new array: the batched value would be ``X`` itself."""
    source = "import numpy as np\n\n\ndef f(X):\n    out = np.asarray([r for r in X])\n    out[0] = 7.0\n    return out\n"
    result = transpile_source(source, "m.py")
    assert _only_plan(result).rewritten
    X = np.zeros((3, 2))
    _run(result.code, "f", X)
    assert not X.any()


def test_python_floats_beside_float64_items_run_batched_on_float64_arrays_only():
    """``np.array([x[0] if x[0] > 0 else 0.5 for x in X])`` holds float64 where ``X`` does, as
    the batched ``where`` does; for float32 or int rows its dtype depends on the data, and the
    comprehension runs (checked in front)."""
    source = "import numpy as np\n\n\ndef f(X, w):\n    return np.array([x[0] if x[0] > 0 else 0.5 for x in X])\n"
    result = transpile_source(source, "m.py")
    assert _only_plan(result).rewritten
    assert "np.asarray(X).dtype == np.float64" in result.code
    rng = np.random.default_rng(4)
    for X in (rng.normal(size=(5, 2)), rng.normal(size=(5, 2)).astype(np.float32), np.array([[-1, 2], [3, 4]])):
        want, got = _run(source, "f", X, 0), _run(result.code, "f", X, 0)
        assert got.dtype == want.dtype and np.array_equal(got, want), (X.dtype, want, got)


STAY = {
    # np.array([0, 0]) holds ints, np.where(c, x, 0) floats: the dtype would depend on the data
    "python number on some items": "np.array([x[0] if x[0] > 0 else 0 for x in X])",
    "a generator": "np.sum(x[0] for x in X)",
    "part of a larger expression": "np.sum([x[0] for x in X]) + np.sum(w)",
    "a computed argument": "np.sum([x for x in X], axis=int(w[0] > 9))",
    "a list kept as a list": "[x * 2 for x in X]",
}


@pytest.mark.parametrize("expr", STAY.values(), ids=STAY.keys())
def test_a_comprehension_whose_rewrite_could_differ_stays(expr):
    source = f"import numpy as np\n\n\ndef f(X, w):\n    return {expr}\n"
    result = transpile_source(source, "m.py")
    assert not any(p.rewritten for p in result.plans)
    assert result.code == source


def test_a_comprehension_variable_the_function_uses_otherwise_stays():
    source = textwrap.dedent("""\
        import numpy as np


        def f(X):
            x = 3.0
            total = np.sum([x * 2 for x in X])
            return total + x
        """)
    result = transpile_source(source, "m.py")
    plan = _only_plan(result)
    assert not plan.rewritten
    assert any("`x` names the comprehension's variable" in r.message for r in plan.remarks)
    X = np.ones((2, 2))
    assert _run(result.code, "f", X) == _run(source, "f", X) == 11.0


def test_float32_rows_keep_their_dtype():
    """Fuzzer look-alike: where the branches of the item differ in kind the comprehension stays;
    where they do not, the batched array has the list's dtype."""
    source = "import numpy as np\n\n\ndef f(X):\n    return np.array([x * 2 for x in X])\n"
    result = transpile_source(source, "m.py")
    assert _only_plan(result).rewritten
    X = np.ones((3, 2), dtype=np.float32)
    assert _run(result.code, "f", X).dtype == _run(source, "f", X).dtype == np.float32


ASSIGNED = textwrap.dedent("""\
    import numpy as np


    def f(X, w):
        peaks = [np.max(x * w) for x in X]
        flags = [1 if np.sum(x) > 0 else 0 for x in X]
        return np.array(peaks), sum(flags), len(peaks)


    def g(X):
        rows = [x * 2 for x in X]
        rows.append(X[0])
        return np.array(rows)


    def h(X):
        rows = [x * 2 for x in X]
        return rows[0]
    """)


def test_a_comprehension_bound_to_a_name_that_only_array_readers_read():
    result = transpile_source(ASSIGNED, "m.py")
    rewritten = {p.lineno for p in result.plans if p.rewritten}
    assert rewritten == {5, 6}, [(p.lineno, [r.message for r in p.remarks]) for p in result.plans]
    assert "flags = np.where(" in result.code and ".tolist()" in result.code  # Python ints, as the list held
    rng = np.random.default_rng(4)
    for n in (1, 5):
        X, w = rng.standard_normal((n, 3)), rng.standard_normal(3)
        want, got = _run(ASSIGNED, "f", X, w), _run(result.code, "f", X, w)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:] == want[1:] and type(got[1]) is type(want[1]) is int
    for name in ("g", "h"):  # appended to, or indexed: the list stays a list
        X = rng.standard_normal((3, 2))
        np.testing.assert_array_equal(_run(result.code, name, X), _run(ASSIGNED, name, X))


def test_no_rows_leave_the_list_as_numpy_makes_it():
    """Fuzzer, seeds 2480772 and 2480874: with every rank declared the rewrite had no run-time
    check, and for a matrix with no rows `np.array([])` is `(0,)` floats where the batch of
    rows is `(0, 0)`. The batched code now runs only where the comprehension has items."""
    source = textwrap.dedent('''\
        import numpy as np


        def f(m2):
            """Args:
                m2: [n, n].
            """
            return np.array([r * 2.0 for r in m2])
        ''')
    result = transpile_source(source, "m.py")
    assert _only_plan(result).rewritten
    assert "type(m2) is np.ndarray and m2.ndim >= 1 and len(m2) > 0:" in result.code
    for m2 in (np.zeros((0, 0)), np.ones((2, 2))):
        want, got = _run(source, "f", m2), _run(result.code, "f", m2)
        assert got.shape == want.shape and got.dtype == want.dtype


@pytest.mark.parametrize("kept", ["x.sum() > 0", "x[0] > 100"])
def test_a_filtered_comprehension_that_keeps_nothing_is_numpys_empty_list(kept):
    """Adversarial review: with no item kept the list is `[]`, which NumPy reads as `(0,)`
    floats, not as the filtered batch's `(0, 2)`."""
    source = f"import numpy as np\n\n\ndef f(X):\n    return np.array([x * 2 for x in X if {kept}])\n"
    result = transpile_source(source, "m.py")
    assert _only_plan(result).rewritten
    for X in (np.array([[-1.0, -2.0], [-3.0, -4.0]]), np.array([[1.0, 2.0], [-3.0, 4.0]])):
        want, got = _run(source, "f", X), _run(result.code, "f", X)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_bound_comprehension_whose_variable_the_function_uses_otherwise_stays():
    """Review: `rows = [w[i] * i for i in range(n)]` batched binds `i = np.arange(n)`, which
    the function's own `i` (3) would then be."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(n, w):
            i = 3
            rows = [w[i] * i for i in range(n)]
            return np.array(rows) + i
        """)
    result = transpile_source(source, "m.py")
    assert not _only_plan(result).rewritten
    w = np.arange(4.0)
    np.testing.assert_array_equal(_run(result.code, "f", 4, w), _run(source, "f", 4, w))
