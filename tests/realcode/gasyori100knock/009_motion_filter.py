"""Source: https://github.com/yoyoyo-yo/Gasyori100knock/blob/032cb1d35a6838c5f3e01be4a8355b0ae2f0c453/Question_11_20/answers_py/answer_12.py (function `motion_filter`, lines 5-26)
Project: yoyoyo-yo/Gasyori100knock
Description: Motion blur of a zero-padded colour image: each pixel and channel becomes the average along the diagonal of its window in an unmodified copy.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every (pixel, channel) reads only the untouched copy and writes its own cell, so iterations are independent",
}

TOL = {"rtol": 0, "atol": 1}


def original(picture, size=3):
    h, w, ch = picture.shape

    # the project writes np.float; np.float was an alias of float, removed in NumPy 1.24
    kern = np.diag( [1] * size ).astype(float)
    kern /= size

    pad = size // 2
    padded = np.zeros((h + pad * 2, w + pad * 2, ch), dtype=float)
    padded[pad: pad + h, pad: pad + w] = picture.copy().astype(float)
    source = padded.copy()

    for y in range(h):
        for x in range(w):
            for c in range(ch):
                padded[pad + y, pad + x, c] = np.sum(kern * source[y: y + size, x: x + size, c])

    padded = padded[pad: pad + h, pad: pad + w].astype(np.uint8)

    return padded


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 14))
    w = int(rng.integers(4, 14))
    picture = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    return (picture, 3)
