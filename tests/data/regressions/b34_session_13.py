import numpy as np

# Wrong rewrites found in session 13, by hand and by the fuzzer's column-scatter fragment.
#
# - bool_arm_doubled: `(x[i] > 0) if c else 0.5`, then `v + v`: the loop adds two NumPy bools
#   (`True + True` is `True`, stored 1.0) where the batched float64 `where` gave 2.0.
# - int_arm_times_int: `(x[i] if c else -1) * k` with an int `k` of 0: the loop's `-1 * 0` is
#   the int 0, stored 0.0; the batched `-1.0 * 0` was -0.0.
# - scatter_in_a_nest: `H[t[i]] -= X[i]` in a loop over `j` under a test of `i` and `j`: the
#   updates kept the summed `j` axis, `(n, 1, d)` against the index's `(n,)`, and raised.
# - column_scatter_alone: `G[:, j] += R[i]` in an inner loop batched on its own (the outer
#   loop kept): the check in front read the view `G_moved` before the batched code bound it.
# - declared_by_a_docstring: `x: [n]` in a docstring gives the rank, not that `x` is no list;
#   `x * 3` of a list repeats it (session 12's B6). A list now runs the loop.


def bool_arm_doubled(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = (x[i] > 0) if c[i] > 0 else 0.5
        out[i] = v + v
    return out


def int_arm_times_int(x, c, k):
    out = np.zeros(len(x))
    for i in range(len(x)):
        v = x[i] if c[i] > 0 else -1
        out[i] = v * k
    return out


def scatter_in_a_nest(X, t, s):
    H = np.zeros((3, X.shape[1]))
    for i in range(X.shape[0]):
        for j in range(3):
            if j != t[i] and s[i, j] >= s[i, t[i]] - 1:
                H[t[i]] -= X[i]
    return H


def column_scatter_alone(x, R):
    G = np.zeros((2, 3))
    acc = 0.0
    for i in range(len(x)):
        acc = acc * 0.5 + x[i]
        for j in range(3):
            if acc >= R[i, 0] * j:
                G[:, j] += R[i]
    return G


def declared_by_a_docstring(x):
    """Triples.

    Args:
        x: [n]
    """
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * 3
    return out


CALLS = [("declared_by_a_docstring", "[1.0, 2.0]"), ("declared_by_a_docstring", "(1, 2, 3)"),
         ("declared_by_a_docstring", "np.array([1.5, -2.0])"),
         ("bool_arm_doubled", "np.array([1.5, -2.0, 3.0]), np.array([1.0, 1.0, -1.0])"),
         ("int_arm_times_int", "np.array([1.5, 2.0]), np.array([-1.0, 1.0]), 0"),
         ("scatter_in_a_nest", "np.arange(12.0).reshape(6, 2), np.array([0, 2, 1, 1, 0, 2]), "
                               "np.linspace(-1, 1, 18).reshape(6, 3)"),
         ("column_scatter_alone", "np.array([0.5, -1.0, 2.0]), np.array([[0.1, 1.0], [-0.5, 2.0], [0.3, -1.0]])")]

#: the functions whose loop pforge rewrites (the first two keep the loop: a bool arm, an int
#: operand beside an int arm)
REWRITTEN = ("scatter_in_a_nest", "column_scatter_alone", "declared_by_a_docstring")
