"""Code written the usual way around a loop: a helper defined inside the calling function
(a closure over its variables), called with ``*row`` (``grey_of(*picture[i][j])``), and a
row written as a list of per-iteration values (``picture[i][j] = [r, g, b]``). Each rewrite
is checked to happen, then against the loop on many inputs."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import transpile_source

SEPIA = '''
import numpy as np

def sepia(picture, factor):
    n_rows, n_cols = picture.shape[0], picture.shape[1]

    def grey_of(blue, green, red):
        return 0.2126 * red + 0.587 * green + 0.114 * blue

    def cap(value):
        return min(value, 255)

    for i in range(n_rows):
        for j in range(n_cols):
            grey = int(grey_of(*picture[i][j]))
            picture[i][j] = [cap(grey), cap(grey + factor), cap(grey + 2 * factor)]
    return picture
'''

CLOSURE = '''
import numpy as np

def scaled(x, scale):
    offset = scale / 2

    def shift(v):
        return v * scale + offset

    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = shift(x[i])
    return out
'''

ROWS = '''
import numpy as np

def pairs(a, b, out):
    for i in range(len(a)):
        out[i] = [a[i], b[i] * 2]
    return out
'''


def _both(source):
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    return load_module("m.py", source=source), load_module("m.py", source=result.code), result.code


def test_a_helper_defined_in_the_function_is_inlined_and_star_args_spread_a_row():
    loop, new, code = _both(SEPIA)
    assert "grey_of(*" not in code.split("else:")[0]  # inlined in the batched code
    assert "dtype=picture.dtype, casting='unsafe'" in code
    rng = np.random.default_rng(0)
    for _ in range(20):
        h, w = rng.integers(1, 9, 2)
        picture = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
        factor = int(rng.integers(0, 60))
        want, got = loop.sepia(picture.copy(), factor), new.sepia(picture.copy(), factor)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_row_of_another_length_raises_the_loops_type_error():
    loop, new, _ = _both(SEPIA)
    picture = np.zeros((2, 2, 4), dtype=np.uint8)
    for fn in (loop.sepia, new.sepia):
        with pytest.raises(TypeError):
            fn(picture.copy(), 10)


def test_a_closure_reads_the_callers_variables():
    loop, new, code = _both(CLOSURE)
    assert "shift(" not in code.split("else:")[0].split("out = np.zeros")[1]
    rng = np.random.default_rng(1)
    for _ in range(10):
        x, scale = rng.normal(size=int(rng.integers(1, 9))), float(rng.normal())
        np.testing.assert_array_equal(new.scaled(x, scale), loop.scaled(x, scale))


def test_a_module_helper_reading_a_name_the_caller_binds_is_not_inlined():
    source = '''
import numpy as np

def shift(v):
    return v * scale

def f(x):
    scale = 3.0
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = shift(x[i])
    return out
'''
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten
    assert any("reads `scale`, which the calling function binds too" in r.message for r in plan.remarks)


@pytest.mark.parametrize("a, b, out", [
    (np.array([2**53 + 1, 3]), np.array([0.75, 1.5]), np.zeros((2, 2), dtype=np.int64)),
    (np.array([1.5, -2.5]), np.array([3, 4], dtype=np.uint8), np.zeros((2, 2), dtype=np.float32)),
    (np.arange(5), np.arange(5.0), np.zeros((5, 2))),
])
def test_a_row_written_as_a_list_converts_each_item_as_the_loop_does(a, b, out):
    loop, new, code = _both(ROWS)
    assert "np.stack(np.broadcast_arrays(" in code
    want, got = loop.pairs(a, b, out.copy()), new.pairs(a, b, out.copy())
    assert got.dtype == want.dtype and np.array_equal(got, want)


GRID = '''
import numpy as np

def grid(x, y, out):
    """Args:
      x: [n].
      y: [m].
      out: [n, m, 3].
    """
    for i in range(len(x)):
        for j in range(len(y)):
            out[i, j] = [x[i], y[j] * 2, 1.5]
    return out
'''


def test_a_listed_row_in_a_nest_lines_up_each_item_with_its_own_loop():
    """``[x[i], y[j], 1.5]``: an item of the outer loop gets a size-1 axis for the inner one
    (with as many rows as columns, a missing one would line ``x`` up with ``j``)."""
    loop, new, code = _both(GRID)
    x, y = np.arange(4.0), np.arange(10.0, 14.0)
    want, got = loop.grid(x, y, np.zeros((4, 4, 3))), new.grid(x, y, np.zeros((4, 4, 3)))
    assert np.array_equal(got, want)


@pytest.mark.parametrize("row, why", [("[x[i], m[i]]", "a list of items of unknown or different per-iteration ranks"),
                                      ("[*m[i], x[i]]", "`*m[i]`: a `Starred` on per-iteration values")])
def test_a_listed_row_of_items_of_two_ranks_is_left_and_says_why(row, why):
    source = ROWS.replace("def pairs(a, b, out):", "def pairs(x, m, out):").replace(
        "[a[i], b[i] * 2]", row).replace("len(a)", "len(x)")
    source = source.replace('def pairs(x, m, out):', 'def pairs(x, m, out):\n    """Args:\n      x: [n].\n      m: [n, 2].\n    """')
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten
    assert any(why in r.message for r in plan.remarks), \
        [r.message for r in plan.remarks]


ROW_SUMS = '''
import numpy as np

def sums(x, y, out):
    """Args:
      x: [n, m].
      y: [n, m].
      out: [n, 2].
    """
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i] += [x[i, j], y[i, j] * 2.0]
    return out
'''


def test_a_listed_row_added_over_an_inner_loop_is_summed_along_it():
    loop, new, code = _both(ROW_SUMS)
    assert "np.stack(np.broadcast_arrays(" in code and "np.sum(out_terms, axis=1" in code
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    np.testing.assert_allclose(new.sums(x, y, np.ones((4, 2))), loop.sums(x, y, np.ones((4, 2))), rtol=1e-12)


@pytest.mark.parametrize("source, name", [
    # the helper reads the written array under another name
    ('''
import numpy as np

def f(x, out):
    buf = out

    def step(v, k):
        return v * 2 + buf[k - 1]

    for i in range(1, len(x)):
        out[i] = step(x[i], i)
    return out
''', "buf"),
    # the helper reads a view of the array the written one views
    ('''
import numpy as np

def f(b):
    x = b[:-1]
    out = b[1:]

    def twice(k):
        return x[k] * 2

    for i in range(len(out)):
        out[i] = twice(i) + out[i] * 0
    return b
''', "b"),
    # through a second helper, and after a call of a builtin
    ('''
import numpy as np

def f(x, out):
    buf = out

    def previous(k):
        return buf[k - 1]

    def step(v, k):
        return v * 2 + previous(k)

    for i in range(1, len(x)):
        out[i] = step(x[i], i) + abs(x[i])
    return out
''', "buf"),
])
def test_a_helper_reading_what_the_loop_writes_keeps_the_loop(source, name):
    """The names a helper defined in the function reads from it are reads of the loop: the
    batched code would read them before any iteration wrote."""
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten and not plan.vectorizable
    assert any(r.code == "PF203" and f"`{name}`" in r.message for r in plan.remarks), plan.remarks


def test_an_argument_a_helper_reads_is_checked_apart_from_the_written_one():
    source = '''
import numpy as np

def f(x, out, y):
    """Args:
        x: [n]
        out: [n]
        y: [n]
    """
    def step(v, k):
        return v * 2 + y[k - 1]

    for i in range(1, len(x)):
        out[i] = step(x[i], i)
    return out
'''
    loop, new, code = _both(source)
    assert "np.may_share_memory(out, y)" in code
    a = np.ones(4)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(new.f(x, a.copy(), a.copy()), loop.f(x, a.copy(), a.copy()))
    same, twin = a.copy(), a.copy()
    np.testing.assert_array_equal(new.f(x, same, same), loop.f(x, twin, twin))


def test_a_row_that_may_fill_a_default_is_not_spread():
    source = '''
import numpy as np

def f(rows):
    def total(a, b, c=10):
        return a + b + c

    out = np.zeros(len(rows))
    for i in range(len(rows)):
        out[i] = total(*rows[i])
    return out
'''
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten
    assert any("may fill a parameter that has a default" in r.message for r in plan.remarks), plan.remarks


def test_a_recursive_helper_is_read_once():
    """A helper that calls itself: its reads are collected once (the analysis ends), and it is
    not inlined into itself."""
    source = '''
import numpy as np

def f(x, out):
    scale = 2.0

    def fact(k):
        return 1 if k <= 1 else k * fact(k - 1) * scale

    for i in range(len(x)):
        out[i] = x[i] * fact(3)
    return out
'''
    result = transpile_source(source, "m.py")
    x = np.array([1.0, 2.0, 3.0])
    want = load_module("m.py", source=source).f(x, np.zeros(3))
    np.testing.assert_array_equal(load_module("m.py", source=result.code).f(x, np.zeros(3)), want)
