"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/gradient_check.py (function `eval_numerical_gradient_blobs`, lines 61-100)
Project: 0809zheng/CS231n-assignment2019
Description: For each input blob, finite-difference its value array entry by entry (nudging in place and re-running a function that writes into an output blob) against the output blob's upstream gradient.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each step writes the input blob's values in place and re-runs f, which overwrites the shared output blob read right after; the inner loop is driven by a stateful nditer",
}
TOL = {"rtol": 1e-6, "atol": 1e-6}


class Blob(object):
    def __init__(self, vals, diffs):
        self.vals = vals
        self.diffs = diffs


def affine_into(x, w, out):
    out.vals = x.vals.dot(w.vals)


def original(f, blobs, out, h=1e-5):
    result = []
    for blob in blobs:
        d = np.zeros_like(blob.diffs)
        it = np.nditer(blob.vals, flags=['multi_index'],
                       op_flags=['readwrite'])
        while not it.finished:
            ix = it.multi_index
            old = blob.vals[ix]

            blob.vals[ix] = old + h
            f(*(blobs + (out,)))
            hi = np.copy(out.vals)
            blob.vals[ix] = old - h
            f(*(blobs + (out,)))
            lo = np.copy(out.vals)
            blob.vals[ix] = old

            d[ix] = np.sum((hi - lo) * out.diffs) / (2.0 * h)

            it.iternext()
        result.append(d)
    return result


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = Blob(rng.standard_normal((4, 5)), np.zeros((4, 5)))
    w = Blob(rng.standard_normal((5, 3)), np.zeros((5, 3)))
    out = Blob(np.zeros((4, 3)), rng.standard_normal((4, 3)))
    return (affine_into, (x, w), out)
