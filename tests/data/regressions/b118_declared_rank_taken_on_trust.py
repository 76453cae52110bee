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
