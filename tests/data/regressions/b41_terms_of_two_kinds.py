import numpy as np

# Wrong rewrites found in session 14 by an adversarial tester: a value of two kinds (arms
# that are arrays of two dtypes, or a Python number and a NumPy value) summed, or passed to
# `abs`, computed as the batched `where`'s one dtype, where the loop computes each
# iteration's value in its own kind.
#
# - summed_arms: `s += x[i] if c[i] > 0 else y[i]` of a bool and a uint8 array: the loop's
#   running value is 1 after True, then adds uint8 terms (int64 260); the batched sum of the
#   uint8 `where` wrapped to 4. Runs batched only where the arrays are float64.
# - summed_max: `s += max(x[i], k)` of uint8 `x` and a Python int `k`.
# - abs_of_min: `abs(min(x[i], 0.5))` of int8 `x`: abs of int8 -128 wraps in the loop; runs
#   batched only where `x` is float64.
# - summed_floats: arms of float64 arrays and Python floats compute alike: still rewritten.
# - summed_big_int, abs_of_big_int: a Python int arm past 2**53 beside float64 arrays is exact
#   in the loop (a Python int sum, an int64 element), rounded in float64.


def summed_arms(x, y, c):
    s = 0
    for i in range(x.shape[0]):
        v = x[i] if c[i] > 0 else y[i]
        s += v
    return s


def summed_max(x, k):
    s = 0
    for i in range(x.shape[0]):
        s += max(x[i], k)
    return s


def abs_of_min(x):
    out = []
    for i in range(x.shape[0]):
        out.append(abs(min(x[i], 0.5)))
    return np.array(out)


def summed_floats(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] if c[i] > 0 else 0.5
    return s


def summed_big_int(x, c):
    s = 0
    for i in range(x.shape[0]):
        s += x[i] if c[i] > 0 else 2 ** 53 + 1
    return s


def abs_of_big_int(x, c):
    out = np.zeros(x.shape[0], np.int64)
    for i in range(x.shape[0]):
        out[i] = abs(x[i] if c[i] > 0 else -(2 ** 53 + 1))
    return out


CALLS = [("summed_arms", "np.array([True, False, True, True, False]), np.array([250, 3, 0, 255, 7], np.uint8), "
          "np.array([1, -1, 1, 0, 2])"),
         ("summed_arms", "np.array([250, 3, 0, 255, 7], np.uint8), np.array([1.5, -2.25, 0.0, 3e38, -0.0], np.float32), "
          "np.array([1, -1, 1, 0, 2])"),
         ("summed_arms", "np.array([1.5, 2.5]), np.array([-1.0, 4.0]), np.array([1.0, -1.0])"),
         ("summed_max", "np.array([250, 3, 0, 255, 7], np.uint8), 3"),
         ("summed_max", "np.array([1.5, -3.0]), 0.5"),
         ("abs_of_min", "np.array([-128, 3, -5], np.int8)"),
         ("abs_of_min", "np.array([-1.5, 3.0, 0.25])"),
         ("summed_floats", "np.array([1.5, -2.0, 4.0]), np.array([1.0, -1.0, 0.0])"),
         ("summed_big_int", "np.array([1.5, -2.0]), np.array([-1.0, -1.0])"),
         ("abs_of_big_int", "np.array([1.5, -2.0]), np.array([-1.0, -1.0])")]

REWRITTEN = ("summed_arms", "abs_of_min", "summed_floats")
