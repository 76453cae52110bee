import numpy as np

def affine(x, w, b):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.dot(x[i], w) + b
    return out

def project(a, v):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = a[i] @ v
    return out

CALLS = [("affine", "np.array([1.0, 2.0, 3.0]), 2.0, 1.0"), ("affine", "np.array([1.0, 2.0]), np.array(3.0), 0.0")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('affine', 'project')
