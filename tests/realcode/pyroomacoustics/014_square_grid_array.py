"""Source: https://github.com/LCAV/pyroomacoustics/blob/6fe43fecb7c358ac9aaa054e7e73641189f1afff/pyroomacoustics/beamforming.py (function `square_2D_array`, lines 176-202)
Project: LCAV/pyroomacoustics
Description: places points on a rotated rectangular grid by laying a line of N points through each
of M points of a perpendicular line, writing each line into its own block of columns.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "iteration i writes only columns i*N to (i+1)*N of the preallocated output, from column i of the guide line",
}


def unit_vec2D(phi):
    return np.array([[np.cos(phi), np.sin(phi)]]).T


def linear_2D_array(center, M, phi, d):
    u = unit_vec2D(phi)
    return (
        np.array(center)[:, np.newaxis]
        + d * (np.arange(M)[np.newaxis, :] - (M - 1.0) / 2.0) * u
    )


def original(centre, rows, cols, angle, spacing):

    guide = linear_2D_array(centre, rows, angle + np.pi / 2.0, spacing)
    pts = np.zeros((2, rows * cols))
    for i in np.arange(rows):
        pts[:, i * cols : (i + 1) * cols] = linear_2D_array(guide[:, i], cols, angle, spacing)

    return pts


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(2), 4, 5, float(rng.uniform(0.0, np.pi)), 0.05)
