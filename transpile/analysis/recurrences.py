"""Scalar replacement of first-order array recurrences: ``a[i] = a[i - 1] + b[i]``.

The loop reads the element the previous iteration wrote, a loop-carried flow dependence of
distance one, which no map can batch. Carrying that element across iterations in a name
instead of memory (scalar replacement: Carr and Kennedy, "Scalar replacement in the presence
of conditional control flow", Software: Practice and Experience 24(1), 1994; Allen and
Kennedy, *Optimizing Compilers for Modern Architectures*, 2001, section 8.3) turns it into

    a_prev = a_prev + b[i]
    a[i] = a_prev

a running value the scan analysis already knows (a prefix sum, product, running maximum or
minimum, or a first-order linear recurrence ``a[i] = c[i] * a[i - 1] + b[i]``), whose start is
the element before the first one the loop writes (``a[0]`` for ``range(1, n)``). The loop
keeps its text in the output; only its tree is put in this form, as
:func:`~pforge.transpile.analysis.reductions.first_iteration_reductions` does.
"""

from __future__ import annotations

import copy

import gast

from pforge.transpile.analysis.chains import reassociate
from pforge.transpile.analysis.nodes import _enclosing_scope, _scope_nodes, _statements, _stored_names
from pforge.transpile.analysis.reductions import (_SCAN_CALLS, _linear_update, _reduction_update, _root_name,
                                                  alias_roots, stored_before_read)
from pforge.transpile.spaces import constant_int, for_space


def carried_elements(ctx) -> bool:
    """Puts every loop whose body ends an array recurrence in scalar-replaced form; True when
    one changed (the caller recomputes parents and def-use chains).

    A loop qualifies when:

    - its space is a range with a constant step ``s`` and its index is not bound in the body;
    - a statement of the body itself (not under an ``if`` or in an inner loop) writes
      ``a[i + c]``, the body's only store into ``a``; it stores into no attribute, and into
      elements of other arrays only (the printer checks at run time that they share no memory
      with ``a``, whose elements would change under the loop's reads);
    - the body reads ``a[i + c - s]`` (the element the previous iteration wrote), only in the
      statements before that write and in its value, and reads ``a`` in no nested function;
    - the write's value with those reads replaced is a scan update of the replacing name
      (``p + t``, ``p * t``, ``np.maximum(p, t)``, ``c * p + t``).

    Other indices of ``a`` (``a[i, j]`` with ``j`` not bound in the body, ``a[i, :]``) must be
    spelled the same in the read and the write. The loop is marked ``pforge_carried``: name
    -> ``(a, element)``, the element before the first write, which the printers read as the
    scan's start where the loop runs at least once, and ``pforge_carried_reads``: name -> the
    read it replaced (``a[i - 1]``), which remarks name.
    """
    changed = False
    for loop in list(_statements(ctx.tree)):
        if not isinstance(loop, gast.For) or loop.orelse:
            continue
        space = for_space(loop, ctx.imports)
        if space is None or space.kind != "range":
            continue
        step = 1 if space.step is None else constant_int(space.step)
        if not step:
            continue
        found = _recurrence(ctx, loop, space.induction, step)
        if found is None:
            continue
        position, write, array, offset, reads, (value, copies, substituted) = found
        scope = _enclosing_scope(ctx, loop)
        name = _fresh({n.id for n in gast.walk(scope) if isinstance(n, gast.Name)}, f"{array}_prev")
        read_text = gast.unparse(reads[0]).strip()  # `a[i - 1]`, which remarks name for the carried name
        replaced = {id(r) for r in reads} | {id(c) for c in copies}
        value = _replace_reads(value, replaced, name)
        update = gast.copy_location(gast.Assign(targets=[_name(name, gast.Store(), write)], value=value,
                                                type_comment=None), write)
        if substituted and not reassociate(ctx, loop, update, array, also=substituted):
            continue  # (the probe says it is a chain: not reached)
        for stmt in loop.body[:position]:
            _replace_reads(stmt, replaced, name)
        store = gast.copy_location(gast.Assign(targets=write.targets, value=_name(name, gast.Load(), write),
                                               type_comment=None), write)
        loop.body[position:position + 1] = [update, store]
        first = space.start if space.start is not None else gast.Constant(value=0, kind=None)
        element = _element(write.targets[0], space.induction, first, -step)
        loop.pforge_carried = {**getattr(loop, "pforge_carried", {}), name: (array, element)}
        loop.pforge_carried_reads = {**getattr(loop, "pforge_carried_reads", {}), name: read_text}
        changed = True
    return changed


def _recurrence(ctx, loop, index: str, step: int):
    """``(position of the write, a, c, the reads of a[i + c - s])`` or None (see
    :func:`carried_elements`)."""
    body = loop.body
    nodes = list(_scope_nodes(body))
    if any(isinstance(n, gast.Name) and n.id == index and isinstance(n.ctx, gast.Store) for n in nodes):
        return None
    stores = [n for n in nodes if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store)]
    if any(not (isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)) for n in stores):
        return None
    for stmt in body:
        write = _assignment(stmt)
        if write is not None and any(write.targets[0] is n for n in stores):
            found = _carried(ctx, loop, nodes, stores, write, stmt, index, step)
            if found is not None:
                return found
    return None


#: augmented updates of an element that are ``a[i] = a[i] op v`` on a scalar element
_AUGMENTED = (gast.Add, gast.Mult)


def _assignment(stmt) -> gast.Assign | None:
    """``stmt`` as a one-target assignment: itself, or ``a[k] = a[k] + v`` for ``a[k] += v``
    (``*=`` likewise; a new node, its target the original one), or None.

    On a scalar element the two are one operation (Python reads the element, adds and stores
    it back). On a row, ``+=`` adds in place under NumPy's ``same_kind`` casting, which raises
    for a float value into an integer array where the assignment truncates. No scan this
    module admits tells them apart: a linear recurrence is batched on single numbers only,
    and the sum and product forms left are ``a[i] += a[i - 1]`` and ``a[i] *= a[i - 1]``,
    whose operands are the array's own elements, of its own dtype.
    """
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
        return stmt
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, _AUGMENTED) and isinstance(stmt.target, gast.Subscript):
        element = gast.copy_location(gast.Subscript(value=copy.deepcopy(stmt.target.value),
                                                    slice=copy.deepcopy(stmt.target.slice), ctx=gast.Load()),
                                     stmt.target)
        value = gast.copy_location(gast.BinOp(left=element, op=copy.deepcopy(stmt.op), right=stmt.value), stmt)
        return gast.copy_location(gast.Assign(targets=[stmt.target], value=value, type_comment=None), stmt)
    return None


def _carried(ctx, loop, nodes, stores, write, stmt, index: str, step: int):
    """:func:`_recurrence` for one write of the body (``stmt``; ``write`` is it as an assignment)."""
    body = loop.body
    target = write.targets[0]
    array = target.value.id
    if sum(n.value.id == array for n in stores) != 1:
        return None
    written = _indexed(target, index)
    if written is None:
        return None
    position = body.index(stmt)
    offset, others = written
    bound = {n.id for n in nodes if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    indices = {n.id for n in gast.walk(target.slice) if isinstance(n, gast.Name)} - {index}
    if array in bound or indices & bound:
        return None
    reads = []
    before = {id(n) for s in body[:position] for n in gast.walk(s)} | {id(n) for n in gast.walk(write.value)}
    for node in nodes:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)) and any(
                isinstance(n, gast.Name) and n.id == array for n in gast.walk(node)):
            return None
        if not (isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load)
                and isinstance(node.value, gast.Name) and node.value.id == array):
            continue
        read = _indexed(node, index)
        if read is None or read[0] != offset - step or read[1] != others:
            continue
        if id(node) not in before:
            return None  # read after the write: it would see this iteration's element where `a` has one
        reads.append(node)
    if not reads:
        return None
    roots = alias_roots(ctx, loop, nodes)
    if _scan(ctx, loop, write, write.value, reads, array):
        found = write.value, [], []
    else:
        found = _forward_substituted(body, position, write.value, reads, bound, roots)
        if found is None:
            return None
    probe = _probe(write, found[0], reads + found[1])
    if found[2] and not reassociate(ctx, loop, probe, array, apply=False, also=found[2]):
        return None  # (only a chain's check covers the substituted elements: see _forward_substituted)
    if _stored_before_read(body, position, probe, reads, roots):
        return None
    return position, write, array, offset, reads, found


def _stored_before_read(body, position: int, probe: gast.Assign, reads, roots) -> bool:
    """The scan the carried name makes is read before its update and its term reads what the
    body stores (:func:`~pforge.transpile.analysis.reductions.stored_before_read`, which refuses
    it): checked on the body as scalar replacement would leave it, so that a refused loop keeps
    its text."""
    before = [_replace_reads(copy.deepcopy(s), set(), "_pforge_probe", reads, s) for s in body[:position]]
    if not any(isinstance(n, gast.Name) and n.id == "_pforge_probe" for s in before for n in gast.walk(s)):
        return False  # (no exclusive read)
    # (the store `a[i] = a_prev` the replacement adds after the update writes the element the
    # term may read first, `a[i]`, which the rule allows, or one it reads from no other iteration)
    return stored_before_read(before + [probe] + body[position + 1:], probe, probe.value, roots)


def _probe(write, value, reads) -> gast.Assign:
    """``_pforge_probe = value`` with ``reads`` (nodes of ``value``) read as ``_pforge_probe``; on a copy."""
    return gast.Assign(targets=[_name("_pforge_probe", gast.Store(), write)],
                       value=_replace_reads(copy.deepcopy(value), set(), "_pforge_probe", reads, value),
                       type_comment=None)


def _scan(ctx, loop, write, value, reads, array: str) -> bool:
    """``value`` with ``reads`` replaced by the carried name is a scan update of it: a sum, product,
    running maximum or minimum, a first-order linear recurrence or an update chain."""
    probe = _probe(write, value, reads)
    op = _reduction_update(ctx, probe, "_pforge_probe")
    if op in ("max", "min") and ctx.imports.resolve(probe.value.func) not in _SCAN_CALLS:
        op = None
    return op in ("add", "mul", "max", "min") or _linear_update(probe, "_pforge_probe") is not None or \
        reassociate(ctx, loop, probe, array, apply=False)  # (an update chain: analysis.chains)


def _forward_substituted(body, position: int, value, reads, bound: set[str], roots):
    """``(value', the copies of reads in it, the arrays substituted)`` or None: ``value`` with each
    read of an element an earlier statement of the body wrote (``x[i] = v`` ... ``x[i]``) replaced
    by a copy of that statement's value (forward substitution: Allen and Kennedy, *Optimizing
    Compilers for Modern Architectures*, 2001, section 4.5.2). TSVC's s323 is the case:
    ``a[i] = b[i - 1] + c[i] * d[i]; b[i] = a[i] + c[i] * e[i]`` is the chain
    ``b[i] = b[i - 1] + c[i] * d[i] + c[i] * e[i]``.

    A read ``x[k]`` is replaced when ``x[k] = v`` (the same index, spelled the same) is a
    one-target statement of the body before ``position``, and no statement after it, up to
    ``position``, stores into ``x`` (the write of ``array`` at ``position`` is that array's only
    store); the index reads no name the body binds; ``v`` reads neither ``x`` nor a name or
    array those statements store into, nor an alias of either bound before the loop (``roots``:
    :func:`~pforge.transpile.analysis.reductions.alias_roots`). The element then holds
    ``v`` where ``value`` reads it, converted to ``x``'s dtype: the caller admits the result only
    as an update chain, whose run-time check (``also``: the substituted arrays) makes ``x``'s
    dtype the one every term computes in, so the conversion keeps ``v``. The loop's check that
    the arrays it writes share no memory with those it reads (the printers') keeps ``v``'s
    operands apart from ``x``."""
    stored = [{roots.get(n, n) for n in _stores_of(stmt)} for stmt in body[:position]]
    sources = {}
    for k, stmt in enumerate(body[:position]):
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else None
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)) or \
                {n.id for n in gast.walk(target.slice) if isinstance(n, gast.Name)} & bound:
            continue
        x = target.value.id
        read = {roots.get(n.id, n.id) for n in gast.walk(stmt.value) if isinstance(n, gast.Name)}
        later = set().union(*stored[k + 1:])
        if roots.get(x, x) not in read | later and not read & later:
            sources[x] = stmt
    ids = {id(r) for r in reads}
    new_value = copy.deepcopy(value)
    copies = [c for o, c in zip(gast.walk(value), gast.walk(new_value)) if id(o) in ids]
    substituted = []

    class Substitute(gast.NodeTransformer):
        def visit_Subscript(self, sub):
            stmt = sources.get(sub.value.id) if isinstance(sub.value, gast.Name) else None
            if stmt is None or not isinstance(sub.ctx, gast.Load) or \
                    gast.dump(sub.slice) != gast.dump(stmt.targets[0].slice):
                return self.generic_visit(sub)
            new = copy.deepcopy(stmt.value)
            copies.extend(c for o, c in zip(gast.walk(stmt.value), gast.walk(new)) if id(o) in ids)
            substituted.append(sub.value.id)
            return gast.copy_location(new, sub)

    new_value = Substitute().visit(new_value)
    if not substituted:
        return None
    return new_value, copies, sorted(set(substituted))


def _stores_of(stmt) -> set[str]:
    """The names ``stmt`` binds and the arrays it stores elements of (``a`` of ``a[i] = v``)."""
    return set(_stored_names([stmt])) | {_root_name(n) for n in gast.walk(stmt) if isinstance(
        n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store)} - {None}


def _indexed(node: gast.Subscript, index: str) -> tuple[int, tuple[str, ...]] | None:
    """``(c, the other indices spelled out)`` when ``node`` indexes ``index + c`` at one
    position and plain names, constants or ``:`` at the others."""
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    offsets = [(k, _offset(p, index)) for k, p in enumerate(parts)]
    found = [(k, c) for k, c in offsets if c is not None]
    if len(found) != 1:
        return None
    position, offset = found[0]
    others = []
    for k, part in enumerate(parts):
        if k == position:
            others.append("<index>")
            continue
        if isinstance(part, gast.Slice) and part.lower is None and part.upper is None and part.step is None:
            others.append(":")
        elif isinstance(part, (gast.Name, gast.Constant)) and not (
                isinstance(part, gast.Name) and part.id == index):
            others.append(gast.dump(part))
        else:
            return None
    return offset, tuple(others)


def _offset(node, index: str) -> int | None:
    """``c`` when ``node`` is ``index``, ``index + c``, ``index - c`` or ``c + index`` (``c`` an int)."""
    if isinstance(node, gast.Name) and node.id == index:
        return 0
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        if isinstance(node.left, gast.Name) and node.left.id == index and (c := constant_int(node.right)) is not None:
            return c if isinstance(node.op, gast.Add) else -c
        if isinstance(node.op, gast.Add) and isinstance(node.right, gast.Name) and node.right.id == index and \
                (c := constant_int(node.left)) is not None:
            return c
    return None


def _replace_reads(node, replaced: set[int], name: str, reads=(), root=None):
    """``node`` with the subscripts in ``replaced`` (ids) read as ``name`` instead; on a copy
    (``reads`` and ``root``: the originals, matched by position in the walk)."""
    if reads:
        originals = list(gast.walk(root))
        copies = list(gast.walk(node))
        ids = {id(r) for r in reads}
        replaced = {id(c) for o, c in zip(originals, copies) if id(o) in ids}

    class Replace(gast.NodeTransformer):
        def visit_Subscript(self, sub):
            if id(sub) in replaced:
                return _name(name, gast.Load(), sub)
            return self.generic_visit(sub)

    return Replace().visit(node)


def _name(name: str, ctx, where) -> gast.Name:
    return gast.copy_location(gast.Name(id=name, ctx=ctx, annotation=None, type_comment=None), where)


def _fresh(taken: set[str], name: str) -> str:
    found, k = name, 1
    while found in taken:
        k += 1
        found = f"{name}{k}"
    return found


def _element(target: gast.Subscript, index: str, first: gast.expr, shift: int) -> gast.Subscript:
    """``target`` with ``index + c`` at its loop position replaced by ``first + c + shift``
    (the element ``shift`` iterations before the first write),
    folded where ``first`` is a constant or ``x ± k``."""
    def fold(part):
        c = _offset(part, index)
        if c is None:
            return copy.deepcopy(part)
        total = c + shift
        base = copy.deepcopy(first)
        if (k := constant_int(base)) is not None:
            return gast.Constant(value=k + total, kind=None)
        if isinstance(base, gast.BinOp) and isinstance(base.op, (gast.Add, gast.Sub)) and \
                (k := constant_int(base.right)) is not None:
            total += k if isinstance(base.op, gast.Add) else -k
            base = base.left
        if total == 0:
            return base
        op = gast.Add() if total > 0 else gast.Sub()
        return gast.BinOp(left=base, op=op, right=gast.Constant(value=abs(total), kind=None))

    if isinstance(target.slice, gast.Tuple):
        index_node = gast.Tuple(elts=[fold(p) for p in target.slice.elts], ctx=gast.Load())
    else:
        index_node = fold(target.slice)
    return gast.Subscript(value=copy.deepcopy(target.value), slice=index_node, ctx=gast.Load())
