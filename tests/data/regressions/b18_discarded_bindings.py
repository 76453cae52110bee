import numpy as np

# A helper's `if v.ndim == 0` is decided by evaluating `v` (here `x[i]`) on the side, and what
# that evaluation emits is dropped: the loop index it bound (`i = np.arange(...)`) must be
# bound again where the batched code uses it (it was not: `o[i] = ...` with `i` unbound).


def _shifted(v, w, flag=False):
    a, b = v * 2.0, w + 1.0
    b += 0.5
    if v.ndim == 0 and flag:
        return np.tanh(a) * b
    return a - b


def backwards(x, c):
    o = np.zeros(len(x))
    for i in reversed(range(len(x))):
        o[i] = _shifted(x[i], c, True)
    return o


def strided(x, c):
    o = np.zeros(len(x))
    for i in range(1, len(x), 2):
        o[i] = _shifted(x[i], c, True) + i
    return o


CALLS = [("backwards", "np.arange(4.0), 0.5"), ("backwards", "np.arange(1.0), -2.0"),
         ("strided", "np.arange(6.0), 1.5")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('backwards', 'strided')
