import numpy as np

# The loop accumulates in the dtype of `s + t`: int8 terms added to the Python int 0 wrap in
# int8, bools added to False stay bools (NumPy adds them as `or`), float16 terms added to a
# float32 start and float32 rows added to a float64 row are summed in the wider type.
# np.sum's own accumulator differs (int64 for small integers and bools, the terms' own dtype
# for floats): the sum is taken in np.result_type(s, terms).


def wrapped_total(x):
    s = 0
    for i in range(len(x)):
        s += x[i]
    return s


def wrapped_product(x):
    p = 1
    for i in range(len(x)):
        p *= x[i]
    return p


def any_flag(b):
    s = False
    for i in range(len(b)):
        s = s + b[i]
    return s


def wide_start(h):
    s = np.float32(0)
    for i in range(len(h)):
        s = s + h[i]
    return s


def wide_rows(x):
    acc = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        acc += x[i] * 2
    return acc


CALLS = [("wrapped_total", "np.full(200, 100, np.int8)"), ("wrapped_total", "np.arange(5, dtype=np.uint8)"),
         ("wrapped_product", "np.full(9, 3, np.int8)"),
         ("any_flag", "np.array([True, False, True])"), ("any_flag", "np.zeros(4, bool)"),
         ("wide_start", "np.full(4, 60000, np.float16)"),
         ("wide_rows", "np.full((2, 3), 3e38, np.float32)"), ("wide_rows", "np.zeros((0, 3), np.float32)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("wrapped_total", "wrapped_product", "any_flag", "wide_start", "wide_rows")
