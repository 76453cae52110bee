"""Module helpers a loop calls, one kind of effect each (tests/test_effects.py): the loop in `f`
calls CALL, which the test replaces."""
import numpy as np

TOTAL = [0]
count = 0


def bump(v):
    global count
    count += 1
    return v


def poke(a, v):
    a[0] = v
    return v


def stash(v):
    TOTAL[0] = v
    return v


def splat(*args):
    args[0][0] = 1.0
    return args[1]


def keep(v):
    tmp = []
    tmp.append(v)
    return tmp[0] * 2.0


def push(xs, v):
    xs.append(v)
    return v


def relay(a, v):
    return poke(a, v) + 1.0


def tag(o, v):
    o.seen = v
    return v


def kept_then_stashed(v):
    tmp = []
    tmp.append(v)
    TOTAL[0] = v
    return tmp[0]


def grid_local(v):
    t = np.zeros((2, 2))
    t[0][1] = v
    return t.sum()


def again(v, k):
    return v if k <= 0 else again(v * 0.5, k - 1)


def f(x, y, obj):
    """Args:
      x: [n].
      y: [n].
    """
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = CALL
    return out
