"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/edge_detection/canny.py (function `track_edge`, lines 94-116)
Project: TheAlgorithms/Python
Description: Canny hysteresis: in one raster sweep, promotes weak pixels touching a strong pixel to strong and zeroes the other weak pixels, in place.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "in-place sweep: a pixel promoted or zeroed earlier is read as a neighbour by later pixels",
}


def original(shape, edges, weak, strong):
    for r in range(1, shape[0]):
        for c in range(1, shape[1]):
            if edges[r, c] == weak:
                if 255 in (
                    edges[r, c + 1],
                    edges[r, c - 1],
                    edges[r - 1, c],
                    edges[r + 1, c],
                    edges[r - 1, c - 1],
                    edges[r + 1, c - 1],
                    edges[r - 1, c + 1],
                    edges[r + 1, c + 1],
                ):
                    edges[r, c] = strong
                else:
                    edges[r, c] = 0
    return edges


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(6, 14))
    w = int(rng.integers(6, 14))
    # as after double thresholding: values in {0, weak, strong}, border left at 0
    edges = np.zeros((h, w))
    edges[1:-1, 1:-1] = rng.choice([0.0, 128.0, 255.0], size=(h - 2, w - 2), p=[0.4, 0.4, 0.2])
    return ((h, w), edges, 128, 255)
