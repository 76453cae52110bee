"""Source: https://github.com/python-acoustics/python-acoustics/blob/99d79206159b822ea2f4e9d27c8b2fbfeb704d38/acoustics/room.py (function `t60_impulse`, lines 194-218)
Project: python-acoustics/python-acoustics
Description: for each frequency band, band-pass filters an impulse response, builds its Schroeder
decay curve in dB, fits a line between two decay levels and extrapolates the reverberation time.

The project's `bandpass` (a scipy Butterworth filter) and `scipy.stats.linregress` are replaced by
small NumPy stand-ins of the same call form, because scipy is not installed in this environment;
the loop itself is unchanged.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each band filters the same input and writes only its own slot t60[band]; nothing carries between bands",
}

TOL = {"rtol": 1e-6, "atol": 1e-9}


def bandpass(signal, lowcut, highcut, fs, order=8):
    spectrum = np.fft.rfft(signal)
    freqs = np.fft.rfftfreq(len(signal), 1.0 / fs)
    spectrum[(freqs < lowcut) | (freqs > highcut)] = 0.0
    return np.fft.irfft(spectrum, n=len(signal))


class stats:
    @staticmethod
    def linregress(x, y):
        xm = x.mean()
        ym = y.mean()
        slope = np.sum((x - xm) * (y - ym)) / np.sum((x - xm) ** 2)
        return slope, ym - slope * xm


def original(response, fs, centers, lower, upper, start_db, stop_db, factor):
    rt = np.zeros(centers.size)

    for k in range(centers.size):
        # Filtering signal
        band_signal = bandpass(response, lower[k], upper[k], fs, order=8)
        env = np.abs(band_signal) / np.max(np.abs(band_signal))

        # Schroeder integration
        decay = np.cumsum(env[::-1]**2)[::-1]
        decay_db = 10.0 * np.log10(decay / np.max(decay))

        # Linear regression
        level_a = decay_db[np.abs(decay_db - start_db).argmin()]
        level_b = decay_db[np.abs(decay_db - stop_db).argmin()]
        idx_a = np.where(decay_db == level_a)[0][0]
        idx_b = np.where(decay_db == level_b)[0][0]
        t = np.arange(idx_a, idx_b + 1) / fs
        seg = decay_db[idx_a:idx_b + 1]
        slope, intercept = stats.linregress(t, seg)[0:2]

        # Reverberation time
        t_a = (start_db - intercept) / slope
        t_b = (stop_db - intercept) / slope
        rt[k] = factor * (t_b - t_a)
    return rt


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    fs = 8000
    n = 40
    response = rng.standard_normal(n) * np.exp(-0.15 * np.arange(n))
    centers = np.array([500.0, 1000.0, 2000.0])
    lower = centers / 2.0**0.5
    upper = centers * 2.0**0.5
    return (response, fs, centers, lower, upper, -5.0, -25.0, 3.0)
