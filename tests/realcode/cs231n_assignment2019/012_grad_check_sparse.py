"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/gradient_check.py (function `grad_check_sparse`, lines 108-129)
Project: 0809zheng/CS231n-assignment2019
Description: Spot-check an analytic gradient: at a few randomly chosen indices, compute the centred finite difference by nudging x in place and print it beside the analytic value and their relative error.
"""
from random import randrange

import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each iteration draws random indices, writes x in place before calling f, and prints",
}


def quadratic_loss(W, X):
    return 0.5 * np.sum(X.dot(W) ** 2)


def original(f, x, grad, n_checks=10, h=1e-5):

    for i in range(n_checks):
        ix = tuple([randrange(m) for m in x.shape])

        old = x[ix]
        x[ix] = old + h
        fp = f(x)
        x[ix] = old - h
        fm = f(x)
        x[ix] = old

        g_num = (fp - fm) / (2 * h)
        g_ana = grad[ix]
        rel = (abs(g_num - g_ana) /
               (abs(g_num) + abs(g_ana)))
        print('numerical: %f analytic: %f, relative error: %e'
              %(g_num, g_ana, rel))


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((5, 3))
    W = rng.standard_normal((3, 4))
    grad = X.T.dot(X.dot(W))
    return (lambda w: quadratic_loss(w, X), W, grad, 5)
