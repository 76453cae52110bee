"""Gradient tapes in the loop body: rows of a Jacobian, ``tape.gradient`` of a value selected by
the loop index batched as ``tape.jacobian``."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import gast

from pforge.transpile import templates
from pforge.transpile.backends.direct.core import Unsupported, Val
from pforge.transpile.backends.direct.shared import Ind, _components
from pforge.transpile.backends.pfor import _stores, bound_to_sequence, persistent_tape


@dataclass
class _Tape:
    """A ``tf.GradientTape`` opened in the loop body, and the names selected under it by the
    loop index (``y_i = y[i]``)."""

    name: str
    persistent: bool = False
    recorded: set = field(default_factory=set)  # names assigned under the tape
    selected: dict = field(default_factory=dict)  # name -> (the array it selects from, its Val)
    results: dict = field(default_factory=dict)  # (target, source) -> the Val bound to the result
    open: bool = True


class TapesMixin:
    """``with tf.GradientTape() as tape:`` blocks and their gradients."""

    # -- gradient tapes ----------------------------------------------------------------------------------

    def _tape(self, stmt, later):
        """``with tf.GradientTape() as tape:`` in the body: the batching rule of ``tape.gradient``.

        Rows of a Jacobian: when everything the tape records is loop-invariant except the
        selection of the differentiated value by the loop index (``y_i = y[i]``; ``g[i, j]`` by
        the indices of a nest, in order), iteration ``i`` computes ``d y[i] / d x``, and all of
        them together are ``tape.jacobian(y, x)``:
        one forward pass instead of one per iteration, and the backward pass batched by
        TensorFlow's own pfor. Any other per-iteration value under the tape is a per-example
        gradient, which stays with the pfor backend: ``tape.jacobian`` of a batched loss would
        differentiate the whole batch once per row (n times the work).
        """
        where = f"line {stmt.lineno}: "
        item = stmt.items[0] if len(stmt.items) == 1 else None
        call = item.context_expr if item is not None else None
        if self.lib.kind != "tf" or not (
                isinstance(call, gast.Call) and self.ctx.imports.resolve(call.func) == "tensorflow.GradientTape"
                and isinstance(item.optional_vars, gast.Name)):
            raise Unsupported(where + "a `with` block other than `with tf.GradientTape() as tape`")
        if call.args or any(k.arg not in ("persistent", "watch_accessed_variables")
                            or not isinstance(k.value, gast.Constant) for k in call.keywords):
            raise Unsupported(where + "a GradientTape with arguments other than constant "
                              "`persistent=`/`watch_accessed_variables=`")
        if self.mask is not None or self.in_branch:
            raise Unsupported(where + "a GradientTape under a per-iteration `if`")
        name = item.optional_vars.id
        if name in later:
            raise Unsupported(where + f"the tape `{name}` is used after the loop")
        tape = _Tape(name, persistent_tape(call))
        self.tapes[name] = tape
        self.env.pop(name, None)
        outer, self.out = self.out, []
        try:
            for k, inner in enumerate(stmt.body):
                self._tape_stmt(tape, inner, _stores(stmt.body[k + 1:]) | later)
        finally:
            body, self.out = self.out, outer
        tape.open = False
        block = copy.copy(stmt)
        block.items, block.body = [copy.deepcopy(item)], body or [gast.Pass()]
        self.out.append(block)

    def _tape_stmt(self, tape, stmt, later):
        where = f"line {stmt.lineno}: "
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and _is_tape_method(stmt.value, tape, "watch"):
            if any(self.ev(a).stacked for a in stmt.value.args) or stmt.value.keywords:
                raise Unsupported(where + "the tape watches a per-iteration value (per-example gradients)")
            self.out.append(copy.deepcopy(stmt))
            return
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            raise Unsupported(where + f"a `{type(stmt).__name__}` statement under a GradientTape")
        name, node = stmt.targets[0].id, stmt.value
        value = self.ev(node)
        if not value.stacked:
            self._assign(stmt, later)
            tape.recorded.add(name)
            return
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                and all(isinstance(c, gast.Name) and isinstance(self.env.get(c.id), Ind)
                        for c in _components(node.slice))):
            raise Unsupported(where + "per-example gradients (a per-iteration value under the "
                              "GradientTape) need the pfor backend: tape.jacobian of the batch would "
                              "differentiate the whole batch once per row")
        base = node.value.id
        if base not in tape.recorded or base in later:
            raise Unsupported(where + f"`{gast.unparse(node).strip()}` selects from a value not "
                              "computed under the tape, or rebound after it")
        # No statement: `y[:n]` is taken from the Jacobian of `y` instead (a slice of the result
        # is cheaper than a slice differentiated once per row).
        tape.selected[name] = (base, value)
        self.env[name] = value

    def _tape_gradient(self, node, tape):
        """``tape.gradient(y_i, x)`` of a selected scalar ``y_i = y[i]`` -> ``tape.jacobian(y, x)``.

        The result is bound once to a name (``dy_dx``): rules and ``if`` predication may use a
        value twice, and a tape that is not persistent gives one set of gradients.
        """
        what = f"`{gast.unparse(node).strip()}`"
        if node.func.attr != "gradient":
            raise Unsupported(f"{what}: no batching rule for the tape method `.{node.func.attr}()`")
        if tape.open:
            raise Unsupported(f"{what}: a gradient taken inside the tape's own block")
        if len(node.args) != 2 or node.keywords or not isinstance(node.args[0], gast.Name) \
                or not isinstance(node.args[1], (gast.Name, gast.Attribute)):
            raise Unsupported(f"{what}: only `tape.gradient(target, source)` with a named target, "
                              "one named source and no keywords has a batching rule")
        target, source = self.ev(node.args[0]), self.ev(node.args[1])
        if source.stacked:
            raise Unsupported(f"{what}: a gradient with respect to a per-iteration value")
        if isinstance(node.args[1], gast.Name) and bound_to_sequence(self.ctx, node.args[1]):
            raise Unsupported(f"{what}: the source is a list or tuple of tensors")
        key = (node.args[0].id, gast.dump(node.args[1]))
        if key in tape.results:
            return tape.results[key]
        if tape.results and not tape.persistent:
            raise Unsupported(f"{what}: a second gradient from the tape `{tape.name}`, which is not "
                              "persistent (the loop takes one per iteration, the batch would take both)")
        if not target.stacked:
            value = Val(node, (), source.rank)
        else:
            base, selected = tape.selected.get(node.args[0].id, (None, None))
            if selected is None or target is not selected:
                raise Unsupported(f"{what}: the target is not selected under the tape by the loop index")
            if target.rank != 0:
                raise Unsupported(f"{what}: the gradient of a per-iteration value that is not a scalar "
                                  "(its rank is unknown or above 0)")
            if target.depth != len(self.levels) or not all(target.full):
                raise Unsupported(f"{what}: the target is not selected by the index of every loop "
                                  "around the tape, in order")
            jacobian = gast.Call(func=gast.Attribute(value=templates.name(tape.name), attr="jacobian", ctx=gast.Load()),
                                 args=[templates.name(base), copy.deepcopy(node.args[1])], keywords=[])
            if isinstance(target.node, gast.Subscript):  # `y[:n]`, `g[:n, :n]`: the same rows of the Jacobian
                jacobian = gast.Subscript(value=jacobian, slice=copy.deepcopy(target.node.slice), ctx=gast.Load())
            value = Val(jacobian, target.full, source.rank)
        source_name = node.args[1].id if isinstance(node.args[1], gast.Name) else node.args[1].attr
        base_name = tape.selected.get(node.args[0].id, (node.args[0].id,))[0]
        name = self.namer.new(f"d{base_name}_d{source_name}")
        self.out += templates.replace(f"{name} = V", V=value.node)
        tape.results[key] = value.with_node(templates.name(name))
        return tape.results[key]


# -- helpers ---------------------------------------------------------------------------------------------


def _is_tape_method(call, tape, method):
    func = call.func
    return isinstance(func, gast.Attribute) and func.attr == method and isinstance(func.value, gast.Name) \
        and func.value.id == tape.name
