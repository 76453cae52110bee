import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: `(i - c) / x[i]` cast the
# difference to x's dtype before the true division (uint8: -1 became 255), where NumPy divides
# a Python int by a uint8 with its exact value, in float64. The cast is now to the dtype of the
# division (`(np.zeros(0, D) / 1).dtype`), as for `i / x[i]`.

def offsets(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (i - c) / x[i]
    return out


CALLS = [("offsets", "np.array([2, 4, 8], np.uint8), 1"), ("offsets", "np.array([2.0, 4.0], np.float32), 3"),
         ("offsets", "np.array([2, 4], np.int16), np.int16(5)"), ("offsets", "np.array([2.0, 4.0]), 1.5")]

REWRITTEN = ("offsets",)
