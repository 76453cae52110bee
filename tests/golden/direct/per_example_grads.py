"""Per-example gradients of a softmax classifier, clipped as in DP-SGD.

What it does: for every example of a batch, records the cross-entropy loss of
a linear softmax classifier on that example alone under a
``tf.GradientTape``, takes the gradient with respect to the weight matrix and
clips it to a maximum L2 norm. The result holds one clipped gradient per
example.

Where it shows up: differentially private training (DP-SGD clips each
example's gradient before averaging and adding noise), influence functions,
gradient-noise and per-example gradient-norm diagnostics.

Pattern: ``for i in range(x.shape[0])`` with a ``tf.GradientTape`` opened
inside the body; the tape watches the loop-invariant tensor ``w``; the
gradient of one example's loss is appended to the collector ``grads``, which
is consumed only by ``tf.stack`` at the return. ``per_example_grads_of_variables``
takes the gradients of a list of ``tf.Variable``s, which the tape watches
because they are read, and unzips the per-example lists at the end:
``[tf.stack(g) for g in zip(*per_example)]``, one stacked tensor per variable,
which is what ``tf.vectorized_map`` returns for a body that returns the list.

Expected verdict: vectorizable (map over the rows of ``x`` and ``labels``,
collector ``grads``). A tape inside the body needs the pfor backend
(``tf.vectorized_map``), which differentiates per iteration; this is the
per-example-gradient application of the pfor paper.
"""

import numpy as np
import tensorflow as tf


@tf.function
def clipped_per_example_grads(x, labels, w, b, clip_norm):
    """Returns the clipped gradient of each example's loss with respect to ``w``.

    Args:
      x: float32 [batch, features].
      labels: float32 [batch, classes], one-hot rows.
      w: float32 [features, classes].
      b: float32 [classes].
      clip_norm: float32 scalar, the maximum L2 norm of each gradient.

    Returns:
      float32 [batch, features, classes].
    """
    # pforge: vectorized loop (was lines 46-52: map over x, labels, collector grads, GradientTape)
    #   with tf.vectorized_map
    def _clipped_per_example_grads_body(elems):
        x_i, labels_i = elems
        with tf.GradientTape() as tape:
            tape.watch(w)
            logits = tf.linalg.matvec(w, x_i, transpose_a=True) + b
            loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels_i, logits=logits)
        grad = tape.gradient(loss, w)
        return tf.clip_by_norm(grad, clip_norm)
    grads = tf.vectorized_map(
        _clipped_per_example_grads_body, (x, tf.convert_to_tensor(labels)[: x.shape[0]])
    )
    return grads


def reference_clipped_per_example_grads(x, labels, w, b, clip_norm):
    """Closed-form batched equivalent of :func:`clipped_per_example_grads`.

    The gradient of softmax cross-entropy with respect to ``w`` for one example
    is the outer product of the example and ``softmax(logits) - label``.
    """
    probs = tf.nn.softmax(tf.linalg.matmul(x, w) + b)
    grads = tf.einsum("nd,nc->ndc", x, probs - labels)
    norms = tf.norm(grads, axis=[1, 2], keepdims=True)
    return grads * clip_norm / tf.maximum(norms, clip_norm)


@tf.function
def per_example_grads_of_variables(x, labels, variables):
    """Returns each example's gradients with respect to a list of variables.

    Args:
      x: float32 [batch, features].
      labels: float32 [batch, classes], one-hot rows.
      variables: a list ``[w, b]`` of ``tf.Variable``: float32 [features, classes] and
        float32 [classes].

    Returns:
      A list with one tensor per variable: float32 [batch, features, classes] and float32
      [batch, classes].
    """
    # pforge: vectorized loop (was lines 82-86: map over x, labels, collector per_example,
    #   GradientTape) with tf.vectorized_map
    def _per_example_grads_of_variables_body(elems):
        x_i, labels_i = elems
        with tf.GradientTape() as tape:
            logits = tf.linalg.matvec(variables[0], x_i, transpose_a=True) + variables[1]
            loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels_i, logits=logits)
        return tape.gradient(loss, variables)
    per_example = tf.vectorized_map(
        _per_example_grads_of_variables_body, (x, tf.convert_to_tensor(labels)[: x.shape[0]])
    )
    return (
        list(per_example)
        if isinstance(per_example, (list, tuple))
        else tf.unstack(per_example, axis=1)
    )


def reference_per_example_grads_of_variables(x, labels, variables):
    """Closed form: with respect to ``b`` each example's gradient is ``softmax(logits) -
    label``; with respect to ``w``, the outer product of the example and that."""
    w, b = variables
    delta = tf.nn.softmax(tf.linalg.matmul(x, w) + b) - labels
    return [tf.einsum("nd,nc->ndc", x, delta), delta]


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    batch, features, classes = 256, 32, 10
    x = tf.constant(rng.standard_normal((batch, features)), tf.float32)
    labels = tf.constant(np.eye(classes)[rng.integers(0, classes, batch)], tf.float32)
    w = tf.constant(rng.standard_normal((features, classes)) / np.sqrt(features), tf.float32)
    b = tf.constant(np.zeros(classes), tf.float32)
    clip_norm = tf.constant(1.0, tf.float32)
    variables = [tf.Variable(w), tf.Variable(b)]
    return {"clipped_per_example_grads": (x, labels, w, b, clip_norm),
            "per_example_grads_of_variables": (x, labels, variables)}
