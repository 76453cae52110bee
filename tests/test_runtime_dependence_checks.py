"""Run-time dependence checks: where the distance between a write and another access is a sum
of names the loop does not change (``a[i + k] = a[i] + b[i]``, TSVC's s173), the analysis
records the condition under which no two iterations touch one element (``k == 0`` or
``abs(k)`` at least the trip count, and no index below zero, which would wrap around), and the
direct backend runs the batched code only where it holds, the loop as written elsewhere (as
LLVM's LoopAccessAnalysis versions a loop). Each rewrite is checked to happen, then against
the loop on offsets that pass and offsets that fail the check."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def upper_half(a, b):
        k = len(a) // 2
        for i in range(len(a) // 2):
            a[i + k] = a[i] + b[i]
        return a


    def shifted(a, b, k):
        for i in range(len(b)):
            a[i + k] = a[i] * 2.0 + b[i]
        return a


    def strided(a, b, k):
        for i in range(len(b)):
            a[2 * i + k] = a[2 * i] + b[i]
        return a


    def inner(a, n, m, k):
        for i in range(n):
            for j in range(m):
                a[i, j + k] = a[i, j] * 0.5
        return a
    """)

SHAPES = {"a": 1, "b": 1, "k": 0, "n": 0, "m": 0, "inner.a": 2}


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py", shapes=SHAPES)


def _body(result, name):
    return result.code.split(f"def {name}(")[1].split("\ndef ")[0]


@pytest.mark.parametrize("name, check", [
    ("upper_half", "(k == 0 or abs(k) >= len(a) // 2) and k >= 0"),
    ("shifted", "(k == 0 or abs(k) >= len(b)) and k >= 0 and len(b) - 1 + k >= 0"),
    ("strided", "(k == 0 or abs(k) >= 2 * len(b) or k % 2 != 0) and k >= 0"),
])
def test_a_symbolic_distance_is_checked_in_front_of_the_batched_code(result, name, check):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    assert check in _body(result, name).split("\n    else:")[0]


def test_an_inner_loops_symbolic_distance_is_checked_where_the_inner_loop_starts(result):
    """The inner level's check reads the outer index, which no check in front of the nest can:
    the nest stays, and the inner loop alone is rewritten with its check in front of it."""
    outer, inner = sorted((p for p in result.plans if p.function == "inner"), key=lambda p: p.lineno)
    assert not outer.rewritten
    assert any("checked at run time, inside another loop" in r.message for r in outer.remarks), \
        [r.message for r in outer.remarks]
    assert inner.rewritten, [r.message for r in inner.remarks]
    assert "    for i in range(n):\n        # pforge" in _body(result, "inner")
    assert "(k == 0 or abs(k) >= m) and k >= 0" in _body(result, "inner")
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(9)
    for k in (-1, 0, 1, 3, 4):
        a = rng.standard_normal((3, 8))
        assert np.array_equal(after["inner"](a.copy(), 3, 4, k), before["inner"](a.copy(), 3, 4, k))


def test_the_rewrites_compute_what_the_loops_compute(result):
    assert all(plan_of(result, name).rewritten for name in ("upper_half", "shifted", "strided"))
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(3)
    compared = 0
    for n in (0, 1, 4, 7):
        a, b = rng.standard_normal(2 * n), rng.standard_normal(n)
        assert np.array_equal(after["upper_half"](a.copy(), b), before["upper_half"](a.copy(), b))
        for k in (-3, -1, 0, 1, 2, 3, 5, 7, 8, True, np.int8(2), np.int64(-2)):
            for size in (n, n + 2, 2 * n, 2 * n + 3, 3 * n + 9):
                for name in ("shifted", "strided"):
                    a = rng.standard_normal(size)
                    try:
                        want = before[name](a.copy(), b, k)
                    except IndexError:
                        continue  # (the batched code raises too, or is more defined)
                    got = after[name](a.copy(), b, k)
                    assert np.array_equal(got, want), (name, n, k, size, want, got)
                    compared += 1
    assert compared > 200


def test_tensorflow_code_and_the_pfor_backend_keep_the_loop():
    source = textwrap.dedent("""\
        import numpy as np


        def shifted(a, b, k):
            for i in range(len(b)):
                a[i + k] = a[i] * 2.0 + b[i]
            return a
        """)
    plan = transpile_source(source, "m.py", shapes={"a": 1, "b": 1, "k": 0}, backend="pfor").plans[0]
    assert not plan.rewritten
