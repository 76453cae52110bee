"""The direct backend: batched ops written at source level from a registry of batching rules.

Where the pfor backend emits ``tf.vectorized_map`` and lets pfor convert each op at trace
time, this backend applies the same kind of converters (Agarwal & Ganichev,
arXiv:1903.04243) to the source: each call on stacked values is rewritten into its batched
form, so the output reads like hand-batched code, traces faster, and also works for NumPy,
which has no ``vectorized_map``. One module per op family registers its rules in
:data:`core.REGISTRY`; :mod:`.emitter` walks the loop body.
"""

from __future__ import annotations

import gast

from pforge.transpile.analysis import LoopInfo, ModuleContext
from pforge.transpile.backends.direct import elementwise, linalg, nn, reductions, shape  # noqa: F401

_FAMILIES = (elementwise, linalg, nn, reductions, shape)  # importing them registers their rules
from pforge.transpile.backends.direct.core import REGISTRY, Lib, Unsupported
from pforge.transpile.backends.direct.emitter import DirectRewriter
from pforge.transpile.backends.pfor import LoopRewrite
from pforge.transpile.naming import Namer

__all__ = ["REGISTRY", "Unsupported", "rewrite_loop"]


def rewrite_loop(ctx: ModuleContext, info: LoopInfo, namer: Namer, tf: str | None, np: str | None = None,
                 shapes: dict | None = None, to_tensorflow: bool = False) -> LoopRewrite:
    """Builds the batched replacement of ``info``'s loop nest.

    Args:
        ctx: the module context.
        info: an analysed, vectorizable outermost loop level.
        namer: generated names (few: temporaries under a per-iteration ``if``).
        tf, np: the local names of ``tensorflow`` and ``numpy`` (None when not imported).
        shapes: ranks given by the user (``{"x": 2}`` or ``{"f.x": 2}``), or probed.
        to_tensorflow: write a NumPy loop with ``tf.experimental.numpy`` (``--target tensorflow``);
            ``tf`` is then the name the module will bind to tensorflow.
    Returns:
        The replacement statements and the edits outside the loop (collector initialisers
        dropped, ``tf.stack(outs)`` consumers replaced).
    Raises:
        Unsupported: an op without a batching rule, or an unknown rank that decides
            broadcasting; the message names it.
    """
    _check_semantics(ctx, info)
    if info.library == "python" and ctx.imports.alias_for("tensorflow") and not to_tensorflow:
        # No library call in the loop: its values may be tensors as well as arrays.
        raise Unsupported("a loop with no NumPy or TensorFlow call in a module that imports "
                          "TensorFlow: its values may be tensors, which NumPy ops would not keep")
    if info.library == "tensorflow":
        if tf is None:
            raise Unsupported("tensorflow is not imported under a plain name")
        lib = Lib("tf", tf)
    elif info.library in ("numpy", "python") and to_tensorflow:
        for node in gast.walk(info.node):
            if isinstance(node, gast.Call) and (
                    ctx.imports.resolve(node.func) in ("numpy.argmax", "numpy.argmin")
                    or isinstance(node.func, gast.Attribute) and node.func.attr in ("argmax", "argmin")):
                raise Unsupported("np.argmax returns the index of a NaN, TensorFlow's does not")
        lib = Lib("np", f"{tf or 'tf'}.experimental.numpy")
        return DirectRewriter(ctx, info, namer, lib, shapes or {}, to_tf=True).run()
    elif info.library in ("numpy", "python"):
        if np is None:
            raise Unsupported("a plain-Python loop in a module that does not import numpy")
        lib = Lib("np", np)
    else:
        raise Unsupported("the loop mixes NumPy and TensorFlow")
    rewriter = DirectRewriter(ctx, info, namer, lib, shapes or {})
    result = rewriter.run()
    result.consulted = set(rewriter.consulted)
    result.nonempty = rewriter.nonempty
    result.needs_trip = rewriter.needs_trip
    result.arrays = set(rewriter.arrays)
    result.sliced = set(rewriter.sliced)
    result.scalar_raising = rewriter.scalar_raising
    return result


def _check_semantics(ctx: ModuleContext, info: LoopInfo) -> None:
    """Loop meanings the batching rules do not reproduce: argmax tracking (pfor keeps the
    loop's tie and NaN rules), built-in ``max``/``min`` reductions (Python's comparison skips
    NaN terms, ``reduce_max`` propagates them) and opted-in random draws (a batched call would
    be one draw for every iteration)."""
    for level in info.walk():
        if level.arg_reductions and (level is not info or info.library == "tensorflow"):
            name = next(iter(level.arg_reductions))
            raise Unsupported(f"argmax tracking of `{name}` has no batching rule here (NumPy, an "
                              "outermost loop with no inner one)")
        if level.random_draws:
            raise Unsupported("a random draw has no batching rule")
        for red in level.reductions.values():
            value = getattr(red.updates[0], "value", None)
            if isinstance(value, gast.Call) and ctx.imports.resolve(value.func) in ("numpy.fmax", "numpy.fmin"):
                raise Unsupported(f"`{gast.unparse(value).strip()}` skips NaN terms, which a batched "
                                  "max does not")
            if isinstance(value, gast.Call) and ctx.imports.resolve(value.func) in ("builtins.max", "builtins.min"):
                raise Unsupported(f"`{gast.unparse(value).strip()}` compares with Python's "
                                  f"{value.func.id}(), which skips NaN terms; use "
                                  f"{'tf.maximum' if value.func.id == 'max' else 'tf.minimum'} or np.{value.func.id}imum")
