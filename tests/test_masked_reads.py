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
