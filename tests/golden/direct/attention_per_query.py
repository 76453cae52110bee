"""Scaled dot-product attention computed one query at a time.

What it does: for each query vector, scores it against every key, turns the
scores into weights with a softmax, and returns the weighted average of the
value vectors.

Where it shows up: hand-written attention in retrieval and memory-network
code, decoding loops that were first written for one query, and teaching
implementations of transformers.

Pattern: ``for i in range(q.shape[0])`` with privates ``scores`` and
``weights`` and a list collector ``outs`` consumed only by ``tf.stack`` at the
return; ``k``, ``v`` and the scale factor are loop invariants.

Expected verdict: vectorizable (map over the rows of ``q``, collector
``outs``). Batched, the loop becomes ``softmax(q @ k^T * scale) @ v``.
"""

import numpy as np
import tensorflow as tf


@tf.function
def attention(q, k, v):
    """Returns softmax attention of each query over ``k`` and ``v``.

    Args:
      q: float32 [num_queries, key_dim].
      k: float32 [num_keys, key_dim].
      v: float32 [num_keys, value_dim].

    Returns:
      float32 [num_queries, value_dim].
    """
    scale = tf.math.rsqrt(tf.cast(tf.shape(q)[-1], tf.float32))
    # pforge: vectorized loop (was lines 36-39: map over q, collector outs) with batched
    #   ops
    tf.debugging.assert_rank(k, 2)
    tf.debugging.assert_rank(q, 2)
    tf.debugging.assert_rank(v, 2)
    scores = tf.linalg.matmul(q, k, transpose_b=True) * scale
    weights = tf.nn.softmax(scores)
    outs = tf.linalg.matmul(weights, v)
    return outs


def reference_attention(q, k, v):
    """Hand-batched equivalent of :func:`attention`."""
    scale = tf.math.rsqrt(tf.cast(tf.shape(q)[-1], tf.float32))
    weights = tf.nn.softmax(tf.linalg.matmul(q, k, transpose_b=True) * scale, axis=-1)
    return tf.linalg.matmul(weights, v)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    q = tf.constant(rng.standard_normal((256, 64)), tf.float32)
    k = tf.constant(rng.standard_normal((128, 64)), tf.float32)
    v = tf.constant(rng.standard_normal((128, 32)), tf.float32)
    return {"attention": (q, k, v)}
