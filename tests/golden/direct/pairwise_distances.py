"""Pairwise Euclidean distances between two point sets, with nested loops.

What it does: for every point ``a[i]`` and every point ``b[j]`` computes
``||a[i] - b[j]||``; each inner loop builds one row of the distance matrix.

Where it shows up: k-nearest-neighbour lookups, RBF kernel matrices,
clustering (k-means assignment), metric-learning losses, and evaluation
scripts that compare embeddings.

Pattern: two nested ``range`` loops with invariant trip counts. The inner
loop appends a scalar to the collector ``row``; the outer loop appends
``tf.stack(row)`` to the collector ``rows``, consumed only by ``tf.stack`` at
the return. ``pairwise_distance_lists`` appends the list ``row`` itself and
converts the list of lists with ``tf.convert_to_tensor`` at the end.

Expected verdict: vectorizable, both levels (map over ``i`` and ``j``,
collectors ``row`` and ``rows``). The result is an ``[n, m]`` matrix computed
by broadcasting ``a[:, None] - b[None, :]``.
"""

import numpy as np
import tensorflow as tf


@tf.function
def pairwise_distances(a, b):
    """Returns the matrix of Euclidean distances between the rows of ``a`` and ``b``.

    Args:
      a: float32 [n, dim].
      b: float32 [m, dim].

    Returns:
      float32 [n, m]; entry ``(i, j)`` is ``||a[i] - b[j]||``.
    """
    # pforge: vectorized loop (was lines 36-40: map over a, collector rows, 1 inner
    #   loop) with batched ops
    tf.debugging.assert_rank(a, 2)
    tf.debugging.assert_rank(b, 2)
    b = tf.convert_to_tensor(b)
    rows = tf.norm(a[:, tf.newaxis] - b[tf.newaxis], axis=-1)
    return rows


@tf.function
def pairwise_distance_lists(a, b):
    """Returns the same matrix, built as a Python list of lists of scalars.

    Args:
      a: float32 [n, dim].
      b: float32 [m, dim].

    Returns:
      float32 [n, m]; entry ``(i, j)`` is ``||a[i] - b[j]||``.
    """
    # pforge: vectorized loop (was lines 55-59: map over a, collector rows, 1 inner
    #   loop) with batched ops
    tf.debugging.assert_rank(a, 2)
    tf.debugging.assert_rank(b, 2)
    b = tf.convert_to_tensor(b)
    rows = tf.norm(a[:, tf.newaxis] - b[tf.newaxis], axis=-1)
    return rows


def reference_pairwise_distance_lists(a, b):
    """Hand-batched equivalent of :func:`pairwise_distance_lists`."""
    return tf.norm(a[:, tf.newaxis, :] - b[tf.newaxis, :, :], axis=-1)


def reference_pairwise_distances(a, b):
    """Hand-batched equivalent of :func:`pairwise_distances`."""
    return tf.norm(a[:, tf.newaxis, :] - b[tf.newaxis, :, :], axis=-1)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    a = tf.constant(rng.standard_normal((64, 16)), tf.float32)
    b = tf.constant(rng.standard_normal((16, 16)), tf.float32)
    return {"pairwise_distances": (a, b), "pairwise_distance_lists": (a, b)}
