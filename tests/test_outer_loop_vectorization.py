"""Outer-loop vectorization: an inner loop carried from one inner iteration to the next (a
recurrence along a row) in an outer loop whose iterations are independent runs as a Python
loop whose body is batched over the outer index, which is what interchanging the loops and
vectorizing the new inner one computes. Each rewrite is checked to happen, to keep the inner
loop and batch the outer one, then against the loop; look-alikes stay loops."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def s231(aa, bb):
        n = aa.shape[0]
        for i in range(n):
            for j in range(1, n):
                aa[j, i] = aa[j - 1, i] * 0.5 + bb[j, i] * aa[j - 1, i]
        return aa


    def rows_with_a_temporary(q, x):
        for i in range(q.shape[0]):
            for j in range(1, q.shape[1]):
                u = x[i, j] * 2.0
                q[i, j] = np.tanh(q[i, j - 1]) * u
        return q


    def backwards(q, x):
        for i in range(q.shape[0]):
            for j in range(q.shape[1] - 2, -1, -1):
                q[i, j] = np.sin(q[i, j + 1]) + x[i, j]
        return q


    def carried_scalar(q, x):
        for i in range(x.shape[0]):
            s = 0.0
            for j in range(x.shape[1]):
                s = np.tanh(s) * 0.5 + x[i, j]
            q[i, 0] = s
        return q


    def carried_from_the_row(q, x):
        for i in range(x.shape[0]):
            s = x[i, 0]
            for j in range(1, x.shape[1]):
                t = s * s * 0.1
                s = t + x[i, j]
            q[i, 0] = s * 2.0
        return q


    def beside_other_statements(q, x, out):
        for i in range(q.shape[0]):
            out[i] = x[i, 0] * 3.0
            for j in range(1, q.shape[1]):
                q[i, j] = q[i, j - 1] * q[i, j - 1] * 0.1 + x[i, j]
        return q, out
    """)

KEPT = textwrap.dedent("""\
    import numpy as np


    def rank_changes(x, out):
        for i in range(x.shape[0]):
            s = 0.0
            for j in range(x.shape[1]):
                s = np.tanh(s) + x[i, :2]
            out[i] = s[0]
        return out


    def under_a_test(q, x):
        for i in range(q.shape[0]):
            if x[i, 0] > 0:
                for j in range(1, q.shape[1]):
                    q[i, j] = np.tanh(q[i, j - 1]) + x[i, j]
        return q


    def triangular(q, x):
        for i in range(q.shape[0]):
            for j in range(1, i):
                q[i, j] = np.tanh(q[i, j - 1]) + x[i, j]
        return q


    def rows_depend(q, x):
        for i in range(1, q.shape[0]):
            for j in range(1, q.shape[1]):
                q[i, j] = np.tanh(q[i - 1, j - 1]) + x[i, j]
        return q
    """)

REWRITTEN = ["s231", "rows_with_a_temporary", "backwards", "carried_scalar", "carried_from_the_row",
             "beside_other_statements"]


def _body(code, name):
    return code.split(f"def {name}(")[1].split("\ndef ")[0]


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py")


@pytest.mark.parametrize("name", REWRITTEN)
def test_the_outer_loop_is_batched_around_the_inner_one(result, name):
    plan = next(p for p in result.plans if p.function == name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    batched = _body(result.code, name).split("    else:\n")[0]
    assert "for j in range(" in batched and "for i in range(" not in batched, batched
    assert "np.arange(" not in batched.split("for j in")[1]  # (an outer index is built once, before it)


@pytest.mark.parametrize("name", REWRITTEN)
@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (1, 4), (4, 1), (3, 5), (6, 6)])
def test_equal_to_the_loop(result, name, shape):
    assert next(p for p in result.plans if p.function == name).rewritten
    before, after = run_module(SOURCE)[name], run_module(result.code)[name]
    rng = np.random.default_rng(sum(shape))
    args = [rng.uniform(-1.0, 1.0, shape), rng.uniform(-1.0, 1.0, shape)]
    if name == "beside_other_statements":
        args.append(np.zeros(shape[0]))
    try:
        want = before(*[a.copy() for a in args])
    except IndexError:  # (s231 of a matrix that is not square)
        with pytest.raises(IndexError):
            after(*[a.copy() for a in args])
        return
    got = after(*[a.copy() for a in args])
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", ["rank_changes", "under_a_test", "triangular", "rows_depend"])
def test_look_alikes_stay_loops(name):
    result = transpile_source(KEPT, "m.py")
    assert not any(p.rewritten and p.lineno == min(q.lineno for q in result.plans if q.function == name)
                   for p in result.plans if p.function == name)
    before, after = run_module(KEPT)[name], run_module(result.code)[name]
    rng = np.random.default_rng(3)
    x = rng.uniform(-1.0, 1.0, (5, 4))
    if name == "rank_changes":
        np.testing.assert_array_equal(after(x, np.zeros(5)), before(x, np.zeros(5)))
    else:
        q = rng.uniform(-1.0, 1.0, (5, 4))
        np.testing.assert_array_equal(after(q.copy(), x), before(q.copy(), x))


def test_idempotent(result):
    assert transpile_source(result.code, "m.py").code == result.code


@pytest.mark.parametrize("name", ["carried_scalar", "carried_from_the_row"])
def test_a_carried_name_computes_in_the_loops_dtype(result, name):
    """`s = 0.0` is a Python float in the first step, so float32 rows give float32 values in
    the loop (NEP 50): the batched loop starts from the same Python float."""
    assert "s = 0.0" in _body(result.code, "carried_scalar").split("for j in")[0]
    before, after = run_module(SOURCE)[name], run_module(result.code)[name]
    x = np.random.default_rng(4).uniform(-1.0, 1.0, (5, 7)).astype(np.float32)
    want, got = before(np.zeros((5, 7), np.float32), x), after(np.zeros((5, 7), np.float32), x)
    assert want.dtype == got.dtype
    np.testing.assert_array_equal(got, want)
