"""Per-example error with a log line for every example (refused).

What it does: computes the mean absolute error of each prediction row
against its target and prints the example index and its error while doing
so.

Where it shows up: debugging and evaluation loops where someone wants to
watch per-example values as they are produced; the print is often left in
after the debugging session.

Pattern: ``for i in range(pred.shape[0])`` with a list collector ``errors``
consumed only by ``tf.stack`` at the return, and a ``tf.print`` call in the
body.

Expected verdict: refused, PF2xx side effect: ``tf.print`` writes to the
output stream once per iteration, in order, and a batched version would
print once (or in another order). Dropping or moving the print changes what
the program does, so the loop must be left exactly as it is. There is no batched
reference: the loop's observable behaviour includes the log lines.
"""

import numpy as np
import tensorflow as tf


def logged_abs_errors(pred, target):
    """Returns each example's mean absolute error, printing one line per example.

    Args:
      pred: float32 [batch, outputs].
      target: float32 [batch, outputs].

    Returns:
      float32 [batch].
    """
    errors = []
    for i in range(pred.shape[0]):
        err = tf.reduce_mean(tf.abs(pred[i] - target[i]))
        tf.print("example", i, "mae", err)
        errors.append(err)
    return tf.stack(errors)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    pred = tf.constant(rng.standard_normal((8, 16)), tf.float32)
    target = tf.constant(rng.standard_normal((8, 16)), tf.float32)
    return {"logged_abs_errors": (pred, target)}
