"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `binning`, lines 43-52)
Project: LCAV/pyroomacoustics
Description: averages the columns of a matrix over each band of column indices, giving one
output column per band.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each band reads its own slice of the input and writes only its own output column",
}


def original(spec, ranges):
    out = np.zeros((spec.shape[0], len(ranges)), dtype=spec.dtype)
    for i, r in enumerate(ranges):
        out[:, i] = np.mean(spec[:, r[0] : r[1]], axis=1)

    return out


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    spec = rng.standard_normal((6, 20))
    ranges = np.array([[0, 2], [2, 5], [5, 9], [9, 14], [14, 20]])
    return (spec, ranges)
