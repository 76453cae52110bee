import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: `v ** 2` of a bool array is
# NumPy's square, int8, where a NumPy bool's `** 2` is an int64, so `v ** 2 * 200` overflowed
# batched (and squares came back as int8 values). `** 2` of an array is now `np.power`, which
# computes as the loop's scalars do.

def squared_flags(x):
    out = []
    for v in x:
        out.append(v ** 2 * 200)
    return out


def squares(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] ** 2 * 200
    return out


CALLS = [("squared_flags", "np.array([True, False])"), ("squared_flags", "np.array([1.5, 2.0])"),
         ("squared_flags", "np.array([3, 4], np.int8)"), ("squares", "np.array([True, False])"),
         ("squares", "[1.5, 2.0]")]

REWRITTEN = ("squared_flags", "squares")
