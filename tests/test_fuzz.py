"""The differential fuzzer: a fixed budget of generated programs, and one regression case per bug it found.

Each regression case is the reduced program the fuzzer printed (``python -m tests.fuzz``),
with the configuration it failed under: it asserts that the loop is rewritten (or refused,
for a wrong verdict) *before* comparing numbers, so a transpiler that stops rewriting fails
here instead of passing by comparing the loop with itself.
"""

from __future__ import annotations

import collections
import os

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.fuzz.__main__ import run
from tests.fuzz.generate import EITHER, REFUSE, VECTORIZE, Fragment, Program, generate
from tests.fuzz.oracle import FAILURES, GUARDED_OUT, KEPT, REWRITTEN, WRONG_RESULT, WRONG_VERDICT, compare, judge

#: programs every CI run judges (``PFORGE_FUZZ_COUNT`` raises it locally)
BUDGET = int(os.environ.get("PFORGE_FUZZ_COUNT", "300"))


def test_generation_is_reproducible():
    assert generate(12345).source() == generate(12345).source()
    assert generate(1).source() != generate(2).source()


def test_generator_covers_every_verdict_and_library():
    programs = [generate(seed) for seed in range(400)]
    assert {p.expect for p in programs} == {VECTORIZE, EITHER, REFUSE}
    assert {p.library for p in programs} == {"numpy", "tensorflow"}
    kinds = {k for p in programs for k in p.kinds}
    for needed in ("if/elif/else on what it writes", "reduction s += a - b", "scatter-add h = h + v",
                   "statement order", "continue guard", "nest, carried inner", "aliased list rows",
                   "print", "random draw", "global write", "attribute write", "break"):
        assert needed in kinds, needed


def test_oracle_sees_a_wrong_rewrite():
    """The comparison fails when the rewrite differs: the fuzzer cannot pass vacuously."""
    want = {"return": np.array([1.0, 2.0]), "raised": None, "stdout": "", "globals": {}, "box": None,
            "arguments": {}}
    assert compare(want, dict(want, **{"return": np.array([1.0, -2.0])}), "numpy") is not None
    assert compare(want, dict(want, **{"return": np.array([1.0])}), "numpy") is not None
    assert compare(want, dict(want, raised="ValueError"), "numpy") is not None
    assert compare(want, dict(want, stdout="x\n"), "numpy") is not None
    assert compare(want, dict(want), "numpy") is None
    complex_ = dict(want, **{"return": np.array([1.0 + 1j, 2.0])})  # (an imaginary part that differs)
    assert compare(complex_, dict(complex_, **{"return": np.array([1.0 + 2j, 2.0])}), "numpy") is not None
    assert compare(complex_, dict(complex_), "numpy") is None


def test_oracle_judges_a_planted_dependence_called_independent_as_a_wrong_verdict(monkeypatch):
    frag = Fragment("previous output", REFUSE, ("p[i] = np.tanh(p[i - 1]) + x[i]",), ("p = np.ones(len(x))",),
                    outputs=("p",), back=1)
    program = Program(0, "numpy", (frag,))
    assert judge(program, "direct", True).outcome not in FAILURES
    # the same program, claimed independent by a broken analysis, is caught
    from pforge.transpile import analysis

    monkeypatch.setattr(analysis.LoopInfo, "vectorizable", property(lambda self: True))
    assert judge(program, "direct", True).outcome == WRONG_VERDICT


@pytest.mark.tf
def test_fuzz_budget(tf):
    """``BUDGET`` generated programs (both libraries, both backends, ranks known and unknown):
    no wrong result, no wrong verdict, no crash; and rewrites do happen."""
    records = run(range(BUDGET))
    failures = [r for r in records if r["outcome"] in FAILURES]
    assert not failures, "\n\n".join(f"seed {r['seed']} {r['library']} {r['backend']} ranks={r['ranks']}: "
                                     f"{r['outcome']}: {r['reduced_detail']}\n{r['reduced']}" for r in failures)
    outcomes = collections.Counter((r["library"], r["outcome"]) for r in records)
    assert outcomes["numpy", REWRITTEN] >= BUDGET // 20, outcomes
    assert outcomes["tensorflow", REWRITTEN] >= BUDGET // 20, outcomes


# -- regression cases: each bug the fuzzer found, reduced ---------------------------------------------

def _run(source, args, **options):
    from pforge.runtime.loader import load_module

    result = transpile_source(source, "m.py", **options)
    before = load_module("m.py", source=source).f
    after = load_module("m.py", source=result.code).f
    return result, before, after


#: name -> (source, shapes, arguments); each is rewritten by the direct backend and must equal the loop
NUMPY_REWRITES = {
    # an if/else that tests the array it writes: the else branch re-tested the new values
    "if-else-tests-what-it-writes": (
        "def f(d):\n    for i in range(len(d)):\n        if d[i] > 0:\n            d[i] = -1.0\n"
        "        else:\n            d[i] = 1.0\n    return d\n",
        {"d": 1}, {"d": np.array([2.0, -3.0, 0.5, -0.1])}),
    # an elif chain whose later tests read what an earlier branch wrote (fuzz seed 256)
    "elif-chain-in-place": (
        "def f(x, d, c):\n    for i in range(len(x)):\n        if d[i] > 0:\n            d[i] = x[i] + c\n"
        "        elif d[i] > -0.5:\n            d[i] = -d[i]\n        else:\n            d[i] = d[i] * 2.0 + (c - x[i])\n"
        "    return d\n",
        {"x": 1, "d": 1, "c": 0}, {"x": np.array([-3.0, 0.2, 1.0, -2.0]), "d": np.array([0.3, -0.2, -1.0, 0.9]),
                                   "c": -0.4}),
    # a scatter-add spelled out: the buffered `h[idx] = h[idx] + v` kept one update per bin (seed 371)
    "scatter-add-spelled-out": (
        "def f(bins, idx, vals):\n    for k in range(len(idx)):\n        bins[idx[k]] = bins[idx[k]] + vals[k]\n"
        "    return bins\n",
        {"bins": 1, "idx": 1, "vals": 1}, {"bins": np.zeros(3), "idx": np.array([1, 1, 2, 1]),
                                           "vals": np.array([1.0, 2.0, 3.0, 4.0])}),
    "scatter-product-spelled-out": (
        "def f(bins, idx, vals):\n    for k in range(len(idx)):\n        bins[idx[k]] = vals[k] * bins[idx[k]]\n"
        "    return bins\n",
        {"bins": 1, "idx": 1, "vals": 1}, {"bins": np.ones(3), "idx": np.array([0, 0, 2]),
                                           "vals": np.array([2.0, 3.0, 5.0])}),
    # a scatter-subtract: the term is negated (emitted as np.add.at(h, v, x) it adds instead)
    "scatter-subtract": (
        "def f(h, v, x):\n    for i in range(len(v)):\n        h[v[i]] -= x[i]\n    return h\n",
        {"h": 1, "v": 1, "x": 1}, {"h": np.zeros(3), "v": np.array([2, 0, 2, -1]), "x": np.array([1.0, 2.0, 3.0, 4.0])}),
    # `s -= t` and `s = s - t` sum the negated terms (summed as written, the sign is wrong)
    "subtract-reduction": (
        "def f(x, y):\n    s = 1.0\n    t = np.zeros(2)\n    for i in range(len(x)):\n        s -= x[i] * 2.0\n"
        "        t = t - y[i]\n    return s, t\n",
        {"x": 1, "y": 2}, {"x": np.array([1.0, 2.0, 4.0]), "y": np.arange(6.0).reshape(3, 2)}),
    "add-and-subtract-reduction": (
        "def f(x, y):\n    s = 0.0\n    for i in range(len(x)):\n        s += x[i]\n        s -= 3.0 * y[i]\n"
        "    return s\n",
        {"x": 1, "y": 1}, {"x": np.array([1.0, 2.0, 4.0]), "y": np.array([0.5, -1.0, 2.0])}),
    # a reduction over every axis of a matrix is a scalar per iteration (rank - 2, not rank - 1)
    "rank-of-a-full-reduction": (
        "def f(x, m):\n    out = np.zeros_like(x)\n    for i in range(x.shape[0]):\n"
        "        out[i] = x[i] * np.sum(m[i])\n    return out\n",
        {"x": 2, "m": 3}, {"x": np.arange(6.0).reshape(3, 2), "m": np.arange(12.0).reshape(3, 2, 2)}),
    # the read of a later element runs before the write: legal in whole-array order
    "read-ahead-before-write": (
        "def f(a, b):\n    for i in range(len(a) - 1):\n        b[i] = a[i + 1] + 1.0\n        a[i] = b[i] * 2.0\n"
        "    return a, b\n",
        {"a": 1, "b": 1}, {"a": np.arange(5.0), "b": np.zeros(5)}),
    # counting down, `p[i - 1]` is written by a later iteration: an anti-dependence (seed 1277)
    "descending-reads-next": (
        "def f(x, p):\n    for i in range(len(x) - 1, 0, -1):\n        p[i] = np.tanh(p[i - 1]) + x[i]\n"
        "    return p\n",
        {"x": 1, "p": 1}, {"x": np.arange(4.0), "p": np.ones(4)}),
}


@pytest.mark.parametrize("name", sorted(NUMPY_REWRITES))
def test_numpy_regression(name):
    body, shapes, args = NUMPY_REWRITES[name]
    source = "import numpy as np\n\n" + body
    result, before, after = _run(source, args, shapes=shapes)
    assert result.changed and result.plans[0].backend == "direct", [r.message for r in result.plans[0].remarks]
    want = before(**{k: np.copy(v) for k, v in args.items()})
    got = after(**{k: np.copy(v) for k, v in args.items()})
    for a, b in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), err_msg=result.code)


#: loops whose later statement reads an element that a later iteration's earlier statement
#: overwrites: node splitting (a copy made before the loop) keeps the loop's order of reads
NODE_SPLITTING = {
    "write-then-read-ahead": "def f(a, b):\n    for i in range(len(a) - 1):\n        a[i] = b[i] * 2\n"
                             "        b[i] = a[i + 1] + 1\n    return a, b\n",
    "write-then-read-ahead-in-branch": "def f(a, b):\n    for i in range(len(a) - 1):\n        a[i] = b[i] * 2\n"
                                       "        if b[i] > 0:\n            b[i] = a[i + 1]\n    return a, b\n",
    "counting-down-reads-behind": "def f(a, b):\n    for i in range(len(a) - 1, 0, -1):\n        a[i] = b[i] - 1\n"
                                  "        b[i] = a[i - 1] * 3\n    return a, b\n",
}


@pytest.mark.parametrize("name", sorted(NODE_SPLITTING))
def test_statement_order_is_kept_by_node_splitting(name):
    source = "import numpy as np\n\n" + NODE_SPLITTING[name]
    args = {"a": np.array([1.0, -2.0, 3.0, 0.5, -1.5]), "b": np.array([0.5, 2.0, -1.0, 4.0, -3.0])}
    result, before, after = _run(source, args, shapes={"a": 1, "b": 1}, vector_plans=True)
    assert result.changed and result.plans[0].backend == "direct", [r.message for r in result.plans[0].remarks]
    assert "a_before = np.copy(a)" in result.code
    assert any(line.startswith("plan for") for line in result.plans[0].vector_plan)
    assert any("snapshot" in line for line in result.plans[0].vector_plan)
    for args in (args, {"a": np.zeros(0), "b": np.zeros(0)}, {"a": np.array([2.0]), "b": np.array([1.0])}):
        want = before(**{k: np.copy(v) for k, v in args.items()})
        got = after(**{k: np.copy(v) for k, v in args.items()})
        for x, y in zip(want, got):
            np.testing.assert_array_equal(y, x, err_msg=result.code)


#: the same order through a second name of the array: still refused (with a second write, the
#: loop is distributed: tests/test_distribution.py)
STATEMENT_ORDER = {
    "read-through-an-alias": "def f(a, b):\n    c = a\n    for i in range(len(a) - 1):\n        a[i] = b[i] * 2\n"
                             "        b[i] = c[i + 1] + 1\n    return a, b\n",
}


@pytest.mark.parametrize("name", sorted(STATEMENT_ORDER))
def test_statement_order_is_a_dependence(name):
    result = transpile_source("import numpy as np\n\n" + STATEMENT_ORDER[name], "m.py", shapes={"a": 1, "b": 1})
    assert not result.changed
    plan = result.plans[0]
    assert not plan.vectorizable
    assert any(r.code == "PF202" and "statement order" in r.message for r in plan.remarks), plan.remarks


#: TensorFlow loops through pfor: name -> (source, arguments as NumPy arrays)
TF_REWRITES = {
    # `s += a - b` was summed as `-(a - b)` by pfor (fuzz seed 30)
    "sum-of-a-difference": ("def f(x, y):\n    s = 0.0\n    for i in range(x.shape[0]):\n"
                            "        s += tf.abs(x[i]) - y[i]\n    return s\n",
                            {"x": np.array([1.0, 2.0, 3.0]), "y": np.array([0.5, 0.25, 4.0])}),
    "minus-a-difference": ("def f(x, y):\n    s = 0.0\n    for i in range(x.shape[0]):\n"
                           "        s -= tf.abs(x[i]) - y[i]\n    return s\n",
                           {"x": np.array([1.0, 2.0, 3.0]), "y": np.array([0.5, 0.25, 4.0])}),
    # `tf.range(1, 0)` raises where Python's `range(1, 0)` is empty (fuzz seed 0)
    "zero-trip-shifted-range": ("def f(x):\n    out = []\n    for i in range(1, x.shape[0]):\n"
                                "        out.append(tf.abs(x[i]) * 2.0)\n    return tf.stack(out)\n",
                                {"x": np.zeros(0)}),
    # a per-iteration index inside tf.vectorized_map fell back to a while_loop that cannot stack
    # zero results (fuzz seeds 33 and 151)
    "zero-trip-gather": ("def f(x, idx):\n    out = []\n    for i in range(idx.shape[0]):\n"
                         "        out.append(tf.abs(x[idx[i]]) * 2.0)\n    return tf.stack(out)\n",
                         {"x": np.zeros(0), "idx": np.zeros(0, dtype=np.int32)}),
    "negative-data-index": ("def f(x, idx):\n    out = []\n    for i in range(idx.shape[0]):\n"
                            "        out.append(tf.abs(x[idx[i]]) * 2.0)\n    return tf.stack(out)\n",
                            {"x": np.array([1.0, -2.0, 3.0]), "idx": np.array([-1, 0, -3], dtype=np.int32)}),
    # a private bound on one path only was blended with a name never bound (fuzz seed 130)
    "private-on-one-path": ("def f(x):\n    out = []\n    for i in range(x.shape[0]):\n"
                            "        if x[i] > 0:\n            p = tf.abs(x[i]) + 1.0\n            out.append(p * 2.0)\n"
                            "        else:\n            out.append(0.0)\n    return tf.stack(out)\n",
                            {"x": np.array([1.0, -2.0, 3.0])}),
    # a temporary of each inner iteration was made a tf.while_loop state with no value before it
    "inner-loop-temporary": ("def f(x):\n    out = []\n    for i in range(x.shape[0]):\n        h = 0.0\n"
                             "        for j in range(x.shape[1]):\n            t = tf.abs(x[i][j]) * 2.0\n"
                             "            h = h * 0.5 + t\n        out.append(h)\n    return tf.stack(out)\n",
                             {"x": np.arange(12.0).reshape(3, 4) - 5.0}),
    # an inner index into a row of an outer iteration was sliced, not gathered: pfor's fallback
    # cannot stack zero inner iterations (fuzz seed 135, a masked inner reduction)
    "empty-inner-range-masked-sum": ("def f(x, m):\n    out = []\n    for i in range(x.shape[0]):\n"
                                     "        a = 0.0\n        for j in range(m.shape[1]):\n"
                                     "            if m[i, j] > 0.0:\n                a += m[i, j] * x[i]\n"
                                     "        out.append(a)\n    return tf.stack(out)\n",
                                     {"x": np.array([1.0, 2.0]), "m": np.zeros((2, 0))}),
    # the same, after an inner loop kept as a loop whose counter has the same name: that `j`
    # was taken for an outer value and the index was sliced again (fuzz seeds 101214, 104766)
    "empty-inner-range-after-a-carried-loop": ("def f(x, m):\n    o2, o3 = [], []\n    for i in range(x.shape[0]):\n"
                                               "        a2 = 0.0\n        for j in range(m.shape[1]):\n"
                                               "            a2 = a2 * 0.5 + m[i][j]\n        o2.append(a2)\n"
                                               "        a3 = 0.0\n        for j in range(m.shape[1]):\n"
                                               "            if m[i][j] > 0.0:\n                a3 += m[i][j] * x[i]\n"
                                               "        o3.append(a3)\n    return tf.stack(o2) + tf.stack(o3)\n",
                                               {"x": np.array([1.0, 2.0]), "m": np.zeros((2, 0))}),
    # Grappler turns min(tanh(t)) into tanh(min(t)): over zero rows, 1.0 instead of 1e9 (seed 20101)
    "min-of-monotonic-over-nothing": ("def f(x):\n    s = 1e9\n    for i in range(x.shape[0]):\n"
                                      "        s = tf.minimum(s, tf.tanh(x[i]))\n    return s\n",
                                      {"x": np.zeros(0)}),
}


@pytest.mark.tf
@pytest.mark.parametrize("backend", ["pfor", "direct"])
@pytest.mark.parametrize("name", sorted(TF_REWRITES))
def test_tensorflow_regression(name, backend, tf):
    body, args = TF_REWRITES[name]
    source = "import tensorflow as tf\n\n" + body
    shapes = {k: v.ndim for k, v in args.items()} if backend == "direct" else None
    result, before, after = _run(source, args, backend=backend, shapes=shapes)
    assert result.changed, [r.message for r in result.plans[0].remarks]
    if backend == "pfor":
        assert result.plans[0].backend == "pfor", [r.message for r in result.plans[0].remarks]
    tensors = {k: tf.constant(v, dtype=tf.int32 if v.dtype.kind == "i" else tf.float32) for k, v in args.items()}
    want, got = before(**tensors), after(**tensors)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, err_msg=result.code)


#: TensorFlow loops given Python lists where ranks are declared (``--shapes``): name -> (source,
#: ranks, arguments); the batched code computed with the lists (`y + 1.5` raised, `x + y` joins)
TF_LIST_REWRITES = {
    # fuzz seed 8516020: `c * (y[:len(x)] + 1.5)` of a list `y` raised
    "list-plus-a-number": ("def f(x, y, c):\n    o2 = []\n    for i in range(len(x)):\n"
                           "        o2.append((c * (y[i] + 1.5)))\n    return tf.stack(o2)\n",
                           {"x": 1, "y": 1, "c": 0}, ([1.0, 2.0], [0.5, -1.0, 3.0], 2.0)),
    # fuzz seed 8516377: a private `t1 = x[i]`, batched as `x * 3.0 + x`
    "list-through-a-private": ("def f(x):\n    o1 = []\n    for i in range(len(x)):\n        t1 = x[i]\n"
                               "        o1.append(t1 * 3.0 + t1)\n    return tf.stack(o1)\n", {"x": 1}, ([1.0, -2.0],)),
    # fuzz seed 8516427: `-x` of a list raised
    "negated-list": ("def f(x):\n    o3 = []\n    for i in range(len(x)):\n        o3.insert(0, -x[i])\n"
                     "    return tf.stack(o3)\n", {"x": 1}, ([1.0, -2.0, 4.0],)),
    # fuzz seed 8527305: a list sliced with a tensor bound, `y[:tf.maximum(len(x) - 2, 0)]`, raised
    "list-sliced-with-a-tensor": ("def f(x, y):\n    s1 = 1.0\n    for i in range(len(x) - 2):\n"
                                  "        s1 *= (1.0 + 0.1 * tf.tanh(y[i]))\n    return s1\n",
                                  {"x": 1, "y": 1}, ([1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 3.0, 2.0])),
    # two lists added join into one (helper-73, F2)
    "sum-of-two-lists": ("def f(x, y):\n    res = []\n    for i in range(len(x)):\n        res.append(x[i] + y[i])\n"
                         "    return tf.stack(res)\n", {"x": 1, "y": 1}, ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(TF_LIST_REWRITES))
def test_tensorflow_list_regression(name, tf):
    body, shapes, args = TF_LIST_REWRITES[name]
    source = "import tensorflow as tf\n\n" + body
    result, before, after = _run(source, args, backend="direct", shapes=shapes)
    assert result.plans[0].backend == "direct", [r.message for r in result.plans[0].remarks]
    np.testing.assert_allclose(np.asarray(after(*args)), np.asarray(before(*args)), rtol=1e-6, err_msg=result.code)


def test_kept_loops_are_not_counted_as_rewrites():
    """A NumPy loop with an op that has no batching rule is kept, and the oracle says so."""
    frag = Fragment("map", VECTORIZE, ("o[i] = np.sum(np.gradient(m2[i])) * x[i]",),
                    ("o = np.zeros(len(x))",), outputs=("o",), reads=frozenset({"x", "m2"}))
    assert judge(Program(0, "numpy", (frag,)), "direct", False).outcome == KEPT
    frag = Fragment("map", VECTORIZE, ("o[i] = x[i] * 2.0",), ("o = np.zeros(len(x))",), outputs=("o",))
    assert judge(Program(0, "numpy", (frag,)), "direct", True).outcome == REWRITTEN


def test_a_rewrite_whose_rank_check_fails_is_not_counted_as_tested():
    """Without declared ranks, `np.dot(c, c)` suggests `c` is a vector; the fuzzer's `c` is a
    scalar, so the check fails, the loop runs, and the oracle says the rewrite went untested."""
    frag = Fragment("map", VECTORIZE, ("o[i] = np.dot(c, c) * x[i]",), ("o = np.zeros(len(x))",),
                    outputs=("o",), reads=("x", "c"))
    judged = judge(Program(0, "numpy", (frag,)), "direct", False)
    assert "(type(c) is np.ndarray or (isinstance(c, (list, tuple)) and all((type(v) is int or isinstance(v, float) " \
        "for v in c)))) and np.ndim(c) == 1" in judged.code
    assert judged.outcome == GUARDED_OUT
    frag = Fragment("map", VECTORIZE, ("o[i] = x[i] * np.sum(m2[i])",), ("o = np.zeros(len(x))",),
                    outputs=("o",), reads=("x", "m2"))
    judged = judge(Program(0, "numpy", (frag,)), "direct", False)
    assert "all((type(v) is np.ndarray for v in m2))" in judged.code and "np.ndim(m2) == 2" in judged.code
    assert judged.outcome == REWRITTEN


def test_reducer_keeps_the_failure(monkeypatch):
    """The reducer drops fragments that do not matter to a failure and keeps the one that does."""
    from tests.fuzz import reduce as reducer
    from tests.fuzz.oracle import Outcome

    good = Fragment("map", VECTORIZE, ("o[i] = x[i]",), ("o = np.zeros(len(x))",), outputs=("o",))
    bad = Fragment("bad", VECTORIZE, ("q[i] = x[i] * 3.0",), ("q = np.zeros(len(x))",), outputs=("q",))

    def fake_judge(program, backend, ranks, target="auto"):
        failing = any(f.kind == "bad" for f in program.fragments)
        return Outcome(WRONG_RESULT if failing else REWRITTEN)

    monkeypatch.setattr(reducer, "judge", fake_judge)
    small, outcome = reducer.reduce(Program(0, "numpy", (good, bad, good)), "direct", True, Outcome(WRONG_RESULT))
    assert [f.kind for f in small.fragments] == ["bad"] and outcome.outcome == WRONG_RESULT


@pytest.mark.tf
def test_pfor_keeps_jacobian_rows_taken_over_unstacked_outputs(tf):
    """``tape.gradient(out_j, x)`` over ``tf.unstack(out)`` recorded on the tape: re-stacking the
    rows for tf.vectorized_map takes them off the tape (every gradient None), so the loop stays."""
    source = ("import tensorflow as tf\n\n"
              "def f(x, w):\n    with tf.GradientTape(persistent=True) as tape:\n        tape.watch(x)\n"
              "        outs = tf.unstack(tf.tanh(tf.linalg.matvec(w, x)))\n    rows = []\n"
              "    for out_j in outs:\n        rows.append(tape.gradient(out_j, x))\n    return tf.stack(rows)\n")
    for backend in ("pfor", "auto"):
        result = transpile_source(source, "m.py", backend=backend, shapes={"x": 1, "w": 2})
        assert not result.changed, result.code
        assert any("tape" in r.message for r in result.plans[0].remarks if r.code == "PF301")
    from pforge.runtime.loader import load_module

    x, w = tf.constant([0.5, -1.0]), tf.constant([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
    rows = load_module("m.py", source=source).f(x, w)  # the loop itself has every row
    assert rows.shape == (3, 2) and bool(tf.reduce_all(tf.math.is_finite(rows)))


@pytest.mark.tf
def test_tensorflow_loop_over_a_python_list(tf):
    """A loop the caller feeds a Python list of floats: pfor packs it, the rewrite returns the loop's numbers."""
    source = ("import tensorflow as tf\n\n"
              "def f(xs):\n    out = []\n    for i in range(len(xs)):\n        out.append(tf.tanh(xs[i]) * 2.0)\n"
              "    return tf.stack(out)\n")
    result, before, after = _run(source, {}, backend="pfor")
    assert result.plans[0].backend == "pfor"
    xs = [0.5, -1.0, 2.0]
    np.testing.assert_allclose(after(xs).numpy(), before(xs).numpy(), rtol=1e-6)


@pytest.mark.tf
def test_tensorflow_miscompile_of_max_times_factor_is_not_staged(tf):
    """TensorFlow's remapper turns ``tf.maximum(3.0 * y, y)`` into LeakyRelu(alpha=3) once staged,
    which is ``y`` for positive ``y`` (fuzz seeds 7742 and 10248): such a function is not staged,
    so the direct rewrite runs eagerly and equals the loop, and the pfor rewrite is left out."""
    body = ("def f(y):\n    out = []\n    for i in range(y.shape[0]):\n"
            "        out.append(tf.maximum(FACTOR * y[i], y[i]))\n    return tf.stack(out)\n")
    source = "import tensorflow as tf\n\n" + body.replace("FACTOR", "3.0")
    result, before, after = _run(source, {}, shapes={"y": 1})
    assert result.changed and "@tf.function" not in result.code, result.code
    y = tf.constant([1.5, -2.0])
    np.testing.assert_allclose(after(y).numpy(), before(y).numpy())
    pfor = transpile_source(source, "m.py", backend="pfor")
    assert not pfor.changed and "remapper" in pfor.plans[0].remarks[-1].message
    leaky = transpile_source("import tensorflow as tf\n\n" + body.replace("FACTOR", "0.2"), "m.py", shapes={"y": 1})
    assert "@tf.function" in leaky.code  # a factor in [0, 1] is a true LeakyRelu: staged as before
    # Grappler makes `y + y` a product by 2 first (fuzz seed 63410), and `y / 0.25` one by 4
    for spelled in ("tf.maximum(y[i], y[i] + y[i])", "tf.maximum(y[i] / 0.25, y[i])"):
        other = transpile_source(source.replace("tf.maximum(3.0 * y[i], y[i])", spelled), "m.py", shapes={"y": 1})
        assert other.changed and "@tf.function" not in other.code, other.code
