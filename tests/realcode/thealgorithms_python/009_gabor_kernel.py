"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/filters/gabor_filter.py (function `gabor_filter_kernel`, lines 7-55)
Project: TheAlgorithms/Python
Description: Fills a square Gabor filter kernel cell by cell from the rotated offset of each cell from the centre.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every kernel cell is written from its own indices and scalar parameters only",
}

TOL = {"rtol": 1e-6, "atol": 1e-7}


def original(size, sd, angle, wavelength, aspect, phase):
    if (size % 2) == 0:
        size = size + 1
    kernel = np.zeros((size, size), dtype=np.float32)

    for y in range(size):
        for x in range(size):
            dx = x - size // 2
            dy = y - size // 2

            rad = angle / 180 * np.pi
            cos_a = np.cos(rad)
            sin_a = np.sin(rad)

            rx = cos_a * dx + sin_a * dy

            ry = -sin_a * dx + cos_a * dy

            kernel[y, x] = np.exp(-(rx**2 + aspect**2 * ry**2) / (2 * sd**2)) * np.cos(
                2 * np.pi * rx / wavelength + phase
            )

    return kernel


def make_inputs(seed=0):
    size = (10, 7, 4)[seed % 3]
    angle = (0, 30, 120)[seed % 3]
    return (size, 8, angle, 10, (0, 1, 0)[seed % 3], 0)
