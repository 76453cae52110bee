import numpy as np
import json

def classify(x, t):
    labels = []
    for i in range(len(x)):
        if x[i] > t:
            labels.append(1)
        else:
            labels.append(0)
    return labels

def flags(x):
    res = []
    for v in x:
        res.append(v > 0)
    return res

def doubled(x):
    res = []
    for v in x:
        res.append(v * 2)
    return res

CALLS = [("classify", "np.array([0.2, 0.9]), 0.5"), ("flags", "[1.0, -1.0]"), ("doubled", "[1.0, 2.5]"),
         ("flags", "np.array([1.0, -1.0])"), ("doubled", "np.array([1.0, 2.5])"),
         ("doubled", "np.array([1, 2], np.int8)")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
#: doubled, flags: the list is used as a list: rebuilt from the batch (`list(v)`, NumPy scalars)
#: only where `x` is an array; a list's items are Python numbers, so for a list the loop runs
REWRITTEN = ('classify', 'doubled', 'flags')
