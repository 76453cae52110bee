"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/AccumarrayLike.ipynb (function `accum`, notebook cell 1, the second loop)
Project: scipy/scipy-cookbook
Description: scatters every element of an array into the Python list stored at the output position named by its accumulation map (Matlab accumarray-style grouping).
"""
from itertools import product
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each element is read independently and appended to the bucket its map entry names (a scatter-append / grouping)",
}


def original(amap, a, vals):
    for s in product(*[range(k) for k in a.shape]):
        indx = tuple(amap[s])
        val = a[s]
        vals[indx].append(val)
    return vals


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 10, size=(5, 4))
    amap = rng.integers(0, 3, size=(5, 4))
    amap = np.expand_dims(amap, -1)
    size = np.atleast_1d(1 + np.squeeze(np.apply_over_axes(np.max, amap, axes=(0, 1))))
    vals = np.empty(size, dtype='O')
    for s in product(*[range(k) for k in size]):
        vals[s] = []
    return (amap, a, vals)
