"""Induction-variable substitution: ``j += c`` once (or more) per iteration, from an int
constant before the loop, makes ``a[j]`` the affine ``a[j0 + (i + 1) * c]`` (``a[j0 + i * C +
c']`` with ``C`` the sum of the steps and ``c'`` those before the read) for the dependence
test, so a write there is an indexed output. Each rewrite is checked to happen, then against the loop; a start
below zero (indices that wrap around) or unknown keeps the loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source

SOURCE = textwrap.dedent("""\
    import numpy as np


    def every_other(a, b):
        j = -1
        for i in range(len(b)):
            j += 2
            a[j] = b[i]
        return a


    def read_back(a, b, out):
        k = 0
        for i in range(len(b)):
            a[k] = b[i] * 2.0
            out[i] = a[k] + 1.0
            k += 3
        return a, out


    def last_value_read_after(a, b):
        j = 3
        for i in range(len(b)):
            j = j + 2
            a[j] = b[i] - 1.0
        return a, j


    def two_updates(a, b):
        j = -1
        for i in range(len(b)):
            j += 1
            a[j] = b[i] + 1.0
            j += 1
            a[j] = b[i] * 3.0
        return a, j


    def interleaved_downwards(a, b, out):
        k = 0
        n = len(b)
        for i in range(n - 1, -1, -1):
            a[k] = b[i]
            k += 3
            out[i] = a[k - 3] * 2.0
            k -= 1
        return a, out, k
    """)

SHAPES = {"a": 1, "b": 1, "out": 1}
NAMES = ["every_other", "read_back", "last_value_read_after", "two_updates", "interleaved_downwards"]


def _module(code):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def rewritten():
    result = transpile_source(SOURCE, "m.py", shapes=SHAPES)
    return result, {p.function: p for p in result.plans}


@pytest.mark.parametrize("name", NAMES)
def test_a_write_at_a_derived_induction_variable_is_rewritten(rewritten, name):
    result, plans = rewritten
    assert plans[name].rewritten, [r.message for r in plans[name].remarks]
    body = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert "for i in" not in body.split("    else:\n        for ")[0]


def test_the_rewrite_computes_what_the_loop_computes(rewritten):
    result, plans = rewritten
    assert all(plans[name].rewritten for name in NAMES)
    before, after = _module(SOURCE), _module(result.code)
    rng = np.random.default_rng(11)
    for n in (0, 1, 4, 6):
        b = rng.standard_normal(n)
        for size in (3 * n + 6, 2 * n, 2 * n + 1):  # (too short: both raise IndexError)
            for name, args in (("every_other", (np.zeros(size), b)), ("read_back", (np.zeros(size), b, np.zeros(n))),
                               ("last_value_read_after", (np.zeros(size), b)), ("two_updates", (np.zeros(size), b)),
                               ("interleaved_downwards", (np.zeros(size), b, np.zeros(n)))):
                try:
                    want = before[name](*[np.copy(v) for v in args])
                except IndexError:
                    continue
                got = after[name](*[np.copy(v) for v in args])
                for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                    assert type(g) is type(w) and np.array_equal(g, w), (name, n, size, w, g)


LEFT = textwrap.dedent("""\
    import numpy as np


    def below_zero(a, b):
        j = -9
        for i in range(len(b)):
            j += 2
            a[j] = b[i]
        return a


    def unknown_start(a, b, j):
        for i in range(len(b)):
            j += 2
            a[j] = b[i]
        return a


    def two_updates_that_collide(a, b, c):
        j = 4
        for i in range(len(b)):
            j -= 1
            a[j] = b[i]
            j += 2
            a[j] = c[i]
        return a
    """)


@pytest.mark.parametrize("name, why", [
    ("below_zero", "may index `a` below zero"),
    ("unknown_start", "computed from data"),
    ("two_updates_that_collide", "`a`"),
])
def test_what_is_not_substituted_stays_a_loop(name, why):
    """`j` from -9 reaches -7, which wraps around to the end where later iterations write; a start
    the code does not show could be anything; `j -= 1` then `j += 2` writes a[3], a[5], then
    a[4], a[6], then a[5]: the later iteration's write of a[5] is the earlier statement."""
    result = transpile_source(LEFT, "m.py", shapes={"a": 1, "b": 1, "c": 1, "j": 0})
    plan = next(p for p in result.plans if p.function == name)
    assert not plan.rewritten
    assert any(why in r.message for r in plan.remarks), [r.message for r in plan.remarks]
