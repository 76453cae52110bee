"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/sepia.py (function `make_sepia`, lines 8-35)
Project: TheAlgorithms/Python
Description: Sepia toning in place: each pixel becomes its grey level plus 0, 1 and 2 times a factor on the three channels, capped at 255.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each pixel is rewritten from its own old value only; no pixel reads another",
}


def original(picture, factor):
    n_rows, n_cols = picture.shape[0], picture.shape[1]

    def grey_of(blue, green, red):
        return 0.2126 * red + 0.587 * green + 0.114 * blue

    def cap(value):
        return min(value, 255)

    for i in range(n_rows):
        for j in range(n_cols):
            grey = int(grey_of(*picture[i][j]))
            picture[i][j] = [
                cap(grey),
                cap(grey + factor),
                cap(grey + 2 * factor),
            ]

    return picture


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 12))
    w = int(rng.integers(4, 12))
    picture = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    return (picture, (10, 20, 40)[seed % 3])
