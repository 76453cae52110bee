import numpy as np

# session 32, found while testing forward substitution: a scan read before its update (an
# exclusive read) has its running values computed where the batched body starts, so its terms
# must not read what the body stores: `d[i] *= 2.0` before the update (or `d[i + 1] = c[i]`
# after it, read as `d[i]` an iteration later) changed what the loop's term reads, and the
# batched scan read the old values. The analysis now refuses such a scan in the fused loop;
# loop distribution then runs the statement storing `d` as a loop of its own first, and the
# scan after it, both batched. A term reading the element stored after the update, in the
# same iteration (`s = s + d[i]; d[i] = c[i]`), reads it first and stays one loop.


def scalar_scan(a, c, d):
    s = 0.0
    for i in range(1, len(a)):
        d[i] *= 2.0
        a[i] = s
        s = s + d[i]
    return a, d, s


def array_recurrence(a, b, c, d):
    for i in range(1, len(a)):
        a[i] = b[i - 1] + c[i]
        d[i] *= 2.0
        b[i] = b[i - 1] + d[i]
    return a, b, d


def stored_for_the_next_iteration(a, c, d):
    s = 0.0
    for i in range(1, len(a) - 1):
        a[i] = s
        s = s + d[i]
        d[i + 1] = c[i]
    return a, d, s


def substituted(a, b, c, d, e):
    for i in range(1, len(a)):
        d[i] *= 2.0
        a[i] = b[i - 1] + c[i]
        b[i] = a[i] + d[i] + e[i]
    return a, b, d


def same_element_after_the_update(a, c, d):
    s = 0.0
    for i in range(1, len(a)):
        a[i] = s
        s = s + d[i]
        d[i] = c[i]
    return a, d, s


V = 'np.array([1.0, 2.0, 3.0, 4.0, 5.0])'
W = 'np.array([0.5, -1.0, 1.5, 2.0, 2.5])'
CALLS = [('scalar_scan', f'np.zeros(5), {V}, {W}'), ('array_recurrence', f'np.zeros(5), {V}, {W}, {V} * 3'),
         ('stored_for_the_next_iteration', f'np.zeros(5), {V}, {W}'),
         ('substituted', f'np.zeros(5), {V}, {W}, {V} * 3, {W} * 2'),
         ('same_element_after_the_update', f'np.zeros(5), {V}, {W}')]

REWRITTEN = ['scalar_scan', 'array_recurrence', 'stored_for_the_next_iteration', 'substituted',
             'same_element_after_the_update']
