"""Source: https://github.com/eriklindernoren/ML-From-Scratch/blob/a2806c6732eee8d27762edd6d864e0c179d8e9e8/mlfromscratch/supervised_learning/linear_discriminant_analysis.py (function `LDA.predict`, lines 37-43)
Project: eriklindernoren/ML-From-Scratch
Description: Project each sample onto the discriminant direction and label it 1 when the projection is negative, else 0.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each sample's label depends only on that sample and the fixed direction; results are appended in order",
}


def original(X, direction):
    labels = []
    for row in X:
        h = row.dot(direction)
        lab = 1 * (h < 0)
        labels.append(lab)
    return labels


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((12, 4)), rng.standard_normal(4))
