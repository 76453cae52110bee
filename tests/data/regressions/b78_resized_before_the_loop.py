import numpy as np

# helper-43 (session 24): a parameter's length read before the loop (`n = len(xs)`) was taken to
# hold through it, though code before the loop could resize the same list or array through
# another name: a global list the caller passed (`history.append(0.0)`, a function of the module
# that appends to it, an object of the module that resizes its array), `map(ys.append, vals)` (a
# method as a value), `next(gen)` and `for it in items` (a generator's code runs),
# `np.ndarray.resize(y, ...)`, `*rest`. The rewrite wrote `len(xs)` rows where the loop wrote `n`.


history = []

def h_global_list(xs):
    n = len(xs)
    history.append(0.0)
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2.0
    return out

def log_value(v):
    history.append(v)

def h_module_fn(xs):
    n = len(xs)
    log_value(1.0)
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2.0
    return out

class Buf:
    def __init__(self):
        self.data = np.zeros((3, 2))
    def grow(self):
        self.data.resize((5, 2), refcheck=False)

BUF = Buf()

def h_global_obj(X, Y):
    n_q = X.shape[0]
    n_r = Y.shape[0]
    BUF.grow()
    D = np.zeros((n_q, n_r))
    for i in range(n_q):
        for j in range(n_r):
            D[i, j] = np.sqrt(np.sum((X[i] - Y[j]) ** 2))
    return D

def h_map_append(xs, ys, vals):
    n = len(xs)
    list(map(ys.append, vals))
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2.0
    return out

def h_next(xs, gen):
    n = len(xs)
    next(gen)
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2.0
    return out

def h_unbound_resize(x, y):
    n = x.shape[0]
    np.ndarray.resize(y, (x.shape[0] + 1,), refcheck=False)
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * 2.0
    return out

def h_unpack(x, y):
    n, d = x.shape
    np.ndarray.resize(y, (n + 1, d), refcheck=False)
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.sum(x[i])
    return out

def h_for_gen(xs, items):
    n = len(xs)
    for it in items:
        pass
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2.0
    return out

def h_star(xs, *rest):
    n = len(xs)
    rest[0].append(0.0)
    out = np.zeros(n)
    for i in range(n):
        out[i] = xs[i] * 2.0
    return out


CALLS = [('h_global_list', '(history.clear() or history.extend([1.0, 2.0]) or history)'),
         ('h_global_list', '[1.0, 2.0, 3.0]'),
         ('h_module_fn', '(history.clear() or history.extend([1.0, 2.0]) or history)'),
         ('h_global_obj', '(BUF.__init__() or BUF.data.__setitem__(slice(None), np.arange(6.0).reshape(3, 2)) or BUF.data), np.ones((2, 2))'),
         ('h_map_append', '(l := [1.0, 2.0]), l, [5.0]'),
         ('h_map_append', '[1.0, 2.0], [], [5.0]'),
         ('h_next', '(l := [1.0, 2.0]), (l.append(3.0) or 1 for _ in range(2))'),
         ('h_unbound_resize', '(x := np.array([1.0, 2.0])), x'),
         ('h_unbound_resize', 'np.array([1.0, 2.0]), np.ones(3)'),
         ('h_unpack', '(x := np.ones((2, 3))), x'),
         ('h_for_gen', '(l := [1.0, 2.0]), (l.append(3.0) or 1 for _ in range(2))'),
         ('h_for_gen', '[1.0, 2.0], [1, 2]'),
         ('h_star', '(l := [1.0, 2.0]), l'),
         ('h_star', '[1.0, 2.0], []')]

REWRITTEN = ['h_for_gen', 'h_global_list', 'h_global_obj', 'h_map_append', 'h_module_fn', 'h_next', 'h_star',
             'h_unbound_resize', 'h_unpack']
