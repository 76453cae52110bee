"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/hmm/hmm.py (function `MultinomialHMM.generate`, lines 81-120)
Project: ddbourgin/numpy-ml
Description: Sample a sequence from a hidden Markov model by repeatedly drawing the next hidden state from the current state's transition row and an emission from the new state's emission row.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each step draws from the row of the state sampled in the previous step (a recurrence) and calls the global random generator",
}


def original(trans, emit, start, length, state_names, obs_names):
    s = np.random.multinomial(1, start).argmax()
    seq_states = [state_names[s]]

    o = np.random.multinomial(1, emit[s, :]).argmax()
    seq_obs = [obs_names[o]]

    for i in range(length - 1):
        s = np.random.multinomial(1, trans[s, :]).argmax()
        seq_states.append(state_names[s])

        o = np.random.multinomial(1, emit[s, :]).argmax()
        seq_obs.append(obs_names[o])

    return np.array(seq_states), np.array(seq_obs)


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, v = 4, 5
    trans = rng.dirichlet(np.ones(n), size=n)
    emit = rng.dirichlet(np.ones(v), size=n)
    start = rng.dirichlet(np.ones(n))
    state_names = np.arange(n) * 10
    obs_names = np.arange(v) + 100
    return (trans, emit, start, 12, state_names, obs_names)
