"""Source: https://github.com/python-acoustics/python-acoustics/blob/99d79206159b822ea2f4e9d27c8b2fbfeb704d38/acoustics/building.py (function `stc_curve`, lines 63-82)
Project: python-acoustics/python-acoustics
Description: raises a Sound Transmission Class contour in 1 dB steps until the summed deficiencies
fall below -32 dB with at least one deficiency above -8 dB, then backs it off one step.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "while True loop that updates the contour in place each pass and leaves by break once a data-dependent test holds",
}


def original(loss):
    base = np.array([0, 3, 6, 9, 12, 15, 16, 17, 18, 19, 20, 20, 20, 20, 20, 20])
    contour = base
    total = 0
    while True:
        deviation = loss - contour
        deficits = np.clip(deviation, np.min(deviation), 0)
        total = np.sum(deficits)
        if total < -32:
            if np.any(deficits > -8):
                contour -= 1
                break
        contour += 1
    return contour


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (np.sort(rng.uniform(15.0, 55.0, 16)),)
