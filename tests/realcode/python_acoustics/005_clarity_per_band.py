"""Source: https://github.com/python-acoustics/python-acoustics/blob/99d79206159b822ea2f4e9d27c8b2fbfeb704d38/acoustics/room.py (function `clarity`, lines 242-248)
Project: python-acoustics/python-acoustics
Description: for each frequency band, band-pass filters an impulse response and takes the ratio in
dB of the energy before a time limit to the energy after it (clarity index).

The project's `bandpass` helper (a scipy Butterworth filter) is replaced by a small NumPy stand-in
with the same call form, because scipy is not installed in this environment; the loop is unchanged.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each band filters the same input and writes only its own slot out[band]",
}

TOL = {"rtol": 1e-6, "atol": 1e-9}


def bandpass(signal, lowcut, highcut, fs, order=8):
    spectrum = np.fft.rfft(signal)
    freqs = np.fft.rfftfreq(len(signal), 1.0 / fs)
    spectrum[(freqs < lowcut) | (freqs > highcut)] = 0.0
    return np.fft.irfft(spectrum, n=len(signal))


def original(limit_ms, response, fs, centers, lower, upper):
    out = np.zeros(centers.size)
    for k in range(centers.size):
        band_signal = bandpass(response, lower[k], upper[k], fs, order=8)
        energy = band_signal**2.0
        split = int((limit_ms / 1000.0) * fs + 1)
        out[k] = 10.0 * np.log10((np.sum(energy[:split]) / np.sum(energy[split:])))
    return out


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    fs = 8000
    n = 40
    response = rng.standard_normal(n) * np.exp(-0.1 * np.arange(n))
    centers = np.array([500.0, 1000.0, 2000.0])
    lower = centers / 2.0**0.5
    upper = centers * 2.0**0.5
    return (2.0, response, fs, centers, lower, upper)
