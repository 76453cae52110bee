import numpy as np

# helper-h_bool (adversarial review): an index the same on every iteration, a "state index"
# (`s` of `Q[s, a]`, `w[s]`, `out[s, i] = ...`), was checked only to be one number
# (`isinstance(s, (int, float, complex, np.number, np.bool_, np.ndarray)) and np.ndim(s) == 0`),
# which a bool passes: a Python bool, a NumPy bool or a 0-d bool array. NumPy reads a bool index
# as a new axis of length 1 (`Q[True, a]` is row `a` of one more axis, `Q[False, a]` an empty
# one), and beside the batched index arrays as a mask (`Q[True, np.arange(n)]` is `Q[:n]`), so
# the sums lost the loop's axis (shape (4,) for (1, 4)), `w[s] * x[:n]` broadcast the other way,
# and `Q[False, np.arange(n)]` raised IndexError where the loop returns an empty row. Every such
# index is now checked to be an int (`np.asarray(s).dtype.kind in 'iu'`), one the code shows is
# a bool is refused, and a list of Python numbers the checks admit holds no bools (`[True, 0]`
# converts to ints, where its `idx[0]` indexes as a bool).


def total(Q, s, n):
    t = 0.0
    for a in range(n):
        t += Q[s, a]
    return t


def greedy(Q, s, n):
    vals = [Q[s, a] for a in range(n)]
    return np.argmax(vals)


def scaled(X, s, n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = X[s, i] * 2
    return out


def weighted(w, s, n):
    x = np.arange(n * 1.0)
    t = 0.0
    for i in range(n):
        t += w[s] * x[i]
    return t


def store(X, s, n):
    out = np.zeros((3, 4))
    for i in range(n):
        out[s, i] = X[i, 0] * 2
    return out


def first_of_pair(X, s, n):
    idx = [s, 0]
    t = 0.0
    for a in range(n):
        t += X[idx[0], a]
    return t


def flag(X, k, n):
    s = k > 0
    t = 0.0
    for i in range(n):
        t += X[s, i]
    return t


Q = 'np.arange(12.0).reshape(3, 4)'

CALLS = [(f, f'{Q}, {s}, {n}') for f in ('total', 'greedy', 'scaled', 'store', 'first_of_pair', 'flag')
         for s in ('True', 'False', 'np.True_', 'np.array(True)', '1', 'np.int64(2)') for n in (1, 3)] + \
        [('weighted', f'np.arange(3.0), {s}, 3') for s in ('True', 'np.True_', 'False', '1')]

REWRITTEN = ('total', 'greedy', 'scaled', 'weighted', 'store', 'first_of_pair', 'flag')
