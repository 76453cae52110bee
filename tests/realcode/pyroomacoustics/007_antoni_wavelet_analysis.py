"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (method `AntoniOctaveFilterBank.wavelet_analysis`, lines 689-706)
Project: LCAV/pyroomacoustics
Description: for each octave band, windows the band's slice of the signal spectrum, takes forward
FFTs of the windowed spectrum and of its conjugate, and assembles the band's complex analysis
coefficients; the nonzero part of each band window is kept as well.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each band reads the shared spectrum and window and appends its own results to two collector lists",
}

TOL = {"rtol": 1e-9, "atol": 1e-9}


def original(spec, win, lo_bin, mid_bin, half_len, band_ids):
    coefs = []  # X_ij in the paper
    kept = []
    for b in band_ids:
        n = half_len[b]
        idx = lo_bin[b] + np.arange(2 * n, dtype=int)
        delta = np.sqrt(1 / (2.0 * n))
        kept.append(win[b, idx])

        # Analysis
        j = np.arange(-n + 1, n + 1)
        factor = 1j**b * delta
        cexp = np.exp(1j * np.pi * (mid_bin[b] - lo_bin[b]) * j / n)
        w_pos = np.fft.fft(win[b, idx] * spec[..., idx], axis=-1)
        w_neg = np.conj(np.fft.fft(win[b, idx] * np.conj(spec[..., idx]), axis=-1))
        w_all = np.concatenate(
            (w_neg[..., n - 1 : 0 : -1], w_pos[..., : n + 1]), axis=-1
        )
        coefs.append(factor * cexp * w_all)

    return coefs, kept


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    lo_bin = np.array([0, 2, 5, 10, 20])
    mid_bin = np.array([2, 4, 8, 16, 32])
    hi_bin = np.array([5, 10, 20, 33, 33])
    half_len = np.ceil((hi_bin - lo_bin) / 2.0).astype(int)
    width = int(np.max(lo_bin + 2 * half_len))
    spec = rng.standard_normal((3, width)) + 1j * rng.standard_normal((3, width))
    win = rng.random((5, width))
    return (spec, win, lo_bin, mid_bin, half_len, np.arange(5))
