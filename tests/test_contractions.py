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
    """Three factors over two loops; a matrix against each row (a matrix product, spelled
    ``@``); and a look-alike whose product is no larger than one factor."""
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
    assert "out[:m.shape[0]] = m @ m.T" in result.code  # ('mn,an->am': a product of two matrices)
    # `w[i] * m[i]` is no larger than `m`: the sum stays as written
    assert "np.sum(w[:m.shape[0]][:, np.newaxis] * m, axis=-1)" in result.code
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
