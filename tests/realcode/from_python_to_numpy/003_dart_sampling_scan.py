"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/DART_sampling_numpy.py (function `DART_sampling_numpy`, lines 29-38)
Project: rougier/from-python-to-numpy
Description: dart-throwing sampler that scans precomputed random points and keeps each one whose distance to all kept points exceeds the radius, stopping after k consecutive rejections.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "each test reads the list of indices kept by earlier iterations, and the while condition stops on the position of the last success",
}


def original(pts, dist, n, k, radius):
    kept_pts, kept_idx = [pts[0]], [0]
    i = 1
    last_ok = 0
    while i < n and i - last_ok < k:
        if dist[i, kept_idx].min() > radius:
            kept_idx.append(i)
            kept_pts.append(pts[i])
            last_ok = i
        i += 1
    return kept_pts


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = 40
    pts = np.zeros((n, 2))
    pts[:, 0] = rng.uniform(0, 1.0, n)
    pts[:, 1] = rng.uniform(0, 1.0, n)
    dist = np.sqrt(((pts[:, None, :] - pts[None, :, :])**2).sum(-1))
    dist[range(n), range(n)] = 1e10
    return (pts, dist, n, 8, 0.2)
