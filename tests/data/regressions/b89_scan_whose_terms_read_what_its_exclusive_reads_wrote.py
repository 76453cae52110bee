import numpy as np

# session 32, found while building forward substitution: a scan read before its update (an
# exclusive read) whose statement stores an array that the update's term reads, in the same
# iteration (`a[i] = s + c[i]; s = s + a[i]`) or the next (`a[i + 1]` read as `a[i]`), feeds
# the running value back into its own terms: `s` doubles each step, a recurrence no scan
# computes. The dependence tests saw no cycle (reads of a scan's name are the scan's), so the
# array form (`b[i] = b[i - 1] + a[i]`, carried in a name) was rewritten as a prefix sum with
# wrong values, and the scalar form was called vectorizable. Both stay loops now. A term
# reading an array that such a statement writes only after the term has read it (`c[i - 1]`
# below, read as `c[i]` an iteration earlier) is still a scan: loop distribution runs the
# statement reading it first.


def same_iteration(a, b, c):
    for i in range(1, len(a)):
        a[i] = b[i - 1] + c[i]
        b[i] = b[i - 1] + a[i]
    return a, b


def next_iteration(a, b, c):
    for i in range(1, len(a) - 1):
        a[i + 1] = b[i - 1] + c[i]
        b[i] = b[i - 1] + a[i]
    return a, b


def through_another_array(a, b, c, d):
    for i in range(1, len(a)):
        d[i] = b[i - 1] * 2.0
        a[i] = d[i] + c[i]
        b[i] = b[i - 1] * a[i]
    return a, b, d


def product_of_the_previous(a, b, c):
    for i in range(1, len(a)):
        a[i] = b[i - 1] + c[i]
        b[i] = b[i - 1] * a[i - 1]
    return a, b


def through_an_alias(a, b, c):
    # (`a2 = a`: the store into `a` is what the term reads through `a2`)
    a2 = a
    for i in range(1, len(a)):
        a[i] = b[i - 1] + c[i]
        b[i] = b[i - 1] + a2[i] + c[i]
    return a, b


def substituted_through_an_alias(a, b, c):
    # (forward substitution must not read `a2[i]` after the store into `a[i]` as its old value)
    a2 = a
    for i in range(1, len(a)):
        a[i] = b[i - 1] + c[i] + a2[i]
        b[i] = a[i] + c[i] + a2[i]
    return a, b


def term_written_after_it_is_read(a, b, c):
    for i in range(1, len(a)):
        a[i] = c[i] * 2.0
        d = b[i - 1] + 1.0
        c[i - 1] = d
        b[i] = b[i - 1] + a[i]
    return a, b, c


ARGS = 'np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([0.5, 1.0, 1.5, 2.0, 2.5]), np.array([1.0, -1.0, 2.0, 0.5, 3.0])'
CALLS = [('same_iteration', ARGS), ('next_iteration', ARGS), ('through_an_alias', ARGS),
         ('substituted_through_an_alias', ARGS),
         ('through_another_array', ARGS + ', np.zeros(5)'), ('product_of_the_previous', ARGS),
         ('term_written_after_it_is_read', ARGS)]

REWRITTEN = ['term_written_after_it_is_read']
