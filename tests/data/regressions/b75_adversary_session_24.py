import numpy as np

# helper-42 (session 24): after b74, more invariants the loop evaluates only under a test that the
# batched code still evaluated once and that raised where no iteration passed the test: a Python
# int an int8 or uint8 array cannot hold (`a[j] + k`, also in an empty triangle), a Python float
# power that overflows (`10 ** k`, `k ** 2`), two invariant arrays that do not broadcast, `w.size`
# of a number, `-w` of a bool array, `np.transpose(w, axes)`, a slice step of 0, an ordering of a
# complex number, a 0-d array of strings, a Python int too large for int64, `k in w` (a loop
# under `np.errstate(divide='raise')`, where the masked arm computes on the elements the test
# skips, is in b79, since such a setting anywhere leaves the module's loops); and a length taken
# before `ys.append(...)` where `ys` is the same list as `xs`.


def b1_int_overflow(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + k
    return out

def b1_tri_overflow(a, k):
    n = a.shape[0]
    m = np.zeros((n, n), dtype=a.dtype)
    for i in range(n):
        for j in range(i + 1, n):
            m[i, j] = a[i] - a[j] + k
    return m

def b2_float_pow(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * 10 ** k
    return out

def b2_tri_pow(a, k):
    n = a.shape[0]
    m = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            m[i, j] = a[i] * a[j] * k ** 2
    return m

def b3_bcast(a, w, v):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * np.sum(w * v)
    return out

def b4_attr(a, w):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * w.size
    return out

def b4_tri_attr(a, w):
    n = a.shape[0]
    m = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            m[i, j] = a[i] * a[j] * w.size
    return m

def b5_neg_bool(a, w):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * np.sum(-w)
    return out

def b6_transpose(a, w):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * np.transpose(w, (1, 0)).sum()
    return out

def b7_step(a, w, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * np.sum(w[::k])
    return out

def b8_cmp_complex(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * (k > 0)
    return out

def b9_zero_d(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + k
    return out

def b11_alias(xs, ys):
    n = len(xs)
    ys.append(0.0)
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i]
    return out

def b12_bigint(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + np.sqrt(k)
    return out

def b13_in(a, k, w):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * (k in w)
    return out


SHAPES = {"a": 1, "k": 0, "w": 1, "v": 1, "xs": 1, "ys": 1}

CALLS = [('b1_int_overflow', 'np.array([1, 2], np.int8), 1000'),
         ('b1_int_overflow', 'np.array([1, 2], np.uint8), -1'),
         ('b1_int_overflow', 'np.array([1, 2]), 2**63'),
         ('b1_int_overflow', 'np.array([1.0, 200.0]), 1000'),
         ('b1_tri_overflow', 'np.array([1], np.int8), 1000'),
         ('b1_tri_overflow', 'np.array([1.0, 2.0, 3.0]), 1000'),
         ('b2_float_pow', 'np.array([1.0, 2.0]), 400.0'),
         ('b2_tri_pow', 'np.array([1.0]), 1e200'),
         ('b3_bcast', 'np.array([1.0]), np.ones(2), np.ones(3)'),
         ('b3_bcast', 'np.array([1.0, 300.0]), np.ones(2), np.ones(2)'),
         ('b4_attr', 'np.array([1.0]), 3.0'),
         ('b4_attr', 'np.array([1.0, 300.0]), np.ones(4)'),
         ('b4_tri_attr', 'np.array([1.0]), [1.0, 2.0]'),
         ('b5_neg_bool', 'np.array([1.0]), np.array([True, False])'),
         ('b6_transpose', 'np.array([1.0]), np.ones(3)'),
         ('b7_step', 'np.array([1.0]), np.ones(3), 0'),
         ('b8_cmp_complex', 'np.array([1.0]), 1j'),
         ('b8_cmp_complex', 'np.array([1.0, 300.0]), 2.0'),
         ('b9_zero_d', "np.array([1.0]), np.array('x')"),
         ('b9_zero_d', 'np.array([1.0, 300.0]), 2.5'),
         ('b11_alias', '*([[1.0, 2.0]] * 2)'),
         ('b11_alias', '[1.0, 2.0], [3.0]'),
         ('b12_bigint', 'np.array([1.0]), 2**64'),
         ('b13_in', 'np.array([1.0]), 1, 5')]

REWRITTEN = ['b11_alias', 'b12_bigint', 'b1_int_overflow', 'b1_tri_overflow', 'b2_tri_pow', 'b4_attr', 'b4_tri_attr',
             'b5_neg_bool', 'b8_cmp_complex', 'b9_zero_d']
