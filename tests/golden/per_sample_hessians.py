"""Per-example Hessians of a logistic regression loss, with nested tapes.

What it does: for every example, records its logistic loss under two nested
``tf.GradientTape``s, takes the gradient with respect to the weights under the
outer tape, and the Jacobian of that gradient: the example's Hessian.

Where it shows up: per-example Newton steps, influence functions and
curvature diagnostics (the spread of per-example Hessians), Laplace
approximations, second-order optimizers studied example by example.

Pattern: ``for i in range(x.shape[0])``; a tape nested in a tape in the body,
both watching the loop-invariant ``w``; ``outer.jacobian(inner.gradient(loss,
w), w)`` appended to the collector ``hessians``, consumed by ``tf.stack``.

Expected verdict: vectorizable (map over the rows of ``x`` and ``labels``,
collector ``hessians``). Tapes in the body need the pfor backend
(``tf.vectorized_map`` differentiates per iteration, through both tapes).
"""

import numpy as np
import tensorflow as tf


@tf.function
def per_sample_hessians(x, labels, w):
    """Returns the Hessian of each example's logistic loss with respect to ``w``.

    Args:
      x: float32 [batch, features].
      labels: float32 [batch], 0 or 1.
      w: float32 [features].

    Returns:
      float32 [batch, features, features].
    """
    # pforge: vectorized loop (was lines 36-44: map over x, labels, collector hessians, GradientTape) with
    #   tf.vectorized_map
    def _per_sample_hessians_body(elems):
        x_i, labels_i = elems
        with tf.GradientTape() as outer:
            outer.watch(w)
            with tf.GradientTape() as inner:
                inner.watch(w)
                logit = tf.tensordot(x_i, w, 1)
                loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels_i, logits=logit)
            grad = inner.gradient(loss, w)
        return outer.jacobian(grad, w)
    hessians = tf.vectorized_map(_per_sample_hessians_body, (x, tf.convert_to_tensor(labels)[:x.shape[0]]))
    return hessians


def reference_per_sample_hessians(x, labels, w):
    """Batched by hand: one copy of ``w`` per example, so one backward pass gives every
    example's gradient (row ``i`` depends on example ``i`` alone) and ``batch_jacobian``
    gives every Hessian."""
    with tf.GradientTape() as outer:
        ws = tf.tile(w[tf.newaxis], [tf.shape(x)[0], 1])
        outer.watch(ws)
        with tf.GradientTape() as inner:
            inner.watch(ws)
            logits = tf.reduce_sum(x * ws, axis=1)
            loss = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = inner.gradient(loss, ws)
    return outer.batch_jacobian(grads, ws)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    batch, features = 24, 8  # (the loop runs two tapes and a Jacobian per example: about 2 s)
    x = tf.constant(rng.standard_normal((batch, features)), tf.float32)
    labels = tf.constant(rng.integers(0, 2, batch), tf.float32)
    w = tf.constant(rng.standard_normal(features) / np.sqrt(features), tf.float32)
    return {"per_sample_hessians": (x, labels, w)}
