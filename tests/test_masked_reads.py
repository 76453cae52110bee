"""Reads the loop makes only where a test lets it: a gather under an ``if`` (``if idx[i] <
len(t): out[i] = t[idx[i]]``), the later operands of ``and``/``or``, an ``elif`` test, one arm
of a conditional expression. Batched code evaluates every iteration's operands, so a gather
reads index 0 where the test fails (the loop reads nothing there), and a call that raises on
values the loop never passes it (``np.linalg.inv`` of a matrix the test skips) keeps the loop."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import transpile_source

GUARDED = {
    "lookup": ('''
def f(idx, table):
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        if idx[i] < len(table):
            out[i] = table[idx[i]]
    return out
''', lambda rng: (rng.integers(0, 8, 9), rng.normal(size=5))),
    "stencil edge": ('''
def f(img, dy):
    h = img.shape[0]
    out = np.zeros(h)
    for y in range(h):
        if 0 <= y + dy < h:
            out[y] = img[y + dy]
    return out
''', lambda rng: (rng.normal(size=7), int(rng.integers(-3, 4)))),
    "short-circuit and": ('''
def f(x):
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        if i + 1 < n and x[i + 1] > x[i]:
            out[i] = x[i + 1] - x[i]
    return out
''', lambda rng: (rng.normal(size=6),)),
    "short-circuit or": ('''
def f(x):
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        if i == 0 or x[i - 1] < 0:
            out[i] = 1.0
    return out
''', lambda rng: (rng.normal(size=6),)),
    "conditional expression": ('''
def f(x):
    n = len(x)
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i + 1] if i + 1 < n else 0.0
    return out
''', lambda rng: (rng.normal(size=6),)),
    "elif test": ('''
def f(x, idx):
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        if idx[i] >= len(x):
            out[i] = -1.0
        elif x[idx[i]] > 0:
            out[i] = x[idx[i]]
        else:
            out[i] = 0.0
    return out
''', lambda rng: (rng.normal(size=4), rng.integers(0, 7, 8))),
}


@pytest.mark.parametrize("name", sorted(GUARDED))
def test_a_guarded_read_is_rewritten_and_reads_only_where_the_loop_does(name):
    source, make = GUARDED[name]
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    rng = np.random.default_rng(len(name))
    for _ in range(30):
        args = make(rng)
        np.testing.assert_array_equal(new(*args), loop(*args))


def test_an_empty_table_runs_the_loop():
    """Index 0 stands in only where the axis has an element: with an empty table the loop
    runs (and reads nothing, since no index passes the test)."""
    source, _ = GUARDED["lookup"]
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py")
    assert "np.shape(table)[0] > 0" in result.code, result.code
    new = load_module("m.py", source=result.code).f
    np.testing.assert_array_equal(new(np.array([0, 3]), np.zeros(0)), np.zeros(2))


def test_an_index_out_of_range_where_the_test_holds_raises_as_in_the_loop():
    source = "import numpy as np\n" + '''
def f(idx, table):
    out = np.zeros(len(idx))
    for i in range(len(idx)):
        if idx[i] > 0:
            out[i] = table[idx[i]]
    return out
'''
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten
    new = load_module("m.py", source=result.code).f
    with pytest.raises(IndexError):
        new(np.array([0, 9]), np.ones(3))


def test_a_call_that_raises_on_skipped_values_keeps_the_loop():
    source = "import numpy as np\n" + '''
def f(A):
    out = np.zeros_like(A)
    for i in range(len(A)):
        if np.linalg.det(A[i]) != 0:
            out[i] = np.linalg.inv(A[i])
    return out
'''
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.vectorizable and not plan.rewritten
    assert "raises on values the loop never passes it" in plan.remarks[-1].message
    A = np.stack([np.eye(2), np.zeros((2, 2))])
    np.testing.assert_array_equal(load_module("m.py", source=result.code).f(A)[0], np.eye(2))


STRETCH = '''
import numpy as np

def f(picture, table, n_rows, n_cols):
    for i in range(n_cols):
        for j in range(n_rows):
            level = picture[j][i]
            if level != table[level]:
                picture[j][i] = table[level]
    return picture
'''


def test_a_lookup_table_of_python_ints_only_compared_and_stored_is_read_as_an_array():
    """A grey-level table as a list of ints (``[int(v) for v in ...]``): each entry is only
    compared and stored, which a NumPy integer does as the Python int does; the index
    ``level``, bound from ``picture``, is checked to hold integers."""
    result = transpile_source(STRETCH, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "-2 ** 53 <= v <= 2 ** 53" in result.code and "picture.dtype.kind in 'iu'" in result.code
    loop, new = load_module("m.py", source=STRETCH).f, load_module("m.py", source=result.code).f
    rng = np.random.default_rng(2)
    for _ in range(10):
        picture = rng.integers(0, 256, size=(5, 7)).astype(np.uint8)
        table = [int(v) for v in rng.integers(0, 256, 256)]
        want, got = loop(picture.copy(), table, 5, 7), new(picture.copy(), table, 5, 7)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    # a float picture indexes nothing batched: the loop runs (and raises, as it does)
    for fn in (loop, new):
        with pytest.raises(TypeError):
            fn(np.zeros((2, 2)), list(range(256)), 2, 2)


def test_a_table_of_python_ints_used_in_arithmetic_runs_the_loop():
    """``table[k] + x[i]`` of a uint8 ``x``: a Python int keeps uint8 (NEP 50), an int64
    array would not; only a float list, or an array, is read batched."""
    source = '''
import numpy as np

def f(x, idx, table):
    out = np.zeros(len(x), np.uint8)
    for i in range(len(x)):
        out[i] = table[idx[i]] + x[i]
    return out
'''
    result = transpile_source(source, "m.py")
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    x, idx = np.array([250, 3], np.uint8), np.array([0, 1])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(new(x, idx, [10, 20]), loop(x, idx, [10, 20]))


def test_a_guarded_index_computed_by_a_call_keeps_the_loop():
    source = '''
import numpy as np

def f(t, v):
    out = np.zeros(len(v))
    for i in range(len(v)):
        k = np.floor(v[i])
        if k >= 0:
            out[i] = t[k]
    return out
'''
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten


EDGES = '''
import numpy as np

def f(resp):
    lo, hi = [], []
    bins = np.arange(resp.shape[0])
    for b in range(resp.shape[1]):
        nz = bins[resp[:, b] > 0]
        lo.append(nz[0])
        hi.append(nz[-1] + 1)
    return np.array(lo), np.array(hi)
'''


def test_the_first_and_last_selected_element_of_each_iteration():
    """``nz = bins[resp[:, b] > 0]; nz[0], nz[-1]``: the first and last true position of each
    column's mask; a column that selects nothing raises IndexError, as the loop does."""
    result = transpile_source(EDGES, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "np.argmax(" in result.code
    loop, new = load_module("m.py", source=EDGES).f, load_module("m.py", source=result.code).f
    rng = np.random.default_rng(4)
    for _ in range(20):
        resp = rng.normal(size=(6, 4))
        resp[rng.integers(0, 6), :] = 1.0  # every column selects something
        want, got = loop(resp), new(resp)
        for w, g in zip(want, got):
            assert g.dtype == w.dtype and np.array_equal(g, w)
    resp = -np.ones((3, 2))
    for fn in (loop, new):
        with pytest.raises(IndexError):
            fn(resp)


CONSTANT_UNDER_TEST = '''
import numpy as np

def f(x, out):
    for i in range(len(x)):
        if x[i] > 0:
            out[i] = 0.5
    return out
'''


@pytest.mark.parametrize("constant", ["0.5", "-3", "200", "True"])
def test_a_constant_written_under_a_test_leaves_the_other_elements_exact(constant):
    """``np.where(m, 0.5, out)`` would promote an int64 ``out`` to float64, rounding the
    elements the loop never writes (2**53 + 1); the constant is cast to ``out``'s dtype first,
    except a bool or an int in [0, 127], which every dtype holds as it is."""
    source = CONSTANT_UNDER_TEST.replace("0.5", constant)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    x = np.array([1.0, -1.0, 2.0, -3.0])
    for out in (np.array([1, 2**53 + 1, 3, -(2**62) - 1]), np.array([1, 2**63 + 5, 3, 7], dtype=np.uint64),
                np.zeros(4, dtype=np.float32), np.zeros(4, dtype=bool)):
        try:
            want = loop(x, out.copy())
        except OverflowError:  # -3 into uint64: where the loop raises, the rewrite may be more defined
            continue
        got = new(x, out.copy())
        assert got.dtype == want.dtype and np.array_equal(got, want), (constant, out.dtype, want, got)


BOOL_INDEX = '''
import numpy as np

def f(x, k, y, out):
    """Args:
      x: [n].
      k: [n].
      y: [m, 2].
      out: [n].
    """
    for i in range(len(x)):
        BODY
        out[i] = np.sum(y[INDEX])
    return out
'''


@pytest.mark.parametrize("body, index, left", [
    ("pass", "x[i] > 0", True),
    ("pass", "(x[i] > 0) & (x[i] < 2)", True),
    ("pass", "(x[i] > 0) & k[i]", False),  # a bool and an int: an int
    ("pass", "k[i] | (x[i] > 0)", False),
    ("pass", "~(x[i] > 0)", True),
    ("pass", "~k[i]", False),
    ("pass", "k[i] if x[i] > 0 else x[i] < 1", True),
    ("pass", "x[i] < 1 if x[i] > 0 else k[i]", True),
    ("pass", "k[i] if x[i] > 0 else k[i] + 1", False),
    ("b = x[i] > 0", "b", True),
    ("b = x[i] > 0; c = k[i]", "c", False),
    ("a = x[i] > 0; b = a; c = b; d = c; e = d", "e", True),
    # a name bound again from itself: followed once (no endless recursion)
    ("b = x[i] > 0; b = b & (x[i] < 2)", "b", True),
    ("b = x[i] > 0; b = ~b", "b", True),
    ("b = x[i] > 0; b = b if x[i] > 1 else x[i] < 0", "b", True),
    ("b = x[i] > 0; b = x[i] < 0 if x[i] > 1 else b", "b", True),
    ("b = x[i] > 0; b = (x[i] < 2) & b", "b", True),
    ("b = k[i]; b = b & (x[i] > 0)", "b", False),  # an int & a bool: an int
    ("b = k[i]; b = ~b", "b", False),
    ("b = k[i]; b = b if x[i] > 1 else k[i] + 1", "b", False),
    ("b = k[i]; b = k[i] - 1 if x[i] > 1 else b", "b", False),
    ("b = k[i]; b = (x[i] > 0) | b", "b", False),
])
def test_a_bool_per_iteration_is_no_gather_index(body, index, left):
    """``y[x[i] > 0]`` indexes with a NumPy bool (a new axis: all of ``y`` or none of it), where a
    batch of them would be a mask along ``y``'s rows; an int index gathers as the loop does."""
    source = BOOL_INDEX.replace("BODY", body.replace("; ", "\n        ")).replace("INDEX", index)
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten is not left, [r.message for r in plan.remarks]
    if left:
        assert any("a bool per iteration as an index" in r.message for r in plan.remarks)
        return
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    x, k, y = np.array([1.5, -1.0, 0.5, 3.0]), np.array([0, 1, 2, 1]), np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(new(x, k, y, np.zeros(4)), loop(x, k, y, np.zeros(4)))
