import numpy as np

# Session 24: an invariant expression the loop evaluates only where a per-iteration test lets it
# was evaluated once, whatever the test, by the batched code: `d[k]` past the end of `d`,
# `1 / k` of `k == 0`, `w[0]` of an empty `w`, the column `x[i, k]` past the last one, raised
# IndexError or ZeroDivisionError where no iteration passed the test and the loop returned.
# Checks in front of the loop now require the index within its axis (and an int) and the
# divisor not 0; what no check can see (a call of the module's own function, `math.sqrt`, a
# negative power) leaves the loop as it is.


def element_under_test(a, d, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + d[k]
    return out


def division_under_test(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + 1 / k
    return out


def column_under_test(x, k):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        if x[i, 0] > 100:
            out[i] = x[i, k]
    return out


def column_of_a_row_under_test(x, k):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        row = x[i]
        if row[0] > 100:
            out[i] = row[k]
    return out


def first_under_test(a, w):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * w[0]
    return out


def arm_not_taken(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        out[j] = a[j] * 2 if a[j] > 0 else 1 / k
    return out


def after_an_invariant_operand(a, w, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if k < len(w) and a[j] > w[k]:
            out[j] = 1.0
    return out


def sqrt_under_test(a, k):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] + np.sqrt(k)
    return out


def inverse_under_test(a, m):
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        if a[j] > 100:
            out[j] = a[j] * np.linalg.inv(m)[0, 0]
    return out


SHAPES = {"a": 1, "d": 1, "k": 0, "x": 2, "w": 1, "m": 2}

CALLS = [('element_under_test', 'np.array([1.0, 2.0]), np.array([]), 3'),
         ('element_under_test', 'np.array([1.0, 200.0]), np.array([5.0, 6.0]), 1'),
         ('element_under_test', 'np.array([1.0, 2.0]), np.array([5.0]), 1.5'),
         ('division_under_test', 'np.array([1.0, 2.0]), 0'),
         ('division_under_test', 'np.array([1.0, 200.0]), 4'),
         ('column_under_test', 'np.array([[1.0, 2.0], [3.0, 4.0]]), 5'),
         ('column_under_test', 'np.array([[1.0, 2.0], [300.0, 4.0]]), -1'),
         ('column_of_a_row_under_test', 'np.array([[1.0, 2.0], [3.0, 4.0]]), 2'),
         ('column_of_a_row_under_test', 'np.array([[1.0, 2.0], [300.0, 4.0]]), 1'),
         ('first_under_test', 'np.array([1.0, 2.0]), np.array([])'),
         ('first_under_test', 'np.array([1.0, 200.0]), [3.0]'),
         ('arm_not_taken', 'np.array([1.0, 2.0]), 0'),
         ('arm_not_taken', 'np.array([1.0, -2.0]), 4'),
         ('after_an_invariant_operand', 'np.array([1.0, 2.0]), np.array([]), 0'),
         ('after_an_invariant_operand', 'np.array([1.0, 2.0]), np.array([1.5]), 0'),
         ('sqrt_under_test', 'np.array([1.0, 2.0]), -1.0'),
         ('sqrt_under_test', 'np.array([1.0, 200.0]), 4.0'),
         ('inverse_under_test', 'np.array([1.0, 2.0]), np.zeros((2, 2))')]

REWRITTEN = ['element_under_test', 'division_under_test', 'column_under_test', 'column_of_a_row_under_test',
             'first_under_test', 'arm_not_taken', 'after_an_invariant_operand', 'sqrt_under_test']
