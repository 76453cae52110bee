import numpy as np

# Wrong rewrites found in session 13 by an adversarial tester: a scattered update computed in
# another dtype than the loop's `A[k] -= v`.
#
# - column_minus: `G[:, t[i]] -= X[i]` of a uint8 `X` into float64 `G`: the rewrite added the
#   negated `X`, which wraps in uint8 (-3 is 253); a bool `X` raised. It subtracts now
#   (`np.subtract.at`), in the dtype of `G - X`.
# - rows_minus: `H[y[i]] -= X[i]`, the same through rows.
# - nest_sum: `G[t[i]] += X[i, j]` in a nest: the `j` terms were summed in `X`'s dtype before
#   they met float64 `G` (float32 rounds, int8 wraps); summed in the dtype of `G + X` now.


def column_minus(G, X, t):
    for i in range(len(t)):
        G[:, t[i]] -= X[i]
    return G


def rows_minus(H, X, y):
    for i in range(len(y)):
        H[y[i]] -= X[i]
    return H


def nest_sum(G, X, t):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            G[t[i]] += X[i, j]
    return G


X = "np.array([[3, 1], [2, 5], [1, 1]], dtype=np.{})"
T = "np.array([0, 1, 0])"
CALLS = [(f, f"np.zeros((2, 2)), {X.format(dt)}, {T}") for f in ("column_minus", "rows_minus")
         for dt in ("uint8", "int64", "float32", "bool_")] + [
    ("nest_sum", f"np.zeros(2), {X.format(dt)} * {scale}, {T}") for dt, scale in (
        ("int8", 60), ("float32", "np.float32(0.1)"), ("float64", 0.1), ("uint8", 1))]

REWRITTEN = ("column_minus", "rows_minus", "nest_sum")
