"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/smoke_solver.py (function `lin_solve`, lines 45-52, with `set_bnd`, lines 16-42)
Project: rougier/from-python-to-numpy
Description: runs twenty Jacobi relaxation sweeps of the stable-fluids linear solve, re-applying the box boundary conditions after each sweep.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each sweep reads the field x written (interior and boundary) by the previous sweep",
}


def set_bnd(N, b, x):
    if b == 1:
        x[0, 1:-1] = -x[1, 1:-1]
        x[-1, 1:-1] = -x[N, 1:-1]
    else:
        x[ 0, 1:-1] = x[1, 1:-1]
        x[-1, 1:-1] = x[N, 1:-1]
    if b == 2:
        x[1:-1,  0] = -x[1:-1, 1]
        x[1:-1, -1] = -x[1:-1, N]
    else:
        x[1:-1,  0] = x[1:-1, 1]
        x[1:-1, -1] = x[1:-1, N]

    x[ 0,  0] = 0.5 * (x[1,  0] + x[ 0, 1])
    x[ 0, -1] = 0.5 * (x[1, -1] + x[ 0, N])
    x[-1,  0] = 0.5 * (x[N,  0] + x[-1, 1])
    x[-1, -1] = 0.5 * (x[N, -1] + x[-1, N])


def original(N, b, x, x0, a, c):
    for k in range(20):
        x[1:-1, 1:-1] = (x0[1:-1, 1:-1] +
                         a * (x[:N, 1:-1] + x[2:, 1:-1] +
                              x[1:-1, :N] + x[1:-1, 2:])) / c
        set_bnd(N, b, x)
    return x


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    N = 10
    x = rng.standard_normal((N+2, N+2)).astype(np.float32)
    x0 = rng.standard_normal((N+2, N+2)).astype(np.float32)
    a = 0.1 * N * N * 0.01
    b = seed % 3
    return (N, b, x, x0, a, 1 + 4 * a)
