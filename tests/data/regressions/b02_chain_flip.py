import numpy as np

def hflip(img):
    out = np.zeros((len(img), len(img[0])))
    for r in range(len(img)):
        for c in range(len(img[0])):
            out[r, c] = img[r][-1 - c]
    return out

CALLS = [("hflip", "np.arange(9.0).reshape(3, 3)"), ("hflip", "np.arange(6.0).reshape(2, 3)"), ("hflip", "[[1.0, 2.0], [3.0, 4.0]]")]


#: the functions whose loop pforge rewrites; every other loop here is left as it is:
REWRITTEN = ('hflip',)
