import numpy as np

# `s = (c - i) + np.sin(y[i]) * s` with a Python float `c`: the offset `c - i` is a Python
# float, weak against the float32 `np.sin(y[i]) * s`, so `s` stays float32; batched, the
# offsets were a float64 array and the running values float64 (fuzz seed 5700299). Such an
# offset is no longer batched (a NumPy offset still is: tests/test_scans.py).


def weak_offset(x, y, c):
    s3 = 1.5
    for i in range(len(x)):
        s3 = (c - i) + np.sin(y[i]) * s3
    return s3


CALLS = [("weak_offset", "np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32), 0.5")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ()
