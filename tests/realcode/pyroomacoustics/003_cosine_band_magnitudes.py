"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `cosine_magnitude_octave_filter_response`, lines 197-219)
Project: LCAV/pyroomacoustics
Description: fills the magnitude response of each octave band with raised-cosine rising and falling
edges over the FFT frequency grid, with a flat first band and a shelving last band.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "iteration b writes only column b of the preallocated response, through masks computed from its own band",
}


def original(n_fft, centres, fs, keep_dc, edges):
    count = len(centres)
    n_bins = n_fft // 2 + 1
    resp = np.zeros((n_bins, count))

    grid = np.arange(n_bins) / n_fft * fs  # This only contains positive newfrequencies

    for b, (edge, centre) in enumerate(zip(edges, centres)):
        if b == 0 and keep_dc:
            # Converting Octave bands so that the minimum phase filters do not
            # have ripples.
            below = grid < centre
            resp[below, b] = 1.0
        else:
            # Rising side.
            rise = np.logical_and(edge[0] <= grid, grid < centre)
            resp[rise, b] = 0.5 * (1 + np.cos(2 * np.pi * grid[rise] / centre))

        if b != count - 1:
            # Falling side.
            fall = np.logical_and(centre <= grid, grid < edge[1])
            resp[fall, b] = 0.5 * (1 - np.cos(2 * np.pi * grid[fall] / edge[1]))
        else:
            # Shelve for the last octave band.
            fall = centre <= grid
            resp[fall, b] = 1.0
    return resp


def make_inputs(seed=0):
    fs = 16000.0
    centres = 500.0 * 2.0 ** np.arange(4)
    edges = [[centres[0] / 2, centres[1]], [centres[0], centres[2]], [centres[1], centres[3]], [centres[-2], fs / 2]]
    return (32, centres, fs, seed % 2 == 0, edges)
