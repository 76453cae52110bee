"""Table-driven check of every batching rule: the batched call equals a loop of the unbatched one.

For each API in the registry a small loop is written (``out.append(CALL(x[i], ...))`` over
small random inputs, with invariant operands of higher rank to catch wrong broadcast axes),
transpiled with ``backend="direct"``, and both versions are run and compared. A rule that
no longer fires (the loop falls back) fails the test, naming the reason.
"""

from __future__ import annotations

import pytest

from pforge.transpile import transpile_source
from pforge.transpile.backends.direct import REGISTRY

_SIGNATURE = '''
def f(x, y2, s, m, sq, spd, idx, v, w, wt, w2, e):
    """Loop under test.

    Args:
      x: [n, d].
      y2: [k, d].
      s: [n].
      m: [n, a, b].
      sq: [n, c, c].
      spd: [n, c, c].
      idx: [n].
      v: [d].
      w: [k, d].
      wt: [d, k].
      w2: [b, k].
      e: [n, o, d].
    """
    out = []
    for i in range(x.shape[0]):
        out.append(EXPR)
    return STACK(out)
'''

_BOOL_IN = ("logical_", "reduce_any", "reduce_all")
_INT_IN = ("bitwise_",)
_FLAT = ("argmax", "argmin", "cumsum", "cumprod", "nancumsum")


#: rules whose registry sample does not describe a call shape: their cases, written out
#: math functions, on per-iteration scalars inside their domains
_MATH_CASES = {
    "math.sqrt": "math.sqrt(abs(s[i]) + 0.5)", "math.exp": "math.exp(s[i])",
    "math.log": "math.log(abs(s[i]) + 0.5)", "math.log10": "math.log10(abs(s[i]) + 0.5)",
    "math.log2": "math.log2(abs(s[i]) + 0.5)", "math.log1p": "math.log1p(abs(s[i]))",
    "math.expm1": "math.expm1(s[i])", "math.sin": "math.sin(s[i])", "math.cos": "math.cos(s[i])",
    "math.tan": "math.tan(s[i])", "math.asin": "math.asin(math.tanh(s[i]))",
    "math.acos": "math.acos(math.tanh(s[i]))", "math.atan": "math.atan(s[i])",
    "math.sinh": "math.sinh(s[i])", "math.cosh": "math.cosh(s[i])", "math.tanh": "math.tanh(s[i] * 2.0)",
    "math.asinh": "math.asinh(s[i])", "math.acosh": "math.acosh(abs(s[i]) + 1.0)",
    "math.atanh": "math.atanh(math.tanh(s[i]) * 0.5)", "math.fabs": "math.fabs(s[i])",
    "math.degrees": "math.degrees(s[i])", "math.radians": "math.radians(s[i])",
    "math.isnan": "math.isnan(s[i])", "math.isinf": "math.isinf(s[i])",
    "math.isfinite": "math.isfinite(s[i])", "math.atan2": "math.atan2(s[i], x[i, 0])",
    "math.hypot": "math.hypot(s[i], x[i, 1])", "math.copysign": "math.copysign(x[i, 0], s[i])",
    "math.pow": "math.pow(abs(s[i]) + 0.5, x[i, 2])", "math.fmod": "math.fmod(s[i] * 7.0, 2.0)",
}

_WRITTEN_OUT = {
    "tensorflow.nn.sigmoid_cross_entropy_with_logits": [
        "tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(x[i]), logits=x[i] * 2.0)",
        "tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(y2[0]), logits=m[i][0])"],
    "tensorflow.nn.softmax_cross_entropy_with_logits": [
        "tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(x[i]), logits=x[i] * 2.0)",
        "tf.nn.softmax_cross_entropy_with_logits(labels=tf.nn.softmax(m[i]), logits=m[i] - 1.0)"],
    "tensorflow.shape": ["tf.cast(tf.shape(m[i])[1], tf.float32) * x[i]",
                         "x[i] / tf.cast(tf.shape(e[i])[-1], tf.float32)"],
    "numpy.shape": ["np.shape(m[i])[1] * x[i]", "x[i] / np.shape(e[i])[-1]"],
    "numpy.sort": ["np.sort(x[i])", "np.sort(m[i], axis=0)", "np.sort(m[i], -2)"],
    "numpy.argsort": ["np.argsort(x[i])", "np.argsort(m[i], axis=0)"],
    "numpy.ravel": ["np.ravel(m[i]) * 2.0", "np.sort(np.ravel(e[i]))[1] + x[i][0]"],
    "method.ravel": ["m[i].ravel()", "(e[i] * 2.0).ravel()"],
    "method.flatten": ["m[i].flatten()", "e[i].T.flatten()"],
    "numpy.fft.fft": ["np.fft.fft(x[i]).real", "np.fft.fft(m[i], 6, 0).imag"],
    "numpy.fft.ifft": ["np.fft.ifft(x[i]).imag", "np.fft.ifft(m[i], axis=0).real"],
    "numpy.fft.rfft": ["np.abs(np.fft.rfft(x[i], n=6))", "np.fft.rfft(m[i], axis=1).real"],
    "numpy.fft.irfft": ["np.fft.irfft(x[i])", "np.fft.irfft(m[i], n=4, axis=0)"],
    "numpy.array": ["np.array(x[i]) * 2.0", "np.array([x[i], x[i] * 2.0])", "np.array([s[i], 1.5 * s[i]])[1]",
                    "np.array(m[i], dtype=float)"],
    "numpy.asarray": ["np.asarray(x[i] * 2.0)", "np.asarray([m[i], m[i] - 1.0])"],
    "numpy.linalg.solve": ["np.linalg.solve(spd[i], spd[i][0] + 1.0)", "np.linalg.solve(spd[0], spd[i][1])",
                           "np.linalg.solve(spd[i], sq[i])", "np.linalg.solve(spd[i], sq[0])"],
    "numpy.linalg.slogdet": ["np.linalg.slogdet(spd[i])[1]", "np.linalg.slogdet(sq[i])[0] * x[i]",
                             "np.linalg.slogdet(sq[i])[-1]"],
    "numpy.linalg.eigh": ["np.linalg.eigh(spd[i])[0]", "np.abs(np.linalg.eigh(spd[i])[1])"],
    "numpy.linalg.svd": ["np.linalg.svd(sq[i])[1]", "np.abs(np.linalg.svd(spd[i])[2])"],
    "numpy.linspace": ["np.linspace(s[i], x[i, 0], 5)", "np.linspace(x[i], v, 4, axis=1)",
                       "np.linspace(0.0, s[i], 3, endpoint=False)", "np.linspace(x[i], 1.0, num=3, axis=-1)"],
}


def _exprs(name: str) -> list[str]:
    """Per-iteration expressions that exercise the rule for ``name``."""
    if name in _WRITTEN_OUT:
        return _WRITTEN_OUT[name]
    if name in _MATH_CASES:
        return [_MATH_CASES[name]]
    rule = REGISTRY[name]
    kind, detail = rule.sample if rule.sample else (None, None)
    short = name.rsplit(".", 1)[-1]
    fn = "tf." + name[11:] if name.startswith("tensorflow.") else (
        "np." + name[6:] if name.startswith("numpy.") else name)
    method = name.startswith("method.")
    if kind == "cwise":
        if detail == 1:
            if short.startswith(_BOOL_IN):
                return [f"{fn}(x[i] > 0)"]
            return [f"{fn}(x[i])", f"{fn}(m[i])"]
        if detail == 2:
            if short.startswith(_BOOL_IN):
                return [f"{fn}(x[i] > 0, y2 > 0)", f"{fn}(s[i] > 0, x[i] < 0)"]
            if short.startswith(_INT_IN):
                return [f"{fn}(idx[i], 6)", f"{fn}(idx[i] + 1, idx[i])"]
            return [f"{fn}(x[i], y2)", f"{fn}(s[i], x[i])"]
        if short == "where":
            return [f"{fn}(s[i] > 0, x[i], y2)", f"{fn}(x[i] > 0, s[i], 0.5)"]
        return [f"{fn}(x[i], -0.5, 0.5)", f"{fn}(m[i], -0.2, s[i])"]
    if kind == "cast":
        return [f"{fn}(x[i] * 3.0, tf.int32)"]
    if kind == "method":
        arg = "np.float32" if short == "astype" else ""
        return [f"x[i].{short}({arg})", f"m[i].{short}({arg})"]
    if kind == "reduce":
        call = (lambda operand, args="": f"{operand}.{short}({args})") if method else (
            lambda operand, args="": f"{fn}({operand}{', ' + args if args else ''})")
        operand = "m[i] > 0" if short.startswith(_BOOL_IN) else "m[i]"
        if method and short in ("any", "all"):
            operand = "(m[i] > 0)"
        if short in ("norm",):
            return [call("x[i]"), call("m[i]"), call("m[i]", "axis=1")]
        if short == "l2_normalize":
            return [call("x[i]"), call("m[i]", "axis=1")]
        if short.startswith(_FLAT) and not name.startswith("tensorflow"):
            return [call("x[i]"), call("m[i]", "axis=0"), call("m[i]", "axis=-1")]
        if detail == 0:  # TensorFlow's argmax / cumsum default to axis 0
            return [call(operand), call(operand, "axis=1"), call(operand, "axis=-1")]
        vector = "x[i] > 0" if short.startswith(_BOOL_IN) else "x[i]"
        return [call(operand), call(operand, "axis=1"), call(operand, "axis=-1, keepdims=True"),
                call(vector, "axis=0")]
    if kind == "softmax":
        return [f"{fn}(x[i])", f"{fn}(m[i], axis=0)"]
    if kind == "matvec":
        return [f"{fn}(w, x[i])", f"{fn}(wt, x[i], transpose_a=True)", f"{fn}(sq[i], m[i][0, :3])"]
    if kind == "matmul":
        if name.startswith("numpy"):
            return [f"{fn}(m[i], w2)", f"{fn}(x[i], wt)", f"{fn}(w, x[i])", f"{fn}(sq[i], spd[i])"]
        return [f"{fn}(m[i], w2)", f"{fn}(w, m[i], transpose_b=True)", f"{fn}(sq[i], spd[i])"]
    if kind == "dot" and method:
        return ["m[i].dot(w2)", "x[i].dot(v)", "x[i].dot(wt)"]
    if kind == "dot":
        return [f"{fn}(m[i], w2)", f"{fn}(x[i], v)", f"{fn}(w, x[i])", f"{fn}(x[i], wt)"]
    if kind == "outer":
        return [f"{fn}(x[i], v)"]
    if kind == "einsum":
        return [f"{fn}('kd,d->k', w, x[i])", f"{fn}('ab,bk->ak', m[i], w2)", f"{fn}('ab->ba', m[i])"]
    if kind == "tensordot":
        return [f"{fn}(m[i], w2, axes=1)", f"{fn}(x[i], wt, axes=1)"]
    if kind == "core":
        if detail == 1:
            return [f"{fn}(x[i])"]
        return [f"{fn}(spd[i])"]
    if kind == "stack":
        return [f"{fn}([x[i], v], axis=0)", f"{fn}([x[i], v], axis=1)", f"{fn}([s[i], 1.0, s[i] * 2])"]
    if kind == "concat":
        return [f"{fn}([x[i], v], axis=0)", f"{fn}([m[i], m[i]], axis=1)"]
    if kind == "axis1":
        if short == "squeeze":
            return [f"{fn}(e[i], axis=0)"]
        return [f"{fn}(x[i], 0)", f"{fn}(x[i], axis=-1)"]
    if kind == "reshape":
        if method:
            return ["m[i].reshape(-1)", "m[i].reshape((2, -1))"]
        return [f"{fn}(m[i], [-1])", f"{fn}(m[i], (2, -1))"]
    if kind == "transpose":
        return [f"{fn}(m[i])", f"{fn}(e[i], [1, 0])" if name.startswith("tensorflow") else f"{fn}(e[i], (1, 0))"]
    if kind == "gather":
        if name.startswith("numpy"):
            return [f"{fn}(v, idx[i], axis=0)", f"{fn}(m[i], [0, 2], axis=1)"]
        return [f"{fn}(v, idx[i])", f"{fn}(m[i], [0, 2], axis=1)", f"{fn}(w, idx[i] % 2)"]
    if kind == "one_hot":
        return [f"{fn}(idx[i], 4)"]
    if kind == "flip":
        if short == "roll":
            return [f"{fn}(x[i], 1, axis=0)", f"{fn}(m[i], 1, axis=1)"]
        if name.startswith("tensorflow"):
            return [f"{fn}(m[i], axis=[1])"]
        return [f"{fn}(m[i], axis=1)", f"{fn}(x[i], axis=0)"]
    return []


CASES = [(name, expr) for name in sorted(REGISTRY) for expr in _exprs(name)]
TESTED = {name for name, _ in CASES}


def test_every_rule_has_a_case():
    """No batching rule goes untested: each one generates at least one loop below."""
    assert sorted(set(REGISTRY) - TESTED) == []


def test_registry_covers_at_least_150_apis():
    """The issue's bar: 150 TensorFlow and NumPy functions with a batching rule, each tested here."""
    apis = {n for n in REGISTRY if not n.startswith("method.")}
    assert len(apis) >= 150
    assert len(apis & TESTED) >= 150, sorted(apis - TESTED)


def _inputs(np_mod, tf_mod, numpy_side):
    rng = np_mod.random.default_rng(7)
    n, d, k, a, b, c = 3, 4, 2, 3, 4, 3
    sq = rng.standard_normal((n, c, c))
    arrays = dict(
        x=rng.standard_normal((n, d)), y2=rng.standard_normal((k, d)), s=rng.standard_normal(n),
        m=rng.standard_normal((n, a, b)), sq=sq + 3 * np_mod.eye(c),
        spd=np_mod.einsum("nij,nkj->nik", sq, sq) + np_mod.eye(c),
        idx=rng.integers(0, 4, n), v=rng.standard_normal(d), w=rng.standard_normal((k, d)),
        wt=rng.standard_normal((d, k)), w2=rng.standard_normal((b, k)), e=rng.standard_normal((n, 1, d)))
    if numpy_side:
        return arrays
    return {key: tf_mod.constant(val.astype("int32" if key == "idx" else "float32")) for key, val in arrays.items()}


@pytest.mark.parametrize("name,expr", CASES, ids=[f"{n}:{e}" for n, e in CASES])
def test_rule_matches_loop(name, expr, request):
    """The direct rewrite of ``out.append(EXPR)`` equals the loop (rtol 1e-4; NaN equals NaN).
    NumPy rules run without TensorFlow (their module does not import it)."""
    import numpy as np

    from pforge.runtime.loader import load_module

    numpy_side = not name.startswith("tensorflow")
    tf = None if numpy_side else request.getfixturevalue("tf")
    stack = "np.stack" if numpy_side else "tf.stack"
    header = "import math\n\nimport numpy as np\n" + ("" if numpy_side else "import tensorflow as tf\n")
    source = header + _SIGNATURE.replace("EXPR", expr).replace("STACK", stack)
    try:
        before = load_module("rule_case.py", source=source)
        want = before.f(**_inputs(np, tf, numpy_side))
    except Exception as exc:  # the expression is not valid for this API: the table is wrong
        pytest.fail(f"the loop itself fails: {type(exc).__name__}: {exc}")
    result = transpile_source(source, "rule_case.py", backend="direct")
    (plan,) = result.plans
    assert plan.backend == "direct", [r.message for r in plan.remarks]
    after = load_module("rule_case.py", source=result.code)
    got = after.f(**_inputs(np, tf, numpy_side))
    want, got = np.asarray(want), np.asarray(got)
    assert want.shape == got.shape, result.code
    assert want.dtype == got.dtype or numpy_side is False, (want.dtype, got.dtype)
    np.testing.assert_allclose(got.astype(float) if got.dtype != bool else got,
                               want.astype(float) if want.dtype != bool else want,
                               rtol=1e-4, atol=1e-5, equal_nan=True, err_msg=result.code)


REDUCE = '''\
import numpy as np


def f(m):
    """Args:
      m: [n, a, b].
    """
    out = []
    for i in range(m.shape[0]):
        out.append(EXPR)
    return np.stack(out)
'''


@pytest.mark.parametrize("expr", ["np.sum(a=m[i], axis=0)", "np.mean(a=m[i])", "np.max(a=m[i], axis=-1)"])
def test_a_reduction_s_operand_given_by_keyword(expr):
    import numpy as np

    from pforge.runtime.loader import load_module

    source = REDUCE.replace("EXPR", expr)
    result = transpile_source(source, "m.py", backend="direct")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    m = np.random.default_rng(2).standard_normal((3, 4, 5))
    np.testing.assert_allclose(load_module("m.py", source=result.code).f(m), load_module("m.py", source=source).f(m))


@pytest.mark.parametrize("expr,why", [
    ("np.sum(m[i], axis=2)", "`numpy.sum`: axis 2 is out of range for rank 2"),
    ("np.sum(m[i], axis=-3)", "`numpy.sum`: axis -3 is out of range for rank 2"),
    ("np.sum(m[i], axis=1.0)", "`numpy.sum`: `axis` must be an integer or a list of integers"),
])
def test_a_reduction_over_an_axis_the_value_lacks_says_so(expr, why):
    result = transpile_source(REDUCE.replace("EXPR", expr), "m.py", backend="direct")
    assert not result.plans[0].rewritten or result.plans[0].backend != "direct"
    assert why in (result.plans[0].backend_note or "") + " ".join(r.message for r in result.plans[0].remarks)
