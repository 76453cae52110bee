"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/classifiers/softmax.py (function `softmax_loss_naive`, lines 36-48)
Project: 0809zheng/CS231n-assignment2019
Description: Softmax cross-entropy loss: compute stable softmax probabilities, sum the negative log probability of each sample's correct class, average and add L2 regularisation.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each sample contributes one term read from the precomputed probabilities to a running sum (a reduction)",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(W, X, y, reg):
    total = 0.0

    n, d = X.shape
    n_cls = W.shape[1]
    S = X.dot(W)

    S_shift = S - np.max(S, axis = 1, keepdims = True)
    E = np.exp(S_shift)
    P = E/np.sum(E, axis = 1, keepdims = True)

    for i in range(n):
        total -= np.log(P[i,y[i]])

    total /= n
    total += reg*np.sum(np.square(W))
    return total


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, c = 10, 6, 4
    W = 0.5 * rng.standard_normal((d, c))
    X = rng.standard_normal((n, d))
    y = rng.integers(0, c, size=n)
    return (W, X, y, 0.1)
