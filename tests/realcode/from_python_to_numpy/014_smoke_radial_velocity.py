"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/smoke_2.py (function `initialization`, lines 50-55)
Project: rougier/from-python-to-numpy
Description: fills the interior of the two velocity grids with a radial field pointing away from the grid centre.
"""
import numpy as np

N = 12
size = N + 2
force = 5.0

EXPECT = {
    "vectorizable": True,
    "why": "each (i, j) computes its value from the indices alone and writes its own cell of u and v",
}


def original(u, v):
    ox, oy = size/2, size/2
    for j in range(1, N+1):
        for i in range(1, N+1):
            d = np.sqrt((i-ox)**2+(j-oy)**2)
            u[i, j] = (i-ox)/max(d, 1) * force * 0.25
            v[i, j] = (j-oy)/max(d, 1) * force * 0.25
    return u, v


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    u = rng.standard_normal((size, size)).astype(np.float32)
    v = rng.standard_normal((size, size)).astype(np.float32)
    return (u, v)
