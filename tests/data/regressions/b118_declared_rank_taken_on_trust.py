import numpy as np

# session 42: a rank a docstring or `--shapes` declared was taken on trust, with no check in
# front of the batched code. A docstring that is out of date, or a caller that passes a batch
# of what it documents, then got a silent wrong result: `res.append(np.sum(r))` over the rows
# of a 3-D `xs` became `np.sum(xs, axis=-1)`, an `(n, d)` array where the loop gives `(n,)`.
# So too through a local computed from the declared value (`h = w`). A declared rank is now
# checked (`np.ndim(xs) == 2`), widened to every rank the batched code is the same for.

REWRITTEN = ["row_sums", "weighted", "running_max"]


def row_sums(xs):
    """Row sums.

    Args:
      xs: float64 array [n, d], the rows.
    """
    res = []
    for r in xs:
        res.append(np.sum(r))
    return np.array(res)


def weighted(x, w):
    """Weighted sums of rows.

    Args:
      x: float64 [n, d], the rows.
      w: float64 [d], the weights.
    """
    h = w
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i] * h)
    return out


def running_max(levels):
    """The running maximum.

    Args:
      levels: float64 [steps], the levels.
    """
    level = levels.copy()
    for i in range(1, len(level)):
        level[i] = np.maximum(level[i - 1], level[i])
    return level


CALLS = [
    ("row_sums", "np.arange(6.0).reshape(3, 2)"),
    ("row_sums", "np.arange(24.0).reshape(2, 3, 4)"),
    ("weighted", "np.arange(6.0).reshape(3, 2), np.array([0.5, -1.0])"),
    ("weighted", "np.arange(6.0).reshape(3, 2), 2.0"),
    ("weighted", "np.arange(6.0).reshape(3, 2), np.arange(6.0).reshape(3, 2)"),
    ("running_max", "np.array([1.0, 3.0, 2.0, 5.0])"),
    ("running_max", "np.array([[1.0, 3.0], [2.0, 1.0], [0.0, 4.0]])"),
]


# helper-72 (session 42), on the first version of the check: a comprehension got none; a
# declared parameter bound again before the loop (`w = np.asarray(w)`, or `h = w` then
# `w = None`) lost its check while the local kept the declared rank; a `range(n)` under an
# `if` or in a nested function "proved" `n` a number; `[n]` declared for two arrays dropped
# their length check; `np.matrix` passed `np.ndim(x) == 2`, its rows matrices.

REWRITTEN += ["row_sums_listed", "rebound", "rebound_source", "scaled_unless_verbose", "dot", "matrix_rows"]


def row_sums_listed(xs):
    """Row sums.

    Args:
      xs: float64 array [n, d], the rows.
    """
    return np.array([np.sum(r) for r in xs])


def rebound(x, w):
    """Args:
      x: float64 [n, d], rows.
      w: float64 [d], weights.
    """
    w = np.asarray(w)
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i] * w)
    return out


def rebound_source(x, w):
    """Args:
      x: float64 [n, d], rows.
      w: float64 [d], weights.
    """
    h = w
    w = None
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i] * h)
    return out


def scaled_unless_verbose(x, n, verbose=False):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * n
    if verbose:
        for j in range(n):
            print(j)
    return s


def dot(x, w):
    """Dot.

    Args:
      x: float64 [n], values.
      w: float64 [n], weights.
    """
    s = 0.0
    for a, b in zip(x, w):
        s += a * b
    return s


def matrix_rows(x, w):
    """Args:
      x: float64 [n, d], rows.
      w: float64 [d, k], weights.
    """
    res = []
    for i in range(len(x)):
        res.append(x[i] @ w)
    return np.array(res)


CALLS += [
    ("row_sums_listed", "np.ones((3, 2, 2))"),
    ("row_sums_listed", "np.arange(6.0).reshape(3, 2)"),
    ("rebound", "np.arange(6.0).reshape(3, 2), np.ones((3, 2))"),
    ("rebound", "np.arange(6.0).reshape(3, 2), np.ones(2)"),
    ("rebound_source", "np.arange(6.0).reshape(3, 2), np.ones((3, 2))"),
    ("rebound_source", "np.arange(6.0).reshape(3, 2), np.ones(2)"),
    ("scaled_unless_verbose", "np.arange(4.0), np.arange(1.0, 5.0)"),
    ("scaled_unless_verbose", "np.arange(4.0), 3"),
    ("dot", "np.ones(1), np.arange(4.0)"),
    ("dot", "np.ones(3), np.arange(4.0)"),
    ("dot", "np.ones(4), np.arange(4.0)"),
    ("matrix_rows", "np.matrix(np.arange(6.0).reshape(3, 2)), np.ones((2, 1))"),
    ("matrix_rows", "np.arange(6.0).reshape(3, 2), np.ones((2, 1))"),
]
