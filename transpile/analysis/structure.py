"""Statements that keep a loop level as it is (PF204, PF206, PF211: early exits, unanalysed
statements, writes outside the loop's names) and notes on inner trip counts that vary."""

from __future__ import annotations

import gast

from pforge.transpile.analysis.facts import TRY_STATEMENTS
from pforge.transpile.analysis.nodes import _loaded_names, _statements, _stored_names


def _trip_count_notes(info):
    """Explains inner trip counts that vary with an enclosing loop: triangular (``range(i)``)
    or data-dependent (``range(lens[i])``), a ragged iteration space once batched."""
    space = info.space
    if space is None or space.kind not in ("range", "while") or info.parent is None:
        return
    bounds = [b for b in (space.start, space.stop, space.step) if b is not None]
    outer = info.parent
    while outer is not None:
        variant = (outer.space.target_names() if outer.space else set()) | set(_stored_names(outer.body))
        for bound in bounds:
            used = sorted({n.id for n in _loaded_names(bound)} & variant)
            if not used:
                continue
            text = gast.unparse(bound).strip()
            inductions = {outer.space.induction} if outer.space and outer.space.kind in ("range", "while") else set()
            if set(used) - inductions or any(isinstance(n, (gast.Subscript, gast.Call))
                                             for n in gast.walk(bound)):
                info.notes.append(f"data-dependent trip count: the bound `{text}` is data that "
                                  f"changes with each iteration of the loop at line {outer.lineno}; "
                                  "batched, the iteration space is ragged (padded and masked)")
            else:
                info.notes.append(f"triangular iteration space: the bound `{text}` depends on "
                                  f"`{used[0]}`, the index of the loop at line {outer.lineno}; "
                                  "batched, the iteration space is a triangle (masked)")
            return
        outer = outer.parent


#: Statements a loop body is refused for (PF211), with their name in the remark.
_UNANALYSED = {**dict.fromkeys(TRY_STATEMENTS, "try"), gast.Match: "match", gast.Delete: "del",
               gast.Import: "import", gast.ImportFrom: "import", gast.ClassDef: "a class definition",
               gast.FunctionDef: "a nested function", gast.AsyncFunctionDef: "a nested function",
               gast.Global: "global", gast.Nonlocal: "nonlocal"}


def _structural_blockers(ctx, info, nodes):
    own_loop_nodes = _own_level_nodes(info)
    for node in nodes:
        if isinstance(node, (gast.Return, gast.Yield, gast.YieldFrom, gast.Await)):
            kind = type(node).__name__.lower().replace("yieldfrom", "yield from")
            info.block("PF204", f"`{kind}` in the loop body leaves the loop early", node)
        elif isinstance(node, gast.Raise):
            info.block("PF204", "`raise` in the loop body can end the loop early", node)
        elif isinstance(node, gast.Assert):
            info.block("PF204", "`assert` in the loop body can end the loop early (check the "
                       "whole batch before or after the loop instead)", node)
        elif isinstance(node, gast.Break) and id(node) in own_loop_nodes:
            info.block("PF204", "`break` makes the trip count depend on the data", node)
        elif isinstance(node, gast.Continue) and id(node) in own_loop_nodes:
            info.block("PF211", "`continue` is vectorized only as a leading `if cond: continue`", node)
        elif type(node) in _UNANALYSED:
            info.block("PF211", f"{_UNANALYSED[type(node)]} in the loop body is not analysed", node)
        elif isinstance(node, gast.NamedExpr) and info.form != "loop":
            info.block("PF206", f"`{gast.unparse(node.target).strip()} := ...` binds a name of the "
                       "enclosing scope in iteration order", node)
        elif isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Store):
            info.block("PF206", f"writes the attribute `{gast.unparse(node).strip()}`, visible "
                       "outside the loop in iteration order", node)
        elif isinstance(node, gast.With):
            for item in node.items:
                if isinstance(item.context_expr, gast.Call) and (
                        ctx.imports.resolve(item.context_expr.func) or "").endswith("GradientTape"):
                    info.has_tape = True
    if info.function is not None:
        declared = {n for node in _statements(info.function)
                    if isinstance(node, (gast.Global, gast.Nonlocal)) for n in node.names}
        for name in sorted(declared & set(_stored_names(info.body))):
            info.block("PF206", f"writes `{name}`, declared global/nonlocal in the function")


def _own_level_nodes(info):
    """Nodes of the body that belong to this level, not to the body of a nested loop."""
    own, stack = set(), list(info.body)
    while stack:
        node = stack.pop()
        own.add(id(node))
        if isinstance(node, gast.For):
            stack += [node.target, node.iter]  # the header belongs here, the body does not
        elif isinstance(node, gast.While):
            stack.append(node.test)
        elif not isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            stack.extend(gast.iter_child_nodes(node))
    return own
