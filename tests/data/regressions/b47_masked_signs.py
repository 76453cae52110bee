import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: under a per-iteration `if`, the
# batched code computes the arm on every element. NumPy raises for `-` of a bool array (and `~`
# of a float one), so `if x[i] < 0: out[i] = -x[i]` of a bool `x`, which takes no iteration,
# raised batched. Such a sign now needs float64 arrays (checked in front); others run the loop.

def magnitudes(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        if x[i] < 0:
            out[i] = -x[i]
    return out


def flipped(x, flags):
    out = np.zeros(len(x))
    for i in range(len(x)):
        if flags[i] > 0:
            out[i] = ~x[i]
    return out


CALLS = [("magnitudes", "np.array([True, False])"), ("magnitudes", "np.array([-1.5, 2.0])"),
         ("magnitudes", "[-1.5, 2.0]"), ("magnitudes", "np.array([-3, 2])"),
         ("flipped", "np.array([1.5, 2.0]), np.array([0, 0])"), ("flipped", "np.array([1, 2]), np.array([1, 0])")]

REWRITTEN = ("magnitudes",)
