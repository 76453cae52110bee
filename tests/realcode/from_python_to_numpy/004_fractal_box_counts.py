"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/fractal_dimension.py (function `fractal_dimension`, lines 10-22)
Project: rougier/from-python-to-numpy
Description: for each box size, counts the boxes of a boolean image that are neither empty nor full (box counting for the fractal dimension).
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each box size is counted independently from the same image and appended to a list (map)",
}


def original(img, sizes):
    def count_boxes(img, k):
        S = np.add.reduceat(
            np.add.reduceat(img, np.arange(0, img.shape[0], k), axis=0),
                               np.arange(0, img.shape[1], k), axis=1)
        return len(np.where((S > 0) & (S < k*k))[0])
    counts = []
    for size in sizes:
        counts.append(count_boxes(img, size))
    return counts


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    img = rng.random((32, 40)) < 0.5
    img[:8, :8] = True
    img[8:16, 8:16] = False
    p = min(img.shape)
    n = 2**np.floor(np.log(p)/np.log(2))
    n = int(np.log(n)/np.log(2))
    sizes = 2**np.arange(n, 1, -1)
    return (img, sizes)
