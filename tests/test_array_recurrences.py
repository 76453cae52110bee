"""Array recurrences: ``a[i] = a[i - 1] + b[i]`` reads the element the previous iteration wrote.
The analysis carries that element in a name (scalar replacement,
``analysis/recurrences.carried_elements``), so the loop is a scan the direct backend writes as
NumPy's ``ufunc.accumulate`` (or the tree of a linear recurrence), started from the element
before the first write and kept in the array's dtype: the rewrite must equal the loop bit for
bit (linear recurrences: to rounding), and look-alikes that are not first-order stay loops."""

from __future__ import annotations

import textwrap
import types
import warnings

import numpy as np
import pytest

from pforge.transpile import transpile_source

DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int8, np.uint8, np.complex128]


def _source(body: str, params: str) -> str:
    return f"import numpy as np\n\n\ndef f({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def _load(code: str):
    module = types.ModuleType("m")
    exec(compile(code, "m.py", "exec"), module.__dict__)
    return module.f


def _rewrite(body: str, params: str):
    source = _source(body, params)
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    assert "for i in" not in result.code.split("else:")[0], result.code
    return result, _load(source), _load(result.code)


def _run(fn, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args), args
        except Exception as exc:  # the loop's own error must be the rewrite's
            return type(exc), None


def _inputs(rng, dtype, shape):
    values = rng.normal(size=shape) * 4
    if np.dtype(dtype).kind == "c":  # complex products round otherwise in an array's multiply
        values = values + 1j * rng.normal(size=shape) * 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (complex to real drops the imaginary part)
        return values.astype(dtype)


EXACT = [
    # (body, params, argument shapes from n)
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i]\nreturn a\n", "a, b", lambda n: [(n,), (n,)]),
    ("for i in range(1, len(a)):\n    a[i] = b[i] + a[i - 1]\nreturn a\n", "a, b", lambda n: [(n,), (n,)]),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] - b[i]\nreturn a\n", "a, b", lambda n: [(n,), (n,)]),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] * b[i]\nreturn a\n", "a, b", lambda n: [(n,), (n,)]),
    ("for i in range(1, len(a)):\n    a[i] = np.maximum(a[i - 1], b[i])\nreturn a\n", "a, b",
     lambda n: [(n,), (n,)]),
    ("for i in range(1, len(a)):\n    a[i] = np.minimum(a[i - 1], a[i])\nreturn a\n", "a, b",
     lambda n: [(n,), (n,)]),
    # walked backwards: the element after the one written
    ("for i in range(len(a) - 2, -1, -1):\n    a[i] = a[i + 1] + b[i]\nreturn a\n", "a, b",
     lambda n: [(n,), (n,)]),
    ("for i in reversed(range(len(b))):\n    a[i] = a[i + 1] + b[i]\nreturn a\n", "a, b",
     lambda n: [(n + 1,), (n,)]),
    # the write one ahead of the index: `a[i + 1] = a[i] - b[i]` starts from a[0]
    ("for i in range(len(b)):\n    a[i + 1] = a[i] - b[i]\nreturn a\n", "a, b", lambda n: [(n + 1,), (n,)]),
    # rows: each row the sum of the ones before
    ("for i in range(1, a.shape[0]):\n    a[i] = a[i - 1] + b[i]\nreturn a\n", "a, b",
     lambda n: [(n, 3), (n, 3)]),
    # read before the update too (an exclusive read), into another array (`c[i] = v` of an
    # integer out of c's range raises in the loop, where an array store wraps: not modelled,
    # so `c` is float64 here)
    ("for i in range(1, len(a)):\n    c[i] = a[i - 1] * 2\n    a[i] = a[i - 1] + b[i]\nreturn a, c\n", "a, b, c",
     lambda n: [(n,), (n,), (n,)]),
    # a start that wraps around: range(len(a)) reads a[-1] first, which no iteration wrote yet
    ("for i in range(len(a)):\n    a[i] = a[i - 1] + b[i]\nreturn a\n", "a, b", lambda n: [(n,), (n,)]),
    # augmented: each element plus (times) the one before it, as updated
    ("for i in range(1, len(a)):\n    a[i] += a[i - 1]\nreturn a\n", "a, b", lambda n: [(n,), (n,)]),
    ("for i in range(1, len(a)):\n    a[i] *= a[i - 1]\nreturn a\n", "a, b", lambda n: [(n,), (n,)]),
    ("for i in range(1, a.shape[0]):\n    a[i] += a[i - 1]\nreturn a\n", "a, b", lambda n: [(n, 3), (n, 3)]),
]


@pytest.mark.parametrize("body, params, shapes", EXACT, ids=[b.splitlines()[1].strip() for b, _, _ in EXACT])
def test_an_array_recurrence_equals_the_loop_bit_for_bit(body, params, shapes):
    """Every dtype pair, sizes 0 to 6: the same values, dtype and error. Where the terms'
    dtype would widen the running values (int32 elements, float64 terms), the loop casts each
    value back into the array before the next step reads it; the rewrite runs those steps in
    order, in the array's dtype."""
    result, loop, new = _rewrite(body, params)
    assert "accumulate" in result.code
    rng = np.random.default_rng(len(body))
    for n in range(7):
        for first in DTYPES:
            for rest in DTYPES:
                args = [_inputs(rng, first if k == 0 else rest if k == 1 else np.float64, shape)
                        for k, shape in enumerate(shapes(n))]
                want, want_args = _run(loop, args)
                got, got_args = _run(new, args)
                if isinstance(want, type):
                    assert got is want, (first, rest, n, want, got)
                    continue
                for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                    assert g.dtype == w.dtype and np.array_equal(g, w, equal_nan=True), (first, rest, n, w, g)


def test_an_augmented_linear_recurrence_keeps_its_text_and_the_loops_values():
    """TSVC s321, ``a[i] += a[i - 1] * b[i]``: the element plus the scaled one before it, a
    linear recurrence whose additive part is the element as the loop found it. The fallback
    loop is the user's text; every dtype pair gives the loop's dtype and values (to rounding),
    and an integer array with float factors truncates at each step as the loop does."""
    body = "for i in range(1, len(a)):\n    a[i] += a[i - 1] * b[i]\nreturn a\n"
    result, loop, new = _rewrite(body, "a, b")
    assert "linear scan a" in result.plans[0].pattern
    assert "a[i] += a[i - 1] * b[i]" in result.code.split("else:")[1]
    rng = np.random.default_rng(321)
    for n in (0, 1, 2, 9, 40):
        for first in (np.float64, np.float32, np.int64, np.int8):
            for rest in (np.float64, np.int32):
                a, b = _inputs(rng, first, n) / 4, _inputs(rng, rest, n) / 8
                a, b = a.astype(first), b.astype(rest)
                want, got = loop(a.copy(), b), new(a.copy(), b)
                assert got.dtype == want.dtype, (first, rest, n)
                np.testing.assert_allclose(got, want, rtol=1e-5 if first == np.float32 else 1e-12)


def test_a_linear_array_recurrence_is_a_tree_of_affine_maps():
    """Exponential smoothing in place: ``y[t] = alpha * x[t] + (1 - alpha) * y[t - 1]``, a
    first-order linear recurrence on the array, equal to the loop to rounding; float16
    elements keep float16 running values, stepped in order as the loop casts them."""
    body = "for t in range(1, len(x)):\n    y[t] = alpha * x[t] + (1 - alpha) * y[t - 1]\nreturn y\n"
    result, loop, new = _rewrite(body, "y, x, alpha")
    assert "linear scan y" in result.plans[0].pattern and "while" in result.code
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32, np.float16, np.int32):
        for n in (1, 2, 9, 64):
            y, x = _inputs(rng, dtype, n), rng.normal(size=n)
            want, got = loop(y.copy(), x, 0.3), new(y.copy(), x, 0.3)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == np.float64 else 0, atol=0)


LEFT = [
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] + a[i - 2]\nreturn a\n", "second order"),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] ** 2 + b[i]\nreturn a\n", "not linear"),
    ("for i in range(1, len(a)):\n    a[i] = np.sin(a[i - 1]) + b[i]\nreturn a\n", "not linear"),
    ("for i in range(1, len(a)):\n    if b[i] > 0:\n        a[i] = a[i - 1] + b[i]\nreturn a\n", "conditional write"),
    ("for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i]\n    a[0] = 0\nreturn a\n", "another write of a"),
    ("for i in range(2, len(a), 2):\n    a[i] = a[i - 1] + b[i]\nreturn a\n", "not the previous write"),
    ("for i in range(1, len(a)):\n    a[i] = max(a[i - 1], b[i])\nreturn a\n", "builtin max"),
]


@pytest.mark.parametrize("body, why", LEFT, ids=[w for _, w in LEFT])
def test_look_alikes_keep_their_dependence(body, why):
    """Nothing carried by more than one element, nothing nonlinear, nothing the write can skip,
    no read that sees this iteration's element: the loop stays, and its result is the loop's
    (``range(2, n, 2)`` reads odd elements, which no iteration writes: not a recurrence)."""
    source = _source(body, "a, b, c=None")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert "_prev" not in result.code, result.code
    if why != "not the previous write":
        assert not plan.rewritten, result.code
    assert not any("_prev" in r.message for r in plan.remarks), [r.message for r in plan.remarks]
    a, b = np.arange(1.0, 9.0), np.linspace(-1, 1, 8)
    np.testing.assert_array_equal(_load(result.code)(a.copy(), b, a.copy()), _load(source)(a.copy(), b, a.copy()))


@pytest.mark.parametrize("args", ["same", "view", "list"])
def test_an_array_that_is_its_own_term_or_a_list_runs_the_loop(args):
    """``prefix(a, a)`` and a view of ``a`` as the terms change ``b`` under the loop; a list's
    items are Python numbers: the run-time checks send each to the loop."""
    body = "for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i]\nreturn a\n"
    _, loop, new = _rewrite(body, "a, b")

    def make():
        a = np.arange(1.0, 9.0)
        return {"same": (a, a), "view": (a[1:], a[:-1]), "list": (list(a), np.ones(8))}[args]

    want, got = loop(*make()), new(*make())
    assert type(got) is type(want)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_an_object_array_runs_the_loop():
    """An object array's elements are any Python objects (``Fraction``, ``str``): only arrays of
    numbers run batched (``np.result_type`` would read a str as a dtype name)."""
    from fractions import Fraction

    body = "for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i]\nreturn a\n"
    _, loop, new = _rewrite(body, "a, b")
    for a, b in ((np.array([Fraction(1, 3), Fraction(1, 7), 2], dtype=object), np.array([1, 2, 3], dtype=object)),
                 (np.array(["a", "b", "c"], dtype=object), np.array(["x", "y", "z"], dtype=object))):
        assert list(new(a.copy(), b)) == list(loop(a.copy(), b))


def test_the_start_is_read_only_where_the_loop_runs():
    """``range(1, len(a))`` of an empty array reads no ``a[0]``; the rewrite must not either."""
    body = "for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i]\nreturn a\n"
    _, loop, new = _rewrite(body, "a, b")
    assert new(np.zeros(0), np.zeros(0)).shape == (0,)
    assert new(np.ones(1), np.zeros(1)).tolist() == [1.0]


def test_the_pattern_and_explain_name_the_array():
    body = "for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i]\nreturn a\n"
    result, _, _ = _rewrite(body, "a, b")
    (plan,) = result.plans
    assert "add scan a" in plan.pattern and plan.remarks[0].code == "PF106", (plan.pattern, plan.remarks)


# -- the analysis: which loops are put in scalar-replaced form ----------------------------------------

def _carried(body: str, params: str = "a, b, c, j"):
    """The scalar-replaced loop's marker and body, as ``carried_elements`` leaves them."""
    import gast

    from pforge.transpile.analysis.recurrences import carried_elements
    from pforge.transpile.frontend import decode_source
    from pforge.transpile.outline import module_context

    ctx = module_context(decode_source(_source(body, params), "m.py"))
    before = sum(len(n.body) for n in gast.walk(ctx.tree) if isinstance(n, gast.For))
    changed = carried_elements(ctx)
    loops = [n for n in gast.walk(ctx.tree) if isinstance(n, gast.For)]
    found = {name: (array, gast.unparse(element).strip())
             for loop in loops for name, (array, element) in getattr(loop, "pforge_carried", {}).items()}
    text = [gast.unparse(stmt).strip() for loop in loops for stmt in loop.body]
    assert len(text) == before + len(found)  # the write became an update and a store; nothing else went
    return changed, found, text


CARRIED = [
    # (body, the element the name starts from, or None: left as written)
    ("for i in range(1, n):\n    a[i] = a[i - 1] + b[i]\n", "a[0]"),
    ("for i in range(3, n, 2):\n    a[i] = a[i - 2] * b[i]\n", "a[1]"),
    ("for i in range(n - 2, -1, -1):\n    a[i] = a[i + 1] + b[i]\n", "a[n - 1]"),
    ("for i in range(n):\n    a[i + 1] = a[i] + b[i]\n", "a[0]"),
    ("for i in range(1, n):\n    a[i, j] = a[i - 1, j] + b[i]\n", "a[0, j]"),
    ("for i in range(1, n):\n    a[i, :] = a[i - 1, :] + b[i]\n", "a[0, :]"),
    ("for i in range(1, n):\n    a[j, i] = a[j, i - 1] + b[i]\n", "a[j, 0]"),
    ("for i in range(1, n):\n    t = b[i] * 2\n    a[i] = a[i - 1] + t\n", "a[0]"),       # a private first
    ("for i in range(1, n):\n    c[i] = a[i - 1]\n    a[i] = a[i - 1] + b[i]\n", "a[0]"),  # another array
    ("for i in range(1, n):\n    a[i] = np.maximum(a[i - 1], b[i])\n", "a[0]"),
    ("for i in range(k, -1, -1):\n    a[i] = a[i + 1] + b[i]\n", "a[k + 1]"),
    ("for i in range(k + 1, n):\n    a[i] = a[i - 1] + b[i]\n", "a[k]"),
    ("for i in range(k + 3, n):\n    a[i] = a[i - 1] + b[i]\n", "a[k + 2]"),
    ("for i in range(1, n):\n    a[i] = a[-1 + i] + b[i]\n", "a[0]"),
    ("for i in range(1, n):\n    a[i] = a[i] + a[i - 1]\n", "a[0]"),      # another element of `a` read first
    ("for i in range(1, n):\n    a[i] = a[i - 1] + b[i]\n    c[i] = b[i] * 2\n", "a[0]"),  # a statement after
    ("for i in range(1, n):\n    a[i] = b[i] * a[i - 1] + c[i]\n", "a[0]"),
    ("for i in range(1, n):\n    a[i] += a[i - 1] * b[i]\n", "a[0]"),  # TSVC s321: `a[i] = a[i] + ...`
    ("for i in range(1, n):\n    a[i] *= a[i - 1]\n", "a[0]"),
    ("for i in range(1, n):\n    a[i, j] += a[i - 1, j]\n", "a[0, j]"),
    # look-alikes
    ("for i in range(1, n):\n    a[i] = a[i - 1] + a[i - 2]\n", "a[0]"),  # (a[i - 2] stays: refused later)
    ("for i in range(1, n):\n    a[i, j] = a[i - 1, j + 1] + b[i]\n", None),   # another column
    ("for i in range(1, n):\n    a[i, 1:] = a[i - 1, 1:] + b[i]\n", None),     # not a whole axis
    ("for i in range(1, n):\n    a[i, j] = a[i - 1, 0] + b[i]\n", None),
    ("for i in range(1, n):\n    j = i * 2\n    a[i, j] = a[i - 1, j] + b[i]\n", None),  # an index the body binds
    ("for i in range(1, n):\n    a = b\n    a[i] = a[i - 1] + b[i]\n", None),
    ("for i in range(1, n):\n    i = i + 1\n    a[i] = a[i - 1] + b[i]\n", None),
    ("for i in range(1, n):\n    a[i] = a[i - 1] + b[i]\n    c[i] = a[i - 1]\n", None),  # read after the write
    ("for i in range(1, n):\n    a[i] = a[i - 1] + b[i]\n    a[0] = 1.0\n", None),
    ("for i in range(1, n):\n    a[i] = a[i - 1] + b[i]\n    b.flags = 1\n", None),  # an attribute stored
    ("for i in range(1, n):\n    f = lambda: a[0]\n    a[i] = a[i - 1] + f()\n", None),
    ("for i in range(1, n):\n    a[i] = a[i - 1] ** 2\n", None),
    ("for i in range(1, n):\n    a[i] = max(a[i - 1], b[i])\n", None),
    ("for i in range(1, n):\n    a[i] = min(a[i - 1], b[i])\n", None),
    ("for i in range(1, n):\n    a[i] = np.minimum(a[i - 1], b[i]) + 1\n", None),
    ("for i in range(1, n):\n    a[i] = b[i] - a[i - 1]\n", None),
    ("for i in range(2, n, 2):\n    a[i] = a[i - 1] + b[i]\n", None),  # not the previous iteration's element
    ("for i in range(1, n):\n    a[i] = c[i - 1] + b[i]\n", None),
    ("for i in range(1, n):\n    if b[i] > 0:\n        a[i] = a[i - 1] + b[i]\n", None),
    ("for i in range(1, n):\n    a[i] = a[i - 1] + b[i]\nelse:\n    pass\n", None),
    ("for i in range(1, n, k):\n    a[i] = a[i - 1] + b[i]\n", None),       # a step not known
    ("for x in b:\n    a[0] = a[0] + x\n", None),
    ("for i in range(1, n):\n    a[i] -= a[i - 1]\n", None),   # `a[i] - a_prev`: not a scan of a_prev
    ("for i in range(1, n):\n    a[i] /= a[i - 1]\n", None),
    ("for i in range(1, n):\n    a[i] += a[i - 1] ** 2\n", None),
    ("for i in range(1, n):\n    a[i] += a[i - 1]\n    a[i] += b[i]\n", None),  # a second store
    ("for i in range(1, n):\n    b[i] += a[i - 1]\n", None),
]


@pytest.mark.parametrize("body, element", CARRIED, ids=[b.split("\n")[1].strip() + (" [left]" if e is None else "")
                                                        for b, e in CARRIED])
def test_which_recurrences_are_carried_in_a_name(body, element):
    changed, found, text = _carried("n = len(a)\nk = 2\n" + body)
    assert changed == (element is not None)
    if element is None:
        assert not found and not any("_prev" in line for line in text), text
        return
    ((name, (array, start)),) = found.items()
    assert (name, array, start) == ("a_prev", "a", element)
    assert any(line.startswith("a_prev = ") for line in text), text
    assert any(line.startswith("a[") and line.endswith("= a_prev") for line in text), text
    assert not any("a[i - 1]" in line or "a[i + 1] +" in line for line in text if not line.startswith("a[")), text


def test_a_later_loop_is_carried_after_one_that_is_not_and_names_stay_fresh():
    body = ("for i in range(1, n):\n    a[i] = a[i - 1] ** 2\n"
            "for x in c:\n    a[0] = x\n"
            "for i in range(1, n, k):\n    a[i] = a[i - 1] + b[i]\n"
            "for i in range(1, n):\n    a_prev = 1\n    a[i] = a[i - 1] + b[i]\n"
            "for i in range(1, n):\n    b[i] = b[i - 1] + a[i]\n")
    changed, found, text = _carried("n = len(a)\nk = 2\n" + body)
    assert text[-4:] == ["a_prev2 = a_prev2 + b[i]", "a[i] = a_prev2", "b_prev = b_prev + a[i]", "b[i] = b_prev"]
    assert changed and found == {"a_prev2": ("a", "a[0]"), "b_prev": ("b", "b[0]")}


def test_a_remark_names_the_read_not_the_carried_name():
    """The name that carries ``a[i - 1]`` is pforge's own: a remark on the recurrence names the
    read the user wrote."""
    source = _source("for i in range(1, len(a)):\n    a[i] = a[i - 1] + i\nreturn a\n", "a")
    (plan,) = transpile_source(source, "m.py").plans
    assert plan.vectorizable and not plan.rewritten
    message = plan.remarks[-1].message
    assert "`a[i - 1]` runs over Python numbers" in message and "a_prev" not in message, message


def test_rows_whose_terms_would_widen_them_step_in_the_arrays_dtype():
    """``a[i, :] = a[i - 1, :] + b[i, :]`` with int rows and float terms: the in-order steps
    are sized from the terms whole (a fallback once sized from one iteration's term, a name
    not bound yet: UnboundLocalError)."""
    body = "for i in range(1, a.shape[0]):\n    a[i, :] = a[i - 1, :] + b[i, :]\nreturn a\n"
    _, loop, new = _rewrite(body, "a, b")
    a, b = np.arange(12, dtype=np.int32).reshape(4, 3), np.arange(12).reshape(4, 3) * 0.5
    want, got = loop(a.copy(), b), new(a.copy(), b)
    assert got.dtype == want.dtype and np.array_equal(got, want)


IN_PLACE = {
    "sum": ("a[i] = a[i - 1] + a[i]", "np.add.accumulate(S, out=S)"),
    "sum, the other way": ("a[i] = a[i] + a[i - 1]", "np.add.accumulate(S, out=S)"),
    "difference": ("a[i] = a[i - 1] - a[i]", "np.subtract.accumulate(S, out=S)"),
    "maximum": ("a[i] = np.maximum(a[i - 1], a[i])", "np.maximum.accumulate(S, out=S)"),
    "minimum": ("a[i] = np.minimum(a[i - 1], a[i])", "np.minimum.accumulate(S, out=S)"),
}


@pytest.mark.parametrize("stop", ["len(a)", "a.shape[0]", "len(a) - 1"])
@pytest.mark.parametrize("start", [1, 2])
@pytest.mark.parametrize("form", sorted(IN_PLACE))
def test_an_array_that_is_its_own_term_accumulates_in_place(form, start, stop):
    """`a[i] = a[i - 1] ⊕ a[i]` from a literal start: the accumulate runs over `a[start - 1:n]`
    into it, as `np.add.accumulate(a, out=a)` is written by hand: no copy of the values, no
    dtype test (nothing but `a`'s own elements enters), and the loop's values bit for bit in
    every dtype (int8 wraps, float16 rounds at each step). Over all of `a` (from 1 to its
    length), it is that line alone: the array by its name, and no store of the values back
    into the rows they are already in."""
    update, call = IN_PLACE[form]
    result, loop, new = _rewrite(f"for i in range({start}, {stop}):\n    {update}\nreturn a\n", "a")
    batched = result.code.split("else:")[0]
    if start == 1 and stop != "len(a) - 1":
        assert batched.endswith(f":\n        {call.replace('S', 'a')}\n    "), batched
    else:
        assert f"a_prev_steps = a[{start - 1}:{stop}]\n        {call.replace('S', 'a_prev_steps')}" in batched, batched
    assert "np.empty" not in batched and "a_prev = a[" not in batched
    for dtype in DTYPES[:-1] + [np.bool_] * (form in ("maximum", "minimum")):
        values = (np.random.default_rng(7).standard_normal(11) * 60).astype(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the loop's int8 scalars warn where they wrap)
            want, got = loop(values.copy()), new(values.copy())
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("body", [
    "for i in range(1, len(a)):\n    a[i] = a[i - 1] + b[i]\nreturn a\n",
    "for i in range(1, len(a)):\n    c[i] = a[i] * 2.0\n    a[i] = a[i - 1] + a[i]\nreturn a, c\n",
    "for i in range(1, len(a)):\n    a[i] = a[i - 1] * a[i]\nreturn a\n",
], ids=["other-terms", "read-again", "product"])
def test_an_array_recurrence_that_reads_more_than_its_own_element_keeps_its_steps_apart(body):
    """Terms from another array, a second read of `a` (it would see the accumulated values),
    and a product (a complex one steps in order, after the accumulate) run the steps in an
    array of their own, stored into `a` afterwards."""
    result, loop, new = _rewrite(body, "a, b, c")
    assert "a_prev_steps = np.empty(" in result.code
    args = lambda: (np.arange(1.0, 9.0), np.linspace(-1, 1, 8), np.zeros(8))  # noqa: E731
    want, got = loop(*args()), new(*args())
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(g, w)


def _batched_only(code: str):
    """The rewritten ``f`` with the loop kept for refused inputs replaced by ``raise``: a call
    returns only where the checks in front hold."""
    import ast

    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and any(isinstance(s, ast.For) for s in node.orelse):
            node.orelse = [ast.parse("raise AssertionError('the checks refused')").body[0]]
    return _load(ast.unparse(tree))


def test_a_scan_through_another_name_of_the_array_has_checks_that_can_hold():
    """``x = a``, then ``x[i] = x[i - 1] + x[i]``: ``a`` is ``x`` itself, so no check asks that
    they share no memory (``not np.may_share_memory(x, a)`` could never hold, and the rewrite
    was dead code); and a later ``x = b`` is another binding, which the reads of ``x.ndim``
    in the first loop's checks do not show to be an array (transpiling the output again
    rewrote the second loop; the output contract says it changes nothing)."""
    body = """
        x = a
        for i in range(1, len(x)):
            x[i] = x[i - 1] + x[i]
        x = b
        for i in range(1, len(x)):
            x[i] = x[i - 1] + x[i]
        return x
    """
    source = _source(body, "a, b")
    result = transpile_source(source, "m.py")
    assert [plan.rewritten for plan in result.plans] == [True, False], result.code
    loop = _load(source)
    assert "may_share_memory" not in result.code, result.code
    assert transpile_source(result.code, "m.py").code == result.code
    batched = _batched_only(result.code)
    a = np.arange(5.0)
    b = [1.0, 2.0, 3.0]
    want_a = a.copy()
    want = loop(want_a, list(b))
    got = batched(a, list(b))
    np.testing.assert_array_equal(a, want_a)
    assert got == want


MADE = ["zeros(len(rates) + 1)", "zeros(len(rates) + 1, np.float32)", "zeros(len(rates) + 1, dtype=int)",
        "ones(len(rates) + 1, np.float16)", "empty(len(rates) + 1, np.complex128)",
        "zeros(len(rates) + 1, dtype=object)", "zeros(len(rates) + 1, dtype=np.float32)"]
#: arrays of numbers by how they are made (no dtype, or a float64, int or bool one: versioning._made_wide)
WIDE = {"zeros(len(rates) + 1)", "zeros(len(rates) + 1, dtype=int)"}


@pytest.mark.parametrize("made", MADE)
def test_an_affine_recurrence_into_an_array_the_function_makes_runs_in_its_rows(made):
    """``balance[t] = (1 + rates[t - 1]) * balance[t - 1] + deposits[t - 1]`` into an array
    made before the loop: the tree of affine maps works in ``balance[1:]`` itself (the
    reference's own memory: 3.0x the loop's peak at 10,000 steps, 4.0x with an array of its
    own), and where the steps compute in another dtype than the array's (int, float32,
    float16, complex), or a value is not finite, the steps run again in order, as the loop
    stores them."""
    body = f"""
        balance = np.{made}
        balance[0] = start
        for t in range(1, len(balance)):
            balance[t] = (1.0 + rates[t - 1]) * balance[t - 1] + deposits[t - 1]
        return balance
    """
    result, loop, new = _rewrite(body, "start, rates, deposits")
    assert "balance_prev_values = balance[1:len(balance)] if balance_prev_dtype == balance.dtype else" in result.code, \
        result.code
    # (the array's kind is tested only where the way it is made does not show it holds numbers)
    assert ("type(balance) is np.ndarray and balance.dtype.kind in 'biufc'" in result.code) == (made not in WIDE)
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 9, 64):
        for kind in ("float64", "float32", "int64", "big", "inf"):
            rates = rng.normal(size=n) * 0.01
            deposits = rng.normal(size=n) * 3
            if kind == "float32":
                rates, deposits = rates.astype(np.float32), deposits.astype(np.float32)
            elif kind == "int64":
                rates, deposits = np.zeros(n, np.int64), rng.integers(-5, 5, n)
            elif kind == "big":
                rates = rates + 1e3  # (float16 overflows, float64 does not)
            elif kind == "inf":
                deposits[n // 2] = np.inf
            for start in (2.5, 3, np.float32(1.5)):
                want, got = _run(loop, [start, rates, deposits]), _run(new, [start, rates, deposits])
                if isinstance(want[0], type):
                    assert got[0] is want[0], (made, n, kind, start)
                    continue
                assert got[0].dtype == want[0].dtype, (made, n, kind, start)
                if want[0].dtype == object:  # (the check fails: the loop ran, on the same objects)
                    assert [type(v) for v in got[0]] == [type(v) for v in want[0]]
                    want, got = (want[0].astype(complex),), (got[0].astype(complex),)
                # (the tree rounds otherwise than the loop's order: float32 steps in float32 too)
                np.testing.assert_allclose(got[0], want[0], rtol={8: 1e-12, 16: 1e-12, 4: 1e-5}.get(
                    want[0].dtype.itemsize, 0), atol=1e-4 if want[0].dtype.itemsize == 4 else 1e-12, equal_nan=True, err_msg=f"{made} {n} {kind} {start}")


def test_an_affine_recurrence_into_an_array_seen_elsewhere_has_values_of_its_own():
    """A parameter, or an array also read another way in the loop, may be a view, or be read
    after its rows were overwritten: the values get an array of their own."""
    for body, params in (
            ("for t in range(1, len(b)):\n    b[t] = r[t] * b[t - 1] + d[t]\nreturn b\n", "b, r, d"),
            ("b = np.zeros(len(r))\nfor t in range(1, len(b)):\n    b[t] = r[t] * b[t - 1] + d[t] / len(b)\nreturn b\n",
             "r, d"),
            ("b = np.zeros(len(r))\nv = b[1:]\nfor t in range(1, len(b)):\n    b[t] = r[t] * b[t - 1] + d[t]\n"
             "return b, v\n", "r, d")):
        result = transpile_source(_source(body, params), "m.py")
        assert result.plans[0].rewritten and "_values = b[1:len(b)]" not in result.code, result.code


def test_an_affine_recurrence_from_a_start_the_code_does_not_fix_has_values_of_its_own():
    """`range(k, len(b))`: the rows it writes start where `k` says, which the rewrite does not
    know when it is written, so the values get an array of their own (`_values_in_place` needs
    a literal start of at least 1), equal to the loop for every `k`."""
    body = """
        b = np.zeros(len(rates) + 1)
        for t in range(k, len(b)):
            b[t] = (1.0 + rates[t - 1]) * b[t - 1] + deposits[t - 1]
        return b
    """
    result, loop, new = _rewrite(body, "k, rates, deposits")
    assert "_dtype ==" not in result.code and "b_prev_values = np.empty(" in result.code, result.code
    rng = np.random.default_rng(5)
    rates, deposits = rng.normal(size=9) * 0.01, rng.normal(size=9)
    for k in (1, 2, 5, 9, 10):
        want, got = _run(loop, [k, rates, deposits]), _run(new, [k, rates, deposits])
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-12)
