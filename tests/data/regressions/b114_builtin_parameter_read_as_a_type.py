import numpy as np

# helper-70 (session 41): a parameter named like a builtin type (`float`, `list`, `tuple`) that
# the loop reads as its own value, while the check names the builtin as a type
# (`isinstance(v, float)`, `isinstance(x, (list, tuple))`): the check raised TypeError
# (isinstance() arg 2 must be a type) where the loop returns. A builtin a type test names is
# refused where the code binds its name (versioning._shadowed_builtin), as a call of one is.

REWRITTEN = []


def p_float(x, float):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = x[i] * float
    return out


def p_list(x, list):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = x[i] + list[i]
    return out


def p_tuple(x, tuple):
    out = np.empty(len(x))
    for i in range(len(x)):
        out[i] = x[i] * tuple[i]
    return out


CALLS = [
    ("p_float", "[1.0, 2.0, 3.0], 2.0"),
    ("p_list", "[1.0, 2.0], np.ones(2)"),
    ("p_list", "np.ones(2), [1.0, 2.0]"),
    ("p_tuple", "(1.0, 2.0), np.ones(2)"),
]
