"""Source: https://github.com/ddbourgin/numpy-ml/blob/b0359af5285fbf9699d64fd5ec059493228af03e/numpy_ml/hmm/hmm.py (function `MultinomialHMM.decode`, lines 280-289)
Project: ddbourgin/numpy-ml
Description: Recover the most probable hidden-state path by following back-pointers from the best final state back to the start.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each step indexes the back-pointer table with the state found in the previous step (pointer chasing)",
}


def original(trellis, back):
    T = trellis.shape[1]
    best_score = trellis[:, T - 1].max()

    cur = trellis[:, T - 1].argmax()
    path = [cur]
    for t in reversed(range(1, T)):
        cur = back[cur, t]
        path.append(cur)
    path = path[::-1]

    return path, best_score


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n, T = 4, 9
    trellis = rng.standard_normal((n, T))
    back = rng.integers(0, n, size=(n, T))
    back[:, 0] = 0
    return (trellis, back)
