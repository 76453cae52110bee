"""Elman recurrent network unrolled over time steps (refused).

What it does: runs a vanilla RNN cell ``h_t = tanh(u @ h_{t-1} + w @ x_t)``
over a sequence and returns the hidden state after every step.

Where it shows up: sequence models written by hand (language models,
time-series forecasters, control policies), usually before switching to
``tf.keras.layers.SimpleRNN`` or ``tf.scan``.

Pattern: ``for t in range(x.shape[0])`` where ``h`` is read before it is
written in each iteration: step ``t`` needs the state produced by step
``t - 1``.

Expected verdict: refused, PF2xx loop-carried dependence on ``h`` (read at
the ``tf.linalg.matvec(u, h)`` call, written on the same line); the
suggestion is ``tf.scan``. The loop must be left exactly as it is. Only the
input projection ``w @ x_t`` is independent across steps, and hoisting it is
not something pforge does. There is no batched reference.
"""

import numpy as np
import tensorflow as tf


def elman_rnn(x, h0, u, w):
    """Returns the hidden state after each time step.

    Args:
      x: float32 [time, input_dim].
      h0: float32 [hidden_dim], the initial state.
      u: float32 [hidden_dim, hidden_dim], recurrent weights.
      w: float32 [hidden_dim, input_dim], input weights.

    Returns:
      float32 [time, hidden_dim].
    """
    h = h0
    outs = []
    for t in range(x.shape[0]):
        h = tf.tanh(tf.linalg.matvec(u, h) + tf.linalg.matvec(w, x[t]))
        outs.append(h)
    return tf.stack(outs)


def example_inputs(seed=0):
    """Returns positional arguments for each loop function."""
    rng = np.random.default_rng(seed)
    steps, input_dim, hidden_dim = 256, 32, 64
    x = tf.constant(rng.standard_normal((steps, input_dim)), tf.float32)
    h0 = tf.constant(np.zeros(hidden_dim), tf.float32)
    u_init = rng.standard_normal((hidden_dim, hidden_dim)) / np.sqrt(hidden_dim)
    w_init = rng.standard_normal((hidden_dim, input_dim)) / np.sqrt(input_dim)
    u = tf.constant(u_init, tf.float32)
    w = tf.constant(w_init, tf.float32)
    return {"elman_rnn": (x, h0, u, w)}
