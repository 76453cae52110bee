"""Gradient tapes in the loop body: rows of a Jacobian, ``tape.gradient`` of a value selected by
the loop index batched as ``tape.jacobian``."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import gast

from pforge.transpile import templates
from pforge.transpile.analysis.nodes import _binding as analysis_binding, _scope_nodes, substituted as _substitute
from pforge.transpile.backends.direct.core import Unsupported, Val
from pforge.transpile.backends.direct.jacobians import dense_jacobian
from pforge.transpile.backends.direct.shared import Ind, _components
from pforge.transpile.backends.common import _LIST_RETURNING
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
    block: gast.With | None = None  # the `with` statement


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
        tape = _Tape(name, persistent_tape(call), block=stmt)
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
            # (the rows the loop selects, `y[:n]`, `y[:n][::-1]`, `g[:n, :n]`: the same expression of
            # the Jacobian, whose first axes are `y`'s)
            rows = target.node
            closed = self._dense_jacobian(tape.block, tape.name, base, node.args[1], source, target, len(self.levels))
            value = Val(jacobian, target.full, source.rank)
        source_name = node.args[1].id if isinstance(node.args[1], gast.Name) else node.args[1].attr
        base_name = tape.selected.get(node.args[0].id, (node.args[0].id,))[0]
        name = self.namer.new(f"d{base_name}_d{source_name}")
        if not target.stacked:
            self.out += templates.replace(f"{name} = V", V=value.node)
        else:
            self._bind_jacobian(name, jacobian, closed, rows, base)
        tape.results[key] = value.with_node(templates.name(name))
        return tape.results[key]

    def _dense_jacobian(self, block, tape: str, base: str, source, source_value: Val, target: Val, depth: int):
        """``(test, J)``, the closed form of ``tape.jacobian(base, source)``
        (:func:`~pforge.transpile.backends.direct.jacobians.dense_jacobian`), or None: for a
        vector ``source`` and the scalar entries of a vector, selected by one loop's index (rows
        of unknown rank too: the closed form's test asks for a vector)."""
        if not (isinstance(source, gast.Name) and source_value.rank == 1 and target.rank in (0, None) and depth == 1
                and self.info.function is not None):
            return None
        return dense_jacobian(self.ctx, block, tape, base, source.id, self.info.function, self.info.node,
                              self.lib.alias)

    def _bind_jacobian(self, name: str, jacobian, closed, rows, base: str) -> None:
        """``name = `` the rows of ``tape.jacobian(...)`` that ``rows``, an expression of ``base``
        (``y[:n][::-1]``; None: all), selects from ``base``; or, where the closed form applies
        and the user allows unsafe fixes, that form under its test and the call otherwise (an
        unsafe fix: the loop's backward pass spreads a NaN or an infinity of one row to the
        others, which the closed form keeps in its row)."""
        ctx = self.ctx

        class Unwrap(gast.NodeTransformer):  # `tf.convert_to_tensor(y)`: the Jacobian is a tensor already
            def visit_Call(self, call):
                if len(call.args) == 1 and not call.keywords and isinstance(call.args[0], gast.Name) \
                        and call.args[0].id == base and ctx.imports.resolve(call.func) == "tensorflow.convert_to_tensor":
                    return call.args[0]
                return self.generic_visit(call)

        rows = None if rows is None else Unwrap().visit(copy.deepcopy(rows))

        def sliced(node):
            return node if rows is None else _substitute(rows, {base: node})

        if closed is not None and not self.ctx.reassociate:
            closed = None
        if closed is not None and self.unsafe is None:
            self.unsafe = (f"writes the Jacobian of `{base}` in closed form (the chain rule), equal to the loop's to "
                           "rounding where its values are finite; a NaN or infinity in the weights or the "
                           "pre-activations stays in its own row, where the loop's backward pass spreads it to every row")
        if closed is None:
            self.out += templates.replace(f"{name} = V", V=sliced(jacobian))
            return
        test, form = closed
        self.out += templates.replace(f"if T:\n    {name} = J\nelse:\n    {name} = V",
                                      T=test, J=sliced(form), V=sliced(jacobian))


    # -- a tape opened before the loop -------------------------------------------------------------------

    def _outer_tape(self, node):
        """The ``with tf.GradientTape() as tape`` around or before the loop whose ``tape.gradient``
        ``node`` is, or None."""
        if self.lib.kind != "tf" or not (isinstance(node.func, gast.Attribute) and node.func.attr == "gradient"
                                         and isinstance(node.func.value, gast.Name)) \
                or node.func.value.id in self.tapes:
            return None
        defs = self.ctx.definitions_of(node.func.value)
        if len(defs) != 1:
            return None
        item = self.ctx.parents.get(id(defs[0].node))
        block = self.ctx.parents.get(id(item))
        if not (isinstance(item, gast.withitem) and item.optional_vars is defs[0].node
                and isinstance(block, gast.With) and isinstance(item.context_expr, gast.Call)
                and self.ctx.imports.resolve(item.context_expr.func) == "tensorflow.GradientTape"):
            return None
        return block

    def _outer_tape_gradient(self, node, block):
        """``tape.gradient(y_i, x)`` in the loop, the tape opened before it: rows of a Jacobian.

        Where ``y_i`` is row ``i`` of a tensor ``y`` the tape recorded (``y[i]``,
        ``tf.gather(y, i)``, or the loop runs over ``tf.unstack(y)``) and ``x`` does not change in
        the loop, iteration ``i`` computes ``d sum(y[i]) / d x`` (a gradient sums over a target's
        entries), and all of them together are ``tape.jacobian(y, x)`` summed over the axes of a
        row: one call whose backward passes TensorFlow batches with pfor (Agarwal & Ganichev,
        "Auto-vectorizing TensorFlow graphs: Jacobians, auto-batching and beyond", 2019).
        """
        what = f"`{gast.unparse(node).strip()}`"
        if len(node.args) != 2 or node.keywords or not isinstance(node.args[1], (gast.Name, gast.Attribute)):
            raise Unsupported(f"{what}: only `tape.gradient(target, source)` with one named source and "
                              "no keywords has a batching rule")
        if len(self.levels) != 1:
            raise Unsupported(f"{what}: a gradient from a tape opened outside a loop nest")
        target, source = self.ev(node.args[0]), self.ev(node.args[1])
        if source.stacked:
            raise Unsupported(f"{what}: a gradient with respect to a per-iteration value")
        if isinstance(node.args[1], gast.Name) and bound_to_sequence(self.ctx, node.args[1]):
            raise Unsupported(f"{what}: the source is a list or tuple of tensors")
        if not (isinstance(node.args[1], gast.Name) and (
                self._shape_of(node.args[1].id) is not None or self._tensor_valued(node.args[1].id))):
            # `tape.jacobian(y, [a, b])` is a list of Jacobians, which `tf.stack` of the rows'
            # lists of gradients would stack along another axis
            raise Unsupported(f"{what}: the source may be a list of tensors (declare its rank, or bind it "
                              "from a TensorFlow op)")
        if not target.stacked:
            return Val(node, (), source.rank)
        named = node.args[0].id if isinstance(node.args[0], gast.Name) else None
        if named in self.row_selections and sum(isinstance(n, gast.Name) and n.id == named and isinstance(n.ctx, gast.Store)
                                                for n in gast.walk(self.info.node)) == 1:
            target = self.row_selections[named]  # `y_i = y[i]`, bound once: the rows of `y`
        base = target.node.value if isinstance(target.node, gast.Subscript) else target.node
        rows = target.node.slice if isinstance(target.node, gast.Subscript) else None
        if isinstance(base, gast.Call) and len(base.args) == 1 and isinstance(base.args[0], gast.Name) \
                and self.ctx.imports.resolve(base.func) == "tensorflow.convert_to_tensor" \
                and self._tensor_valued(base.args[0].id):
            base = base.args[0]  # (a tensor all the same: a TensorFlow function's result)
        if not (isinstance(base, gast.Name) and target.full == (True,)
                and (rows is None or isinstance(rows, gast.Slice) and rows.step is None)):
            raise Unsupported(f"{what}: the target is not a row of a tensor, selected by the loop index")
        if base.id in self.loop_stores or not self._recorded_by(base.id, block) or not self._tensor_valued(base.id):
            raise Unsupported(f"{what}: `{base.id}` is not a tensor bound under the tape `{node.func.value.id}` "
                              "(only in its block)")
        key = ("outer", node.func.value.id, base.id, gast.dump(rows) if rows is not None else "",
               gast.dump(node.args[1]))
        if key in self.outer_gradients:
            return self.outer_gradients[key]
        tape = node.func.value.id
        jacobian = gast.Call(func=gast.Attribute(value=templates.name(tape), attr="jacobian", ctx=gast.Load()),
                             args=[templates.name(base.id), copy.deepcopy(node.args[1])], keywords=[])
        if target.rank is None:  # a row's axes, however many: sum over them, as the gradient does
            jacobian = templates.expr(f"{self.lib.alias}.reduce_sum(J, axis={self.lib.alias}.range(1, "
                                      f"{self.lib.alias}.rank(Y)))", J=jacobian,
                                      Y=templates.name(base.id))
        elif target.rank > 0:
            jacobian = templates.expr(f"{self.lib.alias}.reduce_sum(J, axis={list(range(1, target.rank + 1))})",
                                      J=jacobian)
        closed = self._dense_jacobian(block, tape, base.id, node.args[1], source, target, len(self.levels))
        source_name = node.args[1].id if isinstance(node.args[1], gast.Name) else node.args[1].attr
        name = self.namer.new(f"d{base.id}_d{source_name}")
        selection = None if rows is None else gast.Subscript(value=templates.name(base.id), slice=copy.deepcopy(rows),
                                                             ctx=gast.Load())
        self._bind_jacobian(name, jacobian, closed, selection, base.id)
        self.outer_gradients[key] = Val(templates.name(name), (True,), source.rank)
        return self.outer_gradients[key]

    def _tensor_valued(self, name) -> bool:
        """Every binding of ``name`` in the function assigns a tensor: a TensorFlow function's
        result (not a list, as ``tf.unstack`` gives), or arithmetic on one."""
        values = [analysis_binding(self.ctx, n)[1] for n in gast.walk(self.info.function)
                  if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)]
        return bool(values) and all(self._a_tensor(v) for v in values)

    def _a_tensor(self, node) -> bool:
        if isinstance(node, gast.Call):
            name = self.ctx.imports.resolve(node.func) or ""
            return name.startswith("tensorflow.") and name not in _LIST_RETURNING
        if isinstance(node, gast.BinOp):  # a tensor beside a list or number is a tensor
            return self._a_tensor(node.left) or self._a_tensor(node.right)
        if isinstance(node, gast.UnaryOp):
            return self._a_tensor(node.operand)
        return False

    def _recorded_by(self, name, block) -> bool:
        """Every binding of ``name`` in the function is an assignment inside ``block`` (the tape's
        ``with``), outside any function nested there: the tape recorded it."""
        stores = [n for n in gast.walk(self.info.function) if isinstance(n, gast.Name) and n.id == name
                  and isinstance(n.ctx, (gast.Store, gast.Del))]
        inside = {id(n) for n in _scope_nodes(block.body)}
        params = {a.id for a in self.info.function.args.args + self.info.function.args.kwonlyargs
                  if isinstance(a, gast.Name)}
        return bool(stores) and name not in params and all(id(n) in inside for n in stores)


# -- helpers ---------------------------------------------------------------------------------------------



def _is_tape_method(call, tape, method):
    func = call.func
    return isinstance(func, gast.Attribute) and func.attr == method and isinstance(func.value, gast.Name) \
        and func.value.id == tape.name
