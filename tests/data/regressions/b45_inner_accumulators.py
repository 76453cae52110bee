import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: an accumulator private to each
# outer iteration (`s = 0; for j: s += m[i, j]`) was summed by `np.sum` in NumPy's own
# accumulator (int64 for small ints, the terms' dtype for floats), where the loop adds in the
# dtype of `s + t`: int8 terms added to 0 wrap in int8, and a uint64 sum past 2**63 differs.
# The inner sum now takes `dtype=np.result_type(s, terms)`, as the outer one does.

def row_sums(m):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        s = 0
        for j in range(m.shape[1]):
            s += m[i, j]
        out[i] = s
    return out


def row_sums_float(m):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j]
        out[i] = s
    return out


def row_products(m):
    out = []
    for i in range(m.shape[0]):
        p = 1
        for j in range(m.shape[1]):
            p *= m[i, j]
        out.append(p)
    return out


CALLS = [("row_sums", "np.array([[100, 100], [1, 2]], np.int8)"), ("row_sums", "np.array([[1.5, 2.0]])"),
         ("row_sums_float", "np.array([[100, 100], [1, 2]], np.int8)"),
         ("row_products", "np.array([[16, 16], [3, 2]], np.int8)"),
         ("row_products", "np.array([[2 ** 40, 2 ** 40]], np.int64)")]

REWRITTEN = ("row_sums", "row_sums_float", "row_products")
