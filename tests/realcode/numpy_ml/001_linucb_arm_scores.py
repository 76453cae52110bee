"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/bandits/policies.py (function `LinUCB._select_arm`, lines 467-476)
Project: ddbourgin/numpy-ml
Description: For each arm, solve for the ridge estimate from that arm's design matrix and score the arm's context column by estimate plus an exploration bonus; return the best arm.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each arm's score uses only that arm's matrix, vector and context column; the list is only appended to and argmax is taken after the loop",
}


def original(mats, vecs, ctx, bonus, n_arms):
    scores = []
    for k in range(n_arms):
        col, M, v = ctx[:, k], mats[k], vecs[k]
        M_inv = np.linalg.inv(M)
        est = M_inv @ v
        s = est @ col + bonus * np.sqrt(col.T @ M_inv @ col)

        scores.append(s)
    return np.argmax(scores)


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    d, k = 5, 4
    mats = []
    vecs = []
    for _ in range(k):
        R = rng.standard_normal((d, d))
        mats.append(np.eye(d) + R @ R.T)
        vecs.append(rng.standard_normal(d))
    ctx = rng.standard_normal((d, k))
    return (mats, vecs, ctx, 1.0, k)
