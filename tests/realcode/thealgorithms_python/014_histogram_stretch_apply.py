"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/histogram_equalization/histogram_stretch.py (method `ConstantStretch.stretch`, lines 42-46)
Project: TheAlgorithms/Python
Description: Applies a 256-entry grey-level lookup table to an image in place, column by column, writing only pixels whose level changes.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each pixel is rewritten from its own old value through a read-only table; no pixel reads another",
}


def original(picture, table, n_rows, n_cols):
    for i in range(n_cols):
        for j in range(n_rows):
            level = picture[j][i]
            if level != table[level]:
                picture[j][i] = table[level]
    return picture


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(5, 20))
    w = int(rng.integers(5, 20))
    picture = rng.integers(0, 256, size=(h, w)).astype(np.uint8)
    counts = np.histogram(picture.ravel(), 256, [0, 256])[0]
    table = [int(v) for v in 255 * np.cumsum(counts) / counts.sum()]
    # make sure some levels map to themselves so both outcomes of the test occur
    for v in (0, 128, 255):
        table[v] = v
    picture[0, 0], picture[-1, -1], picture[0, -1] = 0, 255, 128
    return (picture, table, h, w)
