"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/gray_scott.py (function `update`, lines 40-52)
Project: rougier/from-python-to-numpy
Description: advances a Gray-Scott reaction-diffusion system by ten explicit time steps, updating the interior of both concentration fields in place.
"""
import numpy as np

Du, Dv, F, k = 0.16, 0.08, 0.035, 0.065

EXPECT = {
    "vectorizable": False,
    "why": "each time step reads the fields written in place by the previous step (time recurrence)",
}


def original(A, B):
    a, b = A[1:-1, 1:-1], B[1:-1, 1:-1]

    for i in range(10):
        La = (                  A[0:-2, 1:-1] +
              A[1:-1, 0:-2] - 4*A[1:-1, 1:-1] + A[1:-1, 2:] +
                                A[2:  , 1:-1])
        Lb = (                  B[0:-2, 1:-1] +
              B[1:-1, 0:-2] - 4*B[1:-1, 1:-1] + B[1:-1, 2:] +
                                B[2:  , 1:-1])
        abb = a*b*b
        a += (Du*La - abb + F*(1-a))
        b += (Dv*Lb + abb - (F+k)*b)
    return A, B


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = 24
    grid = np.zeros((n+2, n+2), [('U', np.double), ('V', np.double)])
    A, B = grid['U'], grid['V']
    a, b = A[1:-1, 1:-1], B[1:-1, 1:-1]
    r = 4
    a[...] = 1.0
    A[n//2-r:n//2+r, n//2-r:n//2+r] = 0.50
    B[n//2-r:n//2+r, n//2-r:n//2+r] = 0.25
    a += 0.05*rng.uniform(-1, +1, (n, n))
    b += 0.05*rng.uniform(-1, +1, (n, n))
    return (A, B)
