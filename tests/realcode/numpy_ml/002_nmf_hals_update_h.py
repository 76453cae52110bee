"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/factorization/factors.py (function `NMF._update_H`, lines 251-260)
Project: ddbourgin/numpy-ml
Description: One fast-HALS sweep over the rows of the H factor, updating each row in place from the Gram matrices and clipping it to stay nonnegative.
"""
import numpy as np


EXPECT = {
    "vectorizable": False,
    "why": "row k is updated with H.T @ WtW[:, k], which reads every row of H including the rows already overwritten by earlier iterations of the in-place sweep",
}


def original(X, W, H, n_comp):
    tiny = np.finfo(float).eps
    XW = X.T @ W
    WW = W.T @ W

    for k in range(n_comp):
        H[k, :] += XW[:, k] - H.T @ WW[:, k]
        H[k, :] = np.clip(H[k, :], tiny, np.inf)
    return H


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, m, k = 7, 6, 3
    X = np.abs(rng.standard_normal((n, m)))
    W = np.abs(rng.standard_normal((n, k)))
    H = np.abs(rng.standard_normal((k, m)))
    return (X, W, H, k)
