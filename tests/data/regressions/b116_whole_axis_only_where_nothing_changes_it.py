import numpy as np

# helper-71 (session 41): a slice of every index of an axis is written whole (`mat[:]`,
# `out[...]`) only where the length still holds at the loop. It did not hold, and the rewrite
# filled every column, where: a walrus rebinds the length in between (`k = (m := m - 1)`),
# the length has effects (`next(it)` twice is two values), a helper rebinds a global array,
# or a generator waits at a `yield` while its caller reshapes the array (analysis.nodes.
# quiet_between, levels._shape_kept, indexing._whole_axis). Older: a local the loop writes that
# is a view of a parameter (`view = mat[:, ::2]`) got no check against the other arguments
# (colvec = mat[:, 0]), and the batched code read colvec before writing it (emitter.
# _parameters_apart).

REWRITTEN = ["walrus", "walrus_rows", "after_next", "global_rows", "_generator", "through_a_view"]


def walrus(a, m):
    out = np.zeros((a.shape[0], m))
    k = (m := m - 1)
    for j in range(m):
        out[:, j] = a * 2
    return out, k


def walrus_rows(a, m):
    out = np.zeros(m)
    k = (m := m - 1)
    for i in range(m):
        out[i] = a[i] * 2
    return out, k


def after_next(a, sizes):
    it = iter(sizes)
    out = np.zeros((a.shape[0], next(it)))
    for j in range(next(it)):
        out[:, j] = a * 2
    return out, next(it, "exhausted")


def grow():
    global mat
    mat = np.ones((3, 6))


def global_rows():
    global mat
    mat = np.zeros((3, 2)) + 1
    n_cols = mat.shape[1]
    grow()
    total = np.zeros(3)
    for col in range(n_cols):
        total += mat[:, col]
    return total


def _generator(mat, colvec):
    n_cols = mat.shape[1]
    k = yield mat
    for col in range(n_cols):
        mat[:, col] += colvec
    yield mat, k


def waiting(mat, colvec):
    it = _generator(mat, colvec)
    x = next(it)
    x.shape = (x.shape[1], x.shape[0])
    return next(it)


def through_a_view(mat, colvec):
    view = mat[:, ::2]
    n = view.shape[1]
    for col in range(n):
        view[:, col] = colvec * col
    return mat


def _aliased():
    x = np.arange(12.0).reshape(3, 4)
    return x, x[:, 0]


CALLS = [
    ("walrus", "np.arange(3.0), 5"),
    ("walrus_rows", "np.arange(5.0), 4"),
    ("after_next", "np.arange(3.0), (5, 3)"),
    ("after_next", "np.arange(3.0), np.array([5, 3])"),
    ("global_rows", ""),
    ("waiting", "np.arange(8.0).reshape(4, 2), np.ones(2)"),
    ("through_a_view", "*_aliased()"),
    ("through_a_view", "np.arange(12.0).reshape(3, 4), np.ones(3)"),
]
