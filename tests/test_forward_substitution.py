"""Forward substitution of an element into an array recurrence (TSVC s323).

``a[i] = b[i - 1] + c[i] * d[i]; b[i] = a[i] + c[i] * e[i]`` carries ``b`` through ``a``: the
element ``a[i]`` holds what the first statement stored, so ``b[i]`` is the update chain
``b[i - 1] + c[i] * d[i] + c[i] * e[i]``, a prefix sum (``analysis/recurrences``,
``_forward_substituted``). Reading ``a[i]`` as that value is exact only where storing it into
``a`` converts nothing, so ``a`` joins the chain's run-time dtype check: an integer or
narrower ``a`` runs the loop, bit for bit. Look-alikes keep their dependence."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

S323 = """\
import numpy as np


def f(a, b, c, d, e):
    for i in range(1, len(a)):
        a[i] = b[i - 1] + c[i] * d[i]
        b[i] = a[i] + c[i] * e[i]
    return a, b
"""


def _rewritten(source: str):
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    assert "for i in" not in result.code.split("else:")[0], result.code
    return result, run_module(source)["f"], run_module(result.code)["f"]


def _call(fn, args):
    args = [a.copy() for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def test_s323_is_a_prefix_sum_whose_check_reads_the_substituted_array():
    result, loop, new = _rewritten(S323)
    (plan,) = result.plans
    assert "add scan b" in plan.pattern, plan.pattern
    assert "np.add.accumulate" in result.code
    batched = result.code.split("else:")[0]
    assert "np.result_type(a).kind in 'fc'" in batched and "for v in (b, a, c, d, e)" in batched, batched
    assert "`a`, `c`, `d`, `e` are floating" in plan.remarks[0].message, plan.remarks[0].message
    # the fallback is the loop as written
    assert "        b[i] = a[i] + c[i] * e[i]" in result.code.split("else:")[1]
    rng = np.random.default_rng(323)
    for dtype in (np.float64, np.float32, np.complex128):
        for n in (0, 1, 2, 3, 9, 200):
            args = [rng.normal(size=n).astype(dtype) for _ in range(5)]
            want, got = _call(loop, args), _call(new, args)
            for w, g in zip(want, got):
                assert g.dtype == w.dtype, (dtype, n)
                tol = 1e-4 if dtype == np.float32 else 1e-10
                np.testing.assert_allclose(g, w, rtol=tol, atol=tol * max(1.0, float(np.abs(w).max(initial=0))))


@pytest.mark.parametrize("a_dtype, rest", [
    (np.int64, np.float64),     # a[i] truncates the stored value: b reads the integer
    (np.float32, np.float64),   # a[i] rounds it to float32
    (np.float64, np.float32),   # the terms compute in float32, a keeps float64: no rounding, but one dtype is asked
    (np.float64, np.int64),     # integer terms: the chain's own check refuses them
])
def test_an_a_of_another_dtype_runs_the_loop(a_dtype, rest):
    """The loop stores ``b[i - 1] + c[i] * d[i]`` into ``a`` and reads it back converted; the
    substituted chain reads the unconverted value. Where the dtypes differ the check fails and
    the loop runs: the same values bit for bit."""
    _, loop, new = _rewritten(S323)
    rng = np.random.default_rng(7)
    for n in (2, 5, 30):
        args = [(rng.normal(size=n) * 3).astype(a_dtype if k == 0 else rest) for k in range(5)]
        want, got = _call(loop, args), _call(new, args)
        for w, g in zip(want, got):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_a_that_shares_memory_with_a_term_runs_the_loop():
    """``f(a, b, a, d, e)``: the store into ``a[i]`` changes ``c[i]``, which the second
    statement reads after it; the substituted value would read the old one."""
    _, loop, new = _rewritten(S323)
    rng = np.random.default_rng(11)
    a, b, d, e = (rng.normal(size=12) for _ in range(4))
    a1, a2, b1, b2 = a.copy(), a.copy(), b.copy(), b.copy()
    want, got = loop(a1, b1, a1, d, e), new(a2, b2, a2, d, e)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


SUBSTITUTED = [
    # (body, why it is a chain after substitution)
    ("a[i] = b[i - 1] * c[i]\n        b[i] = a[i] * d[i]", "a product chain"),
    ("a[i] = b[i - 1] + c[i]\n        b[i] = a[i] + d[i] + 1.0", "three terms"),
    ("a[i] = b[i - 1] - c[i]\n        b[i] = a[i] + d[i]", "a minus first"),
    ("a[i] = c[i] * d[i]\n        b[i] = b[i - 1] + a[i] + e[i]", "the element as a term of the chain"),
    ("a[i] = b[i - 1] + c[i]\n        d[i] = c[i] * 2.0\n        b[i] = a[i] + d[i] + e[i]",
     "a statement between that writes nothing the value reads"),
    ("a[i] = b[i - 1] + c[i]\n        c[i] = 0.0\n        b[i] = a[i] + d[i] + e[i]",
     "a statement between that writes what the value reads, run after it by loop distribution"),
    ("t = d[i] * 2.0\n        a[i] = b[i - 1] + c[i]\n        b[i] = a[i] + d[i] + e[i]",
     "a statement binding a name first"),
    ("d[i] *= 2.0\n        a[i] = b[i - 1] + c[i]\n        b[i] = a[i] + d[i] + e[i]",
     "an augmented statement first (run before the scan by loop distribution: b90)"),
    ("a[i] = c[i] * 9.0\n        a[i] = b[i - 1] + c[i]\n        b[i] = a[i] + d[i] + e[i]",
     "a second store of the element, whose value is the one read"),
    ("a[i] = b[i - 1] + c[i]\n        b[i] = a[i] + d[i] + e[i]\n        a[i] = a[i] * 2.0",
     "a store of the element after the write"),
]


@pytest.mark.parametrize("body, why", SUBSTITUTED, ids=[w for _, w in SUBSTITUTED])
def test_substituted_chains_equal_the_loop(body, why):
    source = S323.replace("a[i] = b[i - 1] + c[i] * d[i]\n        b[i] = a[i] + c[i] * e[i]", body)
    result = transpile_source(source, "m.py")
    assert any(p.rewritten and "scan b" in p.pattern for p in result.plans), (why, result.code)
    loop, new = run_module(source)["f"], run_module(result.code)["f"]
    rng = np.random.default_rng(len(body))
    for n in (0, 1, 2, 7, 40):
        args = [rng.uniform(0.5, 1.5, size=n) for _ in range(5)]
        for w, g in zip(_call(loop, args), _call(new, args)):
            np.testing.assert_allclose(g, w, rtol=1e-10)


LEFT = [
    ("a[i] = b[i - 1] + c[i]\n        b[i] = a[i] * d[i]", "mixed operators: no chain, no form"),
    ("a[i] = b[i - 1] + c[i]\n        b[i] = a[i]", "one term: a scan with no dtype check for a"),
    ("a[i] = b[i - 1] + c[i]\n        c[i] = 0.0\n        b[i] = a[i] + c[i] + d[i]",
     "a statement between writes an array the value reads"),
    ("a[i] = b[i - 1] + a[i]\n        b[i] = a[i] + d[i]", "the value reads the element it replaces"),
    ("a[i] = b[i - 1] + c[i]\n        b[i] = a[i - 1] + d[i]", "another element of a"),
    ("a[i] = b[i - 1] + c[i]\n        a[0] = 1.0\n        b[i] = a[i] + d[i]", "a second store into a"),
    ("a[i] = b[i - 1] + c[i]\n        t = d[i] * 2.0\n        b[i] = a[i] + t + e[i]",
     "a name the body binds among the terms"),
    ("a[i] = b[i - 1] + c[i]\n        if d[i] > 1.5:\n            a[i] = 0.0\n        b[i] = a[i] + d[i] + e[i]",
     "a store of the element under a test between"),
    ("a[i] = b[i - 1] + c[i]\n        a[i] += 1.0\n        b[i] = a[i] + d[i] + e[i]",
     "an augmented store of the element between"),
    ("a[i + 1] = b[i - 1] + c[i]\n        b[i] = a[i + 1] + a[i] + d[i]", "a's element of the previous iteration"),
]


@pytest.mark.parametrize("body, why", LEFT, ids=[w for _, w in LEFT])
def test_look_alikes_keep_their_dependence(body, why):
    """No substitution where the element read is not what the earlier statement stored, or
    where the result is not an update chain (only a chain's check covers ``a``'s dtype); the
    loop (or a piece of it, where distribution splits it) is not batched as a scan of ``b``."""
    source = S323.replace("a[i] = b[i - 1] + c[i] * d[i]\n        b[i] = a[i] + c[i] * e[i]", body)
    result = transpile_source(source, "m.py")
    assert result.plans and not any(p.rewritten and "scan b" in p.pattern for p in result.plans), (why, result.code)
    assert "b_prev" not in result.code
    loop, new = run_module(source)["f"], run_module(result.code)["f"]
    args = [np.linspace(0.5, 1.5, 9) + k for k in range(5)]
    want, got = _outcome(loop, args), _outcome(new, args)
    if isinstance(want, type):
        assert got is want
        return
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def _outcome(fn, args):
    try:
        return _call(fn, args)
    except Exception as exc:  # the loop's own error must be the rewrite's
        return type(exc)


@pytest.mark.parametrize("body", [
    "a[i] = b[i - 1] + c[i]\n        b[i] = b[i - 1] + a[i]",
    "a[i] = b[i - 1] * 2.0\n        b[i] = b[i - 1] * a[i] * c[i]",
    "d[i] = b[i - 1] - 1.0\n        a[i] = d[i] + c[i]\n        b[i] = np.maximum(b[i - 1], a[i])",
], ids=["sum", "product chain", "through another array"])
def test_a_recurrence_that_feeds_its_own_terms_keeps_its_text_and_names_the_read(body):
    """b89: the term reads what a statement computed from ``b[i - 1]`` in the same iteration, so
    no scan computes ``b``. Scalar replacement is not applied (the carried-element probe asks what
    the scan analysis asks): the loop keeps its text and the remark names ``b[i - 1]``, not a
    name the code does not have."""
    source = S323.replace("a[i] = b[i - 1] + c[i] * d[i]\n        b[i] = a[i] + c[i] * e[i]", body)
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    said = " ".join(r.message for r in plan.remarks)
    assert not plan.rewritten and result.code == source, result.code
    assert "b_prev" not in said and "`b[i - 1]`" in said, said


def test_the_substituted_value_is_a_new_tree():
    """``_forward_substituted`` returns a copy: the loop's own tree keeps its text (a refused
    loop is printed from it, and the probe must not change what later analyses read)."""
    import gast

    from pforge.transpile.analysis.recurrences import _forward_substituted

    loop = gast.parse(S323).body[1].body[0]
    write = loop.body[1]
    before = gast.dump(write.value)
    reads = [n for n in gast.walk(loop.body[0]) if isinstance(n, gast.Subscript) and gast.unparse(n).strip() == "b[i - 1]"]
    value, copies, substituted = _forward_substituted(loop.body, 1, write.value, reads, set(), {})
    assert gast.dump(write.value) == before and substituted == ["a"]
    assert gast.unparse(value).strip() == "b[i - 1] + c[i] * d[i] + c[i] * e[i]" and len(copies) == 1


@pytest.mark.parametrize("body, pattern", [
    ("d[i] *= 2.0\n        b[i] = b[i - 1] + d[i]", "map over d, add scan b, indexed output b, indexed output d"),
    ("a[i] = s\n        s = s + d[i]\n        d[i] = c[i]", "map over d, c, add scan s, indexed output a, indexed output d"),
    ("c[i] = b[i - 1]\n        b[i] = b[i - 1] + b[i]", "map over b, add scan b, indexed output b, indexed output c"),
], ids=["no exclusive read", "the same element stored after the update", "in place, read before its update"])
def test_scans_whose_terms_read_a_stored_array_first_stay_one_loop(body, pattern):
    """b90's rule refuses only an exclusive scan whose term reads what the body stored before it
    reads it: a scan with no read before its update, or whose term reads the element the body
    stores after the update (in the same iteration, read first), is one batched loop."""
    source = ("import numpy as np\n\n\ndef f(a, b, c, d):\n    s = 0.0\n    for i in range(1, len(a)):\n"
              f"        {body}\n    return a, b, c, d, s\n")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten and plan.pattern == pattern, (plan.pattern, result.code)
    args = [np.linspace(0.5, 2.5, 9) + k for k in range(4)]
    for w, g in zip(_call(run_module(source)["f"], args), _call(run_module(result.code)["f"], args)):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_a_recurrence_fed_through_an_alias_keeps_its_text_and_names_the_read():
    """``a2 = a`` before the loop: the term reads through ``a2`` what the statement before the
    update stored into ``a``; the carried-element probe follows the alias as the scan analysis
    does, so the loop keeps its text and the remark names ``b[i - 1]``."""
    source = ("import numpy as np\n\n\ndef f(a, b, c):\n    a2 = a\n    for i in range(1, len(a)):\n"
              "        a[i] = b[i - 1] + c[i]\n        b[i] = b[i - 1] + a2[i] + c[i]\n    return a, b\n")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    said = " ".join(r.message for r in plan.remarks)
    assert not plan.rewritten and result.code == source, result.code
    assert "b_prev" not in said and "`b[i - 1]`" in said, said
