"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/AccumarrayLike.ipynb (function `accum`, notebook cell 1, the third loop)
Project: scipy/scipy-cookbook
Description: fills each output position with the accumulation function applied to its bucket of values, or with a fill value when the bucket is empty.
"""
from itertools import product
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each output position reads only its own bucket and writes only its own cell of the preallocated output (map)",
}


def original(vals, size, func, fill_value, dtype):
    out = np.empty(size, dtype=dtype)
    for s in product(*[range(k) for k in size]):
        if vals[s] == []:
            out[s] = fill_value
        else:
            out[s] = func(vals[s])
    return out


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    size = np.atleast_1d(np.array([3, 4]))
    vals = np.empty(size, dtype='O')
    for s in product(*[range(k) for k in size]):
        n = int(rng.integers(0, 4))
        vals[s] = [int(v) for v in rng.integers(-5, 10, n)]
    return (vals, size, np.sum, 0, np.dtype(int))
