import numpy as np

# session 43 (fuzz seed 8512005, through the staged decorator; `--shapes` too): a loop whose
# index set was split in two (`o3[len(x) - 1 - i]` read, `o3[i]` written) where neither piece
# could be vectorized for rows of two axes, but the comprehension inside each piece could: each
# piece rewrote it on its own, over the same source lines, and the two edits spliced into code
# that does not parse (an InternalError). The split is not made then, and the loop stays as
# written, its inner loops too.

SHAPES = {"f.x": 2, "f.y": 2}
REWRITTEN = []


def f(x, y, shp):
    o1 = np.zeros(shp)
    o3 = np.array(x, dtype=float)
    p3 = np.zeros(len(x))
    for i in range(len(x)):
        lc1 = [y[i] * i + x[i] for i in range(3)]
        o1[i] = np.max(lc1)
        u3 = o3[len(x) - 1 - i] + (x[i] + x[i])
        o3[i] = u3 - 1.0
        p3[i] = u3
    return o1, o3, p3


CALLS = [
    ("f", "np.arange(14.0).reshape(7, 2), np.ones((7, 2)), (7, 2)"),
    ("f", "np.arange(7.0), np.ones(7), 7"),
]
