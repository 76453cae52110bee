"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/gmm/gmm.py (function `GMM._M_step`, lines 226-238)
Project: ddbourgin/numpy-ml
Description: M-step covariance update: for each component, sum responsibility-weighted outer products of centred points and divide by the component's total responsibility when it is positive.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each component builds its own accumulator (an inner += reduction over points) and writes only its own covariance slice",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(X, resp, means, covs, n_comp):
    n, d = X.shape
    totals = np.sum(resp, axis=0)

    for c in range(n_comp):
        m_c = means[c, :]
        t_c = totals[c]

        acc = np.zeros((d, d))
        for i in range(n):
            r = resp[i, c]
            xi = X[i, :]
            acc += r * np.outer(xi - m_c, xi - m_c)

        acc = acc / t_c if t_c > 0 else acc
        covs[c, :, :] = acc
    return covs


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, k = 10, 3, 4
    X = rng.standard_normal((n, d))
    resp = rng.dirichlet(np.ones(k - 1), size=n)
    resp = np.concatenate([resp, np.zeros((n, 1))], axis=1)
    means = rng.standard_normal((k, d))
    covs = np.zeros((k, d, d))
    return (X, resp, means, covs, k)
