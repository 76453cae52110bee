"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/hmm/hmm.py (function `MultinomialHMM.decode`, lines 254-265)
Project: ddbourgin/numpy-ml
Description: Fill the first column of the Viterbi trellis with log prior plus log emission probability of the first observation for every hidden state, and zero the back-pointers.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each state writes only its own entry of the first column from inputs",
}


def original(obs, start, emit, n_states, eps):
    if obs.ndim == 1:
        obs = obs.reshape(1, -1)

    T = obs.shape[1]

    trellis = np.zeros((n_states, T))
    back = np.zeros((n_states, T)).astype(int)

    o0 = obs[0, 0]
    for s in range(n_states):
        back[s, 0] = 0
        trellis[s, 0] = np.log(start[s] + eps) + np.log(emit[s, o0] + eps)
    return trellis, back


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, v, T = 4, 5, 7
    start = rng.dirichlet(np.ones(n))
    emit = rng.dirichlet(np.ones(v), size=n)
    obs = rng.integers(0, v, size=T)
    return (obs, start, emit, n, np.finfo(float).eps)
