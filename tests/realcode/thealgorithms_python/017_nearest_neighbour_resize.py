"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/resize/resize.py (method `NearestNeighbour.process`, lines 30-33, with `__init__`, `get_x` and `get_y`, lines 13-59)
Project: TheAlgorithms/Python
Description: Nearest-neighbour resize of a colour image: each destination pixel copies the source pixel at its scaled-down coordinates.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each destination pixel is a gather from the read-only source at coordinates computed from its own indices",
}


def original(picture, new_w, new_h):
    src_w = picture.shape[1]
    src_h = picture.shape[0]
    scale_x = src_w / new_w
    scale_y = src_h / new_h
    resized = np.ones((new_h, new_w, 3), np.uint8) * 255

    for i in range(new_h):
        for j in range(new_w):
            resized[i][j] = picture[int(scale_y * i)][int(scale_x * j)]
    return resized


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 16))
    w = int(rng.integers(4, 16))
    picture = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    new_w = int(rng.integers(3, 25))
    new_h = int(rng.integers(3, 25))
    return (picture, new_w, new_h)
