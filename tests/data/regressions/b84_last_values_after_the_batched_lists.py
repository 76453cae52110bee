import numpy as np

# session 28, found by the fuzzer's new list variant of the last-value fragment: a name read
# after the loop (`lastprivate`, session 27) or the loop variable (session 28) was bound to its
# last value at the end of the loop's level, but a list the loop appends to is bound after the
# level, from the batched values of the names it reads: `t = t[-1]` then `out = t + 1.0` gave
# every item the last iteration's value. The last values now go last in the batched code.


def last_value_into_list(x):
    out = []
    for i in range(len(x)):
        t = x[i] * 2.0
        out.append(t + 1.0)
    return np.asarray(out), t


def loop_index_into_list(x):
    out = []
    for i in range(len(x) - 1, -3, -1):
        out.append(i * 2.0)
    return np.asarray(out), i


CALLS = [('last_value_into_list', 'np.array([1.0, -2.0, 3.0])'),
         ('last_value_into_list', 'np.array([0.5])'),
         ('loop_index_into_list', 'np.array([1.0, -2.0, 3.0])'),
         ('loop_index_into_list', 'np.zeros(0)')]

REWRITTEN = ['last_value_into_list', 'loop_index_into_list']
