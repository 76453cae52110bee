"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/game_of_life_python.py (function `compute_neighbours`, lines 7-15)
Project: rougier/from-python-to-numpy
Description: counts the live neighbours of every interior cell of a Game of Life board stored as nested Python lists.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each interior cell's count reads only the input board and writes its own slot of a preallocated grid",
}


def original(board):
    shape = len(board), len(board[0])
    counts = [[0, ]*(shape[0]) for i in range(shape[1])]
    for x in range(1, shape[0]-1):
        for y in range(1, shape[1]-1):
            counts[x][y] = board[x-1][y-1]+board[x][y-1]+board[x+1][y-1] \
                    + board[x-1][y]            +board[x+1][y]   \
                    + board[x-1][y+1]+board[x][y+1]+board[x+1][y+1]
    return counts


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = 8
    board = (rng.random((n, n)) < 0.4).astype(int)
    board[0, :] = board[-1, :] = board[:, 0] = board[:, -1] = 0
    return (board.tolist(),)
