"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/maze_numpy.py (function `BellmanFord`, lines 82-121)
Project: rougier/from-python-to-numpy
Description: diffuses a discounted value from the maze entrance through open cells (max over the four neighbours) until the value reaches the exit.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each sweep reads the value grid written by the previous sweep, and the while loop stops when the goal cell becomes non-zero",
}


def original(M, start, goal):

    # We reserve M such that walls have value 0
    M = 1 - M

    # Build gradient array
    G = np.zeros(M.shape)

    # Initialize gradient at the entrance with value 1
    G[start] = 1

    # Discount factor
    gamma = 0.99

    G_gamma = np.empty_like(G)
    while G[goal] == 0.0:
        np.multiply(G, gamma, out=G_gamma)
        N = G_gamma[0:-2,1:-1]
        W = G_gamma[1:-1,0:-2]
        C = G[1:-1,1:-1]
        E = G_gamma[1:-1,2:]
        S = G_gamma[2:,1:-1]
        G[1:-1,1:-1] = M[1:-1,1:-1]*np.maximum(N,np.maximum(W,np.maximum(C,np.maximum(E,S))))
    return G


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    rows, cols = 11, 13
    M = np.zeros((rows, cols), dtype=bool)
    M[0, :] = M[-1, :] = M[:, 0] = M[:, -1] = 1
    # horizontal walls on even rows, each with one random gap, so a path always exists
    for r in range(2, rows-1, 2):
        M[r, 1:-1] = 1
        M[r, int(rng.integers(1, cols-1))] = 0
    return (M, (1, 1), (rows-2, cols-2))
