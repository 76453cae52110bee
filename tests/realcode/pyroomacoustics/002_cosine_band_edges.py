"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `cosine_magnitude_octave_filter_response`, lines 189-195)
Project: LCAV/pyroomacoustics
Description: builds the list of band edges for a cosine octave filterbank, each inner band running
from the previous centre frequency to the next one.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each iteration appends a pair read from the input centres only; the list is a collector",
}


def original(centres, fs):
    count = len(centres)

    edges = [[centres[0] / 2, centres[1]]]

    for i in range(1, count - 1):
        edges.append([centres[i - 1], centres[i + 1]])
    edges.append([centres[-2], fs / 2])
    return edges


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    base = 125.0 * (1.0 + 0.1 * rng.random())
    centres = base * 2.0 ** np.arange(6)
    return (centres, 16000.0)
