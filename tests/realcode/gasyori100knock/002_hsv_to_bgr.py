"""Source: https://github.com/yoyoyo-yo/Gasyori100knock/blob/032cb1d35a6838c5f3e01be4a8355b0ae2f0c453/Question_01_10/answers_py/answer_5.py (function `HSV2BGR`, lines 37-67)
Project: yoyoyo-yo/Gasyori100knock
Description: HSV to BGR conversion: for each of the six hue sectors, scatters the matching channel combination into the pixels whose hue falls in that sector.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "the six hue sectors select disjoint pixel sets, so each iteration scatters into cells no other iteration touches",
}


def original(picture, hsv):
    scaled = picture.copy() / 255.

    hi = np.max(scaled, axis=2).copy()
    lo = np.min(scaled, axis=2).copy()

    bgr = np.zeros_like(scaled)

    hue = hsv[..., 0]
    sat = hsv[..., 1]
    val = hsv[..., 2]

    chroma = sat
    sector = hue / 60.
    second = chroma * (1 - np.abs(sector % 2 - 1))
    zero = np.zeros_like(hue)

    combos = [[zero, second, chroma], [zero, chroma, second], [second, chroma, zero],
              [chroma, second, zero], [chroma, zero, second], [second, zero, chroma]]

    for k in range(6):
        sel = np.where((k <= sector) & (sector < (k + 1)))
        bgr[..., 0][sel] = (val - chroma)[sel] + combos[k][0][sel]
        bgr[..., 1][sel] = (val - chroma)[sel] + combos[k][1][sel]
        bgr[..., 2][sel] = (val - chroma)[sel] + combos[k][2][sel]

    bgr[np.where(hi == lo)] = 0
    bgr = np.clip(bgr, 0, 1)
    bgr = (bgr * 255).astype(np.uint8)

    return bgr


def _to_hsv(picture):
    # the project's BGR2HSV (same file, no loop), used to build a realistic hsv input
    scaled = picture.copy() / 255.
    hsv = np.zeros_like(scaled, dtype=np.float32)
    hi = np.max(scaled, axis=2).copy()
    lo = np.min(scaled, axis=2).copy()
    lo_arg = np.argmin(scaled, axis=2)
    hsv[..., 0][np.where(hi == lo)] = 0
    ind = np.where(lo_arg == 0)
    hsv[..., 0][ind] = 60 * (scaled[..., 1][ind] - scaled[..., 2][ind]) / (hi[ind] - lo[ind]) + 60
    ind = np.where(lo_arg == 2)
    hsv[..., 0][ind] = 60 * (scaled[..., 0][ind] - scaled[..., 1][ind]) / (hi[ind] - lo[ind]) + 180
    ind = np.where(lo_arg == 1)
    hsv[..., 0][ind] = 60 * (scaled[..., 2][ind] - scaled[..., 0][ind]) / (hi[ind] - lo[ind]) + 300
    hsv[..., 1] = hi.copy() - lo.copy()
    hsv[..., 2] = hi.copy()
    return hsv


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    h = int(rng.integers(4, 14))
    w = int(rng.integers(4, 14))
    picture = rng.integers(0, 256, size=(h, w, 3)).astype(np.float32)
    hsv = _to_hsv(picture)
    hsv[..., 0] = (hsv[..., 0] + 180) % 360
    return (picture, hsv)
