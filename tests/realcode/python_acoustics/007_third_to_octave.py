"""Source: https://github.com/python-acoustics/python-acoustics/blob/fa1d73fecbc266cbdac9320e5f28eefb7d989165/acoustics/core/bands.py (function `third2oct`, lines 90-113)
Project: python-acoustics/python-acoustics
Description: converts third-octave band levels into octave band levels by energetically summing
each group of three adjacent third-octave levels, row by row.

From a 2014 version of the project (the function was later rewritten without loops); the
project's `esum` and `_is_1d` helpers from acoustics/utils.py at the same commit are inlined.
The source assigns `esum(thirds)` (a length-1 array) to one cell; NumPy 2.4 rejects that, so the
one element is taken with `[0]`, the only change to the loop.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every (i, j) cell of the preallocated output is computed from its own slice of the input",
}

TOL = {"rtol": 1e-9, "atol": 1e-9}


def _is_1d(input):
    if type(input) is int or type(input) is float:
        return input
    elif input.ndim == 1:
        return np.array([input])
    elif input.ndim == 2 and input.shape[0] == 1:
        return input[0]
    else:
        return input


def esum(levels, axis=1):
    levels = _is_1d(levels)
    return 10 * np.log10(np.sum(10**(levels/10), axis=axis))


def original(spl):
    spl = _is_1d(spl)
    nrows = int(spl.shape[0])
    ncols = int(spl.shape[1]/3)
    octave = np.zeros((nrows, ncols))
    for i in range(nrows):
        for j in range(ncols):
            group = spl[i, 3*j:3*j+3]
            octave[i, j] = esum(group)[0]
    return _is_1d(octave)


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(40.0, 80.0, (4, 9)),)
