"""Source: https://github.com/yoyoyo-yo/Gasyori100knock/blob/032cb1d35a6838c5f3e01be4a8355b0ae2f0c453/Question_11_20/answers_py/answer_13.py (function `max_min_filter`, grey-image branch, lines 17-18 and 35-51)
Project: yoyoyo-yo/Gasyori100knock
Description: Max-min (local range) filter of a zero-padded grey image: each pixel becomes the window maximum minus the window minimum in an unmodified copy.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every pixel reads only the untouched copy and writes its own cell, so iterations are independent",
}


def original(grey, size=3):
    h, w = grey.shape

    pad = size // 2
    # the project writes np.float; np.float was an alias of float, removed in NumPy 1.24
    padded = np.zeros((h + pad * 2, w + pad * 2), dtype=float)
    padded[pad: pad + h, pad: pad + w] = grey.copy().astype(float)
    source = padded.copy()

    for y in range(h):
        for x in range(w):
            padded[pad + y, pad + x] = np.max(source[y: y + size, x: x + size]) - np.min(source[y: y + size, x: x + size])

    padded = padded[pad: pad + h, pad: pad + w].astype(np.uint8)

    return padded


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 14))
    w = int(rng.integers(4, 14))
    # the project passes the uint8 output of its BGR2GRAY
    grey = rng.integers(0, 256, size=(h, w)).astype(np.uint8)
    return (grey, 3)
