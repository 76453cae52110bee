"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/filters/local_binary_pattern.py (loop in the `__main__` block, lines 69-76, with helpers `get_neighbors_pixel` and `local_binary_value`, lines 5-60)
Project: TheAlgorithms/Python
Description: Local binary pattern image: for each pixel, an 8-bit code of which neighbours are at least as bright as the centre.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each output pixel is computed from a read-only neighbourhood of the input and written to its own cell",
}


def neighbour_bit(picture, r, c, centre):
    try:
        return int(picture[r][c] >= centre)
    except (IndexError, TypeError):
        return 0


def pattern_code(picture, r, c):
    centre = picture[r][c]
    powers = [1, 2, 4, 8, 16, 32, 64, 128]

    if centre is None:
        return 0

    bits = [
        neighbour_bit(picture, r - 1, c + 1, centre),
        neighbour_bit(picture, r, c + 1, centre),
        neighbour_bit(picture, r - 1, c, centre),
        neighbour_bit(picture, r + 1, c + 1, centre),
        neighbour_bit(picture, r + 1, c, centre),
        neighbour_bit(picture, r + 1, c - 1, centre),
        neighbour_bit(picture, r, c - 1, centre),
        neighbour_bit(picture, r - 1, c - 1, centre),
    ]

    return sum(bit * power for bit, power in zip(bits, powers))


def original(picture):
    codes = np.zeros((picture.shape[0], picture.shape[1]))

    for i in range(picture.shape[0]):
        for j in range(picture.shape[1]):
            codes[i][j] = pattern_code(picture, i, j)

    return codes


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 12))
    w = int(rng.integers(4, 12))
    return (rng.integers(0, 256, size=(h, w)).astype(np.uint8),)
