"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/classifiers/k_nearest_neighbor.py (function `KNearestNeighbor.compute_distances_two_loops`, lines 53-83)
Project: 0809zheng/CS231n-assignment2019
Description: Fill a test-by-train matrix with the Euclidean distance between every test row and every training row, one pair at a time.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each (i, j) entry of the preallocated matrix is computed from row i of X and row j of the training set only",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(X, X_ref):
    n_q = X.shape[0]
    n_r = X_ref.shape[0]
    D = np.zeros((n_q, n_r))
    for i in range(n_q):
        for j in range(n_r):
            D[i, j] = np.sqrt(np.sum(np.square((X[i] - X_ref[j]))))
    return D


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((6, 5)), rng.standard_normal((9, 5)))
