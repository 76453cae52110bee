"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/decision_tree.py (function `DecisionTree._build_tree`, lines 72-121)
Project: eriklindernoren/ML-From-Scratch
Description: Search every feature and every distinct value of it as a split threshold, keeping the split with the largest information gain together with the two resulting subsets.
"""
import math

import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each (feature, threshold) candidate is evaluated from the inputs alone; the only carried state is the running best, an argmax reduction with strict > keeping the first maximum",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def split_rows(Xy, col, thr):
    # The project's helper ends with `return np.array([X_1, X_2])`, which
    # current NumPy rejects for subsets of different lengths; the two subsets
    # are returned as a pair instead.
    test = None
    if isinstance(thr, int) or isinstance(thr, float):
        test = lambda row: row[col] >= thr
    else:
        test = lambda row: row[col] == thr

    A = np.array([row for row in Xy if test(row)])
    B = np.array([row for row in Xy if not test(row)])

    return A, B


def entropy_of(y):
    log2 = lambda x: math.log(x) / math.log(2)
    labels = np.unique(y)
    ent = 0
    for lab in labels:
        count = len(y[y == lab])
        p = count / len(y)
        ent += -p * log2(p)
    return ent


def info_gain(y, y1, y2):
    p = len(y1) / len(y)
    ent = entropy_of(y)
    gain = ent - p * \
        entropy_of(y1) - (1 - p) * \
        entropy_of(y2)

    return gain


def original(X, y, min_split, max_depth, depth=0):
    best_gain = 0
    best_rule = None
    best_parts = None

    if len(np.shape(y)) == 1:
        y = np.expand_dims(y, axis=1)

    Xy = np.concatenate((X, y), axis=1)

    n, n_feat = np.shape(X)

    if n >= min_split and depth <= max_depth:
        for f in range(n_feat):
            col = np.expand_dims(X[:, f], axis=1)
            cands = np.unique(col)

            for thr in cands:
                left, right = split_rows(Xy, f, thr)

                if len(left) > 0 and len(right) > 0:
                    y1 = left[:, n_feat:]
                    y2 = right[:, n_feat:]

                    gain = info_gain(y, y1, y2)

                    if gain > best_gain:
                        best_gain = gain
                        best_rule = {"feature_i": f, "threshold": thr}
                        best_parts = {
                            "leftX": left[:, :n_feat],
                            "lefty": left[:, n_feat:],
                            "rightX": right[:, :n_feat],
                            "righty": right[:, n_feat:]
                            }

    return best_gain, best_rule, best_parts


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d = 14, 3
    X = np.round(rng.standard_normal((n, d)), 1)
    y = (X[:, 1] + 0.7 * rng.standard_normal(n) > 0).astype(float)
    return (X, y, 2, 5, 0)
