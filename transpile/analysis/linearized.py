"""Linearized loop nests in their nested form, so the dependence test and the backends see
the loop indices: ``for k, (i, j) in enumerate(product(range(a), range(b)))`` and a counter
(``k = 0`` before a nest of ranges, ``k += 1`` in its innermost body) both become a nest of
ranges whose innermost body starts with ``k = i * b + j``.

Induction-variable substitution replaces a counter by a closed form of the loop indices (a
single loop over rows counts with ``enumerate``)
(Allen & Kennedy, "Optimizing Compilers for Modern Architectures" (2001), section 4.5);
:func:`pforge.transpile.dependence.separating_dim` then reads ``x[i * b + j]`` as a
linearized index. Both rewrites are exact: the new nest runs the same iterations in the
same order and gives ``k`` the same value at every read. A loop that stays a loop keeps its
source text (only rewritten loops are spliced); a guarded rewrite's fallback prints the
nested form.
"""

from __future__ import annotations

import copy

import gast

from pforge.transpile.analysis.facts import WholeModuleNeeded, _parents
from pforge.transpile.analysis.nodes import (PLAIN_ARITHMETIC, _enclosing_scope, _private_names, _statements,
                                             _stored_names)
from pforge.transpile.spaces import constant_int

def unflatten_nests(ctx) -> bool:
    """Rewrites the product loops and counted nests of ``ctx.tree`` in nested form.

    Returns:
        Whether anything changed (then ``ctx.parents`` and the def-use chains are stale).
    """
    changed = False
    for loop in list(_statements(ctx.tree)):
        if isinstance(loop, gast.For) and _unflatten_product(ctx, loop):
            changed = True
    if changed:
        ctx.parents = _parents(ctx.tree)
    counters = [(loop, stmt) for loop in _statements(ctx.tree) if isinstance(loop, gast.For)
                for stmt in loop.body if _is_increment(stmt)]
    if counters:
        done = set()
        for inner, stmt in counters:
            if id(stmt) not in done and _substitute_counter(ctx, inner, stmt):
                done.add(id(stmt))
                changed = True
        if done:
            ctx.parents = _parents(ctx.tree)
            ctx._chains = ctx._use_def = None  # the new statements hold new name nodes
    return changed


def _name(name: str, store: bool = False) -> gast.Name:
    return gast.Name(id=name, ctx=gast.Store() if store else gast.Load(), annotation=None, type_comment=None)


def _at(node, where):
    """``node`` (and its children without a position) placed at ``where``'s position."""
    for sub in gast.walk(node):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if getattr(sub, attr, None) is None and hasattr(where, attr):
                setattr(sub, attr, getattr(where, attr))
    return node


def _range_args(ctx, node, outermost: bool = False) -> tuple[gast.expr | None, gast.expr] | None:
    """``(start, stop)`` of ``range(stop)`` or ``range(start, stop)`` whose bounds are plain
    arithmetic (the nest evaluates them again; the closed form reads them), else None. The
    outermost level's stop is evaluated once either way and can be anything."""
    if not (isinstance(node, gast.Call) and ctx.imports.resolve(node.func) == "builtins.range"
            and not node.keywords and 1 <= len(node.args) <= 2):
        return None
    plain = node.args[:-1] if outermost else node.args
    if not all(isinstance(n, PLAIN_ARITHMETIC) for a in plain for n in gast.walk(a)):
        return None
    if any(isinstance(n, gast.Constant) and type(n.value) is not int for a in plain for n in gast.walk(a)):
        return None
    return (None, node.args[0]) if len(node.args) == 1 else (node.args[0], node.args[1])


def _linear_index(indices: list[str], bounds: list[tuple]) -> gast.expr:
    """``(i - s1) * (e2 - s2) + (j - s2)`` for a nest over ``range(s1, e1)``, ``range(s2, e2)``:
    the number of innermost iterations before ``(i, j)`` (``i * e2 + j`` from 0)."""

    def offset(name, start):
        return _name(name) if start is None else gast.BinOp(left=_name(name), op=gast.Sub(), right=copy.deepcopy(start))

    def extent(start, stop):
        return copy.deepcopy(stop) if start is None else gast.BinOp(left=copy.deepcopy(stop), op=gast.Sub(),
                                                                    right=copy.deepcopy(start))

    total = None
    for level, (name, (start, _)) in enumerate(zip(indices, bounds)):
        term = offset(name, start)
        for inner_start, inner_stop in bounds[level + 1:]:
            term = gast.BinOp(left=term, op=gast.Mult(), right=extent(inner_start, inner_stop))
        total = term if total is None else gast.BinOp(left=total, op=gast.Add(), right=term)
    return total


def _jumps_out(loop, kinds=(gast.Break, gast.Continue)) -> bool:
    """A ``break`` (or another of ``kinds``) of ``loop`` itself, not of a loop inside it."""
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, kinds):
            return True
        if isinstance(node, (gast.For, gast.While, gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef,
                             gast.Lambda)):
            continue
        stack.extend(gast.iter_child_nodes(node))
    return False


# -- for k, (i, j) in enumerate(product(range(a), range(b))) ------------------------------------------

def _unflatten_product(ctx, loop: gast.For) -> bool:
    """``for (i, j) in product(range(a), range(b))`` (or its ``enumerate``, ``k`` then bound
    to ``start + i * b + j``) becomes ``for i in range(a): for j in range(b): ...``.

    Only where the nest means the same: the ranges are plain arithmetic of names the loop
    does not bind (the nest evaluates the inner range once per outer iteration, ``product``
    once), the targets are distinct names, and no ``break`` or ``else`` belongs to the loop.
    """
    if loop.orelse or _jumps_out(loop, (gast.Break,)):
        return False
    it, target, counter, start = loop.iter, loop.target, None, None
    if isinstance(it, gast.Call) and ctx.imports.resolve(it.func) == "builtins.enumerate":
        if not it.args or len(it.args) > 2 or it.keywords or not isinstance(target, gast.Tuple) \
                or len(target.elts) != 2 or not isinstance(target.elts[0], gast.Name):
            return False
        if len(it.args) == 2:
            start = it.args[1]
            if constant_int(start) is None:
                return False
        counter, target, it = target.elts[0].id, target.elts[1], it.args[0]
    if not (isinstance(it, gast.Call) and ctx.imports.resolve(it.func) == "itertools.product"
            and not it.keywords and len(it.args) >= 2):
        return False
    bounds = [_range_args(ctx, a, outermost=k == 0) for k, a in enumerate(it.args)]
    if any(b is None for b in bounds) or not isinstance(target, (gast.Tuple, gast.List)) \
            or len(target.elts) != len(bounds) or not all(isinstance(t, gast.Name) for t in target.elts):
        return False
    indices = [t.id for t in target.elts]
    if len(set(indices) | ({counter} if counter else set())) != len(indices) + bool(counter):
        return False
    stored = _stored_names(loop.body)
    if any(name in stored for name in indices + [counter]):
        return False  # `i = ...` in the body would last into the nest's next inner iterations
    read = list(it.args[1:]) + [p for p in bounds[0][:1] if p is not None]  # what the nest reads again
    if any(isinstance(n, gast.Name) and (n.id in stored or n.id in indices or n.id == counter)
           for a in read for n in gast.walk(a)):
        return False
    body = list(loop.body)
    if counter is not None:
        value = _linear_index(indices, bounds)
        if start is not None and constant_int(start) != 0:
            value = gast.BinOp(left=copy.deepcopy(start), op=gast.Add(), right=value)
        body = [_at(gast.Assign(targets=[_name(counter, store=True)], value=value, type_comment=None),
                    loop)] + body
    for name, call in reversed(list(zip(indices[1:], it.args[1:]))):
        level = _at(gast.For(target=_name(name, store=True), iter=copy.deepcopy(call), body=body, orelse=[],
                             type_comment=None), loop)
        level.pforge_synthetic = True  # no text of its own: rewritten with the loop or not at all
        body = [level]
    loop.target = _at(_name(indices[0], store=True), loop.target)
    loop.iter = it.args[0]
    loop.body = body
    return True


# -- counters: k = 0; for ...: for ...: ...; k += 1 ---------------------------------------------------

def _is_increment(stmt) -> bool:
    return (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
            and isinstance(stmt.target, gast.Name) and constant_int(stmt.value) is not None)


def _substitute_counter(ctx, innermost: gast.For, step: gast.AugAssign) -> bool:
    """``k += c`` at the top level of ``innermost``'s body, in a nest of ranges whose outer
    levels each hold the next one at the top of their body, and ``k = k0`` (an integer) the
    last binding of ``k`` before the nest in its block: ``k = k0 + c * <linear index>``
    becomes the innermost body's first statement and the increment goes.

    Only where that is exact: no read of ``k`` after the increment in the body nor outside
    the nest (``k`` is dead after it), no other binding of ``k`` in the nest, no ``break`` or
    ``continue`` of a level, bounds the nest does not change, and nothing else in the
    function can see ``k`` (no nested function, ``global`` or ``nonlocal``).
    """
    name = step.target.id
    path = [innermost]
    while True:
        parent = ctx.parents.get(id(path[-1]))
        if not isinstance(parent, gast.For) or not any(st is path[-1] for st in parent.body):
            break
        path.append(parent)
    # the outermost level whose body (and everything under it) binds `k` only by the increment
    levels = []
    for level in path:
        if _stored_names([level]).get(name, []) != [step.target]:
            break
        levels.append(level)
    if not levels:
        return False
    outer = levels[-1]
    levels.reverse()
    rows = len(levels) == 1 and _range_args(ctx, outer.iter, outermost=True) is None
    if rows:  # `for x in xs:` counting its iterations: `for k, x in enumerate(xs, k0)` (c == 1)
        return _counter_as_enumerate(ctx, outer, step)
    bounds = []
    for level in levels:
        bound = _range_args(ctx, level.iter, outermost=level is outer)
        if bound is None or level.orelse or _jumps_out(level) or not isinstance(level.target, gast.Name):
            return False
        bounds.append(bound)
    stored = _stored_names([outer])
    if any(len(stored.get(level.target.id, ())) != 1 for level in levels):
        return False  # an index rebound in the body: the closed form would read the new value
    read = [part for b in bounds[1:] for part in b if part is not None] + [p for p in bounds[0][:1] if p is not None]
    if any(isinstance(n, gast.Name) and n.id in stored for part in read for n in gast.walk(part)):
        return False
    statement = _counted(ctx, outer, innermost, step)
    if statement is None:
        return False
    body = innermost.body
    position = next(k for k, st in enumerate(body) if st is step)
    k0, c = constant_int(statement.value), constant_int(step.value)
    value = _linear_index([level.target.id for level in levels], bounds)
    if c != 1:
        value = gast.BinOp(left=gast.Constant(value=c, kind=None), op=gast.Mult(), right=value)
    if k0:
        value = gast.BinOp(left=gast.Constant(value=k0, kind=None), op=gast.Add(), right=value)
    assign = _at(gast.Assign(targets=[step.target], value=value, type_comment=None), innermost)
    innermost.body = [assign] + body[:position] + body[position + 1:]
    for level in levels[1:]:
        # Rewritten alone, a level inside the nest keeps the nested form where its checks fail:
        # the loop as written would count on from a `k` its batched code did not leave.
        level.pforge_fallback_unparsed = True
    return True


def _counted(ctx, outer, innermost, step) -> gast.Assign | None:
    """``k = k0``, when ``k`` counts the runs of ``step`` as :func:`_substitute_counter` needs:
    nothing else in the function can see it, it is read only in ``innermost``'s body before
    the increment and never after ``outer``, and ``k = k0`` starts every run of ``outer``."""
    name = step.target.id
    if not _private_names(_enclosing_scope(ctx, outer)):
        return None
    body = innermost.body
    position = next(k for k, st in enumerate(body) if st is step)
    before = {id(n) for st in body[:position] for n in gast.walk(st)}
    reads = [n for n in gast.walk(outer) if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)]
    if not reads or any(id(n) not in before for n in reads):
        return None
    inside = {id(n) for n in gast.walk(outer)}
    try:
        if any(id(user) not in inside for user in ctx.users_of(step.target)):
            return None  # `k` is read after the nest
    except WholeModuleNeeded:
        return None
    return _binding_before(ctx, outer, name)


def _counter_as_enumerate(ctx, loop: gast.For, step: gast.AugAssign) -> bool:
    """``k = k0; for x in xs: ...; k += 1`` as ``for k, x in enumerate(xs, k0)``: ``enumerate``
    gives ``k`` the value the counter has before its increment, iteration by iteration."""
    if loop.orelse or _jumps_out(loop) or constant_int(step.value) != 1 or \
            ctx.imports.resolve(_name("enumerate")) != "builtins.enumerate":
        return False
    statement = _counted(ctx, loop, loop, step)
    if statement is None:
        return False
    k0 = constant_int(statement.value)
    args = [loop.iter] + ([gast.Constant(value=k0, kind=None)] if k0 else [])
    loop.iter = _at(gast.Call(func=_name("enumerate"), args=args, keywords=[]), loop.iter)
    loop.target = _at(gast.Tuple(elts=[step.target, loop.target], ctx=gast.Store()), loop.target)
    loop.body = [st for st in loop.body if st is not step]
    return True


def _binding_before(ctx, loop, name: str) -> gast.Assign | None:
    """``name = <int>``, the last statement before ``loop`` in the block holding it that binds
    ``name``, when nothing else in between does: every run of ``loop`` then starts from it."""
    parent = ctx.parents.get(id(loop))
    block = next((b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody"))
                  if isinstance(b, list) and any(st is loop for st in b)), None)
    if block is None:
        return None
    position = next(k for k, st in enumerate(block) if st is loop)
    for stmt in reversed(block[:position]):
        if name not in _stored_names([stmt]):
            continue
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) \
                and constant_int(stmt.value) is not None:
            return stmt
        return None
    return None
