"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/gmm/gmm.py (function `GMM._M_step`, lines 210-224)
Project: ddbourgin/numpy-ml
Description: M-step mean update: each component's mean is its responsibility-weighted sum of points divided by its total responsibility, or zeros when that total is zero.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each component writes only its own row of the means array from precomputed numerators and denominators",
}


def original(X, resp, means, n_comp):
    totals = np.sum(resp, axis=0)

    nums = [np.dot(resp[:, c], X) for c in range(n_comp)]
    for ix, (num, den) in enumerate(zip(nums, totals)):
        means[ix, :] = num / den if den > 0 else np.zeros_like(num)
    return means


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, k = 10, 3, 4
    X = rng.standard_normal((n, d))
    resp = rng.dirichlet(np.ones(k - 1), size=n)
    resp = np.concatenate([resp, np.zeros((n, 1))], axis=1)
    means = rng.standard_normal((k, d))
    return (X, resp, means, k)
