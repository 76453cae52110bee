"""DP-SGD microbatches: clipped gradients of equal slices of the batch, averaged.

What it does: cuts the batch into ``n_micro`` equal microbatches, takes the
gradient of each microbatch's mean squared error with respect to the weights,
clips it to a maximum L2 norm, and averages the clipped gradients. The running
sum and count are one tuple assignment.

Where it shows up: differentially private training with microbatches
(TensorFlow Privacy's ``num_microbatches``), gradient accumulation, and any
loop over ``x[m * size:(m + 1) * size]`` chunks of a batch.

Pattern: ``for m in range(n_micro)`` with ``size = x.shape[0] // n_micro``;
the body reads the blocks ``x[m * size:(m + 1) * size]`` and ``y[...]`` (the
code states ``x`` and ``y`` have as many rows); a tape in the body;
``total, count = total + g, count + 1`` after it.

Expected verdict: vectorizable (map over the blocks of ``x`` and ``y``, sum
reductions ``total`` and ``count``). The blocks are the rows of ``x`` reshaped
to ``[n_micro, size, features]``: ``n_micro * size`` rows at most, because
``size`` is ``x.shape[0] // n_micro``. The tape needs the pfor backend; the
count is ``n_micro``, a Python int as in the loop. Summing the clipped
gradients in another order changes the last bits: an unsafe fix.
"""

import numpy as np
import tensorflow as tf


@tf.function
def microbatch_clipped_mean_grad(x, y, w, n_micro: int, clip_norm):
    """Returns the mean over microbatches of the clipped gradient of each one's loss.

    Args:
      x: float32 [batch, features].
      y: float32 [batch].
      w: float32 [features].
      n_micro: int, the number of microbatches (rows past ``n_micro * (batch // n_micro)``
        are not read).
      clip_norm: float32 scalar, the maximum L2 norm of each microbatch's gradient.

    Returns:
      float32 [features].
    """
    tf.debugging.assert_equal(tf.shape(x)[0], tf.shape(y)[0])
    size = x.shape[0] // n_micro
    total, count = tf.zeros_like(w), 0
    # pforge: vectorized loop (was lines 46-53: map over blocks of x, blocks of y, add reduction
    #   total, add reduction count, GradientTape) with tf.vectorized_map
    n_micro_max = tf.maximum(n_micro, 0)
    size_max = tf.maximum(size, 0)
    n_micro_stop = n_micro_max * size_max
    x_blocks = tf.reshape(
        x[:n_micro_stop], tf.concat([[n_micro_max, size_max], tf.shape(x)[1:]], 0)
    )
    y_blocks = tf.reshape(
        tf.convert_to_tensor(y)[:n_micro_stop],
        tf.concat([[n_micro_max, size_max], tf.shape(y)[1:]], 0),
    )
    def _microbatch_clipped_mean_grad_body(elems):
        x_m, y_m = elems
        xb = x_m
        yb = y_m
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tf.reduce_mean(tf.square(tf.linalg.matvec(xb, w) - yb))
        g = tape.gradient(loss, w)
        return tf.clip_by_norm(g, clip_norm)
    total_terms = tf.vectorized_map(_microbatch_clipped_mean_grad_body, (x_blocks, y_blocks))
    total = total + tf.reduce_sum(total_terms, axis=0)
    count = count + len(range(n_micro))
    return total / count


def reference_microbatch_clipped_mean_grad(x, y, w, n_micro, clip_norm):
    """Batched by hand as TensorFlow Privacy does: reshape to ``[n_micro, size, ...]`` and
    map the clipped gradient over the microbatches with ``tf.vectorized_map``."""
    size = x.shape[0] // n_micro
    xs = tf.reshape(x[:n_micro * size], [n_micro, size, x.shape[1]])
    ys = tf.reshape(y[:n_micro * size], [n_micro, size])

    def clipped(batch):
        xb, yb = batch
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tf.reduce_mean(tf.square(tf.linalg.matvec(xb, w) - yb))
        return tf.clip_by_norm(tape.gradient(loss, w), clip_norm)

    return tf.reduce_mean(tf.vectorized_map(clipped, (xs, ys)), axis=0)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    batch, features, n_micro = 1024, 64, 256
    x = tf.constant(rng.standard_normal((batch, features)), tf.float32)
    y = tf.constant(rng.standard_normal(batch), tf.float32)
    w = tf.constant(rng.standard_normal(features) / np.sqrt(features), tf.float32)
    clip_norm = tf.constant(1.0, tf.float32)
    return {"microbatch_clipped_mean_grad": (x, y, w, n_micro, clip_norm)}
