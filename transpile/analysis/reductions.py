"""Reductions (``s ⊕= term`` in every store of ``s``) and arg-reductions (``if v > best:
best, idx = v, i``); :func:`reduction_term` and :func:`contribution` answer the backends."""

from __future__ import annotations

import gast

from pforge.transpile.analysis.aliasing import _alias_source, _view_base
from pforge.transpile.analysis.facts import (ARG_REDUCTION, REDUCTION, ArgReduction,
                                             Reduction)
from pforge.transpile.analysis.nodes import _binding, _loaded_names, _scope_nodes, _statement_of
from pforge.transpile.operators import AUG_OPS, BINOPS, BOOLOPS, CALLS



def _reduction_update(ctx, stmt, name):
    """The reduction operator if ``stmt`` is ``name ⊕= term`` (in any accepted spelling)."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) and stmt.target.id == name:
        op = AUG_OPS.get(type(stmt.op))
        if op and name not in {n.id for n in _loaded_names(stmt.value)}:
            return op
        return None
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name):
        return None
    value = stmt.value
    operands = None
    if isinstance(value, gast.BinOp) and type(value.op) in BINOPS:
        op = BINOPS[type(value.op)]
        if isinstance(value.left, gast.Name) and value.left.id == name:
            operands = (op, value.right)
        elif isinstance(value.right, gast.Name) and value.right.id == name and not isinstance(value.op, gast.Sub):
            operands = (op, value.left)
    elif isinstance(value, gast.BoolOp) and len(value.values) == 2 and type(value.op) in BOOLOPS:
        op = BOOLOPS[type(value.op)]
        first, second = value.values
        if isinstance(first, gast.Name) and first.id == name:
            operands = (op, second)
    elif isinstance(value, gast.Call) and len(value.args) == 2 and not value.keywords:
        op = CALLS.get(ctx.imports.resolve(value.func) or "")
        first, second = value.args
        if op and isinstance(first, gast.Name) and first.id == name:
            operands = (op, second)
        elif op and isinstance(second, gast.Name) and second.id == name:
            operands = (op, first)
    if operands and name not in {n.id for n in _loaded_names(operands[1])}:
        return operands[0]
    return None


_BOOLEAN_CALLS = {"builtins.any", "builtins.all", "builtins.bool", "builtins.isinstance",
                  "numpy.any", "numpy.all", "numpy.isnan", "numpy.isfinite", "numpy.isinf",
                  "numpy.array_equal", "numpy.allclose", "numpy.isclose", "tensorflow.reduce_any",
                  "tensorflow.reduce_all", "tensorflow.equal", "tensorflow.not_equal",
                  "tensorflow.greater", "tensorflow.greater_equal", "tensorflow.less",
                  "tensorflow.less_equal", "tensorflow.math.is_nan", "tensorflow.math.is_finite",
                  "tensorflow.math.is_inf", "tensorflow.logical_and", "tensorflow.logical_or",
                  "tensorflow.logical_not", "tensorflow.math.logical_and",
                  "tensorflow.math.logical_or", "tensorflow.math.logical_not",
                  "tensorflow.math.reduce_any", "tensorflow.math.reduce_all"}


def _evidently_boolean(ctx, node) -> bool:
    """A comparison, a ``not``, a bool literal or a call that returns booleans: ``or``/``and``
    on anything else returns one of its operands, which is not a reduction."""
    if isinstance(node, (gast.Compare, gast.UnaryOp)) and (
            isinstance(node, gast.Compare) or isinstance(node.op, gast.Not)):
        return True
    if isinstance(node, gast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, gast.BoolOp):
        return all(_evidently_boolean(ctx, v) for v in node.values)
    return isinstance(node, gast.Call) and ctx.imports.resolve(node.func) in _BOOLEAN_CALLS


def _is_sequence_value(ctx, node) -> bool:
    """Strings, lists and tuples: ``+`` on them concatenates in order, which is no reduction."""
    if isinstance(node, (gast.List, gast.Tuple, gast.ListComp, gast.JoinedStr)):
        return True
    if isinstance(node, gast.Constant):
        return isinstance(node.value, (str, bytes))
    return isinstance(node, gast.Call) and ctx.imports.resolve(node.func) in (
        "builtins.str", "builtins.list", "builtins.tuple", "builtins.repr", "builtins.sorted")


def _initial_values(ctx, info, name):
    """Values bound to ``name`` before the loop in the same function (an approximation)."""
    scope = info.function.body if info.function is not None else ctx.tree.body
    found = []
    for stmt in scope:
        if stmt.lineno >= info.node.lineno:
            break
        for node in gast.walk(stmt):
            if isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Store):
                _, value = _binding(ctx, node)
                if value is not None:
                    found.append(value)
    return found


def reduction_term(stmt, name):
    """The term combined into ``name`` by a reduction update (``s += t`` -> ``t``)."""
    if isinstance(stmt, gast.AugAssign):
        return stmt.value
    value = stmt.value
    if isinstance(value, gast.BinOp):
        return value.right if isinstance(value.left, gast.Name) and value.left.id == name else value.left
    if isinstance(value, gast.BoolOp):
        return value.values[1]
    if isinstance(value, gast.Call):
        first, second = value.args
        return second if isinstance(first, gast.Name) and first.id == name else first
    return value


def contribution(stmt, name) -> gast.expr:
    """What one reduction update combines into ``name``, with its sign.

    ``s -= t`` and ``s = s - t`` contribute ``-t``; ``s += a - b`` contributes ``a - b`` as
    written (its subtraction is inside the term). Backends that sum contributions ask this
    function rather than the statement's spelling.

    Returns:
        A new node (the term itself, or ``-(term)``).
    """
    term = reduction_term(stmt, name)
    op = stmt.op if isinstance(stmt, gast.AugAssign) else getattr(stmt.value, "op", None)
    if isinstance(op, gast.Sub):
        return gast.UnaryOp(op=gast.USub(), operand=term)
    return term


def _find_reductions(ctx, info, body, stored):
    for name, stores in stored.items():
        if name in info.classes:
            continue
        updates, ops = [], set()
        for store in stores:
            stmt = _statement_of(ctx, store)
            op = _reduction_update(ctx, stmt, name)
            if op is None:
                break
            term = reduction_term(stmt, name)
            if op in ("or", "and") and not _evidently_boolean(ctx, term):
                break
            if op in ("add", "mul") and _is_sequence_value(ctx, term):
                break
            updates.append(stmt)
            ops.add(op)
        else:
            if len(ops) != 1:
                continue
            initial = _initial_values(ctx, info, name)
            if any(_is_sequence_value(ctx, v) for v in initial):
                continue
            if any(isinstance(u, gast.AugAssign) for u in updates) and any(
                    _view_base(ctx, v)[0] is not None for v in initial):
                continue  # `s = x[-1]; s += x[i]`: on an array, += writes into x as it goes
            update_ids = set()
            for stmt in updates:
                update_ids |= {id(n) for n in gast.walk(stmt)}
            stray = [n for n in _scope_nodes(body) if isinstance(n, gast.Name) and n.id == name
                     and id(n) not in update_ids]
            loop_ids = {id(n) for n in _scope_nodes([info.node])}
            aliased = [n for n in _scope_nodes(body) if isinstance(n, gast.Name) and n.id != name
                       and isinstance(n.ctx, gast.Load) and n.id not in stored
                       and (_alias_source(ctx, n, loop_ids) or ("",))[0] == name]
            if stray or aliased:
                continue
            info.reductions[name] = Reduction(name, ops.pop(), updates)
            info.classes[name] = REDUCTION


_COMPARE_DIRECTION = {gast.Gt: ("max", True), gast.GtE: ("max", False),
                      gast.Lt: ("min", True), gast.LtE: ("min", False)}
_MIRROR = {gast.Gt: gast.Lt, gast.GtE: gast.LtE, gast.Lt: gast.Gt, gast.LtE: gast.GtE}


def _find_arg_reductions(info, body, stored):
    """Finds argmax/argmin tracking: ``if v > best: best, idx = v, i`` (also as two assignments,
    with ``>=``, ``<``, ``<=``, or with ``best`` on the left of the comparison)."""
    for stmt in body:
        if not (isinstance(stmt, gast.If) and not stmt.orelse and isinstance(stmt.test, gast.Compare)
                and len(stmt.test.ops) == 1 and type(stmt.test.ops[0]) in _COMPARE_DIRECTION):
            continue
        left, op, right = stmt.test.left, type(stmt.test.ops[0]), stmt.test.comparators[0]
        if isinstance(left, gast.Name) and not isinstance(right, gast.Name):
            left, right, op = right, left, _MIRROR[op]  # best < v  ==  v > best
        if not isinstance(right, gast.Name):
            continue
        best = right.id
        assigned = _pairs_assigned(stmt.body)
        if assigned is None or len(assigned) != 2 or best not in assigned:
            continue
        (idx,) = set(assigned) - {best}
        term, index = assigned[best], assigned[idx]
        loaded = {n.id for part in (left, term, index) for n in _loaded_names(part)}
        if gast.dump(term) != gast.dump(left) or loaded & {best, idx} or \
                len(stored.get(best, ())) != 1 or len(stored.get(idx, ())) != 1:
            continue
        owned = {id(n) for n in gast.walk(stmt)}
        if any(isinstance(n, gast.Name) and n.id in (best, idx) and id(n) not in owned
               for n in _scope_nodes(body)):
            continue
        red_op, strict = _COMPARE_DIRECTION[op]
        info.reductions[best] = Reduction(best, red_op, [stmt])
        info.arg_reductions[idx] = ArgReduction(idx, best, red_op, strict, term, index, stmt)
        info.classes[best] = REDUCTION
        info.classes[idx] = ARG_REDUCTION


def _pairs_assigned(stmts) -> dict[str, gast.expr] | None:
    """``{name: value}`` for a block of plain assignments (``a, b = x, y`` or ``a = x; b = y``)."""
    found: dict[str, gast.expr] = {}
    for stmt in stmts:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
            return None
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, gast.Tuple) and isinstance(value, gast.Tuple) and \
                len(target.elts) == len(value.elts):
            pairs = zip(target.elts, value.elts)
        else:
            pairs = [(target, value)]
        for name, expr in pairs:
            if not isinstance(name, gast.Name) or name.id in found:
                return None
            found[name.id] = expr
    return found
