"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/Bridson_sampling.py (function `Bridson_sampling`, lines 76-78, with its helpers `in_limits`, `in_neighborhood`, `add_point`, lines 25-49)
Project: rougier/from-python-to-numpy
Description: for each random candidate around an active sample, accepts it into the Poisson-disk grid when it is inside the domain and far enough from every accepted sample.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "accepting a candidate writes the grid (cell_pts, occupied) and the sample list that the test of every later candidate reads",
}


def original(cands, samples, cell_pts, occupied, neigh, cell_size, r2, width, height):
    def sq_dist(a, b):
        return (a[0]-b[0])**2 + (a[1]-b[1])**2

    def inside(p):
        return 0 <= p[0] < width and 0 <= p[1] < height

    def too_close(p):
        i, j = int(p[0]/cell_size), int(p[1]/cell_size)
        if occupied[i, j]:
            return True
        for (i, j) in neigh[(i, j)]:
            if occupied[i, j] and sq_dist(p, cell_pts[i, j]) < r2:
                return True
        return False

    def accept(p):
        samples.append(p)
        i, j = int(p[0]/cell_size), int(p[1]/cell_size)
        cell_pts[i, j], occupied[i, j] = p, True

    for q in cands:
        if inside(q) and not too_close(q):
            accept(q)
    return samples, cell_pts, occupied


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
    width = height = 1.0
    radius = 0.1
    k = 30
    cell_size = radius/np.sqrt(2)
    rows = int(np.ceil(width/cell_size))
    cols = int(np.ceil(height/cell_size))
    cell_pts = np.zeros((rows, cols, 2), dtype=np.float32)
    occupied = np.zeros((rows, cols), dtype=bool)
    neigh = {}
    for i in range(rows):
        for j in range(cols):
            neigh[(i, j)] = _cells_around(occupied.shape, (i, j), 2)
    # one accepted sample near a corner, candidates drawn around it as the project does
    p = rng.uniform(0.02, 0.2, 2)
    i, j = int(p[0]/cell_size), int(p[1]/cell_size)
    cell_pts[i, j], occupied[i, j] = p, True
    R = rng.uniform(radius, 2*radius, k)
    T = rng.uniform(0, 2*np.pi, k)
    cands = np.empty((k, 2))
    cands[:, 0] = p[0]+R*np.sin(T)
    cands[:, 1] = p[1]+R*np.cos(T)
    return (cands, [], cell_pts, occupied, neigh, cell_size, radius*radius, width, height)
