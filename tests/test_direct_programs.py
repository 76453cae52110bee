"""Small NumPy loops through the direct backend: each is rewritten and equal, or left as it was."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from pforge.transpile import transpile_source

#: name -> (loop, expected to be rewritten)
PROGRAMS = {
    'step': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for i in range(1, x.shape[0], 2):\n        out.append(x[i] * 2 + x[i - 1])\n    return np.stack(out)\n', True),
    'negstep': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for i in range(x.shape[0] - 1, -1, -1):\n        out.append(x[i] + 1)\n    return np.stack(out)\n', True),
    'enum_start': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for k, r in enumerate(x, 1):\n        out.append(r * k)\n    return np.stack(out)\n', True),
    'col_read': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for j in range(x.shape[1]):\n        out.append(np.sum(x[:, j]))\n    return np.array(out)\n', True),
    'row_fill': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = np.zeros(x.shape)\n    for i in range(x.shape[0]):\n        out[i] = np.mean(x[i])\n    return out\n', True),
    'nested_flat': ('\ndef f(x, y):\n    """Args:\n      x: [n].\n      y: [m].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        for j in range(y.shape[0]):\n            out.append(x[i] * y[j])\n    return np.array(out)\n', True),
    'inner_red': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        acc = 0.0\n        for j in range(x.shape[1]):\n            acc += x[i, j] * j\n        out.append(acc)\n    return np.array(out)\n', True),
    'mask_max': ('\ndef f(x):\n    """Args:\n      x: [n].\n    """\n    best = -1.0\n    for i in range(x.shape[0]):\n        if x[i] > 0:\n            best = np.maximum(best, x[i])\n    return best\n', True),
    'ifexp': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        s = np.sum(x[i])\n        out.append(x[i] if s > 0 else x[i] * s)\n    return np.stack(out)\n', True),
    'gather': ('\ndef f(x, idx):\n    """Args:\n      x: [n, d].\n      idx: [k].\n    """\n    out = []\n    for i in range(idx.shape[0]):\n        out.append(x[idx[i]] - x[0])\n    return np.stack(out)\n', True),
    'elif_assign': ('\ndef f(x):\n    """Args:\n      x: [n].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        if x[i] > 1:\n            v = x[i] * 2\n        elif x[i] < -1:\n            v = -x[i]\n        else:\n            v = x[i] * 0.0\n        out.append(v)\n    return np.array(out)\n', True),
    'elif_assign_number': ('\ndef f(x):\n    """Args:\n      x: [n].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        if x[i] > 1:\n            v = x[i] * 2\n        elif x[i] < -1:\n            v = -x[i]\n        else:\n            v = 0.0\n        out.append(v)\n    return np.array(out)\n', False),  # np.array's dtype would depend on which branches run
    'count': ('\ndef f(x):\n    """Args:\n      x: [n].\n    """\n    c = 0\n    for i in range(x.shape[0]):\n        if x[i] > 0:\n            c += 1\n    return c\n', True),
    'zip_rows': ('\ndef f(x, y):\n    """Args:\n      x: [n, d].\n      y: [n, d].\n    """\n    out = []\n    for a, b in zip(x, y):\n        out.append(np.dot(a, b))\n    return np.array(out)\n', True),
    'scatter_hist': ('\ndef f(v, bins):\n    """Args:\n      v: [n].\n    """\n    h = np.zeros(bins)\n    for i in range(v.shape[0]):\n        h[v[i]] += 1\n    return h\n', True),
    'outer_write2d': ('\ndef f(x, y):\n    """Args:\n      x: [n].\n      y: [m].\n    """\n    out = np.zeros((x.shape[0], y.shape[0]))\n    for i in range(x.shape[0]):\n        for j in range(y.shape[0]):\n            out[i, j] = x[i] - y[j] * i\n    return out\n', True),
    'transposed_write': ('\ndef f(x):\n    """Args:\n      x: [n, m].\n    """\n    out = np.zeros((x.shape[1], x.shape[0]))\n    for i in range(x.shape[0]):\n        for j in range(x.shape[1]):\n            out[j, i] = x[i, j]\n    return out\n', True),
}


def _arguments(fn, rng):
    given = {"x": rng.standard_normal((5, 4)), "y": rng.standard_normal((5, 4)),
             "idx": np.array([3, 0, 4, 4]), "v": rng.integers(0, 3, 9), "bins": 4}
    vectors = {"x": rng.standard_normal(5), "y": rng.standard_normal(3)}
    names = list(inspect.signature(fn).parameters)
    doc = fn.__doc__ or ""
    return [vectors[n] if n in vectors and (f"{n}: [n]." in doc or f"{n}: [m]." in doc) else given[n]
            for n in names]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program(name):
    """The rewrite (when there is one) returns the loop's numbers, shape and all."""
    from pforge.runtime.loader import load_module

    body, rewritten = PROGRAMS[name]
    source = "import numpy as np\n" + body
    result = transpile_source(source, "m.py")
    assert result.changed == rewritten, [r.message for r in result.plans[0].remarks]
    if rewritten:
        assert result.plans[0].backend == "direct"
    before = load_module("m.py", source=source).f
    after = load_module("m.py", source=result.code).f
    args = _arguments(before, np.random.default_rng(1))
    want, got = before(*args), after(*args)
    assert np.shape(want) == np.shape(got), result.code
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), err_msg=result.code)


#: TensorFlow loops: name -> loop (all rewritten by the direct backend)
TF_PROGRAMS = {
    'rownorm': '\ndef f(x, g):\n    """Args:\n      x: float32 [n, d].\n      g: float32 [d].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        m = tf.reduce_max(x[i], keepdims=True)\n        out.append(tf.exp(x[i] - m) * g / tf.reduce_sum(tf.exp(x[i] - m)))\n    return tf.stack(out)\n',
    'cond_red': '\ndef f(x):\n    """Args:\n      x: float32 [n, d].\n    """\n    total = tf.constant(0.0)\n    for i in range(x.shape[0]):\n        if tf.reduce_mean(x[i]) > 0:\n            total += tf.reduce_sum(x[i])\n    return total\n',
    'pairs': '\ndef f(x, y):\n    """Args:\n      x: float32 [n, d].\n      y: float32 [m, d].\n    """\n    rows = []\n    for i in range(x.shape[0]):\n        row = []\n        for j in range(y.shape[0]):\n            row.append(tf.reduce_sum(x[i] * y[j]))\n        rows.append(tf.stack(row))\n    return tf.stack(rows)\n',
    'gather_rows': '\ndef f(table, ids):\n    """Args:\n      table: float32 [v, d].\n      ids: int32 [n].\n    """\n    out = []\n    for i in range(ids.shape[0]):\n        out.append(tf.nn.sigmoid(table[ids[i]]))\n    return tf.stack(out)\n',
    'matrix_per_row': '\ndef f(m, w):\n    """Args:\n      m: float32 [n, a, b].\n      w: float32 [b, c].\n    """\n    out = []\n    for k in range(m.shape[0]):\n        out.append(tf.transpose(tf.matmul(m[k], w)))\n    return tf.stack(out)\n',
    'concat_consumer': '\ndef f(x):\n    """Args:\n      x: float32 [n, d].\n    """\n    parts = []\n    for i in range(x.shape[0]):\n        parts.append(x[i][:2] * 3.0)\n    return tf.concat(parts, 0)\n',
    'where_scalar': '\ndef f(x, t):\n    """Args:\n      x: float32 [n, d].\n      t: float32 scalar.\n    """\n    out = []\n    for r in x:\n        out.append(tf.where(r > t, r, t))\n    return tf.stack(out)\n',
}


@pytest.mark.parametrize("name", sorted(TF_PROGRAMS))
def test_tensorflow_program(name, tf):
    """Direct rewrite of a TensorFlow loop: same numbers and shape as the loop."""
    from pforge.runtime.loader import load_module

    source = "import tensorflow as tf\n" + TF_PROGRAMS[name]
    result = transpile_source(source, "m.py")
    assert result.plans[0].backend == "direct", [r.message for r in result.plans[0].remarks]
    rng = np.random.default_rng(2)
    values = {"x": rng.standard_normal((5, 4)), "g": rng.standard_normal(4), "y": rng.standard_normal((3, 4)),
              "table": rng.standard_normal((6, 4)), "m": rng.standard_normal((5, 2, 3)),
              "w": rng.standard_normal((3, 4)), "t": np.float32(0.2)}
    args = {k: tf.constant(v, tf.float32) for k, v in values.items()}
    args["ids"] = tf.constant([5, 0, 2, 2], tf.int32)
    before = load_module("m.py", source=source).f
    after = load_module("m.py", source=result.code).f
    call = [args[n] for n in inspect.signature(before).parameters]
    want, got = before(*call), after(*call)
    assert want.shape == got.shape, result.code
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, err_msg=result.code)
