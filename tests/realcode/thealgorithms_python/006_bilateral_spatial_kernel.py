"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/filters/bilateral_filter.py (function `get_gauss_kernel`, lines 32-40)
Project: TheAlgorithms/Python
Description: Builds the spatial Gaussian kernel of a bilateral filter by filling a square array with each cell's distance from the centre and then applying a Gaussian.
"""
import math

import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every cell of the preallocated array is written from its own indices only",
}


def gaussian_of(values, variance):
    sd = math.sqrt(variance)
    scale = 1 / (sd * math.sqrt(2 * math.pi))
    return scale * np.exp(-((values / sd) ** 2) * 0.5)


def original(size, variance):
    dist = np.zeros((size, size))
    for a in range(size):
        for b in range(size):
            dist[a, b] = math.sqrt(
                abs(a - size // 2) ** 2 + abs(b - size // 2) ** 2
            )
    return gaussian_of(dist, variance)


def make_inputs(seed=0):
    size = (5, 3, 7)[seed % 3]
    variance = (1.0, 0.5, 2.0)[seed % 3]
    return (size, variance)
