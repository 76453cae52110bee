"""Jacobian rows taken from one tape recorded before the loop.

What it does: records the forward pass ``y = tanh(w @ x + b)`` once under a
persistent ``tf.GradientTape``, then takes the gradient of each output entry
with respect to ``x``, one row of the Jacobian at a time. The rows are selected
either by iterating over ``tf.unstack(y)`` (taken under the tape, so the rows
are recorded) or with ``tf.gather(y, i)`` inside the tape's block.

Where it shows up: sensitivity analysis, Gauss-Newton solvers, normalizing
flows, and code written by people who know that a forward pass is expensive
but not that ``tape.jacobian`` exists.

Pattern: a collector of ``tape.gradient(y_i, x)`` where the tape was opened
before the loop and ``y_i`` is row ``i`` of a tensor it recorded; the loop
runs over ``tf.unstack(y)`` or over ``range(n)`` with ``tf.gather(y, i)``.

Expected verdict: vectorizable (map, collector ``rows``). The direct backend
writes the Jacobian of this dense layer in closed form,
``(1.0 - tf.square(y))[:, tf.newaxis] * w`` (an unsafe fix: a NaN stays in
its row), and ``tape.jacobian(y, x)`` where
a test of what the tape sees fails: all the rows in one call, whose backward
passes TensorFlow batches with pfor. The pfor backend leaves these loops: the rows
``tf.vectorized_map`` would slice from a re-stacked ``y`` are not on the tape.
"""

import numpy as np
import tensorflow as tf


@tf.function
def jacobian_by_unstack(x, w, b):
    """Returns the Jacobian of ``tanh(w @ x + b)`` with respect to ``x``.

    Args:
      x: float32 [in_features].
      w: float32 [out_features, in_features].
      b: float32 [out_features].

    Returns:
      float32 [out_features, in_features]; row ``i`` is ``d y[i] / d x``.
    """
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.tanh(tf.linalg.matvec(w, x) + b)
        outputs = tf.unstack(y)
    # pforge: vectorized loop (was lines 46-47: map over y, collector rows) with batched ops
    tf.debugging.assert_rank_in(b, (0, 1))
    tf.debugging.assert_rank(w, 2)
    tf.debugging.assert_rank(x, 1)
    x = tf.convert_to_tensor(x)
    if x.dtype.is_floating and y.shape.rank == 1 and (b is not x) and (w is not x):
        dy_dx = (1.0 - tf.square(y))[:, tf.newaxis] * w
    else:
        dy_dx = tape.jacobian(y, x)
    rows = dy_dx
    return rows


@tf.function
def jacobian_by_gather(x, w, b):
    """Returns the Jacobian of ``tanh(w @ x + b)`` with respect to ``x``.

    Args:
      x: float32 [in_features].
      w: float32 [out_features, in_features].
      b: float32 [out_features].

    Returns:
      float32 [out_features, in_features]; row ``i`` is ``d y[i] / d x``.
    """
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.tanh(tf.linalg.matvec(w, x) + b)
        # pforge: vectorized loop (was lines 66-67: map over y, collector rows) with batched ops
        tf.debugging.assert_rank_in(b, (0, 1))
        tf.debugging.assert_rank(w, 2)
        tf.debugging.assert_rank(x, 1)
        tf.debugging.assert_less_equal(w.shape[0], tf.shape(y)[0], message="index out of range of y")
        x = tf.convert_to_tensor(x)
        if x.dtype.is_floating and y.shape.rank == 1 and (b is not x) and (w is not x):
            dy_dx = ((1.0 - tf.square(y))[:, tf.newaxis] * w)[:w.shape[0]]
        else:
            dy_dx = tape.jacobian(y, x)[:w.shape[0]]
        rows = dy_dx
    return rows


def reference_jacobian_by_unstack(x, w, b):
    """What an author who knows ``tape.jacobian`` writes."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(tf.linalg.matvec(w, x) + b)
    return tape.jacobian(y, x)


def reference_jacobian_by_gather(x, w, b):
    """What an author who knows ``tape.jacobian`` writes (spelled out here, not a call of the
    reference above: the quality benchmark counts this function's own tokens)."""
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(tf.linalg.matvec(w, x) + b)
    return tape.jacobian(y, x)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    out_features, in_features = 256, 64
    x = tf.constant(rng.standard_normal(in_features), tf.float32)
    w = tf.constant(rng.standard_normal((out_features, in_features)) / np.sqrt(in_features), tf.float32)
    b = tf.constant(0.1 * rng.standard_normal(out_features), tf.float32)
    return {"jacobian_by_unstack": (x, w, b), "jacobian_by_gather": (x, w, b)}
