"""The checks in front, shortened where an earlier check decides a later one: a name tested to
be an ndarray is read as one (``x.ndim``, not ``np.ndim(x)``), type tests that test decides
fold away, a dtype equal to a tested one is not tested again, and a float array the function
made just before the loop is not tested at all. Each shortened guard must take the same
inputs as the long one and raise where it raised."""

from __future__ import annotations

import itertools
import textwrap

import gast
import numpy as np
import pytest

from pforge.transpile import transpile_source
from pforge.transpile import versioning
from tests.loops import plan_of, run_module


def _outcomes(modules, name, *args):
    """What ``name`` of each module gives for ``args`` (copies of the arrays): its result as a
    list, or the type of the error it raises, so the loop and the rewrite can be compared."""
    out = []
    for module in modules:
        try:
            out.append(module[name](*(a.copy() if isinstance(a, np.ndarray) else a for a in args)).tolist())
        except Exception as error:  # noqa: BLE001 - the kind of error is compared
            out.append(type(error))
    return out

#: a list of a kind check of ``x`` as the printer writes it for an unknown kind of rank 1 to 6
KIND_OF_X = ("(isinstance(x, (list, tuple)) and all((type(v) is int or isinstance(v, float) for v in x)) or "
             "((type(x) is np.ndarray or (isinstance(x, (list, tuple)) and all((type(v) is np.ndarray for v in x)) "
             "and (len({(v.shape, v.dtype) for v in x}) == 1))) and 1 <= np.ndim(x) <= 6))")

FOLDINGS = [
    # x is an ndarray after its type test: the kind check is its rank check, spelled for arrays
    (["type(x) is np.ndarray", KIND_OF_X, "np.asarray(x).dtype.kind in 'biufc'", "np.shape(x)[:1] == np.shape(z)"],
     ["type(x) is np.ndarray", "1 <= x.ndim <= 6", "x.dtype.kind in 'biufc'", "x.shape[:1] == np.shape(z)"]),
    # an earlier conjunct again, inside an `or`: true there
    (["type(r) is np.ndarray or isinstance(r, list)", "n > 0", "(type(r) is np.ndarray or isinstance(r, list)) or q"],
     ["type(r) is np.ndarray or isinstance(r, list)", "n > 0"]),
    (["type(x) is np.ndarray", "isinstance(x, (np.number, np.ndarray))", "type(x) is np.ndarray or len(x) > 2"],
     ["type(x) is np.ndarray"]),
    # NumPy under another name
    (["type(x) is numpy.ndarray", "numpy.ndim(x) == 2", "np.ndim(x) == 2"],
     ["type(x) is numpy.ndarray", "x.ndim == 2", "np.ndim(x) == 2"]),
    # nothing decided: an unknown kind, a test that runs before the type test, an operand
    # that runs before the decided one, a conjunct that is false whole (kept: the loop runs)
    (["(type(r) is np.ndarray or isinstance(r, (list, tuple))) and np.ndim(r) == 1"],
     ["(type(r) is np.ndarray or isinstance(r, (list, tuple))) and np.ndim(r) == 1"]),
    (["np.ndim(x) == 1", "type(x) is np.ndarray"], ["np.ndim(x) == 1", "type(x) is np.ndarray"]),
    (["type(x) is np.ndarray", "np.ndim(y) == 1 or type(x) is np.ndarray"],
     ["type(x) is np.ndarray", "np.ndim(y) == 1 or type(x) is np.ndarray"]),
    # an `and` that is false whole, inside an `or`: goes
    (["type(x) is np.ndarray", "isinstance(x, (list, tuple)) and len(x) > 3 or n > 2"],
     ["type(x) is np.ndarray", "n > 2"]),
    # false operands of an `or` go, the rest stays in order
    (["type(x) is np.ndarray", "isinstance(x, tuple) or np.ndim(y) == 1 or isinstance(x, list) or y == 2"],
     ["type(x) is np.ndarray", "np.ndim(y) == 1 or y == 2"]),
]

#: values each name takes in :func:`test_a_folded_guard_takes_what_the_long_one_takes`
POOL = [np.arange(3.0), np.zeros((2, 2)), np.zeros((2, 2, 1, 1, 1, 1, 1)), np.arange(4), np.array(["a", "b"]),
        [1.0, 2.0], (1, 2), [np.zeros(2), np.zeros(2)], [np.zeros(2), np.zeros(3)], {"a": 1}, 3, 2.5, "ab",
        np.float64(1), np.ma.masked_array([1.0, 2.0]), None, [1, "a"]]


def _folded(tests: list[str]) -> list[str]:
    parsed = [gast.parse(t).body[0].value for t in tests]
    return [gast.unparse(t).strip() for t in versioning._known_arrays_folded(parsed)]


#: a conjunct false whole stays: the loop runs (no input passes, so it is not in FOLDINGS)
FALSE_WHOLE = (["type(x) is np.ndarray", "isinstance(x, (list, tuple)) and len(x) > 3", "n > 2"],
               ["type(x) is np.ndarray", "isinstance(x, (list, tuple)) and len(x) > 3", "n > 2"])


@pytest.mark.parametrize("tests, expected", [*FOLDINGS, FALSE_WHOLE])
def test_a_check_after_an_arrays_type_test_is_folded(tests, expected):
    assert [gast.unparse(gast.parse(t)).strip() for t in expected] == _folded(tests)


def _outcome(tests: list[str], env: dict):
    try:
        return bool(eval(" and ".join(f"({t})" for t in tests), env))  # noqa: S307 - the tests' own strings
    except Exception as error:  # noqa: BLE001 - the kind of error is what is compared
        return type(error)


@pytest.mark.parametrize("tests, _", FOLDINGS)
def test_a_folded_guard_takes_what_the_long_one_takes(tests, _):
    folded = _folded(tests)
    names = sorted({"x", "y", "z", "r", "q", "n"})
    outcomes = set()
    for values in itertools.product(POOL, repeat=2):
        for fill in (0, 5):
            env = {"np": np, "numpy": np} | dict.fromkeys(names, fill) | {"x": values[0], "r": values[0],
                                                                           "y": values[1], "z": values[1]}
            before = _outcome(tests, env)
            assert before == _outcome(folded, env), (values, fill)
            outcomes.add(before)
    assert True in outcomes  # (some inputs pass: the comparison covers the folded tests)


CONTRACTION = textwrap.dedent("""
    import numpy as np

    def triple(xs, ys, zs):
        out = np.empty((xs.shape[0], ys.shape[0], zs.shape[0]))
        for a in range(xs.shape[0]):
            for b in range(ys.shape[0]):
                for c in range(zs.shape[0]):
                    out[a, b, c] = np.sum(xs[a] * ys[b] * zs[c])
        return out
""")


def test_one_dtype_test_covers_the_arrays_of_one_dtype():
    result = transpile_source(CONTRACTION, "m.py")
    assert plan_of(result, "triple").rewritten
    assert result.code.count("dtype.char in 'fdFD'") == 1
    assert "ys.dtype == xs.dtype" in result.code and "zs.dtype == xs.dtype" in result.code
    loop, rewritten = run_module(CONTRACTION)["triple"], run_module(result.code)["triple"]
    rng = np.random.default_rng(0)
    for dtypes in [("f8", "f8", "f8"), ("f4", "f4", "f4"), ("f4", "f8", "f8"), ("f8", "f4", "f4"),
                   ("i8", "i8", "i8"), ("i8", "f8", "f8"), ("f8", "f8", "i8"), ("c16", "c16", "c16"), ("O", "O", "O")]:
        args = [(rng.standard_normal((k, 5)) * 4).astype(t) for k, t in zip((2, 3, 4), dtypes)]
        expected, got = loop(*args), rewritten(*args)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-5)


GROUPS = textwrap.dedent("""
    import numpy as np

    def made_float(tags, mat, g):
        n = mat.shape[0]
        totals = np.zeros((g, n))
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals

    def made_int(tags, mat, g):
        n = mat.shape[0]
        totals = np.zeros((g, n), dtype=np.int64)
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals

    def made_ones(tags, mat, g):
        n = mat.shape[0]
        totals = np.ones((g, n))
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals

    def made_empty(tags, mat, g):
        n = mat.shape[0]
        totals = np.empty((g, n))
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals

    def made_as_ints(tags, mat, g):
        n = mat.shape[0]
        totals = np.zeros_like(np.ones((g, n), dtype=np.int64))
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals

    def made_starred(tags, mat, g):
        n = mat.shape[0]
        spec = ((g, n), np.int64)
        totals = np.zeros(*spec)
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals

    def made_then_viewed(tags, mat, g):
        n = mat.shape[0]
        totals = np.zeros((g, n))
        totals.dtype = np.int64
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals

    def made_then_cast(tags, mat, g):
        n = mat.shape[0]
        totals = np.zeros((g, n))
        totals = totals.astype(np.int64)
        for grp in range(g):
            for row in range(n):
                for col in range(n):
                    if tags[col] == grp:
                        totals[grp, row] += mat[row, col]
        return totals
""")


def test_a_float_array_made_before_the_loop_needs_no_dtype_test():
    result = transpile_source(GROUPS, "m.py")
    functions = {name: result.code.split(f"def {name}(")[1].split("\ndef ")[0]
                 for name in ("made_float", "made_ones", "made_empty", "made_int", "made_as_ints", "made_starred",
                              "made_then_viewed", "made_then_cast")}
    for name in functions:
        assert plan_of(result, name).rewritten, name
    for name in ("made_float", "made_ones", "made_empty"):
        assert "'fc'" not in functions[name], name
    for name in ("made_int", "made_as_ints", "made_starred", "made_then_viewed", "made_then_cast"):
        assert "totals).dtype.kind in 'fc'" in functions[name] or "totals.dtype.kind in 'fc'" in functions[name], name
    loops, rewrites = run_module(GROUPS), run_module(result.code)
    rng = np.random.default_rng(1)
    tags = rng.integers(0, 3, 6)
    for mat in (rng.standard_normal((6, 6)) * 3, rng.integers(-5, 5, (6, 6))):
        for name in set(functions) - {"made_empty"}:  # (its start is whatever memory held)
            expected, got = loops[name](tags, mat, 3), rewrites[name](tags, mat, 3)
            assert got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, rtol=1e-12)


ONE_HOT = textwrap.dedent("""
    import numpy as np

    def one_hot(positions, n_classes):
        enc = np.zeros((len(positions), n_classes), dtype=int)
        for row, pos in enumerate(positions):
            enc[row, pos] = 1
        return enc

    def one_hot_shape(positions, shape):
        enc = np.zeros(shape, dtype=int)
        for row, pos in enumerate(positions):
            enc[row, pos] = 1
        return enc
""")


def test_an_item_of_a_new_arrays_shape_needs_no_check():
    """``n_classes`` reaches the loop only as an item of ``enc``'s literal shape: the call runs
    before the loop in both versions, and raises for any item but an integer scalar, so
    ``enc`` is 2-D there whatever ``n_classes`` is. A whole shape (``np.zeros(shape)``) decides
    the rank: checked."""
    result = transpile_source(ONE_HOT, "m.py")
    one_hot = result.code.split("def one_hot(")[1].split("\ndef ")[0]
    whole = result.code.split("def one_hot_shape(")[1].split("\ndef ")[0]
    assert plan_of(result, "one_hot").rewritten and plan_of(result, "one_hot_shape").rewritten
    checks = next(line for line in one_hot.splitlines() if line.startswith("    if "))
    assert "positions" in checks and "n_classes" not in checks
    assert "np.ndim(shape)" in next(line for line in whole.splitlines() if line.startswith("    if "))
    loops, rewrites = run_module(ONE_HOT), run_module(result.code)
    positions = np.array([2, 0, 1, 2])
    for n_classes in (3, np.int64(3), np.array(3), np.uint8(4), True, 2.0, np.array([3]), "3", -1):
        outcomes = _outcomes((loops, rewrites), "one_hot", positions, n_classes)
        assert outcomes[0] == outcomes[1], n_classes
    for shape in ((4, 3), [4, 3], (4, 3, 2)):
        outcomes = _outcomes((loops, rewrites), "one_hot_shape", positions, shape)
        assert outcomes[0] == outcomes[1], shape


@pytest.mark.parametrize("made", ["np.ones((len(positions), n_classes), dtype=int)",
                                  "np.empty((len(positions), n_classes), dtype=int)",
                                  "np.full((len(positions), n_classes), 0, dtype=int)",
                                  "np.zeros(shape=(len(positions), n_classes), dtype=int)"])
def test_an_item_of_the_literal_shape_of_any_constructor_needs_no_check(made):
    """As above, for each constructor whose shape is a literal (mutants of ``_flowing_into``
    that drop one of them from the list survived with only ``np.zeros`` tested)."""
    source = ONE_HOT.replace("np.zeros((len(positions), n_classes), dtype=int)", made)
    result = transpile_source(source, "m.py")
    one_hot = result.code.split("def one_hot(")[1].split("\ndef ")[0]
    assert plan_of(result, "one_hot").rewritten
    checks = next(line for line in one_hot.splitlines() if line.startswith("    if "))
    assert "positions" in checks and "n_classes" not in checks
    if "empty" in made:
        return  # (the entries the loop leaves are whatever memory held: nothing to compare)
    loops, rewrites = run_module(source), run_module(result.code)
    positions = np.array([2, 0, 1, 2])
    for n_classes in (3, np.int64(3), np.array(3), 2.0, "3", -1):
        outcomes = _outcomes((loops, rewrites), "one_hot", positions, n_classes)
        assert outcomes[0] == outcomes[1], n_classes


@pytest.mark.parametrize("made", ["np.full((len(x), 2), [a, b])", "np.full((len(x), 2), fill_value=[a, b])"])
def test_names_in_a_fill_value_flow_into_the_new_array(made):
    """Only the shape's items are exempt: ``a`` and ``b`` in a fill value decide what ``enc``
    holds, so their checks stay (mutants of ``_flowing_into`` that read a second positional
    argument, or any keyword, as a shape survived)."""
    source = textwrap.dedent(f"""
        import numpy as np

        def f(x, a, b):
            enc = {made}
            out = np.zeros(len(x))
            for row in range(len(x)):
                out[row] = enc[row, 0] * x[row]
            return out
    """)
    result = transpile_source(source, "m.py")
    assert plan_of(result, "f").rewritten
    guard = result.code.split("    if ")[1].split(":\n")[0]
    assert "np.ndim(a) == 0" in guard, guard
    loops, rewrites = run_module(source), run_module(result.code)
    x = np.array([1.0, -2.0, 3.5])
    for a in (2.0, 3, np.float32(0.5), np.array(1.5)):
        outcomes = _outcomes((loops, rewrites), "f", x, a, 1.0)
        assert outcomes[0] == outcomes[1], a


MEASURED = textwrap.dedent("""
    import numpy as np

    def add_column(mat, colvec):
        n_cols = mat.shape[1]
        for col in range(n_cols):
            mat[:, col] += colvec
        return mat

    def add_column_cut(mat, colvec):
        n_cols = mat.shape[1]
        mat = mat[:, :2]
        for col in range(n_cols):
            mat[:, col] += colvec
        return mat

    def weighted(weights, vec):
        size = vec.shape[0]
        grid = np.zeros(weights.shape)
        for r in range(size):
            for c in range(size):
                grid[r, c] = weights[r, c] * (vec[r] - vec[c])
        return grid

    def weighted_like(weights, vec):
        size = vec.shape[0]
        grid = np.ones_like(weights)
        for r in range(size):
            for c in range(size):
                grid[r, c] = weights[r, c] * (vec[r] - vec[c])
        return grid

    def weighted_reshaped(weights, vec):
        size = vec.shape[0]
        grid = np.zeros_like(weights, shape=(3, 3))
        for r in range(size):
            for c in range(size):
                grid[r, c] = weights[r, c] * (vec[r] - vec[c])
        return grid

    def weighted_cut(weights, vec):
        size = vec.shape[0]
        grid = np.zeros(weights.shape)
        weights = weights[:1]
        for r in range(size):
            for c in range(size):
                grid[r, c] = weights[r, c] * (vec[r] - vec[c])
        return grid
""")


def _checks(code: str, name: str) -> str:
    function = code.split(f"def {name}(")[1].split("\ndef ")[0]
    return next(line for line in function.splitlines() if line.startswith("    if "))


def test_a_bound_measured_just_before_the_loop_needs_no_check():
    """``n_cols = mat.shape[1]`` right before the loop bounds the columns it reads of ``mat``;
    ``grid = np.zeros(weights.shape)`` is as long as ``weights`` on every axis, so one check
    of ``weights`` covers both. Anything in between that rebinds either keeps the check."""
    result = transpile_source(MEASURED, "m.py", shapes={"mat": 2, "colvec": 1, "weights": 2, "vec": 1})
    for name in ("add_column", "add_column_cut", "weighted", "weighted_like", "weighted_reshaped", "weighted_cut"):
        assert plan_of(result, name).rewritten, name
    assert "grid" not in _checks(result.code, "weighted_like")
    assert "size <= np.shape(grid)[0]" in _checks(result.code, "weighted_reshaped")
    assert "n_cols <=" not in _checks(result.code, "add_column")
    assert "n_cols <= mat.shape[1]" in _checks(result.code, "add_column_cut")
    assert "grid" not in _checks(result.code, "weighted")
    assert "size <= weights.shape[0]" in _checks(result.code, "weighted")
    assert "size <= grid.shape[0]" in _checks(result.code, "weighted_cut")
    loops, rewrites = run_module(MEASURED), run_module(result.code)
    rng = np.random.default_rng(3)
    for name, args in [("add_column", lambda: (rng.standard_normal((3, 4)), rng.standard_normal(3))),
                       ("add_column_cut", lambda: (rng.standard_normal((3, 4)), rng.standard_normal(3))),
                       ("add_column_cut", lambda: (rng.standard_normal((3, 2)), rng.standard_normal(3))),
                       ("weighted", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(3))),
                       ("weighted", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(5))),
                       ("weighted_like", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(3))),
                       ("weighted_like", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(5))),
                       ("weighted_reshaped", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(3))),
                       ("weighted_reshaped", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(4))),
                       ("weighted_cut", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(3))),
                       ("weighted_cut", lambda: (rng.standard_normal((4, 4)), rng.standard_normal(1)))]:
        outcomes = _outcomes((loops, rewrites), name, *args())
        assert outcomes[0] == outcomes[1] or np.allclose(outcomes[0], outcomes[1]), name


SHADOWED = textwrap.dedent("""
    import numpy as np
    from numpy import zeros

    def zeros(shape):  # the module's own zeros, not NumPy's: an int array, or the shape's item
        return np.zeros(shape, dtype=np.int64) if isinstance(shape, int) else shape[1]

    def scattered(t, X):
        G = zeros(5)
        for i in range(X.shape[0]):
            for j in range(X.shape[1]):
                G[t[i]] += X[i, j]
        return G

    def one_hot(positions, table):
        enc = zeros((len(positions), table))
        for row, pos in enumerate(positions):
            enc[row, pos] = 1
        return enc
""")


def test_a_shadowed_numpy_constructor_is_no_new_float_array():
    """``zeros`` of ``from numpy import zeros`` that the module rebinds (``def zeros``) is
    not NumPy's: its array may be an int one, whose scattered sum truncates term by term
    (the dtype test stays), and an item of its "shape" may be what it returns (the item's
    check stays: a dict ``table`` is written by the loop, where the batched code raises)."""
    result = transpile_source(SHADOWED, "m.py")
    loops, rewrites = run_module(SHADOWED), run_module(result.code)
    rng = np.random.default_rng(2)
    t, X = rng.integers(0, 5, 6), rng.integers(0, 4, (6, 3)) * 0.5
    np.testing.assert_array_equal(rewrites["scattered"](t, X), loops["scattered"](t, X))
    assert rewrites["scattered"](t, X).dtype == np.int64
    positions = np.array([2, 0, 1])
    assert rewrites["one_hot"](positions, {}) == loops["one_hot"](positions, {})
    table = np.zeros((3, 3))
    np.testing.assert_array_equal(rewrites["one_hot"](positions, table.copy()), loops["one_hot"](positions, table.copy()))


def test_a_read_of_an_import_a_module_binding_shadows_resolves_to_nothing():
    from pforge.transpile.frontend import ImportMap

    module = gast.parse(textwrap.dedent("""
        import numpy as np
        from numpy import zeros, ones
        def zeros(shape):
            return shape
        def f(n, np=None):
            return np.zeros(n), zeros(n), ones(n)
        def g(n):
            return np.zeros(n), ones(n)
    """))
    imports = ImportMap.from_module(module)
    f, g = (node for node in module.body if isinstance(node, gast.FunctionDef) and node.name in "fg")
    calls = {fn.name: [gast.unparse(c.func).strip() + "=" + str(imports.resolve(c.func))
                       for c in gast.walk(fn) if isinstance(c, gast.Call)] for fn in (f, g)}
    assert sorted(calls["f"]) == ["np.zeros=None", "ones=numpy.ones", "zeros=None"]
    assert sorted(calls["g"]) == ["np.zeros=numpy.zeros", "ones=numpy.ones"]
