import types

import numpy as np

# Wrong rewrites adversary helper-33 found in session 17 in the features of that session:
# - an inner list built before a write the loop makes later was computed after it (`lazy`), or
#   kept as a view of the row the loop writes (`view`): it is now bound where the inner loop
#   ends, copied where it may be a view, and a collector read as an array is a copy of a view;
# - a number per iteration written at a mask of fewer axes (`p[neg] = a` into a column) was
#   spread over the mask, not over its rows (`masked`);
# - gathering attributes consumed an iterator, and Python ints beside an int8 array computed in
#   int64 (`votes`): the objects must be a list or tuple, and the arrays float64.

def lazy(X, k):
    out = np.zeros(len(X))
    for i in range(len(X)):
        lp = [X[i] * j for j in range(k)]
        X[i] = 0
        out[i] = np.max(lp)
    return out


def view(X, k):
    out = []
    for x in X:
        lp = [x[j] for j in range(k)]
        x[0] = 100.0
        out.append(np.argmax(lp))
    return np.array(out)


def masked(X, alphas):
    votes = np.zeros((X.shape[0], 1))
    for a in alphas:
        neg = X[:, 0] < a
        p = np.zeros((X.shape[0], 1))
        p[neg] = a
        votes += p
    return votes


def votes(X, objs):
    acc = np.zeros(X.shape[1])
    for o in objs:
        acc += o.w * X[o.i]
    return acc


def objects(*pairs):
    return [types.SimpleNamespace(w=w, i=i) for w, i in pairs]


CALLS = [('lazy', 'np.array([1.0, 2.0, 3.0]), 2'),
         ('view', 'np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 1.0]]), 3'),
         ('masked', 'np.array([[0.0], [1.0], [2.0]]), np.array([0.5, 1.5])'),
         ('votes', 'np.array([[100, -100, 50], [120, 3, -128]], np.int8), objects((2, 0), (3, -1))'),
         ('votes', 'np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), iter(objects((2, 0), (3, -1)))'),
         ('votes', 'np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), objects((2, 0), (0.5, -1))')]

REWRITTEN = ('lazy', 'view', 'masked', 'votes')
