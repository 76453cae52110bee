"""Imports TensorFlow lazily, so that importing pforge never pays for it."""

import os


def tensorflow():
    """Returns the ``tensorflow`` module, importing it on first use.

    Quiets TensorFlow's C++ start-up logging unless the user chose a level.
    """
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf  # noqa: PLC0415 - deliberately lazy

    return tf
