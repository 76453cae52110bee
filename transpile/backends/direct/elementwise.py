"""Batching rules for elementwise math, comparisons, ``where``/``clip``/``cast``.

pfor's ``_convert_cwise``: an elementwise op on stacked operands is the same op on the
batched operands, once each operand broadcasts as it did in one iteration (see
:func:`~pforge.transpile.backends.direct.core.align`).
"""

from __future__ import annotations

from pforge.transpile.backends.direct.core import Val, align, register

_TF_UNARY = ["abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "square", "sin", "cos", "tan",
             "tanh", "sigmoid", "sign", "floor", "ceil", "round", "negative", "reciprocal", "erf",
             "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "softplus",
             "logical_not", "is_nan", "is_inf", "is_finite", "lgamma", "digamma", "erfc",
             "log_sigmoid", "softsign", "conj", "real", "imag"]
_TF_TOP_UNARY = ["abs", "exp", "sqrt", "square", "sin", "cos", "tan", "tanh", "sigmoid", "sign",
                 "floor", "round", "negative", "logical_not", "ones_like", "zeros_like",
                 "identity", "stop_gradient"]
_TF_BINARY = ["add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod",
              "pow", "maximum", "minimum", "squared_difference", "equal", "not_equal", "less",
              "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
              "atan2", "divide_no_nan", "xdivy", "xlogy", "multiply_no_nan"]
_TF_TOP_BINARY = ["add", "subtract", "multiply", "divide", "truediv", "pow", "maximum", "minimum",
                  "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                  "logical_and", "logical_or"]
_NP_UNARY = ["abs", "absolute", "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt",
             "cbrt", "square", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
             "tanh", "arcsinh", "arccosh", "arctanh", "sign", "floor", "ceil", "rint", "trunc",
             "negative", "positive", "reciprocal", "isnan", "isinf", "isfinite", "logical_not",
             "deg2rad", "rad2deg", "fabs", "signbit", "conj", "real", "imag", "ones_like",
             "zeros_like", "nan_to_num", "around", "round"]
_NP_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "mod",
              "remainder", "fmod", "power", "float_power", "maximum", "minimum", "fmax", "fmin",
              "hypot", "arctan2", "equal", "not_equal", "less", "less_equal", "greater",
              "greater_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and",
              "bitwise_or", "bitwise_xor", "copysign", "heaviside", "logaddexp"]

#: keywords an elementwise rule passes through unchanged (they do not involve shapes)
_PASS = {"name", "dtype", "decimals", "nan", "posinf", "neginf", "casting", "approximate", "alpha",
         "features"}


def convert_cwise(b, arity: int) -> Val:
    """The call itself on aligned operands; the first ``arity`` positionals are the operands."""
    if any(k not in _PASS for k in b.kw) or len(b.pos) > arity:
        bad = next((k for k in b.kw if k not in _PASS), None) or f"argument {arity + 1}"
        raise b.unsupported(f"`{bad}` is not batched by the elementwise rule")
    if "features" in b.kw:  # tf.nn.relu(features=x)
        operands = [b.kw["features"]]
    else:
        operands = b.pos[:arity]
    if not operands:
        raise b.unsupported("no operand")
    aligned, full, rank = align(b.lib, operands, f"`{b.name}`")
    kws = {k: v.node for k, v in b.kw.items() if k != "features"}
    args = [v.node for v in aligned]
    if "features" in b.kw:
        kws["features"], args = args[0], []
    return Val(b.emit(args, kws), full, rank)


def _family(prefixes, names, arity):
    keys = [f"{p}.{n}" for p in prefixes for n in names]

    @register(*keys, family="elementwise", sample=("cwise", arity))
    def _convert(b):
        return convert_cwise(b, arity)


_family(["tensorflow.math"], _TF_UNARY, 1)
_family(["tensorflow"], _TF_TOP_UNARY, 1)
_family(["tensorflow.math"], _TF_BINARY, 2)
_family(["tensorflow"], _TF_TOP_BINARY, 2)
_family(["numpy"], _NP_UNARY, 1)
_family(["numpy"], _NP_BINARY, 2)


#: ``math`` function -> the NumPy ufunc that computes it elementwise (``math.sqrt(s[i])`` is
#: ``np.sqrt(s)``); one operand each, or two for the second table
_MATH_UNARY = {"sqrt": "sqrt", "exp": "exp", "log": "log", "log10": "log10", "log2": "log2",
               "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos", "tan": "tan",
               "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh", "cosh": "cosh",
               "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
               "fabs": "fabs", "degrees": "degrees", "radians": "radians", "isnan": "isnan",
               "isinf": "isinf", "isfinite": "isfinite"}
_MATH_BINARY = {"atan2": "arctan2", "hypot": "hypot", "copysign": "copysign", "pow": "power",
                "fmod": "fmod"}


@register(*[f"math.{n}" for n in (*_MATH_UNARY, *_MATH_BINARY)], family="elementwise", sample=None)
def _convert_math(b):
    """``math.f(v)`` on per-iteration scalars of a NumPy loop: the NumPy ufunc on the batch.

    ``math`` takes Python numbers only, so each operand is a scalar in one iteration; where
    ``math`` raises (``math.sqrt(-1.0)``) the ufunc gives NaN, as for any rewrite that is
    more defined than its loop (README, "Where the loop works").
    """
    short = b.name.rsplit(".", 1)[-1]
    arity = 1 if short in _MATH_UNARY else 2
    if b.lib.kind != "np":
        raise b.unsupported("`math` functions of tensors")
    if b.kw or len(b.pos) != arity:
        raise b.unsupported(f"expected `math.{short}` with {arity} positional operand(s)")
    if any(v.rank not in (0, None) for v in b.pos):
        raise b.unsupported("an operand that is not a scalar per iteration")
    # The loop runs only on numbers: an operand of unknown rank is a scalar in each iteration.
    operands = [Val(v.node, v.full, 0, v.python) for v in b.pos]
    aligned, full, rank = align(b.lib, operands, f"`math.{short}`")
    ufunc = (_MATH_UNARY if arity == 1 else _MATH_BINARY)[short]
    # `math` computes in double precision whatever it is given (a uint8 or float32 element):
    # the ufunc would compute in float16/float32 without the cast.
    nodes = [b.lib.call("asarray", v.node, dtype=b.lib.fn("float64")) if v.stacked else v.node for v in aligned]
    # what `math` returns is a Python number, weak where it meets an array (NEP 50)
    pytype = "bool" if short in ("isnan", "isinf", "isfinite") else "float"
    return Val(b.lib.call(ufunc, *nodes), full, rank, True, pytype=pytype)


@register("tensorflow.where", "tensorflow.experimental.numpy.where", "numpy.where",
          "tensorflow.clip_by_value", "numpy.clip", family="elementwise", sample=("cwise", 3))
def _convert_ternary(b):
    """``where(c, x, y)`` and ``clip(x, lo, hi)``: three operands broadcast together."""
    if len(b.pos) != 3:
        raise b.unsupported("only the three-operand form is batched")
    return convert_cwise(b, 3)


@register("tensorflow.cast", "tensorflow.dtypes.cast", "tensorflow.saturate_cast", family="elementwise", sample=("cast", 1))
def _convert_cast(b):
    """``cast(x, dtype)``: only ``x`` is an operand."""
    x = b.get(0, "x")
    if x is None:
        raise b.unsupported("no operand")
    args = [x.node] + [v.node for v in b.pos[1:]]
    return Val(b.emit(args, {k: v.node for k, v in b.kw.items() if k != "x"}), x.full, x.rank)


@register("method.astype", "method.copy", "method.conj", "method.round", family="elementwise",
          sample=("method", 1))
def _convert_elementwise_method(b):
    """``x.astype(t)``, ``x.copy()``: the method on the batched receiver."""
    receiver = b.pos[0]
    if any(v.stacked for v in b.pos[1:]) or any(v.stacked for v in b.kw.values()):
        raise b.unsupported("a stacked argument")
    return Val(b.emit([v.node for v in b.pos], {k: v.node for k, v in b.kw.items()}),
               receiver.full, receiver.rank)
