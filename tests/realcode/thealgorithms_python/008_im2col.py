"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/filters/convolve.py (function `im2col`, lines 8-20)
Project: TheAlgorithms/Python
Description: im2col: copies every k-by-k window of a padded image, flattened, into successive rows of a preallocated matrix.
"""
import numpy as np
from numpy import ravel, zeros

EXPECT = {
    "vectorizable": True,
    "why": "each window goes to its own row; the row counter is an induction variable equal to i * n_across + j",
}


def original(padded, block):
    n_rows, n_cols = padded.shape
    n_down = n_cols - block[1] + 1
    n_across = n_rows - block[0] + 1
    columns = zeros((n_down * n_across, block[1] * block[0]))
    k = 0
    for i in range(n_down):
        for j in range(n_across):
            patch = ravel(padded[i : i + block[0], j : j + block[1]])
            columns[k, :] = patch
            k += 1

    return columns


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    # the project swaps height and width here, so it is only correct for square images
    n = int(rng.integers(5, 12))
    ksize = (3, 3, 5)[seed % 3]
    grey = rng.integers(0, 256, size=(n, n)).astype(np.uint8)
    padded = np.pad(grey, ksize // 2, mode="edge")
    return (padded, (ksize, ksize))
