import numpy as np

def row_totals(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i], axis=-1)
    return out

def col_totals(x):
    out = np.zeros(len(x))
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i], axis=0)
    return out

CALLS = [("row_totals", "np.array([1.0, 2.0, 3.0])"), ("row_totals", "[1.0, 2.0, 3.0]"), ("col_totals", "np.array([1.0, 2.0, 3.0])")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('col_totals', 'row_totals')
