"""Per-example dense layer with ReLU (auto-batching).

What it does: applies one fully connected layer followed by a ReLU to every
example of a batch, one example at a time.

Where it shows up: model code first written for a single example (a serving
handler, a research prototype, a port from a per-sample framework) and then
called on a whole batch by looping over its rows.

Pattern: ``for i in range(x.shape[0])`` with a private ``h`` and a list
collector ``outs`` consumed only by ``tf.stack`` at the return; ``w`` and
``b`` are loop invariants.

Expected verdict: vectorizable (map over the rows of ``x``, collector
``outs``). The direct backend turns the per-row ``matvec`` into a single
``tf.linalg.matmul(x, w)``.
"""

import numpy as np
import tensorflow as tf


@tf.function
def dense_relu(x, w, b):
    """Applies ``relu(x[i] @ w + b)`` to each example of ``x``.

    Args:
      x: float32 [batch, in_features].
      w: float32 [in_features, out_features].
      b: float32 [out_features].

    Returns:
      float32 [batch, out_features].
    """
    # pforge: vectorized loop (was lines 35-37: map over x, collector outs)
    #   with batched ops
    tf.debugging.assert_rank_in(b, (0, 1))
    tf.debugging.assert_rank(w, 2)
    tf.debugging.assert_rank(x, 2)
    h = tf.linalg.matmul(x, w) + b
    outs = tf.nn.relu(h)
    return outs


def reference_dense_relu(x, w, b):
    """Hand-batched equivalent of :func:`dense_relu`."""
    return tf.nn.relu(tf.linalg.matmul(x, w) + b)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal((256, 64)), tf.float32)
    w = tf.constant(rng.standard_normal((64, 128)) / np.sqrt(64), tf.float32)
    b = tf.constant(0.1 * rng.standard_normal(128), tf.float32)
    return {"dense_relu": (x, w, b)}
