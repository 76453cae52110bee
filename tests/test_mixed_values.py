"""Values of two kinds per iteration: a Python number on some iterations and a NumPy value on
others (``x[i] if c else 0.1``, ``max(x[i], 300)``, a branch binding ``v = -1``), and updates
under a per-iteration test. In the loop each iteration computes in its own value's dtype; the
batched ``where`` holds one. Each rewrite is checked to happen, then against the loop on inputs
of many dtypes, the narrow ones (uint8, int8, float16, float32) among them."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import transpile_source

DTYPES = (np.uint8, np.int8, np.int16, np.int64, np.uint64, np.float16, np.float32, np.float64)

ARM_IN_ARITHMETIC = '''
import numpy as np

def f(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (x[i] if c[i] > 0 else 0.1) * 3 + 1
    return out
'''

BRANCH_NUMBER = '''
import numpy as np

def f(x, c):
    out = np.zeros(len(x), dtype=np.int16)
    for i in range(len(x)):
        if c[i] > 0:
            v = x[i]
        else:
            v = -1
        out[i] = v
    return out
'''

LARGE_BOUND = '''
import numpy as np

def f(x, c):
    out = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        out[i] = max(x[i], 300)
    return out
'''

CONDITIONAL_UPDATE = '''
import numpy as np

def f(x, c):
    for i in range(len(x)):
        if c[i] > 0:
            x[i] = x[i] + 7
    return x
'''

CONDITIONAL_SCALE = '''
import numpy as np

def f(x, c):
    for i in range(len(x)):
        if c[i] > 0:
            x[i] *= 3
    return x
'''


def _rewritten(source):
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    return load_module("m.py", source=source).f, load_module("m.py", source=result.code).f, result.code


def _inputs(rng, dtype, n):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    if info is not None:
        x = rng.integers(max(info.min, -2**62), min(info.max, 2**62), size=n, endpoint=True).astype(dtype)
        if dtype == np.uint64:
            x[: n // 2] = rng.integers(2**63, 2**64 - 8, size=n // 2, dtype=np.uint64)
    else:
        x = (rng.normal(size=n) * 50).astype(dtype)
    return x, rng.integers(0, 2, size=n).astype(bool)


@pytest.mark.parametrize("source", [ARM_IN_ARITHMETIC, BRANCH_NUMBER, LARGE_BOUND, CONDITIONAL_UPDATE,
                                    CONDITIONAL_SCALE], ids=["arm", "branch", "max", "update", "scale"])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_each_iteration_computes_in_its_own_values_dtype(source, dtype):
    loop, new, _ = _rewritten(source)
    rng = np.random.default_rng(5)
    for n in (1, 4, 9):
        x, c = _inputs(rng, dtype, n)
        with np.errstate(all="ignore"):
            try:
                want = loop(x.copy(), c)
            except (OverflowError, TypeError):
                continue  # (the loop raises: NumPy 2 refuses a Python int out of a dtype's bounds)
            got = new(x.copy(), c)
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), (dtype, x, c, want, got)


def test_arithmetic_on_a_value_of_two_kinds_runs_batched_only_on_default_dtypes():
    """Python's numbers compute as float64 arrays do (ints within 2**53): the batched code runs
    where every array the loop reads holds float64 values, and the loop otherwise."""
    _, _, code = _rewritten(ARM_IN_ARITHMETIC)
    assert "np.asarray(x).dtype == np.float64" in code
    assert "np.asarray(c).dtype == np.float64" in code


def test_a_number_beside_a_narrow_array_keeps_its_own_value():
    """`v = -1` in one branch is -1 stored, not 255 (NumPy's weak rule in `where` beside uint8)."""
    _, new, code = _rewritten(BRANCH_NUMBER)
    assert "np.asarray(-1, dtype=np.int8)" in code
    got = new(np.array([100, 20, 3], dtype=np.uint8), np.array([1, 0, 0]))
    np.testing.assert_array_equal(got, np.array([100, -1, -1], dtype=np.int16))


def test_an_update_under_a_test_is_computed_where_the_loop_computes_it():
    """`np.where(c, x + 7, x)`: `x + np.where(c, 7, 0)` added an int64 array to uint64 `x`
    (through float64) and turned -0.0 into 0.0 where the test fails."""
    _, new, code = _rewritten(CONDITIONAL_UPDATE)
    assert "+ 7" in code and "np.where(" in code and ", 7, 0)" not in code
    x = np.array([-0.0, 1.5, -0.0])
    got = new(x, np.array([0, 1, 0]))
    assert np.signbit(got[0]) and np.signbit(got[2]) and got[1] == 8.5


@pytest.mark.parametrize("source, why", [
    ('''
import numpy as np

def f(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (x[i] if c[i] > 0 else -1) ** -1
    return out
''', "with an operator whose result differs between them"),
])
def test_an_operator_whose_result_differs_between_the_kinds_keeps_the_loop(source, why):
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten
    assert any(why in r.message for r in plan.remarks), [r.message for r in plan.remarks]


@pytest.mark.parametrize("arm", ["x[i] > 0", "np.isnan(x[i])", "np.argmax(y[i])", "np.sum(y[i] > 0)",
                                 "(x[i] > 0) * 2", "x[i].astype(int)"])
def test_a_numpy_arm_of_bools_or_ints_in_arithmetic_keeps_the_loop(arm):
    """`(x[i] > 0) if c else 0.5`, then `v + v`: the loop adds two NumPy bools (`True + True`
    is `True`, stored 1.0) where the batched `where` holds float64 (2.0); the same for ints
    past 2**53 and `-0`."""
    source = f'''
import numpy as np

def f(x, y, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = {arm} if c[i] > 0 else 0.5
        out[i] = v + v
    return out
'''
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten
    assert any("one of them an int or a bool" in r.message for r in plan.remarks), \
        [r.message for r in plan.remarks]


@pytest.mark.parametrize("arm", ["x[i]", "np.mean(y[i])", "(x[i] > 0) / 2", "np.sqrt(x[i] ** 2)", "-y[i, 0]"])
def test_a_float_arm_in_arithmetic_is_batched(arm):
    """Arms that are float64 wherever the arrays read are (checked in front) compute as the
    batched `where` does: an array read, a mean, a true division, a float-valued function."""
    source = f'''
import numpy as np

def f(x, y, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = {arm} if c[i] > 0 else 0.5
        out[i] = v + v
    return out
'''
    loop, new, _ = _rewritten(source)
    rng = np.random.default_rng(3)
    x, y, c = rng.normal(size=6), rng.normal(size=(6, 3)), rng.normal(size=6)
    np.testing.assert_array_equal(new(x, y, c), loop(x, y, c))


COLLECTED_TWO_KINDS = '''
import numpy as np

def f(edges, keep):
    widths = []
    for b, (lo, hi) in enumerate(edges):
        start = 0.0 if b == 0 and keep else lo
        widths.append(hi - start)
    return np.array(widths)
'''


def test_python_floats_beside_float64_values_are_collected_into_an_array():
    """A list of Python floats and float64 NumPy values becomes a float64 array either way; with
    float32 (or int) edges the list holds values of two dtypes, and the loop runs."""
    loop, new, code = _rewritten(COLLECTED_TWO_KINDS)
    assert "np.asarray(edges).dtype == np.float64" in code
    edges = np.array([[1.0, 2.5], [2.5, 7.25], [7.25, 9.0]])
    for keep in (True, False):
        for e in (edges, edges.astype(np.float32), np.array([[1, 3], [3, 8]])):
            want, got = loop(e, keep), new(e, keep)
            assert got.dtype == want.dtype and np.array_equal(got, want), (e.dtype, keep, want, got)


def test_an_int_operand_beside_a_python_int_arm_keeps_the_loop():
    """`(x[i] if c else -1) * k` with an int `k` of 0: the loop's `-1 * 0` is the int 0, stored
    0.0; the batched `-1.0 * 0` is -0.0. A float64 operand, or a true division, computes as
    the batched code does."""
    source = '''
import numpy as np

def f(x, c, k):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = x[i] if c[i] > 0 else -1
        out[i] = v * k
    return out
'''
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten
    assert any("`k`, which may not be float64" in r.message for r in plan.remarks), [r.message for r in plan.remarks]
    for kept in ("v * x[i]", "v / k"):
        loop, new, _ = _rewritten(source.replace("v * k", kept))
        x, c = np.array([1.5, 2.25, 0.0]), np.array([0.0, 1.0, 0.0])
        for k in ((0, 3, 0.5) if "*" in kept else (3, -2, 0.5)):
            want, got = loop(x, c, k), new(x, c, k)
            assert np.array_equal(np.signbit(got), np.signbit(want)) and np.array_equal(got, want), (kept, k)


def test_a_narrowed_operand_keeps_the_loop():
    """`v + x[i].astype(np.float32)`: the loop adds a Python float to a float32 in float32,
    where the batched float64 `where` adds in float64."""
    source = '''
import numpy as np

def f(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = x[i] if c[i] > 0 else 0.1
        out[i] = v + x[i].astype(np.float32)
    return out
'''
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten
    assert any("which may not be float64" in r.message for r in plan.remarks), [r.message for r in plan.remarks]


MEAN_OR_ZERO = '''
import numpy as np

def f(img, c):
    out = np.zeros(len(img))
    for i in range(len(img)):
        m = np.mean(img[i]) if c[i] > 0 else 0.0
        out[i] = (m - 3) ** 2 * 0.5
    return out
'''


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.bool_, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_a_mean_of_int_arrays_beside_a_python_float_runs_batched(dtype):
    """A mean of ints or bools is float64, as a Python float computes: the check in front
    lets int, uint and bool arrays through (`dtype.kind in 'biu'`), where a float32 image
    (whose mean is float32) runs the loop."""
    loop, new, code = _rewritten(MEAN_OR_ZERO)
    assert "np.asarray(img).dtype.kind in 'biu'" in code
    rng = np.random.default_rng(6)
    img = (rng.random((5, 4)) * 200).astype(dtype)
    c = rng.normal(size=5)
    want, got = loop(img, c), new(img, c)
    assert got.dtype == want.dtype and np.array_equal(got, want), (want, got)
