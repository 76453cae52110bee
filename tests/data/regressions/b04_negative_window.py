import numpy as np

def running_mean(x, k):
    out = np.zeros(len(x) - k + 1)
    for i in range(len(x) - k + 1):
        out[i] = np.mean(x[i:i + k])
    return out

CALLS = [("running_mean", "np.array([1.0, 2.0, 3.0, 4.0]), -1")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('running_mean',)
