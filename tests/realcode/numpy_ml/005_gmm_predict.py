"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/gmm/gmm.py (function `GMM.predict`, lines 145-183)
Project: ddbourgin/numpy-ml
Description: For each point, compute its log density under every mixture component and collect either the whole row or the index of the best component.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each point's log densities depend only on that point and the fixed parameters; results are appended to a list in order",
}
TOL = {"rtol": 1e-9, "atol": 1e-9}


def log_normal_density(x, mean, cov):
    n = len(mean)
    a = n * np.log(2 * np.pi)
    _, b = np.linalg.slogdet(cov)

    y = np.linalg.solve(cov, x - mean)
    c = np.dot(x - mean, y)
    return -0.5 * (a + b + c)


def original(X, means, covs, n_comp, soft=True):
    out = []
    for x in X:
        lp = [log_normal_density(x, means[c, :], covs[c, :, :]) for c in range(n_comp)]

        if not soft:
            out.append(np.argmax(lp))
        else:
            out.append(lp)

    return np.array(out)


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, k = 9, 3, 4
    X = rng.standard_normal((n, d))
    means = rng.standard_normal((k, d))
    covs = np.empty((k, d, d))
    for c in range(k):
        R = rng.standard_normal((d, d))
        covs[c] = np.eye(d) + R @ R.T
    return (X, means, covs, k, seed % 2 == 0)
