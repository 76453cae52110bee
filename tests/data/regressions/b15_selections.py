import numpy as np


def means_above(x, ts):
    out = np.zeros(len(ts))
    for i in range(len(ts)):
        out[i] = np.mean(x[x > ts[i]])
    return out


def total_mean(x, ts):
    tot = 0.0
    for t in ts:
        tot += np.mean(x[x > t])
    return tot


def count_below(x, ts):
    n = 0
    for t in ts:
        n += len(x[x < t])
    return n


def sums_where(x, y, ts):
    out = np.zeros(len(ts))
    for i in range(len(ts)):
        out[i] = np.sum(x[y > ts[i]])
    return out


CALLS = [("means_above", "np.full(6, 1_700_000_000_000_000_000), np.array([0])"),
         ("total_mean", "np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([0.0])"),
         ("count_below", "np.array([1.0, 2.0, 3.0]), np.array([0, 2, 5])"),
         ("sums_where", "np.array([5.0]), np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.5])"),
         ("sums_where", "np.array([5.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.5])")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('count_below', 'means_above', 'sums_where', 'total_mean')
