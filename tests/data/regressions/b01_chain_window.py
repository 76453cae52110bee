import numpy as np

def pair_sums(x):
    out = np.zeros((x.shape[0], x.shape[1] - 1))
    for i in range(x.shape[0]):
        for j in range(x.shape[1] - 1):
            out[i, j] = np.sum(x[i][j:j + 2])
    return out

def pair_sums_j_bound(x):
    j = 0
    out = np.zeros((x.shape[0], x.shape[1] - 1))
    for i in range(x.shape[0]):
        for j in range(x.shape[1] - 1):
            out[i, j] = np.sum(x[i][j:j + 2])
    return out

def box3(img):
    h, w = img.shape
    out = np.zeros((h - 2, w - 2))
    for y in range(h - 2):
        for x in range(w - 2):
            out[y, x] = img[y:y + 3][:, x:x + 3].mean()
    return out

CALLS = [("pair_sums", "np.arange(6.0).reshape(2, 3)"), ("pair_sums_j_bound", "np.arange(6.0).reshape(2, 3)"), ("box3", "np.arange(16.0).reshape(4, 4)")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
#: box3: a window of a window (`img[y:y + 3][:, x:x + 3]`) has no batched form
REWRITTEN = ('pair_sums', 'pair_sums_j_bound')
