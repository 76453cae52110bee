"""A name the body binds and the code after the loop reads (``lastprivate``): scalar expansion,
then the last iteration's value copied out (Allen and Kennedy 2001, section 5.5). The batched
code binds the name to the values of every iteration; after it the name takes the last one,
where the loop runs (a trip check in front: with no iteration the name keeps what it held, or
stays unbound). Each case is rewritten (asserted first) and equal to the loop, of the same
type; the traps stay loops (PF212) or keep the loop's values."""

from __future__ import annotations

import textwrap
import types

import numpy as np
import pytest

from pforge.transpile import transpile_source


def _source(body: str, params: str = "x") -> str:
    return f"import numpy as np\n\n\ndef f({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def _load(code: str):
    module = types.ModuleType("m")
    exec(compile(code, "m.py", "exec"), module.__dict__)
    return module.f


def _same(want, got):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(want, got):
            _same(a, b)
        return
    assert type(got) is type(want), (want, got)
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True), (want, got)
    else:
        assert got == want, (want, got)


RANGE, DOWN = "for i in range(len(x)):", "for i in range(len(x) - 1, -1, -1):"

# (loop, body, the name read after the loop, the line the rewrite must end the batched code with, inputs)
CASES = [
    (RANGE, "t = x[i] * 2.0\nout[i] = t + 1.0", "t", "t = t[-1]", "1d"),
    (DOWN, "t = x[i] * 2.0\nout[i] = t + 1.0", "t", "t = t[-1]", "1d"),  # the last iteration: index 0
    (RANGE, "t = np.abs(x[i])\nout[i] = t * 3.0", "t", "t = t[-1]", "1d"),
    (RANGE, "t = i * 2\nout[i] = x[i] * t", "t", ".item()", "1d"),  # a Python int stays one
    (RANGE, "row = x[i] * 2.0\nout[i] = np.sum(row)", "row", "row = row[-1]", "2d"),  # a row
    (RANGE, "out[i] = x[i] + 1.0\nt = out[i] * 2.0", "t", "t = t[-1]", "1d"),
]


@pytest.mark.parametrize("loop, body, name, says, kind", CASES, ids=[f"{c[0][6:20]}-{c[1]}" for c in CASES])
def test_the_last_value_after_the_loop(loop, body, name, says, kind):
    source = _source(f"out = np.zeros(len(x))\n{loop}\n" + textwrap.indent(body, "    ") + f"\nreturn out, {name}\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, result.plans[0].remarks[-1].message
    assert says in result.code.split("else:")[0], result.code
    rng = np.random.default_rng(3)
    inputs = [rng.normal(size=7), rng.normal(size=1).astype(np.float32)] if kind == "1d" else \
        [rng.normal(size=(5, 3)), np.ones((1, 2), np.float32)]
    for x in inputs:
        _same(_load(source)(x.copy()), _load(result.code)(x.copy()))
    # no iteration: the loop leaves `t` unbound, and so does the rewrite (the loop runs)
    empty = np.zeros((0,) + inputs[0].shape[1:])
    with pytest.raises(UnboundLocalError):
        _load(result.code)(empty)


def test_no_iteration_keeps_the_value_before_the_loop():
    source = _source("t = -1.0\nout = np.zeros(len(x))\nfor i in range(len(x)):\n    t = x[i] * 2.0\n"
                     "    out[i] = t\nreturn out, t\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "t = t[-1]" in result.code, result.plans[0].remarks
    for x in (np.arange(4.0), np.zeros(0)):
        _same(_load(source)(x.copy()), _load(result.code)(x.copy()))


@pytest.mark.parametrize("body, why", [
    # skipped by a `continue`: the last iteration that binds it is not the last one
    ("if x[i] > 0:\n    continue\nt = x[i] * 2.0\nout[i] = t", "PF212"),
    # bound under a test only
    ("if x[i] > 0:\n    t = x[i]\nout[i] = x[i]", "PF212"),
    # bound twice
    ("t = x[i]\nt = t * 2.0\nout[i] = t", "PF212"),
    # an element as it is: a Python float of a list, a NumPy scalar of an array, a 0-d array of
    # `m[i][..., 0]`, where the batched values give a NumPy scalar
    ("t = x[i]\nout[i] = t", "0-d array"),
])
def test_look_alikes_stay_loops(body, why):
    source = _source("out = np.zeros(len(x))\nfor i in range(len(x)):\n" + textwrap.indent(body, "    ")
                     + "\nreturn out, t\n")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten and any(r.code == why or why in r.message for r in result.remarks), \
        result.remarks


def test_a_view_of_an_array_the_loop_writes_stays_a_loop():
    """`t = x[i]` of a 2-D `x`, then `x[i] = 0`: the loop's `t` is a view of the last row and
    shows the zeros; a copy taken for the batched code would not."""
    source = _source("for i in range(x.shape[0]):\n    t = x[i]\n    x[i] = 0.0\nreturn x, t\n")
    result = transpile_source(source, "m.py", shapes={"x": 2})
    assert not result.plans[0].rewritten and "view of an array the loop writes" in result.plans[0].remarks[-1].message
    x = np.ones((3, 2))
    _same(_load(source)(x.copy()), _load(result.code)(x.copy()))


@pytest.mark.tf
def test_tensorflow_last_value(tf):
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    out = []\n    for i in range(x.shape[0]):\n"
              "        t = tf.tanh(x[i])\n        out.append(t * 2.0)\n    return tf.stack(out), t\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and "t = t_values[-1]" in result.code, result.plans[0].remarks
    x = tf.constant([0.5, -1.0, 2.0])
    want, got = _load(source)(x), _load(result.code)(x)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    # no iteration: `t` stays unbound (the loop raises at the return, and so does the rewrite)
    for fn in (_load(source), _load(result.code)):
        with pytest.raises(Exception):
            fn(tf.zeros([0]))


@pytest.mark.tf
def test_tensorflow_last_value_keeps_the_value_before_an_empty_loop(tf):
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    t = tf.constant(-1.0)\n    out = []\n"
              "    for i in range(x.shape[0]):\n        t = tf.tanh(x[i])\n        out.append(t * 2.0)\n"
              "    return tf.stack(out), t\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and "t = t_values[-1]" in result.code, result.plans[0].remarks
    for x in (tf.constant([0.5, -1.0]), tf.zeros([0])):
        np.testing.assert_array_equal(_load(result.code)(x)[1].numpy(), _load(source)(x)[1].numpy())


def test_only_the_last_value_is_read_the_loop_must_run():
    """Nothing else asks for an iteration: the trip check in front is the last value's own
    (`(x * 2.0)[-1]` of no rows raises, where the loop leaves `t` as it was)."""
    source = _source("t = 0.5\nfor i in range(len(x)):\n    t = np.exp(x[i])\nreturn t\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})  # (a rank given: no rank check)
    assert result.plans[0].rewritten and "if len(x) > 0:" in result.code, result.code
    for x in (np.array([0.25, -1.0]), np.zeros(0)):
        _same(_load(source)(x.copy()), _load(result.code)(x.copy()))


def test_two_last_values():
    source = _source("out = np.zeros(len(x))\nfor i in range(len(x)):\n    a = x[i] * 2.0\n    b = np.sin(x[i])\n"
                     "    out[i] = a + b\nreturn out, a, b\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "a = a[-1]" in result.code and "b = b[-1]" in result.code, result.code
    x = np.random.default_rng(2).normal(size=6)
    _same(_load(source)(x.copy()), _load(result.code)(x.copy()))


def test_a_last_value_beside_one_bound_under_a_test():
    """`a` is a last value, `z` the value of the last iteration that passed the test: each name
    is decided, not only the first; the loop is distributed, `z`'s statement kept a loop."""
    source = _source("out = np.zeros(len(x))\nz = 0.0\nfor i in range(len(x)):\n    a = x[i] * 2.0\n"
                     "    if x[i] > 0:\n        z = x[i] * 3.0\n    out[i] = a\nreturn out, a, z\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "lines 9-10 a loop" in result.code and "a = a[-1]" in result.code, \
        result.code
    for x in (np.array([1.0, -2.0, 3.0, -4.0]), np.array([-1.0])):
        _same(_load(source)(x.copy()), _load(result.code)(x.copy()))
    whole = _source("z = 0.0\nfor i in range(len(x)):\n    if x[i] > 0:\n        z = x[i] * 3.0\nreturn z\n")
    plan = transpile_source(whole, "m.py").plans[0]
    assert not plan.vectorizable and [r.message for r in plan.remarks if r.code == "PF212"] == [
        "`z` is used after the loop (line 9); it holds only the last iteration's value"], plan.remarks


def test_a_value_the_same_on_every_iteration_is_bound_once():
    """`s = c * 2` with `c = 5.0` bound in the loop: no per-iteration value, so the batched code
    binds it once, where the loop runs."""
    source = _source("out = np.zeros(len(x))\ns = -1.0\nfor i in range(len(x)):\n    c = 5.0\n    s = c * 2\n"
                     "    out[i] = x[i] * s\nreturn out, s\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "[-1]" not in result.code, result.code
    for x in (np.arange(3.0), np.zeros(0)):
        _same(_load(source)(x.copy()), _load(result.code)(x.copy()))


@pytest.mark.tf
def test_tensorflow_last_value_of_a_loop_that_always_runs(tf):
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    out = []\n    for i in range(3):\n"
              "        t = tf.tanh(x[i])\n        out.append(t * 2.0)\n    return tf.stack(out), t\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and "    t = t_values[-1]" in result.code and "if " not in result.code, result.code
    x = tf.constant([0.5, -1.0, 2.0, 4.0])
    for w, g in zip(_load(source)(x), _load(result.code)(x)):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
