import numpy as np

# helper-61 (session 35) broke three of that session's rewrites:
# - a wrap-around start that is `E` of the iteration before the first (`prev = x[-1]`) is read
#   as `x[i - 1]` throughout; but `x, prev = y, x[-1]` binds the start of the array bound
#   before (the statement rebinds `x`), and `prev = x[a - 1]` before `range(a, b)` of a NumPy
#   uint8 `a = 0` is `x[255]` where `i - 1` of an int64 index is -1. Now the statement must not
#   bind what the start reads, and the range must start and step by literals;
# - an int64 check implied by a larger one was dropped, but each term's check had kept the sum's
#   from running where it raises: `(abs(n) + abs(c)) ** 2` of a float `c = 1e200` is an
#   OverflowError, and so is a Python int past int64 plus a NumPy int. No check is dropped;
# - `out[...]` for a loop over every row of an array made as long (`np.zeros(len(x))`) read the
#   length before `x.pop()`, `del x[-1]`, `x[:] = x[1:]` or `out.resize(...)`: now both arrays
#   must keep their shapes up to the loop.


def start_of_rebound(x, y):
    out = np.zeros(len(x))
    x, prev = y, x[-1]
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out


def centred_shoelace(pts):
    x, y = pts[:, 0], pts[:, 1]
    area = 0.0
    xp, yp, x = x[-1], y[-1], x - x.mean()
    for i in range(len(x)):
        area += xp * y[i] - x[i] * yp
        xp, yp = x[i], y[i]
    return area / 2


def offset_start(x, a, b):
    out = np.zeros(len(x))
    prev = x[a - 1]
    for i in range(a, b):
        out[i] = x[i] - prev
        prev = x[i]
    return out


def quadratic(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        if x[i] > 0:
            out[i] = 3 * (i - c) ** 2 + 2 * (i - c) + 1
    return out


def mixed_ints(n, c, d):
    s = 0
    for i in range(n):
        s += (i - c) + (d - i)
    return s


def popped(x):
    out = np.zeros(len(x))
    x.pop()
    for i in range(len(x)):
        out[i] = x[i] * 2.0
    return out


def deleted(x):
    out = np.zeros(len(x))
    del x[-1]
    for i in range(len(x)):
        out[i] = x[i] * 2.0
    return out


def outer_of_popped(x, y):
    out = np.zeros((len(x), len(y)))
    y.pop()
    for i in range(len(x)):
        for j in range(len(y)):
            out[i, j] = x[i] * y[j]
    return out


def resized(x, y):
    out = np.zeros((len(x), len(y)))
    out.resize((len(x) + 1, len(y)), refcheck=False)
    for i in range(len(x)):
        for j in range(len(y)):
            out[i, j] = x[i] * y[j]
    return out


CALLS = [('start_of_rebound', 'np.array([1.0, 2.0]), np.array([3.0, 4.0])'),
         ('centred_shoelace', 'np.array([[1.0, 1.0], [3.0, 1.0], [1.0, 3.0]])'),
         ('offset_start', 'np.arange(300.0), np.uint8(0), 3'),
         ('offset_start', 'np.arange(10.0), 2, 8'),
         ('quadratic', 'np.array([-1.0, -2.0]), 1e200'),
         ('quadratic', 'np.array([]), 1e200'),
         ('quadratic', 'np.array([1.0, -2.0, 3.0]), 2'),
         ('mixed_ints', '3, 2 ** 63, np.int64(5)'),
         ('mixed_ints', '4, 7, 9'),
         ('popped', '[1.0, 2.0]'),
         ('popped', '[1.0, 2.0, 3.0]'),
         ('deleted', '[1.0, 2.0, 3.0]'),
         ('outer_of_popped', 'np.array([1.0, 2.0]), [3.0, 4.0]'),
         ('outer_of_popped', 'np.array([1.0, 2.0]), [3.0, 4.0, 5.0]'),
         ('resized', 'np.array([1.0]), np.array([3.0, 4.0])'),
         ('resized', 'np.array([1.0, 2.0]), np.array([3.0, 4.0])')]

REWRITTEN = ('start_of_rebound', 'centred_shoelace', 'offset_start', 'quadratic', 'mixed_ints', 'popped', 'deleted',
             'outer_of_popped', 'resized')
