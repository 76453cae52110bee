import numpy as np

# helper-69 (session 40): a local bound to a parameter (`x = a`) that the batched code reads as it
# is (`x != 0.5`, `x == y`, `-x`, `x * y[:n]`), where the check accepted it as a list of numbers:
# a list there is one bool (out filled with it, a count of 1 where the loop counts 2), raises
# (`-x`), or meets a float32 array in float64. A name the batched code reads other than
# through np.asarray, len, np.shape or np.ndim must be an array (versioning._read_raw); a
# parameter itself is converted where it may be a list.

REWRITTEN = ["ne", "eq", "count", "biggest", "neg", "dot"]


def ne(a):
    out = np.zeros(len(a))
    x = a
    for i in range(len(x)):
        out[i] = x[i] != 0.5
    return out


def eq(a, b):
    out = np.zeros(len(a))
    x = a
    y = b
    for i in range(len(x)):
        out[i] = x[i] == y[i]
    return out


def count(a):
    c = 0
    x = a
    for i in range(len(x)):
        if x[i] != 0.5:
            c += 1
    return c


def biggest(a, b):
    out = np.zeros(len(a))
    x = a
    y = b
    for i in range(len(x)):
        out[i] = max(x[i], y[i])
    return out


def neg(a):
    out = np.zeros(len(a))
    x = a
    for i in range(len(x)):
        out[i] = -x[i] * 3
    return out


def dot(a, b):
    s = 0.0
    x = a
    y = b
    for i in range(len(x)):
        s += x[i] * y[i]
    return s


CALLS = [
    ("ne", "[0.5, 1.0, 2.0]"),
    ("ne", "np.array([0.5, 1.0, 2.0])"),
    ("eq", "[0.5, 1, 2], [0.5, 3, 1]"),
    ("count", "[0.5, 1.0, 2.0]"),
    ("count", "np.array([0.5, 1.0, 2.0])"),
    ("biggest", "[0.5, 1, 2], [0.5, 3, 1]"),
    ("neg", "[0.5, 1.0]"),
    ("dot", "np.array([0.1, 0.2], np.float32), [0.3, 0.4]"),
    ("dot", "[0.1, 0.2], [0.3, 0.4]"),
]
