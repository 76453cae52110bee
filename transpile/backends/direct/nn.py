"""Batching rules for ``tf.nn``: activations, ``softmax``/``log_softmax`` and per-example losses.

Activations are elementwise; ``softmax`` acts on one axis (``-1`` by default, which needs no
shift); a per-example loss reduces its last axis, so the loop axes are its batch.
"""

from __future__ import annotations

from pforge.transpile.backends.direct.core import Val, align, batch_axis, const, register
from pforge.transpile.backends.direct.elementwise import convert_cwise

_ACTIVATIONS = ["relu", "relu6", "elu", "selu", "gelu", "sigmoid", "tanh", "silu", "swish",
                "leaky_relu", "softplus", "softsign", "log_sigmoid"]


@register(*[f"tensorflow.nn.{n}" for n in _ACTIVATIONS if n != "log_sigmoid"],
          family="nn", sample=("cwise", 1))
def _convert_activation(b):
    return convert_cwise(b, 1)


@register("tensorflow.nn.softmax", "tensorflow.nn.log_softmax", "tensorflow.math.softmax",
          "tensorflow.math.log_softmax", family="nn", sample=("softmax", None))
def _convert_softmax(b):
    """``softmax(x, axis=-1)``: a non-negative axis moves past the loop axes."""
    x = b.get(0, "logits")
    if x is None or len(b.pos) > 2 or set(b.kw) - {"axis", "name", "logits"}:
        raise b.unsupported("expected `softmax(logits, axis)`")
    axis = b.const(1 if len(b.pos) > 1 else None, "axis", -1)
    if type(axis) is not int:
        raise b.unsupported("`axis` must be an integer literal")
    if x.rank == 0:
        raise b.unsupported("softmax of a scalar")
    kws = {k: v.node for k, v in b.kw.items() if k not in ("axis", "logits")}
    if axis != -1:
        kws["axis"] = const(batch_axis(axis, x.depth))
    return Val(b.emit([x.node], kws), x.full, x.rank)


@register("tensorflow.nn.softmax_cross_entropy_with_logits",
          "tensorflow.nn.sigmoid_cross_entropy_with_logits", family="nn", sample=None)
def _convert_logit_loss(b):
    """Per-example losses over the last axis (softmax) or elementwise (sigmoid), keyword operands."""
    if b.pos or set(b.kw) - {"labels", "logits", "name", "axis"}:
        raise b.unsupported("pass `labels=` and `logits=` by keyword")
    if "axis" in b.kw and b.const(None, "axis") != -1:
        raise b.unsupported("`axis` other than -1")
    (labels, logits), full, rank = align(b.lib, [b.kw["labels"], b.kw["logits"]], f"`{b.name}`")
    softmax = "softmax" in b.name
    kws = {"labels": labels.node, "logits": logits.node}
    batched = [v.stacked and all(v.full) for v in (labels, logits)]
    if not all(batched):
        # These ops want equal shapes, not broadcasting: an operand the loop does not vary
        # (or varies along fewer loops) is broadcast to the batch first.
        if any(batched):
            shape = b.lib.call("shape", (logits if batched[1] else labels).node)
        else:
            shape = b.lib.call("broadcast_dynamic_shape", b.lib.call("shape", labels.node),
                               b.lib.call("shape", logits.node))
        kws = {key: val.node if full else b.lib.call("broadcast_to", val.node, shape)
               for (key, val), full in zip((("labels", labels), ("logits", logits)), batched)}
    return Val(b.emit([], kws), full, rank - 1 if softmax else rank)
