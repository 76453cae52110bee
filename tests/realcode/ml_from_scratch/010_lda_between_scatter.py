"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/multi_class_lda.py (function `MultiClassLDA._calculate_scatter_matrices`, lines 36-43)
Project: eriklindernoren/ML-From-Scratch
Description: Between-class scatter: for each class, add the class size times the dot product of the class-mean offset from the overall mean with itself (a scalar, as the project writes it) into the matrix.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each class's term depends only on the rows of that class and the overall mean, and is added into SB (a sum reduction)",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def original(X, y):
    d = np.shape(X)[1]
    classes = np.unique(y)

    mu = np.mean(X, axis=0)
    # The project allocates this accumulator with np.empty (uninitialised
    # memory); np.zeros is used here so the result is deterministic.
    SB = np.zeros((d, d))
    for c in classes:
        Xc = X[y == c]
        mc = np.mean(Xc, axis=0)
        SB += len(Xc) * (mc - mu).dot((mc - mu).T)

    return SB


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((18, 4))
    y = np.repeat(np.arange(3), 6)
    rng.shuffle(y)
    return (X, y)
