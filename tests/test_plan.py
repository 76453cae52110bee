"""What a plan says about a rewrite's exactness (``transpile/plan.py``): a batched ``+``/``*``
reduction reassociates, so it is unsafe (``check --fix`` needs ``--unsafe-fixes``) unless every
term is an integer literal; min/max and logical reductions are exact."""

from __future__ import annotations

import textwrap

import pytest

from pforge.transpile import transpile_source

LOOP = textwrap.dedent('''\
    import numpy as np


    def f(x):
        """Args:
          x: [n].
        """
        s = 0
        for i in range(x.shape[0]):
            UPDATE
        return s
    ''')


def _plan(update: str):
    (plan,) = transpile_source(LOOP.replace("UPDATE", update), "m.py").plans
    assert plan.vectorizable, [r.message for r in plan.remarks]
    return plan


@pytest.mark.parametrize("update", ["s += 1", "s = s + 1", "s = 1 + s", "s += 3", "s *= 2", "s = s * 2",
                                    "s = max(s, x[i])", "s = min(x[i], s)"])
def test_a_count_or_an_exact_reduction_is_safe(update):
    assert _plan(update).unsafe is None


@pytest.mark.parametrize("update,what", [
    ("s += x[i]", "sum `s`"), ("s = s + x[i]", "sum `s`"), ("s = x[i] + s", "sum `s`"),
    ("s += 1.0", "sum `s`"), ("s = s + 0.5", "sum `s`"), ("s += True", "sum `s`"),
    ("s = s + i", "sum `s`"), ("s *= x[i]", "product `s`"), ("s = 2.0 * s", "product `s`"),
])
def test_a_reassociated_float_reduction_is_unsafe(update, what):
    assert _plan(update).unsafe == (f"reassociates the {what}; floating-point results may differ in "
                                    "the last bits")
