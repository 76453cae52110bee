"""Functions decorated with ``pforge.vectorize``, for tests/test_staged.py.

Each is written the usual way, with no shape annotations: the decorator learns every rank
from its call.
"""

import functools

import numpy as np

import pforge


@pforge.vectorize
def row_norms(x, scale=1.0):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sqrt(np.sum(x[i] ** 2)) * scale
    return out


def row_norms_loop(x, scale=1.0):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sqrt(np.sum(x[i] ** 2)) * scale
    return out


@pforge.vectorize(verify="first")
def scale_rows_in_place(x, s):
    for i in range(x.shape[0]):
        x[i] = x[i] * s[i]


@pforge.vectorize
def shift_into(dst, src):
    for i in range(src.shape[0]):
        dst[i] = src[i] + 1.0
    return dst


@pforge.vectorize
def first_n(x, n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * 2.0
    return out


@pforge.vectorize
def list_sum_of_squares(values):
    total = 0.0
    for v in values:
        total += v * v
    return total


@pforge.vectorize
def running_total(x):
    out = np.zeros(x.shape[0])
    acc = 0.0
    for i in range(x.shape[0]):
        acc = np.tanh(acc) + x[i]
        out[i] = acc
    return out


class Scaler:
    """A method, with a private attribute the rewritten method must still find."""

    def __init__(self, factor):
        self.__factor = factor

    @pforge.vectorize
    def norms(self, x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = np.sum(np.abs(x[i]))
        return out * self.__factor


def make_offset_rows(offset):
    """A nested function reading a closure cell that the caller rebinds later."""

    @pforge.vectorize
    def offset_rows(x):
        rows = []
        for r in x:
            rows.append(np.sum(r * r))
        return np.array(rows) + offset

    def set_offset(value):
        nonlocal offset
        offset = value

    return offset_rows, set_offset


def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@pforge.vectorize
@_logged
def wrapped_norms(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i])
    return out


WEIGHTS = np.linspace(0.5, 2.0, 4)


@pforge.vectorize
def weighted_rows(x):
    """Reads the module global WEIGHTS in the loop: its rank comes from its value at the call."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i] * WEIGHTS)
    return out


class Layer:
    """A method reading an instance attribute in its loop."""

    def __init__(self, w):
        self.w = w

    @pforge.vectorize
    def forward(self, xs):
        outs = []
        for x in xs:
            outs.append(np.tanh(self.w @ x))
        return np.stack(outs)


def make_scaled(k):
    """A nested function reading its closure variable in the loop."""

    @pforge.vectorize
    def scaled(x):
        out = np.zeros_like(x)
        for i in range(x.shape[0]):
            out[i] = x[i] * k
        return out

    def set_k(value):
        nonlocal k
        k = value

    return scaled, set_k


def scale(v):
    """A module helper the transpiler inlines from this source."""
    return v * 2.0


@pforge.vectorize
def scaled_by_helper(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = scale(x[i])
    return out


@pforge.vectorize
def shift_from_list(out, sources):
    """Writes `out` from the first array of `sources`, which may be `out` itself."""
    first = sources[0]
    for i in range(first.shape[0] - 1):
        out[i + 1] = first[i]
    return out


@pforge.vectorize
def doubled_rows(x):
    """A Python list's rows repeat under `* 2`; an array's double."""
    outs = []
    for i in range(len(x)):
        outs.append(x[i] * 2)
    return np.array(outs)


class Kinds:
    @pforge.vectorize
    @staticmethod
    def norms(x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = np.sum(x[i] * x[i])
        return out

    @pforge.vectorize
    @classmethod
    def named_norms(cls, x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = np.sum(np.abs(x[i]))
        return out


@pforge.vectorize(verify="first")
def rows_in_a_box(x):
    """Returns an object that is not data: verify cannot compare it."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i].sum()
    return Box(out)


class Box:
    def __init__(self, value):
        self.value = value
