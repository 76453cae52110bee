"""Lowers a vectorizable loop to ``tf.vectorized_map`` over a generated body function.

The body function computes one iteration; pfor (Agarwal & Ganichev, arXiv:1903.04243) batches
it at trace time with one converter per op. ``tf.vectorized_map`` does not run AutoGraph on
its function, so the body emitted here is already graph code: an ``if`` on a stacked value
becomes ``tf.where`` (both branches are pure, so both may run), ``and``/``or``/``not`` become
``tf.logical_*``, ``int(t)``/``float(t)`` become ``tf.cast``, a nested independent loop becomes
a nested ``tf.vectorized_map`` and a nested carried loop a ``tf.while_loop`` (pfor converts
while loops with per-iteration trip counts by masking).
"""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.analysis import LoopInfo, ModuleContext
from pforge.transpile.backends.common import (LoopRewrite, Unsupported, _evidently_array, _in_order,
                                              _loads, _nonnegative, _stores, bound_to_sequence,
                                              persistent_tape, single_use_tapes)
from pforge.transpile.backends.common_subexpressions import bind_common_subexpressions
from pforge.transpile.backends.pfor.vectorizer import _simple_anchor, _Vectorizer
from pforge.transpile.naming import Namer

#: Re-exported: the direct backend and the pipeline import these from here.
__all__ = ["LoopRewrite", "Unsupported", "bound_to_sequence", "persistent_tape", "rewrite_loop",
           "single_use_tapes", "_evidently_array", "_in_order", "_loads", "_nonnegative", "_stores"]


def rewrite_loop(ctx: ModuleContext, info: LoopInfo, namer: Namer, tf: str) -> LoopRewrite:
    """Builds the vectorized replacement of ``info``'s loop (the outermost level of a nest).

    Args:
        ctx: the module context (imports, parents, def-use chains).
        info: an analysed, vectorizable loop level.
        namer: the module's namer; generated names are prefixed by the function's name.
        tf: the local name bound to the ``tensorflow`` module.
    Returns:
        The replacement statements and the edits outside the loop.
    Raises:
        Unsupported: the loop needs a construct this backend does not emit.
    """
    if info.library != "tensorflow":
        raise Unsupported("a NumPy or plain-Python loop; tf.vectorized_map cannot run it, it needs "
                          "the direct backend (--backend auto or direct)")
    if any(getattr(level.node, "pforge_first_assign", None) for level in info.walk()):
        raise Unsupported("a reduction whose first iteration assigns (`if i == 0: s = t`) has no "
                          "tf.vectorized_map form here; the direct backend writes it")
    if info.form == "tf.map_fn":
        return _map_fn(ctx, info, tf)
    if info.form != "loop" and info.form != "list comprehension":
        raise Unsupported(f"a {info.form} builds a Python value; only a list comprehension "
                          "consumed by tf.stack is rewritten")
    taken = set(namer.taken)
    result = _Vectorizer(ctx, info, namer, tf, stacked_outside=set()).run()
    outside = {n.id for node in result.replace.values() for n in gast.walk(node) if isinstance(n, gast.Name)}
    bind_common_subexpressions(result.stmts, namer, ctx.imports, set(namer.taken) - taken, outside)
    return result


_MAP_FN_DROPPED = {"dtype", "fn_output_signature", "parallel_iterations", "back_prop",
                   "swap_memory", "infer_shape", "name"}


def _map_fn(ctx, info, tf):
    """``tf.map_fn(fn, elems)`` with a pure ``fn`` becomes ``tf.vectorized_map(fn, elems)``.

    The output structure and dtypes are inferred by pfor, so ``fn_output_signature`` /
    ``dtype`` and the while-loop tuning arguments are dropped.
    """
    call = info.node
    extra = [k.arg for k in call.keywords if k.arg not in _MAP_FN_DROPPED | {"fn", "elems"}]
    if extra or len(call.args) > 2:
        raise Unsupported(f"tf.map_fn argument `{extra[0] if extra else 'initializer'}` has no "
                          "tf.vectorized_map equivalent")
    fn = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "fn")
    elems = call.args[1] if len(call.args) > 1 else next(k.value for k in call.keywords if k.arg == "elems")
    anchor = _simple_anchor(ctx, call)
    new = templates.expr(f"{tf}.vectorized_map(FN, ELEMS)", FN=copy.deepcopy(fn), ELEMS=copy.deepcopy(elems))
    return LoopRewrite([], replace={id(call): new}, pattern="tf.map_fn with a pure function",
                       anchor=anchor)
