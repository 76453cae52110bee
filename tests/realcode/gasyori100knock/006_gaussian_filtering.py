"""Source: https://github.com/yoyoyo-yo/Gasyori100knock/blob/032cb1d35a6838c5f3e01be4a8355b0ae2f0c453/Question_01_10/answers_py/answer_9.py (function `gaussian_filter`, lines 6-38)
Project: yoyoyo-yo/Gasyori100knock
Description: Gaussian blur of a zero-padded image: each pixel and channel becomes the kernel-weighted sum of its window in an unmodified copy.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every (pixel, channel) reads only the untouched copy and writes its own cell, so iterations are independent",
}

TOL = {"rtol": 0, "atol": 1}


def original(picture, size, sd, kern):
    # the project builds kern here from size and sd with a loop (see 005);
    # it is passed in so that this file holds a single loop
    if len(picture.shape) == 3:
        h, w, ch = picture.shape
    else:
        picture = np.expand_dims(picture, axis=-1)
        h, w, ch = picture.shape

    pad = size // 2
    # the project writes np.float; np.float was an alias of float, removed in NumPy 1.24
    padded = np.zeros((h + pad * 2, w + pad * 2, ch), dtype=float)
    padded[pad: pad + h, pad: pad + w] = picture.copy().astype(float)

    source = padded.copy()

    for y in range(h):
        for x in range(w):
            for c in range(ch):
                padded[pad + y, pad + x, c] = np.sum(kern * source[y: y + size, x: x + size, c])

    padded = np.clip(padded, 0, 255)
    padded = padded[pad: pad + h, pad: pad + w].astype(np.uint8)

    return padded


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 14))
    w = int(rng.integers(4, 14))
    shape = (h, w, 3) if seed % 2 == 0 else (h, w)
    picture = rng.integers(0, 256, size=shape, dtype=np.uint8)
    size, sd = 3, 1.3
    pad = size // 2
    oy, ox = np.mgrid[-pad:-pad + size, -pad:-pad + size]
    kern = np.exp(-(ox ** 2 + oy ** 2) / (2 * (sd ** 2)))
    kern /= (2 * np.pi * sd * sd)
    kern /= kern.sum()
    return (picture, size, sd, kern)
