"""Lists built in a loop: ``append`` collectors consumed once after the loop (a filter when
some iterations do not append), comprehensions, and ``tf.TensorArray`` writes."""

from __future__ import annotations

import gast

from pforge.transpile.analysis.facts import COLLECTOR, COMPREHENSION, INDEXED, Collector, WholeModuleNeeded
from pforge.transpile.analysis.classes import likely_library
from pforge.transpile.analysis.nodes import _binding, _scope_nodes, appended_item, prepends, reversed_operand
from pforge.transpile.consumers import ARRAY_READERS, BUILTIN_READERS, CONSUMERS

def _find_tensorarrays(info, body, stored):
    for node in _scope_nodes(body):
        if (isinstance(node, gast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Call)
                and isinstance(node.value.func, gast.Attribute) and node.value.func.attr == "write"
                and isinstance(node.value.func.value, gast.Name)
                and node.value.func.value.id == node.targets[0].id and len(node.value.args) == 2):
            info.tensorarrays.setdefault(node.targets[0].id, []).append(node)
    for name, writes in list(info.tensorarrays.items()):
        if len(stored.get(name, [])) != len(writes):
            del info.tensorarrays[name]
            continue
        info.classes[name] = INDEXED


def _find_collectors(ctx, info, nodes, node_ids, stored):
    appends: dict[str, list[gast.Call]] = {}
    receivers: set[int] = set()
    for node in nodes:
        if appended_item(node) is not None and isinstance(ctx.parents.get(id(node)), gast.Expr):
            appends.setdefault(node.func.value.id, []).append(node)
            receivers.add(id(node.func.value))
    for name, calls in appends.items():
        if name in stored:
            continue
        front = {prepends(c) for c in calls}
        if front == {True, False}:
            continue  # (items at both ends: no one order of the iterations)
        other_loads = [n for n in nodes if isinstance(n, gast.Name) and n.id == name
                       and id(n) not in receivers]
        if other_loads:
            continue
        defs = ctx.definitions_of(calls[0].func.value)
        if len(defs) != 1:
            continue
        def_node = defs[0].node
        if id(def_node) in node_ids:
            continue
        init, value = _binding(ctx, def_node)
        if init is None or not _is_list(ctx, value):
            continue
        outside = [u for u in ctx.users_of(def_node) if id(u) not in node_ids]
        earlier = [u for u in outside if (u.lineno, u.col_offset) < (info.node.lineno, info.node.col_offset)]
        if not _unaliased_before(ctx, earlier, nodes):
            continue
        backwards = False
        if len(outside) == 1 and not earlier and _is_empty_list(ctx, value):
            consumer = ctx.parents.get(id(outside[0]))
            kind = _consumer_kind(ctx, consumer, outside[0])
            if reversed_operand(consumer) is outside[0] and isinstance(consumer.ctx, gast.Load):
                # `tf.stack(rows[::-1])`: the stack of the items in the opposite order, the
                # batched value reversed along the loop axis (a concatenation would reverse the
                # blocks, not the rows)
                outer = ctx.parents.get(id(consumer))
                if _consumer_kind(ctx, outer, consumer) in ("stack", "array"):
                    consumer, kind, backwards = outer, _consumer_kind(ctx, outer, consumer), True
            unzipped = _unzipped(ctx, outside[0])
            if unzipped is not None:
                kind, consumer = "unzip", unzipped
            if kind == "list":
                consumer = outside[0]  # the name itself: the rebuilt list takes its place
            if kind is None and _appended_to_a_list(ctx, info, outside[0]):
                # `row = []; for j ...: row.append(v); D.append(row)` in an outer loop's body:
                # the row is the inner loop's batched value, an item of the outer collector
                kind, consumer = "nested", outside[0]
        else:
            # A list with items before the loop, or used more than once after it (`edges =
            # [first]; for ...: edges.append(row); edges.append(last)`): the loop only
            # appends, so the batched code extends it with the items in order.
            consumer, kind = None, "extend"
        if kind is None:
            continue
        if True in front and (backwards or kind not in ("stack", "array", "list")):
            continue  # (items put at the front: read once, in the list's order, as a stack, an array or the list)
        low, high = _append_counts(info.body, {id(c) for c in calls})
        conditional = low != high  # some iterations append fewer: a filter
        info.collectors[name] = Collector(name, init, calls, consumer, kind, conditional, backwards, True in front)
        info.classes[name] = COLLECTOR


def _unzipped(ctx, use):
    """``[tf.stack(g) for g in zip(*grads)]`` around ``use`` (``grads``), or None.

    The list holds one list (or tuple) per iteration, one item per position (the gradients of
    a list of variables); the comprehension stacks each position's items: what
    ``tf.vectorized_map`` returns for a body that returns the list (Agarwal & Ganichev 2019,
    per-example gradients).
    """
    star = ctx.parents.get(id(use))
    call = ctx.parents.get(id(star))
    gen = ctx.parents.get(id(call))
    comp = ctx.parents.get(id(gen))
    if not (isinstance(star, gast.Starred) and isinstance(call, gast.Call) and call.args == [star]
            and not call.keywords and ctx.imports.resolve(call.func) == "builtins.zip"
            and isinstance(gen, gast.comprehension) and gen.iter is call and not gen.ifs and not gen.is_async
            and isinstance(gen.target, gast.Name) and isinstance(comp, gast.ListComp)
            and comp.generators == [gen]):
        return None
    elt = comp.elt
    if isinstance(elt, gast.Call) and ctx.imports.resolve(elt.func) == "tensorflow.stack" \
            and len(elt.args) == 1 and not elt.keywords and isinstance(elt.args[0], gast.Name) \
            and elt.args[0].id == gen.target.id:
        return comp
    return None


def _unaliased_before(ctx, uses, nodes) -> bool:
    """Whether the list a loop appends to is reached by no other name the loop reads, given its
    ``uses`` before the loop: ``other = out`` binds a second name (the batched code must then
    extend the one object, and the loop must not read ``other``, whose items it would see grow);
    any other use but ``len(out)`` may keep the object anywhere (``register(out)``)."""
    loaded = {n.id for n in nodes if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    for use in uses:
        parent = ctx.parents.get(id(use))
        if isinstance(parent, gast.Call) and parent.args == [use] and not parent.keywords \
                and ctx.imports.resolve(parent.func) == "builtins.len":
            continue
        if isinstance(parent, gast.Assign) and parent.value is use and all(
                isinstance(t, gast.Name) for t in parent.targets):
            if {t.id for t in parent.targets} & loaded:
                return False
            continue
        return False
    return True


def _appended_to_a_list(ctx, info, use) -> bool:
    """``use`` (the list a loop builds) is the argument of ``other.append(use)``, a statement of
    the body of the loop around it (under ``if``s at most), in NumPy code."""
    call = ctx.parents.get(id(use))
    outer = info.parent
    if not (outer is not None and isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and call.func.attr == "append" and isinstance(call.func.value, gast.Name) and call.args == [use]
            and not call.keywords and isinstance(ctx.parents.get(id(call)), gast.Expr)
            ):
        return False
    node = ctx.parents.get(id(ctx.parents.get(id(call))))
    while isinstance(node, gast.If):  # in the outer body, perhaps under an `if` (a filter)
        node = ctx.parents.get(id(node))
    return node is outer.node


def _comprehension_collector(ctx, info, nodes):
    """A list comprehension or generator is a collector; its consumer is the call around it."""
    if info.form not in ("list comprehension", "generator expression", "set comprehension"):
        return
    if info.form == "set comprehension":
        info.block("PF211", "a set comprehension's order and duplicates are not modelled")
        return
    calls = [n for n in nodes if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
             and isinstance(n.func.value, gast.Name) and n.func.value.id == COMPREHENSION]
    parent = ctx.parents.get(id(info.node))
    kind = _consumer_kind(ctx, parent, info.node) if isinstance(parent, gast.Call) else None
    if kind == "array" and info.form != "list comprehension":
        kind = None  # `np.sum(v for v in x)` does not read a generator as an array
    kind = kind if kind in ("stack", "concat", "array") else None
    if kind is None and _read_as_an_array_later(ctx, info, parent):
        kind = "array"  # `rows = [f(x) for x in X]`, then only `np.array(rows)` and the like
        info.array_consumer = True
    low, high = _append_counts(info.body, {id(c) for c in calls})
    info.collectors[COMPREHENSION] = Collector(COMPREHENSION, None, calls, parent if kind else None,
                                               kind or "", low != high)
    info.classes[COMPREHENSION] = COLLECTOR


def _read_as_an_array_later(ctx, info, parent) -> bool:
    """``name = [comprehension]`` where every read of that binding takes it as an array: the
    first argument of a call of :data:`CONSUMERS`, :data:`ARRAY_READERS` or ``len``/``sum``/
    ``max``/``min`` (def-use chains; a method call, an index, a second binding reaching a read
    all keep the list)."""
    if info.form != "list comprehension" or not isinstance(parent, gast.Assign) or len(parent.targets) != 1 \
            or not isinstance(parent.targets[0], gast.Name) or parent.value is not info.node:
        return False
    try:
        users = ctx.users_of(parent.targets[0])
        if not users:
            return False
        for use in users:
            call = ctx.parents.get(id(use))
            if not isinstance(use, gast.Name) or ctx.definitions_of(use) and \
                    [d.node for d in ctx.definitions_of(use)] != [parent.targets[0]]:
                return False
            if not (isinstance(call, gast.Call) and call.args and call.args[0] is use
                    and (_consumer_kind(ctx, call, use) in ("stack", "concat", "array")
                         or ctx.imports.resolve(call.func) == "builtins.len" and len(call.args) == 1)):
                return False
    except WholeModuleNeeded:
        return False
    return True


def _is_list(ctx, value) -> bool:
    """A list display (``[first]``, ``[]``) or ``list()``: the binding makes a new list."""
    return isinstance(value, gast.List) or _is_empty_list(ctx, value)


def _is_empty_list(ctx, value) -> bool:
    if isinstance(value, gast.List) and not value.elts:
        return True
    return (isinstance(value, gast.Call) and ctx.imports.resolve(value.func) == "builtins.list"
            and not value.args)


def _consumer_kind(ctx, call, arg) -> str | None:
    """How the one use after the loop takes the list: ``stack``/``concat`` (a stacking call,
    which a TensorFlow rewrite replaces by the batched value), ``array`` (a NumPy function that
    reads it as an array, ``np.argmax(scores)``: NumPy rewrites only) or ``list`` (anything else,
    ``return labels``: the NumPy rewrite rebuilds the list from the batched value); None for a
    comprehension's parent that is not a call taking it first."""
    if not isinstance(call, gast.Call) or not call.args or call.args[0] is not arg:
        return "list" if arg is not None and not isinstance(call, gast.Call) else None
    callee = ctx.imports.resolve(call.func) or ""
    kind = CONSUMERS.get(callee)
    if kind is None:
        if callee in BUILTIN_READERS:
            return "array" if len(call.args) == 1 and not call.keywords else None
        return "array" if callee in ARRAY_READERS else None
    axis = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "axis"), None)
    if axis is not None and not (isinstance(axis, gast.Constant) and axis.value == 0) and not (
            callee.startswith("numpy.") and _int_literal(axis)):
        # NumPy's consumer stays, applied to the batched array, whose rows are the items the
        # list held: `np.stack(rows, axis=1)` is the same call on either. TensorFlow's is
        # replaced by the batched value, which is stacked on axis 0.
        return None
    if kind == "concat" and axis is None and (ctx.imports.resolve(call.func) or "").startswith("tensorflow"):
        return None
    allowed = {"axis", "dtype", "name"}
    if any(k.arg not in allowed for k in call.keywords):
        return None
    return kind


def _int_literal(node) -> bool:
    """``1`` or ``-1``: an axis written as an integer."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Constant) and type(node.value) is int


def _append_counts(stmts, calls) -> tuple[int, int]:
    """Fewest and most of ``calls`` one iteration can run (``(1, 1)``: exactly one, a map)."""
    low = high = 0
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            a, b = _append_counts(stmt.body, calls), _append_counts(stmt.orelse, calls)
            low, high = low + min(a[0], b[0]), high + max(a[1], b[1])
        elif isinstance(stmt, (gast.For, gast.While)):
            _, inner = _append_counts(stmt.body, calls)
            high += 2 * inner  # a loop may run any number of times
        elif isinstance(stmt, (gast.With, gast.AsyncWith)):
            a, b = _append_counts(stmt.body, calls)
            low, high = low + a, high + b
        elif any(id(n) in calls for n in gast.walk(stmt)):
            low, high = low + 1, high + 1
    return low, high
