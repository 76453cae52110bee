"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/filters/median_filter.py (function `median_filter`, lines 9-26)
Project: TheAlgorithms/Python
Description: Median filter of a grey image: each interior pixel takes a middle element of its sorted mask-by-mask window.
"""
import numpy as np
from numpy import divide, int8, multiply, ravel, sort, zeros_like

EXPECT = {
    "vectorizable": True,
    "why": "each interior pixel of a fresh output array is computed from a window of the read-only input",
}


def original(grey, mask=3):
    border = int(mask / 2)
    filtered = zeros_like(grey)
    for i in range(border, grey.shape[0] - border):
        for j in range(border, grey.shape[1] - border):
            window = ravel(grey[i - border : i + border + 1, j - border : j + border + 1])
            middle = sort(window)[int8(divide((multiply(mask, mask)), 2) + 1)]
            filtered[i, j] = middle
    return filtered


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(6, 16))
    w = int(rng.integers(6, 16))
    grey = rng.integers(0, 256, size=(h, w)).astype(np.uint8)
    return (grey, (3, 5, 3)[seed % 3])
