"""What the loop computes the same way on every iteration: a name that keeps its constant value
because the branches storing it never run (``rem = 0``; ``if rem != 0: rem = ...``), a
conditional expression whose test is an invariant, and a private bound to an invariant value
and read after the loop. Each rewrite is checked to happen, then against the loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source


def _run(code, name, *args):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace[name](*args)


def _plans(source):
    result = transpile_source(source, "m.py")
    return result, {p.function: p for p in result.plans}


CONSTANT = textwrap.dedent("""\
    import numpy as np


    def stretch(counts):
        running = 0
        rem = 0
        table = []
        total = np.sum(counts)
        for i in range(len(counts)):
            running += counts[i] / total
            last = 255 * running
            if rem != 0:
                rem = int(last % last)
            table.append(int(last + 1 if rem >= 0.5 else last))
        return table


    def live(counts):
        rem = 0
        out = np.zeros(len(counts))
        for i in range(len(counts)):
            if rem > 0 or counts[i] > 3:
                rem = counts[i]
            out[i] = counts[i] * 2 + rem
        return out


    def from_a_parameter(counts, rem):
        out = np.zeros(len(counts))
        for i in range(len(counts)):
            if rem != 0:
                rem = counts[i]
            out[i] = counts[i] + rem
        return out


    def bound_twice(counts, flag):
        rem = 0
        if flag:
            rem = 1
        out = np.zeros(len(counts))
        for i in range(len(counts)):
            if rem != 0:
                rem = counts[i]
            out[i] = counts[i] + rem
        return out
    """)


def test_a_branch_that_never_runs_leaves_its_name_a_constant():
    """`rem` is 0 before the loop and stored only under `rem != 0`: it stays 0, the branch is
    dropped, and the loop is a scan (thealgorithms' histogram stretch)."""
    result, plans = _plans(CONSTANT)
    assert plans["stretch"].rewritten, [r.message for r in plans["stretch"].remarks]
    batched = result.code.split("def live")[0].split("else:")[0]
    assert "rem = int(" not in batched and "np.add.accumulate" in batched
    rng = np.random.default_rng(0)
    for counts in (rng.integers(0, 50, 256).astype(float), np.array([3.0]), rng.random(7)):
        want, got = _run(CONSTANT, "stretch", counts), _run(result.code, "stretch", counts)
        assert got == want and all(type(v) is int for v in got)


@pytest.mark.parametrize("name", ["live", "from_a_parameter", "bound_twice"])
def test_a_branch_that_may_run_keeps_the_loop(name):
    """A test true for some data (`rem > 0 or counts[i] > 3`), a value not known before the
    loop (a parameter), or a name bound twice before it: the stores may run, and the value is
    carried."""
    _, plans = _plans(CONSTANT)
    assert not plans[name].rewritten
    assert any(r.code == "PF201" for r in plans[name].remarks), [r.message for r in plans[name].remarks]


CHOICE = textwrap.dedent("""\
    import numpy as np


    def choose(x, flag):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2 if flag else x[i] + 1
        return out


    def two_kinds(x, flag):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2 if flag else 0.5
        return out
    """)


def test_a_conditional_expression_with_an_invariant_test_chooses_one_batched_arm():
    """Every iteration takes the same arm: `x * 2 if flag else x + 1`, Python's conditional of
    the batched arms; an arm that is a Python number on one side keeps the loop."""
    result, plans = _plans(CHOICE)
    assert plans["choose"].rewritten, [r.message for r in plans["choose"].remarks]
    assert " if flag else " in result.code.split("def two_kinds")[0].split("else:\n")[0]
    x = np.array([1.5, -2.0, 0.25])
    for flag in (True, False, 0, np.bool_(True)):
        np.testing.assert_array_equal(_run(result.code, "choose", x, flag), _run(CHOICE, "choose", x, flag))
    assert not plans["two_kinds"].rewritten
    assert any("two kinds or ranks" in r.message for r in plans["two_kinds"].remarks)


LIVE = textwrap.dedent("""\
    import numpy as np


    def sizes(counts, picture):
        total = np.sum(counts)
        out = np.zeros(len(counts))
        n_cols = -1
        for i in range(len(counts)):
            out[i] = counts[i] / total
            n_cols = picture[1].size
        return out, n_cols


    def doubled_length(x, c):
        out = np.zeros(len(x))
        s = -1
        for i in range(len(x)):
            out[i] = x[i] * 2
            s = len(x) * 2 + c
        return out, s


    def last_item(x):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2
            last = x[i]
        return out, last


    def written_in_the_loop(x, w):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2
            first = w.sum()
            w[i % 2] = x[i]
        return out, first
    """)


def test_a_private_bound_to_an_invariant_is_read_after_the_loop():
    """`n_cols = picture[1].size` in the loop is the same on every iteration: its last value is
    computed once; an empty loop keeps the value from before it (the loop runs)."""
    result, plans = _plans(LIVE)
    assert plans["sizes"].rewritten, [r.message for r in plans["sizes"].remarks]
    assert plans["doubled_length"].rewritten, [r.message for r in plans["doubled_length"].remarks]
    picture = np.zeros((3, 4))
    for counts in (np.array([1.0, 3.0]), np.array([])):
        for name, args in (("sizes", (counts, picture)), ("doubled_length", (counts, 0.5))):
            want, got = _run(LIVE, name, *args), _run(result.code, name, *args)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1] == want[1], (name, counts, want, got)


@pytest.mark.parametrize("name", ["last_item", "written_in_the_loop"])
def test_a_private_that_varies_is_not_read_after_the_loop(name):
    """`last = x[i]` holds the last item; `first = w.sum()` reads an array the loop writes."""
    _, plans = _plans(LIVE)
    assert not plans[name].rewritten
    assert any(r.code == "PF212" for r in plans[name].remarks), [r.message for r in plans[name].remarks]
