import math

import numpy as np

# Adversary helper-34's findings in session 18's grids (lists of lists written element by
# element) and selections by an array's own elements, and two older classes they reached:
# an int constant past int64 written into an int grid wrapped in the array copy; a float grid
# summed (`s += board[x][y]`) gave NumPy's float, added in NumPy's order; a list subclass
# with its own `__getitem__` was read through `np.array`; an object array's `where=` sum has
# no identity; a check of a str array's dtype raised; and a list comprehension of an array's
# rows (`old = [r for r in board]`), views, was taken for fresh memory.

class Reversed(list):
    def __getitem__(self, i):
        return list.__getitem__(self, len(self) - 1 - i) if isinstance(i, int) else list.__getitem__(self, i)


def big_constant(board):
    n, m = len(board), len(board[0])
    for x in range(n):
        for y in range(m):
            if board[x][y] == 1:
                board[x][y] = 9223372036854775808
    return board


def summed(board):
    n, m = len(board), len(board[0])
    s = 0.0
    for x in range(n):
        for y in range(m):
            s += board[x][y]
            if board[x][y] > 1:
                board[x][y] = 0.0
    return s, board


def cleared(board, counts):
    n, m = len(board), len(board[0])
    for x in range(n):
        for y in range(m):
            if counts[x][y] > 3:
                board[x][y] = 0
    return [list(r) for r in board]


def above(x, ts):
    out = np.zeros(len(ts))
    for i in range(len(ts)):
        out[i] = np.sum(x[x > ts[i]])
    return out


def counts_of(y, labels):
    out = []
    for lab in labels:
        out.append(len(y[y == lab]))
    return out


def spread_down(board):
    old = [r for r in board]
    n, m = len(board), len(board[0])
    for x in range(1, n):
        for y in range(m):
            if old[x - 1][y] == 1:
                board[x][y] = 1
    return board


CALLS = [('big_constant', '[[1, 0]]'),
         ('summed', '[[0.5, 0.5], [2.0, 0.25]]'),
         ('summed', '[[1e16, 1.0, -1e16, 1.0, 0.0, 0.0, 0.0, 0.0]]'),
         ('cleared', 'Reversed([[1, 1], [1, 1]]), [[5, 0], [0, 0]]'),
         ('cleared', '[[1, 1], [1, 1]], [[5, 0], [0, 0]]'),
         ('above', 'np.array([1, 2, 3], dtype=object), np.array([1])'),
         ('above', 'np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([0.0, 1.5])'),
         ('counts_of', "np.array(['a', 'b']), [1.5]"),
         ('counts_of', 'np.array([1.0, 2.0, 2.0]), [2.0, 3.0]'),
         ('spread_down', 'np.array([[1], [0], [0]])')]

REWRITTEN = ('big_constant', 'summed', 'cleared', 'above', 'counts_of')
