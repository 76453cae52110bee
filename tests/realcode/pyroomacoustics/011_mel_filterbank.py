"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `melfilterbank`, lines 978-1021)
Project: LCAV/pyroomacoustics
Description: builds a bank of triangular filters spaced on the mel scale, each row rising linearly
from the previous centre bin to its own centre and falling to the next one.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "iteration m writes only row m-1 of the preallocated bank, from values read out of the shared centre array",
}

TOL = {"rtol": 1e-9, "atol": 1e-12}


def to_mel(f):
    return 1125.0 * np.log(1 + f / 700.0)


def from_mel(b):
    return 700.0 * (np.exp(b / 1125.0) - 1)


def original(n_filters, n_fft, fs=1, f_lo=0.0, f_hi=0.5):

    # all center frequencies of the filters
    c = (n_fft / fs) * from_mel(
        to_mel(f_lo * fs)
        + (np.arange(n_filters + 2) * (to_mel(f_hi * fs) - to_mel(f_lo * fs)) / (n_filters + 1))
    )

    # Construct the triangular filter bank
    bank = np.zeros((n_filters, n_fft // 2 + 1))
    k = np.arange(n_fft // 2 + 1)
    for m in range(1, n_filters + 1):
        sel = np.where(np.logical_and(c[m - 1] < k, k < c[m]))
        bank[m - 1, sel] = (
            2 * (k[sel] - c[m - 1]) / ((c[m + 1] - c[m - 1]) * (c[m] - c[m - 1]))
        )
        sel = np.where(np.logical_and(c[m] <= k, k < c[m + 1]))
        bank[m - 1, sel] = (
            2 * (c[m + 1] - k[sel]) / ((c[m + 1] - c[m - 1]) * (c[m + 1] - c[m]))
        )

    return bank


def make_inputs(seed=0):
    return ([6, 8, 5][seed % 3], [64, 40, 32][seed % 3], 8000, 0.0, 0.5)
