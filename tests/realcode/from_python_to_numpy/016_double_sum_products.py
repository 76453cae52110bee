"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/vectorization.py (function `compute_1`, lines 9-16)
Project: rougier/from-python-to-numpy
Description: sums the products of every pair of elements taken from two vectors.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "the only carried value is the += sum over all (i, j) pairs (a reduction)",
}


def original(a, b):
    total = 0
    for i in range(len(a)):
        for j in range(len(b)):
            total += a[i] * b[j]
    return total


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (np.arange(int(rng.integers(10, 40))), np.arange(int(rng.integers(10, 40))))
