import numpy as np

def scores(x, w):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i] * w)
    return out

def window_max(x, k):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.max(x[i:i + k])
    return out

def squares(x):
    res = []
    for v in x:
        res.append(v ** 2)
    return np.array(res)

def lens(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = len(x[i])
    return out

CALLS = [("scores", "np.zeros((0, 3)), np.ones(4)"), ("window_max", "np.zeros(0), 0"), ("squares", "np.zeros((0, 3))")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('lens', 'scores', 'squares', 'window_max')
