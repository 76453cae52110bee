"""Euclidean distances from query points to reference points, one pair at a time (NumPy).

What it does: fills a query-by-reference matrix with the distance between every query
row and every reference row, as the two-loop k-nearest-neighbour classifier of the
CS231n assignment does before it is vectorized by hand.

Where it shows up: k-nearest-neighbour lookups, RBF kernel matrices, k-means
assignment, retrieval and embedding evaluation.

Pattern: two nested ``range`` loops over the rows of ``X`` and ``X_ref`` writing
``D[i, j] = np.sqrt(np.sum(np.square(X[i] - X_ref[j])))`` into a matrix of zeros.

Expected verdict: vectorizable (map over both loops). The direct backend broadcasts
the differences, ``X[:, np.newaxis] - X_ref[np.newaxis]``, which builds an ``(n, m,
dim)`` intermediate; with ``--fast-math`` it writes what the reference writes, the
expansion ``|x|^2 + |y|^2 - 2 x.y`` (two row norms and one matrix product, an unsafe
fix: it loses precision where points are close relative to their norms).
"""

import numpy as np


def distances(X, X_ref):
    """The distance from each query row to each reference row.

    Args:
      X: float64 [n, dim], the query points.
      X_ref: float64 [m, dim], the reference points.
    Returns:
      float64 [n, m]; entry ``(i, j)`` is ``||X[i] - X_ref[j]||`` (units of the points).
    """
    n_q = X.shape[0]
    n_r = X_ref.shape[0]
    D = np.zeros((n_q, n_r))
    # pforge: vectorized loop (was lines 35-37: map over X, indexed output D, 1 inner loop, in
    #   strips of rows (262,144 values at most at once)) with batched ops, where its run-time
    #   checks hold
    if (
        type(X) is np.ndarray
        and type(X_ref) is np.ndarray
        and X.ndim == 2
        and X_ref.ndim == 2
        and n_q > 0
        and n_r > 0
    ):
        i_strip = max(1, 262144 // max(1, n_r * max(np.shape(X)[-1], np.shape(X_ref)[-1])))
        for i_lo in range(0, n_q, i_strip):
            i_hi = min(i_lo + i_strip, n_q)
            D[i_lo:i_hi, :] = np.sqrt(np.sum(np.square(X[i_lo:i_hi, np.newaxis] - X_ref), axis=-1))
    else:
        for i in range(n_q):
            for j in range(n_r):
                D[i, j] = np.sqrt(np.sum(np.square(X[i] - X_ref[j])))
    return D


def reference_distances(X, X_ref):
    """Hand-batched equivalent of :func:`distances` (CS231n's "no loops" version)."""
    squared = np.sum(X ** 2, axis=1)[:, np.newaxis] + np.sum(X_ref ** 2, axis=1) - 2 * X @ X_ref.T
    return np.sqrt(np.maximum(squared, 0))


def example_inputs(seed=0, queries=100, refs=200, dim=32):
    """Standard normal points: ``queries`` and ``refs`` rows of ``dim`` features."""
    rng = np.random.default_rng(seed)
    return {"distances": (rng.standard_normal((queries, dim)), rng.standard_normal((refs, dim)))}
