"""Writes that collide but store one constant (``seen[idx[i]] = True``, ``t1[j] = 1`` under a test
of row ``i``): their order makes no difference, so the loop is independent (the analysis'
``LoopInfo.idempotent``). Each loop is rewritten and run against the loop; the look-alikes
whose colliding writes store different values, or read what they write, stay loops."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import transpile_source


def _both(source):
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py")
    return result, load_module("m.py", source=source).f, load_module("m.py", source=result.code).f


MARK = '''
def f(idx, n):
    """Args:
      idx: [m].
    """
    seen = np.zeros(n, dtype=bool)
    for i in range(len(idx)):
        seen[idx[i]] = True
    return seen
'''

CLASSES = '''
def f(t, n1, n2):
    """Args:
      t: [m, 2].
    """
    a = np.zeros((n1, 1))
    b = np.zeros((n2, 1))
    for i in range(len(t)):
        for j in range(n1):
            if t[i][0] == 1:
                a[j] = 1
            elif t[i][1] == 1:
                b[j] = 2
    return a, b
'''


def test_one_constant_scattered_with_repeated_indices():
    result, loop, new = _both(MARK)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    idx = np.array([3, 1, 3, 3, 0])
    np.testing.assert_array_equal(new(idx, 6), loop(idx, 6))


@pytest.mark.parametrize("n1, n2", [(4, 5), (3, 3), (5, 2)], ids=["shorter", "equal", "longer than b"])
def test_one_constant_per_array_under_a_test_of_the_outer_row(n1, n2):
    """``b[j]`` for ``j`` past ``b``'s end raises in the loop only if the branch runs: the
    batched code, which reads every ``b[j]``, runs only where ``n1 <= len(b)``."""
    result, loop, new = _both(CLASSES)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    for t in (np.array([[0, 1], [0, 0], [1, 0]]), np.array([[0, 0], [0, 0]]), np.zeros((0, 2))):
        try:
            want = loop(t, n1, n2)
        except IndexError:
            with pytest.raises(IndexError):
                new(t, n1, n2)
            continue
        for w, g in zip(want, new(t, n1, n2)):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_one_constant_over_rows_the_loop_may_not_visit():
    """No outer iteration: the loop writes nothing, nor may the batched code."""
    source = '''
def f(x, n):
    """Args:
      x: [m].
    """
    out = np.zeros(n)
    for i in range(len(x)):
        for j in range(n):
            out[j] = 7.0
    return out
'''
    result, loop, new = _both(source)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    for x in (np.zeros(0), np.ones(3)):
        np.testing.assert_array_equal(new(x, 4), loop(x, 4))


REFUSED = {
    "two constants": '''
def f(idx, x, n):
    """Args:
      idx: [m].
      x: [m].
    """
    out = np.zeros(n)
    for i in range(len(idx)):
        if x[i] > 0:
            out[idx[i]] = 1.0
        else:
            out[idx[i]] = 2.0
    return out
''',
    "one and one point oh": '''
def f(idx, n):
    """Args:
      idx: [m].
    """
    out = np.zeros(n, dtype=int)
    for i in range(len(idx)):
        out[idx[i]] = 1
        out[idx[i] + 1] = 1.5
    return out
''',
    "a value per iteration": '''
def f(idx, x, n):
    """Args:
      idx: [m].
      x: [m].
    """
    out = np.zeros(n)
    for i in range(len(idx)):
        out[idx[i]] = x[i]
    return out
''',
    "read back": '''
def f(idx, n):
    """Args:
      idx: [m].
    """
    out = np.zeros(n)
    for i in range(len(idx)):
        out[idx[i]] = 1.0
        out[0] = out[idx[i]] + out[0]
    return out
''',
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_colliding_writes_of_different_values_stay_loops(name):
    result, _, _ = _both(REFUSED[name])
    assert not result.plans[0].vectorizable and not result.changed, result.code


def test_one_constant_scattered_under_a_test_stays_a_loop():
    """Masked, a collision between a selected and an unselected iteration would let the old
    value win in a batched assignment: not rewritten, and the remark says why."""
    source = MARK.replace("        seen[idx[i]] = True", "        if idx[i] > 1:\n            seen[idx[i]] = True")
    result, _, _ = _both(source)
    assert result.plans[0].vectorizable and not result.plans[0].rewritten
    assert any("collision" in r.message for r in result.plans[0].remarks), [r.message for r in result.plans[0].remarks]


@pytest.mark.parametrize("value", ["-2.5", "0", "True"])
def test_every_spelling_of_one_literal(value):
    """A negative literal is one constant too."""
    source = MARK.replace("seen = np.zeros(n, dtype=bool)", "seen = np.ones(n)").replace("= True", f"= {value}")
    result, loop, new = _both(source)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    idx = np.array([3, 1, 3, 0])
    np.testing.assert_array_equal(new(idx, 5), loop(idx, 5))


def test_an_update_stores_no_constant():
    """``seen[idx[i]] += 1`` collides as a sum (a scatter-add), not as one constant."""
    source = MARK.replace("seen = np.zeros(n, dtype=bool)", "seen = np.zeros(n)").replace("= True", "+= 1")
    result, loop, new = _both(source)
    assert "np.add.at" in result.code
    idx = np.array([3, 1, 3, 0])
    np.testing.assert_array_equal(new(idx, 5), loop(idx, 5))
