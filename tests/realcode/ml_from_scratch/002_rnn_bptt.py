"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/deep_learning/layers.py (function `RNN.backward_pass`, lines 163-189)
Project: eriklindernoren/ML-From-Scratch
Description: Truncated back-propagation through time for a vanilla tanh RNN: for each time step, accumulate weight gradients and propagate the state gradient back a bounded number of steps.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each outer step starts its own state gradient, writes its own slice of the input gradient and only adds into the three weight-gradient sums (reductions); the inner truncated loop is a recurrence local to one outer step",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


def tanh_act(x):
    return 2 / (1 + np.exp(-2*x)) - 1


def tanh_grad(x):
    return 1 - np.power(tanh_act(x), 2)


def original(upstream, inputs, pre, states, U, V, W, trunc):
    _, steps, _ = upstream.shape

    gU = np.zeros_like(U)
    gV = np.zeros_like(V)
    gW = np.zeros_like(W)
    down = np.zeros_like(upstream)

    for t in reversed(range(steps)):
        gV += upstream[:, t].T.dot(states[:, t])
        g = upstream[:, t].dot(V) * tanh_grad(pre[:, t])
        down[:, t] = g.dot(U)
        for s in reversed(np.arange(max(0, t - trunc), t+1)):
            gU += g.T.dot(inputs[:, s])
            gW += g.T.dot(states[:, s-1])
            g = g.dot(W) * tanh_grad(pre[:, s-1])

    return gU, gV, gW, down


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    batch, steps, in_dim, hidden = 3, 8, 4, 5
    inputs = rng.standard_normal((batch, steps, in_dim))
    U = rng.uniform(-0.5, 0.5, (hidden, in_dim))
    W = rng.uniform(-0.4, 0.4, (hidden, hidden))
    V = rng.uniform(-0.4, 0.4, (in_dim, hidden))
    pre = rng.standard_normal((batch, steps, hidden))
    states = np.zeros((batch, steps + 1, hidden))
    states[:, :steps] = tanh_act(pre)
    upstream = rng.standard_normal((batch, steps, in_dim))
    return (upstream, inputs, pre, states, U, V, W, 3)
