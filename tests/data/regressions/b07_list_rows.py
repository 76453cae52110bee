import numpy as np

def tripled_sorted(x):
    vals = []
    for v in x:
        vals.append(v * 3)
    return np.sort(vals)

def reversed_doubled(x):
    res = []
    for i in range(len(x) - 1, -1, -1):
        res.append(x[i] * 2)
    return res

CALLS = [("tripled_sorted", "[[1, 2], [3, 4]]"), ("reversed_doubled", "[[1.0, 2.0], [3.0, 4.0]]"),
         ("reversed_doubled", "np.array([1.0, 2.0, 3.0])"), ("reversed_doubled", "[1.0, 2.0]")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
#: reversed_doubled: rebuilt from the batch (NumPy scalars) only where `x` is an array: a list
#: of rows (`x[i] * 2` repeats it) or of numbers runs the loop
REWRITTEN = ('reversed_doubled', 'tripled_sorted')
