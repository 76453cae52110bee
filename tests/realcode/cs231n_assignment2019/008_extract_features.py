"""Source: https://github.com/0809zheng/CS231n-assignment2019/blob/3f5c853986637e2eba33f70c982fac7c618ff0f3/assignment1/cs231n/features.py (function `extract_features`, lines 48-57)
Project: 0809zheng/CS231n-assignment2019
Description: Apply each feature function to every remaining image and write the concatenated feature vector into that image's row of a preallocated matrix, printing progress every 1000 images.
"""
import numpy as np

EXPECT = {
    "vectorizable": False,
    "why": "rows for different images are independent, but the loop body can print progress (and the inner loop carries a running column offset)",
}
TOL = {"rtol": 1e-9, "atol": 1e-12}


# The project's callers pass HOG and HSV-histogram features (which need SciPy
# and Matplotlib); two plain NumPy per-image feature functions stand in here.
def gray_row_means(im):
    gray = np.dot(im[..., :3], [0.299, 0.587, 0.144])
    return gray.mean(axis=1)


def red_histogram(im):
    hist, _ = np.histogram(im[:, :, 0], bins=5, range=(0, 255))
    return hist.astype(float)


def original(imgs, fns, dims, F, verbose=False):
    n_img = imgs.shape[0]

    for i in range(1, n_img):
        start = 0
        for fn, dim in zip(fns, dims):
            stop = start + dim
            F[i, start:stop] = fn(imgs[i].squeeze())
            start = stop
        if verbose and i % 1000 == 999:
            print('Done extracting features for %d / %d images' % (i+1, n_img))

    return F


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    imgs = rng.uniform(0, 255, size=(6, 8, 7, 3))
    fns = [gray_row_means, red_histogram]
    # the project fills dims and row 0 from the first image before this loop
    dims = []
    first = []
    for fn in fns:
        v = fn(imgs[0].squeeze())
        dims.append(v.size)
        first.append(v)
    F = np.zeros((imgs.shape[0], sum(dims)))
    F[0] = np.hstack(first).T
    return (imgs, fns, dims, F, True)
