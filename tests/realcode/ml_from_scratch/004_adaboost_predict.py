"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/adaboost.py (function `Adaboost.predict`, lines 96-114)
Project: eriklindernoren/ML-From-Scratch
Description: Sum the alpha-weighted +1/-1 votes of every decision stump for every sample and take the sign.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each stump's votes depend only on that stump and X, and are added into the running vote total (a sum reduction)",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


class Stump():
    def __init__(self):
        self.polarity = 1
        self.feature_index = None
        self.threshold = None
        self.alpha = None


def original(X, learners):
    n = np.shape(X)[0]
    votes = np.zeros((n, 1))
    for st in learners:
        p = np.ones(np.shape(votes))
        neg = (st.polarity * X[:, st.feature_index] < st.polarity * st.threshold)
        p[neg] = -1
        votes += st.alpha * p

    votes = np.sign(votes).flatten()

    return votes


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, d, k = 12, 4, 5
    X = rng.standard_normal((n, d))
    learners = []
    for j in range(k):
        st = Stump()
        st.polarity = 1 if j % 2 == 0 else -1
        st.feature_index = int(rng.integers(0, d))
        st.threshold = float(rng.standard_normal())
        st.alpha = float(rng.uniform(0.1, 1.0))
        learners.append(st)
    return (X, learners)
