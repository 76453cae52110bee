import numpy as np

# Adversary helper-33 (session 17): the loop index and Python ints compute without bound in
# the loop and in int64 batched, where they wrap (`(i + c) * 2 ** 62`, `s += i * c`). A check
# in front now bounds them by interval arithmetic over the loop's range (`abs(len(x)) * abs(c)
# < 2 ** 63`), and a sum by the trip count times its terms' bound; past it the loop runs.

def scaled_offsets(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (i + c) * 2 ** 62
    return out


def index_sum(x, c):
    s = 0
    for i in range(len(x)):
        s += i * c
    return s


def squares(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] + i * i * c
    return out


CALLS = [('scaled_offsets', 'np.ones(3), 3'),
         ('scaled_offsets', 'np.ones(3), 0'),
         ('index_sum', 'np.ones(4), 2 ** 62'),
         ('index_sum', 'np.ones(16), 2 ** 58'),
         ('index_sum', 'np.ones(16), 3'),
         ('squares', 'np.ones(5), 2 ** 61'),
         ('squares', 'np.ones(5), 7')]

REWRITTEN = ('scaled_offsets', 'index_sum', 'squares')
