import numpy as np

# Wrong rewrites two independent testers found at the end of session 11 (helper-26, helper-27).
#
# - closure_reads_the_written_array / closure_reads_a_view: a helper defined in the function
#   reads `buf` (the written `out`) or `x` (a view of the array `out` views): the analysis saw
#   no read of them. The names a called helper reads from the function are reads of the loop.
# - row_fills_a_default: `f(*row)` where a row may also fill a parameter with a default.
# - arm_in_arithmetic_*: `(x[i] if c else 0.1) * 3`: a value that is a Python number on some
#   iterations and a NumPy value on others computes in two dtypes in the loop, one when
#   batched; computing with it runs the loop unless every array read is float64.
# - branch_number_kept: `if c: v = x[i] else: v = -1` merged weakly (-1 became 255 beside uint8).
# - conditional_update_uint64 / _mul: `if c: out[i] = out[i] + 7` was `out + np.where(c, 7, 0)`,
#   an int64 array beside uint64 `out` (float64); it is `np.where(c, out + 7, out)`.
# - max_of_a_large_number: `max(x[i], 300)` of uint8 `x`: 300 wrapped to 44 in `np.where`.
# - wrap_around_*: a wrap-around variable's first value and `E` must be of one type (a Python
#   start beside NumPy values, 1000 beside int8); `E` may not read the written array through
#   an alias; an inner loop's variable kept into the next outer iteration; one bound by the
#   loop around it.
# - extended_list_alias / list_second_name: a list reached by a second name.


def closure_reads_the_written_array(x, out):
    buf = out

    def step(v, k):
        return v * 2 + buf[k - 1]

    for i in range(1, len(x)):
        out[i] = step(x[i], i)
    return out


def closure_reads_a_view(b):
    x = b[:-1]
    out = b[1:]

    def twice(k):
        return x[k] * 2

    for i in range(len(out)):
        out[i] = twice(i) + out[i] * 0
    return b


def row_fills_a_default(rows):
    def total(a, b, c=10):
        return a + b + c

    out = np.zeros(len(rows))
    for i in range(len(rows)):
        out[i] = total(*rows[i])
    return out


def arm_in_arithmetic_uint8(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = (x[i] if c[i] > 0 else 0.1) * 3 + 1
    return out


def arm_in_arithmetic_sqrt(x, c):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sqrt(x[i] if c[i] > 0 else 2)
    return out


def branch_number_kept(x, c):
    out = np.zeros(len(x), dtype=np.int16)
    for i in range(len(x)):
        if c[i] > 0:
            v = x[i]
        else:
            v = -1
        out[i] = v
    return out


def conditional_update_uint64(out, c):
    for i in range(len(out)):
        if c[i] > 0:
            out[i] = out[i] + 7
    return out


def conditional_update_mul(out, c):
    for i in range(len(out)):
        if c[i] > 0:
            out[i] *= 3
    return out


def max_of_a_large_number(x):
    out = np.zeros(len(x), dtype=np.int16)
    for i in range(len(x)):
        out[i] = max(x[i], 300)
    return out


def wrap_around_through_an_alias(x):
    out = np.zeros(len(x))
    y = out
    prev = 0.0
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = y[i]
    return out


def wrap_around_kept_into_the_next_row(x):
    out = np.zeros_like(x)
    prev = 0.0
    for r in range(x.shape[0]):
        for i in range(x.shape[1]):
            out[r, i] = x[r, i] - prev
            prev = x[r, i]
    return out


def wrap_around_bound_by_the_outer_loop(x):
    out = np.zeros_like(x)
    for r in range(x.shape[0]):
        prev = x[r, 0] * 0
        for i in range(x.shape[1]):
            out[r, i] = x[r, i] - prev
            prev = x[r, i]
    return out


def wrap_around_python_start_stored(x):
    out = np.zeros(len(x))
    prev = 1000
    for i in range(len(x)):
        out[i] = prev
        prev = x[i]
    return out


def wrap_around_python_start_weak(x, y):
    out = np.zeros(len(x))
    prev = 0.1
    for i in range(len(x)):
        out[i] = y[i] * prev
        prev = x[i]
    return out


def wrap_around_of_python_numbers(x):
    out = np.zeros_like(x)
    h = 0.0
    for i in range(len(x)):
        out[i] = x[i] + h
        h = i * 0.1
    return out


def extended_list_alias(x):
    out = [0.0]
    other = out
    for i in range(len(x)):
        out.append(x[i] + other[-1])
    return out


def list_second_name(x):
    out = []
    other = out
    for i in range(len(x)):
        out.append(x[i] * 2)
    return other


CALLS = [("closure_reads_the_written_array", "np.array([1., 2., 3., 4.]), np.zeros(4)"),
         ("closure_reads_a_view", "np.array([1., 2., 3., 4.])"),
         ("row_fills_a_default", "np.array([[1., 2.], [3., 4.]])"),
         ("row_fills_a_default", "np.array([[1., 2., 0.5], [3., 4., 0.25]])"),
         ("arm_in_arithmetic_uint8", "np.array([100, 200, 3], dtype=np.uint8), np.array([1, 1, 0])"),
         ("arm_in_arithmetic_uint8", "np.array([100, 200, 3]), np.array([1, 1, 0])"),
         ("arm_in_arithmetic_uint8", "np.array([1.5, 2.5, 3.5]), np.array([True, False, False])"),
         ("arm_in_arithmetic_sqrt", "np.array([1, 2, 3], dtype=np.float16), np.array([1, 0, 0])"),
         ("arm_in_arithmetic_sqrt", "np.array([1.5, 2.5, 3.5]), np.array([True, False, False])"),
         ("branch_number_kept", "np.array([100, 20, 3], dtype=np.uint8), np.array([1, 0, 0])"),
         ("conditional_update_uint64", "np.array([2**62, 2**63 + 5, 3], dtype=np.uint64), np.array([1, 0, 1])"),
         ("conditional_update_uint64", "np.array([-0.0, 1.5, -0.0]), np.array([0, 1, 0])"),
         ("conditional_update_mul", "np.array([2**62, 2**63 + 5, 3], dtype=np.uint64), np.array([1, 0, 1])"),
         ("max_of_a_large_number", "np.array([100, 200, 3], dtype=np.uint8)"),
         ("max_of_a_large_number", "np.array([100, 400, 3], dtype=np.int32)"),
         ("wrap_around_through_an_alias", "np.array([1., 2., 3., 4.])"),
         ("wrap_around_kept_into_the_next_row", "np.arange(12.).reshape(3, 4) ** 2"),
         ("wrap_around_bound_by_the_outer_loop", "np.arange(12.).reshape(3, 4) ** 2"),
         ("wrap_around_bound_by_the_outer_loop", "np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5"),
         ("wrap_around_python_start_stored", "np.array([1, 2, 3], dtype=np.int8)"),
         ("wrap_around_python_start_stored", "np.array([1.5, 2.5, 3.5])"),
         ("wrap_around_python_start_weak", "np.array([1., 3., 2.]), np.array([1.1, 2.2, 3.3], dtype=np.float32)"),
         ("wrap_around_python_start_weak", "np.array([1., 3., 2.]), np.array([1.1, 2.2, 3.3])"),
         ("wrap_around_of_python_numbers", "np.array([1.1, 2.2, 3.3], dtype=np.float32)"),
         ("wrap_around_of_python_numbers", "np.array([1, 2, 3], dtype=np.float16)"),
         ("extended_list_alias", "np.array([1., 2., 3.])"),
         ("list_second_name", "np.array([1., 2., 3.])")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is: the ones
#: above that read through a helper, fill a default, wrap around into the next row or read a
#: list through an alias
REWRITTEN = ("arm_in_arithmetic_uint8", "arm_in_arithmetic_sqrt", "branch_number_kept", "conditional_update_uint64", "conditional_update_mul", "max_of_a_large_number",
             "wrap_around_through_an_alias", "wrap_around_bound_by_the_outer_loop",
             "wrap_around_python_start_stored", "wrap_around_python_start_weak", "wrap_around_of_python_numbers",
             "list_second_name")
