"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/classifiers/k_nearest_neighbor.py (function `KNearestNeighbor.compute_distances_one_loop`, lines 85-107)
Project: 0809zheng/CS231n-assignment2019
Description: Fill each row of a test-by-train distance matrix with the Euclidean distances from one test row to all training rows, using broadcasting.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each iteration writes only row i of the preallocated matrix from row i of X and the whole training set",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(X, X_ref):
    n_q = X.shape[0]
    n_r = X_ref.shape[0]
    D = np.zeros((n_q, n_r))
    for i in range(n_q):
        D[i, :] = np.sqrt(np.sum(np.square((X[i]-X_ref)), axis = 1))
    return D


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((6, 5)), rng.standard_normal((9, 5)))
