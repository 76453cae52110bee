"""Lists built from the front, ``rows.insert(0, e)``, and loops over ``reversed(x)``: the
idiom of rewards-to-go as reinforcement-learning code writes it::

    R = 0.0
    returns = []
    for r in reversed(rewards):
        R = r + gamma * R
        returns.insert(0, R)

A list whose every item goes to the front holds the items last first: the batched value
reversed along the loop axis, where one stacking or array call reads it. ``reversed(x)``
walks the rows of ``x[::-1]``. Each rewrite is asserted first, then run against the loop."""

from __future__ import annotations

import textwrap
import types

import numpy as np
import pytest

from pforge.transpile import analyze_source, transpile_source


def _load(code: str):
    module = types.ModuleType("m")
    exec(compile(code, "m.py", "exec"), module.__dict__)
    return module.f


def _source(header: str, body: str, lib: str = "numpy as np") -> str:
    return f"import {lib}\n\n\ndef {header}:\n" + textwrap.indent(textwrap.dedent(body), "    ")


# (header, body, what the rewrite must say)
NUMPY = [
    # rewards-to-go: the scan walks the rewards backwards, the list holds them in their order
    ("f(rewards, gamma)", """\
        R = 0.0
        returns = []
        for r in reversed(rewards):
            R = r + gamma * R
            returns.insert(0, R)
        return np.array(returns)
        """, "rewards[::-1]"),
    ("f(rewards, gamma)", """\
        R = 0.0
        returns = []
        for r in rewards[::-1]:
            R = r + gamma * R
            returns.insert(0, R)
        return np.array(returns)
        """, "[::-1]"),
    # a map built from the front: the rows reversed
    ("f(rewards, gamma)", """\
        out = []
        for i in range(len(rewards)):
            out.insert(0, rewards[i] * gamma + 1.0)
        return np.stack(out)
        """, "[::-1]"),
    # from the front over rows walked backwards: the two reversals cancel
    ("f(rewards, gamma)", """\
        out = []
        for r in reversed(rewards):
            out.insert(0, np.tanh(r) * gamma)
        return np.array(out)
        """, "(np.tanh(np.asarray(rewards[::-1])) * gamma)[::-1]"),
    # returns with episode masks (A2C's `compute_returns`): the running value one factor of a
    # product, the list itself returned
    ("f(rewards, gamma)", """\
        R = 0.5
        returns = []
        masks = (rewards > -1.0) * 1.0
        for step in reversed(range(len(rewards))):
            R = rewards[step] + gamma * R * masks[step]
            returns.insert(0, R)
        return returns
        """, "returns = list(R_values)[::-1]"),
    # a filter built from the front
    ("f(rewards, gamma)", """\
        out = []
        for r in rewards:
            if r > 0:
                out.insert(0, r * gamma)
        return np.array(out)
        """, "[::-1]"),
]


@pytest.mark.parametrize("header, body, says", NUMPY, ids=[c[1].split("\n")[-3].strip() + f"-{k}" for k, c in enumerate(NUMPY)])
def test_numpy_lists_built_from_the_front(header, body, says):
    source = _source(header, body)
    out = transpile_source(source, "m.py")
    plan = out.plans[0]
    assert plan.rewritten and says in out.code.split("else:")[0], (plan.remarks[-1].message, out.code)
    rng = np.random.default_rng(3)
    for rewards in (rng.normal(size=40), rng.normal(size=1), rng.normal(size=7).tolist()):
        if "masks" in body and isinstance(rewards, list):
            continue
        want, got = _load(source)(rewards, 0.9), _load(out.code)(rewards, 0.9)
        if isinstance(want, list):  # (the list itself: its items of the loop's types)
            assert type(got) is list and [type(v) for v in got] == [type(v) for v in want]
            want, got = np.array(want), np.array(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


TENSORFLOW = [
    # returns with episode masks: the loop's own product in the step (`gamma * h * mask`); the
    # masks' rows the loop reads, counted down over the rewards', are `masks[:n]` scanned in reverse
    ("f(rewards, gamma)", """\
        G = 0.0
        returns = []
        masks = tf.cast(rewards > -1.0, rewards.dtype)
        for t in reversed(range(rewards.shape[0])):
            G = rewards[t] + gamma * G * masks[t]
            returns.insert(0, G)
        return tf.stack(returns)
        """, "masks_rows = masks[:rewards.shape[0]]\n    returns = tf.scan(lambda h, G_step: G_step[0] + gamma * h * "
            "G_step[1], (rewards, masks_rows)"),
    # rewards-to-go: `tf.scan(..., reverse=True)` over the rewards as they are, no reversal
    ("f(rewards, gamma)", """\
        G = 0.0
        returns = []
        for r in reversed(rewards):
            G = r + gamma * G
            returns.insert(0, G)
        return tf.stack(returns)
        """, "returns = tf.scan(lambda h, G_step: gamma * h + G_step, rewards_rows, initializer="),
    ("f(rewards, gamma)", """\
        out = []
        for r in rewards:
            out.insert(0, tf.tanh(r) * gamma)
        return tf.stack(out)
        """, "[::-1]"),
]


@pytest.mark.tf
@pytest.mark.parametrize("header, body, says", TENSORFLOW, ids=["masked returns", "returns", "map"])
def test_tensorflow_lists_built_from_the_front(tf, header, body, says):
    source = _source(header, body, "tensorflow as tf")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and says in out.code, (out.plans[0].remarks[-1].message, out.code)
    assert "insert" not in out.code and " in reversed(" not in out.code and "for r in" not in out.code, out.code
    rng = np.random.default_rng(4)
    for shape in ((30,), (6, 2)):
        rewards = tf.constant(rng.normal(size=shape))
        want, got = _load(source)(rewards, 0.9), _load(out.code)(rewards, 0.9)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("body", [
    # items at both ends: no one order of the iterations
    "out.insert(0, r)\n    out.append(r)",
    # another position than the front
    "out.insert(1, r)",
    "out.insert(len(out), r)",
])
def test_other_inserts_are_no_collector(body):
    from pforge.transpile.analysis import discover
    from pforge.transpile.frontend import decode_source
    from pforge.transpile.outline import module_context

    source = _source("f(x)", f"out = []\nfor r in x:\n    {body}\nreturn np.array(out)\n")
    (root,) = discover(module_context(decode_source(source, "m.py")))
    assert "out" not in root.collectors
    assert not analyze_source(source, "m.py")[0].vectorizable


@pytest.mark.parametrize("consumer", [
    "return np.array(out[::-1])",  # read reversed again
    "return out, out",  # read twice: extended in place, which takes items at its end
])
def test_lists_built_from_the_front_and_read_otherwise_stay_loops(consumer):
    source = _source("f(x)", f"out = []\nfor r in x:\n    out.insert(0, r * 2.0)\n{consumer}\n")
    out = transpile_source(source, "m.py")
    assert not out.plans[0].rewritten and out.code == source, out.code


@pytest.mark.tf
def test_rows_of_another_array_counted_down_are_its_first_rows_reversed(tf):
    """``y[t]`` for ``t`` counting down over ``x``'s rows reads ``y[:n][::-1]``, with the loop's
    bound checked (a shorter ``y`` raises as the loop's read past its end does)."""
    source = _source("f(x, y)", """\
        out = []
        for t in reversed(range(x.shape[0])):
            out.append(y[t] * 2.0 + x[t])
        return tf.stack(out)
        """, "tensorflow as tf")
    out = transpile_source(source, "m.py", backend="direct", shapes={"x": 2, "y": 2})
    assert out.plans[0].rewritten and "[:x.shape[0]][::-1]" in out.code and "assert_less_equal" in out.code, out.code
    rng = np.random.default_rng(6)
    x, y = tf.constant(rng.normal(size=(5, 2))), tf.constant(rng.normal(size=(8, 2)))
    np.testing.assert_array_equal(_load(out.code)(x, y).numpy(), _load(source)(x, y).numpy())
    with pytest.raises((tf.errors.InvalidArgumentError, IndexError, ValueError)):
        _load(source)(x, y[:3])
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):  # (a static shape check may come first)
        _load(out.code)(x, y[:3])


@pytest.mark.parametrize("update", [
    "R = r + gamma * R * R",  # the running value twice: not linear
    "R = r + R * gamma * R",
    "R = r + gamma * R * (R > 0)",
])
def test_products_with_the_running_value_more_than_once_are_no_linear_scan(update):
    source = _source("f(rewards, gamma)", f"R = 0.0\nreturns = []\nfor r in reversed(rewards):\n    {update}\n"
                     "    returns.insert(0, R)\nreturn np.array(returns)\n")
    plan = analyze_source(source, "m.py")[0]
    assert not plan.vectorizable, plan.remarks


# Found by an adversarial review (session 29): each was a wrong rewrite or a raise.

@pytest.mark.parametrize("loop", ["for r in reversed(x):", "for r in x[::-1]:"])
def test_rows_walked_backwards_keep_the_check_on_their_kind(loop):
    """A sum over ``reversed(x)`` or ``x[::-1]`` batches ``np.asarray(x[::-1])`` only where ``x`` is
    an array: Python ints past int64 grow in the loop, and a deque has no slices."""
    import collections

    source = _source("f(x)", f"s = 0\n{loop}\n    s = s + r\nreturn s\n")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "type(x) is np.ndarray" in out.code, out.code
    for x in ([2 ** 62] * 3, collections.deque([1.0, 2.0]), np.arange(5), [0.5, 0.25]):
        if loop.endswith("x[::-1]:") and isinstance(x, collections.deque):
            continue  # (the loop itself slices)
        want, got = _load(source)(x), _load(out.code)(x)
        assert type(got) is type(want) and got == want, (x, want, got)


def test_a_product_recurrence_from_a_float32_start_runs_the_loop():
    """``gamma * R * mask[t]`` multiplied as ``(gamma * mask[t]) * R``: the loop's first product
    ``gamma * R`` of a float32 start rounds in float32, so the blocked scan is taken only where
    every value is float64 or a Python number."""
    source = _source("f(r, mask, gamma, R)", """\
        out = []
        for t in reversed(range(len(r))):
            R = r[t] + gamma * R * mask[t]
            out.insert(0, R)
        return np.array(out)
        """)
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "np.asarray(R).dtype == np.float64" in out.code, out.code
    r, mask = np.array([0.1, 0.2, 0.3]), np.array([1.0, 1.0, 0.0])
    for start in (np.float32(1.5), np.float16(1.5), 1.5, np.float64(1.5)):
        want, got = _load(source)(r, mask, 0.9, start), _load(out.code)(r, mask, 0.9, start)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-15)


@pytest.mark.tf
def test_tensorflow_rows_of_a_reversed_sequence_zipped(tf):
    """``zip(reversed(x), y)``: the rows of ``x[::-1]``, not ``tf.convert_to_tensor(reversed(x))``
    (which raised in a ``tf.function``)."""
    source = _source("f(x, y)", "out = []\nfor a, b in zip(reversed(x), y):\n    out.append(a - b)\n"
                     "return tf.stack(out)\n", "tensorflow as tf")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "reversed(" not in out.code.split("# pforge")[1].split("return")[0], out.code
    x, y = tf.constant([1.0, 2.0, 3.0]), tf.constant([10.0, 20.0, 30.0])
    np.testing.assert_array_equal(_load(out.code)(x, y).numpy(), _load(source)(x, y).numpy())


@pytest.mark.tf
@pytest.mark.parametrize("start", ["0", "-1e9", "0.0"])
@pytest.mark.parametrize("shapes", [None, {"x": 1}], ids=["pfor", "direct"])
def test_a_tensorflow_maximum_from_a_python_number(tf, start, shapes):
    """``s = 0; s = tf.maximum(s, x[i] * 2.0)``: the loop converts 0 to the terms' dtype; staged,
    ``tf.maximum(0, r)`` converted it to int32 first and raised."""
    source = _source("f(x)", f"s = {start}\nfor i in range(x.shape[0]):\n    s = tf.maximum(s, x[i] * 2.0)\n"
                     "return s\n", "tensorflow as tf")
    out = transpile_source(source, "m.py", shapes=shapes)
    assert out.plans[0].rewritten and "convert_to_tensor(s, " in out.code, out.code
    for x in (tf.constant([1.0, -2.0, 3.0]), tf.constant([[-1.0, 2.0], [0.5, -4.0]], tf.float64)):
        want, got = _load(source)(x), _load(out.code)(x)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())
