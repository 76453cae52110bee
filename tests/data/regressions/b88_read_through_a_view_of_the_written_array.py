import numpy as np

# session 31, adversarial review (helper-51): a read through a chain of subscripts whose inner
# one is a slice (`a[::-1][i]`, `a[:][i - 1]`) was no access of `a` to the dependence test
# (the slice renumbers the dimensions after it, which the model does not follow), so a loop
# writing `a[i]` and reading another element of it that way was called a map. Such a read
# now counts as a read of the whole array: the loop stays; a loop that writes another array
# is still rewritten.


def reversed_read(a, b):
    for i in range(len(a)):
        a[i] = a[::-1][i] + b[i]
    return a


def previous_through_a_view(a, b):
    for i in range(1, len(a)):
        a[i] = a[:][i - 1] + b[i]
    return a


def into_another_array(a, b, out):
    for i in range(len(a)):
        out[i] = a[::-1][i] + b[i]
    return out


CALLS = [('reversed_read', 'np.array([1.0, 2.5]), np.array([2.0, 2.5])'),
         ('previous_through_a_view', 'np.array([1.0, 2.5, 4.0]), np.array([2.0, 2.5, 3.0])'),
         ('into_another_array', 'np.array([1.0, 2.5, 4.0]), np.array([2.0, 2.5, 3.0]), np.zeros(3)')]

REWRITTEN = ['into_another_array']
