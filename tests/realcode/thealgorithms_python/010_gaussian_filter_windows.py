"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/filters/gaussian_filter.py (function `gaussian_filter`, lines 18-37)
Project: TheAlgorithms/Python
Description: Gaussian blur by im2col: copies every k-by-k window into a row of a matrix, then multiplies by the flattened Gaussian kernel.
"""
from itertools import product

import numpy as np
from numpy import dot, exp, mgrid, pi, ravel, square, uint8, zeros

EXPECT = {
    "vectorizable": True,
    "why": "each (i, j) window is copied into its own row, the enumerate counter giving the row index",
}

def gaussian_kernel(size, sd):
    mid = size // 2
    gx, gy = mgrid[0 - mid : size - mid, 0 - mid : size - mid]
    g = 1 / (2 * pi * sd) * exp(-(square(gx) + square(gy)) / (2 * square(sd)))
    return g


def original(picture, size, sd):
    h, w = picture.shape[0], picture.shape[1]
    out_h = h - size + 1
    out_w = w - size + 1

    columns = zeros((out_h * out_w, size * size))
    for k, (i, j) in enumerate(product(range(out_h), range(out_w))):
        patch = ravel(picture[i : i + size, j : j + size])
        columns[k, :] = patch

    weights = gaussian_kernel(size, sd)
    flat = ravel(weights)

    blurred = dot(columns, flat).reshape(out_h, out_w).astype(uint8)

    return blurred


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(6, 16))
    w = int(rng.integers(6, 16))
    picture = rng.integers(0, 256, size=(h, w)).astype(np.uint8)
    size, sd = ((3, 1), (5, 0.8), (3, 1))[seed % 3]
    return (picture, size, sd)
