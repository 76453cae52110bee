"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/morphological_operations/erosion_operation.py (function `erosion`, lines 42-66)
Project: TheAlgorithms/Python
Description: Binary erosion: a pixel stays set only when all five cells of the cross-shaped element fall on set pixels of the zero-padded image.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each output pixel is computed from a window of the read-only padded image and written to its own cell",
}


def original(mask, element):
    result = np.zeros_like(mask)
    padded = np.zeros(
        (mask.shape[0] + element.shape[0] - 1, mask.shape[1] + element.shape[1] - 1)
    )

    padded[element.shape[0] - 2 : -1 :, element.shape[1] - 2 : -1 :] = mask

    for x in range(mask.shape[1]):
        for y in range(mask.shape[0]):
            total = (
                element * padded[y : y + element.shape[0], x : x + element.shape[1]]
            ).sum()
            result[y, x] = int(total == 5)
    return result


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 14))
    w = int(rng.integers(4, 14))
    mask = rng.random((h, w)) > 0.25
    element = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]])
    return (mask, element)
