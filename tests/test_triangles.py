"""A triangular iteration space (``for j in range(i + c)`` or ``for j in range(i + c, n)`` inside
``for i in range(n)``) filling a new array of zeros becomes ``np.tril`` or ``np.triu``: the cells
the loop skips keep their 0, which is what ``np.tril`` and ``np.triu`` leave there. Each case asserts the spelling, then equality with the loop for trip
counts 0, 1, 2 and 7; each trap asserts the ``np.where`` with the old cells stays where they are
not all 0 when the loop writes (ones, a second store, a statement between, a test in the loop).
"""

from __future__ import annotations

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

SHAPES = {"a": 1, "b": 1}


def _source(stop="i", maker="np.zeros((n, n))", value="a[i] * b[j]", before="", inner="", outer="n"):
    lines = ["import numpy as np", "", "def fill(a, b):", "    n = len(a)", f"    m = {maker}"]
    if before:
        lines.append(f"    {before}")
    lines += [f"    for i in range({outer}):"]
    if inner:
        lines.append(f"        {inner}")
    lines += [f"        for j in range({stop}):", f"            m[i, j] = {value}", "    return m", ""]
    return "\n".join(lines)


def _rewritten(source):
    result = transpile_source(source, "m.py", shapes=SHAPES)
    plans = [p for p in result.plans if p.rewritten]
    assert plans and plans[0].lineno == 6 + ("m[0, 0]" in source or "print" in source), \
        [r.message for p in result.plans for r in p.remarks]
    return result.code


def _same(source, code):
    rng = np.random.default_rng(1)
    for n in (0, 1, 2, 7):
        a, b = rng.standard_normal(n), rng.standard_normal(n + 3) + 2.0
        try:
            want = run_module(source)["fill"](a.copy(), b.copy())
        except IndexError:  # (`m[0, 0] = 5.0` of an empty `m`)
            with pytest.raises(IndexError):
                run_module(code)["fill"](a.copy(), b.copy())
            continue
        got = run_module(code)["fill"](a.copy(), b.copy())
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("stop, diagonal", [
    ("i", ", -1)"), ("i + 1", ")"), ("1 + i", ")"), ("i - 1", ", -2)"), ("i + 2", ", 1)"), ("i - 3", ", -4)"),
])
def test_a_triangle_into_zeros_is_tril_with_the_loop_bound_as_diagonal(stop, diagonal):
    source = _source(stop, maker="np.zeros((n, n + 3))")
    code = _rewritten(source)
    assert f"m[:, :j_stop] = np.tril(a[:, np.newaxis] * b[:j_stop]{diagonal}" in code
    assert "np.where" not in code and "np.maximum(j_stop" not in code
    assert "j = np.arange" not in code  # (the mask it would have built is not read)
    # the widest row's stop is the last row's, `n - 1 + c`, or 0 where that is negative: with
    # `k = c - 1 <= 0` also where no row runs (no array of the rows' stops is made for it)
    k = int(diagonal.strip(", )") or 0)
    assert ("j_stop = max(n" in code and "i = np.arange" not in code) == (k <= 0), code
    _same(source, code)


@pytest.mark.parametrize("outer, stop", [("n", "i"), ("n", "i + 1"), ("n", "i + 2"), ("1, n", "i"), ("2, n", "i - 1"),
                                         ("3, n", "i - 3"), ("2, n", "i + 1"), ("n", "i - 5")])
def test_the_widest_stop_of_a_triangle_is_the_last_rows_for_every_trip_count(outer, stop):
    """``max(n - 1 + c, 0)`` or the stops' own largest, against the loop from no row to many
    (a stop past the rows' own would read past `b`'s end where the loop reads nothing)."""
    source = _source(stop, maker="np.zeros((n, n + 3))", outer=outer)
    code = _rewritten(source)
    rng = np.random.default_rng(2)
    for n in range(0, 9):
        for extra in (0, 3):
            a, b = rng.standard_normal(n), rng.standard_normal(max(n + extra - 3, 0))
            try:
                want = run_module(source)["fill"](a.copy(), b.copy())
            except IndexError:
                with pytest.raises(IndexError):
                    run_module(code)["fill"](a.copy(), b.copy())
                continue
            got = run_module(code)["fill"](a.copy(), b.copy())
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("maker", ["np.zeros((n, n + 3), dtype=np.int64)", "np.zeros_like(np.empty((n, n + 3)))"])
def test_zeros_of_another_dtype_or_like_an_array_keep_the_loops_casts(maker):
    source = _source(maker=maker, value="a[i] * 10.0 + j")
    code = _rewritten(source)
    assert "np.tril(" in code
    _same(source, code)


@pytest.mark.parametrize("maker, before, inner, stop", [
    ("np.ones((n, n))", "", "", "i"),  # the skipped cells hold ones
    ("np.zeros((n, n))", "m[0, 0] = 5.0", "", "i"),  # a statement between writes a skipped cell
    ("np.zeros((n, n))", "", "m[i, 0] = 7.0", "i"),  # a second store: the diagonal cell (0, 0) keeps 7
    ("np.zeros((n, n))", "print(m)", "", "i"),  # a statement between reads it (it could keep it)
])
def test_old_cells_that_may_not_be_zero_keep_the_where(maker, before, inner, stop):
    source = _source(stop, maker=maker, before=before, inner=inner)
    result = transpile_source(source, "m.py", shapes=SHAPES)
    assert any(p.rewritten for p in result.plans)
    assert "np.tril" not in result.code and "np.where(j < " in result.code
    _same(source, result.code)


def test_a_test_inside_the_triangle_keeps_the_where():
    source = _source(value="a[i] * b[j]").replace(
        "            m[i, j] = a[i] * b[j]", "            if b[j] > 0:\n                m[i, j] = a[i] * b[j]")
    result = transpile_source(source, "m.py", shapes=SHAPES)
    assert any(p.rewritten for p in result.plans) and "np.tril" not in result.code
    _same(source, result.code)


@pytest.mark.parametrize("outer, stop, spelled", [
    ("1, n", "i", "m[1:n, :j_stop] = np.tril(a[1:n, np.newaxis] * b[:j_stop])"),
    ("2, n", "i - 1", "m[2:n, :j_stop] = np.tril(a[2:n, np.newaxis] * b[:j_stop])"),
    ("3, n", "i - 1", "m[3:n, :j_stop] = np.tril(a[3:n, np.newaxis] * b[:j_stop], 1)"),
    ("n", "i, n", "m[:, j_start:n] = np.triu(a[:, np.newaxis] * b[j_start:n])"),
    ("n", "i + 1, n", "m[:, j_start:n] = np.triu(a[:, np.newaxis] * b[j_start:n])"),
    ("n", "2 + i, n", "m[:, j_start:n] = np.triu(a[:, np.newaxis] * b[j_start:n])"),
    ("1, n", "i + 1, n", "m[1:n, j_start:n] = np.triu(a[1:n, np.newaxis] * b[j_start:n])"),
])
def test_the_diagonal_follows_the_outer_start_and_an_inner_start_gives_triu(outer, stop, spelled):
    """``range(s, n)`` outside: row ``r`` of the grid is ``i = r + s``, so ``range(i + c)`` keeps
    ``j <= r + s + c - 1``; ``range(i + c, n)`` inside starts the columns at ``j = s + c``, the
    first row's first cell, so every row starts at its diagonal."""
    source = _source(stop, outer=outer)
    code = _rewritten(source)
    assert spelled in code and "np.where" not in code
    _same(source, code)


@pytest.mark.parametrize("stop", ["i - 2, n", "n - i, n", "i, 2 * i"])
def test_other_per_iteration_starts_are_masked(stop):
    """A start that may be negative (``x[j]`` then wraps, as the loop's does), or that is not
    ``i`` plus a constant, or a stop that varies too: no triangle, the effects are masked."""
    source = _source(stop, maker="np.zeros((n, n + 3))", value="a[i] * b[j % n]")
    code = _rewritten(source)
    assert "j_start = np.min(" in code and "np.triu" not in code and "np.tril" not in code
    _same(source, code)


def test_the_widest_row_of_a_triangle_is_checked_against_the_arrays_it_reads():
    """``x[i, j]`` over ``range(i + 1)`` in ``range(n)`` reads ``x[:, :j_stop]``, which stops
    quietly at a narrower ``x`` where the loop raises: the widest row, ``n``, is checked in
    front, and in a triangle inside a triangle the check names no bound the batched code binds."""
    source = """import numpy as np

def lower(x):
    n = x.shape[0]
    m = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            m[i, j] = x[i, j]
    return m

def pyramid(a, n):
    m = np.zeros((n, n, n))
    for i in range(n):
        for j in range(i + 1):
            for k in range(j + 1):
                m[i, j, k] = a[i] + a[j] * a[k]
    return m
"""
    result = transpile_source(source, "m.py", shapes={"x": 2, "a": 1})
    assert all(p.rewritten for p in result.plans)
    assert "n <= x.shape[1]" in result.code
    guards = [line for line in result.code.splitlines() if line.strip().startswith("if ")]
    assert not any("j_stop" in g or "k_stop" in g for g in guards)
    with pytest.raises(IndexError):
        run_module(result.code)["lower"](np.ones((3, 1)))
    x = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(run_module(result.code)["lower"](x), run_module(source)["lower"](x))
    a = np.arange(4.0)
    np.testing.assert_array_equal(run_module(result.code)["pyramid"](a, 4), run_module(source)["pyramid"](a, 4))
