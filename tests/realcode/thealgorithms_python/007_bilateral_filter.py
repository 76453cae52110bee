"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/filters/bilateral_filter.py (function `bilateral_filter`, lines 43-61)
Project: TheAlgorithms/Python
Description: Bilateral filter of a grey image: each interior pixel becomes the average of its window weighted by a spatial kernel times a Gaussian of the intensity difference.
"""
import math

import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each interior pixel of a fresh output array is computed from a window of the read-only input",
}

TOL = {"rtol": 1e-9, "atol": 1e-12}


def gaussian_of(values, variance):
    sd = math.sqrt(variance)
    scale = 1 / (sd * math.sqrt(2 * math.pi))
    return scale * np.exp(-((values / sd) ** 2) * 0.5)


def window_at(picture, r, c, size):
    half = size // 2
    return picture[r - half : r + half + 1, c - half : c + half + 1]


def spatial_kernel(size, variance):
    # same values as the project's get_gauss_kernel (see 006), built without a loop
    a, b = np.indices((size, size))
    dist = np.sqrt(np.abs(a - size // 2) ** 2 + np.abs(b - size // 2) ** 2)
    return gaussian_of(dist, variance)


def original(picture, spatial_var, intensity_var, size, space_weights):
    # the project computes space_weights here with get_gauss_kernel(size, spatial_var);
    # it is passed in so that this file holds a single loop
    smoothed = np.zeros(picture.shape)
    n_rows, n_cols = picture.shape
    for r in range(size // 2, n_rows - size // 2):
        for c in range(size // 2, n_cols - size // 2):
            patch = window_at(picture, r, c, size)
            diff = patch - patch[size // 2, size // 2]
            diff_w = gaussian_of(diff, intensity_var)
            weights = np.multiply(space_weights, diff_w)
            weighted = np.multiply(patch, weights)
            value = np.sum(weighted) / np.sum(weights)
            smoothed[r, c] = value
    return smoothed


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(8, 16))
    w = int(rng.integers(8, 16))
    picture = (rng.integers(0, 256, size=(h, w)) / 255).astype("float32")
    size = (5, 3, 5)[seed % 3]
    spatial_var = 1.0
    intensity_var = 1.0
    return (picture, spatial_var, intensity_var, size, spatial_kernel(size, spatial_var))
