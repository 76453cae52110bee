import numpy as np

# session 31, fuzz seed 8318015: a product whose factors are Python numbers where an invariant
# is one (`c + i`, `i` a Python int in the loop) is a Python number in the loop: an int of any
# size (3 * 4 * ... * 32 is about 1.3e35), or a float. The batched product was an int64 that
# wrapped around, or a NumPy float. A Python int invariant now runs the loop; a Python float
# one gives the product back as a Python float, as sums already did.


def first_assigned(x, c):
    s = 0.5
    for i in range(len(x)):
        if i == 0:
            s = c + i
        else:
            s = s * (c + i)
    return s


def running(x, c):
    s = 1
    for i in range(len(x)):
        s = s * (c + i)
    return s


CALLS = [('first_assigned', 'np.zeros(30), 3'), ('first_assigned', 'np.zeros(3), 0.7'),
         ('first_assigned', 'np.zeros(3), np.float64(0.7)'), ('first_assigned', 'np.zeros(30), np.int64(3)'),
         ('running', 'np.zeros(30), 3'), ('running', 'np.zeros(4), 0.5'), ('running', 'np.zeros(4), True'),
         ('running', 'np.zeros(0), 0.5'), ('running', 'np.zeros(4), np.float32(0.5)')]

REWRITTEN = ['first_assigned', 'running']
