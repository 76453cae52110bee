import numpy as np

# helper-38 (session 21), against the blocked linear scans and the products from `initial`:
# - an infinite or nan offset inside the first block: the Toeplitz product reads every offset
#   of a block, so 0 * inf made the first value nan, and the steps run in order restarted
#   from it; they now restart from the loop's own first step;
# - `-a[i] * h + x[i]` with uint8 coefficients: the minus the user wrote on the coefficient
#   wraps in uint8 in the loop; it was taken for a subtraction, computed in float64;
# - `s *= t` from a 0-d array start updates the array in place and returns it; `np.prod(t,
#   initial=s)` gave a NumPy number: only a Python number starts a product that way;
# - object arrays: `np.isfinite` of the running values raised; they run the loop.

def smoothed(x, c):
    h = 0.0
    out = np.zeros(len(x))
    for i in range(len(x)):
        h = c * h + x[i]
        out[i] = h
    return out, h


def negated_coefficients(x, a):
    h = 1.0
    for i in range(len(x)):
        h = -a[i] * h + x[i]
    return h


def product_of_steps(x, s):
    for i in range(1, len(x)):
        s *= x[i] - x[i - 1]
    return s


CALLS = [('smoothed', 'np.array([1.0, np.inf]), 0.5'),
         ('smoothed', 'np.array([1.0, 2.0, np.nan, 4.0]), 0.5'),
         ('smoothed', 'np.r_[np.ones(20), np.inf], 0.9'),
         ('smoothed', 'np.array([1.0, 2.0], dtype=object), 0.5'),
         ('negated_coefficients', 'np.zeros(1), np.full(1, 2, np.uint8)'),
         ('negated_coefficients', 'np.zeros(3), np.full(3, 2, np.uint8)'),
         ('negated_coefficients', 'np.arange(20.0), np.full(20, 3, np.uint8)'),
         ('product_of_steps', 'np.array([0.0, 1.0, 3.0]), np.array(1.5, np.float32)'),
         ('product_of_steps', 'np.array([0, 1, 3]), np.array(2)'),
         ('product_of_steps', 'np.array([0.0, 1.0, 3.0]), 2.0')]

REWRITTEN = ('smoothed', 'negated_coefficients', 'product_of_steps')
