"""The symbolic dependence test: two accesses whose distance is no constant (``d[i, j]`` and
``d[j, i]``) meet in two iterations only if the loops' bounds allow it, which Fourier-Motzkin
elimination decides (``dependence.disjoint_iterations``). Triangular nests that fill a
symmetric matrix are independent; the same statements over a full square, or with an index
that may be negative, are not proven so and stay loops."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pforge.transpile import dependence, transpile_source
from tests.loops import run_module


def _form(**coeffs):
    const = coeffs.pop("c", 0)
    return dependence.Affine(tuple(sorted(coeffs.items())), const)


def test_fourier_motzkin_finds_a_rational_point_or_proves_there_is_none():
    # x >= 1, y >= x + 1, y <= 2: feasible (x = 1, y = 2)
    rows = [{"x": Fraction(1), "": Fraction(-1)}, {"y": Fraction(1), "x": Fraction(-1), "": Fraction(-1)},
            {"y": Fraction(-1), "": Fraction(2)}]
    assert dependence._feasible(rows)
    # and y <= 1 as well: none
    assert not dependence._feasible(rows + [{"y": Fraction(-1), "": Fraction(1)}])
    # -1 <= x <= -3/4: the bounds' coefficients weigh the pair (4 * (x + 1) + (-4x - 3) = 1)
    assert dependence._feasible([{"x": Fraction(1), "": Fraction(1)}, {"x": Fraction(-4), "": Fraction(-3)}])


def test_elimination_keeps_its_rows_few_enough_to_decide():
    """Repeated rows are kept once, and the variable with the fewest pairs of bounds goes first:
    ``b >= 1, b <= 0`` is decided at once beside twenty lower and twenty upper bounds of ``a``
    (eliminating ``a`` first would pair them into 400 rows, past the limit, where nothing is
    proven), and forty copies of ``x >= 1, x <= 0`` are one pair."""
    rows = [{"a": Fraction(1), "": Fraction(-k)} for k in range(20)]
    rows += [{"a": Fraction(-1), "": Fraction(100 + k)} for k in range(20)]
    rows += [{"b": Fraction(1), "": Fraction(-1)}, {"b": Fraction(-1)}]
    assert not dependence._feasible(rows)
    copies = [{"x": Fraction(1), "": Fraction(-1)}, {"x": Fraction(-1)}] * 40
    assert not dependence._feasible(copies)
    assert dependence._feasible(copies[:1] * 40)


def test_the_two_halves_of_a_triangle_never_meet_in_two_iterations():
    # d[i, j] and d[j, i] for 0 <= i < n, i + 1 <= j < n, in two copies of the nest
    bounds = [[_form(**{f"i#{t}": 1}), _form(n=1, c=-1, **{f"i#{t}": -1}),
               _form(**{f"j#{t}": 1, f"i#{t}": -1}, c=-1), _form(n=1, c=-1, **{f"j#{t}": -1})] for t in (1, 2)]
    first = [_form(**{"i#1": 1}), _form(**{"j#1": 1})]
    swapped = [_form(**{"j#2": 1}), _form(**{"i#2": 1})]
    same = [_form(**{"i#2": 1}), _form(**{"j#2": 1})]
    assert dependence.disjoint_iterations(first, swapped, bounds[0], bounds[1], ("i#1", "i#2"))
    assert dependence.disjoint_iterations(first, same, bounds[0], bounds[1], ("i#1", "i#2"))
    # over the full square (no j >= i + 1) they do meet: d[0, 1] is written at i = 0 and at i = 1
    square = [[b for k, b in enumerate(bs) if k != 2] + [_form(**{f"j#{t}": 1})] for t, bs in ((1, bounds[0]), (2, bounds[1]))]
    assert not dependence.disjoint_iterations(first, swapped, square[0], square[1], ("i#1", "i#2"))
    # an index that may be negative (j - 2 at j = 1) counts from the end: nothing proven
    shifted = [_form(**{"i#1": 1}), _form(**{"j#1": 1}, c=-2)]
    assert not dependence.disjoint_iterations(shifted, swapped, bounds[0], bounds[1], ("i#1", "i#2"))


def _module(inner, body):
    return f"""import numpy as np

def fill(X):
    n = X.shape[0]
    d = np.zeros((n, n))
    for i in range(n):
        for j in {inner}:
{body}
    return d
"""


SYMMETRIC = "            d[i, j] = np.sqrt(np.sum((X[i] - X[j]) ** 2))\n            d[j, i] = d[i, j]"
BOTH = "            v = np.exp(-np.sum((X[i] - X[j]) ** 2))\n            d[i, j] = v\n            d[j, i] = v"


@pytest.mark.parametrize("inner, body", [
    ("range(i + 1, n)", SYMMETRIC), ("range(i)", BOTH), ("range(i, n)", BOTH), ("range(i + 1, n)", BOTH),
])
def test_a_symmetric_fill_over_a_triangle_is_rewritten_whole(inner, body):
    source = _module(inner, body)
    result = transpile_source(source, "m.py", shapes={"X": 2})
    assert [p.lineno for p in result.plans if p.rewritten] == [6], [r.message for p in result.plans for r in p.remarks]
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 6):
        x = rng.standard_normal((n, 3))
        np.testing.assert_allclose(run_module(result.code)["fill"](x), run_module(source)["fill"](x), rtol=1e-12, atol=0)


@pytest.mark.parametrize("inner, body", [
    ("range(n)", BOTH),  # the full square: d[0, 1] is written at i = 0 and at i = 1
    ("range(i + 1, n)", BOTH.replace("d[j, i]", "d[j - 2, i]")),  # j - 2 may be -1: the last row
])
def test_the_same_writes_over_a_square_or_a_negative_index_stay_a_loop(inner, body):
    result = transpile_source(_module(inner, body), "m.py", shapes={"X": 2})
    assert 6 not in [p.lineno for p in result.plans if p.rewritten]
