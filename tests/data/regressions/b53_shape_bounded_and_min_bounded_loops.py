import numpy as np

# Wrong rewrites an adversarial tester found in session 16: a loop bounded by `m.shape[0]` checked no `type(m) is np.ndarray` (`m.shape` shows an array, not
# that it is no subclass: a masked array's mask, a matrix's rows were lost), and one bounded by
# `range(min(...))` or a stepped range ran batched with no iteration (a Python int 0 came back as
# np.float64(0.0)). Both are now checked; the trip count by `len(range(...)) > 0`.

def total_shape(m):
    t = 0
    for i in range(m.shape[0]):
        t += m[i]
    return t


def diag_shape(m):
    t = 0
    for i in range(m.shape[0]):
        t += m[i, i]
    return t


def nest_shape(m):
    t = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            t += m[i, j]
    return t


def trace(m):
    t = 0
    for i in range(min(m.shape)):
        t += m[i, i]
    return t


def first_n(x, n):
    t = 0
    for i in range(min(n, len(x))):
        t += x[i]
    return t


def common_dot(x, y):
    t = 0
    for i in range(min(len(x), len(y))):
        t += x[i] * y[i]
    return t


def stepped(x, step):
    s = 0
    for i in range(0, len(x), step):
        s += x[i]
    return s


CALLS = [('total_shape', 'np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0])'),
         ('diag_shape', 'np.ma.masked_array([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 0], [0, 1]])'),
         ('diag_shape', 'np.matrix([[1.0, 2.0], [3.0, 4.0]])'),
         ('nest_shape', 'np.ma.masked_array([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 0], [0, 1]])'),
         ('trace', 'np.zeros((0, 0))'),
         ('trace', 'np.zeros((3, 0), np.int8)'),
         ('trace', 'np.matrix([[1.0, 2.0], [3.0, 4.0]])'),
         ('first_n', 'np.array([1.0, 2.0]), 0'),
         ('common_dot', 'np.zeros(0), np.zeros(3)'),
         ('stepped', 'np.zeros(0), 2')]

REWRITTEN = ('total_shape', 'diag_shape', 'nest_shape', 'trace', 'first_n', 'common_dot', 'stepped')
