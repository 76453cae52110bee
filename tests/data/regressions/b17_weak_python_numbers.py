import math

import numpy as np

# A loop index is a Python int, and a Python number meeting a NumPy value takes its dtype
# (NEP 50): the batched index, an int64 array, widened float32, uint8 and float16 results,
# in arithmetic and in NumPy's elementwise functions; so are the Python floats `math` returns.


def index_weighted(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] * i)
    return np.array(out)


def half_steps(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] + i / 2)
    return np.array(out)


def scaled_rows(x, w):
    out = []
    for i in range(x.shape[0]):
        out.append(w * (i + 1))
    return np.array(out)


def floored_at_index(x):
    out = []
    for i in range(len(x)):
        out.append(np.maximum(x[i], i) + np.minimum(i * 0.5, x[i]))
    return np.array(out)


def minus_sines(x, y):
    s = 0.0
    for i in range(len(x)):
        s += -y[i] - math.sin(x[i])
    return s


def ramps(x):
    out = []
    for i in range(len(x) - 2):
        out.append(np.linspace(x[i + 2] + x[i], i, 3))
    return np.stack(out, axis=-1)


def negated_index(x):
    out = []
    for i in range(2, len(x)):
        out.append(-i - x[i])
    return np.array(out)


def negated_parity(x):
    # `-(i % 2 == 0)` is the int -1 or 0; a NumPy bool array refuses `-`: left as a loop
    out = []
    for i in range(len(x)):
        out.append(x[i] * -(i % 2 == 0))
    return np.array(out)


CALLS = [("negated_index", "np.arange(5, dtype=np.float32)"), ("negated_index", "np.arange(5, dtype=np.int8)"),
         ("negated_parity", "np.arange(4, dtype=np.float32)"),
         ("minus_sines", "np.arange(3, dtype=np.float32), np.ones(3, np.float32)"),
         ("ramps", "np.arange(5, dtype=np.float32)"),("floored_at_index", "np.arange(4, dtype=np.float32) - 1"),
         ("floored_at_index", "np.arange(4, dtype=np.int16)"),("index_weighted", "np.arange(4, dtype=np.float32)"),
         ("index_weighted", "np.arange(4, dtype=np.uint8) * 100"),
         ("index_weighted", "np.array([True, False, True])"),
         ("index_weighted", "np.ones(3, np.complex64)"),
         ("index_weighted", "np.arange(3.0)"),
         ("half_steps", "np.arange(4, dtype=np.float16)"),
         ("half_steps", "np.arange(4, dtype=np.int8)"),
         ("scaled_rows", "np.zeros((3, 2)), np.ones(2, np.float32)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('floored_at_index', 'half_steps', 'index_weighted', 'minus_sines', 'negated_index', 'ramps',
             'scaled_rows')
