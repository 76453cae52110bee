"""Cosine similarity between matched pairs of embeddings, iterating with zip.

What it does: for each pair of rows ``(a, b)`` taken from two aligned
embedding matrices, returns the cosine of the angle between them.

Where it shows up: evaluating retrieval and contrastive models (similarity of
each query to its matched document), checking paraphrase or translation
pairs, and monitoring embedding drift between two model versions.

Pattern: ``for a, b in zip(x, y)`` (rows of ``x`` and ``y`` walked in lock
step) with a list collector ``sims`` of scalars, consumed only by
``tf.stack`` at the return.

Expected verdict: vectorizable (map over the rows of ``x`` and ``y``,
collector ``sims``). Both tensors must have the same number of rows, which
``zip`` would otherwise silently truncate; the batched version relies on it.
"""

import numpy as np
import tensorflow as tf


@tf.function
def paired_cosine_similarity(x, y):
    """Returns the cosine similarity of each row of ``x`` with the same row of ``y``.

    Args:
      x: float32 [batch, dim].
      y: float32 [batch, dim].

    Returns:
      float32 [batch].
    """
    # pforge: vectorized loop (was lines 34-35: map over x, y, collector sims) with
    #   tf.vectorized_map
    shortest = tf.reduce_min([tf.shape(x)[0], tf.shape(y)[0]])
    def _paired_cosine_similarity_body(elems):
        a, b = elems
        return tf.reduce_sum(tf.math.l2_normalize(a) * tf.math.l2_normalize(b))
    sims = tf.vectorized_map(
        _paired_cosine_similarity_body,
        (tf.convert_to_tensor(x)[:shortest], tf.convert_to_tensor(y)[:shortest]),
    )
    return sims


def reference_paired_cosine_similarity(x, y):
    """Hand-batched equivalent of :func:`paired_cosine_similarity`."""
    x_unit = tf.math.l2_normalize(x, axis=-1)
    y_unit = tf.math.l2_normalize(y, axis=-1)
    return tf.reduce_sum(x_unit * y_unit, axis=-1)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal((512, 96)), tf.float32)
    y = tf.constant(x.numpy() + 0.5 * rng.standard_normal((512, 96)), tf.float32)
    return {"paired_cosine_similarity": (x, y)}
