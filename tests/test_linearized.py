"""Linearized nests: the delinearizing dependence test (``x[i * n + j]``, ``j`` over
``range(n)``), scalar forward substitution of a private index, product loops in nested form,
and counters replaced by their closed form (induction-variable substitution)."""

from __future__ import annotations

import textwrap

import gast
import numpy as np
import pytest

from pforge.transpile import dependence, transpile_source


def _run(code, name, *args):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace[name](*args)


def _plan(result, line):
    return next(p for p in result.plans if p.lineno == line)


def _rewritten(source, line, name, cases):
    """Transpiles ``source``, asserts the loop at ``line`` was rewritten, and compares ``name``
    with the loop on every argument tuple of ``cases`` (copies, so in-place writes count)."""
    result = transpile_source(source, "m.py")
    plan = _plan(result, line)
    assert plan.rewritten, [r.message for r in plan.remarks]
    for args in cases:
        want = _run(source, name, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = _run(result.code, name, *[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        np.testing.assert_array_equal(got, want)
    return result


# -- the dependence test ------------------------------------------------------------------------------

def _access(text):
    node = gast.parse(text).body[0].targets[0]
    base, dims = dependence.flatten_subscript(node)
    return dependence.Access(base, dims, node, True)


def _separates(text, stops, lowest=0, variant=("j",)):
    access = _access(text)
    inner = {name: (gast.parse(str(stop)).body[0].value, frozenset({id(access.node)}))
             for name, stop in stops.items()}
    return dependence.separating_dim(access, "i", set(variant), dependence.Nest(lowest, inner)) is not None


@pytest.mark.parametrize("text, stops, lowest", [
    ("q[i * n + j] = 0", {"j": "n"}, 0),
    ("q[n * i + j] = 0", {"j": "n"}, 0),
    ("q[j + i * n] = 0", {"j": "n"}, 0),
    ("q[2 * (i * n + j) + 1] = 0", {"j": "n"}, 0),
    ("q[i * 4 + j] = 0", {"j": 4}, 0),
    ("q[i * (n - 1) + j] = 0", {"j": "n - 1"}, 0),
    ("q[i * x.shape[1] + j] = 0", {"j": "x.shape[1]"}, 0),
    ("q[(i - 2) * n + j] = 0", {"j": "n"}, 2),
])
def test_a_linearized_index_gives_each_outer_iteration_a_block_of_its_own(text, stops, lowest):
    assert _separates(text, stops, lowest)


@pytest.mark.parametrize("text, stops, lowest, variant", [
    ("q[i * (n - 1) + j] = 0", {"j": "n"}, 0, ("j",)),  # blocks of n - 1 written n wide: overlap
    ("q[i * n + j] = 0", {"j": "n + 1"}, 0, ("j",)),
    ("q[i * 4 + j] = 0", {"j": 5}, 0, ("j",)),
    ("q[i * n + j] = 0", {"j": "n"}, -1, ("j",)),  # i = -1 indexes from the end: wraps around
    ("q[i * n + j] = 0", {"j": "n"}, None, ("j",)),
    ("q[i * n + j - 1] = 0", {"j": "n"}, 0, ("j",)),
    ("q[i * n - j] = 0", {"j": "n"}, 0, ("j",)),
    ("q[i * n + j] = 0", {"j": "n"}, 0, ("j", "n")),  # the loop changes n
    ("q[i * n + j + k] = 0", {"j": "n"}, 0, ("j", "k")),
    ("q[i * n + j] = 0", {}, 0, ("j",)),  # j is not an inner loop's index over range(n)
    ("q[i * i + j] = 0", {"j": "i"}, 0, ("j",)),
])
def test_overlapping_or_wrapping_linearized_indices_do_not_separate(text, stops, lowest, variant):
    assert not _separates(text, stops, lowest, variant)


def test_a_linearized_access_outside_the_inner_loop_does_not_separate():
    access = _access("q[i * n + j] = 0")
    inner = {"j": (gast.parse("n").body[0].value, frozenset())}  # the access is not inside j's loop
    assert dependence.separating_dim(access, "i", {"j"}, dependence.Nest(0, inner)) is None


def test_products_are_terms_only_when_asked_for():
    node = gast.parse("i * n + j").body[0].value
    assert dependence.Affine.of(node) is None
    form = dependence.Affine.of(node, products=True)
    assert form.products() == {("i", "n"): 1} and form.coeff("j") == 1 and form.symbols() == {"i", "j", "n"}
    shape = dependence.Affine.of(gast.parse("i * x.shape[1]").body[0].value, products=True)
    assert shape.symbols() == {"i", "x"}


# -- loops ------------------------------------------------------------------------------------------

LINEAR = textwrap.dedent("""\
    import numpy as np


    def f(x, n, m):
        out = np.zeros(n * m + 1)
        for i in range(n):
            for j in range(m):
                k = i * m + j
                out[k] = x[i, j] * 2.0
        return out
    """)


def test_a_private_index_is_read_through_its_definition():
    cases = [(np.random.default_rng(s).standard_normal((6, 5)), n, m) for s, (n, m) in enumerate(
        [(3, 4), (0, 4), (3, 0), (1, 1), (6, 5)])]
    result = _rewritten(LINEAR, 6, "f", cases)
    assert "for j in range(m)" not in result.code.split("else:")[0]


def test_a_private_index_rebound_in_the_loop_is_not_substituted():
    source = LINEAR.replace("        out[k] = x[i, j] * 2.0", "        if x[i, j] > 0:\n"
                            "                k = 0\n            out[k] = x[i, j] * 2.0")
    plan = _plan(transpile_source(source, "m.py"), 6)
    assert not plan.vectorizable


IM2COL = textwrap.dedent("""\
    import numpy as np


    def f(padded, block):
        n_rows, n_cols = padded.shape
        n_down = n_cols - block[1] + 1
        n_across = n_rows - block[0] + 1
        columns = np.zeros((n_down * n_across, block[1] * block[0]))
        k = 0
        for i in range(n_down):
            for j in range(n_across):
                patch = np.ravel(padded[i : i + block[0], j : j + block[1]])
                columns[k, :] = patch
                k += 1
        return columns
    """)


def test_a_counter_over_a_nest_is_its_closed_form():
    rng = np.random.default_rng(1)
    cases = [(rng.standard_normal((h, w)), np.array(b)) for h, w, b in
             [(6, 6, (2, 2)), (4, 4, (1, 1)), (7, 7, (3, 3)), (2, 2, (2, 2))]]
    result = _rewritten(IM2COL, 10, "f", cases)
    batched = result.code.split("else:")[0]
    assert "k += 1" not in batched and "k = " in batched


@pytest.mark.parametrize("change", [
    ("    return columns", "    return columns, k"),  # read after the nest
    ("            columns[k, :] = patch\n            k += 1", "            k += 1\n            columns[k - 1, :] = patch"),
    ("            k += 1", "            if patch[0] > 0:\n                k += 1"),  # not every iteration
    ("    k = 0\n", "    k = int(block[0])\n"),  # a start that is not a number
    ("            k += 1", "            k += 1\n            if patch[0] > 5:\n                break"),
    ("            k += 1", "            k += 1\n            i = 0"),  # the closed form would read the new i
])
def test_a_counter_whose_value_is_seen_otherwise_stays_a_recurrence(change):
    source = IM2COL.replace(*change)
    assert source != IM2COL
    result = transpile_source(source, "m.py")
    assert not _plan(result, 10).vectorizable


COUNTER_IN_A_LOOP = textwrap.dedent("""\
    import numpy as np


    def f(x, m2):
        q = np.zeros(len(x) * m2.shape[1] + 1)
        t = 0
        for i in range(len(x)):
            if x[i] < 0.5:
                continue
            for j in range(m2.shape[1]):
                q[t] = m2[i, j] * x[i]
                t += 1
        return q
    """)


def test_a_counter_bound_before_an_outer_loop_counts_across_it():
    """Fuzzer, seed 2401800: ``t`` is bound before the outer loop, so the inner loop does not
    start from 0 each time; it stays a recurrence there (and at the outer level, which skips
    iterations)."""
    result = transpile_source(COUNTER_IN_A_LOOP, "m.py")
    assert not any(p.rewritten for p in result.plans)
    x = np.array([1.0, 0.2, 2.0, 3.0])
    m2 = np.arange(16.0).reshape(4, 4)
    np.testing.assert_array_equal(_run(result.code, "f", x, m2), _run(COUNTER_IN_A_LOOP, "f", x, m2))


STATEMENT_ORDER = textwrap.dedent("""\
    import numpy as np


    def f(x, m2):
        w = m2.shape[1]
        q = np.zeros(len(x) * m2.shape[1] + 1)
        t = 0
        a = np.array(x, dtype=float)
        b = np.zeros(len(x))
        for i in range(1, len(x)):
            for j in range(w):
                q[t] = m2[i, j] * 3.0
                t += 1
            a[i] = np.tanh(a[i - 1]) + x[i]
            b[i] = a[i - 1] * 2.0 + np.tanh(x[i])
        return q, a, b
    """)


def test_an_inner_level_rewritten_alone_keeps_the_nested_form_where_its_checks_fail():
    """Fuzzer, seed 2400861: the outer loop stays (a recurrence through `a`; the fuzzer's own
    program, `a[i] = x[i] + x[i]` before `b[i] = a[i - 1] ...`, is now rewritten whole: the
    read of the previous iteration's `a` comes after the write), the inner one is rewritten
    with ``t`` in closed form. Where the inner rewrite's run-time checks fail, the loop that
    runs must be the nested form, which computes ``t``, not the loop as written, which would
    count on from the array the batched code left in ``t``. (Loop distribution now splits the
    outer loop, so this is the loop analysed whole; split, see the next test.)"""
    result = transpile_source(STATEMENT_ORDER, "m.py", distribute=False)
    assert not _plan(result, 10).rewritten
    inner = _plan(result, 11)
    assert inner.rewritten, [r.message for r in inner.remarks]
    fallback = result.code.split("else:")[1]
    assert "t += 1" not in fallback and "t = (i - 1) * w + j" in fallback
    m2 = np.arange(25.0).reshape(5, 5)
    x = np.arange(5.0)
    want, got = _run(STATEMENT_ORDER, "f", x, m2), _run(result.code, "f", x, m2)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)


def test_split_the_nest_is_rewritten_whole_with_the_counter_from_its_start():
    """The same loop distributed: the nest that counts `t` is a piece of its own, batched whole
    (its fallback the piece as written, counting from `t = 0`), the recurrence a loop, and the
    read of the previous iteration's `a` batched after it."""
    result = transpile_source(STATEMENT_ORDER, "m.py")
    assert "# pforge: loop distributed" in result.code
    assert sum(p.rewritten for p in result.plans if p.lineno == 10) == 2
    m2 = np.arange(25.0).reshape(5, 5)
    x = np.arange(5.0)
    want, got = _run(STATEMENT_ORDER, "f", x, m2), _run(result.code, "f", x, m2)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
    want, got = _run(STATEMENT_ORDER, "f", list(x), m2), _run(result.code, "f", list(x), m2)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)


PRODUCT = textwrap.dedent("""\
    import numpy as np
    from itertools import product


    def f(picture, size):
        out_h = picture.shape[0] - size + 1
        out_w = picture.shape[1] - size + 1
        columns = np.zeros((out_h * out_w, size * size))
        for k, (i, j) in enumerate(product(range(out_h), range(out_w))):
            columns[k, :] = np.ravel(picture[i : i + size, j : j + size])
        return columns


    def g(x, n, m):
        out = np.zeros((n, m))
        for i, j in product(range(n), range(m)):
            out[i, j] = x[i] * x[j]
        return out
    """)


def test_a_product_of_ranges_is_a_nest():
    rng = np.random.default_rng(2)
    _rewritten(PRODUCT, 9, "f", [(rng.standard_normal((h, w)), s) for h, w, s in [(5, 6, 2), (3, 3, 3), (4, 2, 1)]])
    result = _rewritten(PRODUCT, 16, "g", [(rng.standard_normal(6), n, m) for n, m in [(3, 4), (0, 2), (6, 6)]])
    assert [p.lineno for p in result.plans] == [9, 16]  # the nest's inner levels are not loops of their own


@pytest.mark.parametrize("change", [
    ("        out[i, j] = x[i] * x[j]", "        out[i, j] = x[i] * x[j]\n        if x[i] > 1:\n            break"),
    ("    for i, j in product(range(n), range(m)):", "    for i, j in product(range(n), range(m), repeat=1):"),
    ("    for i, j in product(range(n), range(m)):", "    for i, j in product(range(n), range(m)):\n"
                                                   "        m = m + 0"),
    ("        out[i, j] = x[i] * x[j]", "        out[i, j] = x[i] * x[j]\n        i = 0"),  # i = 0 lasts in a nest
])
def test_a_product_whose_nest_would_differ_stays_as_written(change):
    source = PRODUCT.replace(*change)
    assert source != PRODUCT
    result = transpile_source(source, "m.py")
    assert [p.lineno for p in result.plans] == [9, 16]
    assert not _plan(result, 16).rewritten
    assert "for i, j in product(range(n), range(m)" in result.code


ROWS_COUNTER = textwrap.dedent("""\
    import numpy as np


    def f(X):
        out = np.zeros((len(X) + 2, X.shape[1]))
        k = 2
        for row in X:
            out[k] = row * 2
            k += 1
        return out


    def g(X):
        out = np.zeros(len(X) + 1)
        k = 0
        for row in X:
            k += 1
            out[k] = row.sum()
        return out
    """)


def test_a_counter_over_rows_is_the_enumerate_index():
    """``k = 2; for row in X: ...; k += 1`` is ``for k, row in enumerate(X, 2)``; read after
    its increment, the counter stays a recurrence."""
    result = transpile_source(ROWS_COUNTER, "m.py")
    f_plan, g_plan = result.plans
    assert f_plan.rewritten, [r.message for r in f_plan.remarks]
    assert not g_plan.vectorizable
    for n in (1, 4):
        X = np.arange(3.0 * n).reshape(n, 3)
        np.testing.assert_array_equal(_run(result.code, "f", X), _run(ROWS_COUNTER, "f", X))


FIRST_ASSIGN = textwrap.dedent("""\
    import numpy as np


    def f(x, n):
        s = 7.0
        for i in range(n):
            if i == 0:
                s = x[i] * 2.0
            else:
                s += x[i] * 2.0
        return s


    def g(X):
        for k, row in enumerate(X):
            if k == 0:
                total = row * row
            else:
                total = total * (row * row)
        return total
    """)


def test_a_reduction_whose_first_iteration_assigns_is_the_terms_alone():
    """`if i == 0: s = t else: s += t` is the sum of the terms, whatever `s` held (7.0 here);
    with no iteration the loop leaves `s` as it was, so the batched code runs only where the
    loop runs."""
    result = transpile_source(FIRST_ASSIGN, "m.py")
    f_plan, g_plan = result.plans
    assert f_plan.rewritten and g_plan.rewritten, [r.message for p in result.plans for r in p.remarks]
    assert "s = np.sum(" in result.code and "n > 0" in result.code
    x = np.array([0.5, -1.0, 2.0])
    for n in (0, 1, 3):
        assert _run(result.code, "f", x, n) == _run(FIRST_ASSIGN, "f", x, n)
    X = np.arange(6.0).reshape(3, 2) + 1.0
    np.testing.assert_array_equal(_run(result.code, "g", X), _run(FIRST_ASSIGN, "g", X))


@pytest.mark.parametrize("change", [
    ("if i == 0:", "if i == 1:"),  # not the first iteration
    ("s += x[i] * 2.0", "s += x[i] * 3.0"),  # another term
    ("s = x[i] * 2.0", "s = x[i] * 2.0 * s"),  # the first term reads s (and scales it)
    ("            s += x[i] * 2.0", "            s += x[i] * 2.0\n        s = s * 0.5"),  # bound again
])
def test_a_first_iteration_that_is_not_the_reduction_stays(change):
    source = FIRST_ASSIGN.replace(*change)
    assert source != FIRST_ASSIGN
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten


FIRST_ASSIGN_KINDS = textwrap.dedent("""\
    import numpy as np


    def f(X):
        for i in range(len(X)):
            if i == 0:
                s = X[i]
            else:
                s += X[i]
        return s
    """)


@pytest.mark.parametrize("X", [np.array([100, 100], dtype=np.int8), np.array([True, True]),
                               np.array([2, 3], dtype=np.int32), np.array([0.5, 1.5], dtype=np.float32)],
                         ids=["int8 wraps", "bools or", "int32", "float32"])
def test_a_first_iteration_reduction_keeps_the_terms_dtype(X):
    """Adversarial review: `s = X[0]; s += X[i]` adds in `X`'s dtype (int8 wraps, bools `or`),
    where `np.sum` would widen to int64."""
    result = transpile_source(FIRST_ASSIGN_KINDS, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    want, got = _run(FIRST_ASSIGN_KINDS, "f", X.copy()), _run(result.code, "f", X.copy())
    assert type(got) is type(want) and got == want


def test_a_first_iteration_reduction_of_rows_updated_in_place_stays():
    """`s = X[0]` is a row of `X`, and `s += X[i]` then writes into `X` itself: the loop must run."""
    source = FIRST_ASSIGN_KINDS.replace("def f(X):", "def f(X):\n    X = np.asarray(X)\n    _ = X[:, 0]")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    _run(result.code, "f", X)
    np.testing.assert_array_equal(X, [[4.0, 6.0], [3.0, 4.0]])
