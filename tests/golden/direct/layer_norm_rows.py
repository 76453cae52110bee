"""Layer normalization applied to each row by iterating over the tensor.

What it does: normalizes every row of ``x`` to zero mean and unit variance
over its features, then applies a learned per-feature gain ``gamma`` and
bias ``beta``.

Where it shows up: transformer and MLP blocks written for one token or one
example, and normalization steps in feature-preprocessing code.

Pattern: ``for r in x`` (rows of ``x`` along axis 0, no index variable) with
privates ``mean``, ``centered`` and ``var`` and a list collector ``out``
consumed only by ``tf.stack`` at the return; ``gamma`` and ``beta`` are loop
invariants.

Expected verdict: vectorizable (map over the rows of ``x``, collector
``out``). Batched, the per-row reductions become reductions over ``axis=-1``
with ``keepdims=True``.
"""

import numpy as np
import tensorflow as tf


@tf.function
def layer_norm(x, gamma, beta):
    """Returns the layer-normalized rows of ``x``.

    Args:
      x: float32 [batch, features].
      gamma: float32 [features].
      beta: float32 [features].

    Returns:
      float32 [batch, features].
    """
    # pforge: vectorized loop (was lines 36-40: map over x, collector out) with
    #   batched ops
    tf.debugging.assert_rank_in(beta, (0, 1))
    tf.debugging.assert_rank_in(gamma, (0, 1))
    tf.debugging.assert_rank(x, 2)
    mean = tf.reduce_mean(x, axis=-1)
    centered = x - mean[:, tf.newaxis]
    var = tf.reduce_mean(tf.square(centered), axis=-1)
    out = gamma * centered * tf.math.rsqrt(var + 1e-05)[:, tf.newaxis] + beta
    return out


def reference_layer_norm(x, gamma, beta):
    """Hand-batched equivalent of :func:`layer_norm`."""
    mean = tf.reduce_mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = tf.reduce_mean(tf.square(centered), axis=-1, keepdims=True)
    return gamma * centered * tf.math.rsqrt(var + 1e-5) + beta


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    x = tf.constant(3.0 * rng.standard_normal((512, 128)) + 1.0, tf.float32)
    gamma = tf.constant(1.0 + 0.1 * rng.standard_normal(128), tf.float32)
    beta = tf.constant(0.1 * rng.standard_normal(128), tf.float32)
    return {"layer_norm": (x, gamma, beta)}
