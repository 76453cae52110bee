import numpy as np

# A second adversary's wrong results and verdicts: arrays that share memory with a fresh local
# through a binding pforge cannot follow (`if c: v = buf`, `v = buf; v += 0`, an `out` given by
# position, `np.array(buf, copy=False)`) were taken for separate arrays; a scalar check
# accepted `None`, a slice or `...` (whose `np.ndim` is 0 too) as a number.


def alias_under_if(x, c):
    buf = np.zeros(len(x) + 1)
    v = np.zeros(len(x) + 1)
    if c:
        v = buf
    for i in range(len(x)):
        v[i + 1] = buf[i] + x[i]
    return v


def alias_updated_in_place(x):
    buf = np.zeros(len(x) + 1)
    v = buf
    v += 0
    for i in range(len(x)):
        v[i + 1] = buf[i] + x[i]
    return v


def alias_through_out(x):
    buf = np.zeros(len(x) + 1)
    v = np.add(buf, 0, buf)
    for i in range(len(x)):
        v[i + 1] = buf[i] + x[i]
    return v


def row_of_means(X, means, c):
    out = np.zeros(len(X))
    for i in range(len(X)):
        x = X[i]
        d = x - means[c, :]
        out[i] = np.sum(d * d)
    return out


CALLS = [("alias_under_if", "np.ones(4), True"), ("alias_under_if", "np.ones(4), False"),
         ("alias_updated_in_place", "np.ones(4)"), ("alias_through_out", "np.ones(4)"),
         ("row_of_means", "np.arange(6.0).reshape(2, 3), np.ones((2, 3)), 0"),
         ("row_of_means", "np.arange(6.0).reshape(2, 3), np.ones((2, 3)), None"),
         ("row_of_means", "np.arange(6.0).reshape(2, 3), np.ones((2, 3)), slice(None)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("row_of_means",)


def sum_at_indices(x, idx):
    """Args:
      x: [m].
      idx: [n].
    """
    # `x[idx[i]]` with a bool `idx` indexes with a NumPy bool (`x[np.True_]` is all of `x`, with
    # an axis more); batched, the bools were a mask: integer indices are checked at run time
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        out[i] = np.sum(x[idx[i]])
    return out


CALLS += [("sum_at_indices", "np.arange(5.0), np.array([True, False, True])"),
          ("sum_at_indices", "np.arange(5.0), np.array([4, 0, 2])")]
REWRITTEN += ("sum_at_indices",)
