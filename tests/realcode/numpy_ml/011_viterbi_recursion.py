"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/hmm/hmm.py (function `MultinomialHMM.decode`, lines 267-278)
Project: ddbourgin/numpy-ml
Description: Viterbi forward pass: each trellis column holds, per state, the best log score over predecessor states of the previous column plus transition and emission log probabilities, with the argmax stored as a back-pointer.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "column t is computed from column t-1 of the same trellis, a recurrence over time (the inner loop over states is independent)",
}
TOL = {"rtol": 1e-12, "atol": 1e-12}


def original(obs, trellis, back, trans, emit, n_states, eps):
    T = obs.shape[1]
    for t in range(1, T):
        o = obs[0, t]
        for s in range(n_states):
            cand = [
                trellis[p, t - 1] + np.log(trans[p, s] + eps) + np.log(emit[s, o] + eps)
                for p in range(n_states)
            ]

            trellis[s, t] = np.max(cand)
            back[s, t] = np.argmax(cand)
    return trellis, back


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, v, T = 4, 5, 7
    eps = np.finfo(float).eps
    start = rng.dirichlet(np.ones(n))
    trans = rng.dirichlet(np.ones(n), size=n)
    emit = rng.dirichlet(np.ones(v), size=n)
    obs = rng.integers(0, v, size=T).reshape(1, -1)
    trellis = np.zeros((n, T))
    back = np.zeros((n, T)).astype(int)
    trellis[:, 0] = np.log(start + eps) + np.log(emit[:, obs[0, 0]] + eps)
    return (obs, trellis, back, trans, emit, n, eps)
