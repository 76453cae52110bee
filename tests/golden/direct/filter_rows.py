"""Keep and rescale the rows that contain a large activation.

What it does: selects the rows of ``x`` whose maximum exceeds a threshold and
returns them multiplied by ``scale``; rows below the threshold are dropped.

Where it shows up: hard-example mining, outlier and anomaly selection,
filtering detections or embeddings by a confidence score before a later
stage.

Pattern: ``for i in range(x.shape[0])`` with an ``if`` whose test depends on
the row and a single ``out.append`` under it (a filter); the collector
``out`` is consumed only by ``tf.stack`` at the return. ``thresh`` and
``scale`` are loop invariants.

The number of rows in the result depends on the data. ``tf.stack`` of an
empty list raises an error, so the loop version needs at least one row to
pass; ``example_inputs`` is chosen so that roughly a third of the rows do.
The batched version returns a ``[0, features]`` tensor when none pass.

Expected verdict: vectorizable as a filter (map over the rows of ``x``,
collector ``out`` under a stacked test), lowered to ``tf.boolean_mask``.
"""

import numpy as np
import tensorflow as tf


@tf.function
def select_peaked_rows(x, thresh, scale):
    """Returns ``x[i] * scale`` for every row whose maximum exceeds ``thresh``.

    Args:
      x: float32 [batch, features].
      thresh: float32 scalar.
      scale: float32 scalar.

    Returns:
      float32 [kept, features], the kept rows in their original order.
    """
    # pforge: vectorized loop (was lines 40-42: map over x, filter out) with
    #   batched ops
    tf.debugging.assert_rank_in(scale, (0, 1))
    tf.debugging.assert_rank(thresh, 0)
    tf.debugging.assert_rank(x, 2)
    out = tf.boolean_mask(x * scale, tf.reduce_max(x, axis=-1) > thresh)
    return out


def reference_select_peaked_rows(x, thresh, scale):
    """Hand-batched equivalent of :func:`select_peaked_rows`."""
    keep = tf.reduce_max(x, axis=1) > thresh
    return tf.boolean_mask(x, keep) * scale


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal((512, 64)), tf.float32)
    thresh = tf.constant(2.5, tf.float32)
    scale = tf.constant(0.5, tf.float32)
    return {"select_peaked_rows": (x, thresh, scale)}
