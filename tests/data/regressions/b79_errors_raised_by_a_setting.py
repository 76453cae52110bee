import contextlib
import warnings

import numpy as np

# helper-42 (session 24): a loop inside `with np.errstate(divide='raise')`; helper-43: other
# settings that make NumPy raise on a floating-point error that the check did not see: a
# decorator, an errstate bound to a name and entered later, one entered through an ExitStack,
# one in a function that calls this one, and a warnings filter that turns RuntimeWarning into an
# error. The batched arm computes `np.log` on the elements the test skips, and raised where the
# loop returned.

RAISE = np.errstate(divide='raise')


def around(a):
    out = np.zeros(a.shape[0])
    with np.errstate(divide='raise'):
        for j in range(a.shape[0]):
            if a[j] > 0:
                out[j] = np.log(a[j])
    return out


@np.errstate(divide='raise')
def decorated(a):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 0:
            out[j] = np.log(a[j])
    return out


def named(a):
    out = np.zeros(a.shape[0])
    with RAISE:
        for j in range(a.shape[0]):
            if a[j] > 0:
                out[j] = np.log(a[j])
    return out


def stacked(a):
    out = np.zeros(a.shape[0])
    with contextlib.ExitStack() as stack:
        stack.enter_context(np.errstate(invalid='raise', divide='raise'))
        for j in range(a.shape[0]):
            if a[j] > 0:
                out[j] = np.sqrt(a[j]) + np.log(a[j])
    return out


def logs(a):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 0:
            out[j] = np.log(a[j])
    return out


def strict_logs(a):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return logs(a)


CALLS = [('around', 'np.array([0.0, 2.0])'),
         ('decorated', 'np.array([0.0, 1.0, 2.0])'),
         ('named', 'np.array([0.0, 1.0, 2.0])'),
         ('stacked', 'np.array([-1.0, 0.0, 4.0])'),
         ('strict_logs', 'np.array([0.0, 1.0, 2.0])'),
         ('logs', 'np.array([0.5, 1.0, 2.0])')]

REWRITTEN = []
