"""List comprehensions in a loop body, in the nested-loop form the analyses already know.

``lp = [f(x, c) for c in range(k)]`` in the body of ``for x in X`` becomes

    lp = []
    for c in range(k):
        lp.append(f(x, c))

an inner loop whose collector is ``lp``: the per-iteration list is one more axis of the
batched value, as for the loop written out (Allen & Kennedy, *Optimizing Compilers for
Modern Architectures*, 2001, section 5.2: a loop nest is vectorized from its innermost
independent level out). The comprehension's variable lives in the comprehension's own
scope; where its name is used anywhere else in the function, the loop gets a fresh name
(``c_1``), renamed in the element and the ``if`` clauses only (its iterable is evaluated in
the enclosing scope). As for the other normal forms of :mod:`.discovery`, a loop pforge
leaves alone keeps its text in the output; only the tree changes.
"""

from __future__ import annotations

import gast

from pforge.transpile.analysis.nodes import _enclosing_scope, _statements
from pforge.transpile.naming import Namer

#: what makes a comprehension unsafe to unfold: bindings in the enclosing scope, suspension
_ESCAPES = (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)


def comprehension_loops(ctx) -> bool:
    """Unfolds each ``name = [elt for t in s if c]`` statement of a loop body (at any depth of
    ``if``/``else`` blocks and inner loops, not in nested functions) into an inner loop that
    appends to ``name``.

    Only where the unfolded form runs the same code in the same order:

    - one ``for`` clause, not ``async``, over a target of plain names (``c``, ``(a, b)``);
    - ``name`` is a plain name that the comprehension does not read (``lp = [lp[0] + ...]``
      reads the old list);
    - no ``:=``, ``yield`` or ``await`` in the comprehension;
    - the enclosing scope is a function (a class body's names follow other rules).

    Returns:
        Whether anything changed (then ``ctx.parents`` and the def-use chains are stale).
    """
    changed = False
    for loop in list(_statements(ctx.tree)):
        if not isinstance(loop, (gast.For, gast.While)):
            continue
        for node in _statements(loop):
            if node is not loop and isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                continue
            for field in ("body", "orelse"):
                block = getattr(node, field, None)
                if not isinstance(block, list) or (node is loop and field == "orelse"):
                    continue
                if not any(_unfoldable(st) for st in block):
                    continue
                scope = _enclosing_scope(ctx, loop)
                if not isinstance(scope, (gast.FunctionDef, gast.AsyncFunctionDef)):
                    continue
                setattr(node, field, [part for st in block for part in _unfolded(scope, st)])
                changed = True
    return changed


def _unfoldable(stmt) -> bool:
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.ListComp) and len(stmt.value.generators) == 1):
        return False
    comp, name = stmt.value, stmt.targets[0].id
    generator = comp.generators[0]
    if generator.is_async or not _plain_target(generator.target):
        return False
    nodes = list(gast.walk(comp))
    if any(isinstance(n, _ESCAPES) for n in nodes):
        return False
    return not any(isinstance(n, gast.Name) and n.id == name for n in nodes)


def _plain_target(target) -> bool:
    if isinstance(target, gast.Name):
        return True
    return isinstance(target, (gast.Tuple, gast.List)) and all(_plain_target(t) for t in target.elts)


def _unfolded(scope, stmt) -> list[gast.stmt]:
    """``[stmt]``, or ``name = []`` and the inner loop that appends to ``name``."""
    if not _unfoldable(stmt):
        return [stmt]
    comp, name = stmt.value, stmt.targets[0].id
    generator = comp.generators[0]
    own = {id(n) for n in gast.walk(comp)}
    elsewhere = {n.id for n in gast.walk(scope) if isinstance(n, gast.Name) and id(n) not in own}
    elsewhere |= {n.id for n in gast.walk(generator.iter) if isinstance(n, gast.Name)}
    taken = elsewhere | {n.id for n in gast.walk(comp) if isinstance(n, gast.Name)}
    namer = Namer(gast.Module(body=[], type_ignores=[]), reserved=taken)
    renames = {t.id: namer.new(t.id) for t in gast.walk(generator.target)
               if isinstance(t, gast.Name) and t.id in elsewhere}
    parts = [generator.target, comp.elt, *generator.ifs]
    for part in parts:
        for n in gast.walk(part):
            if isinstance(n, gast.Name) and n.id in renames:
                n.id = renames[n.id]
    append = gast.Expr(value=gast.Call(
        func=gast.Attribute(value=_name(name, gast.Load()), attr="append", ctx=gast.Load()),
        args=[comp.elt], keywords=[]))
    body: list[gast.stmt] = [append]
    for test in reversed(generator.ifs):
        body = [gast.If(test=test, body=body, orelse=[])]
    loop = gast.For(target=generator.target, iter=generator.iter, body=body, orelse=[], type_comment=None)
    init = gast.Assign(targets=[_name(name, gast.Store())], value=gast.List(elts=[], ctx=gast.Load()),
                       type_comment=None)
    for new in (init, loop):  # the new nodes stand where the comprehension's statement stood
        for n in gast.walk(new):
            if isinstance(n, (gast.stmt, gast.expr)) and getattr(n, "lineno", None) is None:
                gast.copy_location(n, stmt)
    loop.pforge_comprehension = init  # printed with the loop where the loop alone is rewritten
    return [init, loop]


def _name(name: str, ctx) -> gast.Name:
    return gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None)
