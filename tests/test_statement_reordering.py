"""Statement reordering: a read of what an earlier iteration wrote (``a[i] = b[i - 1] + ...``
before ``b[i] = ...``) is what whole-array execution reads where the writing statement runs
first. Each rewrite is checked to happen and to run the statements in the new order, then
against the loop; look-alikes that no order computes stay loops, and say why."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source

SOURCE = textwrap.dedent("""\
    import numpy as np


    def s211(a, b, c, d, e):
        for i in range(1, len(a) - 1):
            a[i] = b[i - 1] + c[i] * d[i]
            b[i] = b[i + 1] - e[i] * d[i]
        return a, b


    def through_a_private(x, q, out):
        for i in range(1, len(x)):
            t = q[i - 1] * 2.0
            q[i] = x[i] + 1.0
            out[i] = t - x[i]
        return q, out


    def in_order_already(x, q, out):
        for i in range(1, len(x)):
            q[i] = x[i] * 3.0
            out[i] = q[i - 1] + x[i]
        return q, out


    def masked_write(x, q, out):
        for i in range(1, len(x)):
            out[i] = q[i - 1] - 1.0
            if x[i] > 0:
                q[i] = x[i]
        return q, out
    """)

SHAPES = {n: 1 for n in ("a", "b", "c", "d", "e", "x", "q", "out")}


def _module(code):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace


def _batched(code, name):
    body = code.split(f"def {name}(")[1].split("\ndef ")[0]
    return body.split("    else:\n        for ")[0]


@pytest.fixture(scope="module")
def rewritten():
    result = transpile_source(SOURCE, "m.py", shapes=SHAPES)
    return result, {p.function: p for p in result.plans}


@pytest.mark.parametrize("name", ["s211", "through_a_private", "in_order_already", "masked_write"])
def test_a_read_of_an_earlier_iteration_s_write_is_rewritten(rewritten, name):
    result, plans = rewritten
    assert plans[name].rewritten, [r.message for r in plans[name].remarks]
    assert "for i in" not in _batched(result.code, name)


def test_the_writing_statement_runs_first(rewritten):
    result, _ = rewritten
    batched = _batched(result.code, "s211")
    assert batched.index("b[1:") < batched.index("a[1:")
    batched = _batched(result.code, "through_a_private")
    assert batched.index("t = ") < batched.index("out[1:") and batched.index("q[1:") < batched.index("t = ")


def test_the_rewrite_computes_what_the_loop_computes(rewritten):
    result, _ = rewritten
    before, after = _module(SOURCE), _module(result.code)
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 3, 8):
        arrays = [rng.standard_normal(n) for _ in range(5)]
        want = before["s211"](*[v.copy() for v in arrays])
        got = after["s211"](*[v.copy() for v in arrays])
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
        x, q, out = arrays[:3]
        for name in ("through_a_private", "in_order_already", "masked_write"):
            want = before[name](x.copy(), q.copy(), out.copy())
            got = after[name](x.copy(), q.copy(), out.copy())
            for w, g in zip(want, got):
                np.testing.assert_array_equal(g, w)


LEFT = textwrap.dedent("""\
    import numpy as np


    def reads_the_same_iteration_too(x, q, out):
        for i in range(1, len(x)):
            out[i] = q[i - 1] + q[i]
            q[i] = x[i]
        return q, out


    def reads_a_later_iteration_s_too(x, q, out):
        for i in range(1, len(x) - 1):
            out[i] = q[i - 1] + q[i + 1]
            q[i] = x[i]
        return q, out


    def a_cycle(x, q, out):
        for i in range(1, len(x)):
            out[i] = q[i - 1] * 2.0
            q[i] = out[i] + x[i]
        return q, out


    def through_a_scalar_both_ways(x, q, out):
        for i in range(1, len(x)):
            t = q[i - 1]
            q[i] = t + x[i]
            out[i] = t
        return q, out
    """)


@pytest.mark.parametrize("name", ["reads_the_same_iteration_too", "reads_a_later_iteration_s_too", "a_cycle",
                                  "through_a_scalar_both_ways"])
def test_what_no_order_computes_stays_a_loop(name):
    """`q[i]` or `q[i + 1]` read beside `q[i - 1]` would read the new value once the write ran
    first; `q[i] = out[i] + ...` needs the read's statement first and the read needs the write
    first: a recurrence."""
    result = transpile_source(LEFT, "m.py", shapes=SHAPES)
    plan = next(p for p in result.plans if p.function == name)
    assert not plan.rewritten
    assert any(r.code == "PF202" and "`q[i - 1]` reads the element written 1 iteration(s) earlier" in r.message
               for r in plan.remarks), [r.message for r in plan.remarks]


def test_explain_says_the_order():
    result = transpile_source(SOURCE, "m.py", shapes=SHAPES)
    plan = next(p for p in result.plans if p.function == "s211")
    notes = [note for level in plan.levels for note in level.notes]
    assert any("statement reordering" in note and "lines 7, 6" in note for note in notes), notes
    dependences = [d for level in plan.levels for d in level.dependences]
    assert any("the writing statement run first" in d for d in dependences), dependences


WEBS = textwrap.dedent("""\
    import numpy as np


    def s261(a, b, c, d):
        for i in range(1, len(a)):
            t = a[i] + b[i]
            a[i] = t + c[i - 1]
            t = c[i] * d[i]
            c[i] = t
        return a, c


    def three_values(a, b, c, d):
        for i in range(1, len(a)):
            t = a[i] * 2.0
            a[i] = t + c[i - 1] + d[i - 1]
            t = c[i] - 1.0
            c[i] = t
            t = d[i] * b[i]
            d[i] = t
        return a, c, d
    """)

WEBS_LEFT = textwrap.dedent("""\
    import numpy as np


    def each_web_needs_the_other_first(a, c):
        for i in range(1, len(a)):
            t = a[i - 1] + 1.0
            c[i] = t
            t = c[i - 1] * 2.0
            a[i] = t
        return a, c


    def the_second_value_from_the_first(a, b, c):
        for i in range(1, len(a)):
            t = a[i] + b[i]
            a[i] = t + c[i - 1]
            t = t * c[i]
            c[i] = t
        return a, c


    def read_after_the_loop(a, b, c, d):
        for i in range(1, len(a)):
            t = a[i] + b[i]
            a[i] = t + c[i - 1]
            t = c[i] * d[i]
            c[i] = t
        return a, c, t


    def read_by_a_lambda(a, b, c, d):
        for i in range(1, len(a)):
            t = a[i] + b[i]
            a[i] = (lambda: t)() + c[i - 1]
            t = c[i] * d[i]
            c[i] = t
        return a, c
    """)


def test_a_private_bound_twice_has_two_values_each_kept_whole():
    """TSVC s261: `t` holds `a[i] + b[i]` for the first two statements and `c[i] * d[i]` for
    the last two; the write of `c` must run before the read of `c[i - 1]`, so the second value's
    statements run first, then the first's, never one inside the other (whole-array statements
    hold one value of `t` at a time: scalar renaming without new names)."""
    result = transpile_source(WEBS, "m.py", shapes={n: 1 for n in "abcd"})
    plans = {p.function: p for p in result.plans}
    for name in ("s261", "three_values"):
        assert plans[name].rewritten, [r.message for r in plans[name].remarks]
        assert "for i in" not in _batched(result.code, name)
    batched = _batched(result.code, "s261")
    assert batched.index("t = c[") < batched.index("c[1:") < batched.index("t = a[") < batched.index("a[1:")
    before, after = _module(WEBS), _module(result.code)
    rng = np.random.default_rng(261)
    for n in (0, 1, 2, 3, 9):
        for name, count in (("s261", 4), ("three_values", 4)):
            arrays = [rng.standard_normal(n) for _ in range(count)]
            want = before[name](*[v.copy() for v in arrays])
            got = after[name](*[v.copy() for v in arrays])
            for w, g in zip(want, got):
                np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", ["each_web_needs_the_other_first", "the_second_value_from_the_first",
                                  "read_after_the_loop", "read_by_a_lambda"])
def test_values_of_a_private_that_no_order_keeps_apart_stay_a_loop(name):
    """Two values of `t` that each need the other's statements first; a second value computed
    from the first (one web); `t` read after the loop (its last value is the second's); a
    lambda that reads `t` when called: no order, and the loop stays."""
    result = transpile_source(WEBS_LEFT, "m.py", shapes={n: 1 for n in "abcd"})
    plan = next(p for p in result.plans if p.function == name)
    assert not plan.rewritten, result.code
    assert any(r.code in ("PF202", "PF212", "PF201") for r in plan.remarks), [r.message for r in plan.remarks]
