"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (method `AntoniOctaveFilterBank.synthesis`, lines 850-851)
Project: LCAV/pyroomacoustics
Description: scales each band's analysis coefficients in place by that band's target magnitude.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each iteration scales a different list element in place by its own gain column",
}


def original(coefs, gains):
    for b in range(gains.shape[-1]):
        coefs[b] *= gains[..., [b]]
    return coefs


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    coefs = [
        rng.standard_normal((2, 6)) + 1j * rng.standard_normal((2, 6)),
        rng.standard_normal((2, 8)) + 1j * rng.standard_normal((2, 8)),
        rng.standard_normal((2, 16)) + 1j * rng.standard_normal((2, 16)),
        rng.standard_normal((2, 10)) + 1j * rng.standard_normal((2, 10)),
    ]
    gains = rng.random((2, 4))
    return (coefs, gains)
