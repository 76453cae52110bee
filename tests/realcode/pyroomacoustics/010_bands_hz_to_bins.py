"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `bands_hz2s`, lines 935-965)
Project: LCAV/pyroomacoustics
Description: converts frequency bands in Hz to FFT bin indices, ends the last band at N/2, then
walks the list removing any band whose start bin equals the next band's start bin.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "while loop that pops from the list it walks; the index only advances when nothing was removed, so each step depends on the previous ones",
}


def original(edges_hz, rate, n_fft, transform="dft"):

    # set the bin width
    if transform == "dct":
        width = rate / 2 / n_fft
    else:
        width = rate / n_fft

    # upper limit of the frequency range
    top = min(rate / 2, edges_hz[-1, 1])

    # Convert from Hertz to samples for all bands
    edges = [np.around(e / width) for e in edges_hz if e[0] <= top]

    # Last band ends at N/2
    edges[-1][1] = n_fft / 2

    # remove duplicate, if any, (typically, if N is small and Fs is large)
    j = 0
    while j < len(edges) - 1:
        if edges[j][0] == edges[j + 1][0]:
            edges.pop(j)
        else:
            j += 1

    return np.array(edges, dtype=int)


def make_inputs(seed=0):
    centres = 125.0 * 2.0 ** np.arange(7)
    edges_hz = np.stack([centres / 2.0**0.5, centres * 2.0**0.5], axis=1)
    n_fft = [16, 64, 32][seed % 3]
    transform = ["dft", "dft", "dct"][seed % 3]
    return (edges_hz, 16000, n_fft, transform)
