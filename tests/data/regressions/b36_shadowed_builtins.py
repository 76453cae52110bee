import numpy as np

# Wrong rewrites found in session 13 by an adversarial tester: a builtin's name bound by the
# code itself was still read as the builtin.
#
# - abs_parameter: `abs(x[i])` where `abs` is a parameter (a scalar function passed in):
#   the rewrite called the builtin `abs` on the whole array. Left as a loop now: the call's
#   effects are unknown.
# - max_lambda: `max = lambda a, b: a` in the function: batched as Python's max. Left.
# - sum_at_module_level: `sum = 0.5` at module level: `sum` is that number, still rewritten.
# - pow_of_the_module: `def pow(a, b)` of the module is inlined, as before.
#
# A class's method `max` does not shadow the builtin in the other methods (a class body's
# names are not seen in its methods): tests/test_shadowed_builtins.py.

sum = 0.5


def pow(a, b):
    return a - b


def abs_parameter(x, abs):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = abs(x[i])
    return out


def max_lambda(x):
    max = lambda a, b: a  # noqa: E731
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = max(x[i], 0.0)
    return out


def sum_at_module_level(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = sum * x[i]
    return out


def pow_of_the_module(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = pow(x[i], 2)
    return out


X = "np.array([-1.5, 2.0, -3.0])"
CALLS = [("abs_parameter", f"{X}, lambda v: v * 10 if v > 0 else v"),
         ("abs_parameter", f"{X}, abs"),
         ("max_lambda", X),
         ("sum_at_module_level", X),
         ("pow_of_the_module", X)]

REWRITTEN = ("sum_at_module_level", "pow_of_the_module")
