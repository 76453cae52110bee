"""Batching rules for reductions and scans: the axis moves past the loop axes.

pfor's ``_convert_reduction``: a reduction over per-iteration axis ``a`` of a stacked value is
the same reduction over axis ``a + depth`` (negative axes count from the end and stay as
they are); "all axes" becomes the explicit list of per-iteration axes, so the loop axes are
never reduced.
"""

from __future__ import annotations

import gast

from pforge.transpile.backends.direct.core import Unsupported, Val, axis_const, batch_axis, register

_ALL = object()


def _axes(value, rank, what):
    axes = list(value) if isinstance(value, (list, tuple)) else [value]
    for a in axes:
        if type(a) is not int:
            raise Unsupported(f"{what}: `axis` must be an integer or a list of integers")
        if rank is not None and not -rank <= a < rank:
            raise Unsupported(f"{what}: axis {a} is out of range for rank {rank}")
    return axes


def per_iteration_axes(depth, rank):
    """The batched axes of a whole per-iteration value: ``-1`` for a vector, else ``depth..``."""
    if rank == 1:
        return -1
    return list(range(depth, depth + rank))


def convert_reduction(b, *, axis_key="axis", default=_ALL, keep_key="keepdims",
                      flat_ok_rank1=False, extra=()):
    """A reduction of operand 0 over ``axis`` (by keyword or position 1).

    Args:
        default: the per-iteration axis when none is given (``_ALL``: every axis).
        flat_ok_rank1: NumPy's flattening default (``argmax``, ``cumsum``) is batched only for
            a per-iteration vector.
        extra: further keywords passed through (``dtype``, ``ord``...).
    """
    x = b.pos[0] if b.pos else b.kw.get("input_tensor", b.kw.get("input", b.kw.get("a", b.kw.get("x"))))
    if x is None:
        raise b.unsupported("no operand")
    allowed = {axis_key, keep_key, "name", "dtype", "input_tensor", "input", "a", "x", "ddof",
               "output_type", "exclusive", "reverse", "epsilon", *extra}
    if any(k not in allowed for k in b.kw):
        raise b.unsupported(f"`{next(k for k in b.kw if k not in allowed)}` is not batched")
    axis_val = b.pos[1] if len(b.pos) > 1 else b.kw.get(axis_key)
    if len(b.pos) > 2:
        raise b.unsupported("positional arguments after `axis` are not batched; pass keywords")
    keep = b.const(None, keep_key, False) or False
    depth = x.depth
    if axis_val is None or (isinstance(axis_val.node, gast.Constant) and axis_val.node.value is None):
        if default is _ALL:
            if x.rank is None:
                raise b.unsupported("reducing every axis needs the per-iteration rank")
            if flat_ok_rank1 and x.rank != 1:
                raise b.unsupported("NumPy flattens without `axis`; batched only for vectors")
            axes = list(range(x.rank))
            new_axis = per_iteration_axes(depth, x.rank) if x.stacked else None
        else:
            axes = [default]
            new_axis = batch_axis(default, depth)
    else:
        axes = _axes(b.const(1 if len(b.pos) > 1 else None, axis_key), x.rank, f"`{b.name}`")
        shifted = [batch_axis(a, depth) for a in axes]
        new_axis = shifted[0] if not isinstance(b.const(1 if len(b.pos) > 1 else None, axis_key),
                                                (list, tuple)) else shifted
    rank = None if x.rank is None else (x.rank if keep or b.name.split(".")[-1].startswith("cum")
                                        else x.rank - len(axes))
    if not x.stacked:
        return Val(b.call, (), rank)
    kws = {k: v.node for k, v in b.kw.items() if k not in (axis_key, "input_tensor", "input", "a", "x")}
    if x.rank == 0 and new_axis == []:
        if b.name.split(".")[-1] not in _SCALAR_IDENTITY:
            raise b.unsupported(f"`{b.name}` of a per-iteration scalar")
        return Val(x.node, x.full, 0)  # the sum, mean, max, min or product of one number
    fused = None
    if (axis_val is None and default is _ALL and not keep and set(kws) <= {"name"}
            and b.name.rsplit(".", 1)[-1] in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod",
                                               "reduce_any", "reduce_all", "sum", "max", "min", "prod",
                                               "any", "all")):
        fused = (b.name.rsplit(".", 1)[-1], b.emit([x.node], kws))
    kws = {axis_key: axis_const(b.lib, new_axis), **kws}
    # NumPy's reductions to one number return a NumPy scalar (count_nonzero a Python int)
    scalar = rank == 0 and not keep and b.lib.kind == "np" and not b.name.endswith("count_nonzero")
    return Val(b.emit([x.node], kws), x.full, rank, fused=fused, scalar=scalar)


def _family(names, **options):
    @register(*names, family="reductions", sample=("reduce", options.get("default", _ALL)))
    def _convert(b):
        return convert_reduction(b, **options)


_TF_REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any",
              "reduce_all", "reduce_logsumexp", "reduce_std", "reduce_variance",
              "reduce_euclidean_norm"]
_family([f"tensorflow.{n}" for n in _TF_REDUCE[:7] + ["reduce_logsumexp"]]
        + [f"tensorflow.math.{n}" for n in _TF_REDUCE])
_family(["tensorflow.math.count_nonzero"])
_family(["tensorflow.argmax", "tensorflow.argmin", "tensorflow.math.argmax", "tensorflow.math.argmin"],
        default=0)
_family(["tensorflow.cumsum", "tensorflow.math.cumsum", "tensorflow.math.cumprod",
         "tensorflow.math.cumulative_logsumexp"], default=0)
_NP_REDUCE = ["sum", "mean", "max", "min", "amax", "amin", "prod", "any", "all", "std", "var",
              "nansum", "nanmean", "nanmax", "nanmin", "nanstd", "nanvar", "nanprod", "median",
              "nanmedian", "ptp", "count_nonzero"]
_family([f"numpy.{n}" for n in _NP_REDUCE])
_family([f"method.{n}" for n in ("sum", "mean", "max", "min", "prod", "any", "all", "std", "var")])
_family(["numpy.argmax", "numpy.argmin", "numpy.cumsum", "numpy.cumprod", "numpy.nancumsum",
         "method.argmax", "method.argmin", "method.cumsum", "method.cumprod"], flat_ok_rank1=True)


@register("tensorflow.norm", "tensorflow.linalg.norm", "numpy.linalg.norm",
          family="reductions", sample=("reduce", _ALL))
def _convert_norm(b):
    """``norm(x)``: the default vector norm of a whole per-iteration vector or matrix.

    TensorFlow's ``euclidean`` norm of a matrix without ``axis`` is the Frobenius norm, as is
    NumPy's ``ord=None``; both are batched over the last two axes.
    """
    x = b.pos[0] if b.pos else None
    if x is None:
        raise b.unsupported("no operand")
    ord_key = "ord"
    order = b.const(1 if len(b.pos) > 1 else None, ord_key, None)
    axis_given = (len(b.pos) > 2) or "axis" in b.kw
    if not axis_given and x.stacked:
        if x.rank is None or x.rank > 2:
            raise b.unsupported("the norm of a whole value needs a per-iteration rank of 1 or 2")
        if x.rank == 2 and order not in (None, "euclidean", "fro"):
            raise b.unsupported(f"matrix norm `ord={order!r}` is not batched")
        if x.rank == 0:
            raise b.unsupported("the norm of a scalar")
        args = [x.node] + [v.node for v in b.pos[1:2]]
        kws = {k: v.node for k, v in b.kw.items()}
        kws["axis"] = axis_const(b.lib, -1 if x.rank == 1 else [-2, -1])
        return Val(b.emit(args, kws), x.full, 0)
    if len(b.pos) > 2:
        b.kw = {**b.kw, "axis": b.pos[2]}
        b.pos = b.pos[:2]
    if len(b.pos) == 2:
        b.kw = {**b.kw, "ord": b.pos[1]}
        b.pos = b.pos[:1]
    return convert_reduction(b, extra=("ord",))


@register("tensorflow.math.l2_normalize", "tensorflow.nn.l2_normalize", family="reductions",
          sample=("reduce", _ALL))
def _convert_l2_normalize(b):
    """``l2_normalize(x, axis=None)``: without ``axis`` it normalises over the whole value."""
    x = b.pos[0] if b.pos else None
    if x is None or len(b.pos) > 2:
        raise b.unsupported("expected `l2_normalize(x, axis)`")
    axis = b.pos[1] if len(b.pos) > 1 else b.kw.get("axis")
    kws = {k: v.node for k, v in b.kw.items() if k != "axis"}
    if not x.stacked:
        return Val(b.call, (), x.rank)
    if axis is None:
        if x.rank is None:
            raise b.unsupported("normalising the whole value needs the per-iteration rank")
        new = per_iteration_axes(x.depth, x.rank)
    else:
        value = b.const(1 if len(b.pos) > 1 else None, "axis")
        axes = _axes(value, x.rank, f"`{b.name}`")
        new = [batch_axis(a, x.depth) for a in axes]
        new = new if isinstance(value, (list, tuple)) else new[0]
    return Val(b.emit([x.node], {"axis": axis_const(b.lib, new), **kws}), x.full, x.rank)


#: Reductions that return a lone number unchanged (std, var, ptp, count_nonzero, any do not).
_SCALAR_IDENTITY = {"sum", "mean", "max", "min", "prod", "amax", "amin", "nansum", "nanmean",
                    "nanmax", "nanmin", "reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                    "reduce_prod", "average", "median"}
