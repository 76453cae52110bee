"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/gmm/gmm.py (function `GMM.likelihood_lower_bound`, lines 65-91)
Project: ddbourgin/numpy-ml
Description: Accumulate the two expectation terms of the GMM evidence lower bound over every (point, component) pair and return their difference.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every (i, c) pair only reads inputs and adds into the two scalar sums, which are reductions",
}
TOL = {"rtol": 1e-9, "atol": 1e-9}


def log_normal_density(x, mean, cov):
    n = len(mean)
    a = n * np.log(2 * np.pi)
    _, b = np.linalg.slogdet(cov)

    y = np.linalg.solve(cov, x - mean)
    c = np.dot(x - mean, y)
    return -0.5 * (a + b + c)


def original(X, weights, resp, means, covs, n_comp):
    n = X.shape[0]
    tiny = np.finfo(float).eps
    term1, term2 = 0.0, 0.0
    for i in range(n):
        x = X[i]

        for c in range(n_comp):
            w_c = weights[c]
            r = resp[i, c]
            m_c = means[c, :]
            s_c = covs[c, :, :]

            log_w = np.log(w_c + tiny)
            log_px = log_normal_density(x, m_c, s_c)
            val = r * (log_px + log_w)

            term1 += val
            term2 += r * np.log(r + tiny)

    total = term1 - term2
    return total


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, k = 8, 3, 3
    X = rng.standard_normal((n, d))
    weights = rng.dirichlet(np.ones(k))
    resp = rng.dirichlet(np.ones(k), size=n)
    means = rng.standard_normal((k, d))
    covs = np.empty((k, d, d))
    for c in range(k):
        R = rng.standard_normal((d, d))
        covs[c] = np.eye(d) + R @ R.T
    return (X, weights, resp, means, covs, k)
