"""Sliding windows: reads ``x[lo:hi]`` whose bounds move with the loop and whose width does
not, batched as advanced indexes, with a run-time check that every window lies inside its
array (the loop as written runs where one would not)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.runtime.targets import instrument_rank_checks
from pforge.transpile import transpile_source


def _source(body: str, args: str = "x") -> str:
    return textwrap.dedent(f"""\
        import numpy as np


        def f({args}):
            \"\"\"Args:
              x: float [n].
              img: float [h, w, c].
              k: float [s, s].
              size: scalar.
            \"\"\"
        """) + textwrap.indent(textwrap.dedent(body), "    ")


def _both(source: str, *args):
    """(the loop's result, the rewrite's result, the truth of each run-time check that ran)."""
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    want, got = {}, {}
    exec(compile(source, "<loop>", "exec"), want)
    exec(compile(instrument_rank_checks(result.code), "<rewrite>", "exec"), got)
    return want["f"](*args), got["f"](*args), got["_PFORGE_CHECKS_HELD"], result.code


MOVING_SUM = """\
out = np.zeros(len(x) - 2)
for i in range(len(x) - 2):
    out[i] = np.sum(x[i:i + 3])
return out
"""


def test_a_moving_sum_is_one_advanced_index():
    want, got, held, code = _both(_source(MOVING_SUM), np.arange(8.0))
    np.testing.assert_allclose(got, want)
    assert held == [True]
    assert "x[i[..., np.newaxis] + np.arange(3)]" in code
    assert "len(x) - 2 - 1 + 3 <= x.shape[0] and" in code and "len(x) - 2 > 0:" in code  # the last window ends inside


def test_a_window_that_would_be_cut_short_runs_the_loop():
    """`x[i:i + 3]` up to the last element: the last windows are shorter in the loop."""
    source = _source("""\
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = np.sum(x[i:i + 3])
        return out
        """)
    want, got, held, _ = _both(source, np.arange(6.0))
    np.testing.assert_allclose(got, want)
    assert held == [False]


def test_a_window_that_would_wrap_around_runs_the_loop():
    """`x[i - 1:i + 2]` at i = 0 is `x[-1:2]`, an empty slice, not a window."""
    source = _source("""\
        out = np.zeros(len(x) - 1)
        for i in range(len(x) - 1):
            out[i] = np.sum(x[i - 1:i + 2])
        return out
        """)
    want, got, held, code = _both(source, np.arange(6.0))
    np.testing.assert_allclose(got, want)
    assert held == [False] and "0 - 1 >= 0" in code


@pytest.mark.parametrize("body", [
    # a 2-D box filter per channel, the channel index after the windows
    """\
    pad = size // 2
    out = np.zeros_like(img)
    for y in range(img.shape[0] - 2 * pad):
        for x in range(img.shape[1] - 2 * pad):
            for c in range(img.shape[2]):
                out[y + pad, x + pad, c] = np.sum(k * img[y:y + size, x:x + size, c])
    return out
    """,
    # a centred window whose width is 2 * pad + 1, and a median
    """\
    pad = size // 2
    out = np.zeros_like(img)
    for y in range(pad, img.shape[0] - pad):
        for x in range(pad, img.shape[1] - pad):
            out[y, x] = np.median(img[y - pad:y + pad + 1, x - pad:x + pad + 1], axis=(0, 1))
    return out
    """,
], ids=["box-filter", "centred-median"])
def test_two_dimensional_windows(body):
    rng = np.random.default_rng(0)
    img, k = rng.random((7, 6, 2)), rng.random((3, 3))
    want, got, held, _ = _both(_source(body, "img, k, size"), img, k, 3)
    np.testing.assert_allclose(got, want)
    assert held and all(held)


def test_a_descending_loop_checks_its_first_and_last_windows():
    source = _source("""\
        out = np.zeros(len(x))
        for i in range(len(x) - 3, 0, -1):
            out[i] = np.max(x[i - 1:i + 3])
        return out
        """)
    want, got, held, _ = _both(source, np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0]))
    np.testing.assert_allclose(got, want)
    assert held == [True]


def test_what_is_not_a_window_read_is_left():
    body = "out = np.zeros(len(x) + 2)\nfor i in range(len(x)):\n    out[i:i + 2] = x[i]\nreturn out\n"
    result = transpile_source(_source(body), "m.py")
    assert not result.changed


def test_a_slice_whose_width_varies_is_a_mask_not_a_window():
    """`np.sum(x[i:2 * i])`: no window of one width; summed, it is a masked sum."""
    body = "out = np.zeros(len(x))\nfor i in range(len(x) // 2):\n    out[i] = np.sum(x[i:2 * i])\nreturn out\n"
    source = _source(body)
    result = transpile_source(source, "m.py")
    assert result.changed and "x_in_slice" in result.code
    want, got, held, _ = _both(source, np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0]))
    np.testing.assert_allclose(got, want)
    assert held == [True]  # `x`'s declared rank is checked, and holds


def test_checked_windows_are_not_rewritten_again():
    first = transpile_source(_source(MOVING_SUM), "m.py").code
    again = transpile_source(first, "m.py")
    assert again.code == first and not again.plans
