"""Per-iteration arrays written at masked positions, tuple-valued linear algebra, and the facts
that let real code reach them (issue 12): each loop is rewritten, then run against the loop.

- ``a = np.fft.rfft(x); a[freqs > hi] = 0.0`` in the body, or in a helper that is inlined;
- ``sign, logdet = np.linalg.slogdet(c[i])`` and ``np.linalg.eigh(c[i])[0]``;
- ``np.linalg.solve(c[i], b[i])`` with a vector or a matrix of columns;
- a call NumPy documents as returning a new array may be written into, ``np.asarray`` may not;
- ``range(x.size)`` suggests ``x`` has elements.
"""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.runtime.targets import instrument_rank_checks
from pforge.transpile import transpile_source


def _both(source, **kw):
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py", **kw)
    return result, load_module("m.py", source=source).f, load_module("m.py", source=result.code).f


def _batched(result):
    """The rewrite's ``f``, and a list that records whether each call's run-time checks held
    (the batched code ran) or not (the loop ran)."""
    module = load_module("m.py", source=instrument_rank_checks(result.code), variant="rewrite")
    return module.f, module._PFORGE_CHECKS_HELD


def _same(want, got, rtol=0.0):
    """Equal (bit for bit unless ``rtol``), with the same type, dtype and shape."""
    assert type(got) is type(want)
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


MASKED = '''
def f(x, lo, hi):
    """Args:
      x: [t].
      lo: [n].
      hi: [n].
    """
    out = np.zeros(len(lo))
    for k in range(len(lo)):
        spectrum = np.fft.rfft(x)
        freqs = np.fft.rfftfreq(len(x))
        spectrum[(freqs < lo[k]) | (freqs > hi[k])] = 0.0
        out[k] = np.sum(np.abs(np.fft.irfft(spectrum, n=len(x))))
    return out
'''


def test_a_masked_write_into_an_array_the_iteration_allocates_is_batched():
    result, loop, new = _both(MASKED)
    assert result.plans[0].rewritten and result.plans[0].backend == "direct", result.plans[0].remarks
    assert "spectrum[spectrum_mask] = 0.0" in result.code
    rng = np.random.default_rng(0)
    for n in (0, 1, 5):
        args = rng.standard_normal(16), rng.random(n) * 0.3, 0.2 + rng.random(n) * 0.3
        _same(loop(*args), new(*args), rtol=1e-12)  # a batch of FFTs rounds as pocketfft does


STACKED = '''
def f(x, t, fill):
    """Args:
      x: [n, d].
      t: [n].
    """
    out = []
    for i in range(x.shape[0]):
        a = np.abs(x[i])
        a[a > t[i]] = fill
        out.append(a)
    return np.stack(out)
'''


@pytest.mark.parametrize("dtype, fill", [(np.float64, -1.0), (np.int64, 2.75), (np.float32, 1e300),
                                         (np.uint8, 7)])
def test_a_masked_write_casts_into_the_arrays_dtype_as_the_loop_does(dtype, fill):
    """A float into an int array truncates, 1e300 into float32 is inf: NumPy's own assignment
    does it in both, never a ``where`` in a wider dtype."""
    result, loop, _ = _both(STACKED)
    assert result.plans[0].rewritten, result.plans[0].remarks
    new, held = _batched(result)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((6, 5)) * 10).astype(dtype)
    t = rng.random(6) * 5
    with np.errstate(over="ignore"):
        _same(loop(x, t, fill), new(x, t, fill))
    assert held == [True]  # the batched code ran (`fill` is guessed a number, and is one)
    assert x.dtype == dtype


def test_an_array_fill_runs_the_loop():
    """``a[a > t[i]] = fill`` with a vector ``fill``: each row has its own count of selected
    positions, so the loop (which may raise) runs, not one assignment over every row."""
    result, loop, _ = _both(STACKED)
    new, held = _batched(result)
    x, t = np.array([[5.0, 5, 0], [5, 5, 0]]), np.array([1.0, 1])
    _same(loop(x.copy(), t, np.array([7.0, 8])), new(x.copy(), t, np.array([7.0, 8])))
    assert held == [False]


PER_ITERATION_VALUE = '''
def f(x, v):
    """Args:
      x: [n, d].
      v: [n].
    """
    out = []
    for i in range(x.shape[0]):
        a = x[i] * 2.0
        a[x[i] < 0] = v[i]
        out.append(np.sum(a))
    return np.array(out)
'''


def test_a_masked_write_of_a_value_that_varies_per_iteration():
    result, loop, new = _both(PER_ITERATION_VALUE)
    assert result.plans[0].rewritten, result.plans[0].remarks
    rng = np.random.default_rng(2)
    x, v = rng.standard_normal((7, 4)), rng.standard_normal(7)
    _same(loop(x, v), new(x, v))
    before = x.copy()
    new(x, v)
    np.testing.assert_array_equal(x, before)  # `a` was a new array: the argument is untouched


MISMATCHED = '''
def f(x, m):
    """Args:
      x: [n, d].
      m: [n, e].
    """
    out = []
    for i in range(x.shape[0]):
        a = x[i] + 1.0
        a[m[i] > 0] = 0.0
        out.append(a)
    return np.stack(out)
'''


def test_a_mask_of_another_shape_raises_as_in_the_loop():
    result, loop, new = _both(MISMATCHED)
    assert result.plans[0].rewritten, result.plans[0].remarks
    rng = np.random.default_rng(3)
    x, m = rng.standard_normal((3, 4)), rng.standard_normal((3, 1))
    with pytest.raises(IndexError):
        loop(x, m)
    with pytest.raises(IndexError):
        new(x, m)


HELPER = '''
def band(signal, low, high):
    spectrum = np.fft.rfft(signal)
    freqs = np.fft.rfftfreq(len(signal))
    spectrum[(freqs < low) | (freqs > high)] = 0.0
    return np.fft.irfft(spectrum, n=len(signal))


def f(x, lo, hi):
    out = np.zeros(lo.size)
    for k in range(lo.size):
        y = band(x, lo[k], hi[k])
        out[k] = np.sum(y[:3] ** 2) / np.sum(y ** 2)
    return out
'''


def test_a_helper_that_writes_at_masked_positions_of_its_own_array_is_inlined():
    """No annotations: ``range(lo.size)`` and ``lo[k]`` give the ranks (checked at run time)."""
    result, loop, new = _both(HELPER)
    plan = next(p for p in result.plans if p.function == "f")
    assert plan.rewritten, plan.remarks
    rng = np.random.default_rng(4)
    x, lo, hi = rng.standard_normal(20), rng.random(6) * 0.2, 0.25 + rng.random(6) * 0.2
    _same(loop(x, lo, hi), new(x, lo, hi), rtol=1e-12)


UNDER_IF = '''
def f(x, t):
    """Args:
      x: [n, d].
      t: [n].
    """
    out = []
    for i in range(x.shape[0]):
        a = np.abs(x[i])
        if t[i] > 0:
            a[a > t[i]] = 0.0
        out.append(a)
    return np.stack(out)
'''

VIEW = '''
def f(x, t):
    """Args:
      x: [n, d].
      t: [n].
    """
    out = []
    for i in range(x.shape[0]):
        a = np.asarray(x[i])
        a[a > t[i]] = 0.0
        out.append(a)
    return np.stack(out)
'''


@pytest.mark.parametrize("source, why", [(UNDER_IF, "under a per-iteration `if`"),
                                         (VIEW, "may be a view")])
def test_masked_writes_left_as_loops(source, why):
    """Under an ``if`` the write is not batched; into ``np.asarray(x[i])`` (the argument's own
    row) it would write into the argument, so it is no private array at all."""
    result, loop, new = _both(source)
    assert not result.plans[0].rewritten
    assert any(why in r.message for r in result.plans[0].remarks), [r.message for r in result.plans[0].remarks]


SLOGDET = '''
def f(c, b):
    """Args:
      c: [n, d, d].
      b: [n, d].
    """
    total = []
    for i in range(c.shape[0]):
        sign, logdet = np.linalg.slogdet(c[i])
        y = np.linalg.solve(c[i], b[i])
        total.append(sign * logdet + np.linalg.eigh(c[i] + c[i].T)[0][0] + y[0])
    return np.array(total)
'''


def test_tuple_results_of_linear_algebra_are_taken_item_by_item():
    result, loop, new = _both(SLOGDET)
    assert result.plans[0].rewritten, result.plans[0].remarks
    assert result.code.count("np.linalg.slogdet(") == 2  # once batched, once in the loop kept for other ranks
    rng = np.random.default_rng(5)
    c, b = rng.standard_normal((6, 3, 3)), rng.standard_normal((6, 3))
    _same(loop(c, b), new(c, b))


def test_solve_keeps_numpy_2s_vector_rule_for_a_matrix_of_columns():
    source = '''
def f(c, b):
    """Args:
      c: [n, d, d].
      b: [n, d, k].
    """
    out = []
    for i in range(c.shape[0]):
        out.append(np.linalg.solve(c[i], b[i]))
    return np.stack(out)
'''
    result, loop, new = _both(source)
    assert result.plans[0].rewritten, result.plans[0].remarks
    rng = np.random.default_rng(6)
    c, b = rng.standard_normal((4, 3, 3)), rng.standard_normal((4, 3, 2))
    _same(loop(c, b), new(c, b))


def test_the_size_of_a_value_suggests_it_is_an_array():
    """``range(lo.size)`` with no annotation: ``lo`` is guessed a vector, not a 0-d value whose
    run-time check would fail on every real input."""
    result, _, _ = _both(HELPER)
    plan = next(p for p in result.plans if p.function == "f")
    assert "`lo` 1-D" in plan.backend_note, plan.backend_note


def test_the_rank_of_an_array_of_a_nested_list_of_invariant_numbers():
    """``np.array([[np.cos(a), np.sin(a)]]).T`` is a 2-by-1 matrix, in a helper too."""
    source = '''
def unit(phi):
    return np.array([[np.cos(phi), np.sin(phi)]]).T


def f(g, angle, d):
    """Args:
      g: [2, n].
    """
    out = np.zeros((g.shape[1], 2, 1))
    for i in range(g.shape[1]):
        out[i] = g[:, i][:, np.newaxis] + d * unit(angle)
    return out
'''
    result, loop, new = _both(source)
    plan = next(p for p in result.plans if p.function == "f")
    assert plan.rewritten, plan.remarks
    g = np.random.default_rng(7).standard_normal((2, 5))
    _same(loop(g, 0.3, 1.5), new(g, 0.3, 1.5))


def test_a_python_number_per_iteration_written_at_masked_positions_stays_a_loop():
    """``a[m] = i * 0.5`` into an int array: the loop raises for NaN or overflow where an array
    of the numbers would be cast silently, so it is not batched."""
    source = '''
def f(x):
    """Args:
      x: [n, d].
    """
    out = []
    for i in range(x.shape[0]):
        a = np.abs(x[i])
        a[a > 1.0] = i * 0.5
        out.append(a)
    return np.stack(out)
'''
    result, _, _ = _both(source)
    assert not result.plans[0].rewritten
    assert any("a Python number per iteration" in r.message for r in result.plans[0].remarks)
