import numpy as np

# helper-68 (session 40): `x = b`, then `out[i] = x[i] * 3` (or `v * 3` of `enumerate(x)`):
# the batched code reads `x * 3`, which repeats a list, but the check accepted `x` as a list of
# numbers (a list as an operand was looked for in the loop's body, where `x` is only indexed).
# The loop returned [3.0, 6.0, 0, ...], the rewrite raised ValueError. The batched code's own
# operands are now looked at too: such a name must be an array.

REWRITTEN = ["aliased", "enumerated"]


def aliased(b):
    out = np.zeros(6)
    x = b
    for i in range(len(x)):
        out[i] = x[i] * 3
    return out


def enumerated(b):
    out = np.zeros(6)
    x = b
    for i, v in enumerate(x):
        out[i] = v * 3
    return out


CALLS = [
    ("aliased", "[1.0, 2.0]"),
    ("aliased", "np.array([1.0, 2.0])"),
    ("enumerated", "[1.0, 2.0]"),
    ("enumerated", "(1.0, 2.0, 3.0)"),
    ("enumerated", "np.array([1.0, 2.0])"),
]
