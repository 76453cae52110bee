import numpy as np
import math

def roots(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = math.sqrt(x[i])
    return out

CALLS = [("roots", "np.array([2, 3, 7], dtype=np.uint8)"), ("roots", "np.array([2.0, 3.0, 7.0], dtype=np.float32)"), ("roots", "np.array([True, False])")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('roots',)
