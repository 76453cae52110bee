"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/classifiers/linear_svm.py (function `svm_loss_naive`, lines 56-64)
Project: 0809zheng/CS231n-assignment2019
Description: Hinge-loss gradient: for every sample and every wrong class whose margin is active, add the sample to that class's weight column and subtract it from the correct class's column; then average and add the regularisation gradient.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each sample only adds into or subtracts from columns of dW (a scatter-add reduction); nothing read in an iteration was written by another",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(W, X, y, reg):
    G = np.zeros(W.shape)
    n_cls = W.shape[1]
    n = X.shape[0]

    for i in range(n):
        s = X[i].dot(W)
        t = y[i]
        for j in range(n_cls):
            if j != t and s[j] >= s[t]-1:
                G[:,j] += X[i]
                G[:,t] -= X[i]

    G /= n
    G += 2*reg*W
    return G


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, c = 10, 6, 4
    W = 0.5 * rng.standard_normal((d, c))
    X = rng.standard_normal((n, d))
    y = rng.integers(0, c, size=n)
    return (W, X, y, 0.1)
