import numpy as np


def even_means(x, n):
    out = np.zeros(n)
    for i in range(0, n, 2):
        out[i] = np.mean(x[i])
    return out


def diffs(c, n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = (c[i + 1] - c[i]) * 3
    return out


def first_best(x):
    hi = x[0]
    at = 0
    for t in range(1, len(x)):
        if x[t] > hi:
            hi = x[t]
            at = t
    return hi, at


def win_means(x, lo, hi):
    out = np.zeros(len(lo))
    for i in range(len(lo)):
        out[i] = np.mean(x[lo[i]:hi[i]])
    return out


def add_prev(out, x):
    for i in range(len(x)):
        out[i] = x[i] + x[i - 1]
    return out


def call_add_prev_on_itself(a):
    return add_prev(a, a)


def fill_in_order(w, k, c):
    bank = np.zeros((w.shape[0], len(k)))
    for m in range(w.shape[0]):
        sel = np.where(k < c[m])
        bank[m, sel] = w[m]
    return bank


def cubes(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] ** 3
    return out


def reciprocals(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] ** -1
    return out


CALLS = [("cubes", "[2 ** 22, 1]"), ("reciprocals", "[2, 4]"),
         ("fill_in_order", "np.arange(4.0).reshape(2, 2), np.arange(4.0), np.array([2.0, 2.0])"),
         ("even_means", "np.arange(8.0), 8"), ("even_means", "np.arange(8.0).reshape(4, 2), 4"),
         ("diffs", "[0.0, np.float16(3.3), 1000.1], 2"),
         ("first_best", "[-1.0, 0.1, np.float32(0.1)]"),
         ("win_means", "np.ma.masked_greater(np.arange(6.0), 3.0), np.array([0, 2]), np.array([3, 6])"),
         ("call_add_prev_on_itself", "np.array([5.0, 1.0, 2.0, 3.0, 4.0, 5.0])")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
#: fill_in_order: the masked write stores a row at each selected position, not one number
REWRITTEN = ('add_prev', 'cubes', 'diffs', 'even_means', 'first_best', 'reciprocals', 'win_means')
