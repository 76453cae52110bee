import numpy as np

# Session 40: `x = a`, a scan through `x`, then `x = b` and the same scan. Transpiling the
# output again rewrote the second loop: its "x may be a Python list" refusal was lifted by the
# first loop's checks, which read `x.ndim` and `x.dtype` of the binding `x = a`. Evidence that
# a name is an array now counts only the bindings that reach the read (beniget's reaching
# definitions). The first loop's checks also asked `not np.may_share_memory(x, a)`, which
# never holds: `a` is `x` itself.

REWRITTEN = ["rebound"]


def rebound(a, b):
    x = a
    for i in range(1, len(x)):
        x[i] = x[i - 1] + x[i]
    x = b
    for i in range(1, len(x)):
        x[i] = x[i - 1] + x[i]
    return x


CALLS = [
    ("rebound", "np.arange(4.0), [1.0, 2.0, 3.0]"),
    ("rebound", "np.arange(4.0), np.arange(3.0)"),
    ("rebound", "[1.0, 2.0], [1, 2, 3]"),
    ("rebound", "np.arange(4, dtype=np.int8), (1, 2)"),
]
