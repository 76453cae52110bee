"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/maze_numpy.py (function `build_maze`, lines 12-78)
Project: rougier/from-python-to-numpy
Description: builds a random maze by growing wall islands from biased random starting points, each island extended by random two-cell steps into free cells.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each island step draws a random direction and reads the wall grid written by earlier steps; the loops also break early",
}


def original(shape=(65,65), complexity=0.75, density = 0.50):
    # Only odd shapes
    shape = ((shape[0]//2)*2+1, (shape[1]//2)*2+1)

    # Adjust complexity and density relatively to maze size
    n_complexity = int(complexity*(shape[0]+shape[1]))
    n_density    = int(density*(shape[0]*shape[1]))

    # Build actual maze
    W = np.zeros(shape, dtype=bool)

    # Fill borders
    W[0,:] = W[-1,:] = W[:,0] = W[:,-1] = 1

    # Islands starting point with a bias in favor of border
    S = np.random.normal(0, 0.5, (n_density,2))
    S = 0.5 - np.maximum(-0.5, np.minimum(S, +0.5))
    S = (S*[shape[1],shape[0]]).astype(int)
    S = 2*(S//2)

    # Create islands
    for i in range(n_density):

        # Test for early stop: if all starting point are busy, this means we
        # won't be able to connect any island, so we stop.
        T = W[2:-2:2,2:-2:2]
        if T.sum() == T.size:
            break

        x, y = S[i]
        W[y,x] = 1
        for j in range(n_complexity):
            around = []
            if x > 1:
                around.append([(y, x-1), (y, x-2)])
            if x < shape[1]-2:
                around.append([(y, x+1), (y, x+2)])
            if y > 1:
                around.append([(y-1, x), (y-2, x)])
            if y < shape[0]-2:
                around.append([(y+1, x), (y+2, x)])
            if len(around):
                choice = np.random.randint(len(around))
                step_1, step_2 = around[choice]
                if W[step_2] == 0:
                    W[step_1] = W[step_2] = 1
                    y, x = step_2
            else:
                break
    return W


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    rows = int(rng.integers(9, 16))
    cols = int(rng.integers(9, 22))
    return ((rows, cols), 0.75, 0.50)
