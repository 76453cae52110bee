import numpy as np

# Wrong rewrites an adversarial tester found in session 16: a variable stepped from a parameter (`c = c + 1`) batched in closed form `c + i`: a Python
# int start past int64 raised or wrapped, and a float16 start rounded once where the loop rounds
# every step (2048 + 1 stays 2048). The start is now checked to be a float64 or an int within
# 2**62. (A -0.0 start still comes back +0.0 at the first iteration: the sign of a zero.)

def scaled_by_counter(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * c
        c = c + 1
    return out


def countdown(x, n):
    out = np.zeros(len(x))
    for i in range(len(x)):
        if n > 0:
            out[i] = x[i]
        n -= 1
    return out


CALLS = [('scaled_by_counter', 'np.array([1.0, 2.0, 3.0]), np.float16(2048)'),
         ('scaled_by_counter', 'np.array([1.0, 2.0, 3.0]), np.float32(16777216)'),
         ('scaled_by_counter', 'np.array([1.0, 2.0]), 2**63'),
         ('countdown', 'np.array([1.0, 2.0, 3.0]), -2**63'),
         ('countdown', 'np.array([1.0, 2.0, 3.0]), 2**63')]

REWRITTEN = ('scaled_by_counter', 'countdown')
