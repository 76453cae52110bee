"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/multi_class_lda.py (function `MultiClassLDA._calculate_scatter_matrices`, lines 22-34)
Project: eriklindernoren/ML-From-Scratch
Description: Within-class scatter matrix: sum over classes of (class size - 1) times the class covariance matrix.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each class's term depends only on the rows of that class and is added into SW (a sum reduction)",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def cov_matrix(X, Y=None):
    if Y is None:
        Y = X
    n = np.shape(X)[0]
    C = (1 / (n-1)) * (X - X.mean(axis=0)).T.dot(Y - Y.mean(axis=0))

    return np.array(C, dtype=float)


def original(X, y):
    d = np.shape(X)[1]
    classes = np.unique(y)

    # The project allocates this accumulator with np.empty (uninitialised
    # memory); np.zeros is used here so the result is deterministic.
    SW = np.zeros((d, d))
    for c in classes:
        Xc = X[y == c]
        SW += (len(Xc) - 1) * cov_matrix(Xc)
    return SW


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((18, 4))
    y = np.repeat(np.arange(3), 6)
    rng.shuffle(y)
    return (X, y)
