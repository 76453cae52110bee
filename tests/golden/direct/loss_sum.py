"""Sum of per-example squared-error losses.

What it does: accumulates the squared error between each prediction row and
its target row into one scalar total.

Where it shows up: custom training and evaluation loops that compute a loss
example by example, metric accumulation in evaluation scripts, and code
ported from per-sample NumPy implementations.

Pattern: ``for i in range(n)`` with an accumulator ``total`` initialised to
``tf.constant(0.0)`` before the loop and updated only by ``total += e`` (a
sum reduction); ``total`` is returned after the loop.

Expected verdict: vectorizable as a sum reduction (``total`` becomes
``total + tf.reduce_sum(E, axis=0)``). Float addition is reassociated, so the
batched total may differ from the loop in the last bits; the remark notes
this.
"""

import numpy as np
import tensorflow as tf


@tf.function
def squared_error_total(pred, target):
    """Returns the summed squared error over all examples.

    Args:
      pred: float32 [batch, outputs].
      target: float32 [batch, outputs].

    Returns:
      float32 scalar.
    """
    n = pred.shape[0]
    total = tf.constant(0.0)
    # pforge: vectorized loop (was lines 36-37: map over pred, target, add
    #   reduction total) with batched ops
    tf.debugging.assert_rank(pred, 2)
    tf.debugging.assert_rank(target, 2)
    tf.debugging.assert_less_equal(
        n, tf.shape(target)[0], message="index out of range of target"
    )
    total += tf.reduce_sum(tf.square(pred - target[:n]))
    return total


def reference_squared_error_total(pred, target):
    """Hand-batched equivalent of :func:`squared_error_total`."""
    return tf.reduce_sum(tf.square(pred - target))


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    pred = tf.constant(rng.standard_normal((512, 32)), tf.float32)
    target = tf.constant(rng.standard_normal((512, 32)), tf.float32)
    return {"squared_error_total": (pred, target)}
