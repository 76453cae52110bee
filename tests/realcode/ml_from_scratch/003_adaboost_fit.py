"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/adaboost.py (function `Adaboost.fit`, lines 36-94)
Project: eriklindernoren/ML-From-Scratch
Description: AdaBoost with decision stumps: each round searches every feature/threshold for the stump with the lowest weighted error, computes its vote weight and re-weights the samples.
"""
import math

import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each boosting round searches with the sample weights produced by the previous round and then rescales them in place (a recurrence on w)",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


class Stump():
    def __init__(self):
        self.polarity = 1
        self.feature_index = None
        self.threshold = None
        self.alpha = None


def original(X, y, n_rounds):
    n, n_feat = np.shape(X)

    w = np.full(n, (1 / n))

    learners = []
    for _ in range(n_rounds):
        st = Stump()
        best_err = float('inf')
        for f in range(n_feat):
            col = np.expand_dims(X[:, f], axis=1)
            cands = np.unique(col)
            for thr in cands:
                pol = 1
                pred = np.ones(np.shape(y))
                pred[X[:, f] < thr] = -1
                err = sum(w[y != pred])

                if err > 0.5:
                    err = 1 - err
                    pol = -1

                if err < best_err:
                    st.polarity = pol
                    st.threshold = thr
                    st.feature_index = f
                    best_err = err
        st.alpha = 0.5 * math.log((1.0 - best_err) / (best_err + 1e-10))
        preds = np.ones(np.shape(y))
        neg = (st.polarity * X[:, st.feature_index] < st.polarity * st.threshold)
        preds[neg] = -1
        w *= np.exp(-st.alpha * y * preds)
        w /= np.sum(w)

        learners.append(st)
    return [(s.polarity, s.threshold, s.feature_index, s.alpha) for s in learners], w


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d = 16, 3
    X = np.round(rng.standard_normal((n, d)), 1)
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1, -1)
    return (X, y, 4)
