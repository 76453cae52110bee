"""Source: https://github.com/TheAlgorithms/Python/blob/f5988cc09713315817df6a7e327e258013a94440/digital_image_processing/histogram_equalization/histogram_stretch.py (method `ConstantStretch.stretch`, lines 27-41; state set up in `__init__`, lines 16-25)
Project: TheAlgorithms/Python
Description: Histogram equalisation table: walks the 256-bin histogram keeping a running cumulative probability and appends the scaled, rounded level for each bin.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each appended level is computed from the running cumulative sum carried over from all earlier bins (a prefix scan, not a single reduction)",
}


def original(counts, picture):
    levels = 256
    running = 0
    rem = 0
    table = []
    n_rows = 0
    n_cols = 0
    total = np.sum(counts)
    for i in range(len(counts)):
        p = counts[i] / total
        running += p
        last = (levels - 1) * running
        if rem != 0:
            rem = int(last % last)
        last = int(last + 1 if rem >= 0.5 else last)
        table.append(last)
        n_rows = int(np.ma.count(picture) / picture[1].size)
        n_cols = picture[1].size
    return table, n_rows, n_cols


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(5, 20))
    w = int(rng.integers(5, 20))
    picture = rng.integers(40, 200, size=(h, w)).astype(np.uint8)
    # the project takes the counts from matplotlib's hist(img.ravel(), 256, [0, 256]): 256 float bins
    counts = np.histogram(picture.ravel(), 256, [0, 256])[0].astype(np.float64)
    return (counts, picture)
