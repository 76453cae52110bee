"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/EyeDiagram.ipynb (function `bres_curve_count_slow`, notebook cell 1, calling `bres_segment_count_slow` from the same cell)
Project: scipy/scipy-cookbook
Description: rasterizes a polyline into a hit-count grid by running Bresenham's segment counter on every pair of consecutive points.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each segment reads only its own two points and only adds 1 to grid cells; the += updates commute (a scatter-add reduction)",
}


def segment_count(x0, y0, x1, y1, grid):
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


def original(x, y, grid):
    for k in range(x.size - 1):
        x0 = x[k]
        y0 = y[k]
        x1 = x[k+1]
        y1 = y[k+1]
        segment_count(x0, y0, x1, y1, grid)
    return grid


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = 12
    grid = np.zeros((30, 30), dtype=np.int32)
    x = np.sort(rng.integers(-2, 32, n)).astype(np.int32)
    y = rng.integers(-2, 32, n).astype(np.int32)
    return (x, y, grid)
