"""Equal blocks of the leading axis read by a loop: ``x[m * size:(m + 1) * size]``.

A loop ``for m in range(n)`` whose body reads the ``m``-th block of ``size`` rows of an array
(microbatches, chunks, frames) reads the rows of the array reshaped to ``[n, size, ...]``,
provided every block is whole: ``n * size`` rows at most, and ``size >= 0``. Then iteration
``m`` reads row ``m`` of ``reshape(x[:n * size], [n, size, ...])`` and the loop is a map over
those rows (JAX's ``lax.map(batch_size=...)`` and TensorFlow Privacy's microbatches build the
same view). Where the last block could be short, the loop sees a block of another shape, and
no reshape gives it; so the fit is proven from the code, never assumed:

- ``size`` is bound once to ``len(x) // n`` (``x.shape[0]``, ``tf.shape(x)[0]``), with ``n`` the
  loop's trip count, or ``n`` is bound once to ``len(x) // size``: then ``n * size <= len(x)``;
- another array ``y`` read by blocks of the same ``size`` fits where the code states that it
  has as many rows as ``x`` before the loop (``assert len(x) == len(y)``,
  ``tf.debugging.assert_equal(tf.shape(x)[0], tf.shape(y)[0])``).

The blocks are a fact of the analysis; the pfor backend feeds the reshaped rows to
``tf.vectorized_map``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from pforge.transpile.analysis.nodes import _binding, _scope_nodes
from pforge.transpile.spaces import constant_int


@dataclass
class Blocks:
    """The blocks of one array that a loop reads.

    Attributes:
        base: the array's name (its rows are the leading axis).
        size: the block length, an expression the loop does not change (``size``).
        reads: the ``Subscript`` loads ``x[m * size:(m + 1) * size]`` (perhaps ``[..., k]`` after).
    """

    base: str
    size: gast.expr
    reads: list = field(default_factory=list)


def block_reads(ctx, info) -> tuple[dict[str, Blocks], str | None]:
    """The arrays a ``range`` loop reads by whole blocks of its index, and why none are, if not.

    Args:
        ctx: the module's facts (def-use chains, parents).
        info: the loop (``range(n)`` or ``range(0, n)``, step 1).

    Returns:
        ``({base: Blocks}, None)`` for every array all of whose reads in the body are blocks of
        one size that provably fit; ``({}, reason)`` where some block read was found but does
        not fit (the reason names it), ``({}, None)`` where the loop reads no blocks.
    """
    space = info.space
    if space is None or space.kind != "range" or info.function is None \
            or space.start is not None and constant_int(space.start) != 0 \
            or space.step is not None and constant_int(space.step) != 1:
        return {}, None
    i = space.induction
    stored = _stored(info.node)
    found: dict[str, Blocks] = {}
    nodes = list(_scope_nodes(info.body))
    for node in nodes:
        if not (isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load)
                and isinstance(node.value, gast.Name)):
            continue
        first = node.slice.elts[0] if isinstance(node.slice, gast.Tuple) and node.slice.elts else node.slice
        if not isinstance(first, gast.Slice) or first.step is not None:
            continue
        size = _block_size(first, i)
        if size is None:
            continue
        base = node.value.id
        if _names(size) & (stored | {i}) or any(isinstance(n, gast.Call) for n in gast.walk(size)):
            return {}, f"`{gast.unparse(node).strip()}`: the block size changes in the loop"
        if base in stored:
            return {}, f"`{gast.unparse(node).strip()}`: the loop binds `{base}` again"
        blocks = found.setdefault(base, Blocks(base, size))
        if gast.dump(blocks.size) != gast.dump(size):
            return {}, f"`{base}` is read by blocks of two sizes"
        blocks.reads.append(node)
    if not found:
        return {}, None
    for base, blocks in found.items():
        read_ids = {id(r.value) for r in blocks.reads}
        if any(isinstance(n, gast.Name) and n.id == base and id(n) not in read_ids for n in nodes):
            return {}, f"`{base}` is read whole or by other indices beside its blocks"
    why = _fit(ctx, info, found)
    return ({}, why) if why else (found, None)


def _block_size(part: gast.Slice, i: str):
    """``size`` where ``part`` is ``i * size:(i + 1) * size`` (or ``i * size + size``), else None."""
    size = _times(part.lower, i)
    if size is None or part.upper is None:
        return None
    upper = part.upper
    other = _times(upper, i, plus_one=True)
    if other is not None and gast.dump(other) == gast.dump(size):
        return size
    if isinstance(upper, gast.BinOp) and isinstance(upper.op, gast.Add):
        for a, b in ((upper.left, upper.right), (upper.right, upper.left)):
            if gast.dump(a) == gast.dump(part.lower) and gast.dump(b) == gast.dump(size):
                return size
            term = _times(a, i)
            if term is not None and gast.dump(term) == gast.dump(size) and gast.dump(b) == gast.dump(size):
                return size
    return None


def _times(node, i, plus_one=False):
    """``size`` where ``node`` is ``i * size`` or ``size * i`` (``(i + 1) * size`` with
    ``plus_one``), else None."""
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult)):
        return None
    for a, b in ((node.left, node.right), (node.right, node.left)):
        if _is_index(a, i, plus_one) and i not in _names(b):
            return b
    return None


def _is_index(node, i, plus_one):
    if not plus_one:
        return isinstance(node, gast.Name) and node.id == i
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        pair = (node.left, node.right)
        return any(isinstance(a, gast.Name) and a.id == i and constant_int(b) == 1
                   for a, b in (pair, pair[::-1]))
    return False


def _fit(ctx, info, found) -> str | None:
    """Why some blocks may be short, or None where ``n * size <= len(base)`` for every base."""
    stop = info.space.stop
    anchors = {}  # base -> the def reaching its reads
    for base, blocks in found.items():
        defs = ctx.definitions_of(blocks.reads[0].value)
        if len(defs) != 1 or any(ctx.definitions_of(r.value) != defs for r in blocks.reads[1:]):
            return f"`{base}` has more than one binding reaching the loop"
        anchors[base] = defs[0].node
    sizes = {gast.dump(b.size) for b in found.values()}
    if len(sizes) != 1:
        return "arrays read by blocks of different sizes"
    size = next(iter(found.values())).size
    measured = _measured(ctx, size, stop)
    if measured is None:
        return (f"the blocks may be short: neither `{gast.unparse(size).strip()}` is bound to "
                f"`len(x) // {gast.unparse(stop).strip()}` nor the trip count to `len(x) // "
                f"{gast.unparse(size).strip()}` for an array `x` the loop reads by blocks")
    equal = _equal_lengths(ctx, info, anchors)
    for base, anchor in anchors.items():
        if anchor is not measured and frozenset((id(anchor), id(measured))) not in equal:
            return (f"`{base}` may have fewer rows than the blocks read: the block size is computed "
                    f"from another array's length, and nothing before the loop states that the two "
                    f"have as many rows (`assert len(a) == len(b)`)")
    return None


def _measured(ctx, size, stop):
    """The binding of the array whose length the block size or trip count is computed from."""
    for name, other in ((size, stop), (stop, size)):
        if not isinstance(name, gast.Name):
            continue
        defs = ctx.definitions_of(name)
        if len(defs) != 1:
            continue
        _, value = _binding(ctx, defs[0].node)
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.FloorDiv) \
                and gast.dump(value.right) == gast.dump(other):
            array = _length_of(ctx, value.left)
            if array is not None and _same_bindings(ctx, value.right, other):
                return array
    return None


def _length_of(ctx, node):
    """The binding of ``x`` in ``len(x)``, ``x.shape[0]``, ``tf.shape(x)[0]`` (one reaching def)."""
    name = None
    if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords \
            and ctx.imports.resolve(node.func) in ("builtins.len",):
        name = node.args[0]
    elif isinstance(node, gast.Subscript) and constant_int(node.slice) == 0:
        base = node.value
        if isinstance(base, gast.Attribute) and base.attr == "shape":
            name = base.value
        elif isinstance(base, gast.Call) and len(base.args) == 1 and not base.keywords \
                and ctx.imports.resolve(base.func) in ("tensorflow.shape", "numpy.shape"):
            name = base.args[0]
    if not isinstance(name, gast.Name):
        return None
    defs = ctx.definitions_of(name)
    return defs[0].node if len(defs) == 1 else None


def _same_bindings(ctx, a, b) -> bool:
    """Two copies of one expression read the same bindings (each name one reaching def)."""
    la = sorted((n for n in gast.walk(a) if isinstance(n, gast.Name)), key=lambda n: n.id)
    lb = sorted((n for n in gast.walk(b) if isinstance(n, gast.Name)), key=lambda n: n.id)
    if [n.id for n in la] != [n.id for n in lb]:
        return False
    for x, y in zip(la, lb):
        dx, dy = ctx.definitions_of(x), ctx.definitions_of(y)
        if len(dx) != 1 or [d.node for d in dx] != [d.node for d in dy]:
            return False
    return True


def _equal_lengths(ctx, info, anchors) -> set:
    """Pairs of bindings stated to have as many rows by a statement of the function's body
    before the loop: ``assert len(a) == len(b)`` or ``tf.debugging.assert_equal(...)``."""
    pairs = set()
    for stmt in info.function.body:
        if stmt is info.node or (stmt.lineno, stmt.col_offset) >= (info.node.lineno, info.node.col_offset):
            break
        sides = None
        if isinstance(stmt, gast.Assert) and isinstance(stmt.test, gast.Compare) \
                and len(stmt.test.ops) == 1 and isinstance(stmt.test.ops[0], gast.Eq):
            sides = (stmt.test.left, stmt.test.comparators[0])
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and len(stmt.value.args) >= 2 \
                and ctx.imports.resolve(stmt.value.func) in ("tensorflow.debugging.assert_equal",
                                                             "tensorflow.assert_equal"):
            sides = tuple(stmt.value.args[:2])
        if sides is None:
            continue
        a, b = (_length_of(ctx, s) for s in sides)
        if a is not None and b is not None:
            pairs.add(frozenset((id(a), id(b))))
    return pairs


def _names(node) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)} if node is not None else set()


def _stored(loop) -> set[str]:
    return {n.id for n in gast.walk(loop) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
