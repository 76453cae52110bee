"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/maze_numpy.py (function `BellmanFord`, lines 123-141)
Project: rougier/from-python-to-numpy
Description: walks from the maze exit back to the entrance by always stepping to the neighbour with the largest diffused value, recording the path.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each step starts from the position chosen by the previous step, and the while loop stops when the entrance is reached",
}


def original(G, start, goal):
    # Descent gradient to find shortest path from entrance to exit
    y, x = goal
    path = []
    dirs = [(0,-1), (0,+1), (-1,0), (+1,0)]
    while (x, y) != start:
        path.append((x, y))
        around = [-1, -1, -1, -1]
        if x > 0:
            around[0] = G[y, x-1]
        if x < G.shape[1]-1:
            around[1] = G[y, x+1]
        if y > 0:
            around[2] = G[y-1, x]
        if y < G.shape[0]-1:
            around[3] = G[y+1, x]
        a = np.argmax(around)
        x, y  = x + dirs[a][1], y + dirs[a][0]
    path.append((x, y))
    return np.array(path)


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    rows, cols = 11, 13
    M = np.zeros((rows, cols), dtype=bool)
    M[0, :] = M[-1, :] = M[:, 0] = M[:, -1] = 1
    for r in range(2, rows-1, 2):
        M[r, 1:-1] = 1
        M[r, int(rng.integers(1, cols-1))] = 0
    start, goal = (1, 1), (rows-2, cols-2)
    # value grid as the project's diffusion produces it, run to convergence
    O = 1 - M
    G = np.zeros(M.shape)
    G[start] = 1
    for _ in range(rows*cols):
        Gg = G*0.99
        G[1:-1, 1:-1] = O[1:-1, 1:-1]*np.maximum.reduce(
            [Gg[0:-2, 1:-1], Gg[1:-1, 0:-2], G[1:-1, 1:-1], Gg[1:-1, 2:], Gg[2:, 1:-1]])
    # the project compares (x, y) with start, so the entrance is given as (x, y)
    return (G, (start[1], start[0]), goal)
