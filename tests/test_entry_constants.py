"""Constant propagation into the dependence test: a name the loop does not bind that holds an
int constant where the loop starts (``m = 1`` before the loop) is read as that int in the
subscripts, so ``a[i] = a[i + m] + b[i]`` (TSVC's s131) is an anti-dependence the batched code
keeps, and ``m = -1`` a flow dependence that keeps the loop. A name bound otherwise (twice, in
a branch, as a parameter) is not a constant: its distance is checked at run time (no
dependence where ``m == 0`` or ``abs(m)`` reaches the trip count). Each rewrite is checked to
happen, then against the loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def ahead(a, b):
        m = 1
        for i in range(len(a) - 1):
            a[i] = a[i + m] + b[i]
        return a


    def same_element(a, b):
        m = 0
        for i in range(len(a)):
            a[i] = a[i + m] * 2.0 + b[i]
        return a


    def behind_counting_down(a, b):
        m = -1
        n = len(a)
        for i in range(n - 1, 0, -1):
            a[i] = a[i + m] + b[i]
        return a


    def behind(a, b):
        m = -1
        for i in range(1, len(a)):
            a[i] = a[i + m] + b[i]
        return a


    def chosen(a, b, flag):
        m = 1
        if flag:
            m = -1
        for i in range(1, len(a) - 1):
            a[i] = a[i + m] + b[i]
        return a


    def given(a, b, m):
        for i in range(1, len(a) - 1):
            a[i] = a[i + m] + b[i]
        return a
    """)

REWRITTEN = ["ahead", "same_element", "behind_counting_down"]


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py", shapes={"a": 1, "b": 1, "flag": 0, "m": 0})


@pytest.mark.parametrize("name", REWRITTEN)
def test_an_offset_bound_to_a_constant_is_read_as_that_constant(result, name):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]


@pytest.mark.parametrize("name, why", [
    ("behind", "1 iteration(s) earlier"),
])
def test_an_offset_that_reads_an_earlier_write_or_is_no_constant_keeps_the_loop(result, name, why):
    plan = plan_of(result, name)
    assert not plan.rewritten
    assert any(why in r.message for r in plan.remarks), [r.message for r in plan.remarks]


@pytest.mark.parametrize("name", ["chosen", "given"])
def test_an_offset_that_is_no_constant_is_checked_at_run_time(result, name):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    body = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert "(m == 0 or abs(m) >= len(range(1, len(a) - 1)))" in body
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(8)
    for n in (0, 3, 6, 12):
        for m in (-1, 0, 1, 5, 7, -9):
            a, b = rng.standard_normal(n), rng.standard_normal(n)
            args = (m < 0,) if name == "chosen" else (m,)
            if name == "chosen" and m not in (1, -1):
                continue
            try:
                want = before[name](a.copy(), b, *args)
            except IndexError:
                continue
            got = after[name](a.copy(), b, *args)
            assert np.array_equal(got, want), (name, n, m, want, got)


def test_the_rewrites_compute_what_the_loops_compute(result):
    assert all(plan_of(result, name).rewritten for name in REWRITTEN)
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 6):
        a, b = rng.standard_normal(n), rng.standard_normal(n)
        for name in REWRITTEN:
            want = before[name](a.copy(), b)
            got = after[name](a.copy(), b)
            assert np.array_equal(got, want), (name, n, want, got)
