"""Idioms of real NumPy code the direct backend batches: chained subscripts of arrays
(``img[r][c]``), calls along the last axis (``np.sort``, ``np.fft.rfft``), argmax tracking
and boolean selections read by a count, sum or mean."""

from __future__ import annotations

import textwrap
import warnings

import numpy as np
import pytest

from pforge.transpile import transpile_source

NEGATIVE = textwrap.dedent("""\
    import numpy as np


    def f(picture):
        rows, cols = picture.shape[0], picture.shape[1]
        for r in range(rows):
            for c in range(cols):
                picture[r][c] = [255, 255, 255] - picture[r][c]
        return picture
    """)


def _run(code, *args):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace["f"](*args)


def test_chained_subscripts_of_an_array_are_one_index():
    """`picture[r][c]` of an array (it has a `.shape`) is `picture[r, c]`, read and written."""
    result = transpile_source(NEGATIVE, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "picture[r][c]" not in result.code.split("else:")[0]
    img = np.random.default_rng(0).integers(0, 256, (4, 5, 3))
    np.testing.assert_array_equal(_run(result.code, img.copy()), _run(NEGATIVE, img.copy()))


def test_chained_subscripts_of_lists_stay_chained():
    """A list of lists has no `x[i, j]`: the loop is left."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(board, n):
            counts = [[0] * n for _ in range(n)]
            for x in range(1, n - 1):
                for y in range(1, n - 1):
                    counts[x][y] = board[x - 1][y] + board[x + 1][y]
            return counts
        """)
    result = transpile_source(source, "m.py")
    assert not result.changed


ZIPPED = textwrap.dedent('''\
    import numpy as np


    def _mode(amp, grid, k, phase):
        """One mode of the field."""
        scaled = grid * k
        return amp * np.cos(scaled + phase)


    def f(grid, amps, ks, phases):
        """Args:
          grid: float [h, w].
          amps: float [m].
          ks: float [k].
          phases: float [p].
        """
        field = np.zeros_like(grid)
        for amp, k, ph in zip(amps, ks, phases):
            field += _mode(amp, grid, k, ph)
        return field
    ''')


def test_zip_of_unproven_lengths_is_checked_and_a_small_helper_is_inlined():
    """`zip` stops at the shortest sequence: the batched rows are right when the lengths agree,
    checked at run time (of declared arrays: `len()` of an iterator would raise); `_mode(...)`
    is batched as the expression it returns."""
    result = transpile_source(ZIPPED, "m.py", unsafe=True)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "len(amps) == len(ks) == len(phases)" in result.code
    assert "_mode(" not in result.code.split("else:")[0].split("def f(")[1]
    rng = np.random.default_rng(0)
    grid = rng.random((3, 4))
    for amps, ks, phases in [(rng.random(5), rng.random(5), rng.random(5)),
                             (rng.random(5), rng.random(3), rng.random(5))]:  # zip stops at 3
        np.testing.assert_allclose(_run(result.code, grid, amps, ks, phases),
                                   _run(ZIPPED, grid, amps, ks, phases))


def test_a_helper_whose_names_the_caller_rebinds_is_not_inlined():
    source = textwrap.dedent('''\
        import numpy as np

        SCALE = 2.0


        def _scaled(v):
            return v * SCALE


        def f(x):
            SCALE = 3.0
            out = np.zeros(len(x))
            for i in range(len(x)):
                out[i] = _scaled(x[i]) + SCALE
            return out
        ''')
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert "no batching rule for `_scaled`" in result.plans[0].remarks[0].message


def test_zip_of_values_that_may_be_iterators_runs_the_loop_for_them():
    """`len()` of an iterator raises: the batched code is taken only for arrays, lists and
    tuples of equal lengths, checked before any `len()`."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(p, q):
            res = []
            for a, b in zip(p, q):
                res.append(float(a * b))
            return res
        """)
    result = transpile_source(source, "m.py")
    assert result.changed
    guard = result.code.split("\n    if ", 1)[1].split(":\n")[0]
    assert guard.index("type(p) in (np.ndarray, list, tuple)") < guard.index("len(p) == len(q)")
    for make, batched in ((lambda: ([1.0, 2.0], [3.0, 4.0]), True),
                          (lambda: (iter([1.0, 2.0]), iter([3.0, 4.0])), False),
                          (lambda: ([1.0, 2.0, 5.0], (3.0, 4.0)), False)):
        want = _run(source, *make())
        got, held = _checked(result.code, *make())
        assert held == batched and got == want and len(got) == 2 and all(type(v) is float for v in got)


def test_a_helper_shadowed_in_the_caller_or_rebound_in_the_module_is_not_inlined():
    source = textwrap.dedent("""\
        import numpy as np


        def _scale(a):
            return a * 2


        def _norm(a):
            return a * 2


        _norm = np.negative


        def local(x):
            _scale = lambda a: a * 3
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _scale(x[i])
            return out


        def rebound(x):
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _norm(x[i])
            return out
        """)
    result = transpile_source(source, "m.py")
    assert not any(p.rewritten for p in result.plans)


def test_a_loop_with_an_empty_body_gives_valid_code():
    """`for v in xs: pass` under a run-time check: the batched branch is `pass`, not nothing."""
    import ast

    source = "import numpy as np\n\n\ndef f(xs):\n    for v in xs:\n        pass\n    return len(xs)\n"
    result = transpile_source(source, "m.py")
    ast.parse(result.code)
    assert transpile_source(result.code, "m.py").code == result.code


def test_a_helper_called_twice_is_inlined_twice_but_never_into_itself():
    source = textwrap.dedent("""\
        import numpy as np


        def _sq(a):
            return a * a


        def _down(a):
            return _down(a - 1.0)


        def f(x):
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _sq(x[i]) + _sq(x[i] + 1.0)
            return out


        def g(x):
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _down(x[i])
            return out
        """)
    result = transpile_source(source, "m.py")
    f_plan, g_plan = result.plans
    assert f_plan.rewritten and not g_plan.rewritten
    x = np.array([1.0, -2.0, 0.5])
    namespace: dict = {}
    exec(compile(result.code, "<code>", "exec"), namespace)
    np.testing.assert_allclose(namespace["f"](x), x * x + (x + 1.0) ** 2)


# -- argmax tracking and masked selections ---------------------------------------------------------

ARGMAX = textwrap.dedent("""\
    import numpy as np


    def f(scores, start):
        best = start
        at = -1
        for t in range(scores.shape[0]):
            v = np.round(scores[t] * 2.0)
            if v CMP best:
                best = v
                at = t
        return best, at
    """)


def _checked(code, *args):
    """Runs ``code``'s ``f`` and says whether its run-time checks held (the batched branch ran)."""
    from pforge.runtime.targets import instrument_rank_checks
    namespace: dict = {}
    exec(compile(instrument_rank_checks(code), "<code>", "exec"), namespace)
    out = namespace["f"](*args)
    return out, all(namespace.get("_PFORGE_CHECKS_HELD", [True]))


@pytest.mark.parametrize("cmp", [">", ">=", "<", "<="])
def test_argmax_tracking_keeps_the_loops_ties_nan_and_start(cmp):
    """`if v > best: best = v; at = t`: the first of tied extremes for `>`/`<`, the last for
    `>=`/`<=`; NaN terms never win; with no term beating the start value both keep theirs."""
    source = ARGMAX.replace("CMP", cmp)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "flatnonzero" in result.code
    rng = np.random.default_rng(1)
    cases = [rng.standard_normal(9), np.array([1.0, 2.0, 2.0, np.nan, 2.0, -3.0, -3.0]),
             np.array([np.nan, np.nan]), np.zeros(0)]
    for scores in cases:
        for start in (-np.inf, np.inf, 1.0, 0.0):
            got, held = _checked(result.code, scores.copy(), start)
            want = _run(source, scores.copy(), start)
            assert held or scores.size == 0
            assert got[1] == want[1] and type(got[1]) is type(want[1]), (cmp, scores, start, got, want)
            np.testing.assert_array_equal(got[0], want[0])


SELECTIONS = textwrap.dedent("""\
    import numpy as np


    def f(grey, y):
        best_score = 0
        best_t = 0
        h, w = grey.shape
        counts = np.zeros(len(y))
        for t in range(1, 8):
            lo = grey[np.where(grey < t)]
            lo_mean = np.mean(lo) if len(lo) > 0 else 0.
            hi = grey[grey >= t]
            hi_mean = np.mean(hi) if len(hi) > 0 else 0.
            score = len(lo) / (h * w) * len(hi) / (h * w) * (lo_mean - hi_mean) ** 2
            if score > best_score:
                best_score = score
                best_t = t
        for k in range(len(y)):
            counts[k] = len(y[y == y[k]]) + np.sum(y[y < y[k]])
        return best_t, best_score, counts
    """)


def test_masked_selections_read_by_len_sum_and_mean():
    """`grey[np.where(grey < t)]` and `y[y == y[k]]` select a different number of elements per
    iteration: their count, sum and mean are masked reductions (gasyori100knock's Otsu
    threshold; ML-From-Scratch's majority vote)."""
    import warnings
    result = transpile_source(SELECTIONS, "m.py")
    assert all(p.rewritten for p in result.plans), [r.message for p in result.plans for r in p.remarks]
    assert "np.where(grey < t" in result.code.split("else:")[0] or "grey < t" in result.code
    rng = np.random.default_rng(2)
    # `np.mean(lo) if ... else 0.` in arithmetic: a mean of ints is float64, as of floats, so
    # batched where every array read is float64, an int or a bool; a float32 image (whose
    # mean is float32, beside a Python float in float32) runs the loop
    for grey, batched in ((rng.integers(0, 9, (5, 6)).astype(float), True), (np.full((2, 3), 4.0), True),
                          (rng.integers(0, 9, (5, 6)), True), (rng.integers(0, 9, (5, 6)).astype(np.uint8), True),
                          (rng.integers(0, 9, (5, 6)).astype(np.float32), False)):
        y = rng.integers(0, 3, 7).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an empty selection
            got, held = _checked(result.code, grey, y)
        want = _run(SELECTIONS, grey, y)
        assert held == batched
        assert got[0] == want[0]
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
        np.testing.assert_allclose(got[2], want[2], rtol=1e-12)



SVM_LOSS = textwrap.dedent("""\
    import numpy as np


    def f(W, X, y):
        n_cls = W.shape[1]
        total = 0.0
        for i in range(X.shape[0]):
            s = X[i].dot(W)
            s_true = s[y[i]]
            for j in range(n_cls):
                if j == y[i]:
                    continue
                m = s[j] - s_true + 1
                if m > 0:
                    total += m
        return total
    """)


def test_an_inner_index_into_a_row_of_the_outer_loop():
    """`s[j]`, `s` one row per outer iteration and `j` the inner index: `s[rows, j]` with the
    rows broadcast along the inner axis (cs231n's naive SVM loss)."""
    result = transpile_source(SVM_LOSS, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "np.arange(len(s))[:, np.newaxis]" in result.code
    rng = np.random.default_rng(3)
    for n, d, c in ((6, 4, 3), (1, 2, 5)):
        W, X, y = rng.standard_normal((d, c)), rng.standard_normal((n, d)), rng.integers(0, c, n)
        got, held = _checked(result.code, W, X, y)
        assert held
        assert got == pytest.approx(_run(SVM_LOSS, W, X, y), rel=1e-12)


ZIP_INFERRED = textwrap.dedent("""\
    import numpy as np


    def f(r, amplitudes, angles):
        field = np.zeros(len(r))
        for amp, ang in zip(amplitudes, angles):
            field += amp * np.cos(r * ang)
        return field
    """)


def test_zip_over_values_of_inferred_rank_checks_kind_and_length():
    """`zip(amplitudes, angles)`: the code does not show they are arrays, so the batched code
    runs only for arrays, lists or tuples of equal length; a generator, or lengths that differ
    (zip stops at the shortest), run the loop."""
    result = transpile_source(ZIP_INFERRED, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "len(amplitudes) == len(angles)" in result.code
    r = np.linspace(0.0, 1.0, 5)
    for make, ran in ((lambda: ([1.0, 2.0], [0.5, 0.25]), True), (lambda: (np.ones(3), np.ones(2)), False),
                      (lambda: ((a for a in [1.0, 2.0]), [0.5, 0.25]), False)):
        expect = _run(ZIP_INFERRED, r, *make())
        got, held = _checked(result.code, r, *make())
        assert held == ran
        np.testing.assert_allclose(got, expect, rtol=1e-12)


LSTSQ = textwrap.dedent("""\
    import numpy as np


    def f(weights, n_fft):
        filters = np.zeros((weights.shape[0], 3))
        for i in range(weights.shape[0]):
            k = np.arange(n_fft)[:, np.newaxis]
            F = np.exp(-2j * np.pi * k * np.arange(3) / n_fft)
            filters[i] = np.real(np.linalg.lstsq(F, weights[i], rcond=None)[0])
        return filters
    """)


def test_lstsq_of_one_matrix_solves_every_iteration_as_a_column():
    """`np.linalg.lstsq(F, w)[0]` with `F` the same on every iteration: one call, `w` stacked as
    columns of the right-hand side (pyroomacoustics' least-squares filters)."""
    result = transpile_source(LSTSQ, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "np.linalg.pinv(F, rcond=" in result.code
    rng = np.random.default_rng(4)
    weights = rng.standard_normal((5, 6)) + 1j * rng.standard_normal((5, 6))
    got, held = _checked(result.code, weights, 6)
    assert held
    np.testing.assert_allclose(got, _run(LSTSQ, weights, 6), rtol=1e-10, atol=1e-12)
    # a non-finite right-hand side spoils only its own solution, as in the loop
    weights[2, 1] = np.inf
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got, _ = _checked(result.code, weights, 6)
        want = _run(LSTSQ, weights, 6)
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    np.testing.assert_allclose(got[[0, 1, 3, 4]], want[[0, 1, 3, 4]], rtol=1e-10, atol=1e-12)


def test_lstsq_of_a_matrix_per_iteration_is_left():
    source = LSTSQ.replace("np.linalg.lstsq(F, weights[i]", "np.linalg.lstsq(F * weights[i, 0], weights[i]")
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert "lstsq" in " ".join(r.message for r in result.plans[0].remarks)


BINNING = textwrap.dedent("""\
    import numpy as np


    def f(spec, ranges):
        out = np.zeros((spec.shape[0], len(ranges)))
        for i, r in enumerate(ranges):
            out[:, i] = np.mean(spec[:, r[0]:r[1]], axis=1) + np.sum(spec[0, r[0]:])
        return out
    """)


def test_a_slice_whose_bounds_differ_per_iteration_read_by_a_mean_or_sum():
    """`np.mean(spec[:, r[0]:r[1]], axis=1)`: the slice is a mask `lo <= position < hi` along
    its axis, its bounds normalized as Python's are (pyroomacoustics' band binning)."""
    import warnings
    result = transpile_source(BINNING, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "spec_in_slice" in result.code
    spec = np.arange(24.0).reshape(3, 8)
    for ranges in (np.array([[0, 3], [2, 8], [5, 6]]), np.array([[-3, -1], [1, 100], [6, 2], [-20, 2]])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean of an empty slice is NaN
            got, held = _checked(result.code, spec, ranges)
            want = _run(BINNING, spec, ranges)
        assert held
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_slice_bound_that_is_not_an_integer_raises_as_the_loop_does():
    result = transpile_source(BINNING, "m.py")
    spec, ranges = np.arange(24.0).reshape(3, 8), np.array([[0.0, 3.0]])
    for code in (BINNING, result.code):
        with pytest.raises(TypeError, match="slice indices must be integers"):
            _run(code, spec, ranges)


MASKED = textwrap.dedent("""\
    import numpy as np


    def f(c, n_filters, n_fft, grid):
        bank = np.zeros((n_filters, n_fft // 2 + 1))
        k = np.arange(n_fft // 2 + 1)
        for m in range(1, n_filters + 1):
            sel = np.where(np.logical_and(c[m - 1] < k, k < c[m]))
            bank[m - 1, sel] = 2 * (k[sel] - c[m - 1]) / (c[m] - c[m - 1])
            sel = np.where(np.logical_and(c[m] <= k, k < c[m + 1]))
            bank[m - 1, sel] = 2 * (c[m + 1] - k[sel]) / (c[m + 1] - c[m])
        resp = np.zeros((len(grid), n_filters))
        for b in range(n_filters):
            rise = grid < c[b + 1]
            if b > 0:
                resp[rise, b] = 0.5 * (1 + np.cos(np.pi * grid[rise] / c[b + 1]))
        return bank, resp
    """)


def test_writes_at_the_positions_a_mask_selects():
    """`bank[m - 1, sel] = f(k[sel])` (pyroomacoustics' mel filter bank) and `resp[rise, b] = ...`
    under an `if`: `f` over all of `k`, written where the mask holds."""
    import warnings
    result = transpile_source(MASKED, "m.py")
    assert all(p.rewritten for p in result.plans), [r.message for p in result.plans for r in p.remarks]
    assert result.code.count("np.where(") >= 3
    c = np.array([0.0, 1.5, 3.2, 5.0, 7.5, 9.0])
    grid = np.linspace(0.0, 9.0, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got, held = _checked(result.code, c, 4, 16, grid)
    want = _run(MASKED, c, 4, 16, grid)
    assert held
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    # the grid as a list: `grid < c[b + 1]` would be one bool, so the check runs the loop, which raises
    for code in (MASKED, result.code):
        with pytest.raises(TypeError):
            _run(code, c, 4, 16, list(grid))


BOUNDS = {
    "sum": ("s = 0.0\nfor i in range(n):\n    s += x[i]\nreturn s", "s_terms = x[:"),
    "copy": ("out = np.zeros(x.shape[0])\nfor i in range(n):\n    out[i] = x[i]\nreturn out", "out[:"),
    "fill": ("out = np.zeros(x.shape[0])\nfor i in range(n):\n    out[i] = 1.0\nreturn out", "out[:"),
    "column": ("out = np.zeros((x.shape[0], 1))\nfor i in range(x.shape[0]):\n"
               "    for j in range(n):\n        out[i, j] = x[i, j] * 2\nreturn out", "x[:, :"),
}


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_a_loop_index_past_the_end_raises_as_the_loop_does(name):
    """`range(n)` with `n` beyond the array: the loop raises IndexError at `x[n_len]`; a slice
    would stop at the end and return quietly. A bound check runs the loop instead."""
    body, batched = BOUNDS[name]
    source = "import numpy as np\n\n\ndef f(x, n):\n" + textwrap.indent(body, "    ") + "\n"
    result = transpile_source(source, "m.py", shapes={"f.x": 2 if name == "column" else 1, "f.n": 0})
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    # (`x`, read by the batched code, is checked an ndarray, its shape read as such; `fill` writes only `out`)
    assert batched in result.code and ("<= np.shape(out)[" if name == "fill" else "<= x.shape[") in result.code
    x = np.arange(1.0, 4.0)[:, None] if name == "column" else np.arange(1.0, 4.0)
    for n in range(len(x[0]) + 1 if name == "column" else len(x) + 1):
        want, got = _run(source, x, n), _run(result.code, x, n)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    with pytest.raises(IndexError):
        _run(source, x, 5)
    with pytest.raises(IndexError):
        _run(result.code, x, 5)


def test_a_bound_the_buffer_was_made_with_needs_no_check():
    """`np.zeros(n)` has `n` rows; `range(x.shape[1] - 1)` stays inside axis 1 of `x`."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(x, n):
            out = np.zeros((n, x.shape[1]))
            for i in range(n):
                for j in range(x.shape[1] - 1):
                    out[i, j] = x[i, j + 1]
            return out
        """)
    result = transpile_source(source, "m.py", shapes={"f.x": 2, "f.n": 0})
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    # `x[i, j + 1]` is the slice `x[:n, 1:x.shape[1]]`: only `n` may pass the end of `x`
    assert "np.shape(out)" not in result.code and "np.shape(x)[1]" not in result.code, result.code
    assert "n <= x.shape[0]" in result.code
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(_run(result.code, x, 2), _run(source, x, 2))
    with pytest.raises(IndexError):
        _run(result.code, x, 4)


def test_an_array_subclass_runs_the_loop():
    """`x.shape` shows an array, not a plain one: a matrix multiplies with `*`, a masked array
    drops its mask in `np.sum`; the inferred rank's check asks for `type(x) is np.ndarray`."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(x):
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = np.sqrt(np.sum(x[i] * x[i]))
            return out
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "type(x) is np.ndarray and x.ndim == 2" in result.code
    plain = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(_run(result.code, plain), _run(source, plain))
    for odd in (np.matrix(np.arange(3.0).reshape(3, 1)),
                np.ma.masked_array(plain, mask=[[0, 1], [1, 1], [0, 0]])):
        np.testing.assert_array_equal(np.asarray(_run(result.code, odd)), np.asarray(_run(source, odd)))


def test_an_update_of_rows_in_place_refuses_to_cast_as_the_loop_does():
    """`x[i] += v` of a row is a ufunc in place: a float into an int array raises; of a single
    element it is an assignment, which truncates. The rewrite does the same in both."""
    source = "import numpy as np\n\n\ndef f(x, y):\n    for i in range(x.shape[0]):\n        x[i] += y[i] * 2\n"
    rows = transpile_source(source, "m.py", shapes={"f.x": 2, "f.y": 2})
    assert rows.plans[0].rewritten and "x[...] += y[:x.shape[0]] * 2" in rows.code
    for code in (source, rows.code):
        with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
            _run(code, np.ones((3, 2), np.int64), np.full((3, 2), 0.6))
    elements = transpile_source(source, "m.py", shapes={"f.x": 1, "f.y": 1})
    assert elements.plans[0].rewritten and "x[...] = x[...] + y[:x.shape[0]] * 2" in elements.code
    want, got = np.ones(3, np.int64), np.ones(3, np.int64)
    _run(source, want, np.full(3, 0.6))
    _run(elements.code, got, np.full(3, 0.6))
    np.testing.assert_array_equal(got, want)


def test_unpacking_rows_checks_their_length():
    """`for i, (a, b) in enumerate(x)` raises for rows of 3; `x[:, 0]`, `x[:, 1]` would not."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(x):
            out = np.zeros(len(x))
            for i, (a, b) in enumerate(x):
                out[i] = a * b
            return out
        """)
    result = transpile_source(source, "m.py", shapes={"f.x": 2})
    assert result.plans[0].rewritten and "x.shape[1] == 2" in result.code
    two = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(_run(result.code, two), _run(source, two))
    for code in (source, result.code):
        with pytest.raises(ValueError, match="too many values to unpack"):
            _run(code, np.arange(9.0).reshape(3, 3))


def test_a_value_of_higher_rank_than_its_element_stays_a_loop():
    """`out[i] = x[i] @ W + b` with a Keras-style bias of shape (1, d): NumPy drops the leading
    1 element by element; batched, the extra axis would not line up (and a wrong one would)."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(x, W, b):
            out = np.zeros((x.shape[0], W.shape[1]))
            for i in range(x.shape[0]):
                out[i] = x[i] @ W + b
            return out
        """)
    result = transpile_source(source, "m.py", shapes={"f.x": 2, "f.W": 2, "f.b": 2})
    assert not result.changed
    assert "a value of higher rank than the element it is written to" in result.plans[0].remarks[-1].message
    row = transpile_source(source, "m.py", shapes={"f.x": 2, "f.W": 2, "f.b": 1})
    assert row.plans[0].rewritten
    rng = np.random.default_rng(0)
    x, W, b = rng.random((4, 3)), rng.random((3, 2)), rng.random(2)
    np.testing.assert_allclose(_run(row.code, x, W, b), _run(source, x, W, b))


SQUARED_ERROR = textwrap.dedent("""\
    import numpy as np


    def f(pred, target):
        total = 0.0
        for i in range(pred.shape[0]):
            total += np.sum((pred[i] - target[i]) ** 2)
        return total
    """)


def test_a_converted_array_is_bound_checked_too():
    """`np.asarray(target)[:pred.shape[0]]` stops at the end of `target`; the loop raises."""
    result = transpile_source(SQUARED_ERROR, "m.py")
    assert result.plans[0].rewritten and "pred.shape[0] <= np.shape(target)[0]" in result.code
    pred, target = np.ones((4, 3)), np.zeros((4, 3)) + np.arange(4.0)[:, None]
    assert _run(result.code, pred, target) == _run(SQUARED_ERROR, pred, target)
    for code in (SQUARED_ERROR, result.code):
        with pytest.raises(IndexError):
            _run(code, pred, target[:1])


def test_tensorflow_reads_past_the_end_raise_as_the_loop_does(tf):
    """A TensorFlow slice stops at the end too; `tf.debugging.assert_less_equal` raises the
    loop's InvalidArgumentError instead."""
    source = SQUARED_ERROR.replace("import numpy as np", "import tensorflow as tf").replace(
        "total = 0.0", "total = tf.constant(0.0)").replace("np.sum(", "tf.reduce_sum(")
    result = transpile_source(source, "m.py", shapes={"f.pred": 2, "f.target": 2})
    assert result.plans[0].rewritten and "tf.debugging.assert_less_equal(pred.shape[0], tf.shape(target)[0]" \
        in result.code
    pred, target = tf.ones((4, 3)), tf.zeros((4, 3)) + tf.range(4.0)[:, None]
    assert float(_run(result.code, pred, target)) == float(_run(source, pred, target))
    for code in (source, result.code):
        with pytest.raises(tf.errors.InvalidArgumentError):
            _run(code, pred, target[:1])


def test_indexing_a_zero_dimensional_array_stays_a_loop():
    """`x[i]` of a 0-d array raises IndexError in the loop; `x[...]` would not."""
    source = "import numpy as np\n\n\ndef f(x, s):\n    for i in range(3):\n        x[i] = x[i] * s\n    return x\n"
    result = transpile_source(source, "m.py", shapes={"f.x": 0, "f.s": 0})
    assert not result.changed
    assert "more indices than the array has axes" in result.plans[0].remarks[-1].message
    assert transpile_source(source, "m.py", shapes={"f.x": 1, "f.s": 0}).plans[0].rewritten


DENSITY = textwrap.dedent("""\
    import numpy as np


    def log_density(x, mean, var):
        n = len(mean)
        a = n * np.log(2 * np.pi)
        d = x - mean
        return -0.5 * (a + np.sum(np.log(var)) + np.sum(d * d / var))


    def f(X, means, variances):
        \"\"\"Args:
            X: [n, d].
            means: [k, d].
            variances: [k, d].
        \"\"\"
        out = np.zeros((X.shape[0], means.shape[0]))
        for i in range(X.shape[0]):
            for c in range(means.shape[0]):
                out[i, c] = log_density(X[i], means[c], variances[c])
        return out
    """)


def test_an_inlined_helper_reads_the_length_of_a_per_iteration_row():
    """`n = len(mean)` of a row `means[c]` is one number for every iteration,
    `means.shape[1]`: an expression built on it (`n * np.log(2 * np.pi)`) is respelled
    around that, not kept naming the loop's variables."""
    result = transpile_source(DENSITY, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    body = result.code.split("def f(")[1].split("else:")[0]  # (a list argument runs the loop)
    assert "log_density(" not in body and "for i in" not in body
    rng = np.random.default_rng(2)
    X, means, variances = rng.random((5, 3)), rng.random((4, 3)), rng.random((4, 3)) + 0.5
    np.testing.assert_allclose(_run(result.code, X, means, variances), _run(DENSITY, X, means, variances),
                               rtol=1e-12)


TUPLE_REDUCTIONS = textwrap.dedent("""\
    import numpy as np


    def f(x, y):
        \"\"\"Args:
            x: [n, d].
            y: [n].
        \"\"\"
        total, weight = np.zeros(x.shape[1]), 0.0
        for i in range(x.shape[0]):
            total, weight = total + x[i] * y[i], weight + y[i]
        return total, weight
    """)


def test_reductions_assigned_as_a_tuple_are_two_reductions():
    """`a, b = a + u, b + v`: neither value reads the other name, so the statement is the two
    reductions it spells."""
    result = transpile_source(TUPLE_REDUCTIONS, "m.py", unsafe=True)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "for i in" not in result.code.split("else:")[0]
    rng = np.random.default_rng(3)
    x, y = rng.random((6, 3)), rng.random(6)
    got, want = _run(result.code, x, y), _run(TUPLE_REDUCTIONS, x, y)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)


@pytest.mark.parametrize("body", [
    "a, b = b, a + x[i]",          # b's new value reads a's old one: a second-order recurrence
    "a, b = a + x[i], a * 2.0",    # b reads a after a is rebound in the split order
])
def test_a_tuple_assignment_whose_order_matters_stays_a_loop(body):
    source = textwrap.dedent(f"""\
        import numpy as np


        def f(x):
            \"\"\"Args:
                x: [n].
            \"\"\"
            a, b = 0.0, 1.0
            for i in range(x.shape[0]):
                {body}
            return a, b
        """)
    result = transpile_source(source, "m.py", unsafe=True)
    assert not result.plans[0].rewritten and result.code == source


@pytest.mark.parametrize("consumer, item", [
    ("np.stack(parts, axis=1)", "m[i] * 2.0"),
    ("np.stack(parts, axis=-1)", "m[i] * 2.0"),
    ("np.concatenate(parts, axis=1)", "m[i] + 1.0"),
    ("np.concatenate(parts, axis=-1)", "m[i] - m[i, 0]"),
])
def test_numpy_stacks_and_joins_along_another_axis(consumer, item):
    """NumPy's `stack`/`concatenate` stays after the loop and takes the batched array, whose
    rows are the items the list held: the same call on either gives the same array."""
    source = textwrap.dedent(f"""\
        import numpy as np


        def f(m):
            \"\"\"Args:
                m: [n, a, b].
            \"\"\"
            parts = []
            for i in range(m.shape[0]):
                parts.append({item})
            return {consumer}
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "m.shape[0] > 0:" in result.code and "for i in" not in result.code.split("else:")[0]
    assert consumer in result.code
    m = np.random.default_rng(4).random((5, 2, 3))
    got, want = _run(result.code, m), _run(source, m)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_tensorflow_stacks_along_another_axis_stay_loops():
    """`tf.stack(rows, axis=1)` would be replaced by the batched value, stacked on axis 0."""
    source = textwrap.dedent("""\
        import tensorflow as tf


        def f(m):
            parts = []
            for i in range(m.shape[0]):
                parts.append(m[i] * 2.0)
            return tf.stack(parts, axis=1)
        """)
    result = transpile_source(source, "m.py")
    assert not any(p.rewritten for p in result.plans)


REVERSED = """\
import numpy as np


def f(x, n):
    out = np.zeros(n)
    for i in reversed(range(1, n)):
        out[i] = x[i] - x[i - 1]
    return out


def g(x, n):
    out = np.zeros(n + 1)
    for i in reversed(range(n)):
        out[i] = out[i + 1] * 0.5 + x[i]
    return out
"""


def test_reversed_range_is_a_range_counting_down():
    """``reversed(range(1, n))`` is ``range(n - 1, 0, -1)``: a map over it is batched, and a
    recurrence that reads the element written one step before (``out[i + 1]``, counting down)
    is a linear scan walked backwards from ``out[n]``."""
    result = transpile_source(REVERSED, "m.py")
    f_plan, g_plan = result.plans
    assert f_plan.rewritten, [r.message for r in f_plan.remarks]
    assert "range(n - 1, 0, -1)" in f_plan.remarks[0].message
    assert g_plan.rewritten and "linear scan out" in g_plan.pattern, [r.message for r in g_plan.remarks]
    namespace, original = {}, {}
    exec(compile(result.code, "<code>", "exec"), namespace)
    exec(compile(REVERSED, "<code>", "exec"), original)
    for n in (0, 1, 2, 6):
        x = np.arange(6.0) ** 2
        np.testing.assert_array_equal(namespace["f"](x, n), original["f"](x, n))
        np.testing.assert_allclose(namespace["g"](x, n), original["g"](x, n), rtol=1e-14)


HELPERS = """\
import numpy as np

SPEED = 343.0


def conj_t(a, **kwargs):
    return np.transpose(a, **kwargs).conj()


def response(points, centre, f, source, attn=True, ff=False):
    x = np.array(source)
    if x.ndim == 1:
        x = source[:, np.newaxis]
    if ff:
        p = x - centre
        p /= np.linalg.norm(p)
        d = -np.dot(points.T, p)
    else:
        d = np.sqrt(np.sum((points[:, :, np.newaxis] - x[:, np.newaxis, :]) ** 2, axis=0))
    if type(x) is float or type(x) is int:
        return 0.0
    phase = np.exp(-1j * 2 * np.pi * f * d / SPEED)
    if attn:
        return phase / d
    return phase


def f(targets, weights, points, centre):
    out = np.zeros(targets.shape[1], dtype=complex)
    for k, t in enumerate(targets.T):
        r = np.dot(conj_t(weights[:, k]), response(points, centre, 500.0, t, attn=True, ff=False))
        out[k] = r[0]
    return out
"""


def test_a_helper_with_flags_and_rank_tests_is_evaluated_for_the_call():
    """The helper's `if ff:` (passed False), `if x.ndim == 1:` (a row: 1-D) and `type(x) is
    float` (an array: never) are decided for this call and only the branches taken are
    batched; `**kwargs` that the call leaves empty passes nothing on. `centre`, read only in a
    branch the call does not take, needs no run-time check."""
    result = transpile_source(HELPERS, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    batched = result.code.split("# pforge: vectorized loop")[1].split("else:")[0].split("\n", 1)[1]
    assert "np.linalg.norm" not in batched and "centre" not in batched
    rng = np.random.default_rng(5)
    targets, points = rng.uniform(1, 3, (2, 4)), rng.uniform(-0.1, 0.1, (2, 3))
    weights = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    centre = points.mean(axis=1, keepdims=True)
    namespace, original = {}, {}
    exec(compile(result.code, "<code>", "exec"), namespace)
    exec(compile(HELPERS, "<code>", "exec"), original)
    np.testing.assert_allclose(namespace["f"](targets, weights, points, centre),
                               original["f"](targets, weights, points, centre), rtol=1e-12)


@pytest.mark.parametrize("change", [
    ("response(points, centre, 500.0, t, attn=True, ff=False)", "response(points, centre, 500.0, t, True, centre[0, 0] > 0)"),
    ("    if x.ndim == 1:\n        x = source[:, np.newaxis]\n", "    if x.shape[0] == 2:\n        x = source[:, np.newaxis]\n"),
])
def test_a_helper_branch_decided_only_by_the_data_is_not_inlined(change):
    source = HELPERS.replace(*change)
    assert source != HELPERS
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten
    assert "no batching rule for `response`" in " ".join(r.message for r in result.plans[0].remarks)


TUPLE_HELPER = """\
import numpy as np


def scaled(x, mean):
    d, s = x - mean, np.sum(x * x)
    s += 1.0
    return d * s


def f(X, mean):
    out = np.zeros(X.shape)
    for i in range(X.shape[0]):
        out[i] = scaled(X[i], mean)
    return out
"""


def test_a_helper_unpacking_a_tuple_and_updating_a_name_is_one_expression():
    result = transpile_source(TUPLE_HELPER, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    rng = np.random.default_rng(6)
    X, mean = rng.standard_normal((5, 3)), rng.standard_normal(3)
    namespace, original = {}, {}
    exec(compile(result.code, "<code>", "exec"), namespace)
    exec(compile(TUPLE_HELPER, "<code>", "exec"), original)
    np.testing.assert_allclose(namespace["f"](X, mean), original["f"](X, mean), rtol=1e-12)


IN_PLACE_HELPER = """\
import numpy as np


def bump(v, flag):
    t = v
    t += 1
    if flag:
        t *= 3
    return t


def kind(v):
    if type(v) is float:
        return v * 10
    return v * 2


def f(X):
    out = np.zeros(X.shape)
    for i in range(X.shape[0]):
        out[i] = bump(X[i], False)
    return out


def g(X):
    out = np.zeros(len(X))
    for i in range(len(X)):
        out[i] = kind(X[i])
    return out
"""


def test_a_helper_that_updates_its_argument_in_place_or_tests_a_number_s_type_stays():
    """Adversarial review: `t = v; t += 1` writes into the caller's row (the loop changes `X`),
    and `type(v) is float` holds for the items of a list of floats, which the checks accept:
    neither helper is inlined."""
    result = transpile_source(IN_PLACE_HELPER, "m.py")
    assert not any(p.rewritten for p in result.plans)
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    _run_named = {}
    exec(compile(result.code, "<code>", "exec"), _run_named)
    _run_named["f"](X)
    np.testing.assert_array_equal(X, [[2.0, 3.0], [4.0, 5.0]])
    np.testing.assert_array_equal(_run_named["g"]([1.0, 2.0]), [10.0, 20.0])


INVARIANT_METHOD = textwrap.dedent('''\
    import numpy as np


    def distance(x, y):
        return np.sqrt(np.sum((x[:, :, np.newaxis] - y[:, np.newaxis, :]) ** 2, axis=0))


    def f(freqs, mics, angles):
        """Args:
          freqs: [n].
          mics: [2, m].
          angles: [a].
        """
        resp = np.zeros((freqs.shape[0], angles.shape[0]))
        for i in range(freqs.shape[0]):
            grid = np.array([np.cos(angles), np.sin(angles)]).reshape(2, angles.size) + METHOD
            resp[i, :] = np.sum(freqs[i] * distance(mics, grid), axis=0)
        return resp
    ''')


@pytest.mark.parametrize("method", ["mics.mean(axis=1, keepdims=True)", "mics.sum(axis=1).reshape(2, 1)",
                                    "mics.T.copy().mean(axis=0)[:, None]"])
def test_the_rank_of_an_invariant_method_call_is_its_rule_s(method):
    """`a.reshape(...)`, `m.mean(axis=1, keepdims=True)` on invariant arrays of known rank have
    the rank their batching rule gives, so a helper taking them has a known rank too (without
    it the loop was left: "the rank of `distance(mics, grid)` is unknown")."""
    source = INVARIANT_METHOD.replace("METHOD", method)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "for i in range" not in result.code.split("else:")[0]
    rng = np.random.default_rng(3)
    args = (rng.standard_normal(5), rng.standard_normal((2, 4)), np.linspace(0.0, 3.0, 7))
    np.testing.assert_allclose(_run(result.code, *args), _run(source, *args))


NOT_INLINED = '''import numpy as np


HELPER


def f(x):
    """Args:
      x: [n, d].
    """
    scale = 1.0
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = h(x[i]) * scale
    return out
'''


@pytest.mark.parametrize("helper,why", [
    ("def h(v):\n    try:\n        return np.sum(v)\n    except ValueError:\n        return 0.0",
     "`h` has a `try` statement at line 5"),
    ("def h(v):\n    t = 0.0\n    for e in v:\n        t = t + e\n    return t", "`h` has a `for` loop at line 6"),
    ("def h(v):\n    return sum(t * 2.0 for t in v)", "`h` has a generator expression at line 5"),
    ("def h(v):\n    w = v * 1.0\n    w[0] = 0.0\n    return np.sum(w)",
     "`h` has an assignment to a subscript or an attribute at line 6"),
    ("def h(v):\n    if v[0] > 0:\n        return np.sum(v)\n    return 0.0",
     "`h` has an `if` at line 5 that only the data decide"),
    ("def deco(fn):\n    return fn\n\n\n@deco\ndef h(v):\n    return np.sum(v)",
     "`h` is nested or decorated, or takes `*args`, keyword-only or positional-only parameters"),
    ("def h(v, s=np.pi * 2):\n    return np.sum(v) * s",
     "`h` has a parameter the call leaves to a default that is not a constant"),
    ("scale = 2.0\n\n\ndef h(v):\n    return np.sum(v) * scale",
     "`h` reads `scale`, which the calling function binds too"),
])
def test_a_helper_that_is_not_inlined_says_why(helper, why):
    """The remark names what in the helper keeps it a call, with its line: what to change to
    have the loop rewritten."""
    result = transpile_source(NOT_INLINED.replace("HELPER", helper), "m.py", backend="direct")
    plan = next(p for p in result.plans if p.function == "f")
    assert plan.vectorizable and not plan.rewritten
    message = " ".join(r.message for r in plan.remarks)
    assert ("no batching rule for `h` (a module function is inlined when its body binds names and returns "
            f"one expression; {why})") in message, message


ELLIPSIS = '''\
import numpy as np


def f(x, w):
    """Args:
      x: [n, a, b].
      w: [b, k].
    """
    out = np.zeros((x.shape[0], x.shape[1]))
    for i in range(x.shape[0]):
        out[i] = x[i][..., 0] * w[..., 1].sum() + x[i, ..., 1]
    return out


def g(x, w):
    """Args:
      x: [n, a, b].
      w: [b, k].
    """
    out = []
    for i in range(x.shape[1]):
        out.append(x[..., i, 0] + w[0, ...][None, :1])
    return np.stack(out)
'''


def test_an_ellipsis_of_a_value_of_known_rank_is_its_slices():
    """`x[i][..., 0]`, `x[i, ..., 1]`, `x[..., i, 0]`: the ellipsis stands for the axes the other
    indices leave, so the loop index finds its axis (it was refused: "the rank of `...` is
    unknown")."""
    result = transpile_source(ELLIPSIS, "m.py")
    assert [p.rewritten for p in result.plans] == [True, True], [r.message for p in result.plans for r in p.remarks]
    assert "out[...] = x[:, :, 0] * w[..., 1].sum() + x[:, :, 1]" in result.code
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 4, 2)), rng.standard_normal((2, 5))
    before, after = {}, {}
    exec(compile(ELLIPSIS, "<loop>", "exec"), before)
    exec(compile(result.code, "<rewrite>", "exec"), after)
    for name in "fg":
        np.testing.assert_allclose(after[name](x, w), before[name](x, w))


def test_an_ellipsis_beside_a_mask_is_left_as_written():
    """A boolean mask takes as many axes as it has: the ellipsis is not expanded."""
    source = ELLIPSIS.replace("x[i][..., 0] * w[..., 1].sum() + x[i, ..., 1]", "np.sum(x[i][..., x[i, 0] > 0])")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten
    assert "`x[i][..., x[i, 0] > 0]`: a per-iteration index into a per-iteration value" in \
        result.plans[0].remarks[-1].message


def test_pow_of_two_arguments_is_the_power_operator():
    """`pow(a[i] - b[i], 2)` calls `__pow__` as `**` does: a sum of squares is a reduction;
    `pow` with a modulus keeps the loop."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(a, b):
            dist = 0.0
            for i in range(len(a)):
                dist += pow(a[i] - b[i], 2)
            return dist
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "np.power(np.asarray(a) - np.asarray(b)[:len(a)], 2)" in result.code.split("else:")[0]
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=9), rng.normal(size=9)
    np.testing.assert_allclose(_run(result.code, a, b), _run(source, a, b), rtol=1e-12)
    modulus = source.replace("dist = 0.0", "dist = 0").replace("pow(a[i] - b[i], 2)", "pow(a[i], 2, 7)")
    assert not transpile_source(modulus, "m.py").plans[0].rewritten


def test_a_comprehension_variable_is_not_the_loop_variable():
    """`[y[i] for i in near]` binds its own `i` (a comprehension has its own scope): the loop
    variable `i` is not reassigned, and the loop's verdict is its own."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(x, y):
            out = np.empty(len(x))
            for i in range(len(x)):
                near = np.array([y[i] for i in range(2)])
                out[i] = x[i] + near.sum()
            return out
        """)
    (plan,) = transpile_source(source, "m.py").plans
    assert not any(r.code == "PF211" for r in plan.remarks), [r.message for r in plan.remarks]
    assert any(r.code == "PF101" for r in plan.remarks), [r.message for r in plan.remarks]
    walrus = source.replace("[y[i] for i in range(2)]", "[(i := j) for j in range(2)]")
    (plan,) = transpile_source(walrus, "m.py").plans
    assert any(r.code == "PF211" for r in plan.remarks), "`:=` in a comprehension binds the loop's `i`"


def test_a_one_item_list_index_keeps_its_axis():
    """`gains[..., [b]]` (a band's gain as a length-1 axis, to broadcast) is
    `gains[..., b, None]`; a list holding a bool is a mask, and keeps the loop."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(coefs, gains):
            for b in range(gains.shape[-1]):
                coefs[b] *= gains[..., [b]]
            return coefs
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "[b]]" not in result.code.split("else:")[0]
    rng = np.random.default_rng(2)
    coefs, gains = rng.normal(size=(4, 6)), rng.normal(size=4)
    np.testing.assert_array_equal(_run(result.code, coefs.copy(), gains), _run(source, coefs.copy(), gains))
    mask = source.replace("gains[..., [b]]", "gains[..., [b > 1]]")
    assert not transpile_source(mask, "m.py").plans[0].rewritten


SVM_GRAD = textwrap.dedent("""\
    import numpy as np


    def f(W, X, y):
        G = np.zeros(W.shape)
        for i in range(X.shape[0]):
            s = X[i].dot(W)
            t = y[i]
            for j in range(W.shape[1]):
                if j != t and s[j] >= s[t] - 1:
                    G[:, j] += X[i]
                    G[:, t] -= X[i]
        return G
    """)


def test_column_updates_in_a_nest_scatter_through_a_view_with_that_axis_first():
    """cs231n's naive SVM gradient: `G[:, j] += X[i]` and `G[:, t] -= X[i]` under a test of
    `i` and `j` are updates of `np.moveaxis(G, 1, 0)`'s rows, a view of `G`: `np.add.at` of
    the masked rows, summed over `i` for `j` and over `j` for `t`, colliding classes added."""
    result = transpile_source(SVM_GRAD, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    batched = result.code.split("else:")[0]
    assert "np.moveaxis(G, 1, 0)" in batched and "np.add.at(" in batched
    rng = np.random.default_rng(3)
    for n, d, k in ((7, 3, 4), (1, 2, 2), (12, 5, 3)):
        W, X, y = rng.normal(size=(d, k)), rng.normal(size=(n, d)), rng.integers(0, k, n)
        np.testing.assert_allclose(_run(result.code, W, X, y), _run(SVM_GRAD, W, X, y), rtol=1e-12, atol=1e-12)


def test_a_column_update_of_a_parameter_runs_the_loop_where_it_shares_memory():
    """`G[:, y[i]] += X[i]` writes `G` through a view; where `X` is a view of `G` the loop
    reads what earlier iterations wrote, and the check in front runs it."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(G, X, y):
            for i in range(X.shape[0]):
                G[:, y[i]] += X[i]
            return G
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "np.may_share_memory(G, X)" in result.code
    rng = np.random.default_rng(4)
    G, X, y = rng.normal(size=(3, 4)), rng.normal(size=(6, 3)), rng.integers(0, 4, 6)
    np.testing.assert_allclose(_run(result.code, G.copy(), X, y), _run(source, G.copy(), X, y), rtol=1e-12)
    shared = rng.normal(size=(3, 3))
    np.testing.assert_array_equal(_run(result.code, shared.copy(), shared.copy().T, y[:3] % 3),
                                  _run(source, shared.copy(), shared.copy().T, y[:3] % 3))
    aliased, again = shared.copy(), shared.copy()
    np.testing.assert_array_equal(_run(result.code, aliased, aliased.T, y[:3] % 3), _run(source, again, again.T, y[:3] % 3))


CLAMPS = """
import numpy as np

def clamp(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = float(x[i])
        out[i] = {call}
    return out
"""


@pytest.mark.parametrize("call, batched", [
    ("min(v * 2.0, 1.5)", "np.minimum(v * 2.0, 1.5)"),
    ("max(v, -0.5)", "np.maximum(v, -0.5)"),
    # (a number first, or 0: `where` keeps Python's order, NaN and signed zeros)
    ("min(1.5, v)", "np.where(v < 1.5,"),
    ("max(v, 0.0)", "np.where(0.0 > v,"),
])
def test_min_and_max_with_a_nonzero_number_second_are_np_minimum_and_maximum(call, batched):
    """Python's ``min(a, b)`` is ``b if b < a else a``: with ``b`` a number other than 0, a NaN
    ``a`` is kept, as np.minimum keeps it, and no zeros of two signs meet."""
    source = CLAMPS.format(call=call)
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert batched in result.code, result.code
    loop, rewrite = {}, {}
    exec(source, loop)
    exec(result.code, rewrite)
    x = np.array([np.nan, -0.0, 0.0, 0.25, 0.75, -0.25, -1.0, np.inf, -np.inf, 3.0])
    want, got = loop["clamp"](x), rewrite["clamp"](x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want)).all()


def test_min_of_an_array_element_and_a_number_keeps_each_kind():
    # `min(x[i], 255)` is a NumPy value on some iterations and a Python int on others: the
    # loop stores each as it is (a uint64 element exactly), which the `where`'s arms keep
    source = ("import numpy as np\n\ndef f(x):\n    out = np.zeros(len(x), dtype=x.dtype)\n"
              "    for i in range(len(x)):\n        out[i] = max(x[i] * 2, -1)\n    return out\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert "np.where" in result.code and "np.maximum" not in result.code, result.code
    loop, rewrite = {}, {}
    exec(source, loop)
    exec(result.code, rewrite)
    x = np.array([2 ** 62 + 1, 5, 2 ** 63 - 1], dtype=np.uint64)
    np.testing.assert_array_equal(rewrite["f"](x), loop["f"](x))


@pytest.mark.parametrize("store", ["out = np.zeros(len(x), dtype=x.dtype)", "out = np.zeros(len(x))",
                                   "out = np.zeros(len(x), dtype=np.int64)", "collect"])
@pytest.mark.parametrize("call", ["min", "max"])
def test_python_min_and_max_give_each_iteration_its_own_kind(call, store):
    """``max(x[i], -2.5)`` is ``x[i]`` itself (an int of an int array) where it wins, and the
    Python float where it loses: the loop stores or collects each as it is (``np.array`` of
    ints only holds ints), so the rewrite is right only where the arrays hold float64 (checked
    in front), or keeps each arm's kind. Before, an int ``x`` passed the check: float64."""
    rewritten = 0
    for const in ("255", "300", "-1", "1.5", "-2.5", "1e300", "2 ** 63", "127", "True"):
        if store == "collect":
            source = (f"import numpy as np\n\ndef f(x):\n    out = []\n    for i in range(len(x)):\n"
                      f"        out.append({call}(x[i], {const}))\n    return np.array(out)\n")
        else:
            source = (f"import numpy as np\n\ndef f(x):\n    {store}\n    for i in range(len(x)):\n"
                      f"        out[i] = {call}(x[i] * 2, {const})\n    return out\n")
        result = transpile_source(source, "m.py", shapes={"x": 1})
        if result.code == source:
            continue
        rewritten += 1
        loop, rewrite = {}, {}
        exec(source, loop)
        exec(result.code, rewrite)
        rng = np.random.default_rng(0)
        for dtype in ("uint8", "int8", "int16", "int64", "uint64", "float16", "float32", "float64", "bool"):
            values = rng.standard_normal(6) * 200
            if dtype.startswith("float"):
                values[:2] = [np.nan, -0.0]
            x = values > 0 if dtype == "bool" else values.astype(dtype)
            outcomes = []
            for module in (loop, rewrite):
                try:
                    with np.errstate(all="ignore"), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        got = module["f"](x.copy())
                    outcomes.append((got.dtype, got.tolist()))
                except (ValueError, OverflowError) as error:
                    outcomes.append(type(error))
            if isinstance(outcomes[0], type) and not isinstance(outcomes[1], type):
                continue  # (the loop raises, storing a NaN or -1 into ints: the rewrite may return)
            assert outcomes[1][0] == outcomes[0][0], (source, dtype, outcomes)
            np.testing.assert_array_equal(np.array(outcomes[1][1]), np.array(outcomes[0][1]), err_msg=source + dtype)
    assert rewritten >= 3


@pytest.mark.parametrize("const", ["2 ** 70", "1180591620717411303424", "-1180591620717411303424",
                                   "9223372036854775808", "-9223372036854775809", "18446744073709551615"])
@pytest.mark.parametrize("operand", ["i", "int(x[i])", "i - 5"])
@pytest.mark.parametrize("call", ["min", "max"])
def test_min_and_max_with_an_int_past_int64_are_not_np_minimum_and_maximum(call, operand, const):
    """``min(i, 2 ** 70)`` is ``i``: NumPy 2 raises OverflowError for ``np.minimum`` of an
    int64 ``i`` and a Python int int64 does not hold, so only an int64 number is taken to
    np.minimum and np.maximum (the loop stores the result into floats)."""
    source = (f"import numpy as np\n\ndef f(x):\n    out = np.zeros(len(x))\n    for i in range(len(x)):\n"
              f"        out[i] = {call}({operand}, {const})\n    return out\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert f"np.{call}imum" not in result.code, result.code
    loop, rewrite = {}, {}
    exec(source, loop)
    exec(result.code, rewrite)
    for x in (np.array([1.5, -2.0, 7.0]), np.arange(5), np.zeros(0)):
        want = loop["f"](x.copy())
        try:
            got = rewrite["f"](x.copy())
        except OverflowError:
            continue  # (the `where` of such an int raises too, before this change: not this test's)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_min_and_max_with_an_int64_number_are_np_minimum_and_maximum():
    """The largest and smallest int64 literals are still np.minimum and np.maximum."""
    for const, call in (("9223372036854775807", "min"), ("-9223372036854775808", "max")):
        source = (f"import numpy as np\n\ndef f(x):\n    out = np.zeros(len(x), dtype=np.int64)\n"
                  f"    for i in range(len(x)):\n        out[i] = {call}(i, {const})\n    return out\n")
        result = transpile_source(source, "m.py", shapes={"x": 1})
        assert f"np.{call}imum(i, {const})" in result.code, result.code
        loop, rewrite = {}, {}
        exec(source, loop)
        exec(result.code, rewrite)
        np.testing.assert_array_equal(rewrite["f"](np.zeros(4)), loop["f"](np.zeros(4)))


COUNT_BY = '''
import numpy as np

def f(labels, counts):
    for i in range(len(labels)):
        counts[labels[i]] += {step}
    return counts
'''


@pytest.mark.parametrize("step", ["1", "300", "-1", "True", "2 ** 40", "i", "2.5", "-1.5"])
def test_a_scattered_python_number_is_added_as_the_loop_adds_it(step):
    """`counts[labels[i]] += 1` is `np.add.at(counts, labels, np.asarray(1, np.result_type(counts,
    0)))`: the int made in the dtype the loop's `counts[k] + 1` computes in (a bare `1` would be
    an int64 array to `np.add.at`, and uint64 counts would add through float64; bool counts
    add in int64, so `-1` twice is False again). Made in it, not cast to it: one the dtype
    cannot hold raises OverflowError as the loop does (uint8 and 300, uint64 and -1), where a
    cast wrapped it. A float is added in float64 and truncated into int counts, as the loop's
    `counts[k] + 2.5` is stored."""
    source = COUNT_BY.format(step=step)
    code = transpile_source(source, "m.py").code
    zero = "0.0" if "." in step else "False" if step == "True" else "0"
    assert f"np.add.at(counts, np.asarray(labels), np.asarray({step}, np.result_type(counts, {zero})))" in code, code
    for dtype in (np.uint8, np.int8, np.uint64, np.int64, np.float16, np.complex64, np.bool_, object):
        for labels in ([0, 0, 2], np.array([1, 1, 1, 0]), np.array([2, 0], np.uint8), [-1, 0, -1]):
            outcomes = []
            for program in (source, code):
                counts = np.full(3, 2 ** 63 + 1, dtype) if dtype is np.uint64 else np.full(3, -3, dtype) \
                    if dtype in (np.int8, np.int64) else np.zeros(3, dtype)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        got = _run(program, labels, counts)
                        outcomes.append((got.dtype.str, got.tolist()))
                    except Exception as error:  # noqa: BLE001 - the kind of error is compared
                        outcomes.append(type(error))
            assert outcomes[0] == outcomes[1], (dtype, labels)


@pytest.mark.parametrize("text, want", [
    ("x[np.newaxis, :j]", "x[:j]"),
    ("x[np.newaxis]", "x"),
    ("x[np.newaxis, np.newaxis, 1:n, :]", "x[1:n, :]"),
    ("x[np.newaxis, idx]", "x[np.newaxis, idx]"),  # (an array index after a new axis may move its axes)
    ("x[np.newaxis, :, idx]", "x[np.newaxis, :, idx]"),
    ("x[:, np.newaxis]", "x[:, np.newaxis]"),
    ("np.abs(x)", "np.abs(x)"),
])
def test_only_new_axes_in_front_of_slices_are_dropped(text, want):
    """``core.leading_axes_dropped``: what broadcasting puts back, and nothing else."""
    import gast

    from pforge.transpile.backends.direct.core import Lib, leading_axes_dropped

    node = gast.parse(text).body[0].value
    assert gast.unparse(leading_axes_dropped(Lib("np", "np"), node)).strip() == want


def test_an_operand_of_the_inner_loop_meets_the_outer_ones_without_new_axes_in_front():
    """``a[i] * b[j]``: ``a[:, np.newaxis] * b``, not ``b[np.newaxis]``, as the pairwise form is
    written by hand; where both operands have the axes in front (``x[j] * y[j]`` in a nest over
    ``i``), only one loses them, so the value keeps its axis for ``i``."""
    source = textwrap.dedent("""\
        import numpy as np


        def outer(a, b):
            m = np.zeros((len(a), len(b)))
            for i in range(len(a)):
                for j in range(len(b)):
                    m[i, j] = a[i] * b[j] - b[j]
            return m


        def grid(x, y, n):
            out = np.zeros((n, len(x)))
            for i in range(n):
                for j in range(len(x)):
                    out[i, j] = x[j] * y[j] + x[j]
            return out
        """)
    result = transpile_source(source, "m.py", shapes={"a": 1, "b": 1, "x": 1, "y": 1})
    assert [p.rewritten for p in result.plans] == [True, True], result.code
    assert "a[:, np.newaxis] * b - b" in result.code and "b[np.newaxis" not in result.code, result.code
    assert "x[np.newaxis] * y[:len(x)] + x" in result.code, result.code
    rng = np.random.default_rng(4)
    a, b, x, y = rng.normal(size=3), rng.normal(size=4), rng.normal(size=5), rng.normal(size=6)
    for name, args in (("outer", (a, b)), ("grid", (x, y, 3)), ("grid", (x, y, 0))):
        want, got = {}, {}
        exec(compile(source, "m.py", "exec"), want)
        exec(compile(result.code, "m.py", "exec"), got)
        np.testing.assert_array_equal(got[name](*args), want[name](*args))
