"""List comprehensions in a loop body, unfolded into the inner loop they are
(``analysis.comprehensions``): batched with the loop around them, or on their own inside a
carried loop, whose list starts empty in the rewrite too. Each rewrite is checked to happen,
then against the loop on several inputs."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plans_of, run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def scores(X, means, k):
        out = []
        for x in X:
            lp = [np.sum((x - means[c]) ** 2) for c in range(k)]
            out.append(lp)
        return np.array(out)


    def nearest(X, means, k):
        out = []
        for x in X:
            lp = [np.sum((x - means[c]) ** 2) for c in range(k)]
            out.append(np.argmin(lp))
        return np.array(out)


    def shadowing(X, means, k):
        c = 7.0
        out = np.zeros(len(X))
        for i in range(len(X)):
            lp = [np.sum(X[i] * means[c]) for c in range(k)]
            out[i] = np.max(lp) + c
        return out, c


    def filtered(X, means, k):
        out = np.zeros(len(X))
        for i in range(len(X)):
            lp = [np.sum(X[i] * means[c]) for c in range(k) if c != 1]
            out[i] = np.max(lp)
        return out


    def viterbi_step(trellis, trans, n, T):
        for t in range(1, T):
            for s in range(n):
                cand = [trellis[p, t - 1] + trans[p, s] for p in range(n)]
                trellis[s, t] = np.max(cand)
        return trellis


    def kept_as_a_list(X, n):
        for i in range(len(X)):
            for s in range(n):
                row = [X[i - 1, p] * 2.0 for p in range(n)]
                row.append(1.0)
                X[i, s] = sum(row)
        return X


    def reads_its_own_name(X, k):
        out = []
        lp = [0.0]
        for x in X:
            lp = [lp[0] + x[c] for c in range(k)]
            out.append(lp[-1])
        return out
    """)


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py")


@pytest.mark.parametrize("name", ["scores", "nearest", "shadowing"])
def test_the_comprehension_is_batched_with_the_loop_around_it(result, name):
    plans = plans_of(result, name)
    assert len(plans) == 1 and plans[0].rewritten, [r.message for p in plans for r in p.remarks]
    assert "1 inner loop" in plans[0].pattern


def test_inside_a_carried_loop_the_loop_around_the_comprehension_is_batched_with_it(result):
    """The loop over ``t`` carries the trellis; the one over ``s`` writes column ``t`` and reads
    column ``t - 1`` at every ``p``, which never meet (the symbolic dependence test), so it is
    batched with the comprehension as its inner loop."""
    plans = plans_of(result, "viterbi_step")
    assert [p.rewritten for p in plans] == [False, True]  # the loop over t stays
    line = next(k for k, text in enumerate(SOURCE.splitlines(), 1) if "for s in range(n):" in text)
    assert plans[1].lineno == line and "1 inner loop" in plans[1].pattern
    assert "trellis[:n, t] = np.max(cand_items, axis=-1)" in result.code
    rng = np.random.default_rng(0)
    for n, steps in ((0, 3), (1, 1), (3, 5), (4, 2)):
        trellis, trans = rng.standard_normal((n, steps)), rng.standard_normal((n, n))
        want = run_module(SOURCE)["viterbi_step"](trellis.copy(), trans, n, steps)
        np.testing.assert_array_equal(run_module(result.code)["viterbi_step"](trellis.copy(), trans, n, steps), want)


def test_a_list_the_rewrite_extends_starts_empty(result):
    plans = plans_of(result, "kept_as_a_list")
    assert [p.rewritten for p in plans] == [False, False, True], [r.message for p in plans for r in p.remarks]
    code = result.code[result.code.index("def kept_as_a_list"):]
    assert code.index("row = []") < code.index("row.extend(") < code.index("else:")


def test_a_filtered_comprehension_is_rewritten_inside_the_loop(result):
    plans = plans_of(result, "filtered")
    assert [p.rewritten for p in plans] == [False, True], [r.message for p in plans for r in p.remarks]
    assert "filter lp" in plans[1].pattern


def test_a_comprehension_reading_its_own_name_is_not_unfolded(result):
    plans = plans_of(result, "reads_its_own_name")
    assert not any(p.rewritten for p in plans)
    assert "lp = [lp[0] + x[c] for c in range(k)]" in result.code


def test_the_rewrites_compute_what_the_loops_compute(result):
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(3)
    for n, d, k in ((0, 2, 3), (1, 3, 1), (4, 2, 3), (6, 3, 4)):
        X, means = rng.standard_normal((n, d)), rng.standard_normal((k + 1, d))
        for name in ("scores", "nearest", "shadowing") + (("filtered",) if k > 1 else ()):
            want, got = before[name](X, means, k), after[name](X, means, k)
            assert repr(want) == repr(got), (name, n, want, got)
        trellis, trans = rng.standard_normal((k, n + 2)), rng.standard_normal((k, k))
        want = before["viterbi_step"](trellis.copy(), trans, k, n + 2)
        got = after["viterbi_step"](trellis.copy(), trans, k, n + 2)
        assert np.array_equal(want, got), (n, want, got)
        square = rng.standard_normal((n, k))
        want = before["kept_as_a_list"](square.copy(), k)
        assert np.array_equal(want, after["kept_as_a_list"](square.copy(), k))
        assert before["reads_its_own_name"](X, min(k, d)) == after["reads_its_own_name"](X, min(k, d))
