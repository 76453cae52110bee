"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/gmm/gmm.py (function `GMM._E_step`, lines 185-208)
Project: ddbourgin/numpy-ml
Description: E-step of EM for a Gaussian mixture: for each point, compute normalised component responsibilities with a log-sum-exp and write them into that point's row.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each point's row of responsibilities is computed from that point and the fixed parameters and written to its own row; the assertion only checks the row just computed",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def log_sum_exp(log_probs, axis=None):
    _max = np.max(log_probs)
    ds = log_probs - _max
    exp_sum = np.exp(ds).sum(axis=axis)
    return _max + np.log(exp_sum)


def log_normal_density(x, mean, cov):
    n = len(mean)
    a = n * np.log(2 * np.pi)
    _, b = np.linalg.slogdet(cov)

    y = np.linalg.solve(cov, x - mean)
    c = np.dot(x - mean, y)
    return -0.5 * (a + b + c)


def original(X, weights, resp, means, covs, n_comp):
    for i, x in enumerate(X):
        vals = []
        for c in range(n_comp):
            w_c = weights[c]
            m_c = means[c, :]
            s_c = covs[c, :, :]

            log_w = np.log(w_c)
            log_px = log_normal_density(x, m_c, s_c)

            vals.append(log_px + log_w)

        log_norm = log_sum_exp(vals)
        r = np.exp([v - log_norm for v in vals])
        np.testing.assert_allclose(np.sum(r), 1, err_msg="{}".format(np.sum(r)))

        resp[i, :] = r
    return resp


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, k = 8, 3, 3
    X = rng.standard_normal((n, d))
    weights = rng.dirichlet(np.ones(k))
    resp = np.zeros((n, k))
    means = rng.standard_normal((k, d))
    covs = np.empty((k, d, d))
    for c in range(k):
        R = rng.standard_normal((d, d))
        covs[c] = np.eye(d) + R @ R.T
    return (X, weights, resp, means, covs, k)
