"""Elements selected from an array by a test of its own elements (ml-from-scratch's
majority vote: ``count = len(y[y == lab])`` with ``y`` of shape ``(n, 1)``): the count, sum or
mean of the selection is that of ``np.ravel(y)``'s, so the rewrite holds for every rank and
checks none; and a tuple of ``len()`` results (``shape = len(board), len(board[0])``) shares
no memory with the array it measures. Each rewrite is checked to happen, then against the
loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def majority(y):
        winner = None
        best = 0
        for lab in np.unique(y):
            count = len(y[y == lab])
            if count > best:
                winner = lab
                best = count
        return winner


    def band_means(x, edges):
        out = np.zeros(len(edges) - 1)
        for b in range(len(edges) - 1):
            sel = x[(x >= edges[b]) & ~(x >= edges[b + 1])]
            out[b] = np.sum(sel) + len(sel)
        return out


    def other_array(x, z, ts):
        out = np.zeros(len(ts))
        for k in range(len(ts)):
            out[k] = len(x[z > ts[k]])
        return out


    def interior(board):
        shape = len(board), len(board[0])
        for x in range(1, shape[0] - 1):
            for y in range(1, shape[1] - 1):
                board[x, y] = board[x, y] * 2.0
        return board


    def held(board, n):
        pair = (board, n)
        for x in range(1, n):
            board[x] = pair[0][x - 1] + 1.0
        return board
    """)


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py")


@pytest.mark.parametrize("name", ["majority", "band_means"])
def test_a_selection_by_its_own_elements_is_batched_flat_for_any_rank(result, name):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    function = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert "np.ravel(" in function
    if name == "majority":
        assert "ndim" not in function  # no rank is assumed of the array selected from


def test_a_selection_by_another_arrays_test_keeps_its_rank(result):
    function = result.code.split("def other_array(")[1].split("\ndef ")[0]
    assert plan_of(result, "other_array").rewritten
    assert "np.ravel(" not in function  # `z`'s shape must be `x`'s: checked, not flattened
    assert "x.shape[:1] == z.shape" in function


def test_a_tuple_of_lengths_shares_no_memory(result):
    plan = plan_of(result, "interior")
    assert plan.rewritten, [r.message for r in plan.remarks]
    held = plan_of(result, "held")
    assert not held.vectorizable
    assert any(r.code == "PF203" for r in held.remarks), [r.message for r in held.remarks]


def test_the_rewrites_compute_what_the_loops_compute(result):
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(8)
    for shape in ((0,), (7,), (9, 1), (3, 4), (2, 3, 2), ()):
        y = rng.integers(0, 3, size=shape).astype(float)
        assert before["majority"](y) == after["majority"](y), shape
        x, edges = rng.standard_normal(shape), np.sort(rng.standard_normal(4))
        np.testing.assert_allclose(after["band_means"](x, edges), before["band_means"](x, edges), rtol=1e-12)
    for y in ([1.0, 2.0, 2.0], [[1.0], [1.0], [3.0]]):  # lists: the loop runs, and raises as written
        for module in (before, after):
            with pytest.raises(TypeError):
                module["majority"](y)
    x, z = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    ts = rng.standard_normal(4)
    np.testing.assert_array_equal(after["other_array"](x, z, ts), before["other_array"](x, z, ts))
    board = rng.standard_normal((5, 4))
    np.testing.assert_array_equal(after["interior"](board.copy()), before["interior"](board.copy()))
