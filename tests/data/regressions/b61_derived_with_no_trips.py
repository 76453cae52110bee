import numpy as np

# Fuzz seed 8111590: a variable stepped by a float in every iteration (`s = s - -c`) from an
# int start was finished after the batched loop as `s = s + len(range(n)) * c`, a float even
# with no trips, where the loop leaves the int start as it was. (With the ranks given no
# run-time check keeps an empty `x` from the batched code.)

def exclusive_offsets(x, c):
    s = 0
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = s - x[i]
        s = s - -c
    return out, s


def stepped_count(x, step):
    k = 1
    for i in range(2, len(x)):
        x[i] = x[i] * k
        k = k + step
    return x, k


CALLS = [('exclusive_offsets', 'np.zeros(0), 0.5'),
         ('exclusive_offsets', 'np.array([1.0, 2.0, 4.0]), 0.5'),
         ('stepped_count', 'np.array([1.0, 2.0]), 0.25'),
         ('stepped_count', 'np.array([1.0, 2.0, 3.0, 4.0]), 0.25')]

REWRITTEN = ('exclusive_offsets', 'stepped_count')

SHAPES = {'x': 1, 'c': 0, 'step': 0}
