"""Finds the loops of a module (statements, comprehensions, ``tf.map_fn``) and analyses each
level: :func:`discover` and the per-level driver that runs the other analyses in order."""

from __future__ import annotations

import copy

import gast

from pforge.transpile.analysis.aliasing import _check_inplace_views
from pforge.transpile.analysis.calls import _check_calls, _detect_library
from pforge.transpile.analysis.classes import _classify_scalars, _find_derived, check_live_out
from pforge.transpile.analysis.comprehensions import comprehension_loops
from pforge.transpile.analysis.constants import fold_dead_branches
from pforge.transpile.analysis.distribution import distribute_loops, mark_splittable
from pforge.transpile.analysis.collectors import (_comprehension_collector, _consumer_kind,
                                                  _find_collectors, _find_tensorarrays)
from pforge.transpile.analysis.facts import (COMPREHENSION, INVARIANT, TRY_STATEMENTS, LoopInfo,
                                             ModuleContext, _parents)
from pforge.transpile.analysis.linearized import unflatten_nests
from pforge.transpile.analysis.nodes import (_enclosing_scope, _private_names, _scope_nodes, _statements,
                                             _stored_names)
from pforge.transpile.analysis.chains import reassociated_chains
from pforge.transpile.analysis.packs import find_packs
from pforge.transpile.analysis.recurrences import carried_elements
from pforge.transpile.analysis.reductions import (_find_arg_reductions, _find_reductions, _find_scans,
                                                  first_iteration_reductions)
from pforge.transpile.analysis.structure import _structural_blockers, _trip_count_notes
from pforge.transpile.analysis.subscripts import _check_subscripts
from pforge.transpile.frontend import marker_above
from pforge.transpile.spaces import Space, for_space, while_space


def discover(ctx: ModuleContext, distribute: frozenset[tuple[int, int]] = frozenset()) -> list[LoopInfo]:
    """All loop nests of the module, outermost first, in source order; each level analysed.

    ``distribute``: the ``(lineno, col_offset)`` of ``for`` loops to split into pieces first
    where loop distribution can (``analysis.distribution``); each piece is then a loop."""
    roots: list[LoopInfo] = []
    if distribute and distribute_loops(ctx, distribute):
        ctx.parents = _parents(ctx.tree)
        ctx._chains = ctx._use_def = None  # the pieces hold the loop's statements
    elif not distribute:
        mark_splittable(ctx)  # (before the body changes below: the split is made on the body as written)
    _normalise_continue(ctx.tree)
    if _split_tuple_assignments(ctx):
        ctx.parents = _parents(ctx.tree)  # the new statements hold the old targets and values
    if comprehension_loops(ctx):
        ctx.parents = _parents(ctx.tree)
        ctx._chains = ctx._use_def = None  # `c` of `[... for c in s]` is now bound in the function
    unflatten_nests(ctx)
    if first_iteration_reductions(ctx):
        ctx.parents = _parents(ctx.tree)
        ctx._chains = ctx._use_def = None  # `s = t` is gone
    if carried_elements(ctx):
        ctx.parents = _parents(ctx.tree)
        ctx._chains = ctx._use_def = None  # `a[i - 1]` is read as a name
    if reassociated_chains(ctx):
        ctx.parents = _parents(ctx.tree)
        ctx._chains = ctx._use_def = None  # `s + (b[i] + c[i])`: new nodes

    def visit_block(stmts, qualname, function, parent_loop, sink):
        previous = None
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                info = LoopInfo(stmt, qualname, function, parent_loop)
                info.space = (for_space(stmt, ctx.imports) if isinstance(stmt, gast.For)
                              else while_space(stmt, previous))
                info.body = list(stmt.body)
                info.runtime_checks.extend(copy.deepcopy(c) for c in getattr(stmt, "pforge_runtime_checks", ()))
                if isinstance(stmt, gast.While) and info.space is not None:
                    info.body = info.body[:-1]  # the counter increment is the iteration space
                sink.append(info)
                visit_block(stmt.body, qualname, function, info, info.children)
                visit_block(stmt.orelse, qualname, function, parent_loop, sink)
            elif isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
                if _generated(ctx, stmt):
                    continue  # pforge's own output is not vectorized twice (idempotence)
                inner = f"{qualname}.{stmt.name}" if qualname else stmt.name
                visit_block(stmt.body, inner, stmt, None, roots)
            elif isinstance(stmt, gast.ClassDef):
                inner = f"{qualname}.{stmt.name}" if qualname else stmt.name
                visit_block(stmt.body, inner, None, None, roots)
            else:
                if parent_loop is None:
                    for node in _implicit_loops(ctx, stmt):
                        sink.append(_implicit_loop_info(ctx, node, qualname, function))
                if _rank_checked(ctx, stmt):  # pforge's batched code and the loop it kept: not again
                    continue
                for block in _child_blocks(stmt):
                    visit_block(block, qualname, function, parent_loop, sink)
            previous = stmt

    visit_block(ctx.tree.body, "", None, None, roots)
    roots.sort(key=lambda info: (info.node.lineno, info.node.col_offset))
    for root in roots:
        for info in root.walk():
            _analyse_level(ctx, info)
    return [r for r in roots if r.form == "loop" or _array_building(r)]


#: the end of the marker comment above a rewrite guarded by run-time checks
CHECKED_MARKER = "where its run-time checks hold"


def _rank_checked(ctx, stmt) -> bool:
    """``if <checks>: <batched code> else: <the loop>`` under pforge's marker comment: what
    pforge writes for a loop whose rewrite needs run-time checks (ranks it inferred, windows
    inside their array). Neither branch is vectorized again (idempotence), nor is the kept
    loop reported. A comprehension's statement is kept whole (``return np.array([...])``)."""
    kept = [st for st in getattr(stmt, "orelse", []) if not any(  # (a comprehension unfolded: one statement)
        getattr(other, "pforge_comprehension", None) is st for other in stmt.orelse)]
    if not isinstance(stmt, gast.If) or len(kept) != 1:
        return False
    above = marker_above(ctx.lines, stmt.lineno)
    return above.startswith(("# pforge: vectorized", "# pforge: loop distributed")) and above.endswith(CHECKED_MARKER)


def _array_building(info: LoopInfo) -> bool:
    """Which loops written as expressions are worth a remark: ``tf.map_fn``; a list
    comprehension whose list becomes an array (``tf.stack([...])``, ``np.array([...])``) or is
    reduced (``np.sum([...])``, ``sum([...])``, a plain-Python one only where it indexes by
    its index); a dict comprehension of array values over a range. Others build Python values from Python
    values (``[t.name for t in tensors]``), idiomatic as they are, and are not reported."""
    if info.form == "tf.map_fn":
        return True
    if info.form == "list comprehension" and info.library == "python" and info.array_consumer:
        # `sum([w[i] * x[i] for i in range(n)])`: no library call, but it indexes by its index
        space = info.space
        return space is not None and space.kind in ("range", "enumerate") and any(
            isinstance(n, gast.Subscript) and any(isinstance(m, gast.Name) and m.id == space.induction
                                                  for m in gast.walk(n.slice))
            for n in gast.walk(info.node.elt))
    if info.library == "python":
        return False
    if info.form == "list comprehension":
        return info.array_consumer
    if info.form == "dict comprehension":
        return info.space is not None and info.space.kind in ("range", "enumerate")
    return False


_COMPREHENSION_FORMS = {gast.ListComp: "list comprehension", gast.DictComp: "dict comprehension",
                        gast.SetComp: "set comprehension", gast.GeneratorExp: "generator expression"}


def _implicit_loops(ctx, stmt):
    """Comprehensions and ``tf.map_fn`` calls in ``stmt``'s own expressions (not in its nested
    blocks, lambdas or definitions), outermost only: loops written as expressions."""
    body = getattr(stmt, "body", None)
    last = body[0].lineno - 1 if isinstance(body, list) and body else stmt.end_lineno
    header = "\n".join(ctx.lines[stmt.lineno - 1:max(stmt.lineno, last)])
    if "for" not in header and "map_fn" not in header:
        return []  # the text decides for most statements, without a walk
    fields = [value for name, value in gast.iter_fields(stmt)
              if name not in ("body", "orelse", "finalbody", "handlers", "cases", "decorator_list")]
    fields += [case.guard for case in getattr(stmt, "cases", ())]  # a match: its guards too
    stack = [v for value in fields for v in (value if isinstance(value, list) else [value])
             if isinstance(v, gast.AST)]
    found = []
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.Lambda, gast.FunctionDef, gast.ClassDef)):
            continue
        if type(node) in _COMPREHENSION_FORMS or (
                isinstance(node, gast.Call) and ctx.imports.resolve(node.func) == "tensorflow.map_fn"):
            if _may_build_array(ctx, node):
                found.append(node)
            continue
        stack.extend(gast.iter_child_nodes(node))
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _may_build_array(ctx, node) -> bool:
    """Cheap filter before a comprehension is analysed (see :func:`_array_building`): its list
    is consumed by ``tf.stack``/``np.array``/..., or it is a dict comprehension over a range."""
    if isinstance(node, gast.Call):
        return True  # tf.map_fn
    if isinstance(node, gast.DictComp):
        it = node.generators[0].iter
        return isinstance(it, gast.Call) and ctx.imports.resolve(it.func) in (
            "builtins.range", "numpy.arange", "tensorflow.range")
    parent = ctx.parents.get(id(node))
    if isinstance(node, gast.ListComp) and isinstance(parent, gast.Assign) and parent.value is node \
            and len(parent.targets) == 1 and isinstance(parent.targets[0], gast.Name):
        return True  # `rows = [...]`: the analysis asks how `rows` is read
    return isinstance(node, gast.ListComp) and isinstance(parent, gast.Call) and \
        _consumer_kind(ctx, parent, node) is not None


def _located(node, where):
    gast.copy_location(node, where)
    node.end_lineno, node.end_col_offset = where.end_lineno, where.end_col_offset
    return node


def _implicit_loop_info(ctx, node, qualname, function) -> LoopInfo:
    """A LoopInfo for a comprehension or a ``tf.map_fn`` call, with a synthetic body.

    A list comprehension (or generator) ``[e for t in s if c]`` is analysed as the loop
    ``for t in s: if c: <comprehension>.append(e)``, whose collector is the comprehension
    itself; a dict comprehension as ``for t in s: if c: (k, v)``; ``tf.map_fn(fn, elems)`` as
    ``for row in elems: fn(row)``.
    """
    info = LoopInfo(node, qualname, function, None)
    if isinstance(node, gast.Call):
        info.form = "tf.map_fn"
        fn = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "fn"), None)
        elems = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == "elems"), None)
        if fn is None or elems is None:
            return info
        if isinstance(fn, gast.Lambda) and len(fn.args.args) == 1 and not fn.args.defaults:
            info.space = Space("rows", items=[(fn.args.args[0], elems)])
            info.body = [_located(gast.Expr(value=fn.body), fn.body)]
        else:
            row = _located(gast.Name(id="<row>", ctx=gast.Load(), annotation=None, type_comment=None), fn)
            info.space = Space("rows", items=[(_located(gast.Name(id="<row>", ctx=gast.Store(),
                                                                   annotation=None, type_comment=None), fn),
                                                elems)])
            call = _located(gast.Call(func=fn, args=[row], keywords=[]), fn)
            info.body = [_located(gast.Expr(value=call), fn)]
        return info
    info.form = _COMPREHENSION_FORMS[type(node)]
    parent = ctx.parents.get(id(node))
    info.array_consumer = isinstance(parent, gast.Call) and _consumer_kind(ctx, parent, node) is not None
    if len(node.generators) != 1 or node.generators[0].is_async:
        return info
    generator = node.generators[0]
    info.space = for_space(generator, ctx.imports)
    if isinstance(node, gast.DictComp):
        element = _located(gast.Expr(value=_located(
            gast.Tuple(elts=[node.key, node.value], ctx=gast.Load()), node.key)), node.key)
    elif isinstance(node, gast.SetComp):
        element = _located(gast.Expr(value=node.elt), node.elt)
    else:
        receiver = _located(gast.Attribute(
            value=_located(gast.Name(id=COMPREHENSION, ctx=gast.Load(), annotation=None,
                                     type_comment=None), node.elt),
            attr="append", ctx=gast.Load()), node.elt)
        element = _located(gast.Expr(value=_located(gast.Call(func=receiver, args=[node.elt], keywords=[]),
                                                    node.elt)), node.elt)
    body = [element]
    for test in reversed(generator.ifs):
        body = [_located(gast.If(test=test, body=body, orelse=[]), test)]
        body[0].end_lineno, body[0].end_col_offset = element.end_lineno, element.end_col_offset
    info.body = body
    return info


def _generated(ctx, fdef) -> bool:
    """A body function pforge generated: its ``def`` follows a ``# pforge: vectorized`` marker."""
    first = min([fdef.lineno] + [d.lineno for d in fdef.decorator_list])
    return marker_above(ctx.lines, first).startswith("# pforge: vectorized")


def _child_blocks(stmt):
    if isinstance(stmt, gast.If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        return [stmt.body]
    if isinstance(stmt, TRY_STATEMENTS):
        return [stmt.body, *[h.body for h in stmt.handlers], stmt.orelse, stmt.finalbody]
    if isinstance(stmt, gast.AsyncFor):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, gast.Match):
        return [case.body for case in stmt.cases]
    return []


def _normalise_continue(tree: gast.Module) -> None:
    """``if c: continue`` followed by ``rest`` at the top of a loop body becomes ``if not c: rest``.

    Adapted from AutoGraph's ``continue_statements`` converter: the rest of the body runs
    exactly when the guard is false, so the rewrite keeps the iteration's effects.
    """
    for node in list(_statements(tree)):
        if isinstance(node, (gast.For, gast.While)):
            node.body = _guard_rest(node.body)


def _split_tuple_assignments(ctx) -> bool:
    """``a, b = a + x, b + y`` in a loop body becomes ``a = a + x`` then ``b = b + y``, so each
    name is seen as the reduction, or the private value, it is. Only where the order makes no
    difference: the targets are distinct plain names, no value reads a target bound before it
    (``a, b = b, a`` stays), and nothing else can see the names between the two bindings (no
    ``global``/``nonlocal`` of them, no nested function or lambda in the enclosing function).
    Statements are walked, not expressions, except in a function that holds such an assignment.
    Returns whether anything changed."""
    changed = False
    private: dict[int, bool] = {}  # per enclosing function: nothing else sees its names
    for loop in list(_statements(ctx.tree)):
        if not isinstance(loop, (gast.For, gast.While)):
            continue
        for node in _statements(loop):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if not isinstance(block, list) or not any(_independent_parts(st) for st in block):
                    continue
                scope = _enclosing_scope(ctx, loop)
                if id(scope) not in private:
                    private[id(scope)] = _private_names(scope)
                if private[id(scope)]:
                    setattr(node, field, [part for st in block for part in _split(st)])
                    changed = True
    return changed


def _independent_parts(stmt) -> bool:
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], (gast.Tuple, gast.List))
            and isinstance(stmt.value, (gast.Tuple, gast.List))
            and len(stmt.targets[0].elts) == len(stmt.value.elts) > 1):
        return False
    targets = stmt.targets[0].elts
    if not all(isinstance(t, gast.Name) for t in targets) or len({t.id for t in targets}) != len(targets):
        return False
    if any(isinstance(n, (gast.Starred, gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
           for v in stmt.value.elts for n in gast.walk(v)):
        return False
    for k, value in enumerate(stmt.value.elts):
        earlier = {t.id for t in targets[:k]}
        if any(isinstance(n, gast.Name) and n.id in earlier for n in gast.walk(value)):
            return False
    return True


def _split(stmt):
    if not _independent_parts(stmt):
        return [stmt]
    parts = []
    for target, value in zip(stmt.targets[0].elts, stmt.value.elts):
        part = gast.Assign(targets=[target], value=value, type_comment=None)
        gast.copy_location(part, stmt)
        part.end_lineno, part.end_col_offset = stmt.end_lineno, stmt.end_col_offset
        parts.append(part)
    return parts


def _guard_rest(body):
    for k, stmt in enumerate(body):
        if (isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1
                and isinstance(stmt.body[0], gast.Continue)):
            rest = _guard_rest(body[k + 1:])
            if not rest:
                return body[:k]
            guard = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=stmt.test), body=rest, orelse=[])
            gast.copy_location(guard, stmt)
            guard.end_lineno, guard.end_col_offset = rest[-1].end_lineno, rest[-1].end_col_offset
            return body[:k] + [guard]
    return body


def _analyse_level(ctx: ModuleContext, info: LoopInfo) -> None:
    loop = info.node
    if info.space is None and info.form != "loop":
        what = ("`tf.map_fn` with a function of one argument and `elems`" if info.form == "tf.map_fn"
                else f"a {info.form} with one `for` clause over a range, rows, enumerate or zip")
        info.block("PF213", f"only {what} is modelled")
        _detect_library(ctx, info, list(_scope_nodes([loop])))
        return
    if info.space is None:
        if isinstance(loop, gast.While):
            info.block("PF207", "while loop whose exit depends on values computed in the loop; "
                       "only counted loops (`v = a; while v < b: ...; v += 1`) are vectorized")
        else:
            info.block("PF213", f"iteration space `{gast.unparse(loop.iter).strip()}` is not "
                       "one pforge models (range, rows, enumerate, zip)")
    if getattr(loop, "orelse", None):
        info.block("PF211", "`for ... else` is not vectorized")
    fold_dead_branches(info)
    body = info.body
    nodes = list(_scope_nodes(body))
    node_ids = {id(n) for n in gast.walk(loop)}  # uses in lambdas in the loop are inside it
    targets = info.space.target_names() if info.space else set()
    stored = _stored_names(body)
    if info.space and info.space.kind == "while":
        stored.pop(info.space.induction, None)

    _trip_count_notes(info)
    _structural_blockers(ctx, info, nodes)
    _find_tensorarrays(info, body, stored)
    _find_collectors(ctx, info, nodes, node_ids, stored)
    _comprehension_collector(ctx, info, nodes)
    find_packs(info, body)
    _find_arg_reductions(info, body, stored)
    _find_reductions(ctx, info, body, stored)
    _find_derived(info, body, stored, targets)
    _find_scans(ctx, info, body, stored)
    _classify_scalars(ctx, info, body, stored, targets, node_ids)
    _check_subscripts(ctx, info, nodes, stored, targets)
    _check_calls(ctx, info, nodes)
    _detect_library(ctx, info, nodes)
    _check_inplace_views(ctx, info, nodes, stored)
    check_live_out(info, body, stored, targets | ({info.space.induction} if info.space else set()))
    for name in sorted({n.id for n in nodes if isinstance(n, gast.Name)} - set(info.classes)):
        info.classes[name] = INVARIANT
