"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/edge_detection/canny.py (function `detect_high_low_threshold`, lines 73-91)
Project: TheAlgorithms/Python
Description: Canny double threshold: relabels each interior pixel in place as strong, weak or zero by comparing it with a high and a low threshold.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each pixel is rewritten in place from its own value only; no iteration reads another pixel",
}


def original(shape, edges, low, high, weak, strong):
    for r in range(1, shape[0] - 1):
        for c in range(1, shape[1] - 1):
            if edges[r, c] >= high:
                edges[r, c] = strong
            elif edges[r, c] <= low:
                edges[r, c] = 0
            else:
                edges[r, c] = weak
    return edges


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(5, 14))
    w = int(rng.integers(5, 14))
    edges = np.zeros((h, w))
    edges[1:-1, 1:-1] = rng.uniform(0, 60, size=(h - 2, w - 2))
    return ((h, w), edges, 15, 30, 128, 255)
