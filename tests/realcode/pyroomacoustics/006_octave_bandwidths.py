"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (method `OctaveBandsFactory.get_bw`, lines 415-422)
Project: LCAV/pyroomacoustics
Description: computes the bandwidth of each octave band, taking the first band down to 0 Hz when
DC is kept and clipping the upper edge at the Nyquist frequency.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each band's width depends only on its own edges; results are collected in a list",
}


def original(edges, keep_dc, fs):
    widths = []
    for b, (b1, b2) in enumerate(edges):
        lo = 0.0 if b == 0 and keep_dc else b1
        hi = min(b2, fs / 2.0)
        widths.append(hi - lo)
    return np.array(widths)


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    centres = 125.0 * (1.0 + 0.05 * rng.random()) * 2.0 ** np.arange(7)
    edges = np.stack([centres / 2.0**0.5, centres * 2.0**0.5], axis=1)
    return (edges, seed % 2 == 0, 16000.0)
