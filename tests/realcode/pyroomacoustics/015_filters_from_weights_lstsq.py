"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/beamforming.py (method `Beamformer.filters_from_weights`, lines 624-659)
Project: LCAV/pyroomacoustics
Description: turns frequency-domain beamforming weights into time-domain filters, either by an
inverse FFT when the FFT is short enough, or per microphone by a least-squares fit of a partial
Fourier matrix to the conjugate-symmetric weight vector.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each microphone solves its own least-squares problem and writes only its own row of the filter array",
}

TOL = {"rtol": 1e-6, "atol": 1e-9}


def original(weights, n_mics, n_fft, filt_len, non_causal=0.0):

    if weights is None:
        raise NameError("Weights must be defined.")

    filters = np.zeros((n_mics, filt_len))

    if n_fft <= filt_len:
        # go back to time domain and shift DC to center
        tw = np.fft.irfft(np.conj(weights), axis=1, n=n_fft)
        filters[:, :n_fft] = np.concatenate(
            (tw[:, -n_fft // 2 :], tw[:, : n_fft // 2]), axis=1
        )

    elif n_fft > filt_len:
        # Least-square projection
        for i in np.arange(n_mics):
            n_pos = np.floor((1 - non_causal) * filt_len)
            n_neg = filt_len - n_pos
            # the beamforming weights in frequency are the complex
            # conjugates of the FT of the filter
            w = np.concatenate((np.conj(weights[i]), weights[i, -2:0:-1]))

            # create partial Fourier matrix
            k = np.arange(n_fft)[:, np.newaxis]
            l = np.concatenate((np.arange(n_fft - n_neg, n_fft), np.arange(n_pos)))
            F = np.exp(-2j * np.pi * k * l / n_fft)

            filters[i] = np.real(np.linalg.lstsq(F, w, rcond=None)[0])

    return filters


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n_mics, n_fft = 4, 16
    weights = rng.standard_normal((n_mics, n_fft // 2 + 1)) + 1j * rng.standard_normal((n_mics, n_fft // 2 + 1))
    filt_len = [8, 20, 10][seed % 3]
    return (weights, n_mics, n_fft, filt_len, [0.0, 0.0, 0.25][seed % 3])
