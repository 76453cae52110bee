"""NumPy loops whose rewrite needs the ranks of their arguments (a sample for `pforge verify`).

Nothing in the source declares how many axes `x`, `w`, `xs` or `ys` have, so plain
`pforge transpile` rewrites the first four loops for the ranks their code suggests and
checks those at run time (`if np.ndim(xs) == 2 and np.ndim(ys) == 2:`), keeping the loop
for other ranks; `pforge transpile --probe` learns the ranks from `example_inputs()` and
needs no check. `running_max` carries a value from one row to the next and is refused
either way. The tests of `pforge verify` and `pforge bench` run this file.
"""

import numpy as np


def scale_rows(x, w):
    """Squashes each row of x scaled by w.

    Args:
      x: the rows.
      w: one weight per column.

    Returns:
      tanh(x * w) + 1, row by row.
    """
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.tanh(x[i] * w) + 1.0
    return out


def row_norms(x):
    """The Euclidean norm of each row of x.

    Args:
      x: the rows.

    Returns:
      One norm per row.
    """
    norms = []
    for r in x:
        norms.append(np.sqrt(np.sum(r * r)))
    return np.stack(norms)


def pairwise_dots(xs, ys):
    """Every dot product between a row of xs and a row of ys.

    Args:
      xs: the left rows.
      ys: the right rows, as long as those of xs.

    Returns:
      The table of dot products, one row per row of xs.
    """
    out = np.empty((xs.shape[0], ys.shape[0]))
    for a in range(xs.shape[0]):
        for b in range(ys.shape[0]):
            out[a, b] = np.sum(xs[a] * ys[b])
    return out


def weighted_total(x, w):
    """The sum over rows of each row's dot product with w.

    Args:
      x: the rows.
      w: one weight per column.

    Returns:
      The total, a float.
    """
    total = 0.0
    for i in range(x.shape[0]):
        total += np.sum(x[i] * w)
    return total


def running_max(x):
    """A decaying running maximum down the rows of x (a loop-carried value that is no scan:
    never rewritten).

    Args:
      x: the rows.

    Returns:
      Row i holds the elementwise maximum of row i and half of row i - 1's result.
    """
    out = np.empty_like(x)
    best = x[0]
    for i in range(x.shape[0]):
        best = np.maximum(0.5 * best, x[i])
        out[i] = best
    return out


def example_inputs(seed=0):
    """Arguments for each function above, from one seed.

    Args:
      seed: seed of the random rows.

    Returns:
      A dict mapping each function's name to its positional arguments.
    """
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((16, 8))
    w = rng.standard_normal(8)
    return {
        "scale_rows": (x, w),
        "row_norms": (x,),
        "pairwise_dots": (rng.standard_normal((6, 8)), rng.standard_normal((5, 8))),
        "weighted_total": (x, w),
        "running_max": (x,),
    }
