"""TensorFlow functions decorated with ``pforge.vectorize``, for tests/test_staged.py."""

import numpy as np
import tensorflow as tf

import pforge


@pforge.vectorize
def squared_error(pred, target):
    """Reads `pred.shape[0]`: traced per shape, never with the dimension unknown."""
    total = tf.constant(0.0)
    for i in range(pred.shape[0]):
        total += tf.reduce_sum(tf.square(pred[i] - target[i]))
    return total


def make_scaled(s):
    @pforge.vectorize
    def scaled(x):
        outs = []
        for i in range(x.shape[0]):
            outs.append(x[i] * s)
        return tf.stack(outs)

    def set_s(value):
        nonlocal s
        s = value

    return scaled, set_s


class Config:
    def __init__(self, scale):
        self.scale = scale


@pforge.vectorize
def scaled_by_config(x, config):
    outs = []
    for i in range(x.shape[0]):
        outs.append(x[i] * config.scale)
    return tf.stack(outs)


@pforge.vectorize
def weighted_sums(x, w):
    outs = []
    for i in range(x.shape[0]):
        outs.append(tf.reduce_sum(x[i]) * w[i])
    return tf.stack(outs)


@pforge.vectorize
def ragged_row_sums(x):
    outs = []
    for r in x:
        outs.append(tf.reduce_sum(r))
    return tf.stack(outs)


WEIGHTS = np.ones(3, np.float32)


@pforge.vectorize
def centred_rows(x, temperature):
    """A NumPy array in TensorFlow code: staged, `x.mean()` would meet a graph tensor."""
    outs = []
    for i in range(x.shape[0]):
        outs.append(tf.reduce_sum(x[i]) / temperature)
    return tf.stack(outs) - x.mean()
