"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (method `AntoniOctaveFilterBank.wavelet_synthesis`, lines 746-767)
Project: LCAV/pyroomacoustics
Description: maps each band's analysis coefficients back to its slice of the spectrum (inverse of
the Antoni decomposition), writes it into that band's column, then inverse-FFTs every band to get
the band-pass time signals.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "iteration idx writes only column idx of the preallocated spectrum array, from its own coefficients and window",
}

TOL = {"rtol": 1e-9, "atol": 1e-9}


def original(coefs, windows, lo_bin, mid_bin, band_ids, n_fft, padded_len, out_len, out_dtype):
    n_bins = n_fft // 2 + 1

    spec = np.zeros(
        coefs[0].shape[:-1] + (padded_len, len(coefs)),
        dtype=out_dtype,
    )

    for i, b in enumerate(band_ids):
        c = coefs[i]
        w = windows[i]
        n = c.shape[-1] // 2
        idx = lo_bin[b] + np.arange(2 * n, dtype=int)
        delta = np.sqrt(1 / (2.0 * n))

        # Synthesis
        factor = (-1j) ** b * w * delta
        cexp1 = np.exp(-1j * np.pi * (idx - mid_bin[b]) * (n - 1) / n)
        cexp2 = np.exp(-1j * np.pi * (mid_bin[b] - lo_bin[b]) * np.arange(2 * n) / n)
        y = np.conj(np.fft.fft(np.conj(cexp2 * c)))
        spec[..., lo_bin[b] : lo_bin[b] + 2 * n, i] = factor * cexp1 * y

    # Synthesize the output band-pass signals.
    out = np.fft.irfft(spec[..., :n_bins, :], axis=-2) * np.sqrt(n_fft)
    return out[..., :out_len, :]


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    lo_bin = np.array([0, 2, 5, 10, 20])
    mid_bin = np.array([2, 4, 8, 16, 32])
    coefs = [
        rng.standard_normal((3, 6)) + 1j * rng.standard_normal((3, 6)),
        rng.standard_normal((3, 8)) + 1j * rng.standard_normal((3, 8)),
        rng.standard_normal((3, 16)) + 1j * rng.standard_normal((3, 16)),
        rng.standard_normal((3, 24)) + 1j * rng.standard_normal((3, 24)),
        rng.standard_normal((3, 14)) + 1j * rng.standard_normal((3, 14)),
    ]
    windows = [rng.random(6), rng.random(8), rng.random(16), rng.random(24), rng.random(14)]
    return (coefs, windows, lo_bin, mid_bin, np.arange(5), 64, 34, 40, np.complex128)
