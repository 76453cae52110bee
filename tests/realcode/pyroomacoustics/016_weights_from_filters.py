"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/beamforming.py (method `Beamformer.weights_from_filters`, lines 661-671)
Project: LCAV/pyroomacoustics
Description: computes frequency-domain beamforming weights as the conjugate real FFT of each
microphone's time-domain filter, one microphone at a time.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each microphone's FFT is written into its own row of the preallocated weight array",
}

TOL = {"rtol": 1e-9, "atol": 1e-9}


def original(filters, n_mics, n_fft):
    if filters is None:
        raise NameError("Filters must be defined.")

    # this is what we want to use, really.
    # weights = np.conj(np.fft.rfft(filters, n=n_fft, axis=1))

    # quick hack to be able to use MKL acceleration package from anaconda
    weights = np.zeros((n_mics, n_fft // 2 + 1), dtype=np.complex128)
    for m in range(n_mics):
        weights[m] = np.conj(np.fft.rfft(filters[m], n=n_fft))
    return weights


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((5, 12)), 5, 16)
