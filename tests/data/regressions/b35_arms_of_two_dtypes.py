import numpy as np

# Wrong rewrites found in session 13 by an adversarial tester: a value that is one NumPy
# value on some iterations and another on the rest is of two dtypes, not of the `where`'s one.
#
# - arms_of_two_arrays: `(x[i] if c[i] > 0 else y[i]) * 2` of a uint8 `x` and an int64 `y`:
#   the loop wraps `200 * 2` in uint8 (144); the batched int64 `where` gave 400. Arms of
#   two arrays now compute only where the check in front finds every array float64.
# - parameter_arm: `x[i] if c[i] > 0 else k` with a Python int `k` of 300 beside uint8 `x`:
#   NumPy's weak rule made the `where` uint8 and stored 44. `k` is now an array of its own
#   (`np.asarray(k)`) in the `where`; collected (a list of uint8 and Python ints) or computed
#   with, the value keeps the loop.
# - parameter_arm_computed: as above, then `* 2`: the loop's iterations compute in uint8 or
#   as Python ints; kept as a loop.
# - clamped_cursor: `first[min(cursor, cap)]`: an element is of its array's dtype whatever
#   kind of number indexes it; still rewritten.
# - wrap_around_start: a wrap-around variable's start is checked in front to be of the type
#   of its later values; still rewritten, and its start not wrapped in `np.asarray`.


def arms_of_two_arrays(x, y, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (x[i] if c[i] > 0 else y[i]) * 2
    return out


def parameter_arm(x, c, k):
    out = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        out[i] = x[i] if c[i] > 0 else k
    return out


def parameter_arm_listed(x, c, k):
    out = []
    for i in range(len(x)):
        out.append(x[i] if c[i] > 0 else k)
    return out


def parameter_arm_computed(x, c, k):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (x[i] if c[i] > 0 else k) * 2
    return out


def clamped_cursor(first, second, start, cap):
    table = np.zeros(len(second))
    cursor = start
    for pos in range(len(second)):
        table[pos] = first[min(cursor, cap)] * second[pos]
        cursor = cursor + 1
    return table


def wrap_around_start(signal):
    prev = signal[0]
    out = np.zeros(len(signal))
    for i in range(len(signal)):
        out[i] = (signal[i] - prev) * 0.5
        prev = signal[i]
    return out


U8 = "np.array([200, 100, 3], dtype=np.uint8)"
CALLS = [("arms_of_two_arrays", f"{U8}, np.array([1, 2, 3]), np.array([1, 0, 1])"),
         ("arms_of_two_arrays", f"{U8}, np.array([1.5, 2.0, 3.0]), np.array([1, 0, 1])"),
         ("arms_of_two_arrays", "np.array([1.5, 2.5, 3.0]), np.array([1.5, 2.0, 3.0]), np.array([1, 0, 1])"),
         ("arms_of_two_arrays", "np.array([1.5, 2.5], dtype=np.float32), np.array([0.1, 2.0]), np.array([1, 0])"),
         ("parameter_arm", f"{U8}, np.array([1, 0, 0]), 300"),
         ("parameter_arm", f"{U8}, np.array([1, 0, 0]), np.int64(-7)"),
         ("parameter_arm_listed", f"{U8}, np.array([1, 0, 0]), 300"),
         ("parameter_arm_computed", f"{U8}, np.array([1, 0, 0]), 300"),
         ("parameter_arm_computed", "np.array([1.5, 2.5]), np.array([1, 0]), 0.25"),
         ("clamped_cursor", "np.array([1.5, 2.0, 4.0, 8.0]), np.array([1.0, 2.0, 3.0, 4.0, 5.0]), 1, 3"),
         ("clamped_cursor", "np.array([1, 2, 4, 8], dtype=np.uint8), np.array([100, 2, 3, 4, 5], dtype=np.uint8), 0, 2"),
         ("wrap_around_start", "np.array([1.0, 4.0, 2.0])"),
         ("wrap_around_start", "np.array([1, 4, 2], dtype=np.uint8)")]

REWRITTEN = ("arms_of_two_arrays", "parameter_arm", "clamped_cursor", "wrap_around_start")
