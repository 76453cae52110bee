"""Scans: a running value the body also reads (``s += x[i]; out[i] = s``), found by the
analysis (class ``scan``, remark PF106) and rewritten by the direct backend as NumPy's
``ufunc.accumulate`` over ``[s, t_0, t_1, ...]``, which runs in the loop's order and dtype:
the rewrite's values must equal the loop's bit for bit, of the same dtype and type."""

from __future__ import annotations

import textwrap
import types
import warnings

import gast
import numpy as np
import pytest

from pforge.transpile import analyze_source, transpile_source
from pforge.transpile.analysis import discover
from pforge.transpile.frontend import decode_source
from pforge.transpile.outline import module_context


def _source(body: str, params: str = "x") -> str:
    return f"import numpy as np\n\n\ndef f({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def _load(code: str):
    module = types.ModuleType("m")
    exec(compile(code, "m.py", "exec"), module.__dict__)
    return module.f


def _same(want, got):
    """Equal bit for bit, of the same type (and dtype for NumPy values)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(want, got):
            _same(a, b)
        return
    assert type(got) is type(want), (want, got)
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype, (want.dtype, got.dtype)
        assert np.array_equal(got, want, equal_nan=True), (want, got)
    else:
        assert got == want or (want != want and got != got), (want, got)


def _classes(body: str, params: str = "x") -> dict[str, str]:
    (plan,) = analyze_source(_source(body, params), "m.py")
    return dict(plan.levels[0].classes), plan


# -- the analysis ----------------------------------------------------------------------------------

@pytest.mark.parametrize("body, name", [
    ("s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    s += x[i]\n    out[i] = s\nreturn out\n", "s"),
    ("s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    out[i] = s\n    s = s - x[i]\nreturn out\n", "s"),
    ("m = -np.inf\nout = []\nfor i in range(len(x)):\n    m = np.maximum(m, x[i])\n    out.append(x[i] - m)\n"
     "return np.array(out)\n", "m"),
    ("p = 1.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    p *= x[i]\n    out[i] = p * 2\nreturn out\n", "p"),
])
def test_a_running_value_read_in_the_body_is_a_scan(body, name):
    classes, plan = _classes(body)
    assert classes[name] == "scan", classes
    assert [r.code for r in plan.remarks][:1] == ["PF106"] and f"scan {name}" in plan.remarks[0].message


@pytest.mark.parametrize("body, why", [
    # the update under an `if`: not a statement of the body itself
    ("s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    if x[i] > 0:\n        s += x[i]\n"
     "    out[i] = s\nreturn out\n", "under an if"),
    # read before the update, of a term the body computes first: its values are not known first
    ("s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    t = x[i] * 2\n    out[i] = s\n    s += t\n"
     "return out\n", "term computed in the body"),
    # builtin max keeps its first argument when the second is NaN; np.maximum.accumulate does not
    ("m = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    m = max(m, x[i])\n    out[i] = m\n"
     "return out\n", "builtin max"),
    # np.fmax.accumulate gives another zero's sign than np.fmax(0.0, -0.0)
    ("m = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    m = np.fmax(m, x[i])\n    out[i] = m\n"
     "return out\n", "fmax"),
    # nonlinear: no associative operator
    ("s = 0.5\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    s = s * s + x[i]\n    out[i] = s\n"
     "return out\n", "nonlinear"),
    # `+=` on a value that may be an argument's array writes into it as it goes
    ("s = x[0]\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    s += x[i]\n    out[i] = s\nreturn out\n",
     "a view"),
    # two stores of the running value
    ("s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    s += x[i]\n    out[i] = s\n    s += 1.0\n"
     "return out\n", "two updates"),
])
def test_look_alikes_are_not_scans(body, why):
    classes, plan = _classes(body)
    assert "scan" not in classes.values(), (why, classes)
    assert not plan.vectorizable, why


# -- the rewrite: the loop's values, bit for bit ---------------------------------------------------------

#: the running values are kept in a list, so that each one's type is seen
RUNNING = """\
s = START
out = []
for i in range(len(x)):
    UPDATE
    out.append(s)
return out, s
"""

EXCLUSIVE = """\
s = START
out = []
for i in range(len(x)):
    out.append(s)
    UPDATE
return out, s
"""

#: (update, start, ufunc the rewrite must call, inputs)
FLOATS = [np.random.default_rng(1).normal(size=257), np.random.default_rng(2).normal(size=3).astype(np.float32),
          np.array([1e16, 1.0, -1e16, 1.0]), np.array([np.nan, 1.0, 2.0]), np.array([0.5])]
SCANS = [
    ("s += x[i]", "0.0", "np.add.accumulate", FLOATS),
    ("s = s + x[i] * 0.1", "1.5", "np.add.accumulate", FLOATS),
    ("s = x[i] + s", "np.float64(0.25)", "np.add.accumulate", FLOATS),
    ("s -= x[i]", "0", "np.subtract.accumulate", FLOATS),
    ("s = s - x[i] ** 2", "2.0", "np.subtract.accumulate", FLOATS),
    ("s *= 1.0 + x[i] * 0.01", "1.0", "np.multiply.accumulate", FLOATS),
    ("s = np.maximum(s, x[i])", "-np.inf", "np.maximum.accumulate", FLOATS),
    ("s = np.minimum(s, x[i])", "np.inf", "np.minimum.accumulate", FLOATS),
    # the loop's dtype: int8 terms added to the Python int 0 wrap in int8
    ("s += x[i]", "0", "np.add.accumulate", [np.full(300, 100, np.int8), np.arange(5, dtype=np.uint8)]),
    # float32 terms added to a float64 start stay float64; to a Python float, float32
    ("s += x[i]", "np.float64(0.1)", "np.add.accumulate", [np.full(5, 0.1, np.float32)]),
    ("s += x[i]", "0.1", "np.add.accumulate", [np.full(5, 0.1, np.float32)]),
    # bools added to False: NumPy adds bools as `or`
    ("s = s + x[i]", "False", "np.add.accumulate", [np.array([False, True, False])]),
]


@pytest.mark.parametrize("update, start, ufunc, inputs", SCANS, ids=[f"{u} from {s}" for u, s, _, _ in SCANS])
def test_the_rewrite_gives_the_loops_running_values_bit_for_bit(update, start, ufunc, inputs):
    for x in inputs:
        source = _source(RUNNING.replace("UPDATE", update).replace("START", start))
        result = transpile_source(source, "m.py", shapes={"x": 1})
        assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
        assert ufunc in result.code and "for i in" not in result.code.split("else:")[0], result.code
        before, after = _load(source), _load(result.code)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = before(x.copy()), after(x.copy())
        _same(want[1], got[1])
        assert [type(v) for v in want[0]] == [type(v) for v in got[0]], (want[0], got[0])
        assert all(a == b or (a != a and b != b) for a, b in zip(want[0], got[0])), (want[0], got[0])


@pytest.mark.parametrize("start", ["0.5", "np.float32(0.5)"])
def test_an_exclusive_read_stays_a_loop(start):
    """The first read before the update is the start itself: a Python float where the running
    values are float32 would be computed in float64 by `s * 0.1`; the rewrite would not."""
    source = _source(EXCLUSIVE.replace("UPDATE", "s += x[i]").replace("START", start))
    (plan,) = transpile_source(source, "m.py", shapes={"x": 1}).plans
    assert dict(plan.levels[0].classes)["s"] == "scan" and plan.vectorizable and not plan.rewritten
    assert "exclusive scan" in plan.remarks[-1].message


def test_zero_iterations_run_the_loop():
    """With no iteration `s` keeps its own value and type (a Python float here); the running
    values would make it a NumPy one, so the rewrite runs only where the loop runs."""
    source = _source("s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    s += x[i]\n    out[i] = s\n"
                     "return out, s\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and "len(x) > 0" in result.code, result.code
    out, s = _load(result.code)(np.zeros(0))
    assert type(s) is float and out.shape == (0,)


def test_a_number_the_terms_are_scaled_by_may_be_a_python_float():
    """Only the arrays the terms are read from must be ndarrays (a list's items are weak):
    `alpha`, one number, is checked to be one, not to be an array."""
    source = _source("ema = x[0]\nout = np.zeros(len(x))\nfor t in range(len(x)):\n"
                     "    ema = alpha * x[t] + (1 - alpha) * ema\n    out[t] = ema\nreturn out\n", "x, alpha")
    code = transpile_source(source, "m.py").code
    assert "type(x) is np.ndarray" in code and "type(alpha) is np.ndarray" not in code, code
    x = np.random.default_rng(8).normal(size=40)
    np.testing.assert_allclose(_load(code)(x, 0.2), _load(source)(x, 0.2), rtol=1e-12)


def test_a_loop_invariant_term_is_broadcast_over_the_trip_count():
    source = _source("p = np.float32(1.0)\nout = np.zeros(n)\nfor i in range(2, n):\n    p *= r\n    out[i] = p\n"
                     "return out, p\n", "r, n")
    result = transpile_source(source, "m.py", shapes={"r": 0, "n": 0})
    assert result.plans[0].rewritten and "len(range(2, n))" in result.code, result.code
    for args in ((np.float32(1.1), 7), (0.5, 40)):
        _same(_load(source)(*args), _load(result.code)(*args))


def test_running_values_of_python_numbers_stay_a_loop():
    """Python numbers summed stay Python numbers (unbounded ints, weak floats): no scan of them."""
    source = _source("s = 0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    s += i\n    out[i] = s * x[i]\n"
                     "return out, s\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert not result.plans[0].rewritten
    assert "Python numbers" in result.plans[0].remarks[-1].message


def test_a_scan_read_by_a_reduction_and_a_collector():
    source = _source("s = 0.0\ntotal = 0.0\nseen = []\nfor i in range(len(x)):\n    s += x[i]\n    seen.append(s)\n"
                     "    total += s\nreturn np.array(seen), s, total\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and "np.add.accumulate" in result.code, result.code
    x = np.random.default_rng(3).normal(size=50)
    want, got = _load(source)(x), _load(result.code)(x)
    _same(want[:2], got[:2])
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12)  # the total is a reduction: reassociated


TF_SCANS = [
    # (update, the call the rewrite must make, unsafe)
    ("s += x[i]", "tf.math.cumsum(", True),
    ("s = s - x[i] * 2.0", "tf.math.cumsum(", True),
    ("s *= 1.0 + x[i] * 0.1", "tf.math.cumprod(", True),
    ("s = tf.maximum(s, x[i])", "tf.scan(tf.maximum, ", False),
    ("s = tf.minimum(s, x[i] * 2.0)", "tf.scan(tf.minimum, ", False),
    ("s = 0.9 * s + x[i]", "tf.scan(lambda h, s_step: 0.9 * h + s_step", False),
    ("s = x[i] * s + 1.0", "tf.scan(lambda h, s_step: s_step * h + 1.0", False),
]


@pytest.mark.tf
@pytest.mark.parametrize("update, call, unsafe", TF_SCANS, ids=[u for u, _, _ in TF_SCANS])
def test_tensorflow_scans(tf, update, call, unsafe):
    """TensorFlow loops: tf.math.cumsum/cumprod over [s, terms] (an unsafe fix: TensorFlow's
    order may differ from the loop's), tf.scan for maxima, minima and linear recurrences (the
    loop's own steps, in order, in the graph)."""
    source = ("import tensorflow as tf\n\n\ndef f(x, s):\n    out = []\n"
              f"    for i in range(x.shape[0]):\n        {update}\n        out.append(s)\n"
              "    return tf.stack(out), s\n")
    result = transpile_source(source, "m.py", shapes={"x": 1, "s": 0})
    plan = result.plans[0]
    assert plan.rewritten and plan.backend == "direct" and call in result.code, (plan.remarks, result.code)
    assert (plan.unsafe is not None) == unsafe, plan.unsafe
    before, after = _load(source), _load(result.code)
    for x in (tf.constant([0.5, -1.0, 2.0, 0.25], tf.float64), tf.constant([1.5], tf.float32)):
        for start in (0.5, tf.constant(2.0, x.dtype)):
            want, got = before(x, start), after(x, start)
            assert got[0].dtype == want[0].dtype and got[0].shape == want[0].shape
            np.testing.assert_allclose(got[0].numpy(), want[0].numpy(), rtol=1e-6)
            np.testing.assert_allclose(np.asarray(got[1]), np.asarray(want[1]), rtol=1e-6)
            if not unsafe and "lambda" not in call:
                np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())  # tf.scan: the loop's order


def test_a_scan_is_no_unsafe_fix_and_a_float_derived_step_is():
    scan = _source(RUNNING.replace("UPDATE", "s += x[i]").replace("START", "0.0"))
    assert transpile_source(scan, "m.py", shapes={"x": 1}).plans[0].unsafe is None
    derived = _source("t = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    out[i] = x[i] * t\n"
                      "    t += 0.1\nreturn out\n")
    plan = transpile_source(derived, "m.py", shapes={"x": 1}).plans[0]
    assert plan.rewritten and "`t`" in plan.unsafe
    counted = derived.replace("t = 0.0", "t = 0").replace("t += 0.1", "t += 2")
    assert transpile_source(counted, "m.py", shapes={"x": 1}).plans[0].unsafe is None


@pytest.mark.parametrize("loop", ["for i in range(len(x) - 1, -1, -1):", "for i in reversed(range(len(x))):",
                                  "for i in range(1, len(x), 2):"])
def test_running_values_in_the_loops_order(loop):
    """Counting down (suffix sums, suffix maxima) or by steps: the running values follow the
    iterations, not the indices; no annotation is needed (the ranks come from the code)."""
    for update in ("s += x[i]", "s = np.maximum(s, x[i])"):
        source = _source(f"s = -1.0\nout = np.zeros(len(x))\n{loop}\n    {update}\n    out[i] = s\nreturn out, s\n")
        result = transpile_source(source, "m.py")
        assert result.plans[0].rewritten and ".accumulate(" in result.code, result.plans[0].remarks
        for x in (np.random.default_rng(4).normal(size=9), np.arange(4, dtype=np.float32), np.zeros(0)):
            _same(_load(source)(x.copy()), _load(result.code)(x.copy()))


def test_running_rows_rebound_each_iteration():
    """`acc = acc + x[i]` with `acc` a row: the running rows, in NumPy's broadcast of the start
    and the terms (a (1,) start grows to the rows' width, as `acc + x[i]` does)."""
    source = _source("acc = START\nout = []\nfor i in range(x.shape[0]):\n    acc = acc + x[i] * 2\n"
                     "    out.append(acc)\nreturn np.array(out), acc\n")
    for start in ("np.zeros(x.shape[1])", "np.ones(1, np.float32)"):
        code = source.replace("START", start)
        result = transpile_source(code, "m.py", shapes={"x": 2})
        assert result.plans[0].rewritten and "np.broadcast_shapes" in result.code, result.plans[0].remarks
        for x in (np.random.default_rng(5).normal(size=(6, 3)), np.ones((2, 3), np.float32), np.zeros((1, 1))):
            _same(_load(code)(x.copy()), _load(result.code)(x.copy()))


def test_an_array_updated_in_place_stays_a_loop():
    """`acc += x[i]` on rows writes into `acc` in its own dtype at every step (and every
    `append(acc)` holds that one array): no scan of it; `s += x[i]` on a number is one, and
    a 0-d array `s` (also updated in place) runs the loop, checked at run time."""
    rows = _source("acc = np.zeros(x.shape[1])\nout = np.zeros(x.shape)\nfor i in range(x.shape[0]):\n"
                   "    acc += x[i]\n    out[i] = acc\nreturn out, acc\n")
    plan = transpile_source(rows, "m.py", shapes={"x": 2}).plans[0]
    assert plan.vectorizable and not plan.rewritten and "in place" in plan.remarks[-1].message
    numbers = _source("out = np.zeros(len(x))\nfor i in range(len(x)):\n    s += x[i]\n    out[i] = s\n"
                      "return out, s\n", "x, s")
    result = transpile_source(numbers, "m.py", shapes={"x": 1, "s": 0})
    assert result.plans[0].rewritten and "isinstance(s, (int, float, np.number, np.bool_))" in result.code, \
        result.code
    x = np.arange(4, dtype=np.float32) / 3
    for s in (0.5, np.float32(0.5), np.array(0.5, np.float32), np.array(0.5)):
        want, got = _load(numbers)(x, np.copy(s) if isinstance(s, np.ndarray) else s), _load(result.code)(x, s)
        _same(want, got)


# -- first-order linear recurrences: s = a * s + b ------------------------------------------------------

@pytest.mark.parametrize("update, coefficient, offset", [
    ("h = a[i] * h + x[i]", "a[i]", "x[i]"),
    ("h = h * 0.9 + x[i]", "0.9", "x[i]"),
    ("h = x[i] + c * h", "c", "x[i]"),
    ("h = a[i] * h - x[i]", "a[i]", "-x[i]"),
    ("h = x[i] - a[i] * h", "-a[i]", "x[i]"),
    ("h = c * x[i] + (1 - c) * h", "1 - c", "c * x[i]"),
])
def test_a_first_order_linear_recurrence_is_a_scan(update, coefficient, offset):
    source = _source(f"h = 0.0\nfor i in range(len(x)):\n    {update}\nreturn h\n", "x, a, c")
    (plan,) = analyze_source(source, "m.py")
    assert dict(plan.levels[0].classes)["h"] == "scan" and plan.vectorizable, plan.remarks
    (root,) = discover(module_context(decode_source(source, "m.py")))  # the scan's parts, as recorded
    scan = root.scans["h"]
    assert scan.op == "linear"
    assert (gast.unparse(scan.coefficient).strip(), gast.unparse(scan.offset).strip()) == (coefficient, offset)


@pytest.mark.parametrize("update", ["h = x[i] - h * h", "h = a[i] * h + h * x[i]", "h = 0.5 * h + x[i] * h"])
def test_a_recurrence_that_is_not_linear_in_one_term_stays_carried(update):
    classes, plan = _classes(f"h = 0.0\nfor i in range(len(x)):\n    {update}\nreturn h\n", "x, a")
    assert classes["h"] == "carried" and not plan.vectorizable


LINEAR = """\
h = START
out = np.zeros(len(x))
for i in LOOP:
    UPDATE
    out[i] = h
return out, h
"""


@pytest.mark.parametrize("update, stacked", [("h = a[i] * h + x[i]", True), ("h = x[i] + 0.99 * h", False),
                                             ("h = c * x[i] + (1 - c) * h", False), ("h = h * a[i] - x[i]", True),
                                             ("h = x[i] - c * h", False), ("h = x[i] - a[i] * h", True),
                                             ("h = 0.9 * h - x[i]", False)])
@pytest.mark.parametrize("loop", ["range(len(x))", "reversed(range(len(x)))"])
def test_a_linear_recurrence_is_a_blocked_scan_and_equals_the_loop(update, stacked, loop):
    """Discounted returns, exponential smoothing, an AR(1) with varying coefficients, each
    spelling of the step: blocks scanned on their own (a Toeplitz product for one coefficient,
    lanes for one per iteration), their ends by recursive doubling, and the carry-in added;
    the values equal the loop's to rounding (the composition reassociates: an unsafe fix) at
    every length around a block's (a last block full, one short, one alone)."""
    source = _source(LINEAR.replace("UPDATE", update).replace("LOOP", loop).replace("START", "0.5"), "x, a, c")
    result = transpile_source(source, "m.py", shapes={"x": 1, "a": 1, "c": 0})
    plan = result.plans[0]
    assert plan.rewritten and "while h_span < len(h_ends):" in result.code, plan.remarks
    assert ("out=h_spare_scales[2 * h_span:]" in result.code) == stacked, result.code
    assert ("h_values @ h_steps" in result.code) != stacked, result.code
    # one coefficient walked backwards: the offsets scanned in their own order, none reversed
    assert any(f"h_values[-{n}:]" in result.code for n in ("h_n", "len(x)")) == \
        (not stacked and loop.startswith("reversed")), result.code
    # offsets the rewrite computed are dropped before the product, and computed again only
    # where the steps run in order (offsets read as they are, `x`, are never copied)
    computed = not stacked and "c * x[i]" in update
    assert ("del h_b" in result.code) == computed and ("    h_b = " in result.code.split("isfinite")[-1]) == computed
    assert "linear recurrence `h`" in plan.unsafe
    rng = np.random.default_rng(6)
    sizes = [(n, np.float64) for n in (0, 1, 2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 129, 1000)] + [(7, np.float32), (40, np.float32)]
    for n, dtype in sizes:
        x, a = rng.normal(size=n).astype(dtype), rng.uniform(-1.0, 1.0, n).astype(dtype)
        want, got = _load(source)(x, a, dtype(0.3)), _load(result.code)(x, a, dtype(0.3))
        assert type(got[1]) is type(want[1]) and got[0].dtype == want[0].dtype
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-5 if dtype == np.float32 else 1e-12)  # (float32 cancels near 0)


def test_a_linear_recurrence_of_python_numbers_stays_a_loop():
    """`h = 0.5 * h + 1.0`: every value a Python float in the loop; the rewrite would give
    NumPy ones."""
    source = _source("h = 0.0\nfor i in range(n):\n    h = 0.5 * h + 1.0\nreturn h\n", "n")
    plan = transpile_source(source, "m.py", shapes={"n": 0}).plans[0]
    assert plan.vectorizable and not plan.rewritten and "Python numbers" in plan.remarks[-1].message


def test_a_linear_recurrence_with_one_offset_for_every_iteration():
    """`h = x[i] * h + 1.0`: the offsets are one number, broadcast over the trip count."""
    source = _source("h = 0.5\nout = []\nfor i in range(len(x)):\n    h = x[i] * h + 1.0\n    out.append(h)\n"
                     "return np.array(out), h\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and "h_values[:len(x)] = h_b" in result.code, result.code
    x = np.random.default_rng(7).uniform(-1, 1, 50)
    want, got = _load(source)(x), _load(result.code)(x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert type(got[1]) is type(want[1])


def test_a_loop_counting_down_every_row_reads_and_writes_reversed_slices():
    """`reversed(range(len(x)))` over `x` and an output made as long (`np.zeros(len(x))`): the
    slices `[::-1]`, no index array; an output made from another length, or from `x` before
    the function binds `x` again, is written through the index array."""
    body = "out = np.zeros(len(x))\n{rebind}s = 0.0\nfor i in reversed(range(len(x))):\n    s += x[i]\n" \
           "    out[i] = s\nreturn out, s\n"
    plain = _source(body.format(rebind=""))
    code = transpile_source(plain, "m.py", shapes={"x": 1}).code
    assert "x[::-1]" in code and "out[::-1] = " in code and "np.arange" not in code, code
    rebound = _source(body.format(rebind="x = x[1:]\n"))
    code2 = transpile_source(rebound, "m.py", shapes={"x": 1}).code
    assert "out[::-1]" not in code2 and "np.arange(len(x) - 1, -1, -1)" in code2, code2
    for source, code in ((plain, code), (rebound, code2)):
        for x in (np.arange(5.0), np.zeros(1), np.zeros(0)):
            _same(_load(source)(x.copy()), _load(code)(x.copy()))


def test_a_running_minimum_spelled_term_first_stays_a_loop():
    """`np.minimum(x[i], s)` of two equal zeros returns `s`'s, the accumulate the term's: the
    sign of a zero would differ, so only `np.minimum(s, t)` is a scan rewritten."""
    source = _source("s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    s = np.minimum(x[i], s)\n"
                     "    out[i] = s\nreturn out, s\n")
    plan = transpile_source(source, "m.py", shapes={"x": 1}).plans[0]
    assert plan.vectorizable and not plan.rewritten and "zero's sign" in plan.remarks[-1].message
    want = _load(source)(np.array([-0.0]))
    assert str(want[1]) == "0.0"  # the loop keeps the start's zero


@pytest.mark.parametrize("start", ["1j", "Fraction(1, 2)", "'a'", "np.array(0.5)"])
def test_a_start_numpy_would_not_compute_with_runs_the_loop(start):
    """A Python complex stays one when float64s are added to it, a Fraction or a string is no
    dtype for `np.result_type`, and a 0-d array is updated in place by `+=`: the run-time check
    sends each to the loop."""
    source = ("from fractions import Fraction\n" + _source("out = []\nfor i in range(len(x)):\n    s += x[i]\n"
                                                         "    out.append(s)\nreturn out, s\n", "x, s"))
    result = transpile_source(source, "m.py", shapes={"x": 1, "s": 0})
    assert result.plans[0].rewritten, result.plans[0].remarks
    x = np.array(["b", "c"], dtype=object) if start == "'a'" else np.array([0.5, 0.25])
    begin = eval(start, {"Fraction": __import__("fractions").Fraction, "np": np})
    want = _load(source)(x, np.copy(begin) if isinstance(begin, np.ndarray) else begin)
    got = _load(result.code)(x, begin)
    assert [type(v) for v in got[0]] == [type(v) for v in want[0]] and got[0] == want[0]


@pytest.mark.parametrize("offset", ["x[i]", "2.0 * x[i]"])
def test_a_linear_recurrence_keeps_the_loops_values_where_powers_overflow_or_meet_infinity(offset):
    """|a| > 1 composed in a tree overflows a power the loop never forms (2 ** 1024 * 0), and a
    power that underflows to 0 meets an infinite offset (0 * inf): where a value is not
    finite the steps run in order, and the values are the loop's. Offsets the rewrite computes
    (``2.0 * x[i]``) were dropped before the scan: they are computed again there."""
    source = _source(f"h = 0.0\nout = np.zeros(len(x))\nfor i in reversed(range(len(x))):\n    h = {offset} + c * h\n"
                     "    out[i] = h\nreturn out, h\n", "x, c")
    result = transpile_source(source, "m.py", shapes={"x": 1, "c": 0})
    assert result.plans[0].rewritten and "np.isfinite(h_values).all()" in result.code, result.code
    assert ("del h_b" in result.code) == (offset != "x[i]"), result.code
    spike, flood = np.zeros(2000), np.zeros(3000)
    spike[0], flood[-1] = 1.0, np.inf
    for x, c in ((spike, 2.0), (flood, 0.5)):
        want, got = _load(source)(x, c), _load(result.code)(x, c)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]


@pytest.mark.parametrize("loop", ["range(len(x))", "reversed(range(len(x)))"])
@pytest.mark.parametrize("update", ["h = 31 * h + x[i]", "h = a[i] * h + x[i]", "h = x[i] - 7 * h", "h = 3 * h - x[i]"])
def test_an_integer_linear_recurrence_wraps_as_the_loop_does(update, loop):
    """A polynomial hash, `h = 31 * h + x[i]` in int64: the loop wraps at every step; the
    blocked scan's powers and products wrap too, and wrapping is a ring homomorphism, so every
    value is the loop's exactly (no rounding for integers), at lengths around a block's, in
    either direction."""
    source = _source(f"h = 0\nout = np.zeros(len(x), np.int64)\nfor i in {loop}:\n    {update}\n"
                     "    out[i] = h\nreturn out, h\n", "x, a")
    result = transpile_source(source, "m.py", shapes={"x": 1, "a": 1})
    assert result.plans[0].rewritten, result.plans[0].remarks
    rng = np.random.default_rng(11)
    with np.errstate(over="ignore"):
        for n in (1, 15, 16, 17, 100, 257):
            x, a = rng.integers(-1000, 1000, n), rng.integers(-50, 50, n)
            want, got = _load(source)(x, a), _load(result.code)(x, a)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1] == want[1] and type(got[1]) is type(want[1])


def test_a_negated_offset_is_negated_in_the_running_values_dtype():
    """`h * (1 + r) - pay[t]` with uint8 payments: the loop subtracts in float64; negating the
    uint8 offsets first would wrap."""
    source = _source("out = np.zeros(len(pay))\nfor t in range(len(pay)):\n    bal = bal * (1 + rate) - pay[t]\n"
                     "    out[t] = bal\nreturn out, bal\n", "pay, bal, rate")
    result = transpile_source(source, "m.py", shapes={"pay": 1, "bal": 0, "rate": 0})
    assert result.plans[0].rewritten and "np.negative(bal_values, out=bal_values)" in result.code, result.code
    pay = np.array([1, 255, 6], np.uint8)
    want, got = _load(source)(pay, 0.0, 0.0), _load(result.code)(pay, 0.0, 0.0)
    np.testing.assert_array_equal(got[0], want[0])


def test_a_linear_recurrence_takes_the_dtype_of_the_loops_first_step():
    """`(1 - alpha) * e + alpha * x[t]` from an int8 start: a Python float times an int8 is a
    float64, so the loop runs in float64 even for float16 samples."""
    source = _source("out = np.zeros(len(x))\nfor t in range(len(x)):\n    e = (1 - alpha) * e + alpha * x[t]\n"
                     "    out[t] = e\nreturn out, e\n", "x, alpha, e")
    result = transpile_source(source, "m.py", shapes={"x": 1, "alpha": 0, "e": 0})
    assert result.plans[0].rewritten, result.plans[0].remarks
    x = np.array([1.0, 2.0, 3.0], np.float16)
    want, got = _load(source)(x, 0.3, np.int8(5)), _load(result.code)(x, 0.3, np.int8(5))
    assert type(got[1]) is type(want[1]) is np.float64
    np.testing.assert_allclose(got[0], want[0], rtol=1e-15)


@pytest.mark.parametrize("start", ["0.0", "np.float32(0)"])
def test_a_python_list_of_floats_runs_the_loop(start):
    """A list's items are Python floats: added to a Python start they stay Python floats, to a
    float32 start they are weak (float32); `np.asarray` would make them float64. Without
    declared ranks the check that the terms' array is an ndarray sends lists to the loop."""
    source = _source(f"s = {start}\nout = []\nfor v in x:\n    s += v\n    out.append(s)\nreturn out, s\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "type(x) is np.ndarray" in result.code, result.code
    for x in ([0.5, 0.25, 1e308, 1e308], np.array([0.5, 0.25])):
        want, got = _load(source)(x), _load(result.code)(x)
        assert [type(v) for v in got[0]] == [type(v) for v in want[0]] and got == want, (want, got)


STORED_FIRST = """\
s = START
out = np.zeros(len(x) + 2, DTYPE)
for i in range(1, len(x)):
    out[i + 1] = s
    UPDATE
return out, s
"""


@pytest.mark.parametrize("start, dtype", [("0", "np.int64"), ("0.1", "np.float64"), ("0.1", "np.float32"),
                                          ("np.float32(0.1)", "np.float64"), ("7", "np.float16")])
@pytest.mark.parametrize("update", ["s += x[i]", "s = s * x[i]", "s = np.maximum(s, x[i])"])
def test_an_exclusive_read_that_is_only_stored_is_rewritten(start, dtype, update):
    """``starts[i] = total; total += counts[i]`` (the offsets of a ragged array): the running
    values before each update are ``steps[:-1]``, whose first is ``s`` held in the steps'
    dtype (a Python 0.1 among float32 terms rounds); the first element is stored again from
    ``s`` itself, so every stored value is the loop's, bit for bit."""
    source = _source(STORED_FIRST.replace("START", start).replace("DTYPE", dtype).replace("UPDATE", update))
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "out[1 + 1] = s" in result.code, result.code
    before, after = _load(source), _load(result.code)
    rng = np.random.default_rng(5)
    for x in (rng.normal(size=7).astype(np.float32), rng.normal(size=5), np.arange(1, 6, dtype=np.int8),
              np.zeros(1), np.ones(2, np.float16)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want, got = before(x.copy()), after(x.copy())
        _same(want, got)


@pytest.mark.parametrize("body", [
    "out[i] = s * 2.0\n    s += x[i]",           # computed with: its first value's type matters
    "if x[i] > 0:\n        out[i] = s\n    s += x[i]",  # stored under a test
    "t = s\n    out[i] = t\n    s += x[i]",         # bound to a name first
    "out[i, 0] = s\n    s += x[i]",               # an element of a row: `out` is 1-D, the loop raises
])
def test_other_exclusive_reads_stay_a_loop(body):
    source = _source(f"s = 0.5\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    {body}\nreturn out\n")
    (plan,) = transpile_source(source, "m.py", shapes={"x": 1}).plans
    assert not plan.rewritten


@pytest.mark.parametrize("update, says", [
    ("s = s + x[i]", "scan `s`: `np.add.accumulate` from the start, in the loop's order: O(n) work and depth"),
    ("s = np.maximum(s, x[i])", "scan `s`: `np.maximum.accumulate`"),
    ("s = 0.9 * s + x[i]", "scan `s`: a first-order linear recurrence as a blocked scan"),
])
def test_explain_gives_each_scan_its_form_and_cost(update, says, tmp_path):
    """`explain` names each scan's form and its cost in work and depth (Blelloch 1990): the
    associative scan of a linear recurrence is O(n) work and O(log n) depth."""
    from typer.testing import CliRunner

    from pforge.cli.main import app

    source = _source(f"s = 0.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    {update}\n    out[i] = s\n"
                     "return out\n")
    path = tmp_path / "m.py"
    path.write_text(source)
    result = CliRunner().invoke(app, ["explain", str(path), "--shapes", "x=1"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "rewritten by the direct backend" in text and says in text, text
    assert ("O(log n) depth" in text) == ("linear" in says), text
