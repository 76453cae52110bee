"""``for a, b in itertools.combinations(xs, r)``: the rows are the items of ``xs`` at the index
tuples Python's own ``combinations(range(len(xs)), r)`` yields, so the order is the loop's; a
flat list of floats is read as the float64 array it holds. Each loop is rewritten, then run
against the loop, types and all."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import transpile_source

PAIRS = '''
def f(dims):
    radii = []
    for l1, l2 in itertools.combinations(dims, 2):
        radii.append(l1 * l2 / np.sqrt(l1 ** 2 + l2 ** 2))
    return np.array(radii)
'''

TRIPLES = '''
def f(pts):
    """Args:
      pts: [n, d].
    """
    areas = []
    for a, b, c in combinations(pts, 3):
        areas.append(np.sum((b - a) * (c - a)))
    return np.array(areas)
'''


def _both(source, header="import itertools\n\nimport numpy as np\n"):
    source = header + source
    result = transpile_source(source, "m.py")
    return result, load_module("m.py", source=source).f, load_module("m.py", source=result.code).f


def _same(want, got):
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dims", [np.array([3.0, 4.5, 7.25]), [3.0, 4.5, 7.25, 1.5], np.arange(1.0, 7.0)],
                         ids=["array", "list of floats", "six"])
def test_pairs_of_items_in_the_loops_order(dims):
    result, loop, new = _both(PAIRS)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "combined = " in result.code  # the rows are made once
    _same(loop(dims), new(dims))


@pytest.mark.parametrize("dims", [[3.0], [], [2, 3, 4]], ids=["one", "none", "list of ints"])
def test_no_pair_or_python_ints_run_the_loop(dims):
    """Fewer items than a pair: no row, the loop runs (``np.array([])``); Python ints keep
    their unbounded arithmetic only in the loop."""
    result, loop, new = _both(PAIRS)
    assert result.plans[0].rewritten
    _same(loop(dims), new(dims))


def test_triples_of_rows_imported_by_name():
    result, loop, new = _both(TRIPLES, header="from itertools import combinations\n\nimport numpy as np\n")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    pts = np.random.default_rng(0).standard_normal((6, 2))
    _same(loop(pts), new(pts))


def test_rows_unpacked_into_another_number_of_names_stay_a_loop():
    result, _, _ = _both(PAIRS.replace("combinations(dims, 2)", "combinations(dims, 3)"))
    assert not result.plans[0].rewritten
    assert any("unpacked into 2 names" in r.message for r in result.plans[0].remarks), \
        [r.message for r in result.plans[0].remarks]
