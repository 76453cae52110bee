"""``if v > best: best = v`` with no index recorded: a max (or min) reduction spelled as the
loop's own comparison, which NaN terms never win and which a NaN start keeps. Each rewrite is
checked to happen, then against the loop on ties of 0.0 and -0.0, NaN, terms that never beat
the start, ints and lists."""

from __future__ import annotations

import copy
import math
import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source

SOURCE = textwrap.dedent("""\
    import numpy as np


    def largest(a):
        x = a[0]
        for i in range(len(a)):
            if a[i] > x:
                x = a[i]
        return x


    def largest_or_last_tie(a):
        x = -3e38
        for i in range(len(a)):
            if a[i] >= x:
                x = a[i]
        return x


    def smallest(a, start):
        x = start
        for i in range(len(a)):
            if x > a[i]:
                x = a[i]
        return x


    def smallest_or_last_tie(a):
        x = 3e38
        for i in range(len(a)):
            if a[i] <= x:
                x = a[i]
        return x


    def largest_magnitude(a):
        mx = abs(a[0])
        for i in range(len(a)):
            if abs(a[i]) > mx:
                mx = abs(a[i])
        return mx
    """)

NAMES = ["largest", "largest_or_last_tie", "smallest", "smallest_or_last_tie", "largest_magnitude"]


def _module(code):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def rewritten():
    result = transpile_source(SOURCE, "m.py", shapes={"a": 1, "start": 0})
    return result, {p.function: p for p in result.plans}


@pytest.mark.parametrize("name", NAMES)
def test_the_comparison_is_a_reduction_with_no_index(rewritten, name):
    result, plans = rewritten
    assert plans[name].rewritten, [r.message for r in plans[name].remarks]
    body = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    # (the declared rank of `a` is checked in front, the loop kept for the other ranks)
    batched = body.split("\n    else:\n")[0]
    assert "    if type(a) is np.ndarray and a.ndim == 1 and len(a) > 0:\n" in batched
    assert "np.flatnonzero(" in batched and "for i in" not in batched
    assert "reduction" in body and "arg" not in body.split("\n")[2]  # the marker names no index


def _same(want, got):
    assert type(got) is type(want), (want, got)
    if want != want:  # NaN, of either width
        assert got != got, (want, got)
    else:
        assert got == want and math.copysign(1, got) == math.copysign(1, want), (want, got)


INPUTS = [
    [0.0, -0.0], [-0.0, 0.0], [3.0, -0.0, 0.0, 3.0], [1.0, float("nan"), 2.0], [float("nan"), 1.0, 5.0],
    [-5.0, -7.0], [2.5], [0.5, 0.5, -0.0, 0.0, 0.5],
]


@pytest.mark.parametrize("values", INPUTS, ids=[str(v) for v in INPUTS])
def test_the_rewrite_returns_what_the_loop_returns(rewritten, values):
    result, _ = rewritten
    before, after = _module(SOURCE), _module(result.code)
    for dtype in (np.float64, np.float32):
        a = np.array(values, dtype=dtype)
        for start in (0.0, -0.0, float("nan"), 10.0):
            _same(before["smallest"](a.copy(), start), after["smallest"](a.copy(), start))
        for name in ("largest", "largest_or_last_tie", "smallest_or_last_tie", "largest_magnitude"):
            _same(before[name](copy.deepcopy(a)), after[name](copy.deepcopy(a)))


def test_ints_and_lists_keep_their_types():
    """With no ranks given (inferred, checked at run time), a list of floats runs batched too."""
    result = transpile_source(SOURCE, "m.py")
    assert all(p.rewritten for p in result.plans if p.function in NAMES)
    before, after = _module(SOURCE), _module(result.code)
    for a in (np.array([3, -4, 7, 7], dtype=np.int8), [3.5, -4.0, 7.25], np.array([2**62, 2**62 + 1])):
        for name in ("largest", "largest_magnitude", "largest_or_last_tie"):
            want, got = before[name](copy.deepcopy(a)), after[name](copy.deepcopy(a))
            # (an element of an int8 array is an np.int8; of a list of floats a float, which the
            # batched np.float64 is, as the project's reductions of lists give)
            assert isinstance(got, type(want)) and np.asarray(got).dtype == np.asarray(want).dtype, (name, a, want, got)
            assert got == want, (name, a, want, got)


def test_tensorflow_loops_keep_the_loop_and_say_why():
    source = textwrap.dedent("""\
        import tensorflow as tf


        def largest(a):
            x = a[0]
            for i in range(a.shape[0]):
                if tf.abs(a[i]) > x:
                    x = tf.abs(a[i])
            return x
        """)
    plan = transpile_source(source, "m.py", shapes={"a": 1}).plans[0]
    assert not plan.rewritten
    assert any("that NaN terms never reach" in r.message for r in plan.remarks), [r.message for r in plan.remarks]


PAYLOADS = textwrap.dedent("""\
    import numpy as np


    def best_row(X, y):
        best_loss = np.inf
        best_w = None
        best_i = -1
        for i in range(X.shape[0]):
            loss = np.sum((X[i] - y) ** 2)
            if loss < best_loss:
                best_loss = loss
                best_w = X[i]
                best_i = i
        return best_loss, best_w, best_i


    def best_label(scores, labels, tag):
        top = -np.inf
        who = None
        why = "none"
        for k in range(len(scores)):
            if scores[k] >= top:
                top = scores[k]
                who = labels[k]
                why = tag
        return top, who, why
    """)


def test_several_values_taken_where_the_extreme_is_reached():
    """``best_w = X[i]`` (a row), ``best_i = i`` (a Python int) and ``why = tag`` (the same on
    every iteration) are each the value of the winning iteration: first of ties for ``<``, last
    for ``>=``; none kept where no term beats the start (NaN rows never do)."""
    result = transpile_source(PAYLOADS, "m.py", shapes={"X": 2, "y": 1, "scores": 1, "labels": 1, "tag": 0})
    assert all(p.rewritten for p in result.plans), [r.message for p in result.plans for r in p.remarks]
    assert "best_w = best_w_values[at]" in result.code and "best_i = best_i_values[at].item()" in result.code
    assert "why = tag" in result.code.split("if np.any(top_better):")[1]
    before, after = _module(PAYLOADS), _module(result.code)
    X = np.array([[1.0, 2.0], [0.0, 0.0], [np.nan, 0.0], [0.0, 0.0], [3.0, 1.0]])
    for rows in (X, X[:1], X[2:3], X[::-1], X[:0]):
        want, got = before["best_row"](rows.copy(), np.zeros(2)), after["best_row"](rows.copy(), np.zeros(2))
        assert type(got[2]) is type(want[2]) and got[2] == want[2], (rows, want, got)
        assert (want[1] is None and got[1] is None) or np.array_equal(want[1], got[1], equal_nan=True)
        assert repr(got[0]) == repr(want[0])
    scores = np.array([1.0, 3.0, 3.0, -1.0, 3.0, 2.0])
    for s, labels in ((scores, np.arange(6) * 10), (scores[:0], np.arange(0)), (-np.ones(3) * np.inf, np.arange(3))):
        assert repr(after["best_label"](s, labels, "t")) == repr(before["best_label"](s, labels, "t"))


def test_tensorflow_loops_tracking_several_values_keep_the_loop_and_say_why():
    source = textwrap.dedent("""\
        import tensorflow as tf


        def best(a):
            x = a[0]
            at = -1
            w = 0.0
            for i in range(a.shape[0]):
                if tf.abs(a[i]) > x:
                    x = tf.abs(a[i])
                    at = i
                    w = a[i] * 2.0
            return x, at, w
        """)
    plan = transpile_source(source, "m.py", shapes={"a": 1}).plans[0]
    assert not plan.rewritten
    assert any("is tracked with more than one value" in r.message for r in plan.remarks), \
        [r.message for r in plan.remarks]
