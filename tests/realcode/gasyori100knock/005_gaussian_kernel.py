"""Source: https://github.com/yoyoyo-yo/Gasyori100knock/blob/032cb1d35a6838c5f3e01be4a8355b0ae2f0c453/Question_01_10/answers_py/answer_9.py (function `gaussian_filter`, lines 19-25)
Project: yoyoyo-yo/Gasyori100knock
Description: Fills a size-by-size Gaussian kernel cell by cell from the squared offsets, then normalises it to sum to one.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "every kernel cell is written from its own offsets only",
}


def original(size=3, sd=1.3):
    pad = size // 2
    # the project writes dtype=np.float; np.float was an alias of float, removed in NumPy 1.24
    kern = np.zeros((size, size), dtype=float)
    for x in range(-pad, -pad + size):
        for y in range(-pad, -pad + size):
            kern[y + pad, x + pad] = np.exp( -(x ** 2 + y ** 2) / (2 * (sd ** 2)))
    kern /= (2 * np.pi * sd * sd)
    kern /= kern.sum()
    return kern


def make_inputs(seed=0):
    return ((3, 5, 7)[seed % 3], (1.3, 1.0, 2.0)[seed % 3])
