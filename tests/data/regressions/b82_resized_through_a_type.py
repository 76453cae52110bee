import numpy as np

# helper-44 (session 25): after b78, a list resized before the loop through another name in
# forms the alias check did not see: a method of the builtin type called unbound
# (`list.extend(ys, v)`), a method of what a call gives (`type(ys).append(ys, v)`), and a slice
# object stored into (`s = slice(n, n); ys[s] = [v]`). With `f(l, l)` the rewrite wrote
# `len(xs)` rows where the loop wrote `n`.


def extended(xs, ys):
    n = len(xs)
    list.extend(ys, [5.0])
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2
    return out


def through_type(xs, ys):
    n = len(xs)
    type(ys).append(ys, 5.0)
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2
    return out


def sliced(xs, ys):
    n = len(xs)
    s = slice(n, n)
    ys[s] = [5.0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2
    return out


CALLS = [('extended', '(l := [1.0, 2.0, 3.0]), l'),
         ('extended', '[1.0, 2.0, 3.0], []'),
         ('through_type', '(l := [1.0, 2.0, 3.0]), l'),
         ('sliced', '(l := [1.0, 2.0, 3.0]), l'),
         ('sliced', '[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]')]

REWRITTEN = ['extended', 'sliced', 'through_type']
