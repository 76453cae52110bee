"""The pfor paper's applications as people write them, with no shape annotations: Jacobian rows
from a tape recorded before the loop (over ``tf.unstack`` or ``tf.gather``), lists of lists,
microbatches ``x[m * size:(m + 1) * size]``, per-example gradients of a list of variables, and a
count kept as a Python int. Each rewrite is checked to happen (and in which form) before its
numbers are compared with the loop's; each look-alike that is not the pattern stays a loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import plan_of, run_module

pytestmark = pytest.mark.tf

HEADER = "import tensorflow as tf\n\n\n"

#: name -> (source of `f`, the form the rewrite must contain, the backend that writes it)
REWRITTEN = {
    "jacobian_over_unstack": ("""
        def f(w, b, x):
            '''Args:
              x: float32 [d].
            '''
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = tf.tanh(tf.linalg.matvec(w, x) + b)
                ys = tf.unstack(y)
            rows = []
            for y_i in ys:
                rows.append(tape.gradient(y_i, x))
            return tf.stack(rows)
        """, "tape.jacobian(y, x)", "direct"),
    "jacobian_by_gather_inside_the_tape": ("""
        def f(w, b, x):
            '''Args:
              x: float32 [d].
            '''
            rows = []
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = tf.tanh(tf.linalg.matvec(w, x) + b)
                for i in range(w.shape[0]):
                    y_i = tf.gather(y, i)
                    rows.append(tape.gradient(y_i, x))
            return tf.stack(rows)
        """, "tape.jacobian(y, x)", "direct"),
    # rows of a matrix: each gradient sums over a row's entries, so the Jacobian is summed
    # over the axes of a row (a trap for a rewrite that forgets it: shape [n, k, d, e])
    "jacobian_rows_of_a_matrix": ("""
        def f(w, b, x):
            '''Args:
              x: float32 [d, e].
            '''
            rows = []
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = tf.tanh(tf.matmul(w, x))
                for i in range(3):
                    rows.append(tape.gradient(y[i], x))
            return tf.stack(rows)
        """, "tf.reduce_sum(tape.jacobian(y, x)", "direct"),
    "pairwise_list_of_lists": ("""
        def f(w, b, x):
            rows = []
            for i in range(w.shape[0]):
                row = []
                for j in range(b.shape[0]):
                    row.append(tf.reduce_sum((w[i] - b[j]) ** 2))
                rows.append(row)
            return tf.convert_to_tensor(rows)
        """, "tf.vectorized_map", "pfor"),
    "microbatches_stated_equal": ("""
        def f(w, b, x):
            tf.debugging.assert_equal(tf.shape(w)[0], tf.shape(b)[0])
            size = w.shape[0] // 3
            total, count = tf.zeros_like(x), 0
            for m in range(3):
                wb = w[m * size:(m + 1) * size]
                bb = b[m * size:(m + 1) * size]
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    loss = tf.reduce_mean((tf.linalg.matvec(wb, x) - bb) ** 2)
                g = tape.gradient(loss, x)
                total, count = total + g / tf.maximum(1.0, tf.norm(g)), count + 1
            return total / count
        """, "w_blocks = tf.reshape(w[:3 * size], tf.concat([[3, size], tf.shape(w)[1:]], 0))", "pfor"),
    "chunks_counted_from_the_length": ("""
        def f(w, b, x):
            n = w.shape[0] // 2  # (len(w) too; exec-ed code is not converted by AutoGraph)
            out = []
            for k in range(n):
                out.append(tf.reduce_mean(w[k * 2:k * 2 + 2], axis=0))
            return tf.stack(out)
        """, "w_blocks = tf.reshape(w[:n * 2], tf.concat([[n, 2], tf.shape(w)[1:]], 0))", "pfor"),
    "per_example_grads_of_variables": ("""
        def f(w, b, x):
            variables = [x, b[0]]
            per_example = []
            for i in range(w.shape[0]):
                with tf.GradientTape() as tape:
                    tape.watch(variables)
                    loss = tf.tanh(tf.tensordot(w[i], variables[0], 1) + variables[1]) ** 2
                per_example.append(tape.gradient(loss, variables))
            return [tf.stack(g) for g in zip(*per_example)]
        """, "list(per_example)", "pfor"),
    # items that are tensors, not lists: `zip(*rows)` reads them by columns (helper-37)
    "unzipped_rows_of_tensors": ("""
        def f(w, b, x):
            rows = []
            for i in range(w.shape[0]):
                rows.append(w[i] * x)
            return [tf.stack(c) for c in zip(*rows)]
        """, "tf.unstack(rows, axis=1)", "pfor"),
    # `count += 1` adds Python ints: the count stays one, so `total / count` divides a float
    # tensor by it (an int32 sum of the batched terms would raise there)
    "mean_with_a_python_count": ("""
        def f(w, b, x):
            total, count = tf.zeros([]), 0
            for i in range(w.shape[0]):
                total += tf.reduce_sum(w[i] * x)
                count += 1
            return total / count
        """, "count = count + w.shape[0]", "pfor"),
}

#: name -> (source of `f`, a phrase of the reason it stays a loop)
KEPT = {
    "rows_of_a_list_unstacked_from_an_expression": ("""
        def f(w, b, x):
            '''Args:
              x: float32 [d].
            '''
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                ys = tf.unstack(tf.tanh(tf.linalg.matvec(w, x)))
            rows = []
            for y_i in ys:
                rows.append(tape.gradient(y_i, x))
            return tf.stack(rows)
        """, "not a row of a tensor"),
    # `y` rebound after it was unstacked: its rows are not the loop's
    "unstacked_then_rebound": ("""
        def f(w, b, x):
            '''Args:
              x: float32 [d].
            '''
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = tf.tanh(tf.linalg.matvec(w, x))
                ys = tf.unstack(y)
                y = y * 2.0
            rows = []
            for y_i in ys:
                rows.append(tape.gradient(y_i, x))
            return tf.stack(rows)
        """, "not a row of a tensor"),
    "gradient_of_a_computed_row": ("""
        def f(w, b, x):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = tf.tanh(tf.linalg.matvec(w, x))
                ys = tf.unstack(y)
            rows = []
            for y_i in ys:
                rows.append(tape.gradient(y_i * y_i, x))
            return tf.stack(rows)
        """, "left as a loop"),
    "blocks_of_an_unproven_size": ("""
        def f(w, b, x, size, n):
            out = []
            for k in range(n):
                out.append(tf.reduce_mean(w[k * size:(k + 1) * size], axis=0))
            return tf.stack(out)
        """, "the blocks may be short"),
    "blocks_of_an_array_of_another_length": ("""
        def f(w, b, x):
            size = w.shape[0] // 2
            out = []
            for k in range(2):
                out.append(tf.reduce_sum(w[k * size:(k + 1) * size]) + tf.reduce_sum(b[k * size:(k + 1) * size]))
            return tf.stack(out)
        """, "may have fewer rows than the blocks read"),
    "blocks_beside_the_whole_array": ("""
        def f(w, b, x):
            size = w.shape[0] // 2
            out = []
            for k in range(2):
                out.append(tf.reduce_sum(w[k * size:(k + 1) * size]) / tf.reduce_sum(w))
            return tf.stack(out)
        """, "read whole"),
    "block_size_bound_in_the_loop": ("""
        def f(w, b, x):
            size = w.shape[0] // 2
            out = []
            for k in range(2):
                out.append(tf.reduce_sum(w[k * size:(k + 1) * size]))
                size = 1
            return tf.stack(out)
        """, "left as a loop"),
    # how many iterations count depends on the data: the loop's count is a Python int, a
    # batched one an int32 tensor that `total / count` cannot divide a float tensor by
    "python_count_under_a_test": ("""
        def f(w, b, x):
            total, count = tf.zeros([]), 0
            for i in range(w.shape[0]):
                s = tf.reduce_sum(w[i] * x)
                if s > 0:
                    total += s
                    count += 1
            return total / count
        """, "counts Python ints under a per-iteration test"),
    # the same behind a `continue` guard, an `if` around the rest of the body (fuzz seed 8171102)
    "python_count_after_a_continue": ("""
        def f(w, b, x):
            total, count = tf.zeros([]), 0
            for i in range(w.shape[0]):
                if tf.reduce_sum(w[i]) > 0:
                    continue
                total += tf.reduce_sum(w[i] * x)
                count += 1
            return total / (count + 1)
        """, "counts Python ints under a per-iteration test"),
    # no rank for `x`, which may be a list: `tape.jacobian(y, [a, b])` is a list of Jacobians,
    # stacked along another axis than the loop's lists of gradients (helper-37)
    "jacobian_with_a_source_that_may_be_a_list": ("""
        def f(w, b, x):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = tf.tanh(tf.linalg.matvec(w, x) + b)
                ys = tf.unstack(y)
            rows = []
            for y_i in ys:
                rows.append(tape.gradient(y_i, x))
            return tf.stack(rows)
        """, "the source may be a list of tensors"),
    # a trip count that is a tensor makes any batched count an int32 tensor (helper-37)
    "count_over_a_tensor_trip_count": ("""
        def f(w, b, x):
            total, count = tf.zeros([]), 0
            n = tf.shape(w)[0]
            for i in range(n):
                total += tf.reduce_sum(w[i] * x)
                count += 1
            return total / count
        """, "whose bounds may be tensors"),
    # the count under a test read by a call, declared with an annotation, or counted by a
    # conditional expression: the same as `total / count` (helper-37)
    "count_under_a_test_read_by_a_call": ("""
        def f(w, b, x):
            total, count = tf.zeros([]), 0
            for i in range(w.shape[0]):
                s = tf.reduce_sum(w[i] * x)
                if s > 0:
                    total += s
                    count += 1
            return total / max(count, 1)
        """, "counts Python ints under a per-iteration test"),
    "annotated_count_under_a_test": ("""
        def f(w, b, x):
            total = tf.zeros([])
            count: int = 0
            for i in range(w.shape[0]):
                s = tf.reduce_sum(w[i] * x)
                if s > 0:
                    total += s
                    count += 1
            return total / count
        """, "counts Python ints under a per-iteration test"),
    "count_by_a_conditional_expression": ("""
        def f(w, b, x):
            total, count = tf.zeros([]), 0
            for i in range(w.shape[0]):
                s = tf.reduce_sum(w[i] * x)
                total += s
                count += 1 if s > 0 else 0
            return total / (count + 1)
        """, "counts Python ints under a per-iteration test"),
    "unzipped_under_a_test": ("""
        def f(w, b, x):
            out = []
            for i in range(w.shape[0]):
                if tf.reduce_sum(w[i]) > 0:
                    out.append([w[i] * x, tf.reduce_sum(w[i])])
            return [tf.stack(c) for c in zip(*out)]
        """, "appended to under a test"),
    "consumed_with_a_dtype": ("""
        def f(w, b, x):
            rows = []
            for i in range(w.shape[0]):
                rows.append(w[i] * x)
            return tf.convert_to_tensor(rows, dtype=tf.float64)
        """, "consumed with `dtype=`"),
    # the list of lists is returned as it is: a tensor in its place would not be a list
    "list_of_lists_returned_as_a_list": ("""
        def f(w, b, x):
            rows = []
            for i in range(w.shape[0]):
                row = []
                for j in range(b.shape[0]):
                    row.append(tf.reduce_sum(w[i] * b[j]))
                rows.append(row)
            return rows
        """, "left as a loop"),
}


def _inputs(tf):
    rng = np.random.default_rng(7)
    w = tf.constant(rng.normal(size=(6, 4)), tf.float32)
    b = tf.constant(rng.normal(size=(6,)), tf.float32)
    x = tf.constant(rng.normal(size=(4,)), tf.float32)
    return w, b, x


def _matrix_inputs(tf):
    rng = np.random.default_rng(8)
    return tf.constant(rng.normal(size=(5, 4)), tf.float32), None, tf.constant(rng.normal(size=(4, 2)), tf.float32)


@pytest.mark.parametrize("name", sorted(REWRITTEN))
def test_rewritten_and_equal_to_the_loop(name, tf):
    body, form, backend = REWRITTEN[name]
    source = HEADER + textwrap.dedent(body)
    result = transpile_source(source, "m.py")
    plan = plan_of(result, "f")
    assert plan.rewritten and plan.backend == backend, plan.remarks
    assert form in result.code, result.code
    args = _matrix_inputs(tf) if name == "jacobian_rows_of_a_matrix" else _inputs(tf)
    before, after = run_module(source)["f"](*args), run_module(result.code)["f"](*args)
    if isinstance(before, list):
        assert isinstance(after, list) and len(after) == len(before)
        pairs = list(zip(before, after))
    else:
        pairs = [(before, after)]
    for loop, batched in pairs:
        assert loop.shape == batched.shape and loop.dtype == batched.dtype
        np.testing.assert_allclose(batched.numpy(), loop.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(KEPT))
def test_look_alikes_stay_loops(name):
    body, why = KEPT[name]
    source = HEADER + textwrap.dedent(body)
    result = transpile_source(source, "m.py")
    assert not any(p.rewritten for p in result.plans if p.function == "f"), result.code
    messages = " ".join(r.message for r in result.remarks)
    assert why in messages, messages


def test_a_python_count_stays_a_python_int(tf):
    """The loop's count is a Python int, and so is the rewrite's (a tensor would be int32)."""
    body, _, _ = REWRITTEN["mean_with_a_python_count"]
    source = HEADER + textwrap.dedent(body).replace("return total / count", "return count")
    result = transpile_source(source, "m.py")
    assert plan_of(result, "f").rewritten
    w, b, x = _inputs(tf)
    assert run_module(result.code)["f"].python_function(w, b, x) == 6


def test_blocks_past_a_negative_count_run_no_iteration(tf):
    """A negative count makes the loop run no iteration: the reshape gets zero blocks of zero rows."""
    source = HEADER + textwrap.dedent("""
        def f(w, n):
            size = w.shape[0] // n
            out = []
            for k in range(n):
                out.append(tf.reduce_mean(w[k * size:(k + 1) * size]))
            return tf.stack(out)
        """)
    result = transpile_source(source, "m.py")
    assert plan_of(result, "f").rewritten and "tf.maximum(n, 0)" in result.code
    w = tf.constant(np.arange(12.0), tf.float32)
    after = run_module(result.code)["f"]
    assert after(w, -3).shape == (0,)
    np.testing.assert_allclose(after(w, 4).numpy(), run_module(source)["f"](w, 4).numpy())


BLOCKS = {
    # the block size from the length: size = len // n
    "size_from_the_length": """
        def f(x, y, n):
            assert len(x) == len(y)
            size = x.shape[0] // n
            out = []
            for m in range(n):
                out.append(tf.reduce_sum(x[m * size:(m + 1) * size], axis=0) * tf.reduce_mean(y[size * m:size * m + size]))
            return tf.stack(out)
        """,
    # the trip count from the length: n = len // size, the size a parameter
    "count_from_the_length": """
        def f(x, y, size):
            n = x.shape[0] // size
            total = tf.zeros(x.shape[1:])
            for m in range(n):
                total = total + tf.reduce_max(x[m * size:(m + 1) * size, ...], axis=0)
            return total
        """,
}


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_blocks_equal_the_loop_on_many_shapes(name, tf, tmp_path):
    """Random lengths, counts (negative ones too) and widths: the rewrite (asserted to read the
    blocks as reshaped rows) returns the loop's numbers, and raises where the loop raises."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    source = HEADER + textwrap.dedent(BLOCKS[name])
    result = transpile_source(source, "m.py")
    assert plan_of(result, "f").rewritten and "x_blocks = tf.reshape(" in result.code, result.code
    from pforge.runtime.loader import load_module

    path = tmp_path / "m.py"  # (a file: AutoGraph converts `assert len(x) == len(y)` from its source)
    path.write_text(source)
    loop, batched = load_module(path).f, load_module(path, source=result.code, variant="rewrite").f

    @hypothesis.settings(max_examples=40, deadline=None, derandomize=True)
    @hypothesis.given(length=st.integers(0, 9), count=st.integers(-3, 5), width=st.integers(1, 3))
    def check(length, count, width):
        x = tf.reshape(tf.range(length * width, dtype=tf.float32) * 0.5 - 1.0, [length, width])
        y = tf.range(length, dtype=tf.float32) + 1.0
        outcomes = []
        for fn in (loop, batched):
            try:
                outcomes.append(fn(x, y, count))
            except Exception as exc:  # staged, Python's ZeroDivisionError comes as a StagingError
                outcomes.append(ZeroDivisionError if "by zero" in str(exc) else type(exc))
        want, got = outcomes
        if isinstance(want, type):
            assert want is ZeroDivisionError and got is ZeroDivisionError
            return
        assert not isinstance(got, type), (length, count, width, got)
        if want.shape[0] == 0 and want.shape.rank == 1:  # `tf.stack([])`: the README's contract
            assert got.shape[0] == 0
            return
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)

    check()


def test_blocks_of_a_python_list(tf, tmp_path):
    """A list's blocks: the rows come from the list made a tensor (a list cannot be sliced by
    the clamped bounds, which are tensors under tf.function; helper-37)."""
    from pforge.runtime.loader import load_module

    source = HEADER + textwrap.dedent("""
        def f(x, n):
            size = len(x) // n
            out = []
            for m in range(n):
                out.append(tf.reduce_sum(x[m * size:(m + 1) * size]))
            return tf.stack(out)
        """)
    result = transpile_source(source, "m.py")
    assert plan_of(result, "f").rewritten and "tf.convert_to_tensor(x)" in result.code, result.code
    path = tmp_path / "m.py"
    path.write_text(source)
    loop, batched = load_module(path).f, load_module(path, source=result.code, variant="rewrite").f
    xs = [1.0, 2.0, 3.0, 4.0, 5.0]
    np.testing.assert_allclose(batched(xs, 2).numpy(), loop(xs, 2).numpy())
