import numpy as np

# `np.minimum(c * i, y[i] - x[i])` with a Python float `c`: `c * i` is a Python float, weak
# against float32 values, so each item is a float32 (NEP 50); batched, `c * i` was a float64
# array and the result float64 (fuzz seed 5400067). A product of the index with a NumPy
# float32 `c` keeps float32 either way.


def weak_minimum(x, y, c):
    f1 = []
    for i in range(len(x)):
        if y[i] > 0.5:
            f1.append(np.minimum((c * i), (y[i] - x[i])))
    return np.array(f1)


def weak_maximum(x, c):
    out = []
    for i in range(len(x)):
        out.append(np.maximum(c * i, x[i]))
    return np.array(out)


CALLS = [("weak_minimum", "np.arange(4, dtype=np.float32), np.ones(4, dtype=np.float32), 0.5"),
         ("weak_minimum", "np.arange(4, dtype=np.float32), np.ones(4, dtype=np.float32), np.float32(0.5)"),
         ("weak_maximum", "np.arange(5, dtype=np.float32) - 2, 0.25"),
         ("weak_maximum", "np.arange(5.0) - 2, 0.25")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("weak_minimum", "weak_maximum")
