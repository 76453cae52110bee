import numpy as np

# `s = -y[i] - s * a` negates both the offset and the coefficient; the linear scan's spelling
# carries one sign on one part, so it read `a * s - y` (fuzz seed 6301457). Such a recurrence
# stays a loop; one sign on either part is still a scan (tests/test_scans.py).


def both_negated(x, y):
    s1 = 0
    for i in range(len(x)):
        s1 = -y[i] - s1 * (1.0 - 0.25)
    return s1


def negative_coefficient_minus_offset(x, y):
    s1 = 0.5
    for i in range(len(x)):
        s1 = (-0.5) * s1 - y[i]
    return s1


CALLS = [("both_negated", "np.arange(4.0), np.linspace(-1.0, 1.0, 4)"),
         ("negative_coefficient_minus_offset", "np.arange(4.0), np.linspace(-1.0, 1.0, 4)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ()
