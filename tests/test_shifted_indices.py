"""A loop index moved by a constant, ``x[i - 1]`` or ``x[i + 2]``, reads a slice that starts
that much later (``x[0:n - 1]`` over ``range(1, n)``), not a gather of ``np.arange(1, n) - 1``;
where the moved start would be negative (``x[i - 1]`` from ``i = 0`` reads ``x[-1]``, the last
element) it stays a gather, and a slice that would run past the array's end runs the loop."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import transpile_source

DIFFERENCES = '''
import numpy as np

def f(x, y):
    out = np.zeros(len(x))
    for i in START:
        out[i] = x[i - 1] * 2.0 + y[i + 1]
    return out
'''


@pytest.mark.parametrize("space, sliced", [("range(1, len(x) - 1)", True), ("range(2, len(x) - 1, 2)", True),
                                           ("range(0, len(x) - 1)", False)])
def test_a_moved_index_reads_a_slice_where_it_starts_inside(space, sliced):
    source = DIFFERENCES.replace("START", space)
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    batched = result.code.split("else:")[0]
    assert ("np.arange" not in batched) == sliced, result.code
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    rng = np.random.default_rng(7)
    for n in range(0, 8):
        x, y = rng.normal(size=n), rng.normal(size=n)
        np.testing.assert_array_equal(new(x, y), loop(x, y))
    # `y` one shorter: the loop raises at its last read, and the rewrite's bound check runs it
    x, y = rng.normal(size=6), rng.normal(size=4)
    with pytest.raises(IndexError):
        loop(x, y)
    with pytest.raises(IndexError):
        new(x, y)


def test_the_index_itself_keeps_its_range():
    """``i`` used as a value beside ``x[i - 1]`` is still ``1, 2, ...``, not the moved range."""
    source = '''
import numpy as np

def f(x, idx):
    out = np.zeros(len(x))
    for i in range(1, len(x)):
        out[i] = x[i - 1, idx[i]] + i
    return out
'''
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    x, idx = np.arange(20.0).reshape(5, 4), np.array([0, 3, 1, 2, 0])
    np.testing.assert_array_equal(new(x, idx), loop(x, idx))
