import numpy as np

# session 33, the fuzzer (seed 8350160) on b94's fix: `t = q[i]` then `q[i] = -0.5`, where the
# rank of `q` is not known, was taken for a row (a view, not copied) where it is one number
# (the loop's `t` is the value before the write). A value of no known rank that reads an
# array the loop writes now leaves the rewrite to the ranks inferred from the code, which
# copy a number.


def f(x):
    q = np.array(x, dtype=float)
    s = 0.0
    for i in range(len(x)):
        t = q[i]
        q[i] = -0.5
        s += t
    return q, s


CALLS = [('f', 'np.array([0.021, 2.0])'),
         ('f', 'np.array([1.5])')]

REWRITTEN = ['f']
