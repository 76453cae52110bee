import numpy as np

# Wrong rewrites an adversarial tester found in session 16: a local bound to an element before the loop writes that element (`t = a[i]; a[i] = b[i]; b[i] = t`)
# was read as the array itself after the batched write. A value that may be a view of an array
# the loop writes is now copied where it is bound (`t = np.copy(a)`), a collected one too.

def swap(a, b):
    for i in range(len(a)):
        t = a[i]
        a[i] = b[i]
        b[i] = t
    return a, b


def take_and_zero(x, out):
    for i in range(len(x)):
        t = x[i]
        x[i] = 0
        out[i] = t
    return x, out


def old_plus(x, out):
    for i in range(len(x)):
        old = x[i]
        x[i] = x[i] * 2
        out[i] = old + x[i]
    return x, out


def old_sum(x):
    s = 0.0
    for i in range(len(x)):
        v = x[i]
        x[i] = 0.0
        s += v
    return x, s


def row_swap(m):
    for i in range(m.shape[0]):
        t = m[i, 0]
        m[i, 0] = m[i, 1]
        m[i, 1] = t
    return m


CALLS = [('swap', 'np.array([1.0, 2.0]), np.array([3.0, 4.0])'),
         ('take_and_zero', 'np.array([1.0, 2.0]), np.zeros(2)'),
         ('old_plus', 'np.array([1.0, 2.0]), np.zeros(2)'),
         ('old_sum', 'np.array([1.0, 2.0])'),
         ('row_swap', 'np.array([[1.0, 2.0], [3.0, 4.0]])')]

REWRITTEN = ('swap', 'take_and_zero', 'old_plus', 'old_sum', 'row_swap')
