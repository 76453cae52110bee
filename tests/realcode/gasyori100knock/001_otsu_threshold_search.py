"""Source: https://github.com/yoyoyo-yo/Gasyori100knock/blob/032cb1d35a6838c5f3e01be4a8355b0ae2f0c453/Question_01_10/answers_py/answer_4.py (function `otsu_binarization`, lines 18-33)
Project: yoyoyo-yo/Gasyori100knock
Description: Otsu's method: tries every threshold from 1 to 255 and keeps the one with the largest between-class variance of the grey image.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "each threshold's score depends only on the read-only image; the best-score/arg-best update is a max reduction",
}


def original(grey):
    # the project's loop reads the module-level grey image, which is the one passed in
    best_score = 0
    best_t = 0
    h, w = grey.shape
    for t in range(1, 256):
        lo = grey[np.where(grey < t)]
        lo_mean = np.mean(lo) if len(lo) > 0 else 0.
        lo_frac = len(lo) / (h * w)
        hi = grey[np.where(grey >= t)]
        hi_mean = np.mean(hi) if len(hi) > 0 else 0.
        hi_frac = len(hi) / (h * w)
        score = lo_frac * hi_frac * ((lo_mean - hi_mean) ** 2)
        if score > best_score:
            best_score = score
            best_t = t
    return best_t, best_score


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(5, 20))
    w = int(rng.integers(5, 20))
    grey = rng.integers(20, 230, size=(h, w)).astype(np.uint8)
    return (grey,)
