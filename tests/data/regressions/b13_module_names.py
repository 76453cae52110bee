import numpy as np

W = np.ones(2)

WEIGHTS = [0.2, 0.3, 0.5]
WEIGHTS.append(np.array([1.0, 2.0]))


def load_weights():
    global W
    W = np.arange(6.0).reshape(3, 2)


def scaled(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i] * W)
    return out


def loaded_then_scaled(x):
    load_weights()
    return scaled(x)


def weighted(x):
    tot = 0.0
    for i in range(len(WEIGHTS)):
        tot += WEIGHTS[i] * x[i]
    return tot


CALLS = [("loaded_then_scaled", "np.ones((3, 2))"), ("weighted", "np.ones(4)")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
#: scaled: the rank of the module-level `W` is unknown
#: weighted: the rank of the module-level `WEIGHTS` is unknown
REWRITTEN = ()
