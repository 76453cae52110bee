"""Closed-form Jacobians of dense layers (``backends/direct/jacobians.py``): Jacobian rows of
``y = f(tf.linalg.matvec(W, x) + b)`` become ``f'(...)[:, tf.newaxis] * W`` under a test of what
the tape would see, with ``tape.jacobian`` otherwise. Each form is generated from a grammar of
elementwise steps and compared with the loop on several shapes; look-alikes keep
``tape.jacobian`` alone."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

pytestmark = pytest.mark.tf

INNER = """\
import tensorflow as tf


def f(x, w, b, c):
    rows = []
    for i in range(w.shape[0]):
        with tf.GradientTape() as tape:
            tape.watch(x)
{body}
            y_i = y[i]
        rows.append(tape.gradient(y_i, x))
    return tf.stack(rows)
"""

OUTER = """\
import tensorflow as tf


def f(x, w, b, c):
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
{body}
        outputs = tf.unstack(y)
    rows = []
    for y_i in outputs:
        rows.append(tape.gradient(y_i, x))
    return tf.stack(rows)
"""

#: the ranks `--shapes` would give (the tests' functions have no docstrings to read them from)
RANKS = {"x": 1, "w": 2, "b": 1, "c": 1}

#: elementwise steps applied to `z`, the value so far
STEPS = ["tf.tanh({z})", "tf.sigmoid({z})", "tf.nn.relu({z})", "tf.exp({z} * 0.1)", "tf.nn.softplus({z})",
         "tf.square({z})", "tf.sin({z})", "tf.math.cos({z})", "{z} + b", "b - {z}", "{z} * c", "2.0 * {z}",
         "{z} / 3.0", "-{z}", "{z} - c"]


def _bodies(seed: int, count: int, final_call: bool = False):
    """Chains of one to four steps; ``final_call``: the last step a call (a row of ``y`` from a
    tape before the loop is followed only where ``y`` is bound to a TensorFlow op's result)."""
    rng = random.Random(seed)
    for _ in range(count):
        z, lines = "tf.linalg.matvec(w, x)", []
        steps = rng.randint(1, 4)
        for k in range(steps):
            z = rng.choice(STEPS[:8] if final_call and k == steps - 1 else STEPS).format(z=z)
            if k < steps - 1 and rng.random() < 0.4:  # a name of the block between steps
                lines.append(f"h{k} = {z}")
                z = f"h{k}"
        lines.append(f"y = {z}")
        yield lines


def _inputs(m: int, n: int, dtype, seed: int):
    import tensorflow as tf
    rng = np.random.default_rng(seed)
    return (tf.constant(rng.normal(size=n), dtype), tf.constant(rng.normal(size=(m, n)) / np.sqrt(n), dtype),
            tf.constant(rng.normal(size=m), dtype), tf.constant(rng.normal(size=m), dtype))


@pytest.mark.parametrize("template", [INNER, OUTER], ids=["inner tape", "outer tape"])
def test_generated_layers_take_the_closed_form_and_equal_the_loop(template, tf):
    """Forty chains of elementwise steps over one affine map, each in both tape layouts: the
    rewrite writes the closed form (no `tape.jacobian` on the taken branch) and returns the
    loop's Jacobian on float32 and float64 inputs of three shapes."""
    indent = " " * (12 if template is INNER else 8)
    for lines in _bodies(14, 40, final_call=template is OUTER):
        source = template.format(body="\n".join(indent + line for line in lines))
        result = transpile_source(source, "m.py", backend="direct", shapes=RANKS)
        (plan,) = result.plans
        assert plan.rewritten, (source, [r.message for r in plan.remarks])
        assert "[:, tf.newaxis] * w" in result.code and "x.dtype.is_floating" in result.code, result.code
        loop, new = run_module(source)["f"], run_module(result.code)["f"]
        for (m, n), dtype in itertools.product([(1, 1), (5, 3), (7, 7)], [tf.float32, tf.float64]):
            args = _inputs(m, n, dtype, m * n)
            want, got = loop(*args).numpy(), new(*args).numpy()
            assert got.dtype == want.dtype and got.shape == want.shape == (m, n), (source, got.shape)
            np.testing.assert_allclose(got, want, rtol=2e-5 if dtype == tf.float32 else 1e-12,
                                       atol=2e-6 if dtype == tf.float32 else 1e-12, err_msg=source)


def test_the_closed_form_is_the_taken_branch(tf):
    """The generated test holds on the usual inputs, so the closed form is what runs: it reads no
    tape (a Jacobian from a tape that recorded nothing would raise or give None)."""
    lines = ["y = tf.tanh(tf.linalg.matvec(w, x) + b)"]
    source = INNER.format(body="\n".join(" " * 12 + line for line in lines))
    code = transpile_source(source, "m.py", backend="direct", shapes=RANKS).code
    branch = code.split("if x.dtype.is_floating")[1].split("else:")[0]
    assert "(1.0 - tf.square(y))[:, tf.newaxis] * w" in branch and "tape" not in branch
    namespace = run_module(code)
    x, w, b, c = _inputs(4, 3, tf.float32, 0)
    test = code.split("if ")[1].split(":\n")[0]
    assert eval(test, namespace, {"x": x, "w": w, "b": b, "c": c, "y": tf.tanh(tf.linalg.matvec(w, x) + b)})


LEFT = [
    ("y = tf.tanh(tf.linalg.matvec(w, x) + x)", "x twice"),
    ("y = tf.tanh(tf.linalg.matvec(w, x)) * tf.linalg.matvec(w, x)", "a product of two terms reading x"),
    ("y = b / tf.linalg.matvec(w, x)", "x in a denominator"),
    ("y = tf.tanh(tf.linalg.matvec(w, x, transpose_a=False))", "a keyword of matvec"),
    ("y = tf.math.log1p(tf.linalg.matvec(w, x))", "a function with no derivative listed"),
    ("y = tf.linalg.matvec(w * x, c)", "x in the matrix"),
    ("y = tf.tanh(tf.linalg.matvec(w, 2.0 * x))", "a step below the matrix"),
]


@pytest.mark.parametrize("line, why", LEFT, ids=[w for _, w in LEFT])
def test_look_alikes_keep_tape_jacobian(line, why, tf):
    source = INNER.format(body=" " * 12 + line)
    result = transpile_source(source, "m.py", backend="direct", shapes=RANKS)
    assert "tape.jacobian(y, x)" in result.code and "is_floating" not in result.code, (why, result.code)


def test_a_block_that_binds_a_name_twice_or_watches_late_keeps_tape_jacobian(tf):
    twice = ["h = tf.linalg.matvec(w, x)", "h = tf.tanh(h)", "y = h + b"]
    late = ["y = tf.tanh(tf.linalg.matvec(w, x) + b)"]
    for lines, source in ((twice, INNER.format(body="\n".join(" " * 12 + s for s in twice))),
                          (late, INNER.replace("            tape.watch(x)\n{body}",
                                               "{body}\n            tape.watch(x)").format(
                              body="\n".join(" " * 12 + s for s in late)))):
        code = transpile_source(source, "m.py", backend="direct", shapes=RANKS).code
        assert "is_floating" not in code, code


def test_an_operand_that_is_x_itself_takes_tape_jacobian(tf):
    """``f(x, w, x, c)`` run eagerly: ``b`` is the watched tensor, so the tape differentiates
    through it too; the test sees it (``b is not x``) and the rewrite equals the loop. (Staged,
    ``tf.function`` gives each argument its own placeholder, and the loop's tape sees two
    tensors as the closed form does.)"""
    source = INNER.format(body=" " * 12 + "y = tf.tanh(tf.linalg.matvec(w, x) + b)")
    result = transpile_source(source, "m.py", backend="direct", shapes=RANKS)
    assert "b is not x" in result.code
    x, w, _, c = _inputs(3, 3, tf.float64, 1)
    tf.config.run_functions_eagerly(True)
    try:
        want, got = run_module(source)["f"](x, w, x, c), run_module(result.code)["f"](x, w, x, c)
    finally:
        tf.config.run_functions_eagerly(False)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    assert not np.allclose(want.numpy(), (1 - np.tanh(w.numpy() @ x.numpy() + x.numpy()) ** 2)[:, None] * w.numpy())


def test_a_broadcast_operand_gives_the_rows_it_broadcasts_to(tf):
    """``w`` of one row and ``b`` of four entries: ``y`` has four, the affine map one. The
    derivative factors have ``y``'s four entries, so ``D[:, tf.newaxis] * w`` is four rows, each
    ``w``'s row scaled, as the tape's are."""
    source = INNER.replace("range(w.shape[0])", "range(b.shape[0])").format(
        body=" " * 12 + "y = tf.tanh(tf.linalg.matvec(w, x) + b)")
    result = transpile_source(source, "m.py", backend="direct", shapes=RANKS)
    assert "(1.0 - tf.square(y))[:, tf.newaxis] * w" in result.code, result.code
    x, w, b, c = _inputs(1, 3, tf.float64, 2)
    b = tf.constant(np.arange(4.0))
    want, got = run_module(source)["f"](x, w, b, c), run_module(result.code)["f"](x, w, b, c)
    assert got.shape == want.shape == (4, 3)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_a_target_of_two_axes_takes_tape_jacobian(tf):
    """A tape before the loop, ``y`` of shape ``[k, m]`` (``b`` of two axes): each row of ``y`` is
    a target whose entries the gradient sums; the closed form is for vector ``y`` only, and its
    test sends this one to ``tape.jacobian`` (summed over the row's axis)."""
    source = OUTER.format(body=" " * 8 + "y = tf.tanh(tf.linalg.matvec(w, x) + b)")
    result = transpile_source(source, "m.py", backend="direct", shapes={"x": 1, "w": 2, "c": 1})
    assert "y.shape.rank == 1" in result.code, result.code
    x, w, _, c = _inputs(3, 2, tf.float64, 4)
    b = tf.constant(np.arange(12.0).reshape(4, 3) / 10)
    want, got = run_module(source)["f"](x, w, b, c), run_module(result.code)["f"](x, w, b, c)
    assert got.shape == want.shape == (4, 2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_the_module_s_own_name_for_tensorflow(tf):
    """``import tensorflow as T``: the closed form is spelled with ``T`` and runs."""
    source = INNER.replace("import tensorflow as tf", "import tensorflow as T").replace("tf.", "T.").format(
        body=" " * 12 + "y = T.sigmoid(T.linalg.matvec(w, x) * c)")
    result = transpile_source(source, "m.py", backend="direct", shapes=RANKS)
    assert "T.newaxis] * w" in result.code and "tf." not in result.code.replace("pforge", ""), result.code
    args = _inputs(4, 3, tf.float64, 3)
    np.testing.assert_allclose(run_module(result.code)["f"](*args).numpy(), run_module(source)["f"](*args).numpy(),
                               rtol=1e-12)


def test_the_closed_form_is_an_unsafe_fix(tf):
    """A NaN in one row of ``w`` reaches every row of the loop's Jacobian (its backward pass
    multiplies the one-hot cotangent's zeros by it) and only that row of the closed form (found
    by helper-52): an unsafe fix, named as one; without unsafe fixes ``tape.jacobian`` is written,
    which spreads it as the loop does."""
    source = INNER.format(body=" " * 12 + "y = tf.tanh(tf.linalg.matvec(w, x) + b)")
    unsafe = transpile_source(source, "m.py", backend="direct", shapes=RANKS)
    (plan,) = unsafe.plans
    assert plan.unsafe and "closed form" in plan.unsafe and "spreads it to every row" in plan.unsafe
    safe = transpile_source(source, "m.py", backend="direct", shapes=RANKS, unsafe=False)
    (plan,) = safe.plans
    assert plan.rewritten and not plan.unsafe and "is_floating" not in safe.code and "tape.jacobian(y, x)" in safe.code
    x, w, b, c = _inputs(2, 2, tf.float32, 5)
    w = tf.constant([[1.0, 2.0], [np.nan, 1.0]])
    want = run_module(source)["f"](x, w, b, c).numpy()
    assert np.isnan(want).all()
    np.testing.assert_array_equal(run_module(safe.code)["f"](x, w, b, c).numpy(), want)
    assert not np.isnan(run_module(unsafe.code)["f"](x, w, b, c).numpy()[0]).any()


def test_rows_selected_in_reverse_from_a_longer_output(tf):
    """``range(w.shape[0] - 1, -1, -1)`` selects ``y[:w.shape[0]][::-1]``; with ``b`` longer than
    ``w``'s rows, ``y`` is longer too, and the Jacobian's rows are selected by the same
    expression, both slices (the outer one alone gave three rows where the loop gives one: b91,
    helper-52)."""
    source = INNER.replace("range(w.shape[0])", "range(w.shape[0] - 1, -1, -1)").format(
        body=" " * 12 + "y = tf.tanh(tf.linalg.matvec(w, x) + b)")
    for unsafe in (True, False):
        result = transpile_source(source, "m.py", backend="direct", shapes=RANKS, unsafe=unsafe)
        assert "[:w.shape[0]][::-1]" in result.code, result.code
        x, w, _, c = _inputs(1, 2, tf.float64, 6)
        b = tf.constant([0.1, 0.2, 0.3], tf.float64)
        want, got = run_module(source)["f"](x, w, b, c), run_module(result.code)["f"](x, w, b, c)
        assert got.shape == want.shape == (1, 2)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
