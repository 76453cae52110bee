"""Checks that refuse a loop before it is lowered: constructs the pfor backend cannot express,
and uses of the loop index that only a Python int supports (it becomes an int32 tensor)."""

from __future__ import annotations

import gast

from pforge.transpile import analysis
from pforge.transpile.backends.common import (Unsupported, _loads, _stores, bound_to_sequence,
                                              single_use_tapes)


#: Calls whose result's shape depends on the data (ragged across iterations).
_RAGGED_CALLS = {"tensorflow.boolean_mask", "tensorflow.where", "tensorflow.unique",
                 "tensorflow.math.bincount", "tensorflow.gather_nd", "tensorflow.ragged.boolean_mask"}


def _used_as_number(node, index) -> bool:
    """The loop index read in ``node`` other than inside a subscript (``x[i]`` is fine)."""
    stack = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, gast.Subscript):
            stack.append(part.value)
            continue
        if isinstance(part, gast.Name) and part.id in index and isinstance(part.ctx, gast.Load):
            return True
        stack.extend(gast.iter_child_nodes(part))
    return False


def _int_expression(node, index) -> bool:
    """An integer expression of loop indices and int literals (``i + 1``, ``2 * i``, ``i // 2``):
    int32 in the body, as an index it is fine. Powers of the index can overflow; ``/`` is float."""
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    if isinstance(node, gast.Name):
        return node.id in index
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and _int_expression(node.operand, index)
    if isinstance(node, gast.BinOp):
        if isinstance(node.op, gast.Pow) and _loads(node.right) & index:
            return False
        return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod, gast.Pow)) \
            and _int_expression(node.left, index) and _int_expression(node.right, index)
    return False


#: Calls whose first argument is a shape.
_SHAPE_CALLS = {f"tensorflow.{n}" for n in ("ones", "zeros", "fill", "range", "eye",
                                           "random.normal", "random.uniform")}


class ChecksMixin:
    """The ``_Vectorizer`` methods that refuse what the body function cannot express."""

    # -- checks --------------------------------------------------------------------------------

    def _check_supported(self):
        info = self.info
        if any(level.runtime_checks for level in info.walk()):
            raise Unsupported("an access distance that depends on invariant names needs a run-time "
                              "check, which the direct backend writes")
        if info.derived:
            raise Unsupported(f"derived induction variable `{next(iter(info.derived))}` is not "
                              "rewritten by the pfor backend yet")
        if info.wraparound:
            raise Unsupported(f"the wrap-around variable `{next(iter(info.wraparound))}` is not "
                              "rewritten by the pfor backend")
        if info.live_invariants or info.live_last or info.live_targets or info.live_conditional:
            raise Unsupported(f"`{min(info.live_invariants | info.live_last | info.live_targets | set(info.live_conditional))}` is used after "
                              "the loop, which the body "
                              "function of tf.vectorized_map does not bind")
        if info.scans:
            raise Unsupported(f"`{next(iter(info.scans))}` is a running value (a scan): every "
                              "iteration of tf.vectorized_map would need the ones before it")
        if info.arrays:
            raise Unsupported(f"writes elements of `{next(iter(info.arrays))}` in place, which "
                              "TensorFlow tensors do not support")
        if info.space.kind == "while":
            raise Unsupported("a counted while loop is vectorized only inside another loop")
        for name, writes in info.tensorarrays.items():
            for assign in writes:
                index = assign.value.args[0]
                if not (info.space.kind == "range" and isinstance(index, gast.Name)
                        and index.id == info.space.induction):
                    raise Unsupported(f"TensorArray `{name}` is written at an index other than "
                                      "the loop variable")
        for red in info.reductions.values():
            if len(red.updates) != 1:
                raise Unsupported(f"`{red.name}` is updated more than once per iteration")
        for name, col in info.collectors.items():
            if analysis._append_counts(info.body, {id(c) for c in col.appends})[1] > 1:
                raise Unsupported(f"`{name}` is appended to more than once in an iteration")
            for call in col.appends:
                value = analysis.appended_item(call)
                if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                        and value.func.attr in ("gradient", "jacobian") and len(value.args) > 1 \
                        and isinstance(value.args[1], (gast.List, gast.Tuple)):
                    raise Unsupported(f"`{name}` collects lists of gradients (one per source): "
                                      "tf.vectorized_map returns a list where tf.stack makes one tensor")
        nodes = list(analysis._scope_nodes(info.body))
        for node in nodes:
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                    isinstance(node.func.value, gast.Name) and node.func.value.id in info.tensorarrays \
                    and node.func.attr != "write":
                raise Unsupported(f"TensorArray `{node.func.value.id}` is read in the loop that "
                                  "writes it")
        self._check_index_uses(nodes)
        bound_in_body = _stores(info.body)
        for node in nodes:
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                    and node.func.attr in ("gradient", "jacobian", "batch_jacobian") \
                    and isinstance(node.func.value, gast.Name) and node.func.value.id not in bound_in_body \
                    and node.args and _loads(node.args[0]) & (info.space.target_names() | bound_in_body):
                # `for out_j in tf.unstack(out): tape.gradient(out_j, x)`: the loop's rows were
                # recorded on the tape; the rows tf.vectorized_map slices from a re-stacked
                # tensor were not, so every gradient would be None.
                raise Unsupported(f"`{gast.unparse(node).strip()}` differentiates a per-iteration value "
                                  f"recorded on the tape `{node.func.value.id}` before the loop; the "
                                  "batched rows would not be on the tape")
        for tape, calls in single_use_tapes(self.ctx, nodes).items():
            if len(calls) > 1:
                raise Unsupported(f"the tape `{tape}` is not persistent and {len(calls)} gradients are "
                                  "taken from it; the batched body would run all of them (both "
                                  "branches of an `if` run), and a tape gives one")

    def _check_index_uses(self, nodes):
        """The loop index becomes an int32 tensor: refuse uses that only a Python int supports.

        ``x[i] * i`` (int32 times float32), slice bounds and shapes that depend on ``i``
        (each iteration would produce a differently shaped value), comprehensions over a
        per-iteration value (graph code cannot iterate a symbolic tensor), and indexing a dict.
        """
        space = self.info.space
        index = {space.induction} if space.induction else set()
        for node in nodes:  # names computed from the index alone (`k = i + 1`) are indices too
            if isinstance(node, gast.Assign) and _loads(node.value) and _loads(node.value) <= index \
                    and not any(isinstance(n, (gast.Subscript, gast.Call)) for n in gast.walk(node.value)):
                index |= _stores([node])
        stacked = index | space.target_names()
        for node in nodes:
            if isinstance(node, gast.BinOp) and not self._in_subscript_index(node) and \
                    _used_as_number(node, index) and not _int_expression(node, index):
                raise Unsupported(f"the loop index is used as a number in "
                                  f"`{gast.unparse(node).strip()}`; as a tensor it is int32, which "
                                  "does not mix with float tensors and overflows where Python's "
                                  "int does not")
            elif isinstance(node, gast.Call) and not self._records_output(node) and \
                    any(_used_as_number(a, index) for a in node.args) and \
                    not (self.ctx.imports.resolve(node.func) or "").startswith(
                        ("tensorflow.", "builtins.int", "builtins.range")):
                raise Unsupported(f"`{gast.unparse(node).strip()}` takes the loop index as a "
                                  "Python number")
            elif isinstance(node, gast.Call) and (self.ctx.imports.resolve(node.func) or "") in _RAGGED_CALLS \
                    and not (node.func.attr == "where" and len(node.args) == 3 if isinstance(node.func, gast.Attribute) else False):
                raise Unsupported(f"`{gast.unparse(node).strip()}` has a data-dependent shape in "
                                  "each iteration")
            elif isinstance(node, gast.Slice) and id(node) not in self._block_slices() and any(
                    _loads(part) & index for part in (node.lower, node.upper, node.step) if part is not None):
                raise Unsupported("a slice bound depends on the loop index, so each iteration's "
                                  "value has another shape" + (f" ({self.block_reason})" if self.block_reason else ""))
            elif isinstance(node, gast.comprehension) and not (
                    isinstance(node.iter, gast.Call) and isinstance(node.iter.func, gast.Name)
                    and node.iter.func.id == "range" and not _loads(node.iter) & stacked):
                raise Unsupported("a comprehension in the body iterates over a per-iteration value")
            elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    _loads(node.slice) & index and self._is_dict(node.value):
                raise Unsupported(f"`{node.value.id}` is a dict indexed by the loop index")
            elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    _loads(node.slice) & index and bound_to_sequence(self.ctx, node.value, self.info.node):
                raise Unsupported(f"`{node.value.id}` is a Python list built in the body and indexed "
                                  "by the loop index, which is a tensor under tf.vectorized_map")
            elif isinstance(node, gast.Call) and node.args and \
                    (self.ctx.imports.resolve(node.func) or "") in _SHAPE_CALLS and _loads(node.args[0]) & index:
                raise Unsupported(f"the shape in `{gast.unparse(node).strip()}` depends on the loop "
                                  "index, so each iteration's value has another shape")

    def _block_slices(self):
        """The slices of the loop's block reads (``x[m * size:(m + 1) * size]``): a row of the
        reshaped array each, not a shape that varies."""
        return {id(n) for b in self.blocks.values() for r in b.reads for n in gast.walk(r.slice)
                if isinstance(n, gast.Slice)}

    def _records_output(self, call):
        """``outs.append(e)`` / ``ta.write(i, e)``: the index there is an element or a position."""
        func = call.func
        return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and (
            analysis.appended_item(call) is not None and func.value.id in self.info.collectors
            or func.attr == "write" and func.value.id in self.info.tensorarrays)

    def _in_subscript_index(self, node):
        parent = self.ctx.parents.get(id(node))
        while parent is not None and not isinstance(parent, gast.stmt):
            if isinstance(parent, gast.Subscript):
                return True
            parent = self.ctx.parents.get(id(parent))
        return False

    def _is_dict(self, name_node):
        for definition in self.ctx.definitions_of(name_node):
            _, value = analysis._binding(self.ctx, definition.node)
            if isinstance(value, (gast.Dict, gast.DictComp)) or (
                    isinstance(value, gast.Call) and self.ctx.imports.resolve(value.func) == "builtins.dict"):
                return True
        return False
