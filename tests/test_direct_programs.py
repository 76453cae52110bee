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
    'enum_start': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for k, r in enumerate(x, 1):\n        out.append(r * k)\n    return np.stack(out)\n', False),
    'col_read': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for j in range(x.shape[1]):\n        out.append(np.sum(x[:, j]))\n    return np.array(out)\n', True),
    'row_fill': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = np.zeros(x.shape)\n    for i in range(x.shape[0]):\n        out[i] = np.mean(x[i])\n    return out\n', True),
    'nested_flat': ('\ndef f(x, y):\n    """Args:\n      x: [n].\n      y: [m].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        for j in range(y.shape[0]):\n            out.append(x[i] * y[j])\n    return np.array(out)\n', True),
    'inner_red': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        acc = 0.0\n        for j in range(x.shape[1]):\n            acc += x[i, j] * j\n        out.append(acc)\n    return np.array(out)\n', True),
    'mask_max': ('\ndef f(x):\n    """Args:\n      x: [n].\n    """\n    best = -1.0\n    for i in range(x.shape[0]):\n        if x[i] > 0:\n            best = max(best, x[i])\n    return best\n', False),
    'ifexp': ('\ndef f(x):\n    """Args:\n      x: [n, d].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        s = np.sum(x[i])\n        out.append(x[i] if s > 0 else x[i] * s)\n    return np.stack(out)\n', True),
    'gather': ('\ndef f(x, idx):\n    """Args:\n      x: [n, d].\n      idx: [k].\n    """\n    out = []\n    for i in range(idx.shape[0]):\n        out.append(x[idx[i]] - x[0])\n    return np.stack(out)\n', True),
    'elif_assign': ('\ndef f(x):\n    """Args:\n      x: [n].\n    """\n    out = []\n    for i in range(x.shape[0]):\n        if x[i] > 1:\n            v = x[i] * 2\n        elif x[i] < -1:\n            v = -x[i]\n        else:\n            v = 0.0\n        out.append(v)\n    return np.array(out)\n', True),
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
