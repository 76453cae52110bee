"""Reductions over the loop axes (``s += f(x[i])``, also conditional and nested) and per-iteration
row selections of NumPy code read by a masked sum, mean or len."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.analysis import reduction_term
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import Unsupported, Val, align, const, lift
from pforge.transpile.backends.direct.shared import _REDUCE_FN, _is_boolean
from pforge.transpile.backends.pfor import _stores
from pforge.transpile.operators import OPERATORS
from pforge.transpile.spaces import constant_int


class ReductionsMixin:
    """Reductions and per-iteration row selections."""

    # -- reductions ------------------------------------------------------------------------------------

    def _reduction_of(self, name, stmt):
        for k, level in enumerate(self.levels):
            red = level.info.reductions.get(name)
            if red is not None and stmt in red.updates:
                return red, k
        return None

    def _reduce(self, found, stmt):
        red, k = found
        term_node = reduction_term(stmt, red.name)
        if red.op in ("or", "and") and not _is_boolean(term_node, self.ctx):
            raise Unsupported(f"`{red.name}`: an `{red.op}` of values that may not be booleans "
                              "(Python returns an operand, `any`/`all` a bool)")
        term = self.ev(term_node)
        if red.op == "mul" and term.python:
            raise Unsupported(f"`{red.name}`: a product of Python integers, which NumPy could overflow")
        depth = len(self.levels)
        if not term.stacked and self.mask is None:
            raise Unsupported(f"`{red.name}`: a reduction term that does not depend on the loop")
        term = lift(self.lib, term, depth)
        if self.mask is not None:
            if OPERATORS[red.op].identity is not None:
                identity = Val(templates.expr(OPERATORS[red.op].identity_text), (), 0, True)
            elif k == 0 and term.rank == 0:
                # max/min: where the test is false, the running value itself changes nothing
                identity = Val(templates.name(red.name), (), 0)
            else:
                raise Unsupported(f"a conditional `{red.op}` reduction of `{red.name}`")
            (m, t, z), full, rank = align(self.lib, [self.mask, term, identity], "a conditional reduction")
            term = Val(self.lib.call("where", m.node, t.node, z.node), full, rank)
        axes = list(range(k, depth))
        if not all(term.full[a] for a in axes):
            raise Unsupported(f"`{red.name}`: a term that does not vary along every loop it is summed over")
        if self.lib.kind == "tf" and red.op in ("max", "min") and k == 0:
            # Grappler hoists a monotonic op out of reduce_max/min (min(tanh(t)) -> tanh(min(t))),
            # which over zero iterations gives tanh(inf) = 1 instead of the running value; a
            # binary op in between keeps it.
            (t, s), full, rank = align(self.lib, [term, Val(templates.name(red.name), (), term.rank)],
                                       f"`{red.name}`")
            term = Val(self.lib.call("maximum" if red.op == "max" else "minimum", t.node, s.node), full, rank)
        fn = _REDUCE_FN[self.lib.kind][red.op]
        fused = term.fused
        if fused is not None and fused[0] == fn and k == 0:
            reduced = fused[1]
        else:
            reduced = self.lib.call(fn, term.node, axis=const(axes[0] if len(axes) == 1 else axes))
            if self.lib.kind == "np" and len(axes) > 1:
                reduced.keywords[0].value = gast.Tuple(elts=[const(a) for a in axes], ctx=gast.Load())
            if self.lib.kind == "np" and red.op in ("max", "min") and k == 0 and term.rank == 0:
                # an empty loop leaves the running value; NumPy's max of nothing would raise
                reduced.keywords.append(gast.keyword(arg="initial", value=templates.name(red.name)))
        new = _replace_term(copy.deepcopy(stmt), red.name, reduced)
        if k == 0:
            if self.in_branch and self.mask is None:
                raise Unsupported("internal: a branch without a mask. This is a bug.")
            self.out.append(new)
            return
        current = self.env.get(red.name)
        if not isinstance(current, Val) or (current.stacked and current.depth != k) or (
                not current.stacked and red.name not in _stores(self.levels[k - 1].info.body)):
            raise Unsupported(f"`{red.name}`: an inner reduction of a value not private to the outer loop")
        if not current.stacked:  # initialised with an invariant in each outer iteration
            current = Val(current.node, (False,) * k, current.rank, current.python)
        value = gast.BinOp(left=current.node, op=stmt.op, right=reduced) if isinstance(stmt, gast.AugAssign) \
            else _replace_name(new.value, red.name, current.node)
        if current.rank is None or term.rank is None or current.rank > term.rank or (
                current.stacked and current.rank != term.rank):
            raise Unsupported(f"`{red.name}`: an inner reduction whose ranks do not line up")
        full = tuple(a or b for a, b in zip(current.full, term.full[:k]))
        rank = term.rank
        self._bind(red.name, Val(value, full, rank), set())

    # -- per-iteration row selections (NumPy) ----------------------------------------------------------

    def _selection(self, name, value) -> bool:
        """``rows = np.compress(mask, data, axis=0)`` with a per-iteration mask: a ragged value.

        It is kept as (mask, data) and only a later ``rows.sum(axis=0)``, ``rows.mean(axis=0)``
        or ``len(rows)`` may read it, as a masked reduction (case 015: a segment mean).
        """
        if self.lib.kind != "np" or not isinstance(value, gast.Call) or self.in_branch:
            return False
        if self.ctx.imports.resolve(value.func) != "numpy.compress" or len(value.args) != 2:
            return False
        axis = next((k.value for k in value.keywords if k.arg == "axis"), None)
        if constant_int(axis) != 0 or len(value.keywords) != 1:
            return False
        mask, data = self.ev(value.args[0]), self.ev(value.args[1])
        if not mask.stacked or mask.rank != 1 or data.stacked or data.rank is None or data.rank < 1:
            return False
        self.selections[name] = (mask, data)
        return True

    def _selection_reduction(self, node):
        """``rows.sum(axis=0)`` / ``rows.mean(axis=0)`` / ``np.sum(rows, axis=0)`` / ``len(rows)``."""
        if not self.selections:
            return None
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id in self.selections:
            name, how, args = func.value.id, func.attr, node.args
        else:
            callee = self.ctx.imports.resolve(func) or ""
            if not (node.args and isinstance(node.args[0], gast.Name) and node.args[0].id in self.selections):
                return None
            name, how, args = node.args[0].id, callee.rsplit(".", 1)[-1], node.args[1:]
            if callee not in ("numpy.sum", "numpy.mean", "builtins.len"):
                return None
        mask, data = self.selections[name]
        lib = self.lib
        count = lib.call("sum", mask.node, axis=-1)
        if how == "len" and not args and not node.keywords:
            return Val(count, mask.full, 0)
        axis = node.keywords[0].value if len(node.keywords) == 1 and node.keywords[0].arg == "axis" else (
            args[0] if len(args) == 1 and not node.keywords else None)
        if how not in ("sum", "mean") or constant_int(axis) != 0:
            raise Unsupported(f"`{name}.{how}(...)` of rows selected per iteration (only sum and mean "
                              "over axis 0 are batched)")
        depth = mask.depth
        wide = core.insert_axes(lib, mask, depth + 1, data.rank - 1)
        total = lib.call("sum", lib.call("where", wide, data.node, 0), axis=depth)
        if how == "mean":
            count = core.insert_axes(lib, Val(count, mask.full, 0), depth, data.rank - 1)
            total = gast.BinOp(left=total, op=gast.Div(), right=count)
        return Val(total, mask.full, data.rank - 1)


# -- helpers ---------------------------------------------------------------------------------------------


def _replace_term(stmt, name, new):
    """The update statement with its term replaced by ``new`` (``s += e`` -> ``s += R``)."""
    if isinstance(stmt, gast.AugAssign):
        stmt.value = new
        return stmt
    value = stmt.value
    if isinstance(value, gast.BinOp):
        if isinstance(value.left, gast.Name) and value.left.id == name:
            value.right = new
        else:
            value.left = new
    elif isinstance(value, gast.BoolOp):
        value.values[1] = new
    else:
        first = value.args[0]
        if isinstance(first, gast.Name) and first.id == name:
            value.args[1] = new
        else:
            value.args[0] = new
    return stmt


def _replace_name(node, name, new):
    class _Sub(gast.NodeTransformer):
        def visit_Name(self, n):
            return copy.deepcopy(new) if n.id == name and isinstance(n.ctx, gast.Load) else n

    return _Sub().visit(copy.deepcopy(node))
