"""Classes of the scalar names a loop body binds: induction and item, derived induction,
carried (read before written, PF201) or private; names a branch keeps to itself."""

from __future__ import annotations

import copy

import gast

from pforge.transpile.analysis.facts import CARRIED, DERIVED, INDUCTION, ITEM, PRIVATE, WRAPAROUND, LoopInfo
from pforge.transpile.analysis.nodes import _loaded_names, substituted


def _find_derived(info, body, stored, targets):
    """Derived induction variables: every binding of the name in the body is an update ``j += c``
    (``j = j + c``, ``-=``) that is a statement of the body itself, each ``c`` reading no name
    the body binds; an iteration then adds the sum of the steps (TSVC's s127 updates twice)."""
    if info.space is None or info.space.kind not in ("range", "while", "enumerate"):
        return
    carried = getattr(info.node, "pforge_carried", {})
    for name, stores in stored.items():
        if name in info.classes or name in targets or not stores:
            continue
        if name in carried:
            # an array's element carried in a name (`a[i] = a[i - 1] + 1`): a scan from that
            # element, whose steps the loop rounds or wraps one by one, not `start + k * step`
            continue
        updates = [next((s for s in body if any(n is store for n in gast.walk(s))), None) for store in stores]
        if any(stmt is None or _derived_step(stmt, name) is None for stmt in updates):
            continue  # not at the top level of the body, or not an update
        if any({n.id for n in _loaded_names(_derived_step(stmt, name))} & (set(stored) | targets)
               for stmt in updates):
            continue
        info.derived[name] = tuple(sorted(updates, key=lambda stmt: next(k for k, s in enumerate(body) if s is stmt)))
        info.classes[name] = DERIVED


def _derived_step(stmt, name):
    """The step ``c`` of ``stmt`` when it is ``name += c``, ``name -= c`` or ``name = name ± c``
    (the sign is the operator's), else None."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)) \
            and isinstance(stmt.target, gast.Name) and stmt.target.id == name:
        return stmt.value
    if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == name and isinstance(stmt.value, gast.BinOp)
            and isinstance(stmt.value.op, (gast.Add, gast.Sub))
            and isinstance(stmt.value.left, gast.Name) and stmt.value.left.id == name):
        return stmt.value.right
    return None


def signed_step(stmt, name):
    """What the update ``stmt`` of the derived variable ``name`` adds: its step, negated
    (``-c``) for ``-=`` and ``name - c``."""
    step = _derived_step(stmt, name)
    if isinstance(stmt.op if isinstance(stmt, gast.AugAssign) else stmt.value.op, gast.Sub):
        return gast.UnaryOp(op=gast.USub(), operand=copy.deepcopy(step))
    return step


def _wraparound(info, body, name, stored, targets, wraps) -> gast.Assign | None:
    """``w = E`` as the last binding of ``w`` in a counted loop, where every read of ``w`` comes
    before it and ``E`` reads only the loop index and names the body does not bind, and no
    element the loop writes: iteration ``k`` reads ``E`` of iteration ``k - 1`` (the first, the
    value before the loop), which depends on no iteration's work (a wrap-around variable,
    Allen & Kennedy, "Optimizing Compilers for Modern Architectures", section 5.5; TSVC's
    s291). None when ``name`` is no such variable."""
    space = info.space
    # (a comprehension's `for` is no statement: `[x := x + 1 for _ in range(2)]`)
    if space is None or space.kind != "range" or not isinstance(getattr(info.node, "target", None), gast.Name) \
            or len(stored[name]) != 1:
        return None
    # (every binding in the body is inside one of its statements)
    position = next(k for k, s in enumerate(body) if any(n is stored[name][0] for n in gast.walk(s)))
    stmt = body[position]
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return None
    if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
           for s in body[position:] for n in gast.walk(s)):
        return None  # read after (or by) its binding
    written = {n.value.id for s in body for n in gast.walk(s)
               if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name)}
    # their previous values (a binding with privates substituted stands for its statement)
    later = {w for w, bound in wraps.items() if body.index(getattr(bound, "pforge_original", bound)) > position}
    value = stmt.value
    for _ in range(8):
        # a private the body binds once before, from the index and invariants (`s = b[i] * c[i]`
        # then `t = s`: TSVC's s252), is its value: forward substitution (Allen & Kennedy 4.5.2)
        privates = {n.id for n in _loaded_names(value)} & set(stored) - targets - later - written
        bindings = {p: _private_binding(body[:position], p, stored) for p in privates}
        if not privates or any(b is None for b in bindings.values()):
            break
        value = substituted(value, {p: b.value for p, b in bindings.items()})
    read = {n.id for n in _loaded_names(value)}
    if read & ((set(stored) | written) - targets - later) or any(
            isinstance(n, (gast.Call, gast.Lambda, gast.NamedExpr, gast.Yield, gast.Await)) for n in gast.walk(value)):
        return None
    if value is not stmt.value:
        # (the binding with the privates' values in place, where the printers read `E`)
        binding = gast.copy_location(gast.Assign(targets=[copy.deepcopy(stmt.targets[0])], value=value,
                                                 type_comment=None), stmt)
        binding.pforge_original = stmt
        return binding
    return stmt


def _private_binding(stmts, name, stored) -> gast.Assign | None:
    """The one binding of ``name`` in the body, ``name = E`` among ``stmts`` (statements of the
    body itself, before the one that reads it), with no read of ``name`` before it; else None."""
    if len(stored[name]) != 1:
        return None
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is stored[name][0]:
            if any(isinstance(n, gast.Name) and n.id == name for s in stmts[:k] for n in gast.walk(s)) \
                    or any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(stmt.value)):
                return None
            return stmt
    return None


def _live_around(ctx, info, name):
    """The innermost loop around ``info``'s loop, in its function, whose body may read ``name``
    before binding it (a wrap-around variable's last value reaching the next run of the inner
    loop through the outer loop's back edge), or None."""
    node = ctx.parents.get(id(info.node))
    while node is not None and not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
        if isinstance(node, (gast.For, gast.While)):
            exposed: dict[str, gast.Name] = {}
            _exposed_reads(node.body, set(), {name}, exposed)
            if name in exposed:
                return node
        node = ctx.parents.get(id(node))
    return None


def _exposed_reads(stmts, defined, assigned, out):
    """Must-define scan: records loads of ``assigned`` names not yet defined in the iteration.

    Returns the names definitely defined after ``stmts``. A branch ending in ``continue``,
    ``break`` or ``return`` does not fall through, so it defines everything.
    """
    everything = set(assigned)
    for stmt in stmts:
        if isinstance(stmt, (gast.Continue, gast.Break, gast.Return, gast.Raise)):
            _record(_loaded_names(stmt), defined, assigned, out)
            return everything
        if isinstance(stmt, gast.If):
            _record(_loaded_names(stmt.test), defined, assigned, out)
            left = _exposed_reads(stmt.body, set(defined), assigned, out)
            right = _exposed_reads(stmt.orelse, set(defined), assigned, out)
            defined = left & right
        elif isinstance(stmt, gast.For):
            _record(_loaded_names(stmt.iter), defined, assigned, out)
            inner = set(defined) | {n.id for n in gast.walk(stmt.target) if isinstance(n, gast.Name)}
            _exposed_reads(stmt.body, inner, assigned, out)
        elif isinstance(stmt, gast.While):
            _record(_loaded_names(stmt.test), defined, assigned, out)
            _exposed_reads(stmt.body, set(defined), assigned, out)
        elif isinstance(stmt, (gast.With, gast.AsyncWith)):
            for item in stmt.items:
                _record(_loaded_names(item.context_expr), defined, assigned, out)
                if item.optional_vars is not None:
                    defined |= {n.id for n in gast.walk(item.optional_vars) if isinstance(n, gast.Name)}
            defined = _exposed_reads(stmt.body, defined, assigned, out)
        elif isinstance(stmt, gast.AugAssign):
            _record(_loaded_names(stmt.value), defined, assigned, out)
            if isinstance(stmt.target, gast.Name):
                _record([stmt.target], defined, assigned, out)
                defined.add(stmt.target.id)
            else:
                _record(_loaded_names(stmt.target), defined, assigned, out)
        elif isinstance(stmt, (gast.Assign, gast.AnnAssign)):
            if stmt.value is not None:
                _record(_loaded_names(stmt.value), defined, assigned, out)
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            for target in targets:
                _record(_loaded_names(target), defined, assigned, out)
                defined |= {n.id for n in gast.walk(target)
                            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        else:
            _record(_loaded_names(stmt), defined, assigned, out)
    return defined


def _record(names, defined, assigned, out):
    for name in names:
        if name.id in assigned and name.id not in defined and name.id not in out:
            out[name.id] = name


def _classify_scalars(ctx, info, body, stored, targets, node_ids):
    for name in sorted(targets):  # a set: sorted, so the remarks come in a fixed order
        info.classes[name] = INDUCTION if name == (info.space.induction if info.space else None) else ITEM
        if name in stored:
            info.block("PF211", f"the loop variable `{name}` is reassigned in the body",
                       stored[name][0])
    if isinstance(info.node, gast.For):
        for store in gast.walk(info.node.target):
            if isinstance(store, gast.Name) and isinstance(store.ctx, gast.Store):
                outside = [u for u in ctx.users_of(store) if id(u) not in node_ids]
                if outside and _last_target(ctx, info, store.id):
                    info.live_targets.add(store.id)
                elif outside:
                    info.block("PF212", f"the loop variable `{store.id}` is used after the loop "
                               f"(line {outside[0].lineno}); it holds the last iteration's value, "
                               "which pforge takes only for a name bound by `range`, `reversed(range)`, "
                               "or the rows of a sequence (`for row in x`, `enumerate`, `zip`)",
                               outside[0])
    assigned = {n for n in stored if n not in info.classes}
    exposed: dict[str, gast.Name] = {}
    _exposed_reads(body, set(), assigned, exposed)
    # wrap-around variables last to first in the body: `im2 = im1` before `im1 = i` reads the
    # previous iteration's `im1`, itself one (TSVC s292)
    wraps: dict[str, gast.Assign] = {}
    for name in sorted(exposed, key=lambda n: -max(s.lineno for s in stored[n]) if n in stored else 0):
        if name in assigned:
            found = _wraparound(info, body, name, stored, targets, wraps)
            if found is not None:
                wraps[name] = found
    for name in sorted(assigned):
        wrap = wraps.get(name)
        if wrap is not None:
            info.classes[name] = WRAPAROUND
            info.wraparound[name] = wrap
            info.dependences.append(f"{name}: read at line {exposed[name].lineno} before it is written at line "
                                    f"{wrap.lineno}, from the loop index only (a wrap-around variable)")
            for store in stored[name]:
                outside = [u for u in ctx.users_of(store) if id(u) not in node_ids]
                if outside:
                    info.block("PF212", f"`{name}` is used after the loop (line {outside[0].lineno}); "
                               "it holds only the last iteration's value", outside[0])
                    break
            around = _live_around(ctx, info, name)
            if around is not None:
                info.block("PF212", f"`{name}` keeps its last value into the next iteration of the loop at "
                           f"line {around.lineno}, whose next run of this loop starts from it", around)
            continue
        if name in exposed:
            read = exposed[name]
            write = stored[name][0]
            info.classes[name] = CARRIED
            info.dependences.append(f"{name}: read at line {read.lineno} before it is written "
                                    f"at line {write.lineno} (loop-carried)")
            hint = _recurrence_hint(ctx, info)
            info.block("PF201", f"`{name}` is read at line {read.lineno} before it is written at "
                       f"line {write.lineno}, so each iteration needs the previous one's value"
                       f"{hint}", read)
            continue
        info.classes[name] = PRIVATE
        for store in stored[name]:
            outside = [u for u in ctx.users_of(store) if id(u) not in node_ids]
            if outside:
                info.live_out[name] = outside[0]  # decided once the writes are known: :func:`check_live_out`
                break


def _last_target(ctx, info: LoopInfo, name: str) -> bool:
    """Whether the batched code can give the loop variable ``name`` the value the loop leaves it
    (the last iteration's; the loop's own where it runs no iteration): the index of
    ``range(...)`` or ``reversed(range(...))``, a Python int at ``stop - 1`` or
    ``range(...)[-1]``; the index of ``enumerate``; a name bound to the rows of a sequence
    (``for row in x``, ``enumerate``, ``zip``), its last row ``x[-1]``. Not the index of
    ``np.arange`` or ``tf.range`` (an array scalar or a tensor), nor a row unpacked
    (``for a, b in pairs``)."""
    space = info.space
    if space is None:
        return False
    if space.kind == "range":
        callee = ctx.imports.resolve(info.node.iter.func) if isinstance(info.node.iter, gast.Call) else None
        return name == space.induction and callee in ("builtins.range", "builtins.reversed")
    if space.kind == "enumerate" and name == space.induction:
        return True
    return space.kind in ("rows", "enumerate") and any(
        isinstance(target, gast.Name) and target.id == name for target, _ in space.items)


def check_live_out(info: LoopInfo, body, stored, targets) -> None:
    """A private used after the loop holds the last iteration's value: the same as every
    iteration's where one unconditional statement of the body binds it to a value of the loop's
    invariants only (``n_cols = picture[1].size``), which the batched code computes once; the
    last of the batched values where one unconditional statement binds it to anything else
    (``lastprivate``); else the loop stays (PF212). An invariant is
    a name the loop neither binds (its index and items among them) nor writes elements or
    attributes of, read by no random draw."""
    if not info.live_out:
        return
    written = set(stored) | set(targets) | set(info.arrays) | set(info.mutated_args) | {
        n.value.id for s in body for n in gast.walk(s)
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, (gast.Store, gast.Del))
        and isinstance(n.value, gast.Name)}
    draws = {id(c) for c in info.random_draws}
    for name, use in sorted(info.live_out.items()):
        bound = [s for s in body if isinstance(s, gast.Assign) and len(s.targets) == 1
                 and isinstance(s.targets[0], gast.Name) and s.targets[0].id == name]
        if len(stored[name]) == 1 and len(bound) == 1 and not any(id(n) in draws for n in gast.walk(bound[0].value)) \
                and not {n.id for n in _loaded_names(bound[0].value)} & written:
            info.live_invariants.add(name)
            continue
        if len(stored[name]) == 1 and len(bound) == 1:
            # (a statement of the body itself: every iteration runs it, since a leading
            # `if c: continue` has become an `if` around the rest, and any other `continue`
            # keeps the loop, PF211)
            info.live_last.add(name)
            continue
        conditional = _under_tests(body, stored[name][0]) if len(stored[name]) == 1 else None
        if conditional is not None and not any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
                                               for s in body for n in gast.walk(s)) \
                and not any(id(n) in draws for n in gast.walk(conditional.value)):
            info.live_conditional[name] = conditional
            continue
        info.block("PF212", f"`{name}` is used after the loop (line {use.lineno}); "
                   "it holds only the last iteration's value", use)


def _under_tests(stmts, store) -> gast.Assign | None:
    """The statement ``name = E`` that binds ``store``, where it lies under one or more ``if``
    statements of ``stmts`` and in nothing else (no loop, no ``with``); else None."""
    for stmt in stmts:
        if not isinstance(stmt, gast.If):
            continue
        for branch in (stmt.body, stmt.orelse):
            for inner in branch:
                if isinstance(inner, gast.Assign) and len(inner.targets) == 1 and inner.targets[0] is store:
                    return inner
            found = _under_tests(branch, store)
            if found is not None:
                return found
    return None


def read_outside(info: LoopInfo, node: gast.AST) -> set[str]:
    """Names the loop body of ``info`` reads outside ``node`` (a statement of that body)."""
    inside = {id(n) for n in gast.walk(node)}
    return {n.id for s in info.body for n in gast.walk(s)
            if id(n) not in inside and isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def likely_library(ctx, info) -> str | None:
    """The library a loop's remarks should speak, before the analysis decides it (it is decided
    after the classes): ``tensorflow`` when the loop calls it, or the module imports it and the
    loop calls no NumPy; else ``numpy`` when the module imports NumPy; else None."""
    modules = {target.split(".")[0] for target in ctx.imports.aliases.values()}
    calls = {(ctx.imports.resolve(n.func) or "").split(".")[0] for n in gast.walk(info.node)
             if isinstance(n, gast.Call)}
    if "tensorflow" in calls or ("tensorflow" in modules and "numpy" not in calls):
        return "tensorflow"
    return "numpy" if "numpy" in modules else None


def _recurrence_hint(ctx, info) -> str:
    """What a remark on a carried scalar suggests, in the loop's own library."""
    library = likely_library(ctx, info)
    if library == "tensorflow":
        return " (a recurrence: consider tf.scan)"
    if library == "numpy":
        return (" (a recurrence: np.cumsum, np.cumprod and np.maximum.accumulate compute running "
                "sums, products and maxima)")
    return ""
