"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/edge_detection/canny.py (function `suppress_non_maximum`, lines 21-70)
Project: TheAlgorithms/Python
Description: Canny non-maximum suppression: keeps a gradient magnitude only where it is not smaller than its two neighbours along the quantised gradient direction.
"""
import numpy as np

HALF_TURN = 180

EXPECT = {
    "vectorizable": True,
    "why": "each interior pixel of a fresh output array is written from read-only inputs, with no cross-iteration reads",
}


def original(shape, angle, magnitude):
    kept = np.zeros(shape)

    for r in range(1, shape[0] - 1):
        for c in range(1, shape[1] - 1):
            d = angle[r, c]

            if (
                0 <= d < HALF_TURN / 8
                or 15 * HALF_TURN / 8 <= d <= 2 * HALF_TURN
                or 7 * HALF_TURN / 8 <= d <= 9 * HALF_TURN / 8
            ):
                left = magnitude[r, c - 1]
                right = magnitude[r, c + 1]
                if magnitude[r, c] >= left and magnitude[r, c] >= right:
                    kept[r, c] = magnitude[r, c]

            elif (
                HALF_TURN / 8 <= d < 3 * HALF_TURN / 8
                or 9 * HALF_TURN / 8 <= d < 11 * HALF_TURN / 8
            ):
                lower_left = magnitude[r + 1, c - 1]
                upper_right = magnitude[r - 1, c + 1]
                if magnitude[r, c] >= lower_left and magnitude[r, c] >= upper_right:
                    kept[r, c] = magnitude[r, c]

            elif (
                3 * HALF_TURN / 8 <= d < 5 * HALF_TURN / 8
                or 11 * HALF_TURN / 8 <= d < 13 * HALF_TURN / 8
            ):
                up = magnitude[r - 1, c]
                down = magnitude[r + 1, c]
                if magnitude[r, c] >= up and magnitude[r, c] >= down:
                    kept[r, c] = magnitude[r, c]

            elif (
                5 * HALF_TURN / 8 <= d < 7 * HALF_TURN / 8
                or 13 * HALF_TURN / 8 <= d < 15 * HALF_TURN / 8
            ):
                upper_left = magnitude[r - 1, c - 1]
                lower_right = magnitude[r + 1, c + 1]
                if magnitude[r, c] >= upper_left and magnitude[r, c] >= lower_right:
                    kept[r, c] = magnitude[r, c]

    return kept


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(6, 16))
    w = int(rng.integers(6, 16))
    angle = rng.uniform(0, 360, size=(h, w))
    magnitude = rng.integers(0, 256, size=(h, w)).astype(np.uint8)
    return ((h, w), angle, magnitude)
