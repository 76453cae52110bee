import numpy as np

# helper-61 (session 35), older than that session: `out = x` before the loop, which writes
# `out[i]` and keeps `prev = x[i]`. The next iteration's `prev` is the element the loop has just
# written through `out`; the rewrite read every `x[i - 1]` before writing. The analysis saw no
# array of `E` written (it writes `out`), and the batched code resolved `out` to `x` and skipped
# the memory check of an array against itself. A wrap-around variable that reads an array the
# loop writes through another name now leaves the loop as it is.


def differences(x):
    prev = x[-1]
    out = x
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out


def from_zero(x):
    prev = 0.0
    out = x
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out


CALLS = [('differences', 'np.array([1.0, 2.0, 4.0])'),
         ('from_zero', 'np.array([1.0, 2.0, 4.0])'),
         ('from_zero', 'np.array([3.0])')]

REWRITTEN = ()
