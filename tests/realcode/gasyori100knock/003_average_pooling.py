"""Source: https://github.com/yoyoyo-yo/Gasyori100knock/blob/032cb1d35a6838c5f3e01be4a8355b0ae2f0c453/Question_01_10/answers_py/answer_7.py (function `average_pooling`, lines 6-18)
Project: yoyoyo-yo/Gasyori100knock
Description: Average pooling of a colour image: every square block of each channel is overwritten with its integer mean.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each (block, channel) reads and overwrites only its own non-overlapping block",
}


def original(picture, block=8):
    pooled = picture.copy()

    h, w, ch = picture.shape
    n_h = int(h / block)
    n_w = int(w / block)

    for y in range(n_h):
        for x in range(n_w):
            for c in range(ch):
                # the project writes .astype(np.int); np.int was an alias of int, removed in NumPy 1.24
                pooled[block*y:block*(y+1), block*x:block*(x+1), c] = np.mean(pooled[block*y:block*(y+1), block*x:block*(x+1), c]).astype(int)

    return pooled


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(16, 41))
    w = int(rng.integers(16, 41))
    return (rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8),)
