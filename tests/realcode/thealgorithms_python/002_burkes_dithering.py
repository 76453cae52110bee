"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/dithering/burkes.py (method `Burkes.process`, lines 56-78; state set up in `__init__`, lines 28-37)
Project: TheAlgorithms/Python
Description: Burkes error-diffusion dithering of a colour image to black and white, pushing each pixel's quantisation error onto not-yet-visited neighbours.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each pixel's decision reads error-table entries that earlier pixels added to, a loop-carried recurrence",
}


def grey_value(blue, green, red):
    return 0.114 * blue + 0.587 * green + 0.299 * red


def original(picture, level):
    width, height = picture.shape[1], picture.shape[0]
    err = [[0 for _ in range(height + 4)] for __ in range(width + 1)]
    result = np.ones((width, height, 3), np.uint8) * 255

    for y in range(height):
        for x in range(width):
            grey = int(grey_value(*picture[y][x]))
            if level > grey + err[y][x]:
                result[y][x] = (0, 0, 0)
                current_error = grey + err[y][x]
            else:
                result[y][x] = (255, 255, 255)
                current_error = grey + err[y][x] - 255
            err[y][x + 1] += int(8 / 32 * current_error)
            err[y][x + 2] += int(4 / 32 * current_error)
            err[y + 1][x] += int(8 / 32 * current_error)
            err[y + 1][x + 1] += int(4 / 32 * current_error)
            err[y + 1][x + 2] += int(2 / 32 * current_error)
            err[y + 1][x - 1] += int(4 / 32 * current_error)
            err[y + 1][x - 2] += int(2 / 32 * current_error)

    return result, err


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    # the project's tables are sized width x height but indexed [y][x], so it needs square images
    n = int(rng.integers(5, 13))
    picture = rng.integers(0, 256, size=(n, n, 3), dtype=np.uint8)
    level = (126, 130, 140)[seed % 3]
    return (picture, level)
