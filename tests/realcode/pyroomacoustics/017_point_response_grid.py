"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/beamforming.py (method `Beamformer.plot_response_from_point`, lines 791-798)
Project: LCAV/pyroomacoustics
Description: evaluates the beamformer response at each source point and each frequency as the
inner product of the conjugate weights with the near-field steering vector to that point (the
values the method then plots).

The methods `H`, `distance` and `steering_vector_2D_from_point` (attribute reads of the array
geometry made into arguments) are inlined from the same file.
"""
import numpy as np

SPEED_OF_SOUND = 343.0

EXPECT = {
    "vectorizable": True,
    "why": "each (point, frequency) pair computes one response value into its own cell of the preallocated array",
}

TOL = {"rtol": 1e-9, "atol": 1e-12}


def H(A, **kwargs):
    return np.transpose(A, **kwargs).conj()


def distance(x, y):
    x = np.array(x)
    y = np.array(y)
    return np.sqrt(np.sum((x[:, :, np.newaxis] - y[:, np.newaxis, :]) ** 2, axis=0))


def steering_vector_2D_from_point(mics, centre, frequency, source, attn=True, ff=False):
    X = np.array(source)
    if X.ndim == 1:
        X = source[:, np.newaxis]

    omega = 2 * np.pi * frequency

    # normalize for far-field if requested
    if ff:
        # unit vectors pointing towards sources
        p = X - centre
        p /= np.linalg.norm(p)

        # The projected microphone distances on the unit vectors
        D = -1 * np.dot(mics.T, p)

        # subtract minimum in each column
        D -= np.min(D)

    else:
        D = distance(mics, X)

    phase = np.exp(-1j * omega * D / SPEED_OF_SOUND)

    if attn:
        return 1.0 / (4 * np.pi) / D * phase
    else:
        return phase


def original(points, weights, freqs, mics, centre):
    resp = np.zeros((points.shape[1], freqs.shape[0]), dtype=complex)
    for k, p in enumerate(points.T):
        for i, f in enumerate(freqs):
            r = np.dot(
                H(weights[:, i]),
                steering_vector_2D_from_point(mics, centre, f, p, attn=True, ff=False),
            )
            resp[k, i] = r[0]
    return resp


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n_mics, n_fft, fs = 4, 16, 8000.0
    mics = rng.uniform(-0.1, 0.1, (2, n_mics))
    centre = mics.mean(axis=1, keepdims=True)
    freqs = np.arange(0, n_fft // 2 + 1) / n_fft * fs
    weights = rng.standard_normal((n_mics, freqs.shape[0])) + 1j * rng.standard_normal((n_mics, freqs.shape[0]))
    points = rng.uniform(1.0, 3.0, (2, 5))
    return (points, weights, freqs, mics, centre)
