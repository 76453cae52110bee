"""Output dependences that statement order resolves: two writes touch one element in two
iterations (``a[i + 1] = ...`` then ``a[i] = ...``, TSVC's s2244). Whole-array execution runs
each statement for every iteration before the next, so where the write of the later iteration
is also the later statement it is stored last, as in the loop; the other order keeps the loop.
Each rewrite is checked to happen, then against the loop."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def s2244(a, b, c, e):
        for i in range(len(a) - 1):
            a[i + 1] = b[i] + e[i]
            a[i] = b[i] + c[i]
        return a


    def counting_down(a, b, c, e):
        n = len(a)
        for i in range(n - 1, 0, -1):
            a[i - 1] = b[i] + e[i]
            a[i] = b[i] + c[i]
        return a


    def earlier_statement_last(a, b, c, e):
        for i in range(len(a) - 1):
            a[i] = b[i] + c[i]
            a[i + 1] = b[i] + e[i]
        return a


    def counting_down_other_order(a, b, c, e):
        n = len(a)
        for i in range(n - 2, -1, -1):
            a[i + 1] = b[i] + e[i]
            a[i] = b[i] + c[i]
        return a


    def one_statement(a, b, c):
        for i in range(len(a) - 1):
            a[i + 1], a[i] = b[i], c[i]
        return a
    """)

REWRITTEN = ["s2244", "counting_down"]
DISTRIBUTED = ["earlier_statement_last", "counting_down_other_order"]


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py", shapes={"a": 1, "b": 1, "c": 1, "e": 1})


@pytest.mark.parametrize("name", REWRITTEN)
def test_the_later_iterations_write_in_the_later_statement_is_rewritten(result, name):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    assert any("output dependence" in d and "later statement" in d for level in plan.levels for d in level.dependences)


def test_one_statement_keeps_the_loop(result):
    plan = plan_of(result, "one_statement")
    assert not plan.rewritten
    assert any("two iterations write the same element" in r.message for r in plan.remarks), \
        [r.message for r in plan.remarks]


@pytest.mark.parametrize("name", ["earlier_statement_last", "counting_down_other_order"])
def test_the_other_order_is_distributed_later_write_first(result, name):
    """Whole-array execution of the body as written would let the earlier iteration's write
    win; loop distribution runs the later iteration's statement as a loop of its own last."""
    body = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    marker = next(line for line in body.splitlines() if "# pforge: loop distributed" in line)
    first, second = (int(n) for n in re.findall(r"line (\d+) vectorized", marker))
    assert first > second, marker  # (the statement written second in the body runs first)


def test_the_rewrites_compute_what_the_loops_compute(result):
    assert all(plan_of(result, name).rewritten for name in REWRITTEN + DISTRIBUTED)
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(2)
    for n in (0, 1, 2, 5, 9):
        args = [rng.standard_normal(n) for _ in range(4)]
        for name in REWRITTEN + DISTRIBUTED:
            want = before[name](*[np.copy(v) for v in args])
            got = after[name](*[np.copy(v) for v in args])
            assert np.array_equal(got, want), (name, n, want, got)
