"""Scaled tanh of each row, written through a tf.TensorArray.

What it does: squashes every row of ``x`` with ``tanh`` and multiplies it by
a scale, writing row ``i`` of the result at index ``i`` of a
``tf.TensorArray``.

Where it shows up: code written in the ``tf.while_loop`` style of TensorFlow
1.x (TensorArray writes are how graph loops collect outputs), and functions
meant to run under ``tf.function`` where a Python list would not work.

Pattern: ``for i in range(n)`` with ``ta = ta.write(i, e)``, an indexed
output whose index is the induction variable itself; ``ta.stack()`` is
returned after the loop. ``scale`` is a loop invariant.

Expected verdict: vectorizable (indexed output ``ta`` written at ``i`` for
every ``i`` in ``[0, n)``, so the whole array is the batched result).
"""

import numpy as np
import tensorflow as tf


@tf.function
def scaled_tanh_rows(x, scale):
    """Returns ``tanh(x[i]) * scale`` for every row, stacked.

    Args:
      x: float32 [batch, features].
      scale: float32 scalar.

    Returns:
      float32 [batch, features].
    """
    n = x.shape[0]
    # pforge: vectorized loop (was lines 35-36: map over x, TensorArray ta)
    #   with batched ops
    tf.debugging.assert_rank(scale, 0)
    tf.debugging.assert_rank(x, 2)
    ta = tf.tanh(x) * scale
    return ta


def reference_scaled_tanh_rows(x, scale):
    """Hand-batched equivalent of :func:`scaled_tanh_rows`."""
    return tf.tanh(x) * scale


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal((512, 64)), tf.float32)
    scale = tf.constant(1.7159, tf.float32)
    return {"scaled_tanh_rows": (x, scale)}
