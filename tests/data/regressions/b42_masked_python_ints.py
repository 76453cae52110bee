import numpy as np

# Wrong rewrites found in session 15: under a per-iteration test the batched code computes an
# arm on every element, where the loop computes it only on the iterations that take it. NumPy
# raises OverflowError where a Python int meets an integer array whose dtype cannot hold it
# (NEP 50: int8 and 1000, uint8 and -1), so with no iteration taking the arm the loop returned
# and the rewrite raised. Such arithmetic is rewritten only where the arrays the loop reads
# hold float64 values (checked in front; other arrays run the loop); an int in [0, 127],
# which every integer dtype holds, needs no check.


def negated(u, c):
    for i in range(len(u)):
        if c[i] > 5:
            u[i] = u[i] * -1
    return u


def offset(u, c):
    out = np.zeros(len(u))
    for i in range(len(u)):
        if c[i] > 5:
            out[i] = u[i] + 1000
    return out


def far(u, c):
    for i in range(len(u)):
        if c[i] > 5:
            u[i] = u[i] + 2 ** 40
    return u


def chosen(u, c):
    out = np.zeros(len(u))
    for i in range(len(u)):
        out[i] = u[i] - 300 if c[i] > 5 else 0.0
    return out


def small(u, c):
    for i in range(len(u)):
        if c[i] > 5:
            u[i] = u[i] + 100
    return u


def counted(x, c):
    out = np.zeros(len(c))
    for i in range(len(c)):
        if c[i] > 5:
            out[i] = (x[i] > 0) * -1   # a comparison's kind is no float: the loop is kept
    return out


_NONE = "np.zeros(4)"
_SOME = "np.array([0.0, 9.0, 0.0, 7.0])"
CALLS = [(f, f"np.arange(4, dtype=np.{dt}), {c}")
         for f in ("negated", "offset", "far", "chosen", "small")
         for dt in ("int8", "uint8", "int64", "float64") for c in (_NONE, _SOME)] + [
        ("counted", f"np.array([1.0, -2.0, 3.0, 0.0]), {c}") for c in (_NONE, _SOME)]

REWRITTEN = ("negated", "offset", "far", "chosen", "small")
