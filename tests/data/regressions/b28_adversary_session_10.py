import numpy as np

# An independent adversarial pass (session 10) found these; each call returned something else
# than the loop, or raised where the loop returns.
#
# - lookup, stencil_edge, next_rise, chain: a gather under a per-iteration test read every
#   iteration's index (IndexError where the test excludes it); now index 0 stands in there.
# - safe_inverses: np.linalg.inv of a matrix the test skips raised LinAlgError; the loop stays.
# - frame_gain, frame_overlap: a list's slice is a list (`*` repeats it, `+` concatenates);
#   only an ndarray runs batched.
# - scaled, dot: a list of Python floats beside a float32 array computes in float32 in the loop
#   (weak floats, NEP 50), in float64 as an array; the loop runs there.
# - prefix_hash: the coefficient of an integer linear recurrence was squared as a Python int,
#   which outgrows int64 and raised OverflowError where the loop's `31 * h` wraps.


def lookup(idx, table):
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        if idx[i] < len(table):
            out[i] = table[idx[i]]
    return out


def stencil_edge(img, dy):
    h = img.shape[0]
    out = np.zeros(h)
    for y in range(h):
        if 0 <= y + dy < h:
            out[y] = img[y + dy]
    return out


def next_rise(x):
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i + 1] - x[i] if i + 1 < n and x[i + 1] > x[i] else 0.0
    return out


def chain(x, idx):
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        if idx[i] >= len(x):
            out[i] = -1.0
        elif x[idx[i]] > 0:
            out[i] = x[idx[i]]
        else:
            out[i] = 0.0
    return out


def safe_inverses(A):
    out = np.zeros_like(A)
    for i in range(len(A)):
        if np.linalg.det(A[i]) != 0:
            out[i] = np.linalg.inv(A[i])
    return out


def frame_gain(x, hop, gain):
    n = len(x) // hop
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.mean(x[hop * i:hop * (i + 1)] * gain)
    return out


def frame_overlap(x, hop):
    n = len(x) // hop
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.max(x[hop * i:hop * (i + 1)] + x[0:hop])
    return out


def scaled(a, w):
    return np.array([a[i] * w[i] for i in range(len(a))])


def dot(a, w):
    s = 0
    for i in range(len(a)):
        s += a[i] * w[i]
    return s


def prefix_hash(x):
    h = 0
    out = np.zeros(len(x), dtype=np.int64)
    for i in range(len(x)):
        h = 31 * h + x[i]
        out[i] = h
    return out


CALLS = [("lookup", "np.array([0, 2, 7]), np.array([10.0, 20.0, 30.0])"),
         ("lookup", "np.array([0, 2]), np.zeros(0)"),
         ("stencil_edge", "np.array([1.0, 2.0, 3.0, 4.0]), 1"),
         ("stencil_edge", "np.array([1.0, 2.0, 3.0, 4.0]), -2"),
         ("next_rise", "np.array([1.0, 3.0, 2.0, 5.0])"),
         ("chain", "np.array([1.0, -3.0, 2.0, 5.0]), np.array([0, 7, 1, 3])"),
         ("safe_inverses", "np.stack([np.eye(2), np.zeros((2, 2)), 2 * np.eye(2)])"),
         ("frame_gain", "[1.0, 2.0, 3.0, 4.0], 2, 3"),
         ("frame_gain", "np.array([1.0, 2.0, 3.0, 4.0]), 2, 3"),
         ("frame_overlap", "[1.0, 2.0, 3.0, 4.0], 2"),
         ("scaled", "np.array([1.0, 2.0, 3.0], dtype=np.float32), [0.5, 0.25, 0.125]"),
         ("scaled", "np.array([1.0, 2.0, 3.0]), [0.5, 0.25, 0.125]"),
         ("dot", "np.array([1.0, 2.0, 3.0], dtype=np.float32), [0.5, 0.25, 0.125]"),
         ("prefix_hash", "np.zeros(20, dtype=np.int64)"),
         ("prefix_hash", "np.array([1, -31] + [7] * 18)")]

#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ("lookup", "stencil_edge", "next_rise", "chain", "frame_gain", "frame_overlap", "scaled", "dot",
             "prefix_hash")
