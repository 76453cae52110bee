"""Jacobian of a tanh layer, built one output row at a time.

What it does: computes the Jacobian ``dy/dx`` of ``y = tanh(w @ x + b)`` by
running the forward pass under a fresh ``tf.GradientTape`` for every output
index ``i`` and taking the gradient of the scalar ``y[i]`` with respect to
``x``; each gradient is one row of the Jacobian. The indexing ``y[i]`` has to
happen inside the tape's context: taken outside, the tape never records it and
``tape.gradient`` returns ``None``.

Where it shows up: sensitivity analysis, Gauss-Newton and Levenberg-Marquardt
solvers, normalizing flows (log-determinant of the Jacobian), and any code
written before ``tape.jacobian`` was known to the author.

Pattern: ``for i in range(w.shape[0])`` (one iteration per output); the tape
watches the loop-invariant input ``x``; the private ``y_i = y[i]`` is taken
under the tape and ``tape.gradient(y_i, x)`` is appended to the collector
``rows``, consumed only by ``tf.stack`` at the return.

Expected verdict: vectorizable (map over the output index ``i``, collector
``rows``). The loop index only selects the entry to differentiate, so the
direct backend records the forward pass once and writes the Jacobian of this
dense layer in closed form, ``(1.0 - tf.square(y))[:, tf.newaxis] * w`` (an
unsafe fix: a NaN stays in its row), with ``tape.jacobian(y, x)`` (which
batches the backward pass with pfor, the Jacobian application of the pfor
paper) where a test of what the tape sees fails; the pfor backend wraps the
whole body, tape included, in ``tf.vectorized_map``.
"""

import numpy as np
import tensorflow as tf


@tf.function
def tanh_layer_jacobian(x, w, b):
    """Returns the Jacobian of ``tanh(w @ x + b)`` with respect to ``x``.

    Args:
      x: float32 [in_features].
      w: float32 [out_features, in_features].
      b: float32 [out_features].

    Returns:
      float32 [out_features, in_features]; row ``i`` is ``d y[i] / d x``.
    """
    # pforge: vectorized loop (was lines 45-50: map over y, collector rows, GradientTape
    #   rows as tape.jacobian) with batched ops
    tf.debugging.assert_rank_in(b, (0, 1))
    tf.debugging.assert_rank(w, 2)
    tf.debugging.assert_rank(x, 1)
    x = tf.convert_to_tensor(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(tf.linalg.matvec(w, x) + b)
        tf.debugging.assert_less_equal(
            w.shape[0], tf.shape(y)[0], message="index out of range of y"
        )
    if x.dtype.is_floating and y.shape.rank == 1 and (b is not x) and (w is not x):
        dy_dx = ((1.0 - tf.square(y))[:, tf.newaxis] * w)[:w.shape[0]]
    else:
        dy_dx = tape.jacobian(y, x)[:w.shape[0]]
    rows = dy_dx
    return rows


def reference_tanh_layer_jacobian(x, w, b):
    """Closed-form equivalent of :func:`tanh_layer_jacobian`: ``diag(1 - y**2) @ w``."""
    y = tf.tanh(tf.linalg.matvec(w, x) + b)
    return (1.0 - tf.square(y))[:, tf.newaxis] * w


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    out_features, in_features = 256, 64
    x = tf.constant(rng.standard_normal(in_features), tf.float32)
    w_init = rng.standard_normal((out_features, in_features)) / np.sqrt(in_features)
    w = tf.constant(w_init, tf.float32)
    b = tf.constant(0.1 * rng.standard_normal(out_features), tf.float32)
    return {"tanh_layer_jacobian": (x, w, b)}
