"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/beamforming.py (function `mdot`, lines 60-69)
Project: LCAV/pyroomacoustics
Description: multiplies a sequence of matrices left to right, keeping a running product.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each step multiplies the running product from the previous step by the next matrix (a non-commutative chain, not an elementwise reduction)",
}

TOL = {"rtol": 1e-9, "atol": 1e-9}


def original(*mats):

    acc = mats[0]
    for m in mats[1:]:
        acc = np.dot(acc, m)

    return acc


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((4, 5)),
        rng.standard_normal((5, 3)),
        rng.standard_normal((3, 6)),
        rng.standard_normal((6, 2)),
    )
