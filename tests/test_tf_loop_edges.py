"""TensorFlow loops at their edges: no iteration, negative indices, staging around a loop
that stays a loop.

A read past the end of an input in an inner loop
raises in the loop only where the outer loop runs, so the batched code asserts no bound (the
direct backend leaves such a loop to ``tf.vectorized_map``). A collector of per-iteration
vectors is ``tf.stack([])``, ``(0,)`` float32, in the loop, and keeps the items' shape,
``(0, d)``, in the rewrite (the README's contract: a static test of the length would trace
the function once per shape)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

tf = pytest.importorskip("tensorflow")

SOURCE = textwrap.dedent("""\
    import tensorflow as tf


    def rows(x):
        o = []
        for i in range(len(x)):
            o.append(tf.stack([x[i], x[i] * 2.0]))
        return tf.stack(o)


    def inner_reads(x):
        o = []
        for i in range(len(x)):
            lc = [x[i] + x[j] for j in range(3)]
            o.append(tf.stack(lc))
        return tf.stack(o)


    def wraps(x):
        o = []
        for i in range(3):
            o.append(x[i - 2] * 2.0)
        return tf.stack(o)


    def filtered_outer(x, y):
        o = []
        for i in range(len(x)):
            if y[i] > 0.0:
                continue
            lc = [2.0 + x[j] for j in range(3) if j != 1]
            o.append(tf.stack(lc))
        return tf.stack(o)


    def number_then_tensor(x):
        w = 2
        o = []
        for i in range(x.shape[0]):
            o.append(tf.maximum(w, x[i]))
            w = x[i] * 2.0
            lc = [x[i] + x[j] for j in range(3)]
            o.append(tf.stack(lc)[0])
        return tf.stack(o)


    def bound_under_a_test(x):
        r = 0
        o = []
        for i in range(x.shape[0]):
            if r != 0 or x[i] > 0.5:
                r = x[i]
            lc = [(3.0 * x[i]) + x[j] for j in range(3)]
            o.append(tf.stack(lc) + r)
        return tf.stack(o), r
    """)


@pytest.mark.parametrize("backend", ["pfor", "auto"])
def test_an_empty_loop_returns_what_the_loop_returns(backend):
    result = transpile_source(SOURCE, "m.py", backend=backend, shapes={"x": 1})
    plans = [p for p in result.plans if p.function in ("rows", "inner_reads", "wraps")]
    assert all(p.rewritten for p in plans), [r.message for p in plans for r in p.remarks]
    before, after = run_module(SOURCE), run_module(result.code)
    for n in (0, 3, 5):
        x = tf.constant(np.arange(n, dtype=np.float32))
        for name in ("rows", "inner_reads", "wraps"):
            try:
                want = before[name](x)
            except (IndexError, tf.errors.InvalidArgumentError):
                continue  # (`x[j]` past the end: the rewrite may return where the loop raised)
            got = after[name](x)
            if n == 0:
                assert want.shape == (0,) and got.shape[0] == 0 and got.shape.rank == 2, (name, want, got)
                continue
            assert (want.shape, want.dtype) == (got.shape, got.dtype), (name, n, want, got)
            assert np.array_equal(want.numpy(), got.numpy()), (name, n)


def test_the_direct_backend_leaves_an_inner_read_past_the_end_to_pfor():
    result = transpile_source(SOURCE, "m.py", backend="direct", shapes={"x": 1})
    plan = next(p for p in result.plans if p.function == "inner_reads")
    assert plan.rewritten and plan.backend == "pfor", plan.backend_note
    assert "may pass the end of `x`" in plan.backend_note
    assert "assert_less_equal" not in result.code


def test_a_negative_affine_index_wraps_as_in_the_loop():
    """``x[i - 2]`` over ``range(3)`` reads ``x[-2]`` first, which ``tf.gather`` would reject."""
    result = transpile_source(SOURCE, "m.py", backend="pfor")
    plan = next(p for p in result.plans if p.function == "wraps")
    assert plan.rewritten
    assert "(i - 2) % tf.shape(x)[0]" in result.code
    before, after = run_module(SOURCE), run_module(result.code)
    x = tf.constant(np.arange(4, dtype=np.float32))
    assert np.array_equal(before["wraps"](x).numpy(), after["wraps"](x).numpy())


def test_a_list_appended_under_a_tensor_test_keeps_the_function_unstaged():
    """The outer loop stays a loop, appending under an ``if`` on a tensor: ``tf.function``
    would make that a graph conditional, whose tensors a Python list cannot hold."""
    result = transpile_source(SOURCE, "m.py", backend="pfor")
    plans = [p for p in result.plans if p.function == "filtered_outer"]
    assert not any(p.rewritten for p in plans)
    assert any("appends to a list under the `if`" in r.message for p in plans for r in p.remarks)
    code = result.code[result.code.index("def filtered_outer") - 20:]
    assert "@tf.function" not in code
    before, after = run_module(SOURCE), run_module(result.code)
    x, y = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([1.0, -1.0, -2.0, 0.5])
    assert np.array_equal(before["filtered_outer"](x, y).numpy(), after["filtered_outer"](x, y).numpy())


def test_a_name_bound_under_a_tensor_test_keeps_the_function_unstaged():
    """Fuzz seed 8131048: the outer loop stays a loop and binds `r` (a Python 0 before it)
    under an ``if`` on a tensor; staged, AutoGraph makes that a graph conditional whose
    branches give `r` two dtypes (TypeError). The function is left unstaged, so pfor's
    rewrite of the inner comprehension, which needs staging, is not applied."""
    result = transpile_source(SOURCE, "m.py", backend="direct", shapes={"x": 1})
    plans = [p for p in result.plans if p.function == "bound_under_a_test"]
    assert any("binds `r`" in r.message for p in plans for r in p.remarks), \
        [r.message for p in plans for r in p.remarks]
    code = result.code[result.code.index("def bound_under_a_test") - 20:]
    assert "@tf.function" not in code
    before, after = run_module(SOURCE), run_module(result.code)
    x = tf.constant([1.0, 0.25, 3.0, -4.0])
    for want, got in zip(before["bound_under_a_test"](x), after["bound_under_a_test"](x)):
        assert np.array_equal(np.asarray(want), np.asarray(got))


def test_a_python_number_rebound_in_a_kept_loop_keeps_the_function_unstaged():
    """Fuzz seed 8152516: `w = 2` before a loop that stays a loop and rebinds `w` to a tensor;
    staged, AutoGraph may make the loop a `tf.while_loop` (a range of unknown length), whose
    variables keep one dtype (TypeError). The function is left unstaged."""
    result = transpile_source(SOURCE, "m.py", backend="direct", shapes={"x": 1})
    plans = [p for p in result.plans if p.function == "number_then_tensor"]
    assert any("binds `w`, a Python number before it" in r.message for p in plans for r in p.remarks), \
        [r.message for p in plans for r in p.remarks]
    code = result.code[result.code.index("def number_then_tensor") - 20:]
    assert "@tf.function" not in code.split("def bound_under_a_test")[0]
    before, after = run_module(SOURCE), run_module(result.code)
    x = tf.constant([1.0, 0.25, 3.0, -4.0])
    assert np.array_equal(before["number_then_tensor"](x).numpy(), after["number_then_tensor"](x).numpy())


def test_a_negative_number_rebound_in_a_kept_loop_keeps_the_function_unstaged():
    """Fuzz seed 8250600: `w = -1` is a Python number too (a minus on a literal); staged, the
    kept loop's `tf.maximum(w, x[i])` met an int32 `w` beside float64 `x` (TypeError)."""
    source = SOURCE.replace("w = 2\n", "w = -1\n")
    assert "w = -1" in source
    result = transpile_source(source, "m.py", backend="direct", shapes={"x": 1})
    plans = [p for p in result.plans if p.function == "number_then_tensor"]
    assert any("binds `w`, a Python number before it" in r.message for p in plans for r in p.remarks), \
        [r.message for p in plans for r in p.remarks]
    code = result.code[result.code.index("def number_then_tensor") - 20:]
    assert "@tf.function" not in code.split("def bound_under_a_test")[0]
    x = tf.constant([1.0, 0.25, 3.0, -4.0], tf.float64)
    before, after = run_module(source), run_module(result.code)
    assert np.array_equal(before["number_then_tensor"](x).numpy(), after["number_then_tensor"](x).numpy())


STRIDED = textwrap.dedent("""\
    import tensorflow as tf


    def every_other(y):
        out = []
        for i in range(0, 6, 2):
            out.append(y[i] * 2.0)
        return tf.stack(out)


    def from_one(y):
        out = []
        for i in range(1, 3):
            out.append(y[i] * 2.0)
        return tf.stack(out)


    def from_one_by_three(y, n):
        out = []
        for i in range(1, n, 3):
            out.append(y[i] * 2.0)
        return tf.stack(out)
""")


@pytest.mark.parametrize("name, args, length", [
    ("every_other", (), 5), ("every_other", (), 6), ("every_other", (), 4),
    ("from_one", (), 2), ("from_one", (), 3),
    ("from_one_by_three", (8,), 7), ("from_one_by_three", (8,), 8), ("from_one_by_three", (9,), 7),
])
def test_a_range_past_the_end_raises_where_the_loop_raises_and_only_there(name, args, length):
    """The loop reads its last index, ``start + (stop - start - 1) // step * step``, so a stop
    past the end raises only where that index is: ``range(0, 6, 2)`` over 5 values reads
    ``y[4]`` last and returns (the assertion of ``6 <= len`` raised); ``range(1, 3)`` over 2
    reads ``y[2]`` and raises (nothing was asserted for a range from 1)."""
    result = transpile_source(STRIDED, "m.py", backend="direct", shapes={"y": 1, "n": 0})
    plan = next(p for p in result.plans if p.function == name)
    assert plan.rewritten and plan.backend == "direct", plan.backend_note
    assert "assert_less_equal" in result.code
    before, after = run_module(STRIDED), run_module(result.code)
    y = tf.range(float(length))
    try:
        want = before[name](y, *args)
    except tf.errors.InvalidArgumentError:
        with pytest.raises(tf.errors.InvalidArgumentError):
            after[name](y, *args)
        return
    got = after[name](y, *args)
    assert np.array_equal(want.numpy(), got.numpy()), (want, got)
