"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/k_nearest_neighbors.py (function `KNN.predict`, lines 22-33)
Project: eriklindernoren/ML-From-Scratch
Description: For each test sample, sort training samples by Euclidean distance, take the labels of the k closest and store the most frequent one.
"""
import math

import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each test sample's prediction uses only that sample and the training set and is written to its own slot",
}


def l2_dist(a, b):
    dist = 0
    for i in range(len(a)):
        dist += pow((a[i] - b[i]), 2)
    return math.sqrt(dist)


def vote(labels):
    counts = np.bincount(labels.astype('int'))
    return counts.argmax()


def original(X_query, X_ref, y_ref, k):
    out = np.empty(X_query.shape[0])
    for i, q in enumerate(X_query):
        near = np.argsort([l2_dist(q, r) for r in X_ref])[:k]
        near_labels = np.array([y_ref[i] for i in near])
        out[i] = vote(near_labels)

    return out


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    X_ref = rng.standard_normal((20, 3))
    y_ref = rng.integers(0, 3, size=20)
    X_query = rng.standard_normal((7, 3))
    return (X_query, X_ref, y_ref, 5)
