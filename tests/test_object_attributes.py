"""Loops over a list of objects that read only their attributes (ml-from-scratch's AdaBoost:
``for st in learners: ... st.alpha * p``): each attribute is gathered into a list before the
batched code (``st_alpha = [st.alpha for st in learners]``) and batched as an array, where
the checks in front hold: Python floats or exactly held ints (no bools), arrays of float64
or int values, at least one object, and every result of the loop an array. Each rewrite is
checked to happen, then against the loop; inputs the checks reject run the loop."""

from __future__ import annotations

import textwrap
import types

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def adaboost_votes(X, learners):
        votes = np.zeros((np.shape(X)[0], 1))
        for st in learners:
            p = np.ones(np.shape(votes))
            neg = st.polarity * X[:, st.feature_index] < st.polarity * st.threshold
            p[neg] = -1
            votes += st.alpha * p
        return np.sign(votes).flatten()


    def scaled_rows(X, layers):
        out = np.zeros((len(layers), X.shape[1]))
        for k, layer in enumerate(layers):
            out[k] = layer.scale * X[layer.row] + layer.shift
        return out


    def python_sum(learners):
        total = 0.0
        for st in learners:
            total += st.alpha * 2.0
        return total


    def item_passed_on(X, learners):
        out = np.zeros(len(learners))
        for k, st in enumerate(learners):
            out[k] = describe(st) * X[0, 0]
        return out


    def describe(st):
        return st.alpha
    """)


@pytest.fixture(scope="module")
def result():
    return transpile_source(SOURCE, "m.py")


def _stumps(rng, k, d, polarity=int, alpha=float):
    return [types.SimpleNamespace(polarity=polarity(1 if j % 2 else -1), feature_index=int(rng.integers(0, d)),
                                  threshold=float(rng.standard_normal()), alpha=alpha(rng.uniform(0.1, 1.0)))
            for j in range(k)]


@pytest.mark.parametrize("name", ["adaboost_votes", "scaled_rows"])
def test_attributes_of_the_objects_are_gathered_and_batched(result, name):
    plan = plan_of(result, name)
    assert plan.rewritten, [r.message for r in plan.remarks]
    code = result.code[result.code.index(f"def {name}"):]
    assert "_alpha = [st.alpha for st in learners]" in code or "layer_scale = [layer.scale for layer in layers]" in code


@pytest.mark.parametrize("name", ["python_sum", "item_passed_on"])
def test_a_python_number_out_or_the_object_itself_keeps_the_loop(result, name):
    assert not plan_of(result, name).rewritten


def test_the_rewrites_compute_what_the_loops_compute(result):
    before, after = run_module(SOURCE), run_module(result.code)
    rng = np.random.default_rng(5)
    for n, d, k in ((6, 3, 0), (6, 3, 1), (9, 4, 5)):
        X = rng.standard_normal((n, d))
        for polarity, alpha in ((int, float), (float, float), (bool, float), (int, int)):
            learners = _stumps(rng, k, d, polarity, alpha)
            want, got = before["adaboost_votes"](X, learners), after["adaboost_votes"](X, learners)
            assert want.dtype == got.dtype and np.array_equal(want, got), (n, k, polarity)
        for dtype in (np.float64, np.float32, np.int64):
            Xd = (X * 10).astype(dtype)
            layers = [types.SimpleNamespace(scale=float(rng.standard_normal()), row=int(rng.integers(-n, n)),
                                            shift=int(rng.integers(-3, 3))) for _ in range(k)]
            want, got = before["scaled_rows"](Xd, layers), after["scaled_rows"](Xd, layers)
            assert want.dtype == got.dtype and np.array_equal(want, got), (n, k, dtype)
        learners = _stumps(rng, k, d)
        assert type(before["python_sum"](learners)) is type(after["python_sum"](learners))


def test_the_checks_run_the_batched_code_for_numbers_and_the_loop_for_bools(result):
    from pforge.runtime.targets import instrument_rank_checks

    after = run_module(instrument_rank_checks(result.code))
    rng = np.random.default_rng(6)
    X = rng.standard_normal((7, 3))
    held = after["_PFORGE_CHECKS_HELD"]
    after["adaboost_votes"](X, _stumps(rng, 4, 3))
    after["adaboost_votes"](X, _stumps(rng, 4, 3, polarity=bool))
    after["adaboost_votes"](X.astype(np.float32), _stumps(rng, 4, 3))
    after["adaboost_votes"](X, [])
    assert held == [True, False, False, False]


_NUMBERS = {
    "float": lambda r: float(r) * 3.0,
    "int": lambda r: int(r * 7),
    "bool": lambda r: r > 0.5,
    "float32": lambda r: np.float32(r),
    "int64": lambda r: np.int64(int(r * 5)),
    "huge": lambda r: 2 ** 60 + int(r * 3),
}


def test_attribute_kinds_drawn_at_random_compute_as_the_loop(result):
    """Hypothesis draws the kinds of every attribute value (Python floats, ints, bools, NumPy
    scalars, ints past float64's exact range) and the array's dtype: the batched code runs
    only where its checks hold, and every run returns what the loop returns."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    before, after = run_module(SOURCE), run_module(result.code)

    @hypothesis.settings(max_examples=60, deadline=None, derandomize=True)
    @hypothesis.given(kinds=st.lists(st.sampled_from(sorted(_NUMBERS)), min_size=0, max_size=5),
                      dtype=st.sampled_from(["float64", "float32", "int64", "uint8"]),
                      seed=st.integers(0, 2 ** 16))
    def check(kinds, dtype, seed):
        rng = np.random.default_rng(seed)
        X = (rng.standard_normal((5, 3)) * 4).astype(dtype)
        layers = [types.SimpleNamespace(scale=_NUMBERS[kind](rng.random()), row=int(rng.integers(-5, 5)),
                                        shift=_NUMBERS[kinds[0]](rng.random())) for kind in kinds]
        try:
            want = before["scaled_rows"](X, layers)
        except Exception as exc:  # noqa: BLE001 - the loop raises: so must the rewrite
            with pytest.raises(type(exc)):
                after["scaled_rows"](X, layers)
            return
        got = after["scaled_rows"](X, layers)
        assert want.dtype == got.dtype and np.array_equal(want, got, equal_nan=True), (kinds, dtype)

    check()
