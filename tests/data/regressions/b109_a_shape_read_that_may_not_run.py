import numpy as np

# helper-68 (session 40): a read of `x.shape`, `x.dtype` or `x.ndim` was taken as evidence that
# `x` is an array wherever it stood in the function. Under an `if`, after the loop, behind an
# `isinstance` test or after a `return`, it may never run for a list, and the check in front
# then let a list through to `x[:n] = x[:n] * 3`, which repeats it (f([1.0, 2.0, 3.0], 3) gave
# nine items where the loop gives [3.0, 6.0, 9.0]). A read now counts only where it runs on
# every path to the loop, before it (a statement before it in a block that holds it, or the
# header of a statement it is in), and a binding counts only where every binding that reaches
# the loop is from a NumPy call.

# helper-69: a read that sees, along an outer loop's back edge, the binding that comes between
# it and the loop (`n = x.shape[0]; x = list(x)`) is no evidence either: the bindings that
# reach the read must be those that reach the loop.
# (`two_bindings` stays a loop: `x` may be the list `b`, which has no `x[...] =` of a batch)
REWRITTEN = ["under_if", "after_loop", "behind_isinstance", "one_branch", "in_the_header", "before_the_loop",
             "rebound_in_an_outer_loop"]


def under_if(x, n, verbose=False):
    if verbose:
        print("scaling", x.shape)
    for i in range(n):
        x[i] = x[i] * 3
    return x


def after_loop(x, n, c=False):
    for i in range(n):
        x[i] = x[i] * 3
    if c:
        return x.shape
    return x


def behind_isinstance(x, n):
    if isinstance(x, np.ndarray):
        print(x.dtype)
    for i in range(n):
        x[i] = x[i] * 2
    return x


def one_branch(x, c):
    if c:
        n = x.shape[0]
    else:
        n = len(x)
    for i in range(n):
        x[i] = x[i] * 3
    return x


def two_bindings(b, c):
    if c:
        x = np.zeros(3)
    else:
        x = b
    for i in range(len(x)):
        x[i] = x[i] + 1.0
    return x


def in_the_header(x):
    for i in range(x.shape[0]):  # (the header runs before the body: x is an array)
        x[i] = x[i] * 3
    return x


def before_the_loop(x):
    n = x.shape[0]
    for i in range(n):
        x[i] = x[i] * 3
    return x


def rebound_in_an_outer_loop(x, out):
    for t in range(1):
        n = x.shape[0]
        x = list(x)
        for i in range(n):
            out[i] = x[i] * 3
    return out


CALLS = [
    ("rebound_in_an_outer_loop", "np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4)"),
    ("rebound_in_an_outer_loop", "np.array([1.0]), np.zeros(1)"),
    ("under_if", "[1.0, 2.0, 3.0], 3"),
    ("under_if", "[1.0, 2.0, 3.0], 2"),
    ("under_if", "np.array([1.0, 2.0, 3.0]), 2"),
    ("after_loop", "[1.0, 2.0, 3.0], 3"),
    ("after_loop", "np.array([1.0, 2.0, 3.0]), 3"),
    ("behind_isinstance", "[1.0, 2.0], 2"),
    ("behind_isinstance", "np.array([1.0, 2.0]), 2"),
    ("one_branch", "[1.0, 2.0], False"),
    ("one_branch", "np.array([1.0, 2.0]), True"),
    ("two_bindings", "[1.0, 2.0], False"),
    ("two_bindings", "[1.0, 2.0], True"),
    ("in_the_header", "np.array([1.0, 2.0])"),
    ("before_the_loop", "np.array([1.0, 2.0])"),
]
