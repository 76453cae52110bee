import numpy as np

# Wrong rewrites found in session 15 by an adversarial tester: a reduction whose terms are read
# from a value of no known rank or kind (`s += x[i]` batches for any rank) was rewritten with no
# check at all, through `np.asarray(x)`:
#
# - a list of Python ints became int64 and wrapped where the loop's ints grow (2**62 + 2**62);
#   a product and a sum of absolute values likewise;
# - a masked array lost its mask (the loop adds the masked elements as `masked`);
# - an empty int8 array summed to np.int8(0) where the loop leaves the Python int 0.
#
# Such a value now must be a plain array (`type(x) is np.ndarray`), and the loop must run at all.

def total(x):
    s = 0
    for i in range(len(x)):
        s += x[i]
    return s


def product(x):
    p = 1
    for v in x:
        p *= v
    return p


def l1(x):
    s = 0
    for i in range(len(x)):
        s += abs(x[i])
    return s


CALLS = [("total", "[2 ** 62, 2 ** 62]"), ("total", "np.array([1, 2, 3])"), ("total", "np.zeros(0, np.int8)"),
         ("total", "np.array([100, 100], np.int8)"), ("total", "np.ma.masked_array([1.0, 2.0], mask=[0, 1])"),
         ("total", "[0.1, 0.2, 0.3]"), ("product", "[2 ** 40, 2 ** 40]"), ("product", "np.array([2.0, 3.0])"),
         ("l1", "[-2 ** 62, 2 ** 62]"), ("l1", "np.array([-1.5, 2.0])")]

REWRITTEN = ("total", "product", "l1")
