"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/factorization/factors.py (function `NMF._update_W`, lines 262-275)
Project: ddbourgin/numpy-ml
Description: One fast-HALS sweep over the columns of the W factor, updating each column in place, clipping it to be nonnegative and rescaling it to unit norm.
"""
import numpy as np


EXPECT = {
    "vectorizable": False,
    "why": "column k is updated with W @ HHt[:, k], which reads every column of W including those already overwritten by earlier iterations of the in-place sweep",
}


def original(X, W, H, n_comp):
    tiny = np.finfo(float).eps
    XH = X @ H.T
    HH = H @ H.T

    for k in range(n_comp):
        W[:, k] = W[:, k] * HH[k, k] + XH[:, k] - W @ HH[:, k]
        W[:, k] = np.clip(W[:, k], tiny, np.inf)

        nrm = np.linalg.norm(W[:, k])
        W[:, k] /= nrm if nrm > 0 else 1.0
    return W


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, m, k = 7, 6, 3
    X = np.abs(rng.standard_normal((n, m)))
    W = np.abs(rng.standard_normal((n, k)))
    H = np.abs(rng.standard_normal((k, m)))
    return (X, W, H, k)
