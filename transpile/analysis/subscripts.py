"""Subscripted reads and writes of a loop body through the dependence test (PF202, PF203):
indexed outputs, scatter updates, whole-array uses and negative indices that wrap around."""

from __future__ import annotations

import collections
import itertools

import copy

import gast

from pforge.transpile import dependence
from pforge.transpile.analysis.aliasing import (_fresh_value, _merge_aliases, _shared_row_written,
                                                _through_shared_rows)
from pforge.transpile.analysis.classes import likely_library
from pforge.transpile.analysis.facts import CARRIED, INDEXED, INDUCTION, ITEM, PRIVATE
from pforge.transpile.analysis.nodes import _binding, _loaded_names, _statement_of
from pforge.transpile.operators import AUG_OPS
from pforge.transpile.spaces import constant_int


def helper_free_reads(info) -> dict[str, gast.Name]:
    """The names that helpers defined in the loop's function, and called by the loop (directly
    or through one another), read from the function around them (a closure's variables): name
    -> one such read. The loop reads them at each call, as if written in its body, though no
    name in the body shows it (``buf = out; def g(k): return buf[k - 1]``)."""
    fdef = info.function
    if fdef is None:
        return {}
    helpers = {n.name: n for n in gast.walk(fdef) if isinstance(n, gast.FunctionDef) and n is not fdef}
    found: dict[str, gast.Name] = {}
    seen: set[str] = set()
    todo = [n.func.id for n in gast.walk(info.node) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)]
    while todo:
        name = todo.pop()
        if name not in helpers or name in seen:
            continue
        seen.add(name)
        helper = helpers[name]
        bound = {n.id for n in gast.walk(helper) if isinstance(n, gast.Name)
                 and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del))}
        for n in gast.walk(helper):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in bound:
                found.setdefault(n.id, n)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
                todo.append(n.func.id)
    # the function's own variables (a builtin or a module's name is no array the loop writes)
    own = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
    return {name: node for name, node in found.items() if name not in helpers and name in own}


def _check_subscripts(ctx, info, nodes, stored, targets):
    writes: dict[str, list[dependence.Access]] = {}
    reads: dict[str, list[dependence.Access]] = {}
    # the names helpers read for the loop: read whole, at indices the loop's own cannot describe
    through_helpers = helper_free_reads(info)
    info.helper_reads = set(through_helpers)
    helper_accesses = {name: dependence.Access(name, [gast.Slice(lower=None, upper=None, step=None)], node)
                       for name, node in through_helpers.items()}
    for name, access in helper_accesses.items():
        reads.setdefault(name, []).append(access)
    aug_read_ids: set[int] = set()
    shared: dict[int, tuple[gast.Subscript, list[gast.AST], gast.AST]] = {}  # see _through_shared_rows
    for node in nodes:
        if isinstance(node, (gast.Assign, gast.AugAssign)):
            tlist = node.targets if isinstance(node, gast.Assign) else [node.target]
            for target in tlist:
                for sub in gast.walk(target):
                    if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store):
                        flat = dependence.flatten_subscript(sub)
                        if flat is None:
                            if not isinstance(sub.value, gast.Attribute):
                                info.block("PF203", f"cannot model the subscripted write "
                                           f"`{gast.unparse(sub).strip()}`", node)
                            else:
                                info.block("PF206", f"writes into `{gast.unparse(sub.value).strip()}`, "
                                           "an attribute", node)
                            continue
                        aug = _aug_kind(node, sub)
                        if aug:
                            aug_read_ids |= _same_subscript_reads(node, sub)
                        access = dependence.Access(flat[0], flat[1], node, True, aug)
                        writes.setdefault(flat[0], []).append(_through_shared_rows(ctx, access, sub, shared))
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
            parent = ctx.parents.get(id(node))
            if isinstance(parent, gast.Subscript) and parent.value is node:
                continue  # the outer subscript of a chain is the access
            flat = dependence.flatten_subscript(node)
            if flat is not None:
                reads.setdefault(flat[0], []).append(dependence.Access(flat[0], flat[1], node))
            else:
                # a chain the model cannot number (`a[::-1][i]`, `a[:][i - 1]`: a slice renumbers
                # the dimensions after it) still reads `a`: as a whole, which no write of `a` by
                # index is independent of (helper-51)
                base = node
                while isinstance(base, gast.Subscript):
                    base = base.value
                if isinstance(base, gast.Name):
                    reads.setdefault(base.id, []).append(
                        dependence.Access(base.id, [gast.Slice(lower=None, upper=None, step=None)], node))
    for name, tas in info.tensorarrays.items():
        for assign in tas:
            writes.setdefault(name, []).append(
                dependence.Access(name, [assign.value.args[0]], assign, True))
        for node in nodes:
            if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                    and isinstance(node.func.value, gast.Name) and node.func.value.id == name
                    and node.func.attr != "write"):
                dims = [node.args[0]] if node.func.attr == "read" and node.args else [gast.Slice(None, None, None)]
                reads.setdefault(name, []).append(dependence.Access(name, dims, node))

    inductions = _derived_forms(info)
    if inductions:
        for access in [a for accesses in (writes, reads) for group in accesses.values() for a in group]:
            access.dims = [_induction_substituted(ctx, info, d, inductions, access.node) for d in access.dims]
    constants = _entry_constants(info, writes, reads, set(stored) | targets | _inner_targets(info))
    if constants:
        for access in [a for accesses in (writes, reads) for group in accesses.values() for a in group]:
            access.dims = [_constant_substituted(d, constants) for d in access.dims]
    defs = _affine_definitions(ctx, info, stored)
    if defs:
        for access in [a for accesses in (writes, reads) for group in accesses.values() for a in group]:
            access.dims = [_forward_substituted(ctx, d, defs, access.node) for d in access.dims]
    for name in {w.base for ws in writes.values() for w in ws if id(w) in shared} & set(reads):
        reads[name] = [_through_shared_rows(ctx, r, r.node, shared) for r in reads[name]]
    _merge_aliases(ctx, info, nodes + list(through_helpers.values()), writes, reads, stored)
    helper_ids = {id(a) for a in helper_accesses.values()}
    variant = (set(stored) | {n for n in targets if n != (info.space.induction if info.space else None)}
               | _inner_targets(info))
    induction = info.space.induction if info.space and info.space.kind != "rows" else None
    step_sign = info.space.step_sign() if info.space else None
    nest = _nest(info) if induction is not None else None
    bounds = dependence.Bounds.of_range(info.space.start, info.space.stop, info.space.step, variant,
                                        _nonnegative_names(info.function)) \
        if induction is not None and info.space.kind == "range" else None
    deferred: list[tuple] = []  # flow dependences statement reordering may resolve (see _reorder)
    ordered: set[str] = set()  # arrays whose output dependences the statement order resolves
    for name, wlist in sorted(writes.items()):
        cls = info.classes.get(name)
        if cls in (PRIVATE, ITEM, INDUCTION) or name in stored and cls is None:
            stores = stored.get(name, [])
            fresh = all(_fresh_value(ctx, _binding(ctx, s)[1]) for s in stores) and stores
            if cls == ITEM or not fresh:
                info.block("PF203", f"writes through `{name}`, which may be a view of another "
                           "array (make a copy first)", wlist[0].node)
            continue
        if name in stored and name not in info.tensorarrays:
            continue  # rebound in the body: handled as a scalar
        info.classes.setdefault(name, INDEXED)
        pack = next((p for p in info.packs.values() if p.array == name), None)
        if pack is not None and len(wlist) == 1 and wlist[0].node is pack.write and not reads.get(name):
            # (a pack: one element per iteration whose test holds, each once)
            info.arrays[name] = wlist
            continue
        if pack is not None:  # another name for the array is written or read (`_merge_aliases`)
            del info.packs[pack.counter]
            info.classes[pack.counter] = CARRIED
            info.block("PF201", f"`{pack.counter}` counts the writes into `{name}`, which the body also "
                       "reaches through another name, so each iteration needs the counter the one before "
                       "left", pack.increment)
        if name not in info.tensorarrays:
            info.arrays[name] = wlist
        if _shared_row_written(info, name, wlist, shared, variant | targets):
            continue
        whole = next((w for n in sorted(info.aliases.get(name, set()) | {name})
                      if (w := _whole_array_use(ctx, nodes, n, info)) is not None), None)
        if whole is not None:
            info.dependences.append(f"{name}: used whole at line {whole.lineno} while elements "
                                    "are written")
            info.block("PF203", f"`{name}` is written element by element and also used whole "
                       f"(line {whole.lineno}), so iterations see one another's writes", whole)
            continue
        inside = next((r for r in reads.get(name, []) if id(r) in helper_ids), None)
        if inside is not None:
            info.dependences.append(f"{name}: read by a helper the loop calls (line {inside.node.lineno}) "
                                    "while the loop writes it")
            info.block("PF203", f"`{inside.base}` is read inside a helper the loop calls (line "
                       f"{inside.node.lineno}) while the loop writes `{name}`, so iterations may see one "
                       "another's writes", inside.node)
            continue
        blocked_before = len(info.blockers)
        rlist = [r for r in reads.get(name, []) if id(r.node) not in aug_read_ids]
        only_aug = all(w.aug in ("add", "mul", "or", "and") for w in wlist) and not rlist \
            and len({w.aug for w in wlist}) == 1
        constant = _one_constant(wlist)
        if constant is not None and not rlist:
            # `seen[idx[i]] = True`, `t1[j] = 1` under a test of row i: however the writes
            # collide, every one stores the same number, so their order makes no difference
            info.idempotent.add(name)
            info.dependences.append(f"{name}: every write stores `{constant}`, so colliding writes "
                                    "leave the same value in any order")
            continue
        for w in wlist:
            if only_aug and dependence.separating_dim(w, induction or "", variant, nest) is None:
                info.scatter_add = True
                info.dependences.append(f"{name}: `{w.aug}` updates may collide; a scatter-"
                                        f"{w.aug} is order-independent")
                continue
            for other in rlist + [o for o in wlist if o is not w]:
                if only_aug and other.write:
                    continue
                conflict = dependence.test_pair(w, other, induction, variant, step_sign, nest, bounds)
                # (each write must also meet itself in no other iteration: `m[i, i]` in a loop
                # over `j` is written by every `j`, which its pair with `m[i, j]` does not show)
                if conflict is not None and conflict.kind in ("unknown", "symbolic") and induction is not None \
                        and _disjoint_by_bounds(ctx, info, w, other, induction, variant) \
                        and all(_disjoint_by_bounds(ctx, info, a, a, induction, variant)
                                for a in (w, other) if a.write):
                    info.dependences.append(
                        f"{name}: line {w.node.lineno} and line {other.node.lineno} touch one element only in "
                        "one iteration: the loops' bounds leave no other (Fourier-Motzkin elimination)")
                    continue
                if conflict is None or conflict.kind == "anti" and (
                        other.write or runs_before(ctx, other.node, w.node)
                        and not _interchanged(ctx, info, other, w)):
                    continue
                if conflict.kind == "output" and _later_statement_writes_last(ctx, info, w, other, conflict):
                    ordered.add(name)
                    info.dependences.append(f"{name}: output dependence ({conflict.detail}) at line {w.node.lineno} "
                                            f"and line {other.node.lineno}: the later iteration's write is in the "
                                            "later statement, so whole-array order leaves the loop's last value")
                    continue
                if conflict.kind == "symbolic":
                    check = _distance_check(info, w, other, conflict, induction)
                    if check is not None:
                        if gast.dump(check) not in {gast.dump(c) for c in info.runtime_checks}:
                            info.runtime_checks.append(check)
                        info.dependences.append(f"{name}: {conflict.detail} (line {w.node.lineno}): no "
                                                f"dependence where `{gast.unparse(check).strip()}`, checked "
                                                "at run time")
                        continue
                if conflict.kind == "anti" and not conflict.last_iteration and _splittable(other, name, wlist):
                    # Node splitting: the read takes the element from a copy made before the
                    # loop, which is what the loop reads (no earlier iteration wrote it).
                    info.snapshots[id(other.node)] = name
                    info.dependences.append(f"{name}: anti dependence ({conflict.detail}) at line "
                                            f"{other.node.lineno}, after the write at line {w.node.lineno}: "
                                            "the read takes its value from a copy made before the loop")
                    continue
                where = f"line {w.node.lineno}" + (
                    f" and line {other.node.lineno}" if other.node.lineno != w.node.lineno else "")
                if conflict.kind == "flow" and len(wlist) == 1 and not other.write:
                    # the read sees what an earlier iteration wrote: whole-array execution gives
                    # it that where the writing statement runs first (decided once all are seen)
                    deferred.append((name, w, other, conflict, where))
                    continue
                info.dependences.append(f"{name}: {conflict.kind} dependence ({conflict.detail}) at {where}")
                if conflict.kind == "flow":
                    info.block("PF202", f"`{gast.unparse(other.node).strip()}` {conflict.detail} "
                               f"(`{w.base}` is written at line {w.node.lineno}): a loop-carried "
                               "dependence", other.node)
                elif conflict.kind == "anti":
                    info.block("PF202", f"`{gast.unparse(other.node).strip()}` {conflict.detail}, but "
                               f"runs after the write at line {w.node.lineno}: whole-array execution "
                               "would read the new value (statement order)", other.node)
                else:
                    info.block("PF203", f"`{name}`: {conflict.detail} ({where})", other.node)
                break
            else:
                if not rlist and len(wlist) == 1 and w.aug is None and \
                        dependence.separating_dim(w, induction or "", variant, nest) is None:
                    varies = {n.id for d in w.dims for n in _loaded_names(d)} & (variant | {induction})
                    if varies:
                        info.block("PF203", f"`{name}`: the written index (line {w.node.lineno}) "
                                   "is computed from data, so two iterations may write the same "
                                   "element; only `+=`, `*=`, `|=`, `&=` updates are order-independent "
                                   "(a scatter-add)", w.node)
                    else:
                        info.block("PF203", f"`{name}`: every iteration writes the same element "
                                   f"(line {w.node.lineno})", w.node)
        wrapping = _wrapping_access(info, wlist + rlist, induction)
        if wrapping is not None and len(info.blockers) == blocked_before:
            text = gast.unparse(wrapping.node).strip().splitlines()[0]
            info.dependences.append(f"{name}: a negative index wraps around at line {wrapping.node.lineno}")
            info.block("PF203", f"`{text}` may index `{name}` below zero, which wraps around to "
                       "the end of the array, where other iterations write", wrapping.node)
    if not deferred:
        return
    # (statement order resolves output dependences: reordering would undo that)
    order = _reorder(ctx, info, deferred, writes, reads, info.helper_reads & set(writes)) \
        if not info.blockers and not ordered else None
    blocked = set()
    for name, w, other, conflict, where in deferred:
        if order is None and id(w) in blocked:
            continue  # (one remark per write, the first read it reaches)
        blocked.add(id(w))
        info.dependences.append(f"{name}: {conflict.kind} dependence ({conflict.detail}) at {where}"
                                + (", the writing statement run first (statement reordering)" if order else ""))
        if order is None:
            info.block("PF202", f"`{gast.unparse(other.node).strip()}` {conflict.detail} "
                       f"(`{w.base}` is written at line {w.node.lineno}): a loop-carried "
                       "dependence", other.node)
    if order is not None and [id(s) for s in order] != [id(s) for s in info.body]:
        info.notes.append("statement reordering: the body runs as whole arrays in the order of lines "
                          + ", ".join(str(s.lineno) for s in order))
        info.body = order


def _webs(info, stmts, bound, touched) -> dict[str, list[int | None]]:
    """Names bound by two or more statements of ``stmts`` (the body's top level) whose values do
    not flow from one binding to the next: name -> for each statement, the number of the value
    (web) it binds or reads, None where it does not touch the name.

    A name qualifies where every statement touching it is a plain ``name = value`` not reading
    it, or reads it without binding it, the first one binds it (so no iteration reads the one
    before's value), nothing in a nested function or lambda reads it, and it is no name the
    loop leaves for the code after it (:attr:`LoopInfo.live_out`)."""
    found = {}
    for name in sorted(set().union(*bound) if bound else ()):
        binders = [k for k, b in enumerate(bound) if name in b]
        if len(binders) < 2 or name in info.live_out:
            continue
        web, current, plain = [], None, True
        for k, stmt in enumerate(stmts):
            if name not in touched[k]:
                web.append(None)
                continue
            binds = name in bound[k]
            if binds and not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                              and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name
                              and not any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(stmt.value))):
                plain = False
                break
            if any(isinstance(n, (gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef)) for n in gast.walk(stmt)):
                plain = False
                break
            if binds:
                current = k
            elif current is None:
                plain = False  # (read before the body binds it: the previous iteration's value)
                break
            web.append(current)
        if plain:
            found[name] = web
    return found


def _closure(size: int, edges) -> set[tuple[int, int]]:
    """The pairs ``(a, b)`` with a path from ``a`` to ``b`` over ``edges`` (Warshall)."""
    reach = set(edges)
    for k in range(size):
        into = [a for a in range(size) if (a, k) in reach]
        out = [b for b in range(size) if (k, b) in reach]
        reach |= {(a, b) for a in into for b in out}
    return reach


def _later_statement_writes_last(ctx, info, write, other, conflict) -> bool:
    """Whether two writes that touch one element in two iterations (``a[i + 1] = ...`` then
    ``a[i] = ...``, TSVC's s2244) leave the loop's value when the body runs as whole-array
    statements: each is a top-level assignment of the body of its own, and the one whose
    iteration runs later is the later statement, so it is stored last either way."""
    if conflict.write_later is None or info.form != "loop":
        return False
    top = _top_level(ctx, info.body)
    at_write, at_other = top(write.node), top(other.node)
    if at_write is None or at_other is None or at_write == at_other:
        return False
    if not all(isinstance(info.body[k], (gast.Assign, gast.AugAssign)) for k in (at_write, at_other)):
        return False
    return (at_write > at_other) == conflict.write_later


def _top_level(ctx, body):
    """A function giving the position in ``body`` of the statement that holds a node (None:
    the node is not in ``body``)."""
    position = {id(s): k for k, s in enumerate(body)}

    def top(node):
        while node is not None and id(node) not in position:
            node = ctx.parents.get(id(node))
        return None if node is None else position[id(node)]
    return top


def _reorder(ctx, info, deferred, writes, reads, helper_written) -> list | None:
    """The body's statements in an order whole-array execution computes as the loop does, where
    the only loop-carried dependences are flows from one statement's write to another
    statement's read (``a[i] = b[i - 1] + c[i]`` before ``b[i] = b[i + 1] - e[i]``, TSVC
    s211): the writing statement runs first, so the read sees what earlier iterations wrote.
    Statement reordering (Allen & Kennedy, "Optimizing Compilers for Modern Architectures",
    2001, section 5.2: a topological order of the statement dependence graph, here of the
    top-level statements). None where no such order exists or it cannot be shown.

    Every other pair of statements touching one array (one of them writing it) or one name
    (one of them binding it, or calling a method of it) keeps its order. A deferred read must be
    one of its statement's only reads of that array, every one of them a flow of this kind (an
    element the same iteration has not yet written, ``b[i]``, would be read new)."""
    stmts = list(info.body)
    if info.snapshots or any(len(names) > 1 for names in info.aliases.values()) or helper_written \
            or likely_library(ctx, info) == "tensorflow":
        return None
    top = _top_level(ctx, stmts)

    flows = {(id(w), id(r)) for _, w, r, _, _ in deferred}
    for name, w, r, _, _ in deferred:
        mine = [x for x in reads.get(name, []) if top(x.node) == top(r.node)]
        if top(w.node) is None or top(r.node) is None or top(w.node) == top(r.node) or \
                any((id(w), id(x)) not in flows for x in mine):
            return None
    edges: set[tuple[int, int]] = set()
    for name in writes:  # (an array only read needs no order)
        accesses = [(top(a.node), a) for a in writes.get(name, []) + reads.get(name, [])]
        if any(k is None for k, _ in accesses):
            return None
        for ka, a in accesses:
            for kb, b in accesses:
                if ka >= kb or not (a.write or b.write):
                    continue
                # (a deferred flow from a write later in the body: the write runs first)
                edges.add((kb, ka) if (id(b), id(a)) in flows else (ka, kb))
    bound, touched = [], []
    for stmt in stmts:
        names = {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name)}
        stores = {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        stores |= {n.func.value.id for n in gast.walk(stmt) if isinstance(n, gast.Call)  # `out.append(v)`
                   and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
                   and ctx.imports.resolve(n.func) is None}
        if any(isinstance(n, (gast.Attribute, gast.Subscript)) and isinstance(n.ctx, gast.Store)
               and not isinstance(n.value, gast.Name) for n in gast.walk(stmt)):
            return None  # a write through an attribute or a call: no name says what it touches
        bound.append(stores)
        touched.append(names)
    webs = _webs(info, stmts, bound, touched)
    for ka in range(len(stmts)):
        for kb in range(ka + 1, len(stmts)):
            shared = (bound[ka] & touched[kb]) | (bound[kb] & touched[ka])
            if any(name not in webs or webs[name][ka] == webs[name][kb] for name in shared):
                edges.add((ka, kb))
    for name, web in sorted(webs.items()):
        # scalar renaming without new names (Allen & Kennedy 2001, section 5.4): each value of
        # `name` (a web, one binding and the reads of it) keeps its statements in order, and
        # no two interleave, since whole-array statements hold one value of a name at a time;
        # a web that another one reaches through the other edges runs first
        # (where each needs the other first, the edges make a cycle, which the sort finds)
        groups = sorted({w for w in web if w is not None})
        for ga, gb in itertools.combinations(groups, 2):
            reach = _closure(len(stmts), edges)
            sa = [k for k, w in enumerate(web) if w == ga]
            sb = [k for k, w in enumerate(web) if w == gb]
            first, then = (sb, sa) if any((b, a) in reach for a in sa for b in sb) else (sa, sb)
            edges |= {(a, b) for a in first for b in then}
    order, done = [], set()
    while len(order) < len(stmts):
        ready = [k for k in range(len(stmts)) if k not in done and all(a in done for a, b in edges if b == k)]
        if not ready:
            return None  # a cycle: the statements depend on each other both ways
        order.append(ready[0])
        done.add(ready[0])
    return [stmts[k] for k in order]


def _one_constant(wlist) -> str | None:
    """The source of the one number literal every write of ``wlist`` stores (``x[k] = 1``,
    ``x[k] = -2.5``, spelled alike each time: ``1`` and ``1.0`` may differ once cast), else
    None. An update (``x[k] += 1``, ``x[k] = x[k] + 1``) stores no literal."""
    found = set()
    for w in wlist:
        stmt = w.node
        if not isinstance(stmt, gast.Assign):
            return None
        value = stmt.value
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
            value = value.operand
        if not (isinstance(value, gast.Constant) and type(value.value) in (int, float, bool)):
            return None
        found.add(gast.unparse(stmt.value).strip())
    return found.pop() if len(found) == 1 else None


def _splittable(read, name, wlist) -> bool:
    """Whether a read that runs after a later iteration's write (statement order) can take its
    value from a copy of the array made before the loop (node splitting; Allen & Kennedy,
    "Optimizing Compilers for Modern Architectures", section 5.5): the read is ``name[...]``
    itself (not an alias or a row of a row), and ``name`` has one write, so no statement of the
    same iteration writes the element before the read."""
    node = read.node
    return (not read.write and len(wlist) == 1 and isinstance(node, gast.Subscript)
            and isinstance(node.value, gast.Name) and node.value.id == name)


def _interchanged(ctx, info, read, write) -> bool:
    """Whether ``read``, which runs before ``write`` in the body, may still run after a later
    iteration's ``write`` once the level is batched: both are inside an inner loop that may
    stay a loop, and then runs outermost (the batched level runs inside each of its
    iterations, loop interchange), so the read at inner iteration ``j`` sees what the write
    stored at an earlier ``j`` for every row of the level (``x[i, j] = np.sum(x[i + 1] *
    y[j])``, helper-39). Not so where the two index one dimension with the same inner
    variable (``x[i, j] = x[i + 1, j]``): they meet in one inner iteration, whose batched
    statement reads before it writes. The analysis of the inner loop comes after this one,
    so whether it stays a loop is not known here: such a read takes its value from a copy
    made before the loop (node splitting) where it can, and the level is refused where not
    (Allen & Kennedy, "Optimizing Compilers for Modern Architectures", section 5.2: an
    interchange must not reverse a ``(<, >)`` dependence)."""
    def loops(node):
        found = set()
        node = ctx.parents.get(id(node))
        while node is not None and node is not info.node:
            if isinstance(node, (gast.For, gast.While)):
                found.add(id(node))
            node = ctx.parents.get(id(node))
        return found

    if not loops(read.node) & loops(write.node):
        return False
    inner = _inner_targets(info)
    return not any(isinstance(a, gast.Name) and isinstance(b, gast.Name) and a.id == b.id and a.id in inner
                   for a, b in zip(read.dims, write.dims))


def runs_before(ctx, read, write) -> bool:
    """Whether ``read`` runs before ``write`` when the body runs as whole-array statements.

    Whole-array execution runs each statement of the body for every iteration before the next
    statement; within one statement the value is computed before it is stored. So a read
    sees an element before any iteration's write only when it is in the writing statement
    or in a statement that starts earlier (an ``if`` test before its branches).
    """
    r, w = _statement_of(ctx, read), _statement_of(ctx, write)
    if r is w:
        return True
    return (r.lineno, r.col_offset) < (w.lineno, w.col_offset)


#: the operators of an index a private value may stand for in the dependence test
_INDEX_OPS = (gast.Add, gast.Sub, gast.Mult, gast.USub, gast.UAdd)


def _affine_definitions(ctx, info, stored) -> dict[str, tuple[gast.Assign, list]]:
    """Private names bound once in the loop, by ``k = <sum of products of names and ints>`` at
    the top of a loop body, from names that do not change between that statement and the end
    of its body's iteration (``k = i * n + j`` in the inner body of a nest): name ->
    ``(statement, the body list holding it)``. The dependence test reads a subscript ``x[k]``
    after it as ``x[i * n + j]`` (scalar forward substitution; Allen & Kennedy, "Optimizing
    Compilers for Modern Architectures", section 4.3)."""
    bodies = [(level.body if level is info else level.node.body, level) for level in info.walk()
              if isinstance(level.node, (gast.For, gast.While))]
    defs = {}
    for body, level in bodies:
        for stmt in body:
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], gast.Name)):
                continue
            name = stmt.targets[0].id
            if len(stored.get(name, ())) != 1 or not all(
                    isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Load) + _INDEX_OPS)
                    for n in gast.walk(stmt.value)):
                continue
            if any(isinstance(n, gast.Constant) and type(n.value) is not int for n in gast.walk(stmt.value)):
                continue
            fixed = set()  # the indices of the loops around the statement, inside this level
            up = level
            while up is not None and up is not info.parent:
                if up.space is not None:
                    fixed |= up.space.target_names()
                up = up.parent
            if any(n.id in stored and n.id not in fixed for n in _loaded_names(stmt.value)):
                continue
            defs[name] = (stmt, body)
    return defs


def _derived_forms(info) -> dict[str, tuple[tuple, tuple[int, ...], int]]:
    """The derived induction variables of the outermost level (``j += c`` once or more per
    iteration, :attr:`LoopInfo.derived`) of a loop over ``range`` by 1 or -1 with integer steps
    ``c``, bound to an int constant before the loop (so that the test of negative indices,
    which wrap around, sees every index): name -> (its updates, their steps with their signs,
    that constant)."""
    from pforge.transpile.analysis.classes import signed_step
    from pforge.transpile.analysis.constants import _UNKNOWN, _constant_on_entry
    space = info.space
    if space is None or space.kind != "range" or space.step is not None and constant_int(space.step) not in (1, -1):
        return {}
    found = {}
    for name, updates in info.derived.items():
        steps = [constant_int(signed_step(stmt, name)) for stmt in updates]
        entry = _constant_on_entry(info, name) if info.function is not None else _UNKNOWN
        if None in steps or type(entry) is not int:
            continue
        found[name] = (updates, tuple(steps), entry)
    return found


def _entry_constants(info, writes, reads, bound) -> dict[str, int]:
    """The names the subscripts read that hold an int constant where the loop starts and that
    the loop does not bind (``m = 1`` before ``a[i] = a[i + m] + b[i]``, TSVC's s131): name ->
    that int, which the dependence test reads in the name's place (constant propagation)."""
    from pforge.transpile.analysis.constants import _constant_on_entry
    if info.function is None:
        return {}
    names = {n.id for accesses in (writes, reads) for group in accesses.values() for a in group for d in a.dims
             if not isinstance(d, gast.Slice) for n in gast.walk(d)
             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)} - bound
    found = {name: _constant_on_entry(info, name) for name in sorted(names)}
    return {name: value for name, value in found.items() if type(value) is int}


def _constant_substituted(index, constants: dict[str, int]):
    """``index`` with each name of ``constants`` replaced by its int."""
    if isinstance(index, gast.Slice) or not any(isinstance(n, gast.Name) and n.id in constants
                                                 for n in gast.walk(index)):
        return index

    class _Substitute(gast.NodeTransformer):
        def visit_Name(self, node):
            if isinstance(node.ctx, gast.Load) and node.id in constants:
                return gast.copy_location(gast.Constant(value=constants[node.id], kind=None), node)
            return node

    return _Substitute().visit(copy.deepcopy(index))


def _induction_substituted(ctx, info, index, inductions, user):
    """``index`` with each derived induction variable replaced by its value where ``user`` runs:
    in iteration ``i`` of ``range(s, ...)`` (``d`` the direction) ``j`` is ``j0 + (i - s) * d * C
    + c'``, where ``C`` is the sum of its steps, ``c'`` that of the updates before ``user``, and
    ``j0`` the int the name holds where the loop starts (induction-variable substitution;
    Allen & Kennedy, "Optimizing Compilers for Modern Architectures", section 4.5)."""
    if isinstance(index, gast.Slice) or not any(isinstance(n, gast.Name) and n.id in inductions
                                                 for n in gast.walk(index)):
        return index
    space = info.space
    top = _top_level(ctx, info.body)
    where = top(user)

    class _Substitute(gast.NodeTransformer):
        def visit_Name(self, node):
            found = inductions.get(node.id)
            if not isinstance(node.ctx, gast.Load) or found is None or where is None:
                return node
            updates, steps, value = found
            positions = [top(update) for update in updates]
            if where in positions:
                return node  # (read by one of its updates)
            before = sum(step for step, at in zip(steps, positions) if at < where)
            start = copy.deepcopy(space.start) if space.start is not None else gast.Constant(value=0, kind=None)
            direction = constant_int(space.step) if space.step is not None else 1
            count = gast.BinOp(left=gast.BinOp(left=gast.Name(id=space.induction, ctx=gast.Load(), annotation=None,
                                                              type_comment=None), op=gast.Sub(), right=start),
                               op=gast.Mult(), right=gast.Constant(value=direction * sum(steps), kind=None))
            return gast.BinOp(left=gast.Constant(value=value + before, kind=None), op=gast.Add(), right=count)

    return _Substitute().visit(copy.deepcopy(index))


def _forward_substituted(ctx, index, defs, user):
    """``index`` with each name of ``defs`` replaced by its value, where the defining statement
    runs before ``user`` in the same iteration (it comes earlier in a body that holds ``user``)."""
    if isinstance(index, gast.Slice) or not any(isinstance(n, gast.Name) and n.id in defs
                                                 for n in gast.walk(index)):
        return index

    def runs_first(stmt, body):
        node = user
        while node is not None:
            if any(node is st for st in body):
                return body.index(node) > next(k for k, st in enumerate(body) if st is stmt)
            node = ctx.parents.get(id(node))
        return False

    class _Substitute(gast.NodeTransformer):
        def visit_Name(self, node):
            found = defs.get(node.id)
            if isinstance(node.ctx, gast.Load) and found is not None and runs_first(*found):
                return copy.deepcopy(found[0].value)
            return node

    return _Substitute().visit(copy.deepcopy(index))


def _nest(info) -> dependence.Nest:
    """The level's least index and its inner loops over ``range(stop)`` from 0 by 1 (an index
    name two inner loops share with different stops is left out)."""
    inner: dict[str, tuple | None] = {}
    for child in info.walk():
        space = child.space
        if child is info or space is None or not space.induction:
            continue
        if space.kind != "range" or space.induction in inner or (
                space.start is not None and constant_int(space.start) != 0) or \
                (space.step is not None and constant_int(space.step) != 1):
            inner[space.induction] = None  # another kind of loop, or a second one, binds it too
            continue
        inside = frozenset(id(n) for st in child.node.body for n in gast.walk(st))
        inner[space.induction] = (space.stop, inside)
    return dependence.Nest(_lowest_index(info.space),
                           {name: found for name, found in inner.items() if found is not None})


def _outer_bounds(ctx, info) -> list:
    """``index - start >= 0`` and ``stop - 1 - index >= 0`` for each ``for index in
    range(start, stop)`` (step 1, affine bounds) around the level, whose index nothing else in
    that loop binds: facts of the names the level reads as invariant (``i`` of an inner
    ``for j in range(i + 1, n)``), the same in both copies of the level."""
    found = []
    node = ctx.parents.get(id(info.node))
    while node is not None and not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Module)):
        if isinstance(node, gast.For) and isinstance(node.target, gast.Name) and isinstance(node.iter, gast.Call) \
                and ctx.imports.resolve(node.iter.func) == "builtins.range" and not node.iter.keywords \
                and 1 <= len(node.iter.args) <= 2:
            name = node.target.id
            bound = [n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))]
            if bound.count(name) == 1:
                args = node.iter.args
                start = dependence.symbolic_form(args[0], set(bound)) if len(args) == 2 else dependence.Affine((), 0)
                stop = dependence.symbolic_form(args[-1], set(bound))
                # (a bound's names rebound in the loop hold other values where the level runs)
                if start is not None and stop is not None and not (start.symbols() | stop.symbols()) & set(bound):
                    index = dependence.Affine(((name, 1),), 0)
                    found += [index.minus(start), stop.minus(index).minus(dependence.Affine((), 1))]
        node = ctx.parents.get(id(node))
    return found


def _disjoint_by_bounds(ctx, info, write, other, induction: str, variant: set[str]) -> bool:
    """Whether ``write`` and ``other`` touch one element only within one iteration of the
    level, judged from the bounds of every ``range`` loop around each (the level's and the
    inner ones, steps of 1, bounds affine in their outer indices and in names the level does
    not bind, and those of the loops around the level, :func:`_outer_bounds`):
    :func:`~pforge.transpile.dependence.disjoint_iterations` on two copies of the nest.
    ``d[i, j]`` and ``d[j, i]`` under ``for j in range(i + 1, n)`` never meet."""
    loops = [info] + [child for child in info.walk() if child is not info]
    if any(loop.space is None or loop.space.kind != "range" or not loop.space.induction
           or loop.space.step is not None and constant_int(loop.space.step) != 1 for loop in loops):
        return False
    inductions = [loop.space.induction for loop in loops]
    if len(set(inductions)) != len(inductions):
        return False
    targets = {id(n.target) for n in gast.walk(info.node) if isinstance(n, gast.For)}
    rebound = {n.id for n in gast.walk(info.node) if isinstance(n, gast.Name)
               and isinstance(n.ctx, (gast.Store, gast.Del)) and id(n) not in targets}
    if rebound & set(inductions):
        return False
    inside = {id(loop): {id(n) for st in loop.node.body for n in gast.walk(st)} for loop in loops[1:]}

    def instance(access, tag):
        around = [info] + [loop for loop in loops[1:] if id(access.node) in inside[id(loop)]]
        names = {loop.space.induction: f"{loop.space.induction}#{tag}" for loop in around}

        def form(node):
            # (an invariant term that is not affine, `len(x)`, is one symbol: `<+len(x)>`)
            found = dependence.symbolic_form(node, variant | set(inductions) | {induction}) \
                if node is not None else dependence.Affine((), 0)
            if found is None:
                return None
            renamed = {}
            for key, coeff in found.coeffs:
                base = key.split(".")[0].split("[")[0]
                if key in names:
                    key = names[key]
                elif base in variant or base in inductions or base == induction:
                    return None  # a value the level binds, or an index of a loop not around it
                renamed[key] = renamed.get(key, 0) + coeff
            return dependence.Affine(tuple(sorted(renamed.items())), found.const)

        bounds = []
        for loop in around:
            index = dependence.Affine(((names[loop.space.induction], 1),), 0)
            start, stop = form(loop.space.start), form(loop.space.stop)
            if start is None or stop is None:
                return None
            bounds += [index.minus(start), stop.minus(index).minus(dependence.Affine((), 1))]
        dims = [None if isinstance(d, gast.Slice) else form(d) for d in access.dims]
        return None if None in dims else (dims, bounds)

    one, two = instance(write, 1), instance(other, 2)
    if one is None or two is None:
        return False
    outer = [f for f in _outer_bounds(ctx, info) if not (f.symbols() & (variant | set(inductions)))]
    terms = {k for forms in (one[0], two[0], one[1], two[1]) for f in forms for k, _ in f.coeffs if k.startswith("<+")}
    outer += [dependence.Affine(((k, 1),), 0) for k in sorted(terms)]  # `len(x) >= 0`
    return dependence.disjoint_iterations(one[0], two[0], one[1] + outer, two[1] + outer,
                                          (f"{induction}#1", f"{induction}#2"))


def _inner_targets(info):
    names = set()
    for child in info.walk():
        if child is not info and child.space is not None:
            names |= child.space.target_names()
    return names


def _distance_check(info, write, other, conflict, induction) -> gast.expr | None:
    """The run-time condition under which ``write`` (``a[c*i + W]``) and ``other``
    (``a[c*i + R]``), whose distance ``D = R - W`` is a sum of invariant names (``a[i + k] =
    a[i] + b[i]``, TSVC's s173), touch no element in two iterations: ``D == 0`` (the same
    iteration's element), or ``abs(D) >= abs(c) * trips`` (no two iterations that far apart),
    or ``D % c != 0``; and neither index (along the dimension that separates the iterations) is
    negative at the first or the last iteration, where Python would count from the end. None where no such check can be written: a loop other
    than ``range`` by 1 or -1, bounds with calls other than ``len``, TensorFlow code, or
    indices of other than one symbolic term. (Run-time dependence checks: LLVM's
    LoopAccessAnalysis; Allen & Kennedy, section 3.3 on symbolic distances.)"""
    space = info.space
    if space is None or space.kind != "range" or info.library == "tensorflow" or conflict.delta is None:
        return None
    step = constant_int(space.step) if space.step is not None else 1
    if step not in (1, -1) or any(isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id == "len")
                                  for b in (space.start, space.stop) if b is not None for n in gast.walk(b)):
        return None
    start = gast.unparse(space.start).strip() if space.start is not None else "0"
    stop = gast.unparse(space.stop).strip()
    trips = stop if start == "0" and step > 0 else f"len(range({start}, {stop}{', -1' if step < 0 else ''}))"
    last = f"{stop} - 1" if step > 0 else f"{stop} + 1"
    c, delta = conflict.coeff, conflict.delta
    if all(v < 0 for _, v in delta.coeffs):  # (`-k`: its absolute value, zero or not, is k's)
        delta = dependence.Affine(tuple((k, -v) for k, v in delta.coeffs), -delta.const)
    distance = _affine_text(delta)
    tests = [f"{distance} == 0", f"abs({distance}) >= {trips}" if abs(c) == 1 else f"abs({distance}) >= {abs(c)} * {trips}"]
    if abs(c) != 1:
        tests.append(f"{distance} % {c} != 0")
    parts = [f"({' or '.join(tests)})"]
    for access in (write, other):
        # (only the dimension that separates the iterations: the test takes the others to meet)
        for index in access.dims[conflict.dim:conflict.dim + 1]:
            form = dependence.Affine.of(index, products=True)
            if form is None or not (form.symbols() - {induction}):
                continue
            a = form.coeff(induction)
            rest = dependence.Affine(tuple((k, v) for k, v in form.coeffs if k != induction), form.const)
            for first in (start, last):
                at = constant_int(gast.parse(first, mode="eval").body)
                if at is not None:  # (folded: `k >= 0` at the first index 0)
                    bound = dependence.Affine(rest.coeffs, rest.const + a * at)
                    parts.append(f"{_affine_text(bound, bare=True)} >= 0")
                else:
                    scaled = f"({first})" if a == 1 else f"{a} * ({first})"
                    parts.append(f"{scaled} + {_affine_text(rest)} >= 0")
    try:
        return gast.parse(" and ".join(dict.fromkeys(parts)), mode="eval").body
    except SyntaxError:  # pragma: no cover - every key is an expression
        return None


def _affine_text(form, bare: bool = False) -> str:
    """``form`` (:class:`~pforge.transpile.dependence.Affine`) as Python source, positive terms
    first (``v - m``), in parentheses where it has several terms (unless ``bare``)."""
    terms = sorted(form.coeffs, key=lambda kv: kv[1] < 0) + ([("", form.const)] if form.const or not form.coeffs else [])
    text = ""
    for key, v in terms:
        size = abs(v)
        word = str(size) if not key else key if size == 1 else f"{size} * {key}"
        text = (f"-{word}" if v < 0 else word) if not text else f"{text} {'-' if v < 0 else '+'} {word}"
    return f"({text})" if len(terms) > 1 and not bare else text


def _nonnegative_names(function) -> frozenset[str]:
    """Names ``function`` binds only by plain assignments of values that cannot be negative
    (``n = a.shape[0]``, ``m = len(x) // 2``, ``k = 3``), never a parameter."""
    if function is None:
        return frozenset()
    values: dict[str, list] = {}
    parameters = {a.id for a in function.args.args + function.args.kwonlyargs + function.args.posonlyargs
                  if isinstance(a, gast.Name)}
    for node in gast.walk(function):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            values.setdefault(node.targets[0].id, []).append(node.value)
    stores = collections.Counter(n.id for n in gast.walk(function)
                                 if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)))
    found: set[str] = set()
    changed = True
    while changed:  # (a name bound from another such name: `m = n // 2`)
        changed = False
        known = dependence.Bounds(nonnegative=frozenset(found))
        for name, bound in values.items():
            if name in found or name in parameters or stores[name] != len(bound):
                continue
            forms = [dependence.symbolic_form(v, set(), known.nonnegative) for v in bound]
            if all(form is not None and known.never_negative(form) for form in forms):
                found.add(name)
                changed = True
    return frozenset(found)


def _lowest_index(space) -> int | None:
    """The smallest value the induction variable takes, when it is a known constant."""
    if space.kind == "enumerate":
        return 0 if space.enumerate_start is None else constant_int(space.enumerate_start)
    if space.kind == "while":
        return constant_int(space.start) if space.start is not None else 0
    step = constant_int(space.step) if space.step is not None else 1
    if step is None:
        return None
    if step > 0:
        return constant_int(space.start) if space.start is not None else 0
    stop = constant_int(space.stop)
    return None if stop is None else stop + 1


def _wrapping_access(info, accesses, induction):
    """An access ``a[c*i + k]`` whose index may be negative in some iteration (Python's
    negative indices count from the end, outside the affine model), or None."""
    if info.space is None or induction is None:
        return None
    lowest = _lowest_index(info.space)
    for access in accesses:
        for index in access.dims:
            if isinstance(index, gast.Slice):
                continue
            form = dependence.Affine.of(index)
            if form is None or form.coeff(induction) == 0 or form.symbols() != {induction}:
                continue
            c = form.coeff(induction)
            if c < 0 or lowest is None and form.const < 0 or \
                    lowest is not None and c * lowest + form.const < 0:
                return access
    return None


def _whole_array_use(ctx, nodes, name, info):
    """A load of ``name`` that is not the base of a subscript (``x.sum()``, ``f(x)``), if any."""
    for node in nodes:
        if not (isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load)):
            continue
        parent = ctx.parents.get(id(node))
        if isinstance(parent, gast.Subscript) and parent.value is node:
            continue
        if name in info.tensorarrays and isinstance(parent, gast.Attribute) and parent.attr in ("write", "read"):
            continue
        if isinstance(parent, gast.Attribute) and parent.attr in _METADATA or isinstance(parent, gast.Call) \
                and parent.args == [node] and not parent.keywords and ctx.imports.resolve(parent.func) == "builtins.len":
            continue  # (`x.shape[1]`, `len(x)`: what writing elements never changes)
        return node
    return None


#: attributes of an array that writes of its elements leave as they are
_METADATA = ("shape", "ndim", "size", "dtype", "itemsize")


def _aug_kind(stmt, sub):
    if isinstance(stmt, gast.AugAssign):
        return AUG_OPS.get(type(stmt.op))
    update = spelled_out_update(stmt)
    return AUG_OPS[type(update[0])] if update is not None else None


def spelled_out_update(stmt) -> tuple[gast.operator, gast.expr] | None:
    """``a[e] = a[e] + v`` (or ``v + a[e]``, or ``*``) as the augmented update ``(op, v)``.

    The loop reads ``a[e]`` afresh in every iteration, so with repeated indices the updates
    accumulate exactly as ``a[e] += v`` does; a rewrite must combine them (a scatter-add), not
    buffer them (``a[idx] = a[idx] + v`` keeps one update per slot). Both backends ask this
    function, so the two spellings cannot be lowered differently.

    Returns:
        The operator node and the term, or None when ``stmt`` is not such an update (the
        other operand reads ``a`` too, or the operator is not ``+``/``*``).
    """
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Subscript)):
        return None
    sub, value = stmt.targets[0], stmt.value
    if not (isinstance(value, gast.BinOp) and type(value.op) in (gast.Add, gast.Mult)):
        return None
    for side in (value.left, value.right):
        if isinstance(side, gast.Subscript) and gast.dump(side.value) == gast.dump(sub.value) \
                and gast.dump(side.slice) == gast.dump(sub.slice):
            other = value.right if side is value.left else value.left
            if not any(isinstance(n, gast.Subscript) and gast.dump(n.value) == gast.dump(sub.value)
                       for n in gast.walk(other)):
                return value.op, other
    return None


def _same_subscript_reads(stmt, sub):
    if isinstance(stmt, gast.AugAssign):
        return set()
    return {id(n) for n in gast.walk(stmt.value) if isinstance(n, gast.Subscript)
            and gast.dump(n.value) == gast.dump(sub.value) and gast.dump(n.slice) == gast.dump(sub.slice)}
