import numpy as np

# Wrong rewrites found in session 14 by an adversarial tester: an update summed along an
# inner loop before it is scattered (`G[t[i]] += X[i, j]` over `j`) added the terms' sum
# once, where the loop casts the element back to its dtype after every term: an int64 `G`
# beside float terms truncates each time (0 + 0.5 stays 0 three times, the sum 1.5 adds 1).
# The sum runs batched only where `G` is floating, or the terms are ints of arrays whose
# dtype with `G`'s is `G`'s; otherwise the loop runs.


def scattered(G, X, t):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            G[t[i]] += X[i, j]
    return G


def scattered_scaled(G, X, t):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            G[t[i]] -= X[i, j] * 2
    return G


def row_sums(out, X):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            out[i] += X[i, j]
    return out


CALLS = [("scattered", "np.zeros(2, np.int64), np.full((2, 3), 0.5), np.array([0, 1])"),
         ("scattered", "np.zeros(2), np.full((2, 3), 0.5), np.array([0, 0])"),
         ("scattered", "np.zeros(2, np.int64), np.arange(6).reshape(2, 3), np.array([1, 1])"),
         ("scattered", "np.zeros(2, np.int8), np.full((2, 3), 100, np.int8), np.array([1, 1])"),
         ("scattered_scaled", "np.zeros(2, np.int64), np.full((2, 3), 0.25), np.array([0, 1])"),
         ("scattered_scaled", "np.zeros(2, np.int64), np.arange(6).reshape(2, 3), np.array([0, 0])"),
         ("row_sums", "np.zeros(2, np.int64), np.full((2, 3), 0.5)"),
         ("row_sums", "np.zeros(2, np.uint8), np.full((2, 3), 0.75, np.float32)"),
         ("row_sums", "np.ones(2), np.arange(6.0).reshape(2, 3)")]

REWRITTEN = ("scattered", "scattered_scaled", "row_sums")
