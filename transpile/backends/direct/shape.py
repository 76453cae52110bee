"""Batching rules for shape ops: ``stack``/``concat``, ``expand_dims``/``squeeze``, ``reshape``,
``transpose``, ``gather``, ``one_hot``, ``shape``, ``flip``.

A per-iteration axis ``a`` is batched axis ``a + depth`` (pfor's ``_convert_pack``,
``_convert_reshape``: the loop axes are prepended to the new shape, ``-1`` stays valid because
the loop axes are given explicitly).
"""

from __future__ import annotations

import gast

from pforge.transpile import templates
from pforge.transpile.backends.direct.core import (Val, align, axis_const, batch_axis, const, lift,
                                                   register, subscript)


def _elements(b, what):
    node = b.call.args[0] if b.call.args else None
    if not isinstance(node, (gast.List, gast.Tuple)):
        raise b.unsupported(f"{what} of a value that is not a literal list")
    return node


def _stack_like(b, evaluate, *, concat: bool):
    node = _elements(b, "stacking")
    vals = [evaluate(e) for e in node.elts]
    axis = b.const(1 if len(b.call.args) > 1 else None, "axis", 0)
    if type(axis) is not int:
        raise b.unsupported("`axis` must be an integer literal")
    if any(k not in ("axis", "name", "dtype") for k in b.kw):
        raise b.unsupported("only `axis` is batched")
    if not any(v.stacked for v in vals):
        ranks = {v.rank for v in vals}
        rank = None if None in ranks or len(ranks) != 1 else ranks.pop() + (0 if concat else 1)
        return Val(b.call, (), rank)
    depth = max(v.depth for v in vals)
    ranks = {v.rank for v in vals}
    if None in ranks or len(ranks) != 1:
        raise b.unsupported("elements of unknown or different per-iteration ranks")
    rank = ranks.pop()
    lifted = [lift(b.lib, v, depth) for v in vals]
    model = next((v for v in lifted if v.stacked and all(v.full)), None)
    if concat and rank == 0:
        raise b.unsupported("concatenating scalars")
    if concat and any(v.stacked and not all(v.full) for v in lifted):
        # Elements may differ in length along the joined axis: no broadcast makes them fit.
        raise b.unsupported("concatenating a per-iteration value with one that does not vary "
                            "with every loop")
    new_axis = batch_axis(axis, depth) if concat or axis >= 0 else axis
    kws = {"axis": const(new_axis), **{k: v.node for k, v in b.kw.items() if k != "axis"}}
    if b.lib.kind == "np" and (model is None or any(v.stacked and not all(v.full) for v in lifted)):
        # NumPy broadcasts the elements to one shape first (loop axes of size 1 included).
        spread = b.lib.call("broadcast_arrays", *[v.node for v in lifted])
        full = tuple(any(v.full[k] for v in lifted if v.stacked) for k in range(depth))
        return Val(b.emit([spread], kws), full, rank + (0 if concat else 1))
    if model is None or any(v.stacked and not all(v.full) for v in lifted):
        raise b.unsupported("elements that do not vary along every loop axis")
    elts = []
    for v in lifted:
        if v.stacked:
            elts.append(v.node)
        elif concat:  # repeated for every iteration, keeping its own length along the joined axis
            loops = subscript(b.lib.call("shape", model.node), [gast.Slice(lower=None, upper=const(depth), step=None)])
            own = b.lib.call("shape", v.node)
            shape = (b.lib.call("concat", gast.List(elts=[loops, own], ctx=gast.Load()), const(0))
                     if b.lib.kind == "tf" else gast.BinOp(left=loops, op=gast.Add(), right=own))
            elts.append(b.lib.call("broadcast_to", v.node, shape))
        else:  # an invariant element is repeated for every iteration
            elts.append(b.lib.call("broadcast_to", v.node, b.lib.call("shape", model.node)))
    listed = gast.List(elts=elts, ctx=gast.Load())
    return Val(b.emit([listed], kws), tuple(True for _ in range(depth)), rank + (0 if concat else 1))


@register("tensorflow.stack", "numpy.stack", family="shape", sample=("stack", None))
def _convert_stack(b):
    """``stack([a, b], axis)``: invariant elements are broadcast to the stacked ones' shape."""
    return _stack_like(b, b.evaluate, concat=False)


@register("numpy.array", "numpy.asarray", family="shape", sample=None)
def _convert_array(b):
    """``np.array(v)`` of a per-iteration value: the call on the batched value (a copy of the
    batch, as the loop's call copies each value); ``np.array([a, b])`` of per-iteration values
    of one rank and one kind: their stack after the loop axes. A Python number beside a NumPy
    value (or numbers of two Python types) would make the array's dtype depend on which one
    each iteration holds, and is left."""
    if any(k != "dtype" for k in b.kw) or len(b.call.args) != 1:
        raise b.unsupported("only `dtype=` is batched")
    first = b.call.args[0]
    if not isinstance(first, (gast.List, gast.Tuple)):
        x = b.evaluate(first)
        if not x.stacked:
            return Val(b.call, (), x.rank)  # asked for its rank only
        return Val(b.emit([x.node], {k: v.node for k, v in b.kw.items()}), x.full, x.rank)
    if b.kw or any(isinstance(e, (gast.List, gast.Tuple, gast.Starred)) for e in first.elts) or not first.elts:
        raise b.unsupported("a nested, empty or typed list of per-iteration values")
    vals = [b.evaluate(e) for e in first.elts]
    kinds = {(v.python, v.pytype if v.python else None) for v in vals}
    if len(kinds) != 1 or (True, None) in kinds or any(v.mixed for v in vals):
        raise b.unsupported("items of two kinds (a Python number beside a NumPy value), whose array's dtype "
                            "depends on which occur")
    ranks = {v.rank for v in vals}
    if None in ranks or len(ranks) != 1:
        raise b.unsupported("items of unknown or different per-iteration ranks")
    depth = max(v.depth for v in vals)
    lifted = [lift(b.lib, v, depth) for v in vals]
    spread = b.lib.call("broadcast_arrays", *[v.node for v in lifted])
    full = tuple(any(v.full[k] for v in lifted if v.stacked) for k in range(depth))
    return Val(b.lib.call("stack", spread, axis=const(depth)), full, ranks.pop() + 1)


@register("tensorflow.concat", "numpy.concatenate", family="shape", sample=("concat", None))
def _convert_concat(b):
    return _stack_like(b, b.evaluate, concat=True)


@register("tensorflow.expand_dims", "numpy.expand_dims", family="shape", sample=("axis1", None))
def _convert_expand_dims(b):
    """``expand_dims(x, axis)``: a negative axis counts in the output and needs no shift."""
    x = b.pos[0]
    axis = b.const(1 if len(b.pos) > 1 else None, "axis")
    if type(axis) is not int:
        raise b.unsupported("`axis` must be an integer literal")
    kws = {"axis": const(batch_axis(axis, x.depth)), **{k: v.node for k, v in b.kw.items() if k != "axis"}}
    rank = None if x.rank is None else x.rank + 1
    return Val(b.emit([x.node], kws), x.full, rank)


@register("tensorflow.squeeze", "numpy.squeeze", family="shape", sample=("axis1", None))
def _convert_squeeze(b):
    """``squeeze(x, axis)``; without ``axis`` it would also squeeze loop axes of size 1."""
    x = b.pos[0]
    axis = b.const(1 if len(b.pos) > 1 else None, "axis")
    if axis is None:
        raise b.unsupported("`squeeze` without `axis` could drop a loop axis of size 1")
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if any(type(a) is not int for a in axes):
        raise b.unsupported("`axis` must be integer literals")
    shifted = [batch_axis(a, x.depth) for a in axes]
    new = shifted if isinstance(axis, (list, tuple)) else shifted[0]
    kws = {"axis": axis_const(b.lib, new), **{k: v.node for k, v in b.kw.items() if k != "axis"}}
    rank = None if x.rank is None else x.rank - len(axes)
    return Val(b.emit([x.node], kws), x.full, rank)


@register("tensorflow.reshape", "numpy.reshape", "method.reshape", family="shape",
          sample=("reshape", None))
def _convert_reshape(b):
    """``reshape(x, shape)``: the loop axes are kept in front of the per-iteration shape."""
    x = b.pos[0]
    shape_node = b.call.args[0 if b.method else 1] if len(b.call.args) > (0 if b.method else 1) else None
    if b.method and (len(b.call.args) > 1 or (b.call.args and not isinstance(shape_node, (gast.List, gast.Tuple)))):
        shape_node = gast.Tuple(elts=list(b.call.args), ctx=gast.Load())  # x.reshape(2, -1)
    if not isinstance(shape_node, (gast.List, gast.Tuple)) or b.kw:
        raise b.unsupported("the new shape must be a literal list or tuple")
    if any(b.evaluate(e).stacked for e in shape_node.elts):
        raise b.unsupported("a shape that differs per iteration")
    if not all(x.full):
        raise b.unsupported("a value that does not vary along every loop axis")
    lib = b.lib
    if lib.kind == "tf":
        lead = [templates.expr(f"{lib.alias}.shape(X)[{k}]", X=x.node) for k in range(x.depth)]
        shape = gast.List(elts=lead + list(shape_node.elts), ctx=gast.Load())
        return Val(lib.call("reshape", x.node, shape), x.full, len(shape_node.elts))
    lead = templates.expr(f"X.shape[:{x.depth}]", X=x.node)
    shape = gast.BinOp(left=lead, op=gast.Add(), right=gast.Tuple(elts=list(shape_node.elts), ctx=gast.Load()))
    return Val(lib.call("reshape", x.node, shape), x.full, len(shape_node.elts))


@register("numpy.ravel", "method.ravel", "method.flatten", family="shape", sample=None)
def _convert_ravel(b):
    """``ravel(x)``, ``x.flatten()``: each iteration's value flattened in C order, the loop axes
    kept in front (``reshape(x, x.shape[:depth] + (-1,))``)."""
    x = b.pos[0]
    if len(b.pos) > 1 or b.kw:
        raise b.unsupported("an `order` other than the default")
    if not all(x.full):
        raise b.unsupported("a value that does not vary along every loop axis")
    node = b.hoist(x.node, "unraveled")  # spelled twice below
    lead = templates.expr(f"X.shape[:{x.depth}]", X=node)
    shape = gast.BinOp(left=lead, op=gast.Add(), right=gast.Tuple(elts=[const(-1)], ctx=gast.Load()))
    return Val(b.lib.call("reshape", node, shape), x.full, 1)


@register("tensorflow.transpose", "numpy.transpose", family="shape", sample=("transpose", None))
def _convert_transpose(b):
    """``transpose(x, perm)``: the loop axes stay first; the default reverses per-iteration axes."""
    x = b.pos[0]
    key = "perm" if b.lib.kind == "tf" or b.name.startswith("tensorflow") else "axes"
    perm = b.const(1 if len(b.pos) > 1 else None, key)
    if x.rank is None:
        raise b.unsupported("the per-iteration rank is unknown")
    if perm is None:
        perm = list(range(x.rank))[::-1]
    perm = [p if p >= 0 else p + x.rank for p in perm]
    new = list(range(x.depth)) + [p + x.depth for p in perm]
    kws = {key: const(new)}
    return Val(b.emit([x.node], kws), x.full, x.rank)


@register("tensorflow.gather", "numpy.take", family="shape", sample=("gather", None))
def _convert_gather(b):
    """``gather(params, indices, axis)``: stacked indices gather rows; stacked params shift the axis."""
    params, indices = b.get(0, "params" if b.lib.kind == "tf" else "a"), b.get(1, "indices")
    if params is None or indices is None:
        raise b.unsupported("expected `gather(params, indices)`")
    axis = b.const(2 if len(b.pos) > 2 else None, "axis", 0 if b.name.startswith("tensorflow") else None)
    if axis is None or type(axis) is not int or "batch_dims" in b.kw:
        raise b.unsupported("needs an integer `axis` and no `batch_dims`")
    if params.rank is None or indices.rank is None:
        raise b.unsupported("operand ranks are unknown")
    axis = axis if axis >= 0 else axis + params.rank
    rank = params.rank - 1 + indices.rank
    if not params.stacked:
        if axis != 0:
            raise b.unsupported("stacked indices along an axis other than 0")
        return Val(b.emit([params.node, indices.node], {"axis": const(0)} if b.lib.kind == "np" else {}),
                   indices.full, rank)
    if not indices.stacked:
        return Val(b.emit([params.node, indices.node], {"axis": const(axis + params.depth)}),
                   params.full, rank)
    if b.lib.kind != "tf" or params.depth != indices.depth or not all(params.full + indices.full):
        raise b.unsupported("stacked params and indices")
    d = params.depth
    return Val(b.emit([params.node, indices.node], {"axis": const(axis + d), "batch_dims": const(d)}),
               params.full, rank)


@register("tensorflow.one_hot", family="shape", sample=("one_hot", None))
def _convert_one_hot(b):
    """``one_hot(indices, depth)`` adds the last axis: nothing moves."""
    x = b.pos[0]
    if "axis" in b.kw and b.const(None, "axis") != -1:
        raise b.unsupported("`axis` other than -1")
    args = [x.node] + [v.node for v in b.pos[1:]]
    if any(v.stacked for v in b.pos[1:]) or any(v.stacked for v in b.kw.values()):
        raise b.unsupported("a stacked depth or value")
    return Val(b.emit(args, {k: v.node for k, v in b.kw.items()}), x.full,
               None if x.rank is None else x.rank + 1)


@register("tensorflow.reverse", "numpy.flip", "tensorflow.roll", "numpy.roll", family="shape",
          sample=("flip", None))
def _convert_axis_op(b):
    """``reverse(x, axis)``, ``flip(x, axis)``, ``roll(x, shift, axis)``: the axes shift."""
    x = b.pos[0]
    rolls = b.name.endswith("roll")
    index = 2 if rolls else 1
    axis = b.const(index if len(b.pos) > index else None, "axis")
    if axis is None:
        raise b.unsupported("without `axis` the whole (flattened) value is used")
    axes = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    shifted = [batch_axis(a, x.depth) for a in axes]
    new = shifted if isinstance(axis, (list, tuple)) else shifted[0]
    rest = [v.node for v in b.pos[1:index]]
    if any(v.stacked for v in b.pos[1:index]) or any(v.stacked for v in b.kw.values()):
        raise b.unsupported("a stacked shift")
    kws = {k: v.node for k, v in b.kw.items() if k != "axis"}
    return Val(b.emit([x.node] + rest, {**kws, "axis": axis_const(b.lib, new)}), x.full, x.rank)


@register("tensorflow.shape", "numpy.shape", family="shape", sample=None)
def _convert_shape(b):
    """``shape(x)`` of a stacked value: the per-iteration shape, the same in every iteration."""
    x = b.pos[0]
    if not x.stacked:
        return Val(b.call, (), 1)
    if not all(x.full):
        raise b.unsupported("a value of size 1 along a loop axis")
    return Val(subscript(b.emit([x.node], {}), [gast.Slice(lower=const(x.depth), upper=None, step=None)]),
               (), 1)


@register("numpy.sort", "numpy.argsort", "numpy.fft.fft", "numpy.fft.ifft", "numpy.fft.rfft",
          "numpy.fft.irfft", family="shape", sample=None)
def _convert_last_axis(b):
    """``sort(x)``, ``argsort(x)``, ``fft.rfft(x, n)``: along one axis, the last by default;
    the same call on the stacked value works along the same per-iteration axis (an explicit
    non-negative ``axis`` shifts past the loop axes)."""
    x = b.pos[0]
    if x.rank is None or x.rank < 1:
        raise b.unsupported("needs a per-iteration array of known rank")
    if any(v.stacked for v in b.pos[1:]) or any(v.stacked for v in b.kw.values()):
        raise b.unsupported("a stacked argument other than the array")
    position = 2 if b.name.startswith("numpy.fft.") else 1
    if len(b.pos) > position + 1:
        raise b.unsupported("positional arguments after `axis`")
    given = len(b.pos) > position or "axis" in b.kw
    axis = b.const(position if len(b.pos) > position else None, "axis") if given else -1
    if not isinstance(axis, int):
        raise b.unsupported("an `axis` that is not one integer")
    kws = {k: v.node for k, v in b.kw.items() if k != "axis"}
    rest = [v.node for v in b.pos[1:position]]
    if given:
        kws["axis"] = const(batch_axis(axis, x.depth))
    return Val(b.emit([x.node] + rest, kws), x.full, x.rank)


@register("numpy.linspace", family="shape", sample=None)
def _convert_linspace(b):
    """``np.linspace(start, stop, num)`` with per-iteration bounds: NumPy takes arrays of
    bounds and puts the new axis at ``axis`` (0 by default), so the stacked call puts it past
    the loop axes. Each element is computed by the same formula as with scalar bounds
    (``start + k * step``, ``stop`` at the end), so the numbers are the loop's. ``num`` stays
    invariant; ``retstep=True`` (a tuple) is not batched."""
    start, stop = b.get(0, "start"), b.get(1, "stop")
    if start is None or stop is None:
        raise b.unsupported("needs `start` and `stop`")
    rest = [v for k, v in enumerate(b.pos) if k >= 2] + [v for k, v in b.kw.items() if k not in ("start", "stop")]
    if any(v.stacked for v in rest):
        raise b.unsupported("a per-iteration `num`, `endpoint`, `dtype` or `axis`")
    if len(b.pos) > 3 or "retstep" in b.kw:
        raise b.unsupported("`endpoint`, `retstep`, `dtype` or `axis` given by position, or `retstep`")
    (lo, hi), full, rank = align(b.lib, [start, stop], "`linspace` bounds")
    depth = len(full)
    axis = b.const(None, "axis", 0)
    if type(axis) is not int:
        raise b.unsupported("`axis` must be an integer literal")
    kws = {k: v.node for k, v in b.kw.items() if k not in ("start", "stop", "axis")}
    kws["axis"] = const(batch_axis(axis, depth))
    num = [b.pos[2].node] if len(b.pos) > 2 else []
    return Val(b.emit([lo.node, hi.node] + num, kws), full, None if rank is None else rank + 1)
