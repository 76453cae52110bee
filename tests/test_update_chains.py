"""Update chains: ``s = s + b[i] + c[i]`` adds its terms together first and is then a
reduction or a scan (``analysis/chains.py``); an array recurrence with several terms, TSVC's
s242, is a scan of the array. The order changes rounding (an unsafe fix) and, without a
run-time check, types: int8 terms would wrap around where the loop adds them to a float. The
tests run every dtype pair through the loop and the rewrite."""

from __future__ import annotations

import itertools
import textwrap
import warnings

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int8, np.uint8, np.complex64, np.bool_]
#: starting values of the running value: Python numbers (weak), NumPy scalars and arrays
STARTS = [0, 0.0, 1j, np.float64(0.5), np.float32(1), np.int8(3), np.zeros(3), np.zeros(3, np.float32)]


def _module(body: str, params: str) -> str:
    return f"import math\n\nimport numpy as np\n\n\ndef f({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def _load(code: str):
    return run_module(code)["f"]


def _run(fn, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args)
        except Exception as exc:  # the loop's own error must be the rewrite's
            return type(exc)


def _said(plan) -> str:
    return "\n".join(r.message for r in plan.remarks)


def _tolerance(*values) -> float:
    """Rounding allowed between the two orders: the narrowest floating dtype's."""
    kinds = [np.asarray(v).dtype for v in values if np.asarray(v).dtype.kind in "fc"]
    return max([np.finfo(d).resolution for d in kinds], default=1e-12) * 64


def _same(want, got, tolerance) -> bool:
    if isinstance(want, type) or isinstance(got, type):
        return want is got
    if isinstance(want, tuple):
        return all(_same(w, g, tolerance) for w, g in zip(want, got, strict=True))
    want, got = np.asarray(want), np.asarray(got)
    return want.dtype == got.dtype and want.shape == got.shape and np.allclose(
        got, want, rtol=tolerance, atol=tolerance, equal_nan=True)


CHAINS = [
    # (body, the pattern it gets)
    ("for i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    s = s + b[i] * c[i] + 1.0\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    s = s - b[i] - c[i] * 2\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    s = s - b[i] + c[i] / 3\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    s = s + np.sqrt(np.abs(b[i])) - abs(c[i])\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    s = s + np.minimum(b[i], c[i]) - math.tanh(0.5)\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    s = s + b[i] * math.cos(len(b)) - c[i]\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    s = s * b[i] * c[i]\nreturn s\n", "mul reduction s"),
    ("for i in range(len(b)):\n    s = s + -b[i] + c[i]\nreturn s\n", "add reduction s"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        s = s + b[i] + c[i]\nreturn s\n", "add reduction s"),
    ("out = np.zeros(len(b))\nfor i in range(len(b)):\n    s = s + b[i] + c[i] ** 2\n    out[i] = s\n"
     "return out, s\n", "add scan s"),
    ("out = np.zeros(len(b))\nfor i in range(len(b)):\n    out[i] = s\n    s = s - b[i] - c[i]\nreturn out, s\n",
     "add scan s"),
]


@pytest.mark.parametrize("body, pattern", CHAINS, ids=[b.split("\n")[-3].strip() for b, _ in CHAINS])
def test_an_update_chain_is_rewritten_with_the_loops_values_and_dtype(body, pattern):
    """Every start and dtype pair, 0 to 9 iterations: the rewrite's value, dtype and error are
    the loop's, to the rounding of the narrowest floating dtype involved. Integer and boolean
    terms, and a start of another dtype than the terms, run the loop (the run-time check)."""
    source = _module(body, "s, b, c")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten and pattern in plan.pattern, (plan.pattern, [r.message for r in plan.remarks])
    assert "have one dtype (the terms are added first) (checked at run time)" in _said(plan)
    assert "isinstance(s, (np.ndarray, np.generic, int, float)) and" in result.code  # (no complex start)
    assert ", ".join(f"`{n}`" for n in ("b", "c")) + " are floating and `s`" in _said(plan)
    assert body.split("\n")[-3].strip() in result.code.split("else:")[-1]  # the loop as written
    loop, new = _load(source), _load(result.code)
    rng = np.random.default_rng(len(body))
    # (a product of terms may overflow where the running product does not: a zero start then
    # gives NaN where the loop keeps 0, as any reassociated product does, `s *= b[i]` too;
    # products of terms near 1 keep that case out)
    scale = 0.1 if "mul" in pattern else 4
    for start, (first, second), n in itertools.product(STARTS, itertools.product(DTYPES, repeat=2), (0, 1, 2, 9)):
        b = (rng.normal(size=n) * scale + (1 if scale < 1 else 0)).astype(first)
        c = (rng.normal(size=n) * scale + (1 if scale < 1 else 0)).astype(second)
        want, got = _run(loop, [start, b, c]), _run(new, [start, b, c])
        assert _same(want, got, _tolerance(start, b, c)), (start, first, second, n, want, got)


def test_integer_terms_that_would_wrap_around_run_the_loop():
    """``0.0 + b[i] + c[i]`` on uint8 adds in float64: 200 + 100 is 300.0. Summed first, the
    uint8 terms would wrap around to 44. The check sends them to the loop: exactly its value."""
    source = _module("for i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", "s, b, c")
    new = _load(transpile_source(source, "m.py").code)
    b, c = np.full(5, 200, np.uint8), np.full(5, 100, np.uint8)
    assert new(0.0, b, c) == _load(source)(0.0, b, c) == 1500.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (b + c)[0] == 44  # what the batched terms would have been


def test_a_python_complex_start_runs_the_loop():
    """``0j + np.float64(t)`` is a Python complex (``np.float64`` is a float), so the loop's
    running value stays one; the batched terms' sum would make it a NumPy complex (helper-50)."""
    source = _module("for i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", "s, b, c")
    new = _load(transpile_source(source, "m.py").code)
    got, want = new(0j, np.array([1.5]), np.array([2.0])), _load(source)(0j, np.array([1.5]), np.array([2.0]))
    assert type(got) is type(want) is complex and got == want


def test_a_wider_start_than_its_terms_runs_the_loop_exactly():
    """A float64 start adds each float32 term in float64; the float32 terms summed first would
    round in float32. The check sends the pair to the loop, whose value comes back bit for bit."""
    source = _module("for i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", "s, b, c")
    new = _load(transpile_source(source, "m.py").code)
    rng = np.random.default_rng(0)
    b, c = rng.normal(size=50).astype(np.float32), rng.normal(size=50).astype(np.float32) * 1e-4
    assert new(np.float64(0), b, c) == _load(source)(np.float64(0), b, c)


def test_tsvc_s242_an_array_recurrence_with_several_terms_is_an_add_scan():
    """``a[i] = a[i - 1] + s1 + s2 + b[i] + c[i] + d[i]``: carried in a name, the running
    element is an update chain, and the array's add scan. An integer array with float terms
    truncates at each step in the loop: the check runs it as the loop."""
    body = ("s1, s2 = 1.0, 2.0\nfor i in range(1, len(a)):\n    a[i] = a[i - 1] + s1 + s2 + b[i] + c[i] + d[i]\n"
            "return a\n")
    source = _module(body, "a, b, c, d")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten and "add scan a" in plan.pattern, [r.message for r in plan.remarks]
    loop, new = _load(source), _load(result.code)
    rng = np.random.default_rng(242)
    for first, rest in itertools.product(DTYPES, repeat=2):
        for n in (0, 1, 2, 17):
            args = [(rng.normal(size=n) * 4).astype(first)] + [(rng.normal(size=n) * 4).astype(rest) for _ in range(3)]
            want, got = _run(loop, args), _run(new, args)
            assert _same(want, got, _tolerance(*args)), (first, rest, n, want, got)


def test_the_reassociated_scan_is_an_unsafe_fix():
    """A NumPy add scan is otherwise the loop's order, bit for bit; with its terms added first
    it is not, and ``unsafe=False`` (``check --fix`` without ``--unsafe-fixes``) leaves it."""
    body = "out = np.zeros(len(b))\nfor i in range(len(b)):\n    s = s + b[i] + c[i]\n    out[i] = s\nreturn out\n"
    source = _module(body, "s, b, c")
    (plan,) = transpile_source(source, "m.py").plans
    assert plan.unsafe and "adds the terms of the running sum `s` together" in plan.unsafe
    assert "where terms cancel" in plan.unsafe
    held = transpile_source(source, "m.py", unsafe=False)
    assert not held.plans[0].rewritten and held.code == source
    plain = _module(body.replace("s + b[i] + c[i]", "s + (b[i] + c[i])"), "s, b, c")
    assert transpile_source(plain, "m.py").plans[0].unsafe is None  # (the scan as the loop adds)


LEFT = [
    ("for i in range(len(b)):\n    s = b[i] + s + c[i]\nreturn s\n", "the running value not leftmost"),
    ("for i in range(len(b)):\n    s = s + b[i] + s * c[i]\nreturn s\n", "the running value in a term"),
    ("for i in range(len(b)):\n    t = b[i] * 2\n    s = s + t + c[i]\nreturn s\n", "a term the body binds"),
    ("for i in range(len(b)):\n    s = s + i + c[i]\nreturn s\n", "the index as a term"),
    ("for i in range(len(b)):\n    s = s + float(b[i]) + c[i] * 2\nreturn s\n", "a call that picks a dtype"),
    ("for i in range(len(b)):\n    s = s + float(b[i]) + math.tanh(0.5)\nreturn s\n", "a dtype call beside a math one"),
    ("for i in range(len(b)):\n    s = s + np.sqrt(b[i], dtype=np.float32) + c[i]\nreturn s\n", "a dtype keyword"),
    ("for i in range(len(b)):\n    s = s + np.float_power(b[i], 2) + c[i]\nreturn s\n", "another function of two"),
    ("for i in range(len(b)):\n    s = s + True + b[i]\nreturn s\n", "a bool literal"),
    ("for i in range(len(b)):\n    s = s + math.tanh(b[i]) + c[i]\nreturn s\n", "a Python float of each element"),
    ("for i in range(len(b)):\n    s = s + np.float32(b[i]) + c[i]\nreturn s\n", "a NumPy scalar type"),
    ("for i in range(len(b)):\n    s = s + (b[i] > 0) + c[i]\nreturn s\n", "a comparison"),
    ("for i in range(len(b)):\n    s = s + b[i] * s + c[i]\nreturn s\n", "nonlinear"),
    ("for i in range(len(b)):\n    s = s + b[i] + c[i]\n    s = s * 0.5\nreturn s\n", "a second store"),
    ("for i in range(len(b)):\n    s = s * b[i] + c[i]\nreturn s\n", "a product then a sum"),
    ("for i in range(len(b)):\n    s = s / b[i] / c[i]\nreturn s\n", "a quotient chain"),
]


@pytest.mark.parametrize("body, why", LEFT, ids=[w for _, w in LEFT])
def test_look_alikes_stay_loops(body, why):
    """Neither a sum nor a product of terms the batch can add first: no reassociation, and the
    loop is left (``s * b[i] + c[i]`` is a linear recurrence, rewritten as that, not a chain)."""
    source = _module(body, "s, b, c")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert "the terms are added first" not in _said(plan)
    if why != "a product then a sum":
        assert not plan.rewritten, result.code
    b, c = np.linspace(-1, 1, 6), np.linspace(1, 2, 6)
    np.testing.assert_array_equal(_load(result.code)(0.5, b, c), _load(source)(0.5, b, c))


def test_a_name_bound_only_on_some_paths_or_after_the_loop_is_not_read_by_the_check():
    """The check reads the running value before the loop: where nothing binds it there on every
    path (here only under an ``if``), a loop of no iteration must not raise, so no rewrite."""
    body = "if flag:\n    s = 0.0\nfor i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn 1\n"
    source = _module(body, "flag, b, c")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten
    assert _load(result.code)(False, np.zeros(0), np.zeros(0)) == 1


@pytest.mark.parametrize("body, params, rewritten", [
    ("s = 0.0\nfor i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", "b, c", True),
    ("x = 1.0\nfor i in range(len(b)):\n    s = s + b[i] + c[i]\ns = 0.0\nreturn x\n", "b, c", False),
    ("s: float\nfor i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn 1\n", "b, c", False),
    ("s: float = 0.0\nfor i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", "b, c", True),
    ("if flag:\n    for i in range(len(b)):\n        s = s + b[i] + c[i]\ns = 0.0\nreturn s\n", "b, c, flag=True", False),
], ids=["bound before", "bound after", "annotated only", "annotated with a value",
        "bound after the if holding the loop"])
def test_the_check_reads_the_running_value_only_where_the_function_bound_it(body, params, rewritten):
    """The dtype check reads `s` in front of the loop, also where the loop runs no iteration:
    `s` must be a parameter or bound by a statement of the function before the loop (an
    annotation alone binds nothing). Elsewhere the loop stays, and with no iteration it returns
    where the check would raise."""
    source = _module(body, params)
    result = transpile_source(source, "m.py")
    assert result.plans[-1].rewritten is rewritten
    empty = np.zeros(0)
    assert _run(_load(result.code), [empty, empty]) == _run(_load(source), [empty, empty])


def test_a_tensorflow_module_keeps_its_chains():
    """TensorFlow's backends take no run-time check: a module importing it is left as written."""
    source = "import numpy as np\nimport tensorflow as tf\n\n\n" + _module(
        "for i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", "s, b, c").split("\n\n\n", 1)[1]
    (plan,) = transpile_source(source, "m.py").plans
    assert not plan.rewritten and "the terms are added first" not in _said(plan)


def test_two_chains_in_one_loop_keep_both_checks():
    """Each chain adds its own check in front: int8 terms of the first wrap around summed first
    (200 + 100 is 44 in uint8) even where the second's float terms pass theirs."""
    body = ("s = 0.0\nt = 0.0\nfor i in range(len(b)):\n    s = s + b[i] + c[i]\n    t = t + d[i] + e[i]\n"
            "return s, t\n")
    source = _module(body, "b, c, d, e")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten
    assert result.code.count("np.result_type(b)") == 1 and result.code.count("np.result_type(d)") == 1
    b, c, d = np.full(4, 200, np.uint8), np.full(4, 100, np.uint8), np.ones(4)
    assert _load(result.code)(b, c, d, d) == _load(source)(b, c, d, d) == (1200.0, 8.0)


@pytest.mark.parametrize("body, header", [
    ("for i in range(1, len(a)):\n    t = b[i] * 2\n    a[i] = a[i - 1] + t + c[i]\nreturn a\n", ""),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] + a[i - 1] * b[i] + c[i]\nreturn a\n", ""),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] + float(b[i]) + c[i]\nreturn a\n", ""),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] + 1.0 + 2.0\nreturn a\n", ""),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i] + c[i]\nreturn a\n", "import tensorflow as tf\n"),
], ids=["a term the body binds", "the element twice", "a dtype call", "no name", "tensorflow"])
def test_an_array_recurrence_whose_chain_is_refused_keeps_its_element(body, header):
    """Scalar replacement carries `a[i - 1]` in a name only where the chain it makes is one this
    module takes; otherwise the loop is left as written and the remark names the read, not a
    name the code does not have."""
    source = _module(body, "a, b, c")
    if header:
        source = "import numpy as np\n" + header + "\n\n" + source.split("\n\n\n", 1)[1]
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert not plan.rewritten and result.code == source
    assert "a_prev" not in _said(plan) and "`a[i - 1]`" in _said(plan), _said(plan)


def test_the_argument_of_a_math_function_is_not_a_term_the_check_reads():
    """``math.sqrt(k)`` is a Python float whatever ``k`` is: an int ``k`` (a count) is not one of
    the values added, so the check does not ask it to be floating, and the batched code runs."""
    source = _module("for i in range(len(b)):\n    s = s + b[i] * math.sqrt(k) + c[i]\nreturn s\n", "s, b, c, k")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten and "`b`, `c` are floating and `s`" in _said(plan), _said(plan)
    assert "np.result_type(k)" not in result.code
    b, c = np.linspace(0, 1, 5), np.linspace(1, 2, 5)
    np.testing.assert_allclose(_load(result.code)(0.0, b, c, 4), _load(source)(0.0, b, c, 4), rtol=1e-12)


def test_reassociated_chains_says_whether_it_changed_the_tree():
    """The caller recomputes parents and def-use chains only where it returns True: True after a
    chain was put in reduction form, False where the module holds none."""
    from pforge.transpile.analysis.chains import reassociated_chains
    from pforge.transpile.frontend import decode_source
    from pforge.transpile.outline import module_context

    for body, changed in (("for i in range(len(b)):\n    s = s + b[i] + c[i]\nreturn s\n", True),
                          ("for i in range(len(b)):\n    s = s + b[i]\nreturn s\n", False),
                          ("for i in range(len(b)):\n    s = s * 2 + b[i] + c[i]\nreturn s\n", False)):
        ctx = module_context(decode_source(_module(body, "s, b, c"), "m.py"))
        assert reassociated_chains(ctx) is changed, body
