"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/voronoi.py (function `voronoi`, lines 110-117)
Project: rougier/from-python-to-numpy
Description: sorts the points of each Voronoi cell by angle around the cell's site and closes the polygon by repeating its first point.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each cell is sorted using only its own points and site, and replaces only its own entry of the list (map)",
}


def original(cells, X, Y):
    # Reordering cell points in trigonometric way
    for i,cell in enumerate(cells):
        xy = np.array(cell)
        I = np.argsort(np.arctan2(xy[:,1]-Y[i],xy[:,0]-X[i]))
        cell = xy[I].tolist()
        cell.append(cell[0])
        cells[i] = cell
    return cells


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 12))
    X = rng.random(n)
    Y = rng.random(n)
    cells = []
    for i in range(n):
        k = int(rng.integers(3, 7))
        ang = rng.permutation(np.linspace(0, 2*np.pi, k, endpoint=False) + rng.uniform(0, 0.5))
        rad = rng.uniform(0.05, 0.2, k)
        cells.append([(X[i] + r*np.cos(t), Y[i] + r*np.sin(t)) for r, t in zip(rad, ang)])
    return (cells, X, Y)
