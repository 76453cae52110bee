"""A sum of a broadcast product becomes ``np.einsum``: the triple product, a row against every
row, a scaled row sum. Each case asserts the contraction was written (its exact spelling), then
that it computes what the loop does; each trap asserts the contraction was not written where
it would compute otherwise (ints, bools, lists) or save nothing (factors of one shape)."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

TRIPLE = """import numpy as np

def triple(xs, ys, zs):
    out = np.empty((xs.shape[0], ys.shape[0], zs.shape[0]))
    for a in range(xs.shape[0]):
        for b in range(ys.shape[0]):
            for c in range(zs.shape[0]):
                out[a, b, c] = np.sum(xs[a] * ys[b] * zs[c])
    return out
"""
SHAPES = {"xs": 2, "ys": 2, "zs": 2, "m": 2, "v": 1, "w": 1}


def _rewrite(source, **options):
    result = transpile_source(source, "m.py", shapes=SHAPES, **options)
    assert result.plans and result.plans[0].rewritten, result.plans[0].remarks if result.plans else "no plan"
    return result


def _same(source, code, name, *args):
    want = run_module(source)[name](*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    got = run_module(code)[name](*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    return got


def test_the_triple_product_is_one_einsum_equal_to_the_loop():
    result = _rewrite(TRIPLE)
    assert "np.einsum('an,bn,cn->abc', xs, ys, zs)" in result.code
    assert "np.sum(" not in result.code.split("else:")[0]  # (the loop kept for the checks has it)
    rng = np.random.default_rng(0)
    _same(TRIPLE, result.code, "triple", rng.random((3, 7)), rng.random((4, 7)), rng.random((5, 7)))
    # size-1 rows broadcast in the loop (`(1,) * (7,)`), and in einsum
    _same(TRIPLE, result.code, "triple", rng.random((3, 1)), rng.random((4, 7)), rng.random((2, 7)))


def test_the_plan_weighs_the_contraction_against_the_broadcast_product():
    """The plan (`pforge explain`) says what each form holds at once and the multiply-adds
    they take, in the source's sizes: the einsum holds its result, the broadcast product an
    axis more (the one summed), with as many multiply-adds. Without unsafe fixes there is no
    contraction, and nothing weighed."""
    trips = "`xs.shape[0]` × `ys.shape[0]` × `zs.shape[0]`"
    assert _rewrite(TRIPLE).plans[0].choices == (
        f"`np.sum(xs[a] * ys[b] * zs[c])` as np.einsum('an,bn,cn->abc'): holds its result, {trips} values, "
        f"where the broadcast product would hold {trips} × `xs.shape[-1]`; {trips} × `xs.shape[-1]` "
        "multiply-adds either way, summing over `xs.shape[-1]`",)
    assert transpile_source(TRIPLE, "m.py", shapes=SHAPES, unsafe=False).plans[0].choices == ()


def test_the_contraction_is_an_unsafe_fix_and_the_safe_rewrite_keeps_the_sum():
    """einsum adds the products in another order than np.sum's pairwise sum: the last bits
    may differ, so the plan says so, and without unsafe fixes the sum stays as written."""
    plan = _rewrite(TRIPLE).plans[0]
    assert plan.unsafe and "np.einsum" in plan.unsafe and "xs[a] * ys[b] * zs[c]" in plan.unsafe
    safe = transpile_source(TRIPLE, "m.py", shapes=SHAPES, unsafe=False)
    assert safe.plans[0].rewritten and "einsum" not in safe.code and "np.sum(" in safe.code
    assert safe.plans[0].unsafe is None


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")  # (both store into a float64 array)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_the_contraction_keeps_the_loops_float_dtype(dtype):
    result = _rewrite(TRIPLE)
    rng = np.random.default_rng(1)
    args = [rng.random((k, 5)).astype(dtype) for k in (2, 3, 4)]
    got = run_module(result.code)["triple"](*args)
    want = run_module(TRIPLE)["triple"](*args)
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("make", [
    lambda rng, k: rng.integers(-100, 100, (k, 9)).astype(np.int8),   # np.sum widens int8 to int64; einsum would wrap
    lambda rng, k: rng.integers(0, 2, (k, 9)).astype(bool),           # np.sum counts; einsum would give a bool
    lambda rng, k: rng.integers(0, 5, (k, 9)).astype(np.float16),     # np.sum rounds to float16 at each step
    lambda rng, k: rng.random((k, 9)).astype(np.longdouble),
])
def test_other_dtypes_run_the_loop(make):
    """The check in front fails and the loop runs: its results exactly, in its dtype."""
    result = _rewrite(TRIPLE)
    assert "xs.dtype.char in 'fdFD'" in result.code
    rng = np.random.default_rng(2)
    args = [make(rng, k) for k in (2, 3, 4)]
    got = run_module(result.code)["triple"](*args)
    want = run_module(TRIPLE)["triple"](*args)
    assert np.array_equal(got, want)
    if args[0].dtype == np.int8:  # (the products wrap in int8 and their sum does not: einsum differs)
        assert not np.array_equal(np.einsum("an,bn,cn->abc", *args), want)


def test_a_row_against_every_row_and_a_row_sum():
    """Three factors over two loops; a matrix against each row (two operands: BLAS through
    ``optimize=True``); and a look-alike whose product is no larger than one factor."""
    source = """import numpy as np

def gram(m, v):
    g = np.zeros((m.shape[0], m.shape[0]))
    for i in range(m.shape[0]):
        for j in range(m.shape[0]):
            g[i, j] = np.sum(m[i] * -m[j] * v)
    return g

def scaled(m, w):
    out = np.zeros((m.shape[0], m.shape[0]))
    for i in range(m.shape[0]):
        out[i] = np.sum(m * m[i], axis=1)
    return out

def weighted(m, w):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        out[i] = np.sum(w[i] * m[i])
    return out
"""
    result = transpile_source(source, "m.py", shapes=SHAPES)
    assert all(p.rewritten for p in result.plans), [p.remarks for p in result.plans]
    assert "np.einsum('an,bn,n->ab', m, -m, v)" in result.code
    assert "out[...] = np.einsum('mn,an->am', m, m, optimize=True)" in result.code  # (two: BLAS)
    # `w[i] * m[i]` is no larger than `m`: the sum stays as written
    assert "np.sum(w[:m.shape[0], np.newaxis] * m, axis=-1)" in result.code
    rng = np.random.default_rng(3)
    m, v = rng.standard_normal((6, 4)), rng.standard_normal(4)
    _same(source, result.code, "gram", m, v)
    square = rng.standard_normal((5, 5))
    _same(source, result.code, "scaled", square, v)
    _same(source, result.code, "weighted", m, rng.standard_normal(6))


@pytest.mark.parametrize("expr", [
    "np.sum(m[i] * m[i])",               # one shape: the product is no larger than a row
    "np.sum(m[i] * np.abs(m[j] - 1))",   # a computed factor: its dtype is not an array's
    "np.sum(m[i] * m[j] * 2.0)",         # a Python number: weak in the loop, float64 in einsum
    "np.mean(m[i] * m[j])",              # not a sum
    "np.sum(m[i] * m[j], dtype=np.float64)",  # a dtype einsum would take otherwise
    "np.sum(m[i] * m[j], axis=0, dtype=np.float64)",
    "np.prod(m[i] * m[j])",
])
def test_look_alikes_keep_the_sum_as_written(expr):
    source = f"""import numpy as np

def f(m):
    g = np.zeros((m.shape[0], m.shape[0]))
    for i in range(m.shape[0]):
        for j in range(m.shape[0]):
            g[i, j] = {expr}
    return g
"""
    result = transpile_source(source, "m.py", shapes=SHAPES)
    assert result.plans[0].rewritten, result.plans[0].remarks
    assert "einsum" not in result.code and result.plans[0].unsafe is None
    m = np.random.default_rng(4).standard_normal((4, 3)).astype(np.float32)
    want, got = run_module(source)["f"](m.copy()), run_module(result.code)["f"](m.copy())
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_list_runs_the_loop():
    """A list row times an array row is an array in the loop; the check in front sends a list
    to the loop, which computes it as written."""
    source = TRIPLE.replace("xs.shape[0]", "len(xs)")
    result = _rewrite(source)
    assert "type(xs) is np.ndarray" in result.code and "einsum" in result.code
    xs, ys, zs = [[1.0, 2.0], [3.0, 4.0]], np.ones((2, 2)), np.arange(6.0).reshape(3, 2)
    assert np.array_equal(run_module(result.code)["triple"](xs, ys, zs), run_module(source)["triple"](xs, ys, zs))


def test_tensorflow_code_keeps_its_sum():
    source = """import tensorflow as tf

def f(xs, ys):
    rows = []
    for a in range(xs.shape[0]):
        rows.append(tf.reduce_sum(xs[a] * ys, axis=-1))
    return tf.stack(rows)
"""
    result = transpile_source(source, "m.py", shapes=SHAPES)
    assert "einsum" not in result.code


@pytest.mark.parametrize("spelled, written", [
    ("(xs[a] * ys[b]).sum()", "np.einsum('an,bn->ab', xs, ys, optimize=True)"),
    ("np.sum(xs[a] * ys[b], axis=0)", "np.einsum('an,bn->ab', xs, ys, optimize=True)"),
    ("np.sum(xs[a] * ys[b], axis=-1)", "np.einsum('an,bn->ab', xs, ys, optimize=True)"),
    ("(xs[a] * ys[b]).sum(0)", None),     # (a positional axis of the method: left to the sum as written)
])
def test_the_spellings_of_a_sum(spelled, written):
    source = f"""import numpy as np

def f(xs, ys):
    out = np.zeros((len(xs), len(ys)))
    for a in range(len(xs)):
        for b in range(len(ys)):
            out[a, b] = {spelled}
    return out
"""
    result = _rewrite(source)
    assert (f"out[...] = {written}" in result.code) if written else "einsum" not in result.code
    rng = np.random.default_rng(5)
    _same(source, result.code, "f", rng.standard_normal((3, 4)), rng.standard_normal((5, 4)))


def test_a_summed_axis_of_length_1_broadcasts_as_in_the_loop():
    """`(1,) * (5,)` broadcasts in the loop; `a @ b.T` would raise on a (3, 1) and a (4, 5)
    matrix, einsum broadcasts (helper-39)."""
    source = TRIPLE.replace(" * zs[c]", "").replace("zs.shape[0]", "1")
    result = _rewrite(source)
    assert "np.einsum('an,bn->ab', xs, ys, optimize=True)" in result.code
    rng = np.random.default_rng(6)
    for xs, ys in ((rng.random((3, 1)), rng.random((4, 5))), (rng.random((3, 5)), rng.random((4, 1)))):
        _same(source, result.code, "triple", xs, ys, None)
    column = source.replace("np.sum(xs[a] * ys[b])", "np.sum(xs[a, :1] * ys[b])")
    result = _rewrite(column)
    assert "einsum('an,bn->ab', xs[:, :1], ys, optimize=True)" in result.code
    _same(column, result.code, "triple", rng.random((3, 2)), rng.random((2, 2)), None)


def test_three_factors_of_two_float_dtypes_run_the_loop():
    """The loop rounds `xs[a] * ys[b]` of float32 rows to float32 before the float64 `zs[c]`
    joins; einsum would convert all three to float64 first (3e-8 apart, helper-39)."""
    result = _rewrite(TRIPLE)
    assert "ys.dtype == xs.dtype and zs.dtype == xs.dtype" in result.code
    xs, ys = np.array([[0.1, 0.7]], np.float32), np.array([[0.3, 0.9]], np.float32)
    zs = np.array([[1 / 3, 1 / 7]])
    got, want = run_module(result.code)["triple"](xs, ys, zs), run_module(TRIPLE)["triple"](xs, ys, zs)
    assert np.array_equal(got, want)
    assert not np.array_equal(np.einsum("an,bn,cn->abc", xs, ys, zs), want)  # (what einsum gives)


@pytest.mark.parametrize("index, keep, want", [
    ("ys[None, :, None]", [False, True, False], "ys"),
    ("ys[np.newaxis]", [False, True], "ys"),
    ("g[None, :n]", [False, True], "g[:n]"),
    ("g[:n, None]", [True, False], "g[:n]"),
    ("g[None, ::2]", [False, True], "g[::2]"),
    ("g[None, 1:]", [False, True], "g[1:]"),
    ("g[None, :, 1:]", [False, True], "g[:, 1:]"),
    ("-ys[None]", [False, True], "-ys"),
    ("-ys[:, None]", [False, True], None),
    ("+ys[None]", [False, True], "+ys"),
    ("ys[0, None]", [False, True], None),          # an integer index drops an axis
    ("ys[:, None]", [False, True], None),          # the size-1 axis is not spelled as newaxis
    ("ys[None, None]", [False, True], None),       # nor is the kept one a slice
    ("ys[None, :, None]", [False, True, True], None),
    ("ys", [False, True], None),
    ("~ys[None]", [False, True], None),
    ("ys[None][0]", [False, True], None),
])
def test_size_1_loop_axes_are_dropped_only_where_spelled_as_newaxis(index, keep, want):
    import gast

    from pforge.transpile.backends.direct.contractions import squeezed

    got = squeezed(gast.parse(index).body[0].value, keep)
    assert (None if got is None else gast.unparse(got).strip()) == want


@pytest.mark.parametrize("factor, written", [
    # a 0-d array `c` joins the contraction; a Python float fails `type(c) is np.ndarray` and
    # runs the loop (weak beside a float32 array there, float64 in einsum)
    ("c", "np.einsum('an,bn,->ab', m, m, c)"),
    ("t", None),                                        # a name the loop binds: no check can read it
    ("m[i][0]", "np.einsum('an,bn,a->ab', m, m, m[:, 0])"),
])
def test_factors_the_check_in_front_cannot_read_keep_the_sum(factor, written):
    source = f"""import numpy as np

def f(m, c):
    g = np.zeros((m.shape[0], m.shape[0]))
    for i in range(m.shape[0]):
        for j in range(m.shape[0]):
            t = m[j] * 0.5
            g[i, j] = np.sum(m[i] * m[j] * {factor})
    return g
"""
    result = transpile_source(source, "m.py", shapes={"m": 2, "c": 0})
    assert result.plans[0].rewritten, result.plans[0].remarks
    assert (written in result.code) if written else "einsum" not in result.code
    m = np.random.default_rng(7).standard_normal((4, 3)).astype(np.float32)
    for c in (2.5, np.array(2.5, np.float32)):
        want, got = run_module(source)["f"](m.copy(), c), run_module(result.code)["f"](m.copy(), c)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("axis, kept", [(None, ""), (0, "mn"), (1, "ln"), (-1, "lm"), (2, "lm"), (-3, "mn")])
def test_the_summed_axis_of_a_three_dimensional_product(axis, kept):
    """`np.sum(t * v[i], axis=k)` of an (L, M, N) array and a row: the kept axes are the
    product's but the summed one, a negative axis counted from the product's rank."""
    given = "" if axis is None else f", axis={axis}"
    source = f"""import numpy as np

def f(t, v):
    out = []
    for i in range(v.shape[0]):
        out.append(np.sum(t * v[i]{given}))
    return np.array(out)
"""
    result = transpile_source(source, "m.py", shapes={"t": 3, "v": 2})
    assert f"out = np.einsum('lmn,an->a{kept}', t, v, optimize=True)" in result.code
    rng = np.random.default_rng(8)
    t, v = rng.standard_normal((2, 3, 4)), rng.standard_normal((5, 4))
    np.testing.assert_allclose(run_module(result.code)["f"](t, v), run_module(source)["f"](t, v), rtol=1e-12)


def test_a_nest_collecting_its_sums_computes_the_contraction_once():
    """The list of a nest is the batched value reshaped: it is bound once, then reshaped (it
    was spelled twice, `V.reshape((-1,) + V.shape[2:])`, computing the einsum twice)."""
    source = """import numpy as np

def f(xs, ys):
    out = []
    for a in range(len(xs)):
        for b in range(len(ys)):
            out.append(np.sum(xs[a] * ys[b]) + 1.0)
    return np.array(out)
"""
    result = _rewrite(source)
    batched = result.code.split("    else:")[0]
    assert batched.count("np.einsum(") == 1
    assert "out_stacked = np.einsum('an,bn->ab', xs, ys, optimize=True) + 1.0" in batched
    assert "out_stacked.reshape((-1,) + out_stacked.shape[2:])" in batched
    rng = np.random.default_rng(9)
    _same(source, result.code, "f", rng.standard_normal((3, 4)), rng.standard_normal((2, 4)))


def test_a_four_dimensional_product_and_two_loop_axes_on_one_factor():
    """Every letter of the per-iteration axes (`klmn`), and a factor varying along two loops
    (`t[i, j]`, spelled `abn`)."""
    source = """import numpy as np

def deep(t, v):
    out = []
    for i in range(v.shape[0]):
        out.append(np.sum(t * v[i]))
    return np.array(out)

def grid(t, v):
    out = np.zeros((t.shape[0], t.shape[1], v.shape[0]))
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            for k in range(v.shape[0]):
                out[i, j, k] = np.sum(t[i, j] * v[k])
    return out
"""
    result = transpile_source(source, "m.py", shapes={"t": 4, "v": 2})
    assert "out = np.einsum('klmn,an->a', t, v, optimize=True)" in result.code
    rng = np.random.default_rng(10)
    t, v = rng.standard_normal((2, 3, 2, 4)), rng.standard_normal((5, 4))
    np.testing.assert_allclose(run_module(result.code)["deep"](t, v), run_module(source)["deep"](t, v), rtol=1e-12)
    result = transpile_source(source, "m.py", shapes={"t": 3, "v": 2})
    assert "out[...] = np.einsum('abn,cn->abc', t, v, optimize=True)" in result.code  # (every row and column)
    t = rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(run_module(result.code)["grid"](t, v), run_module(source)["grid"](t, v), rtol=1e-12)


def test_two_arrays_of_three_factors_hold_one_dtype():
    """`m[i] * m[j] * v`: two arrays, three factors; a float32 `m` and a float64 `v` run the
    loop, which rounds `m[i] * m[j]` to float32 first."""
    source = """import numpy as np

def f(m, v):
    g = np.zeros((m.shape[0], m.shape[0]))
    for i in range(m.shape[0]):
        for j in range(m.shape[0]):
            g[i, j] = np.sum(m[i] * m[j] * v)
    return g
"""
    result = _rewrite(source)
    assert "np.einsum('an,bn,n->ab', m, m, v)" in result.code and "v.dtype == m.dtype" in result.code
    m = np.array([[0.1, 0.7], [0.3, 0.9]], np.float32)
    v = np.array([1 / 3, 1 / 7])
    assert np.array_equal(run_module(result.code)["f"](m, v), run_module(source)["f"](m, v))


def test_a_reduction_of_contractions_sums_the_contraction():
    source = """import numpy as np

def f(xs, ys):
    s = 0.0
    for a in range(len(xs)):
        for b in range(len(ys)):
            s += np.sum(xs[a] * ys[b] * ys[a])
    return s
"""
    result = _rewrite(source)
    assert "s_terms = np.einsum('an,bn,an->ab', xs, ys, ys[:len(xs)])" in result.code
    rng = np.random.default_rng(11)
    xs, ys = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))
    np.testing.assert_allclose(run_module(result.code)["f"](xs, ys), run_module(source)["f"](xs, ys), rtol=1e-12)
