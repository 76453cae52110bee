import numpy as np

# Wrong rewrites an independent tester (helper-28) found in session 12's own fixes and older code.
#
# - index_in_a_true_division: `x[i] / (i + 1)` of uint8 `x`: the batched index was cast to
#   uint8 (NumPy's weak rule for `+`), which wraps at 256; a true division computes in
#   float64 with the int's exact value. Also through a wrap-around variable of the index.
# - stored_two_kinds_int64: `x[i] if x[i] > 0 else 0.0` stored into int64: the `where` of an
#   int64 and a float arm is float64 and rounds past 2**53; each arm is cast to the element's
#   dtype first. Also `max(x[i], 0.0)` and two NumPy arms of int64 and uint64.
# - scattered_one_into_uint64: `out[idx[i]] += 1`: `np.add.at` took 1 as an int64 array.
# - power_of_a_negative_float_arm: `(x[i] if c else -2.0) ** 0.5` is complex in Python.
# - bool_arm_sum: `(x[i] if c else 2) + x[i]` of bool `x`: a bool adds as a bool.
# - negated_int_zero_arm: `-(x[i] if c else 0)`: `-0` is 0, `-0.0` is not.
# - square_of_a_large_int_arm: `np.square(x[i] if c else 2**40)`: NumPy wraps the int in int64.


def index_in_a_true_division(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] / (i + 1)
    return out


def wrapped_index_in_a_true_division(x):
    out = np.zeros(len(x))
    prev = -8
    for i in range(len(x)):
        out[i] = x[i] / prev
        prev = i + 300
    return out


def stored_two_kinds_int64(x):
    out = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        out[i] = x[i] if x[i] > 0 else 0.0
    return out


def stored_max_int64(x):
    out = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        out[i] = max(x[i], 0.0)
    return out


def stored_two_arrays(a, b, c):
    out = np.zeros(len(a), dtype=np.uint64)
    for i in range(len(a)):
        out[i] = a[i] if c[i] > 0 else b[i]
    return out


def scattered_one_into_uint64(out, idx):
    for i in range(len(idx)):
        out[idx[i]] += 1
    return out


def power_of_a_negative_float_arm(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = abs((x[i] if c[i] > 0 else -2.0) ** 0.5)
    return out


def bool_arm_sum(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (x[i] if c[i] > 0 else 2) + x[i]
    return out


def negated_int_zero_arm(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = -(x[i] if c[i] > 0 else 0)
    return out


def square_of_a_large_int_arm(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.square(x[i] if c[i] > 0 else 2 ** 40)
    return out


CALLS = [("index_in_a_true_division", "np.full(258, 3, np.uint8)"),
         ("index_in_a_true_division", "np.full(300, 3, np.int8)"),
         ("index_in_a_true_division", "np.arange(1, 7, dtype=np.float16)"),
         ("wrapped_index_in_a_true_division", "np.full(3, 3, np.uint8)"),
         ("wrapped_index_in_a_true_division", "np.arange(1.0, 4.0)"),
         ("stored_two_kinds_int64", "np.array([1700000000123456789, -5])"),
         ("stored_max_int64", "np.array([1700000000123456789, -5])"),
         ("stored_two_arrays", "np.array([2**60 + 1, 3]), np.array([2**63 + 1, 5], dtype=np.uint64), "
                               "np.array([1.0, -1.0])"),
         ("scattered_one_into_uint64", "np.array([2**63 + 1], dtype=np.uint64), np.array([0, 0])"),
         ("scattered_one_into_uint64", "np.array([-0.25, 1.5], dtype=np.float16), np.array([0, 1, 0])"),
         ("power_of_a_negative_float_arm", "np.array([4.0, 9.0]), np.array([1.0, -1.0])"),
         ("bool_arm_sum", "np.array([True, False]), np.array([1.0, -1.0])"),
         ("bool_arm_sum", "np.array([1.5, 2.5]), np.array([1.0, -1.0])"),
         ("negated_int_zero_arm", "np.array([1.5, 2.5]), np.array([1.0, -1.0])"),
         ("square_of_a_large_int_arm", "np.array([1.5, 2.5]), np.array([1.0, -1.0])")]

#: the functions whose loop pforge rewrites; the last four compute with a value of two kinds in
#: a way the batched float64 does not (a float power, a bool's addition is refused by the
#: float64 check at run time, an int arm 0, a large int NumPy converts)
REWRITTEN = ("index_in_a_true_division", "wrapped_index_in_a_true_division", "stored_two_kinds_int64",
             "stored_max_int64", "stored_two_arrays", "scattered_one_into_uint64", "bool_arm_sum")


def scattered_under_a_test(out, idx, c):
    # (helper-28) a scatter-add under a test added the identity where the test fails: -0.0 + 0
    # is 0.0, and an int64 element past 2**53 rounded through a float term; only the updates
    # where the test holds are scattered now
    for i in range(len(idx)):
        if c[i] > 0:
            out[idx[i]] -= 0.5
    return out


def scattered_one_under_a_test(out, idx, c):
    for i in range(len(idx)):
        if c[i] > 0:
            out[idx[i]] += 1
    return out


CALLS += [("scattered_under_a_test", "np.array([2**60 + 1, 7]), np.array([0, 1, 1]), np.array([-1.0, 1.0, 1.0])"),
          ("scattered_under_a_test", "np.array([-0.0, 1.5]), np.array([0, 1, 0]), np.array([-1.0, 1.0, -1.0])"),
          ("scattered_one_under_a_test", "np.array([-0.0, 2.0]), np.array([0, 1, 1]), np.array([-1.0, 1.0, 1.0])"),
          ("scattered_one_under_a_test", "np.array([2**63 + 1, 2], dtype=np.uint64), np.array([0, 1]), "
                                         "np.array([1.0, 0.0])")]
REWRITTEN += ("scattered_under_a_test", "scattered_one_under_a_test")


def complex_arm_in_arithmetic(x, c):
    # (helper-28) a complex Python arm made the float arm's arithmetic complex: `inf * 2` is
    # `inf+nanj` as a complex product; the loop keeps it a float on those iterations
    out = np.zeros(len(x), dtype=complex)
    for i in range(len(x)):
        out[i] = (x[i] if c[i] > 0 else 1j) * 2
    return out


CALLS += [("complex_arm_in_arithmetic", "np.array([np.inf, 1.0]), np.array([1.0, -1.0])")]
