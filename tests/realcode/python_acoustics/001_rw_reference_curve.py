"""Source: https://github.com/python-acoustics/python-acoustics/blob/99d79206159b822ea2f4e9d27c8b2fbfeb704d38/acoustics/building.py (function `rw_curve`, lines 11-26)
Project: python-acoustics/python-acoustics
Description: shifts a reference transmission-loss curve up one dB at a time until the sum of
unfavourable deviations of the measured data from it drops to -32 dB or below, then steps back one.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "while loop whose trip count depends on the data; each pass shifts the curve the previous pass left and tests it again",
}


def original(loss):
    curve = np.array([0, 3, 6, 9, 12, 15, 18, 19, 20, 21, 22, 23, 23, 23, 23, 23])
    total = 0
    while total > -32:
        curve += 1
        deviation = loss - curve
        total = np.sum(np.clip(deviation, np.min(deviation), 0))
    curve -= 1
    return curve


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (np.sort(rng.uniform(20.0, 60.0, 16)),)
