import numpy as np

# `i + c` is a Python number on every iteration when the argument `c` is one (then weak: it
# takes a float32 array's dtype, NEP 50) and a NumPy scalar when `c` is one (strong): only the
# run knows which, so the batched code casts with `np.result_type(x, 0 * c)` (fuzz seed
# 3300288: a Python float `c` gave float64 where the loop gave float32). A list of the
# loop's NumPy scalars is rebuilt as one only from arrays (seed 3200621).


def shifted_sum(x, c):
    s = 0.0
    for i in range(len(x)):
        s += (i + c) - x[i]
    return s


def scaled(x, c, d):
    out = []
    for i in range(len(x)):
        out.append(x[i] * ((i / c) * d))
    return np.array(out)


def kept_sums(x, y):
    out = []
    for i in range(len(x)):
        if y[i] >= -0.5:
            out.append(-(x[i] + y[i]))
    return out


CALLS = [("shifted_sum", "np.arange(5, dtype=np.float32), 1.5"),
         ("shifted_sum", "np.arange(5, dtype=np.float32), np.float64(1.5)"),
         ("shifted_sum", "np.arange(5, dtype=np.float32), np.int8(2)"),
         ("scaled", "np.arange(4, dtype=np.float32), 2, 3"),
         ("scaled", "np.arange(4, dtype=np.float32), np.int8(2), 3"),
         ("scaled", "np.arange(4, dtype=np.float16), 0.5, np.float32(2.0)"),
         ("kept_sums", "[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]"),
         ("kept_sums", "np.array([1.0, 2.0, 3.0], np.float32), np.array([0.5, -1.0, 2.0], np.float32)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('kept_sums', 'scaled', 'shifted_sum')
