"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/decision_tree.py (function `ClassificationTree._majority_vote`, lines 267-275)
Project: eriklindernoren/ML-From-Scratch
Description: Return the label that occurs most often in a label array, counting each distinct label with a boolean mask.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each label's count is computed independently; the running best is an argmax reduction with strict > keeping the first maximum",
}


def original(y):
    winner = None
    best = 0
    for lab in np.unique(y):
        count = len(y[y == lab])
        if count > best:
            winner = lab
            best = count
    return winner


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, size=(15, 1)).astype(float)
    return (y,)
