"""A reduction whose body reads the accumulator's shape (ml-from-scratch's AdaBoost:
``p = np.ones(np.shape(votes))``, then ``votes += alpha * p``). ``+=`` on a new NumPy array
keeps its shape and dtype, so the read is the same on every iteration and the loop is a sum;
where the accumulator is rebound (``votes = votes + t`` broadcasts to a new shape) the read
is a loop-carried dependence. Each rewrite is checked to happen, then against the loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def votes_in_place(X, alphas):
        votes = np.zeros((X.shape[0], 1))
        for a in alphas:
            p = np.ones(np.shape(votes))
            p[X[:, :1] < a] = -1.0
            votes += a * p
        return votes


    def rows_in_place(X, alphas):
        total = np.zeros_like(X)
        for a in alphas:
            ones = np.ones(total.shape) * len(total)
            total += a * ones
        return total


    def rebound(X, alphas):
        votes = np.zeros(1)
        for a in alphas:
            p = np.ones(np.shape(votes))
            votes = votes + a * p * X
        return votes
    """)


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py", shapes={"X": 2, "alphas": 1})


@pytest.mark.parametrize("name", ["votes_in_place", "rows_in_place"])
def test_a_shape_read_of_an_array_updated_in_place_is_no_dependence(result, name):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    assert "reduction" in plan.pattern


def test_a_rebound_accumulator_whose_shape_is_read_stays_a_loop(result):
    plan = plan_of(result, "rebound")
    assert not plan.vectorizable
    assert any("before it is written" in r.message for r in plan.remarks), [r.message for r in plan.remarks]


def test_the_rewrites_compute_what_the_loops_compute(result):
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(4)
    for n, k in ((0, 3), (3, 0), (4, 1), (5, 6)):
        X, alphas = rng.standard_normal((n, 2)), rng.standard_normal(k)
        for name in ("votes_in_place", "rows_in_place", "rebound"):
            want, got = before[name](X, alphas), after[name](X, alphas)
            assert want.shape == got.shape and np.allclose(want, got, rtol=1e-12, atol=1e-12), (name, n, k)
