"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/Bridson_sampling.py (function `Bridson_sampling.in_neighborhood`, lines 37-44)
Project: rougier/from-python-to-numpy
Description: tells whether a candidate point lies too close to an already accepted sample by scanning the occupied grid cells around it.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "the loop returns True at the first neighbouring cell that is occupied and close enough (early exit)",
}


def original(pt, occupied, cell_pts, neigh, cell_size, r2):
    def sq_dist(a, b):
        return (a[0]-b[0])**2 + (a[1]-b[1])**2

    i, j = int(pt[0]/cell_size), int(pt[1]/cell_size)
    if occupied[i, j]:
        return True
    for (i, j) in neigh[(i, j)]:
        if occupied[i, j] and sq_dist(pt, cell_pts[i, j]) < r2:
            return True
    return False


def _cells_around(shape, index, n=2):
    row, col = index
    row0, row1 = max(row-n, 0), min(row+n+1, shape[0])
    col0, col1 = max(col-n, 0), min(col+n+1, shape[1])
    idx = np.dstack(np.mgrid[row0:row1, col0:col1])
    idx = idx.reshape(idx.size//2, 2).tolist()
    idx.remove([row, col])
    return idx


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    radius = 0.1
    cell_size = radius/np.sqrt(2)
    rows = cols = int(np.ceil(1.0/cell_size))
    occupied = rng.random((rows, cols)) < 0.3
    cell_pts = ((np.indices((rows, cols)).transpose(1, 2, 0) + rng.random((rows, cols, 2)))
                * cell_size).astype(np.float32)
    neigh = {}
    for i in range(rows):
        for j in range(cols):
            neigh[(i, j)] = _cells_around(occupied.shape, (i, j), 2)
    pt = rng.uniform(0.05, 0.95, 2)
    ci, cj = int(pt[0]/cell_size), int(pt[1]/cell_size)
    case = seed % 3
    if case == 0:
        occupied[ci, cj] = True          # own cell taken: answer before the loop
    elif case == 1:
        occupied[ci, cj] = False          # a close neighbour: early exit in the loop
        ni, nj = neigh[(ci, cj)][0]
        occupied[ni, nj] = True
        cell_pts[ni, nj] = pt + 0.01
    else:
        occupied[:, :] = False            # nobody around: loop runs to the end
    return (pt, occupied, cell_pts, neigh, cell_size, radius*radius)
