"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/EyeDiagram.ipynb (function `bres_segment_count_slow`, notebook cell 1)
Project: scipy/scipy-cookbook
Description: walks Bresenham's line from one grid point towards another and increments the count of every in-bounds grid cell it passes (excluding the end point).
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each step updates the error term and position from the previous step, and the while loop breaks on reaching the end point",
}


def original(x0, y0, x1, y1, grid):
    nrows, ncols = grid.shape

    dx = abs(x1 - x0)
    dy = abs(y1 - y0)

    sx = 0
    if x0 < x1:
        sx = 1
    else:
        sx = -1
    sy = 0
    if y0 < y1:
        sy = 1
    else:
        sy = -1

    err = dx - dy

    while True:
        # Note: this test is moved before setting
        # the value, so we don't set the last point.
        if x0 == x1 and y0 == y1:
            break

        if 0 <= x0 < nrows and 0 <= y0 < ncols:
            grid[x0, y0] += 1

        e2 = 2 * err
        if e2 > -dy:
            err -= dy
            x0 += sx
        if e2 < dx:
            err += dx
            y0 += sy
    return grid


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    grid = np.zeros((20, 20), dtype=np.int32)
    x0, y0 = (int(v) for v in rng.integers(-3, 23, 2))
    x1, y1 = (int(v) for v in rng.integers(-3, 23, 2))
    return (x0, y0, x1, y1, grid)
