"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/acoustics.py (function `inverse_sabine`, lines 1070-1129)
Project: LCAV/pyroomacoustics
Description: collects, for every pair of room side lengths, the radius of the largest circle fitting
the image-source diamond, then derives the Sabine absorption and the image-source order needed.
"""
import itertools
import math

import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each pair of side lengths gives one value appended to a collector list; no iteration reads another's result",
}


def original(rt60, dims, c):
    radii = []
    for l1, l2 in itertools.combinations(dims, 2):
        radii.append(l1 * l2 / np.sqrt(l1**2 + l2**2))

    vol = np.prod(dims)  # area (2d) or volume (3d)
    # "surface" computation is diff for 2d and 3d
    if len(dims) == 2:
        surf = 2 * np.sum(dims)
        coef = 12  # the sabine's coefficient needs to be adjusted in 2d
    elif len(dims) == 3:
        surf = 2 * np.sum([l1 * l2 for l1, l2 in itertools.combinations(dims, 2)])
        coef = 24

    absorption = (
        coef * np.log(10) * vol / (c * surf * rt60)
    )  # absorption in power (sabine)

    if absorption > 1.0:
        raise ValueError(
            "evaluation of parameters failed. room may be too large for required RT60."
        )

    # the int cast is only needed for python 2.7
    # math.ceil returns int for python 3.5+
    order = int(math.ceil(c * rt60 / np.min(radii) - 1))

    return absorption, order


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    if seed % 3 == 1:
        dims = rng.uniform(3.0, 8.0, 2).tolist()
    else:
        dims = rng.uniform(3.0, 8.0, 3).tolist()
    return (0.5, dims, 343.0)
