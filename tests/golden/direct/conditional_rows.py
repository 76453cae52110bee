"""Sign-dependent transform of each row.

What it does: doubles every row whose entries sum to a positive number and
negates every other row, so the output has as many rows as the input.

Where it shows up: per-example branching in data augmentation and
preprocessing (flip or rescale an example depending on a statistic of it),
and in loss code that picks a formula per example.

Pattern: ``for i in range(x.shape[0])`` with a private ``r`` and ``s`` and a
Python ``if`` whose test ``s > 0`` depends on the row (a stacked test). Both
branches are side-effect free and append to the same collector ``out``,
consumed only by ``tf.stack`` at the return.

Expected verdict: vectorizable (map over the rows of ``x``, collector
``out``). The stacked ``if`` is lowered to ``tf.where`` because both branches
are pure; a Python ``if`` on a tensor cannot stay as it is inside
``tf.vectorized_map``.
"""

import numpy as np
import tensorflow as tf


@tf.function
def sign_transform(x):
    """Doubles rows with a positive sum and negates the others.

    Args:
      x: float32 [batch, features].

    Returns:
      float32 [batch, features].
    """
    # pforge: vectorized loop (was lines 35-41: map over x, collector out) with
    #   batched ops
    tf.debugging.assert_rank(x, 2)
    s = tf.reduce_sum(x, axis=-1)
    out = tf.where((s > 0)[:, tf.newaxis], x * 2.0, -x)
    return out


def reference_sign_transform(x):
    """Hand-batched equivalent of :func:`sign_transform`."""
    positive = tf.reduce_sum(x, axis=1, keepdims=True) > 0
    return tf.where(positive, x * 2.0, -x)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal((256, 64)), tf.float32)
    return {"sign_transform": (x,)}
