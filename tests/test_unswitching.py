"""Loop unswitching: an ``if`` at the top of the body whose test is the same on every iteration
(``if normalize:``) becomes a Python ``if`` around one rewrite of the loop per outcome. Each
rewrite is checked to happen (and its shape), then against the loop on both outcomes, and
with inputs only one outcome can read."""

from __future__ import annotations

import copy
import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source

SOURCE = textwrap.dedent("""\
    import numpy as np


    def scaled(x, w, normalize):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            v = x[i] * w[i]
            if normalize:
                v = v / np.abs(w[i])
            else:
                v = v + 1.0
            out[i] = v
        return out


    def maybe_bias(x, b, use_bias):
        out = np.zeros(len(x))
        for i in range(len(x)):
            if use_bias:
                out[i] = x[i] + b[i]
            else:
                out[i] = x[i] * 2.0
        return out


    def summed(x, flag):
        s = 0.0
        out = np.zeros(len(x))
        for i in range(len(x)):
            if flag:
                s += x[i] * 3.0
            out[i] = x[i] - 1.0
        return s, out


    def collected(X, soft):
        out = []
        for x in X:
            lp = np.exp(x)
            if not soft:
                out.append(np.argmax(lp))
            else:
                out.append(lp)
        return np.array(out)


    def nested(x, y, mode):
        out = np.zeros(len(x))
        for i in range(len(x)):
            if mode == "clip":
                if x[i] > y[i]:
                    out[i] = y[i]
                else:
                    out[i] = x[i]
            else:
                out[i] = x[i] + y[i]
        return out


    def attribute_test(x, config):
        out = np.zeros(len(x))
        for i in range(len(x)):
            if config.double:
                out[i] = x[i] * 2.0
            else:
                out[i] = x[i]
        return out
    """)

SHAPES = {"x": 1, "w": 1, "b": 1, "X": 2, "y": 1}


class _Config:
    def __init__(self, double):
        self.double = double


def _module(code):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace


def _same(want, got):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(want, got):
            _same(a, b)
        return
    assert type(got) is type(want), (want, got)
    assert np.asarray(got).dtype == np.asarray(want).dtype, (want, got)
    np.testing.assert_array_equal(got, want)


@pytest.fixture(scope="module")
def rewritten():
    result = transpile_source(SOURCE, "m.py", shapes=SHAPES)
    return result, {p.function: p for p in result.plans}


@pytest.mark.parametrize("name", ["scaled", "maybe_bias", "summed", "collected", "nested", "attribute_test"])
def test_each_loop_is_rewritten_once_per_outcome(rewritten, name):
    result, plans = rewritten
    assert plans[name].rewritten, [r.message for r in plans[name].remarks]
    body = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert "unswitched on `" in body
    batched = body.split("    else:\n        for ")[0]  # the batched code, before the loop kept
    assert "for " not in batched.split("unswitched on")[1]  # no loop left in it


def test_the_rewrite_returns_what_the_loop_returns_on_both_outcomes(rewritten):
    result, _ = rewritten
    before, after = _module(SOURCE), _module(result.code)
    rng = np.random.default_rng(5)
    for n in (0, 1, 6):
        x, w, y = (rng.standard_normal(n) for _ in range(3))
        X = rng.standard_normal((n, 3))
        for flag in (True, False, 0, 1.5):
            calls = [("scaled", (x, w, flag)), ("maybe_bias", (x, w, flag)), ("summed", (x, flag)),
                     ("collected", (X, flag)), ("nested", (x, y, "clip" if flag else "add")),
                     ("attribute_test", (x, _Config(flag)))]
            for name, args in calls:
                _same(before[name](*copy.deepcopy(args)), after[name](*copy.deepcopy(args)))


def test_common_statements_are_written_once_in_front_of_the_test(rewritten):
    result, _ = rewritten
    body = result.code.split("def scaled(")[1].split("\ndef ")[0]
    batched = body.split("    else:\n        for ")[0]
    assert batched.count("v = x * w[") == 1
    head, tail = batched.split("        if normalize:\n")
    assert "v = x * w[" in head and "v / np.abs(" in tail and "v + 1.0" in tail


def test_a_check_one_outcome_needs_is_not_evaluated_for_the_other(rewritten):
    """``b`` is read only where ``use_bias`` holds: with ``b=None`` and ``use_bias`` false, the
    batched code runs (and ``np.shape(b)`` is never asked)."""
    result, _ = rewritten
    body = result.code.split("def maybe_bias(")[1].split("\ndef ")[0]
    assert "(not use_bias or " in body
    after = _module(result.code)
    x = np.array([1.0, -2.0, 3.5])
    np.testing.assert_array_equal(after["maybe_bias"](x, None, False), x * 2.0)


def test_the_test_is_evaluated_only_where_the_loop_runs(rewritten):
    """With no iteration the loop never evaluates ``config.double``; neither does the rewrite."""
    result, _ = rewritten
    after = _module(result.code)
    out = after["attribute_test"](np.zeros(0), None)
    assert out.shape == (0,)


LEFT = textwrap.dedent("""\
    import numpy as np


    def called_test(x, c):
        out = np.zeros(len(x))
        for i in range(len(x)):
            if abs(c) > 1:
                out[i] = x[i] * 2.0
            else:
                out[i] = x[i]
        return out


    def under_a_mask(x, c):
        out = np.zeros(len(x))
        for i in range(len(x)):
            if x[i] > 0:
                if c > 1:
                    out[i] = x[i] * 2.0
        return out


    def two_tests(x, c, d):
        out = np.zeros(len(x))
        for i in range(len(x)):
            if c > 1:
                out[i] = x[i] * 2.0
            if d > 1:
                out[i] = out[i] + 1.0
        return out
    """)


@pytest.mark.parametrize("name, why", [
    ("called_test", "an `if` whose test does not depend on the loop"),
    ("under_a_mask", "an `if` whose test does not depend on the loop"),
    ("two_tests", "a second `if` whose test does not depend on the loop"),
])
def test_what_is_not_unswitched_stays_a_loop_and_says_why(name, why):
    result = transpile_source(LEFT, "m.py", shapes={"x": 1})
    plan = next(p for p in result.plans if p.function == name)
    assert not plan.rewritten
    assert any(why in r.message for r in plan.remarks), [r.message for r in plan.remarks]
