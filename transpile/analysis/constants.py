"""Branches a loop never takes, from names that keep their value before the loop.

A narrow form of sparse conditional constant propagation (Wegman & Zadeck, "Constant
propagation with conditional branches", TOPLAS 1991): a name bound to a constant before the
loop, and stored in the loop only under ``if`` tests that are false while it holds that
constant, holds it on every iteration; those branches never run. thealgorithms' histogram
stretch reads ``rem = 0`` before its loop and ``if rem != 0: rem = int(last % last)`` in it,
which looks like a loop-carried value and is a constant.
"""

from __future__ import annotations

import operator

import gast

from pforge.transpile.analysis.facts import LoopInfo
from pforge.transpile.analysis.nodes import _statements, _stored_names

_UNKNOWN = object()

_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Lt: operator.lt, gast.LtE: operator.le,
            gast.Gt: operator.gt, gast.GtE: operator.ge, gast.Is: operator.is_, gast.IsNot: operator.is_not}
_BINARY = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul, gast.Div: operator.truediv,
           gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod}
_NUMBERS = (bool, int, float, type(None))


def fold_dead_branches(info: LoopInfo) -> None:
    """Drops from ``info.body`` the ``if`` statements the loop never takes (each replaced by
    its ``else`` part), where that leaves a name bound to a constant before the loop unbound in
    it: the name is then an invariant of that value (``info.notes`` says so). The loop's own
    statements are not changed: the body is rebuilt around them."""
    if info.form != "loop" or info.function is None or not isinstance(info.node, gast.For):
        return
    while True:
        for name in sorted(_stored_names(info.body)):
            value = _constant_on_entry(info, name)
            if value is _UNKNOWN:
                continue
            body, dropped = _without_false_branches(info.body, name, value)
            if dropped and name not in _stored_names(body):
                info.body = body
                info.notes.append(f"`{name}` keeps its value {value!r} from before the loop: the `if` at "
                                  f"line {dropped[0].lineno} never runs")
                break
        else:
            return


def _constant_on_entry(info: LoopInfo, name: str):
    """The constant ``name`` holds where the loop starts: the function binds it once outside
    the loop, to a number, by a statement before the loop in the same block; else _UNKNOWN."""
    fdef, loop = info.function, info.node
    inside = {id(n) for n in gast.walk(loop)}
    outside = [n for n in gast.walk(fdef) if isinstance(n, gast.Name) and n.id == name
               and not isinstance(n.ctx, gast.Load) and id(n) not in inside]
    if len(outside) != 1 or any(isinstance(s, (gast.Global, gast.Nonlocal)) and name in s.names
                                for s in _statements(fdef)):
        return _UNKNOWN
    for block in _blocks(fdef):
        if not any(s is loop for s in block):
            continue
        before = block[:next(k for k, s in enumerate(block) if s is loop)]
        binding = next((s for s in before if isinstance(s, gast.Assign) and len(s.targets) == 1
                        and s.targets[0] is outside[0]), None)
        if binding is None:
            return _UNKNOWN
        value = _fold(binding.value, {})
        return value if type(value) in _NUMBERS else _UNKNOWN
    return _UNKNOWN


def _blocks(fdef):
    for stmt in _statements(fdef):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                yield block


def _without_false_branches(stmts, name, value):
    """``stmts`` without the ``if`` statements whose test reads ``name`` and is false where
    ``name`` is ``value`` (each replaced by its ``else`` part, searched too), and those
    statements. (A test false of constants alone is the user's to see, and left.)"""
    out, dropped = [], []
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            reads = any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(stmt.test))
            test = _fold(stmt.test, {name: value}) if reads else _UNKNOWN
            if test is not _UNKNOWN and type(test) in _NUMBERS and not test:
                rest, inner = _without_false_branches(stmt.orelse, name, value)
                out += rest
                dropped += [stmt] + inner
                continue
            body, in_body = _without_false_branches(stmt.body, name, value)
            orelse, in_else = _without_false_branches(stmt.orelse, name, value)
            if in_body or in_else:
                rebuilt = gast.If(test=stmt.test, body=body or [gast.Pass()], orelse=orelse)
                gast.copy_location(rebuilt, stmt)
                rebuilt.end_lineno, rebuilt.end_col_offset = stmt.end_lineno, stmt.end_col_offset
                for part in rebuilt.body:
                    if isinstance(part, gast.Pass):
                        gast.copy_location(part, stmt)
                out.append(rebuilt)
                dropped += in_body + in_else
                continue
        out.append(stmt)
    return out, dropped


def _fold(node, env):
    """The value of ``node`` from constants and the names of ``env``, or _UNKNOWN."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Name):
        return env.get(node.id, _UNKNOWN)
    if isinstance(node, gast.UnaryOp):
        operand = _fold(node.operand, env)
        if operand is _UNKNOWN:
            return _UNKNOWN
        if isinstance(node.op, gast.Not):
            return not operand
        if isinstance(node.op, gast.USub) and type(operand) in (bool, int, float):
            return -operand
        return _UNKNOWN
    if isinstance(node, gast.BinOp) and type(node.op) in _BINARY:
        left, right = _fold(node.left, env), _fold(node.right, env)
        if left is _UNKNOWN or right is _UNKNOWN or type(left) not in _NUMBERS or type(right) not in _NUMBERS:
            return _UNKNOWN
        try:
            return _BINARY[type(node.op)](left, right)
        except (ArithmeticError, TypeError):
            return _UNKNOWN
    if isinstance(node, gast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        values = [_fold(node.left, env)] + [_fold(c, env) for c in node.comparators]
        if any(v is _UNKNOWN or type(v) not in _NUMBERS for v in values):
            return _UNKNOWN
        try:
            return all(_COMPARE[type(op)](a, b) for op, a, b in zip(node.ops, values, values[1:]))
        except TypeError:
            return _UNKNOWN
    if isinstance(node, gast.BoolOp):
        # `a and b` is False where any part is (the parts before it decide nothing else), a
        # falsy constant of any type (`''`) too
        values = [_fold(v, env) for v in node.values]
        if isinstance(node.op, gast.And) and any(v is not _UNKNOWN and not v for v in values):
            return False
        if any(v is _UNKNOWN for v in values):
            return _UNKNOWN
        return all(values) if isinstance(node.op, gast.And) else any(values)
    return _UNKNOWN
