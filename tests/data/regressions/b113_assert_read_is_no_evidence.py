import numpy as np

# helper-69 (session 40), fixed in session 41: `assert x.ndim == 1` before the loop counted as
# evidence that `x` is an array, so the check let a list through; `python -O` leaves the
# assert out, and `x[:n] = x[:n] * 3` of a list repeats it ([1.0, 2.0, 3.0] three times where
# the loop gives [3.0, 6.0, 9.0]). A read in an `assert` is no evidence
# (backends.common._runs_before); test_regressions.py also runs it under `python -O`.

REWRITTEN = ["tripled"]


def tripled(x, n):
    assert x.ndim == 1
    for i in range(n):
        x[i] = x[i] * 3
    return x


CALLS = [
    ("tripled", "np.array([1.0, 2.0, 3.0]), 3"),
    ("tripled", "np.array([1.0, 2.0, 3.0]), 2"),
]
