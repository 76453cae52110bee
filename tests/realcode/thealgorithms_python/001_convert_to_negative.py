"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/convert_to_negative.py (function `convert_to_negative`, lines 8-17)
Project: TheAlgorithms/Python
Description: Replaces every pixel of a colour image by its photographic negative, in place.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each pixel is overwritten from its own old value only, so pixels do not depend on each other",
}


def original(picture):
    n_rows, n_cols = picture.shape[0], picture.shape[1]

    for r in range(n_rows):
        for c in range(n_cols):
            picture[r][c] = [255, 255, 255] - picture[r][c]

    return picture


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 12))
    w = int(rng.integers(4, 12))
    return (rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8),)
