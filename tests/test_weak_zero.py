"""The weak-zero and weak-crossing SIV tests with symbolic bounds (Allen & Kennedy 3.3.2.1 and
3.3.2.2). Weak-crossing: a write ``a[i]`` and a read ``a[n - 1 - i]`` meet in two iterations
on either side of ``(n - 1) / 2``, so the loop is split there (TSVC s281). Weak-zero: a write ``a[i]`` and a
read ``a[m]`` of an invariant element meet only at iteration ``m``. Where the loop's header shows
``m`` outside the iteration space (``range(n // 2 + 1, n)`` beside ``a[n // 2]``) there is no
dependence; where ``m`` is the last iteration (``range(n // 2 + 1)``) every other iteration reads
the element before it is overwritten, which whole-array execution keeps when the read runs
first. Each rewrite is checked to happen, then against the loop on arrays of every length up
to 9; each look-alike with a real dependence stays a loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

#: name -> body of `f(a, b, k)` (returns `a`), rewritten
REWRITTEN = {
    "read_before_the_first_iteration": """
        n = a.shape[0]
        for i in range(n // 2 + 1, n):
            a[i] = a[n // 2] * 0.5 + b[i]
        """,
    "read_written_by_the_last_iteration": """
        n = a.shape[0]
        for i in range(n // 2 + 1):
            a[i] = a[n // 2] * 0.5 + b[i]
        """,
    "read_past_the_last_iteration": """
        for i in range(len(a) - 1):
            a[i] = a[len(a) - 1] + b[i]
        """,
    "read_before_a_shifted_write": """
        for i in range(a.shape[0] - 1):
            a[i + 1] = a[0] * 2.0 - b[i]
        """,
    "a_start_of_two_bounds": """
        for i in range(max(k, 1), a.shape[0]):
            a[i] = a[0] + b[i]
        """,
}

#: name -> body of `f(a, b, k)`, split by index into two loops, each rewritten
SPLIT = {
    # TSVC s1113: iterations after n // 2 read the new value
    "read_written_mid_loop": """
        n = a.shape[0]
        for i in range(n):
            a[i] = a[n // 2] + b[i]
        """,
    # the first iteration writes the element every later one reads: it is peeled
    "read_written_by_the_first_iteration": """
        for i in range(a.shape[0]):
            a[i] = a[0] * 0.5 + b[i]
        """,
    "a_shifted_write_from_a_start": """
        for i in range(2, a.shape[0] - 1):
            a[i + 1] = a[4] * 2.0 - b[i]
        """,
    # weak-crossing, TSVC s281: the first half reads elements no iteration wrote yet, the
    # second half elements only the first half wrote
    "s281_crossing": """
        for i in range(len(a)):
            x = a[len(a) - i - 1] + b[i] * 2.0
            a[i] = x - 1.0
            b[i] = x
        """,
    "a_mirror_from_one": """
        n = a.shape[0]
        for i in range(1, n):
            a[i] = a[n - i] * 0.5 + b[i]
        """,
    "a_shifted_crossing_write": """
        n = a.shape[0]
        for i in range(n - 1):
            a[i + 1] = a[n - 2 - i] - b[i]
        """,
}

#: name -> (body, a phrase of the remark that keeps it)
KEPT = {
    # `a[-3]` is `a[len(a) - 3]`: an index that counts from the end, outside the test's model
    "a_negative_fixed_index": ("""
        for i in range(a.shape[0]):
            a[i] = a[-3] + b[i]
        """, "PF203"),
    # a parameter may be negative: the same
    "a_fixed_index_of_unknown_sign": ("""
        for i in range(k + 1, a.shape[0]):
            a[i] = a[k] + b[i]
        """, "PF203"),
    # the last iteration reads the element after writing it: a copy made before the loop is
    # wrong there, and the batched read after the batched write is wrong everywhere else
    "read_after_the_last_write": ("""
        m = a.shape[0] // 2
        for i in range(m + 1):
            a[i] = b[i]
            b[i] = a[m]
        """, "statement order"),
    # the element's index is read from an array: not a term the bounds can be compared with
    # weak-crossing: the read `a[k - i]` goes below zero for `i > k` (counts from the end)
    "a_crossing_read_that_may_wrap": ("""
        for i in range(a.shape[0]):
            a[i] = a[k - i] + b[i]
        """, "PF203"),
    # two reads that cross the write at two points: no one split
    "two_crossing_points": ("""
        n = a.shape[0]
        for i in range(n - 1):
            a[i] = a[n - 1 - i] + a[n - 2 - i]
        """, "PF203"),
    "index_read_from_an_array": ("""
        n = a.shape[0]
        for i in range(n // 2 + 1, n):
            a[i] = a[b.astype(int)[0]] + 1.0
        """, "PF203"),
}


def _source(body):
    return "import numpy as np\n\n\ndef f(a, b, k):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") \
        + "\n    return a, b\n"


@pytest.mark.parametrize("name", sorted(REWRITTEN) + sorted(SPLIT))
def test_rewritten_and_equal_to_the_loop(name):
    source = _source(REWRITTEN.get(name) or SPLIT[name])
    result = transpile_source(source, "m.py")
    assert plan_of(result, "f").rewritten, result.remarks
    if name in SPLIT:
        plans = [p for p in result.plans if p.function == "f"]
        assert len(plans) == 2 and all(p.rewritten for p in plans), plans
        assert "# pforge: index set split" in result.code and "index-set splitting" in plans[0].remarks[0].message
    loop, batched = run_module(source)["f"], run_module(result.code)["f"]
    rng = np.random.default_rng(3)
    for n in range(10):
        for k in (0, 2, 5):
            a, b = rng.normal(size=n), rng.normal(size=n)
            try:
                want = loop(a.copy(), b.copy(), k)
            except IndexError:  # (`range(n // 2 + 1)` reads `a[0]` of an empty array)
                continue  # a rewrite may be more defined than the loop: the README's contract
            got = batched(a.copy(), b.copy(), k)
            for w, g in zip(want, got):
                np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", sorted(KEPT))
def test_dependences_stay_loops(name):
    body, why = KEPT[name]
    result = transpile_source(_source(body), "m.py")
    plan = plan_of(result, "f")
    assert not plan.vectorizable and not plan.rewritten
    assert any(why in r.code or why in r.message for r in plan.remarks), plan.remarks
