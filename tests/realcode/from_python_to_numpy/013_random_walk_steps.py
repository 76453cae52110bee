"""Source: https://github.com/rougier/from-python-to-numpy/blob/8a5f0d9973fe7513ef8463291ec71bf0f2453688/code/random_walk.py (function `random_walk`, lines 23-30)
Project: rougier/from-python-to-numpy
Description: builds a one-dimensional random walk by adding a random +1 or -1 step to the running position and recording each position.
"""
import random

EXPECT = {
    "vectorizable": False,
    "why": "each step calls random and adds to the position produced by the previous step (running sum with random draws)",
}


def original(n):
    pos = 0
    walk = [pos]
    for i in range(n):
        step = 2*random.randint(0, 1)-1
        pos += step
        walk.append(pos)
    return walk


def make_inputs(seed=0):
    return (10 + 7*seed,)
