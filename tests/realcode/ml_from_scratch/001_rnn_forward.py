"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/deep_learning/layers.py (function `RNN.forward_pass`, lines 144-161)
Project: eriklindernoren/ML-From-Scratch
Description: Forward pass of a vanilla RNN over time: each step's hidden state is tanh of the input projection plus the previous state's recurrent projection, and the output is a projection of that state.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "the hidden state at step t is computed from states[:, t-1], written by the previous iteration (a recurrence over time)",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def tanh_act(x):
    return 2 / (1 + np.exp(-2*x)) - 1


def original(X, U, W, V, hidden):
    batch, steps, in_dim = X.shape

    pre = np.zeros((batch, steps, hidden))
    states = np.zeros((batch, steps+1, hidden))
    outputs = np.zeros((batch, steps, in_dim))

    states[:, -1] = np.zeros((batch, hidden))
    for t in range(steps):
        pre[:, t] = X[:, t].dot(U.T) + states[:, t-1].dot(W.T)
        states[:, t] = tanh_act(pre[:, t])
        outputs[:, t] = states[:, t].dot(V.T)

    return outputs, states, pre


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    batch, steps, in_dim, hidden = 3, 6, 4, 5
    X = rng.standard_normal((batch, steps, in_dim))
    U = rng.uniform(-0.5, 0.5, (hidden, in_dim))
    W = rng.uniform(-0.4, 0.4, (hidden, hidden))
    V = rng.uniform(-0.4, 0.4, (in_dim, hidden))
    return (X, U, W, V, hidden)
