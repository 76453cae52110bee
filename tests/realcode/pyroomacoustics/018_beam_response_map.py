"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/beamforming.py (method `Beamformer.plot_beam_response`, lines 822-831)
Project: LCAV/pyroomacoustics
Description: computes the beamformer response over a circle of far-field directions for each
frequency, one frequency (one row) at a time (the values the method then plots).

The methods `H`, `distance` and `steering_vector_2D` (attribute reads of the array geometry made
into arguments, and the package constants as module constants) are inlined from the same file.
"""
import numpy as np

SPEED_OF_SOUND = 343.0
FAR_FIELD_DISTANCE = 10.0

EXPECT = {
    "vectorizable": True,
    "why": "iteration i fills only row i of the preallocated response from column i of the weights",
}

TOL = {"rtol": 1e-9, "atol": 1e-12}


def H(A, **kwargs):
    return np.transpose(A, **kwargs).conj()


def distance(x, y):
    x = np.array(x)
    y = np.array(y)
    return np.sqrt(np.sum((x[:, :, np.newaxis] - y[:, np.newaxis, :]) ** 2, axis=0))


def steering_vector_2D(mics, centre, frequency, phi, dist, attn=False):
    phi = np.array([phi]).reshape(phi.size)

    # Assume phi and dist are measured from the array's center
    X = dist * np.array([np.cos(phi), np.sin(phi)]) + centre

    D = distance(mics, X)
    omega = 2 * np.pi * frequency

    if attn:
        return 1.0 / (4 * np.pi) / D * np.exp(-1j * omega * D / SPEED_OF_SOUND)
    else:
        return np.exp(-1j * omega * D / SPEED_OF_SOUND)


def original(weights, freqs, mics, centre):
    angles = np.linspace(-np.pi, np.pi - np.pi / 180, 360)

    resp = np.zeros((freqs.shape[0], angles.shape[0]), dtype=complex)

    for i, f in enumerate(freqs):
        # For the moment assume that we are in 2D
        resp[i, :] = np.dot(
            H(weights[:, i]),
            steering_vector_2D(mics, centre, f, angles, FAR_FIELD_DISTANCE),
        )
    return resp


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n_mics, n_fft, fs = 4, 16, 8000.0
    mics = rng.uniform(-0.1, 0.1, (2, n_mics))
    centre = mics.mean(axis=1, keepdims=True)
    freqs = np.arange(0, n_fft // 2 + 1) / n_fft * fs
    weights = rng.standard_normal((n_mics, freqs.shape[0])) + 1j * rng.standard_normal((n_mics, freqs.shape[0]))
    return (weights, freqs, mics, centre)
