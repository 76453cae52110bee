"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/game_of_life_python.py (function `iterate`, lines 18-28)
Project: rougier/from-python-to-numpy
Description: applies the Game of Life birth and death rules in place to every interior cell, given precomputed neighbour counts.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each cell reads its own state and its precomputed count and writes only itself; the counts were computed before the loop",
}


def original(board, counts):
    shape = len(board), len(board[0])

    for x in range(1, shape[0]-1):
        for y in range(1, shape[1]-1):
            if board[x][y] == 1 and (counts[x][y] < 2 or counts[x][y] > 3):
                board[x][y] = 0
            elif board[x][y] == 0 and counts[x][y] == 3:
                board[x][y] = 1
    return board


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = 8
    board = (rng.random((n, n)) < 0.4).astype(int)
    board[0, :] = board[-1, :] = board[:, 0] = board[:, -1] = 0
    counts = np.zeros((n, n), dtype=int)
    counts[1:-1, 1:-1] = sum(board[1+dx:n-1+dx, 1+dy:n-1+dy]
                             for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                             if (dx, dy) != (0, 0))
    return (board.tolist(), counts.tolist())
