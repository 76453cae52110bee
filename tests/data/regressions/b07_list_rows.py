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

CALLS = [("tripled_sorted", "[[1, 2], [3, 4]]"), ("reversed_doubled", "[[1.0, 2.0], [3.0, 4.0]]")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
#: reversed_doubled: the collected list is used as a list after the loop: its items would be NumPy values
REWRITTEN = ('tripled_sorted',)
