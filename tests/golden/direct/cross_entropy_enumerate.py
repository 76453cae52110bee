"""Per-example cross-entropy loss, iterating with enumerate.

What it does: for each row of logits, computes the log-softmax and the
cross-entropy against the matching row of (possibly smoothed) label
probabilities, and returns one loss value per example.

Where it shows up: evaluation scripts that report per-example losses (to
find the worst examples), and loss code written for label smoothing or soft
targets before reaching for ``tf.nn.softmax_cross_entropy_with_logits``.

Pattern: ``for i, row in enumerate(logits)``: the row comes from the
iterated tensor and the index ``i`` reads the matching row of ``labels``.
Private ``log_probs``, list collector ``losses`` consumed only by
``tf.stack`` at the return.

Expected verdict: vectorizable (map over the rows of ``logits`` and
``labels``, collector ``losses``).
"""

import numpy as np
import tensorflow as tf


@tf.function
def per_example_cross_entropy(logits, labels):
    """Returns the cross-entropy of each example.

    Args:
      logits: float32 [batch, classes].
      labels: float32 [batch, classes], each row a probability distribution.

    Returns:
      float32 [batch].
    """
    # pforge: vectorized loop (was lines 35-37: map over logits, labels, collector
    #   losses) with batched ops
    tf.debugging.assert_rank(labels, 2)
    tf.debugging.assert_rank(logits, 2)
    labels = tf.convert_to_tensor(labels)
    log_probs = tf.nn.log_softmax(logits)
    tf.debugging.assert_less_equal(
        tf.shape(logits)[0], tf.shape(labels)[0], message="index out of range of labels"
    )
    losses = -tf.reduce_sum(labels[:tf.shape(logits)[0]] * log_probs, axis=-1)
    return losses


def reference_per_example_cross_entropy(logits, labels):
    """Hand-batched equivalent of :func:`per_example_cross_entropy`."""
    return -tf.reduce_sum(labels * tf.nn.log_softmax(logits, axis=-1), axis=-1)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    batch, classes, smoothing = 512, 100, 0.1
    logits = tf.constant(2.0 * rng.standard_normal((batch, classes)), tf.float32)
    one_hot = np.eye(classes)[rng.integers(0, classes, batch)]
    labels = tf.constant(one_hot * (1.0 - smoothing) + smoothing / classes, tf.float32)
    return {"per_example_cross_entropy": (logits, labels)}
