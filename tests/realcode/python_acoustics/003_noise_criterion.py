"""Source: https://github.com/python-acoustics/python-acoustics/blob/99d79206159b822ea2f4e9d27c8b2fbfeb704d38/acoustics/criterion.py (function `nc`, lines 38-56)
Project: python-acoustics/python-acoustics
Description: finds the lowest noise-criterion (NC) curve that lies on or above every octave-band
level, or '70+' when even the NC-70 curve is exceeded.
"""
import numpy as np

CURVES = {
    15: np.array([47.0, 36.0, 29.0, 22.0, 17.0, 14.0, 12.0, 11.0]),
    20: np.array([51.0, 40.0, 33.0, 26.0, 22.0, 19.0, 17.0, 16.0]),
    25: np.array([54.0, 44.0, 37.0, 31.0, 27.0, 24.0, 22.0, 21.0]),
    30: np.array([57.0, 48.0, 41.0, 35.0, 31.0, 29.0, 28.0, 27.0]),
    35: np.array([60.0, 52.0, 45.0, 40.0, 36.0, 34.0, 33.0, 32.0]),
    40: np.array([64.0, 56.0, 50.0, 45.0, 41.0, 39.0, 38.0, 37.0]),
    45: np.array([67.0, 60.0, 54.0, 49.0, 46.0, 44.0, 43.0, 42.0]),
    50: np.array([71.0, 64.0, 58.0, 54.0, 51.0, 49.0, 48.0, 47.0]),
    55: np.array([74.0, 67.0, 62.0, 58.0, 56.0, 54.0, 53.0, 52.0]),
    60: np.array([77.0, 71.0, 67.0, 63.0, 61.0, 59.0, 58.0, 57.0]),
    65: np.array([80.0, 75.0, 71.0, 68.0, 66.0, 64.0, 63.0, 62.0]),
    70: np.array([83.0, 79.0, 75.0, 72.0, 71.0, 70.0, 69.0, 68.0])
}

EXPECT = {
    "vectorizable": False,
    "why": "search loop that leaves with break at the first curve that fits and returns the loop variable",
}


def curve_for(rating):
    return CURVES.get(rating)


def original(spl):
    ratings = np.arange(15, 71, 5)
    for rating in ratings:
        limit = curve_for(rating)
        if (spl <= limit).all():
            break
        if rating == 70:
            rating = '70+'
            break
    return rating


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    if seed % 3 == 2:
        return (rng.uniform(70.0, 90.0, 8),)
    return (CURVES[15] + rng.uniform(0.0, 25.0, 8),)
