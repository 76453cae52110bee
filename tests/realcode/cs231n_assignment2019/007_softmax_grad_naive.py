"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/classifiers/softmax.py (function `softmax_loss_naive`, lines 36-58)
Project: 0809zheng/CS231n-assignment2019
Description: Softmax cross-entropy gradient with three nested loops: every (sample, feature, class) triple adds probability times feature into the gradient, minus the feature for the correct class; then average and add the regularisation gradient.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every (i, d, c) iteration only adds into dW[d, c] from inputs (a sum reduction over samples); no iteration reads another's result",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(W, X, y, reg):
    G = np.zeros_like(W)

    n, d = X.shape
    n_cls = W.shape[1]
    S = X.dot(W)

    S_shift = S - np.max(S, axis = 1, keepdims = True)
    E = np.exp(S_shift)
    P = E/np.sum(E, axis = 1, keepdims = True)

    for i in range(n):
        for f in range(d):
            for c in range(n_cls):
                G[f, c] += (P[i, c]*X[i, f])
                if c == y[i]:
                    G[f, c] -= X[i, f]

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
