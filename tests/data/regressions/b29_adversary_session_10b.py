import numpy as np

# A second adversarial pass (session 10) on array recurrences, guarded reads and moved indices.
#
# - doubled_declared, scan_by_shape: arguments that are views of one array (`f(x[1:], x[:-1])`)
#   lost the `np.may_share_memory` check where the ranks were declared or the bound was
#   `a.shape[0]`; every written parameter is now checked against every other one read.
# - plus_one, plus_c: `a[i] = a[i - 1] + 1` was taken for a derived induction variable and read
#   a name it never bound (NameError); it is a scan from `a[0]` in `a`'s dtype.
# - complex_product: NumPy's array multiply rounds complex products otherwise than the scalar
#   `*` of the loop; complex products step in order.
# - guarded_shifted_gather: `t[idx[i] - 1]` under `if idx[i] > 0` computed every index, so a
#   float or bool `idx` raised where the loop never reads; its operands are checked integers.
# - object_recurrence: an object array's element went through `np.result_type`; only arrays of
#   numbers run batched.
# - masked_sum_none_reached: no iteration passing the test left a NumPy zero where the loop
#   keeps the Python float (and -0.0 its sign).


def doubled_declared(a, b):
    """Doubles.

    Args:
      a: [n] output.
      b: [n] input.
    """
    for i in range(1, len(a)):
        a[i] = b[i] * 2
    return a


def scan_by_shape(a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] + b[i]
    return a


def plus_one(a):
    for i in range(1, len(a)):
        a[i] = a[i - 1] + 1
    return a


def plus_c(a, c):
    for i in range(1, len(a)):
        a[i] = a[i - 1] + c
    return a


def complex_product(a, b):
    for i in range(1, len(a)):
        a[i] = a[i - 1] * b[i]
    return a


def guarded_shifted_gather(t, idx):
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        if idx[i] > 0:
            out[i] = t[idx[i] - 1]
    return out


def object_recurrence(a, b):
    for i in range(1, len(a)):
        a[i] = a[i - 1] + b[i]
    return a


def masked_sum_none_reached(t, idx):
    s = -0.0
    for i in range(len(idx)):
        if idx[i] < len(t):
            s += t[idx[i]]
    return s


CALLS = [("doubled_declared", "*(lambda x: (x[1:], x[:-1]))(np.arange(1.0, 7.0))"),
         ("scan_by_shape", "*(lambda x: (x[1:], x[:-1]))(np.arange(1.0, 7.0))"),
         ("scan_by_shape", "np.arange(1.0, 7.0), np.ones(6)"),
         ("plus_one", "np.arange(6, dtype=np.int8)"),
         ("plus_one", "np.full(300, 120, dtype=np.int8)"),
         ("plus_c", "np.arange(6.0, dtype=np.float32), 0.1"),
         ("plus_c", "np.arange(6), 0.5"),
         ("complex_product", "np.exp(1j * np.arange(1.0, 9.0)) * 1.1, np.exp(0.7j * np.arange(8.0)) * 1.3"),
         ("guarded_shifted_gather", "np.array([1.0, 2.0, 3.0]), np.array([-3.0, -1.0])"),
         ("guarded_shifted_gather", "np.array([1.0, 2.0, 3.0]), np.array([2, 0, 3])"),
         # (object arrays: tests/test_array_recurrences.py, whose comparison takes them)
         ("object_recurrence", "np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])"),
         ("masked_sum_none_reached", "np.array([1.0, 2.0]), np.array([5, 7])"),
         ("masked_sum_none_reached", "np.array([1.0, 2.0]), np.array([1, 7])")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("doubled_declared", "scan_by_shape", "plus_one", "plus_c", "complex_product", "guarded_shifted_gather",
             "object_recurrence", "masked_sum_none_reached")
