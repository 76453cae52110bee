"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `cosine_magnitude_octave_filter_response`, lines 223-232)
Project: LCAV/pyroomacoustics
Description: for each band of a magnitude response, records the first nonzero frequency bin and
one past the last nonzero bin.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each band reads only its own column and appends to two collector lists",
}


def original(resp):
    lo, hi = [], []
    bins = np.arange(resp.shape[0])
    for b in range(resp.shape[1]):
        nz = bins[resp[:, b] > 0]
        lo.append(nz[0])
        hi.append(nz[-1] + 1)
    lo = np.array(lo)
    hi = np.array(hi)
    return lo, hi


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    resp = rng.random((17, 5))
    resp[resp < 0.5] = 0.0
    resp[3, :] = 0.7
    return (resp,)
