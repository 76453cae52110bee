"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/mandelbrot_numpy_1.py (function `mandelbrot`, lines 8-21)
Project: rougier/from-python-to-numpy
Description: iterates z = z**2 + c on the points that have not escaped yet and records, for each point, the last iteration at which it was still bounded.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each iteration squares the z values written by the previous iteration (recurrence over n)",
}


def original(xmin, xmax, ymin, ymax, xn, yn, maxiter, horizon=2.0):
    X = np.linspace(xmin, xmax, xn, dtype=np.float32)
    Y = np.linspace(ymin, ymax, yn, dtype=np.float32)
    C = X + Y[:,None]*1j
    N = np.zeros(C.shape, dtype=int)
    Z = np.zeros(C.shape, np.complex64)
    for n in range(maxiter):
        I = np.less(abs(Z), horizon)
        N[I] = n
        Z[I] = Z[I]**2 + C[I]
    N[N == maxiter-1] = 0
    return Z, N


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    xn = int(rng.integers(10, 20))
    yn = int(rng.integers(8, 16))
    return (-2.25, 0.75, -1.25, 1.25, xn, yn, int(rng.integers(15, 30)), 2.0)
