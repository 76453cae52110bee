import numpy as np

# Wrong rewrites found in session 13 by an adversarial tester: a list of Python floats was
# taken as a float64 array where the loop raises one to a fractional power, and a negative
# Python float's fractional power is complex where float64 gives nan.
#
# - square_root: `x[i] ** 0.5` of a negative Python float is complex (stored: TypeError);
#   float64 gives nan. A list runs the loop now; an array is still rewritten.
# - roots_collected: `np.array(out)` of those roots: complex numbers in the loop, nan batched.
# - reciprocal, square, through_a_helper: `1.0 / x[i]` of a list holding 0.0 raises
#   ZeroDivisionError in the loop and `x[i] ** 2` of 1e200 OverflowError; the rewrite gives
#   inf, more defined, so a list is still rewritten (the outcomes where the loop raises are
#   not compared).
# - scaled: `x[i] * 0.5` computes alike: a list is still rewritten.
# - over_a_norm: `x[i] / np.sqrt(...)` divides by a NumPy scalar in the loop too (pyroomacoustics'
#   inverse_sabine): a list is still rewritten.
# - cube_root_of_a_norm: `np.sqrt(...) ** (1 / 3)`: a NumPy scalar's power is float64's.

def reciprocal(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = 1.0 / x[i]
    return out


def square_root(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] ** 0.5
    return out


def roots_collected(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] ** 0.5)
    return np.array(out)


def square(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] ** 2
    return out


def inverse(v):
    return 2.0 / v


def through_a_helper(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = inverse(x[i])
    return out


def scaled(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * 0.5
    return out


def over_a_norm(x, y):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * y[i] / np.sqrt(x[i] ** 2 + y[i] ** 2)
    return out


def cube_root_of_a_norm(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sqrt(x[i] * x[i]) ** (1 / 3)
    return out


CALLS = [("reciprocal", "[1.0, 0.0]"), ("reciprocal", "np.array([1.0, 0.0])"), ("reciprocal", "[2.0, 4.0]"),
         ("square_root", "[4.0, -4.0]"), ("square_root", "np.array([4.0, -4.0])"),
         ("roots_collected", "[4.0, -4.0]"), ("roots_collected", "np.array([4.0, -4.0])"),
         ("square", "[1e200, 2.0]"), ("square", "np.array([1e200, 2.0])"),
         ("through_a_helper", "[1.0, 0.0]"), ("through_a_helper", "np.array([1.0, 0.0])"),
         ("scaled", "[1.0, 0.0]"), ("over_a_norm", "[1.0, 0.0], [2.0, 0.0]"),
         ("over_a_norm", "[3.0, 1e200], [4.0, 1e200]"), ("cube_root_of_a_norm", "[-8.0, 27.0]")]

REWRITTEN = ("reciprocal", "square_root", "roots_collected", "square", "through_a_helper", "scaled", "over_a_norm", "cube_root_of_a_norm")
