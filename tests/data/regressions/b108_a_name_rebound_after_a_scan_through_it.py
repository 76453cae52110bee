import numpy as np

# Session 40: `x = a`, a scan through `x`, then `x = b` and the same scan. Transpiling the
# output again rewrote the second loop: its "x may be a Python list" refusal was lifted by the
# first loop's checks, which read `x.ndim` and `x.dtype` of the binding `x = a`. Evidence that
# a name is an array now counts only the bindings that reach the read (beniget's reaching
# definitions). The first loop's checks also asked `not np.may_share_memory(x, a)`, which
# never holds: `a` is `x` itself.

# (helper-68: a global `x` too, whose bindings the chains do not follow: a read counts for a
# name bound once only)
REWRITTEN = ["rebound", "rebound_global"]


def rebound(a, b):
    x = a
    for i in range(1, len(x)):
        x[i] = x[i - 1] + x[i]
    x = b
    for i in range(1, len(x)):
        x[i] = x[i - 1] + x[i]
    return x


def rebound_global(a, b):
    global x
    x = a
    for i in range(1, len(x)):
        x[i] = x[i - 1] + x[i]
    x = b
    for i in range(1, len(x)):
        x[i] = x[i - 1] + x[i]
    return x


CALLS = [
    ("rebound_global", "np.arange(4.0), [1.0, 2.0, 3.0]"),
    ("rebound", "np.arange(4.0), [1.0, 2.0, 3.0]"),
    ("rebound", "np.arange(4.0), np.arange(3.0)"),
    ("rebound", "[1.0, 2.0], [1, 2, 3]"),
    ("rebound", "np.arange(4, dtype=np.int8), (1, 2)"),
]
