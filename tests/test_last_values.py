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


@pytest.mark.parametrize("loop, body, name, says, kind", CASES, ids=[f"{c[0][6:20]}-{c[1]}".replace("\n", "; ") for c in CASES])
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
    # bound under a test only, and read in the body too: it carries from one iteration to the next
    ("out[i] = t\nif x[i] > 0:\n    t = x[i]", "PF201"),
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


def test_a_view_of_an_array_the_loop_writes_is_the_last_row_itself():
    """`t = x[i]` of a 2-D `x`, then `x[i] = 0`: the loop's `t` is a view of the last row and
    shows the zeros; so is the batched code's (`t = x[-1]` after the write), where a copy taken
    before the write would not (b94)."""
    source = _source("for i in range(x.shape[0]):\n    t = x[i]\n    x[i] = 0.0\nreturn x, t\n")
    result = transpile_source(source, "m.py", shapes={"x": 2})
    assert result.plans[0].rewritten and "np.copy" not in result.code, result.code
    x = np.ones((3, 2))
    want, got = _load(source)(x.copy()), _load(result.code)(x.copy())
    _same(want, got)
    assert np.shares_memory(got[0], got[1]) and np.shares_memory(want[0], want[1])


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
    assert result.plans[0].rewritten and "if type(x) is np.ndarray and x.ndim >= 1 and len(x) > 0:" in result.code, result.code
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
    """`a` is a last value, `z` the value of the last iteration that passed the test (a
    conditional lastprivate, TSVC s331): both are taken from the batched values, `z` at the
    last position its test held, or as it was where it held nowhere."""
    source = _source("out = np.zeros(len(x))\nz = 0.0\nfor i in range(len(x)):\n    a = x[i] * 2.0\n"
                     "    if x[i] > 0:\n        z = x[i] * 3.0\n    out[i] = a\nreturn out, a, z\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "a = a[-1]" in result.code and "z_hits = np.flatnonzero(" in result.code \
        and "loop distributed" not in result.code, result.code
    for x in (np.array([1.0, -2.0, 3.0, -4.0]), np.array([-1.0]), np.array([2.0])):
        _same(_load(source)(x.copy()), _load(result.code)(x.copy()))


CONDITIONAL = [
    # the index of the last negative element (TSVC s331): a Python int, as the loop's
    ("j = -1", "if x[i] < 0.0:\n    j = i", "j", ".item()"),
    # under two tests, a value computed from the row
    ("last = 0.0", "if x[i] > 0.1:\n    if x[i] < 2.0:\n        last = x[i] * 2.0", "last", "np.logical_and("),
    # in an else branch
    ("k = 7", "if x[i] > 0.0:\n    out[i] = 1.0\nelse:\n    k = i", "k", "np.logical_not("),
]


@pytest.mark.parametrize("start, body, name, says", CONDITIONAL, ids=[c[2] for c in CONDITIONAL])
def test_the_value_of_the_last_iteration_whose_test_held(start, body, name, says):
    source = _source(f"out = np.zeros(len(x))\n{start}\nfor i in range(len(x)):\n" + textwrap.indent(body, "    ")
                     + f"\nreturn out, {name}\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and says in result.code and f"{name}_hits" in result.code, result.code
    rng = np.random.default_rng(8)
    for x in (rng.normal(size=9), np.array([1.0, 2.0]), np.array([-1.0, -3.0]), np.zeros(0),
              np.array([np.nan, -0.0, 0.5])):
        want, got = _load(source)(x.copy()), _load(result.code)(x.copy())
        assert type(got[1]) is type(want[1]), (x, want, got)
        _same(want, got)


@pytest.mark.parametrize("body", [
    "for j in range(2):\n    if x[i] > j:\n        z = x[i]",  # in an inner loop
    "if x[i] > 0:\n    z = np.random.rand()",  # a draw every iteration makes, read or not
])
def test_conditional_last_values_that_stay_loops(body):
    source = _source("z = 0.0\nfor i in range(len(x)):\n" + textwrap.indent(body, "    ") + "\nreturn z\n")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten, result.code


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


# The loop's own variables read after it: the last index of the range, or the last row.
# (loop header, body, names returned, a line the batched code must bind, params, inputs)
TARGETS = [
    ("for i in range(len(x)):", "out[i] = x[i] * 2.0", "i", "i = len(x) - 1", "x", "1d"),
    ("for i in range(n):", "out[i] = x[i] * 2.0", "i", "i = n - 1", "x", "1d"),  # n = len(x)
    ("for i in range(1, len(x)):", "out[i] = x[i] - x[i - 1]", "i", "i = len(x) - 1", "x", "1d"),
    # a step other than 1: Python's own last element of the range, exact for any bounds
    ("for i in range(0, len(x), 2):", "out[i] = x[i] * 2.0", "i", "i = range(0, len(x), 2)[-1]", "x", "1d"),
    # walked backwards: the last index is the lowest
    ("for i in reversed(range(len(x))):", "out[i] = x[i] * 2.0", "i", "i = 0", "x", "1d"),
    ("for i in range(len(x) - 1, -1, -1):", "out[i] = x[i] * 2.0", "i", "i = 0", "x", "1d"),
    ("for i in range(len(x) - 1, -3, -1):", "out.append(i * 2.0)", "i", "i = -2", "x", "1d"),  # past 0
    ("for i in reversed(range(1, len(x))):", "out[i] = x[i] * 2.0", "i", "i = 1", "x", "1d"),
    # rows: the last row itself (a view of the array's, a list's element)
    ("for j, row in enumerate(x):", "out[j] = np.sum(row)", "j, row", "j = len(x) - 1", "x", "2d"),
    ("for j, v in enumerate(x, 3):", "out[j - 3] = v * 2.0", "j, v", "j = len(x) - 1 + 3", "x", "1d"),
    ("for a, b in zip(x, x):", "out.append(a * b)", "a, b", "b = x[-1]", "x", "1d"),
]


@pytest.mark.parametrize("loop, body, names, says, params, kind", TARGETS, ids=[c[0][4:30] for c in TARGETS])
def test_the_loop_variable_after_the_loop(loop, body, names, says, params, kind):
    start = "out = []\n" if "append" in body else "out = np.zeros(len(x))\n"
    source = _source(f"n = len(x)\n{start}{loop}\n" + textwrap.indent(body, "    ")
                     + f"\nreturn (np.asarray(out), {names})\n", params)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, result.plans[0].remarks[-1].message
    assert f"        {says}\n" in result.code.split("else:")[0], result.code
    rng = np.random.default_rng(4)
    inputs = [rng.normal(size=7), rng.normal(size=2).astype(np.float32)] if kind == "1d" else \
        [rng.normal(size=(5, 3)), np.ones((1, 2), np.float32)]
    for x in inputs:
        _same(_load(source)(x.copy()), _load(result.code)(x.copy()))
    # no rows: where the loop runs no iteration it leaves its variable unbound, and so does the
    # rewrite (`range(len(x) - 1, -3, -1)` still runs twice)
    empty = np.zeros((0,) + inputs[0].shape[1:])
    try:
        want = _load(source)(empty)
    except UnboundLocalError:
        with pytest.raises(UnboundLocalError):
            _load(result.code)(empty)
    else:
        _same(want, _load(result.code)(empty))


def test_the_last_row_is_the_arrays_own():
    """`row` after the loop is the array's last row, a view that shows later writes; so is the
    rewrite's `x[-1]`."""
    source = _source("out = []\nfor row in x:\n    out.append(row * 2.0)\nx[-1, 0] = 7.0\nreturn np.stack(out), row\n")
    result = transpile_source(source, "m.py", shapes={"x": 2})
    assert result.plans[0].rewritten and "row = x[-1]" in result.code, result.code
    want, got = _load(source)(np.ones((3, 2))), _load(result.code)(np.ones((3, 2)))
    np.testing.assert_array_equal(np.asarray(got[0]), np.asarray(want[0]))
    _same(want[1], got[1])
    assert got[1][0] == 7.0


def test_the_loop_variable_of_a_list_of_floats_is_the_lists_element():
    source = _source("out = []\nfor v in x:\n    out.append(v * 2.0)\nreturn out, v\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "v = x[-1]" in result.code, result.code
    for x in ([0.5, 1.5, -2.0], np.arange(3.0)):
        want, got = _load(source)(x), _load(result.code)(x)
        assert type(got[1]) is type(want[1]) and got[1] == want[1]


@pytest.mark.parametrize("loop, body, why", [
    # an array scalar or a tensor, not a Python int
    ("for i in np.arange(len(x)):", "out[i] = x[i] * 2.0", "PF212"),
    # a row unpacked
    ("for a, b in x:", "out.append(a + b)", "PF212"),
    # the loop variable of an inner loop, read by the outer one: one value per outer iteration
    ("for k in range(1):\n    for i in range(len(x)):\n        out[i] = x[i]\n    out[0] = i", "", "PF201"),
])
def test_loop_variables_that_stay(loop, body, why):
    start = "out = []\n" if "append" in body else "out = np.zeros(len(x) + 1)\n"
    returned = "out" if "out[0] = i" in loop else "out, i" if "range" in loop else "out, a"
    source = _source(start + loop + "\n" + textwrap.indent(body, "    ") + f"\nreturn {returned}\n")
    result = transpile_source(source, "m.py", shapes={"x": 2 if "a, b" in loop else 1})
    assert not result.plans[0].rewritten and any(r.code == why for r in result.plans[0].remarks), \
        result.plans[0].remarks


@pytest.mark.tf
@pytest.mark.parametrize("loop, says", [
    ("for i in range(x.shape[0]):\n        row = x[i]", "i = x.shape[0] - 1"),
    # a tensor by its use (`x.shape`): its rows are counted by its static shape
    ("for row in tf.unstack(x):", "row = x[-1]"),
    ("for row in x:", "row = x[-1]"),
])
def test_tensorflow_loop_variable(tf, loop, says):
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    out = []\n    d = x.shape\n    " + loop + "\n"
              "        out.append(tf.tanh(row) * 2.0)\n    return tf.stack(out), " + says.split(" =")[0] + "\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and f"    {says}\n" in result.code, result.code
    x = tf.constant([0.5, -1.0, 2.0])
    want, got = _load(source)(x), _load(result.code)(x)
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))  # (a tf.function returns tensors)
    # no iteration: the loop leaves its variable unbound, and so does the rewrite
    for fn in (_load(source), _load(result.code)):
        with pytest.raises(Exception):
            fn(tf.zeros([0]))


@pytest.mark.tf
def test_tensorflow_rows_of_a_value_that_may_be_a_list_stay_a_loop(tf):
    """`len(x)` raises for a tensor in a `tf.function` and `x.shape` for a list: with neither
    known, whether the loop runs cannot be said, and the loop stays."""
    source = ("import tensorflow as tf\n\n\ndef f(x):\n    out = []\n    for row in x:\n"
              "        out.append(tf.tanh(row) * 2.0)\n    return tf.stack(out), row\n")
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert not result.plans[0].rewritten and "known of a tensor only" in result.plans[0].remarks[-1].message


def test_a_loop_variable_of_a_space_pforge_does_not_model_is_named():
    """`for k in table.keys()` is no modelled space (PF213); its variable read after the loop is
    named too (PF212), not taken as a last value."""
    source = _source("out = []\nfor k in x.keys():\n    out.append(k)\nreturn out, k\n")
    plan = transpile_source(source, "m.py").plans[0]
    assert not plan.rewritten and {"PF212", "PF213"} <= {r.code for r in plan.remarks}, plan.remarks


@pytest.mark.parametrize("header, says, n", [
    # a stop that may be a NumPy integer: Python's own last element, a Python int as the loop's
    ("for i in range(n):", "i = range(n)[-1]", np.int64(3)),
    ("for i in range(n + 1):", "i = range(n + 1)[-1]", np.int64(2)),
    # ints by their spelling: `len()` and arithmetic on it, a shape's element, unpacked or not
    ("for i in range(len(x) - 1):", "i = len(x) - 2", None),
    ("for i in range(x.shape[0] - 1):", "i = x.shape[0] - 2", None),
    ("for i in range(rows):", "i = rows - 1", None),
])
def test_the_last_index_is_a_python_int(header, says, n):
    source = _source("rows, = x.shape\nout = np.zeros(len(x))\n" + header + "\n    out[i] = x[i] * 2.0\nreturn out, i\n",
                     "x, n=None")
    result = transpile_source(source, "m.py", shapes={"x": 1, "n": 0})
    assert result.plans[0].rewritten and f"        {says}\n" in result.code, result.code
    x = np.arange(5.0)
    want, got = _load(source)(x.copy(), n), _load(result.code)(x.copy(), n)
    _same(want, got)
    assert type(got[1]) is int


def test_the_last_row_of_a_sequence_the_body_changes_stays_a_loop():
    """A body that changes the sequence it walks (`x.sort()`) stays a loop: the call is an effect
    whose order the loop fixes, and `v = x[-1]` after the batched code would read the sorted
    list, where the loop's `v` is the row as it was read."""
    source = _source("out = []\nfor v in x:\n    out.append(v * 2.0)\n    x.sort()\nreturn out, v\n")
    plan = transpile_source(source, "m.py").plans[0]
    assert not plan.rewritten, plan.remarks


@pytest.mark.parametrize("body, result", [
    # the test and the value read an array the body writes after them (helper-48): taken as the
    # loop saw them, not after the batched writes
    ("if x[i] > 0:\n    j = x[i]\nx[i] = -1.0", "j, x"),
    ("if x[i] > 0:\n    j = i\nx[i] = 0.0", "j, x"),
    ("if x[i] > 0:\n    j = y[i]\ny[i] = 5.0", "j, y"),
    ("if x[i] > 0:\n    j = x[i]\n    x[i] = -x[i]", "j, x"),
])
def test_a_conditional_last_value_reads_what_the_loop_read(body, result):
    source = ("import numpy as np\n\n\ndef f(x, y):\n    j = 0.0\n    for i in range(len(x)):\n"
              + textwrap.indent(body, "        ") + f"\n    return {result}\n")
    out = transpile_source(source, "m.py")
    assert out.plans[0].rewritten and "j_hits" in out.code, out.code
    rng = np.random.default_rng(9)
    for n in (1, 2, 7):
        x, y = rng.normal(size=n), rng.normal(size=n)
        want, got = _load(source)(x.copy(), y.copy()), _load(out.code)(x.copy(), y.copy())
        assert type(got[0]) is type(want[0]), (x, want, got)
        _same(want, got)
