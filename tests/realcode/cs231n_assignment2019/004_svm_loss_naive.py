"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/classifiers/linear_svm.py (function `svm_loss_naive`, lines 6-45)
Project: 0809zheng/CS231n-assignment2019
Description: Multiclass hinge loss: for every sample and every wrong class, add the positive part of (wrong score - correct score + 1), then average and add L2 regularisation.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each sample's scores use only that sample; the loss is a sum reduction, and `continue` only skips the correct class",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(W, X, y, reg):
    n_cls = W.shape[1]
    n = X.shape[0]
    total = 0.0
    for i in range(n):
        s = X[i].dot(W)
        s_true = s[y[i]]
        for j in range(n_cls):
            if j == y[i]:
                continue
            m = s[j] - s_true + 1
            if m > 0:
                total += m

    total /= n

    total += reg * np.sum(W * W)
    return total


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, c = 10, 6, 4
    W = 0.5 * rng.standard_normal((d, c))
    X = rng.standard_normal((n, d))
    y = rng.integers(0, c, size=n)
    return (W, X, y, 0.1)
