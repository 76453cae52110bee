import contextlib
import functools

import numpy as np

# helper-44 (session 25): after b79, floating-point error settings that the check did not see,
# since it read the analysed tree, whose functions without loops are stubs: `np.seterr` in a
# function (called at import, or as a context manager), in a class's `__init__`, an errstate
# named other than in a call (`functools.partial(np.errstate, ...)`, `es = np.errstate`). The
# batched arm computes `np.log` on the elements the test skips, and raised FloatingPointError
# where the loop returned. The check now reads the module's whole text.


def setup():
    np.seterr(all='raise')


@contextlib.contextmanager
def strict():
    old = np.seterr(all='raise')
    try:
        yield
    finally:
        np.seterr(**old)


RAISING = functools.partial(np.errstate, all='raise')


def logs(a):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 0:
            out[j] = np.log(a[j])
    return out


def strict_logs(a):
    with strict():
        return logs(a)


def partial_logs(a):
    with RAISING():
        return logs(a)


CALLS = [('strict_logs', 'np.array([1.0, -1.0, 0.0])'),
         ('partial_logs', 'np.array([1.0, -1.0, 0.0])'),
         ('logs', 'np.array([1.0, 2.0])')]

REWRITTEN = []
