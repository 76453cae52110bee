"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/mandelbrot_numpy_2.py (function `mandelbrot`, lines 9-40)
Project: rougier/from-python-to-numpy
Description: iterates z = z*z + c, records the escape iteration and final value of the points that diverge, and keeps iterating only on the points that have not.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each iteration works on the arrays Z, C, Xi, Yi shrunk by the previous iteration, and the loop breaks once none are left",
}


def original(xmin, xmax, ymin, ymax, xn, yn, itermax, horizon=2.0):
    Xi, Yi = np.mgrid[0:xn, 0:yn]
    Xi, Yi = Xi.astype(np.uint32), Yi.astype(np.uint32)
    X = np.linspace(xmin, xmax, xn, dtype=np.float32)[Xi]
    Y = np.linspace(ymin, ymax, yn, dtype=np.float32)[Yi]
    C = X + Y*1j
    N_ = np.zeros(C.shape, dtype=np.uint32)
    Z_ = np.zeros(C.shape, dtype=np.complex64)
    Xi.shape = Yi.shape = C.shape = xn*yn

    Z = np.zeros(C.shape, np.complex64)
    for i in range(itermax):
        if not len(Z):
            break

        # Compute for relevant points only
        np.multiply(Z, Z, Z)
        np.add(Z, C, Z)

        # Failed convergence
        I = abs(Z) > horizon
        N_[Xi[I], Yi[I]] = i+1
        Z_[Xi[I], Yi[I]] = Z[I]

        # Keep going with those who have not diverged yet
        I = ~I
        Z = Z[I]
        Xi, Yi = Xi[I], Yi[I]
        C = C[I]
    return Z_.T, N_.T


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    xn = int(rng.integers(10, 20))
    yn = int(rng.integers(8, 16))
    if seed % 2:
        # a window entirely outside the set: every point escapes and the loop breaks early
        return (2.5, 3.5, 2.5, 3.5, xn, yn, 30, 2.0)
    return (-2.25, 0.75, -1.25, 1.25, xn, yn, int(rng.integers(15, 30)), 2.0)
