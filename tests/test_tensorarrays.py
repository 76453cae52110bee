"""``tf.TensorArray`` writes at the loop index, batched by the direct backend: a TensorArray
read only by one ``ta.stack()`` after the loop becomes the batched value itself; any other
(read otherwise, sized otherwise, dynamic, a range that does not start at 0 or steps) is
filled with one ``scatter``. The code is asserted without TensorFlow (transpiling never
imports it); the numbers, where TensorFlow is installed."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.transpile import transpile_source

BASE = '''import tensorflow as tf


def f(x, m):
    """Args:
      x: [n, d].
      m: int scalar.
    """
    n = x.shape[0]
    INIT
    for i in RANGE:
        WRITE
    return AFTER
'''
DEFAULTS = {"INIT": "ta = tf.TensorArray(tf.float32, size=n)", "RANGE": "range(n)",
            "WRITE": "ta = ta.write(i, tf.tanh(x[i]))", "AFTER": "ta.stack()"}


def _source(**parts):
    source = BASE
    for key, default in DEFAULTS.items():
        source = source.replace(key, parts.get(key, default))
    return source


WHOLE = "    ta = tf.tanh(x)\n    return ta\n"

#: the changed part -> the batched code from the loop's comment line to the end
CASES = {
    "whole": ({}, WHOLE),
    "positional-size": ({"INIT": "ta = tf.TensorArray(tf.float32, n)"}, WHOLE),
    "element-shape": ({"INIT": "ta = tf.TensorArray(tf.float32, size=n, element_shape=[None])"}, WHOLE),
    "read-too": ({"AFTER": "ta.stack(), ta.read(0)"},
                 "    ta = ta.scatter(tf.range(n), tf.tanh(x))\n    return ta.stack(), ta.read(0)\n"),
    "stack-with-arguments": ({"AFTER": "ta.stack(name='s')"},
                             "    ta = ta.scatter(tf.range(n), tf.tanh(x))\n    return ta.stack(name='s')\n"),
    "other-size": ({"INIT": "ta = tf.TensorArray(tf.float32, size=m)"},
                   "    ta = ta.scatter(tf.range(n), tf.tanh(x))\n    return ta.stack()\n"),
    "dynamic-size": ({"INIT": "ta = tf.TensorArray(tf.float32, size=n, dynamic_size=True)"},
                     "    ta = ta.scatter(tf.range(n), tf.tanh(x))\n    return ta.stack()\n"),
    "start": ({"RANGE": "range(1, n)"},
              "    ta = ta.scatter(tf.range(1, n), tf.tanh(x[1:n]))\n    return ta.stack()\n"),
    "step": ({"RANGE": "range(0, n, 2)"},
             "    ta = ta.scatter(tf.range(0, n, 2), tf.tanh(x[::2]))\n    return ta.stack()\n"),
    "after-a-local": ({"WRITE": "v = tf.tanh(x[i])\n        ta = ta.write(i, v * 2.0)"},
                      "    v = tf.tanh(x)\n    ta = v * 2.0\n    return ta\n"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tensorarray_writes_are_batched(name):
    parts, tail = CASES[name]
    result = transpile_source(_source(**parts), "m.py", backend="direct")
    (plan,) = result.plans
    assert plan.rewritten and plan.backend == "direct", [r.message for r in plan.remarks]
    assert result.code.endswith("with batched ops\n" + tail), result.code
    kept_init = "ta = tf.TensorArray(" in result.code
    assert kept_init == ("scatter" in tail)  # the TensorArray is made only when it is filled


@pytest.mark.parametrize("write,why", [
    ("ta = ta.write(i + 1, tf.tanh(x[i]))", "TensorArray `ta` is written at an index other than the loop variable"),
    ("if i > 0:\n            ta = ta.write(i, tf.tanh(x[i]))", "`ta` is written on one path of the `if`"),
])
def test_other_tensorarray_writes_stay_loops(write, why):
    result = transpile_source(_source(WRITE=write, INIT="ta = tf.TensorArray(tf.float32, size=n + 1)"), "m.py",
                              backend="direct")
    assert not result.changed
    assert why in result.plans[0].remarks[-1].message


@pytest.mark.parametrize("name", sorted(CASES))
def test_batched_tensorarray_values_match_the_loop(name, tf):
    from pforge.runtime.loader import load_module

    parts, _ = CASES[name]
    source = _source(**parts)
    result = transpile_source(source, "m.py", backend="direct")
    assert result.plans[0].rewritten
    x = tf.constant(np.random.default_rng(0).standard_normal((5, 3)), tf.float32)
    want = load_module("m.py", source=source).f(x, 6)
    got = load_module("m.py", source=result.code).f(x, 6)
    for a, b in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-6, err_msg=result.code)


def test_a_value_the_same_on_every_iteration_is_left_to_pfor():
    """`ta.write(i, tf.tanh(x[0]))`: the direct printer has no batched value to scatter and says
    so; the pfor printer maps the body."""
    result = transpile_source(_source(WRITE="ta = ta.write(i, tf.tanh(x[0]))"), "m.py", backend="direct")
    (plan,) = result.plans
    assert plan.backend == "pfor"
    assert plan.backend_note == "direct backend: TensorArray `ta` gets a value that does not depend on the loop"
