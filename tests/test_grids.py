"""A grid of Python numbers, a list of lists the loop writes element by element (from-python-
to-numpy's Game of Life: ``board[x][y] = 0`` where ``counts[x][y] > 3``): batched on an array
copy, and its numbers written back into the same row lists, where the checks show that the
copy holds them exactly and that no row is repeated or read through another argument. Each
rewrite is checked to happen, then against the loop on the inputs that break each check."""

from __future__ import annotations

import copy
import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

SOURCE = textwrap.dedent("""\
    import math

    import numpy as np


    def life(board, counts):
        shape = len(board), len(board[0])
        for x in range(1, shape[0] - 1):
            for y in range(1, shape[1] - 1):
                if board[x][y] == 1 and (counts[x][y] < 2 or counts[x][y] > 3):
                    board[x][y] = 0
                elif board[x][y] == 0 and counts[x][y] == 3:
                    board[x][y] = 1
        return board


    def clip_low(grid, low):
        n, m = len(grid), len(grid[0])
        for i in range(n):
            for j in range(m):
                if grid[i][j] < low:
                    grid[i][j] = 0.0
        return grid


    def spread(board, src):
        n, m = len(board), len(board[0])
        for x in range(n):
            for y in range(1, m):
                if src[x][y - 1] == 1:
                    board[x][y] = 1
        return board


    def rooted(board):
        n, m = len(board), len(board[0])
        for x in range(n):
            for y in range(m):
                if math.sqrt(board[x][y]) > 1:
                    board[x][y] = 0.0
        return board


    def add_one(board):
        for x in range(len(board)):
            for y in range(len(board[0])):
                board[x][y] += 1
        return board
    """)


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py")


@pytest.mark.parametrize("name", ["life", "clip_low", "spread"])
def test_a_grid_written_by_element_is_rewritten(result, name):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    function = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert "np.array(" in function and ".tolist()" in function  # the copy, and the numbers put back


def test_a_grid_updated_by_arithmetic_stays_a_loop(result):
    """`board[x][y] += 1`: Python's ints never wrap, an int64 copy's do."""
    function = result.code.split("def add_one(")[1]
    assert ".tolist()" not in function


class _Copies:
    """NumPy for the rewritten module, counting the grids copied into arrays (``np.array``):
    whether the batched code ran or the loop did."""

    def __init__(self):
        self.copies = 0

    def __getattr__(self, name):
        return getattr(np, name)

    def array(self, *args, **kwargs):
        self.copies += 1
        return np.array(*args, **kwargs)


def _spied(code):
    module = run_module(code)
    module["np"] = _Copies()
    return module


def test_a_grid_the_loop_may_raise_on_runs_the_loop(result):
    """`math.sqrt(-1.0)` raises where `np.sqrt` gives nan: a list is no grid there (as a flat
    list of floats is not converted), so the loop runs, and raises, as written."""
    before, after = run_module(SOURCE), _spied(result.code)
    for module in (before, after):
        with pytest.raises(ValueError):
            module["rooted"]([[-1.0, 4.0]])
    assert after["np"].copies == 0
    board = np.array([[-1.0, 4.0]])
    with np.errstate(invalid="ignore"):
        after["rooted"](board)  # an array computes as the batched code does: nan, no error
    np.testing.assert_array_equal(board, [[-1.0, 0.0]])


def _board(rng, n=6, m=7):
    board = (rng.random((n, m)) < 0.4).astype(int).tolist()
    counts = rng.integers(0, 6, size=(n, m)).tolist()
    return board, counts


def _same_lists(want, got):
    assert type(got) is type(want) and len(got) == len(want)
    for a, b in zip(want, got):
        assert type(b) is type(a) and b == a and [type(v) for v in b] == [type(v) for v in a]


def test_the_rewrites_compute_what_the_loops_compute(result):
    before, after = run_module(SOURCE), _spied(result.code)
    rng = np.random.default_rng(5)
    for n, m in ((6, 7), (3, 3), (2, 5), (1, 4)):
        board, counts = _board(rng, n, m)
        want_board, got_board = copy.deepcopy(board), copy.deepcopy(board)
        rows = list(got_board)
        before["life"](want_board, counts)
        after["np"].copies = 0
        assert after["life"](got_board, counts) is got_board
        _same_lists(want_board, got_board)
        assert all(a is b for a, b in zip(rows, got_board))  # the same row lists, written in place
        assert after["np"].copies == (n > 2)  # batched (where the loop runs at all)
        as_array = np.array(board)
        before["life"](want := as_array.copy(), np.array(counts))
        after["life"](as_array, np.array(counts))  # an array is written in place, as before
        np.testing.assert_array_equal(as_array, want)
    grid = rng.standard_normal((4, 5)).tolist()
    want, got = copy.deepcopy(grid), copy.deepcopy(grid)
    before["clip_low"](want, 0.1)
    after["clip_low"](got, 0.1)
    _same_lists(want, got)
    board, _ = _board(rng)
    want, got = copy.deepcopy(board), copy.deepcopy(board)
    before["spread"](want, copy.deepcopy(board))
    copies = after["np"].copies
    after["spread"](got, copy.deepcopy(board))
    _same_lists(want, got)
    assert after["np"].copies == copies + 1
    before["spread"](want, want)  # the board read as it is written: each 1 spreads along its row
    after["spread"](got, got)
    _same_lists(want, got)
    assert after["np"].copies == copies + 1  # (the loop ran)


@pytest.mark.parametrize("why", ["a repeated row", "a bool", "a float in an int board", "an int past 2**53",
                                 "ragged rows", "tuple rows", "counts is the board", "counts holds a row"])
def test_inputs_the_copy_would_change_run_the_loop(result, why):
    before, after = run_module(SOURCE), _spied(result.code)
    board, counts = _board(np.random.default_rng(2))
    if why == "a repeated row":
        board = [[0, 1, 1, 0, 1, 0, 0]] * 6
    elif why == "a bool":
        board[2][3] = True
    elif why == "a float in an int board":
        board[1][1] = 1.0
    elif why == "an int past 2**53":
        board[0][0] = 2 ** 60 + 1
    elif why == "ragged rows":
        board[-1].append(0)
    elif why == "tuple rows":
        board = [tuple(r) for r in board]
    elif why == "counts is the board":
        counts = board
    elif why == "counts holds a row":
        counts = [list(r) for r in counts]
        counts[3] = board[3]

    def run(module):
        b = copy.deepcopy(board) if why not in ("a repeated row", "counts is the board", "counts holds a row") else board
        c = b if why == "counts is the board" else counts
        if why == "counts holds a row":
            b = copy.deepcopy(board)
            c = list(counts)
            c[3] = b[3]
        if why == "a repeated row":
            b = [list(board[0])] * len(board)
        try:
            return "value", module["life"](b, c)
        except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
            return "raised", type(exc).__name__

    want, got = run(before), run(after)
    assert after["np"].copies == 0  # the checks sent it to the loop
    assert want[0] == got[0], (want, got)
    if want[0] == "value":
        _same_lists(want[1], got[1])
    else:
        assert want == got
