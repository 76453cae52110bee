"""Scans in TensorFlow code as people write them, with no ranks given: ``tf.math.cumsum`` and
``cumprod`` with ``exclusive=`` and ``reverse=`` where the loop reads the running value before
its update or counts down, ``tf.scan(..., reverse=True)`` for a linear recurrence walked
backwards (discounted returns), and the list stacked reversed (``tf.stack(out[::-1])``).

Each case is rewritten (asserted first), then run against the loop on several inputs: the sums
and products are an unsafe fix (TensorFlow's order may differ from the loop's in the last bits),
the maxima, minima and linear recurrences (``tf.scan``, the loop's own steps) are equal."""

from __future__ import annotations

import types

import numpy as np
import pytest

from pforge.transpile import transpile_source

pytestmark = pytest.mark.tf


def _load(code: str):
    module = types.ModuleType("m")
    exec(compile(code, "m.py", "exec"), module.__dict__)
    return module.f


def _program(start: str, loop: str, body: str, result: str, params: str = "x") -> str:
    return (f"import tensorflow as tf\n\n\ndef f({params}):\n    s = {start}\n    out = []\n    {loop}\n"
            + "".join(f"        {line}\n" for line in body.split("; ")) + f"    return {result}\n")


FORWARD, DOWN, REVERSED = "for i in range(x.shape[0]):", "for i in range(x.shape[0] - 1, -1, -1):", \
    "for i in reversed(range(x.shape[0])):"

# (start, loop, body, result, what the rewrite must say, what it must not, exact)
CASES = [
    # the start adds nothing: the terms alone, any rank, exclusive and reversed as flags
    ("0.0", FORWARD, "s = s + x[i]; out.append(s)", "tf.stack(out)", "tf.math.cumsum(x, axis=0)", "concat", False),
    ("tf.constant(0.0)", FORWARD, "out.append(s); s = s + x[i]", "tf.stack(out)",
     "s_terms = tf.cast(x, tf.float32)\n    s_steps = tf.math.cumsum(s_terms, axis=0, exclusive=True)", "concat",
     False),
    ("0", DOWN, "s += x[i]; out.append(s)", "tf.stack(out[::-1])", "tf.math.cumsum(x, axis=0, reverse=True)",
     "[::-1]", False),
    ("0.0", REVERSED, "out.append(s); s += x[i]", "tf.stack(out[::-1])",
     "tf.math.cumsum(x, axis=0, reverse=True, exclusive=True)", "[::-1]", False),
    ("0.0", REVERSED, "s += x[i]; out.append(s)", "tf.stack(out)", "reverse=True)", "concat", False),
    ("1.0", FORWARD, "out.append(s); s *= x[i]", "tf.stack(out)", "tf.math.cumprod(x, axis=0, exclusive=True)",
     "concat", False),
    ("0.0", FORWARD, "s -= x[i]; out.append(s)", "(tf.stack(out), s)", "tf.math.cumsum(-x, axis=0)", "concat", False),
    ("0.0", FORWARD, "out.append(s); s = s + x[i]", "(tf.stack(out), s)", "exclusive=True", "concat", False),
    # another start: it goes first (last when reversed), converted as `s + t` converts it
    ("0.1", FORWARD, "s = s + x[i]; out.append(s)", "(tf.stack(out), s)", "tf.convert_to_tensor(s, x.dtype)",
     "tf.cast", False),
    ("0.1", DOWN, "out.append(s); s = s + x[i]", "(tf.stack(out[::-1]), s)", "reverse=True", "tf.cast", False),
    ("2.5", REVERSED, "s = s * x[i]; out.append(s)", "tf.stack(out[::-1])", "tf.math.cumprod(tf.concat([x, ", "", False),
    ("-1e9", FORWARD, "out.append(s); s = tf.maximum(s, x[i])", "(tf.stack(out), s)", "tf.scan(tf.maximum, ",
     "", True),
    ("1e9", DOWN, "s = tf.minimum(s, x[i]); out.append(s)", "tf.stack(out[::-1])", "tf.scan(tf.minimum, ", "",
     True),
    # linear recurrences: tf.scan, reversed for returns walked backwards
    ("0.0", REVERSED, "s = x[i] + 0.9 * s; out.append(s)", "tf.stack(out[::-1])",
     "tf.scan(lambda h, s_step: 0.9 * h + s_step, x, initializer=tf.convert_to_tensor(0.0, x.dtype), reverse=True)",
     "concat", True),
    ("0.3", DOWN, "out.append(s); s = 0.5 * s + x[i]", "(tf.stack(out[::-1]), s)", "reverse=True", "", True),
    ("0.3", FORWARD, "s = 0.5 * s + x[i]; out.append(s)", "(tf.stack(out[::-1]), s)", "tf.scan(", "reverse=True",
     True),
    # a linear step that subtracts runs as the loop spells it (no negated part: the same bits)
    ("0.3", FORWARD, "s = s * 0.5 - x[i]; out.append(s)", "(tf.stack(out), s)", "0.5 * h - s_step", "", True),
    ("0.3", DOWN, "s = x[i] - s * 0.5; out.append(s)", "(tf.stack(out[::-1]), s)", "s_step - 0.5 * h", "", True),
]


@pytest.mark.parametrize("start, loop, body, result, says, not_says, exact", CASES,
                         ids=[f"{c[0]}-{c[1][8:18]}-{c[2]}-{c[3]}" for c in CASES])
def test_tensorflow_scans_unannotated(tf, start, loop, body, result, says, not_says, exact):
    source = _program(start, loop, body, result)
    # the start adds nothing to a sum or product from 0 or 1: no rank needed; else one number each
    identity = start in ("0", "0.0", "tf.constant(0.0)") and "0.9" not in body or start == "1.0" and "*" in body
    out = transpile_source(source, "m.py", shapes=None if identity else {"x": 1})
    plan = out.plans[0]
    assert plan.rewritten and plan.backend == "direct", plan.remarks[-1].message
    assert says in out.code and (not not_says or not_says not in out.code.split("def f")[1]), out.code
    assert "for i in" not in out.code, out.code
    if identity and "out.append(s); s" in body and "(tf.stack(out), s)" not in result:
        # read before the update only: the exclusive scan alone (no inclusive one to drop)
        assert out.code.count("tf.math.cum") == 1, out.code
    before, after = _load(source), _load(out.code)
    rng = np.random.default_rng(7)
    inputs = [tf.constant(rng.normal(size=9)), tf.constant(rng.uniform(0.5, 1.5, size=5).astype(np.float32)),
              # one iteration: an exclusive read stacks the start alone, in its own dtype
              tf.constant(rng.normal(size=1)), tf.constant(rng.normal(size=1).astype(np.float32))]
    if "tf.constant(" in start:
        # (a float32 start: the loop itself raises on float64 tensors, and converts each item of
        # a NumPy float64 array to float32, as the rewrite must)
        inputs = inputs[1:2] + inputs[3:] + [rng.normal(size=6)]
    for x in inputs:
        want, got = before(x), after(x)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for w, g in zip(want, got):
            w, g = tf.convert_to_tensor(w), tf.convert_to_tensor(g)
            assert g.dtype == w.dtype and g.shape == w.shape, (w, g)
            if exact:
                np.testing.assert_array_equal(g.numpy(), w.numpy())
            else:
                np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5 if w.dtype == tf.float32 else 1e-12)


def test_rows_summed_from_a_zero_start(tf):
    """The start adds nothing, so the running values have the terms' shape, whatever their
    rank: the scan of rows needs no rank given."""
    source = _program("0.0", FORWARD, "s = s + x[i]; out.append(s)", "tf.stack(out)")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "tf.math.cumsum(x, axis=0)" in out.code, out.plans[0].remarks
    x = tf.constant(np.random.default_rng(1).normal(size=(6, 3)))
    np.testing.assert_allclose(_load(out.code)(x).numpy(), _load(source)(x).numpy(), rtol=1e-12)


def test_a_python_float_start_is_converted_as_the_loop_converts_it(tf):
    """``tf.cast(0.1, tf.float64)`` goes through float32 (0.10000000149...), ``0.1 + t`` does
    not: the start is converted with ``tf.convert_to_tensor(s, dtype)``."""
    source = _program("0.1", FORWARD, "s = tf.maximum(s, x[i]); out.append(s)", "tf.stack(out)")
    out = transpile_source(source, "m.py", shapes={"x": 1})
    assert out.plans[0].rewritten, out.plans[0].remarks
    x = tf.constant([-1.0, -2.0, 0.0], tf.float64)
    np.testing.assert_array_equal(_load(out.code)(x).numpy(), _load(source)(x).numpy())  # [0.1, 0.1, 0.1]


@pytest.mark.parametrize("start, body, why", [
    # read before its update other than to be appended: the first value would be `s` itself
    ("0.0", "out.append(s * 2.0); s = s + x[i]", "exclusive"),
])
def test_look_alikes_stay_loops(tf, start, body, why):
    source = _program(start, FORWARD, body, "tf.stack(out)")
    plan = transpile_source(source, "m.py").plans[0]
    assert not plan.rewritten and why in plan.remarks[-1].message, plan.remarks[-1].message


# A running sum, product, maximum or minimum from a start that is not its identity, of terms of
# a rank not known: tf.scan over the rows, each step the loop's own update on one row (its
# operand order and rounding), from the start broadcast to a row's shape. (start, loop, body,
# result, what the rewrite says)
UNRANKED_RUNNING = [
    ("0.5", FORWARD, "s = s + x[i]; out.append(s)", "tf.stack(out)",
     "tf.scan(lambda h, s_step: h + s_step, x, initializer=tf.broadcast_to(tf.convert_to_tensor(0.5, x.dtype), "
     "tf.shape(x)[1:]))"),
    ("0.1", DOWN, "s -= x[i] * 2.0; out.append(s)", "tf.stack(out[::-1])",
     "tf.scan(lambda h, s_step: h - s_step * 2.0, x, initializer="),
    ("2.0", FORWARD, "s *= 1.0 + 0.1 * tf.tanh(x[i]); out.append(s * 2.0)", "tf.stack(out)",
     "lambda h, s_step: h * (1.0 + 0.1 * tf.tanh(s_step))"),
    # the start spelled with a minus sign is a literal too (the statement goes)
    ("-1e9", FORWARD, "s = tf.maximum(s, x[i] * 2.0); out.append(s)", "tf.stack(out)",
     "lambda h, s_step: tf.maximum(h, s_step * 2.0), x, initializer=tf.broadcast_to(tf.convert_to_tensor("
     "-1000000000.0, x.dtype)"),
    # the term first, as the loop spells it (the sign of equal zeros is the loop's)
    ("1e9", REVERSED, "u = x[i] - 0.25; s = tf.minimum(u, s); out.append(s)", "tf.stack(out[::-1])",
     "lambda h, s_step: tf.minimum(s_step - 0.25, h), x, initializer="),
]


@pytest.mark.parametrize("start, loop, body, result, says", UNRANKED_RUNNING, ids=[c[2] for c in UNRANKED_RUNNING])
def test_running_values_of_unknown_rank(tf, start, loop, body, result, says):
    source = _program(start, loop, body, result)
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and says in out.code, out.plans[0].remarks[-1].message + "\n" + out.code
    assert "for i in" not in out.code and "s = " not in out.code.split("def f(x):")[1].split("#")[0], out.code
    rng = np.random.default_rng(5)
    for shape, dtype in (((7,), tf.float64), ((5, 3), tf.float32), ((4, 2, 2), tf.float64)):
        values = rng.normal(size=shape)
        values[1] = 0.0  # (a zero against the running value's: the loop's sign kept)
        x = tf.constant(values, dtype)
        want, got = _load(source)(x), _load(out.code)(x)
        assert got.dtype == want.dtype and got.shape == want.shape, (want, got)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_maximum_spelled_term_first_steps_as_the_loop_does(tf):
    """``s = tf.maximum(x[i], s)`` with one number per iteration: ``tf.scan(tf.maximum, ...)``
    would call it running value first; the step is the loop's own call."""
    source = _program("-1e9", FORWARD, "s = tf.maximum(x[i], s); out.append(s)", "tf.stack(out)")
    out = transpile_source(source, "m.py", shapes={"x": 1})
    assert out.plans[0].rewritten and "lambda h, s_step: tf.maximum(s_step, h), x" in out.code, out.code
    x = tf.constant([-0.0, 0.0, -0.0, 1.5, -2.0], tf.float64)
    want, got = _load(source)(x), _load(out.code)(x)
    np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_loop_around_the_scan_carries_its_value(tf):
    """In an outer loop, the second pass starts from the value the first left: the literal
    start is no longer the only one, so the start is kept (`tf.concat`)."""
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    s = 0.0\n    outs = []\n    for k in range(2):\n"
              "        out = []\n        if k >= 0:\n            for i in range(x.shape[0]):\n                s = s + x[i]\n"
              "                out.append(s)\n        outs.append(tf.stack(out))\n    return outs\n")
    out = transpile_source(source, "m.py", shapes={"x": 1})
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    want, got = _load(source)(x), _load(out.code)(x)
    assert "tf.math.cumsum(x, axis=0)" not in out.code, out.code
    for w, g in zip(want, got):
        np.testing.assert_allclose(g.numpy(), w.numpy())


def test_a_start_bound_nowhere_raises_as_the_loop_does(tf):
    """No definition of `s` reaches the loop: the loop raises at its first read, and so does
    the rewrite (the start is read, not assumed to be 0)."""
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    out = []\n    for i in range(x.shape[0]):\n"
              "        s = s + x[i]\n        out.append(s)\n    return tf.stack(out)\n")
    out = transpile_source(source, "m.py", shapes={"x": 1})
    assert out.plans[0].rewritten and "tf.math.cumsum(x, axis=0)" not in out.code, out.code
    for fn in (_load(source), _load(out.code)):
        with pytest.raises(UnboundLocalError):
            fn(tf.constant([1.0, 2.0]))


@pytest.mark.parametrize("loop", [FORWARD, REVERSED])
def test_read_before_and_after_its_update(tf, loop):
    """From a zero start, the values before each update (exclusive) and after it (inclusive):
    two scans of the terms."""
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    s = 0.0\n    before = []\n    after = []\n"
              f"    {loop}\n        before.append(s)\n        s = s + x[i]\n        after.append(s)\n"
              "    return tf.stack(before), tf.stack(after)\n")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "exclusive=True" in out.code and out.code.count("tf.math.cumsum(") == 2, \
        out.code
    x = tf.constant(np.random.default_rng(4).normal(size=7))
    for w, g in zip(_load(source)(x), _load(out.code)(x)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


@pytest.mark.parametrize("start, body, result, kept", [
    # the scan of the terms alone, or the literal written in: `s = ...` before the loop goes
    ("0.0", "s = s + x[i]; out.append(s)", "tf.stack(out)", False),
    ("0.0", "s = x[i] + 0.9 * s; out.append(s)", "tf.stack(out)", False),
    ("0.5", "s = 0.5 * s + x[i]; out.append(s)", "tf.stack(out)", False),
    # read after the loop, or bound by a call: it stays
    ("0.0", "s = s + x[i]; out.append(s)", "(tf.stack(out), s)", True),
    ("tf.constant(0.0, tf.float64)", "s = x[i] + 0.9 * s; out.append(s)", "tf.stack(out)", True),
])
def test_a_start_nothing_else_reads_is_deleted(tf, start, body, result, kept):
    """The running values bound straight to the list's name, and `s = 0.0` deleted where the
    batched code does not read it and nothing but the loop did."""
    source = _program(start, FORWARD, body, result)
    out = transpile_source(source, "m.py", shapes={"x": 1})
    assert out.plans[0].rewritten, out.plans[0].remarks[-1].message
    function = out.code.split("def f")[1]
    assert (f"s = {start}" in function) is kept, out.code
    assert "out = []" not in function, out.code  # (the collector's start goes with it)
    assert "_steps" not in function.split("return")[0].split("=")[0] and "    out = tf." in function, out.code
    x = tf.constant(np.random.default_rng(5).normal(size=6))
    want, got = _load(source)(x), _load(out.code)(x)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(want, got):
        np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), tf.convert_to_tensor(w).numpy(), rtol=1e-12)


# A linear recurrence whose parts' ranks are not known: tf.scan over the rows the parts read,
# each step the loop's own expression on one row, from the start broadcast to the shapes of the
# rows and of the invariants the step reads. (params, body, loop, result, what the rewrite says)
UNRANKED = [
    ("x, gamma", "s = x[i] + gamma * s; out.append(s)", REVERSED, "tf.stack(out[::-1])",
     "lambda h, s_step: gamma * h + s_step, x, initializer=tf.broadcast_to(tf.convert_to_tensor(0.0, x.dtype), "
     "tf.broadcast_dynamic_shape(tf.shape(x)[1:], tf.shape(gamma))), reverse=True)"),
    ("x, alpha", "s = alpha * x[i] + (1 - alpha) * s; out.append(s)", FORWARD, "tf.stack(out)",
     "lambda h, s_step: (1 - alpha) * h + alpha * s_step, x"),
    # two sequences: the rows of both, as a tuple
    ("x, y", "s = y[i] * s - x[i]; out.append(s)", FORWARD, "tf.stack(out)",
     "y_rows = tf.convert_to_tensor(y)[:x.shape[0]]\n    out = tf.scan(lambda h, s_step: s_step[0] * h - s_step[1], (y_rows, x)"),
    ("x, gamma", "s = x[i] + gamma * s; out.append(s)", DOWN, "tf.stack(out[::-1])", "reverse=True"),
    # a value the body computes first, substituted into the step
    ("x, gamma", "u = x[i]; s = gamma * s + u * 2.0; out.append(s)", FORWARD, "tf.stack(out)",
     "lambda h, s_step: gamma * h + s_step * 2.0, x"),
    # read after the loop: its last running value where the loop runs (the start, of its own
    # shape, where it does not)
    ("x, gamma", "s = x[i] + gamma * s; out.append(s)", FORWARD, "(tf.stack(out), s)",
     "    out = s_steps\n    if x.shape[0] > 0:\n        s = s_steps[-1]\n"),
    ("x, gamma", "s = tf.maximum(s, x[i] * gamma); out.append(s * 2.0)", REVERSED, "(tf.stack(out[::-1]), s)",
     "    if x.shape[0] - 1 > -1:\n        s = s_steps[0]\n"),
    # a value the body computes from the rows, of a rank not known: batched only by the scan's step
    ("x, gamma", "u = x[i] * 2.0; s = gamma * s + u; out.append(s)", FORWARD, "tf.stack(out)",
     "lambda h, s_step: gamma * h + s_step * 2.0, x"),
    ("x, y", "u = tf.sin(y[i]) - 0.5; v = u * x[i]; s = v + s * u; out.append(s)", FORWARD, "tf.stack(out)",
     "lambda h, s_step: (tf.sin(s_step[0]) - 0.5) * h + (tf.sin(s_step[0]) - 0.5) * s_step[1], "
     "(y_rows, x)"),
    # a row read through a call: `tf` of `tf.sin` is a module, not an invariant with a shape
    # (fuzz seed 9182: `tf.shape(tf)` raised)
    ("x, y", "s = tf.sin(y[i]) * s + x[i]; out.append(s)", FORWARD, "tf.stack(out)",
     "lambda h, s_step: tf.sin(s_step[0]) * h + s_step[1], (y_rows, x), "
     "initializer=tf.broadcast_to(tf.convert_to_tensor(0.0, y_rows.dtype), "
     "tf.broadcast_dynamic_shape(tf.shape(y_rows)[1:], tf.shape(x)[1:])))"),
]


@pytest.mark.parametrize("params, body, loop, result, says", UNRANKED, ids=[c[1] for c in UNRANKED])
def test_linear_recurrences_of_unknown_rank(tf, params, body, loop, result, says):
    source = _program("0.0", loop, body, result, params)
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and says in out.code, out.plans[0].remarks[-1].message + "\n" + out.code
    assert "for i in" not in out.code, out.code
    rng = np.random.default_rng(11)
    # (no empty input: an empty TensorFlow loop's `tf.stack([])` is float32, the rewrite's the
    # rows' dtype, as documented)
    for shape, invariant in (((7,), 0.9), ((5, 3), tf.constant([0.5, -0.25, 0.75], tf.float64)),
                             ((4,), tf.constant([[0.5], [0.75]], tf.float64))):
        x = tf.constant(rng.normal(size=shape))
        other = invariant if "y" not in params else tf.constant(rng.normal(size=shape))
        try:
            want = _load(source)(x, other)
        except (ValueError, tf.errors.InvalidArgumentError) as exc:  # (an exclusive read stacks () with (3,))
            with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
                _load(out.code)(x, other)
            continue
        got = _load(out.code)(x, other)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for w, g in zip(want, got):
            w, g = tf.convert_to_tensor(w), tf.convert_to_tensor(g)
            assert g.dtype == w.dtype and g.shape == w.shape, (w, g)
            np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("body, result", [
    ("s = 0.5 * s + i; out.append(s)", "tf.stack(out)"),  # the index as a value, not a row
    # a value the body computes under a test, or binds twice: no one expression to substitute
    ("u = x[i]; u = u * 2.0; s = 0.5 * s + u; out.append(s)", "tf.stack(out)"),
    ("u = x[i]\n        if c > 0:\n            u = x[i] * 2.0\n        s = 0.5 * s + u; out.append(s)", "tf.stack(out)"),
    # a cast in the step from a literal start: the running value's dtype is the cast's, not the rows'
    ("s = 0.5 * s + tf.cast(x[i], tf.float32); out.append(s)", "tf.stack(out)"),
    ("s = s * s + x[i]; out.append(s)", "tf.stack(out)"),  # not linear
    # a step that is not elementwise: the running value is not of the rows' shape (a reduction
    # of a row, an element of an invariant), where the start would be broadcast to it
    ("s = 0.5 * s + tf.reduce_sum(x[i]); out.append(s)", "tf.stack(out)"),
    ("s = tf.maximum(s, tf.norm(x[i])); out.append(s)", "tf.stack(out)"),
    ("s = 0.5 * s + x[i] * c[0]; out.append(s)", "tf.stack(out)"),
    # a step that needs the rows' values, which a step of tf.scan traced into a graph has not
    # (the loop's `float(x[i])` of an eager tensor; a rewrite raised there)
    ("s = 0.5 * s + float(x[i]); out.append(s)", "tf.stack(out)"),
    ("u = x[i].numpy() * 2.0; s = 0.5 * s + u; out.append(s)", "tf.stack(out)"),
    # a value of a rank not known that the step reads and something else reads too: it would
    # need batching on its own (a collector, a test, a second binding, a read after the loop)
    ("u = x[i] * 2.0; s = 0.5 * s + u; out.append(u)", "tf.stack(out)"),
    ("u = x[i] * 2.0; s = 0.5 * s + u; out.append(s * u)", "tf.stack(out)"),
    ("u = x[i] * 2.0\n        if u > c:\n            s = 0.5 * s + u\n        out.append(s)", "tf.stack(out)"),
    ("u = x[i] * 2.0; u = u + c; s = 0.5 * s + u; out.append(s)", "tf.stack(out)"),
    ("u = x[i] * 2.0; s = 0.5 * s + u; out.append(s)", "(tf.stack(out), u)"),
    ("u = x[i] * c; s = 0.5 * s + u; c = u; out.append(s)", "tf.stack(out)"),
    # read before its update other than to be stacked: the first value is the start as it was
    ("out.append(s * 2.0); s = x[i] + 0.5 * s", "tf.stack(out)"),
    ("y = s; s = x[i] + 0.5 * s; out.append(y)", "tf.stack(out)"),
])
def test_unranked_look_alikes_stay_loops(tf, body, result):
    source = _program("0.0", FORWARD, body, result, "x, c")
    out = transpile_source(source, "m.py")
    assert not out.plans[0].rewritten and "for i in" in out.code, out.code


@pytest.mark.parametrize("loop, result, says", [
    (FORWARD, "tf.stack(out)", "tf.concat([tf.expand_dims(s_start, 0), tf.scan(lambda h, s_step: gamma * h + s_step, x, "
     "initializer=s_start)], 0)"),
    (REVERSED, "tf.stack(out[::-1])", "tf.concat([tf.scan(lambda h, s_step: gamma * h + s_step, x, initializer=s_start, "
     "reverse=True), tf.expand_dims(s_start, 0)], 0)"),
    (FORWARD, "(tf.stack(out), s)", "if x.shape[0] > 0:\n        s = s_steps[1:][-1]"),
])
def test_an_exclusive_linear_recurrence_of_unknown_rank(tf, loop, result, says):
    """``out.append(s)`` before ``s = gamma * s + x[i]``, ranks unknown: the start, then the
    steps of ``tf.scan`` but the last. On one iteration the loop stacks the start alone, of its
    own dtype and shape (a Python float as float32), and so does the rewrite; from two on,
    ``tf.stack`` converts it to the steps' dtype, which needs the steps to be numbers (rows of
    several numbers: the loop raises, where the rewrite returns)."""
    source = _program("0.0", loop, "out.append(s); s = gamma * s + x[i]", result, "x, gamma")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten, out.plans[0].remarks[-1].message
    assert says in out.code and "for i in" not in out.code, out.code
    assert "tf.stack([s]) if s_steps" in out.code, out.code
    rng = np.random.default_rng(12)
    for n in (1, 2, 7):
        for dtype, gamma in ((np.float64, 0.9), (np.float32, 0.5), (np.float64, tf.constant(0.25, tf.float64))):
            x = tf.constant(rng.normal(size=n).astype(dtype))
            want, got = _load(source)(x, gamma), _load(out.code)(x, gamma)
            want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
            for w, g in zip(want, got):
                w, g = tf.convert_to_tensor(w), tf.convert_to_tensor(g)
                assert g.dtype == w.dtype and g.shape == w.shape, (n, w, g)
                np.testing.assert_array_equal(g.numpy(), w.numpy())
    rows = tf.constant(rng.normal(size=(1, 3)))  # one row of three: the start alone, as the loop has it
    want, got = _load(source)(rows, 0.5), _load(out.code)(rows, 0.5)
    want, got = (want[0], got[0]) if isinstance(want, tuple) else (want, got)
    assert got.dtype == want.dtype == tf.float32 and got.shape == want.shape == (1,)


def test_a_value_the_body_computes_is_substituted_into_the_step(tf):
    """Forward substitution: `reward = rewards[t]`, then the step reads `tf.cast(reward, ...)`;
    the step of the scan reads the row itself. A start made by `tf.constant(..., dtype=)` keeps
    its dtype (the cast's), where the rows are float64 (a discounted return as it is written in
    the wild, with a `TensorArray` too). The private itself, read by nothing the rewrite keeps,
    goes (dead-code elimination)."""
    source = ("import tensorflow as tf\n\n\ndef f(rewards, gamma):\n"
              "    returns = tf.TensorArray(dtype=tf.float32, size=tf.shape(rewards)[0])\n"
              "    discounted_sum = tf.constant(0.0, dtype=tf.float32)\n"
              "    for index in tf.range(tf.shape(rewards)[0]):\n"
              "        reward = rewards[index]\n"
              "        discounted_sum = tf.cast(reward, tf.float32) + gamma * discounted_sum\n"
              "        returns = returns.write(index, discounted_sum)\n"
              "    return returns.stack()\n")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "lambda h, discounted_sum_step: gamma * h + tf.cast(discounted_sum_step, " \
        "tf.float32)" in out.code and "initializer=tf.broadcast_to(discounted_sum, " in out.code, out.code
    # (`reward`, private to the loop and read by nothing the rewrite keeps, is not bound at all)
    assert "reward = " not in out.code.split("for index")[0].split("# pforge")[1], out.code
    rng = np.random.default_rng(2)
    for rewards in (tf.constant(rng.normal(size=9)), tf.constant(rng.normal(size=(4, 2)))):
        want, got = _load(source)(rewards, 0.9), _load(out.code)(rewards, 0.9)
        assert got.dtype == want.dtype == tf.float32 and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_a_start_bound_beside_another_name_stays(tf):
    """`s, q = 0.0, 2.0`: the statement binds `q` too, which the code after the loop reads, so
    it stays though the scan no longer reads `s`."""
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    s, q = 0.0, 2.0\n    out = []\n"
              "    for i in range(x.shape[0]):\n        s = s + x[i]\n        out.append(s)\n"
              "    return tf.stack(out) * q\n")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "s, q = 0.0, 2.0" in out.code, out.code
    x = tf.constant([0.5, 1.5, -2.0], tf.float64)
    np.testing.assert_allclose(_load(out.code)(x).numpy(), _load(source)(x).numpy(), rtol=1e-12)


def test_a_start_bound_in_branches_stays(tf):
    """`s = 0.0` in both arms of an `if`: deleting them would leave the arms empty, so they stay
    (only a start beside the loop goes)."""
    source = ("import tensorflow as tf\n\n\ndef f(x, a):\n    if a:\n        s = 0.0\n    else:\n        s = 0.0\n"
              "    out = []\n    for i in range(x.shape[0]):\n        s = s + x[i]\n        out.append(s)\n"
              "    return tf.stack(out)\n")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and out.code.count("s = 0.0") == 2, out.code
    compile(out.code, "m.py", "exec")


@pytest.mark.parametrize("shapes", [None, {"x": 1, "h": 0}], ids=["unranked", "ranked"])
def test_the_scans_running_value_is_no_name_the_step_reads(tf, shapes):
    """`s = h * s + x[i]` with a parameter named `h`: the lambda's running value takes a name of
    its own (`h_1`), where `lambda h, s_step: h * h + s_step` read the running value twice (a
    wrong rewrite found in review, session 28)."""
    source = _program("0.0", FORWARD, "s = h * s + x[i]; out.append(s)", "tf.stack(out)", "x, h")
    out = transpile_source(source, "m.py", shapes=shapes)
    assert out.plans[0].rewritten and "lambda h_1, s_step: h * h_1 + s_step" in out.code, out.code
    x = tf.constant(np.random.default_rng(8).normal(size=7))
    np.testing.assert_array_equal(_load(out.code)(x, 0.5).numpy(), _load(source)(x, 0.5).numpy())
