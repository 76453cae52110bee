"""Source: https://github.com/python-acoustics/python-acoustics/blob/99d79206159b822ea2f4e9d27c8b2fbfeb704d38/acoustics/standards/iso_1996_2_2007.py (function `_search_noise_pauses`, lines 597-607)
Project: python-acoustics/python-acoustics
Description: scans spectral levels for a steep rise followed later by a steep fall (by at least
the tone-seeking criterion) and records each (start, end) index pair as a possible noise pause.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "the pending start index is state carried from earlier iterations and reset when a pause is closed",
}


def original(spl, criterion):
    found = list()
    pending = None
    for i in range(2, len(spl) - 2):
        if (spl[i] - spl[i - 1]) >= criterion and (spl[i - 1] - spl[i - 2]) < criterion:
            pending = i
        if (spl[i] - spl[i + 1]) >= criterion and (spl[i + 1] - spl[i + 2]) < criterion:
            if pending:
                found.append((pending, i))
                pending = None
    return found


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    spl = 40.0 + rng.standard_normal(30)
    spl[0:4] += 12.0
    spl[8:10] += 12.0
    spl[20] += 15.0
    return (spl, 6.0)
