import numpy as np

# `s = m[i][..., -1]` on the first iteration binds a 0-d view of `m`, which `s += ...` then
# writes into (fuzz seed 4700000 range, a first-assigned reduction): the loop changes its
# argument, so the reduction is not rewritten; through a plain index it is a copy, and it is.


def view_sum(x, m2):
    s = 0.5
    for i in range(len(x)):
        if i == 0:
            s = m2[i][..., -1]
        else:
            s += m2[i][..., -1]
    return [s, m2]


def copy_sum(x, m2):
    s = 0.5
    for i in range(len(x)):
        if i == 0:
            s = m2[i][-1]
        else:
            s += m2[i][-1]
    return s


CALLS = [("view_sum", "np.ones(3), np.arange(9.0).reshape(3, 3)"), ("copy_sum", "np.ones(3), np.arange(9.0).reshape(3, 3)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("copy_sum",)
