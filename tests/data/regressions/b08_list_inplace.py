import numpy as np

def scale_inplace(x, w):
    for i in range(len(x)):
        x[i] = x[i] * w
    return x

def shift_left(x):
    for i in range(len(x) - 1):
        x[i] = x[i + 1]
    return x

CALLS = [("scale_inplace", "[1.0, 2.0, 3.0], 2.0"), ("shift_left", "[1, 2, 3]"), ("shift_left", "[[1, 2], [3, 4], [5, 6]]")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('scale_inplace', 'shift_left')
