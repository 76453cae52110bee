"""Reductions (``s ⊕= term`` in every store of ``s``), scans (the same update, with ``s`` also
read in the body), those whose first iteration assigns
(``if i == 0: s = t`` / ``else: s += t``, put in the first form by
:func:`first_iteration_reductions`) and arg-reductions (``if v > best: best, idx = v, i``);
:func:`reduction_term` and :func:`contribution` answer the backends."""

from __future__ import annotations

import copy

import gast

from pforge.transpile.analysis.aliasing import _alias_source, _view_base
from pforge.transpile.analysis.facts import (ARG_REDUCTION, REDUCTION, SCAN, ArgReduction,
                                             Reduction, Scan)
from pforge.transpile.analysis.nodes import (PLAIN_ARITHMETIC, _binding, _loaded_names, _scope_nodes,
                                             _statement_of, _statements, _stored_names)
from pforge.transpile.operators import AUG_OPS, BINOPS, BOOLOPS, CALLS
from pforge.transpile.spaces import constant_int


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


def counted_under_a_test(ctx, info) -> str | None:
    """A sum of integer literals (``count += 1``) under a per-iteration ``if``, on a name the
    function binds to a Python int before the loop and computes with after it, or None.

    The loop keeps such a count a Python int, which mixes with a tensor of any dtype
    (``total / count``); how many iterations add to it depends on the data, so a batched
    count is an int32 tensor, which TensorFlow does not divide a float tensor by. TensorFlow
    code only (NumPy's integer scalars mix with floats as Python's do).

    Returns:
        The reduction's name.
    """
    if info.function is None:
        return None
    for level in info.walk():
        for name, red in level.reductions.items():
            if red.op != "add" or not all(isinstance(u, (gast.Assign, gast.AugAssign)) for u in red.updates):
                continue
            terms = [contribution(u, name) for u in red.updates]
            chosen = [t for t in terms if isinstance(t, gast.IfExp) and _int_literal(t.body) and _int_literal(t.orelse)]
            if red.op != "add" or not all(_int_literal(t) or any(t is c for c in chosen) for t in terms):
                continue
            # (the body as analysed: a `continue` guard is an `if` around the rest by now)
            under = {id(n) for node in gast.walk(level.node) if isinstance(node, gast.If) for n in gast.walk(node)}
            if not chosen and not any(id(u) in under for u in red.updates):
                continue
            if _python_int_before(info, name) and _arithmetic_after(ctx, info, name):
                return name
    return None


def _arithmetic_after(ctx, info, name) -> bool:
    """``name`` is read after the loop other than returned or compared (``total / count``,
    ``max(count, 1)``, ``tf.math.divide(total, count)``): only where it is returned or compared
    does an int32 tensor give the loop's numbers."""
    end = info.node.end_lineno or info.node.lineno
    for n in gast.walk(info.function):
        if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) and n.lineno > end:
            parent = ctx.parents.get(id(n))
            if isinstance(parent, gast.Tuple):
                parent = ctx.parents.get(id(parent))
            if not isinstance(parent, (gast.Return, gast.Compare)):
                return True
    return False


def _int_literal(node) -> bool:
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Constant) and type(node.value) is int


def _python_int_before(info, name) -> bool:
    """The function binds ``name`` to an int literal before the loop (``count = 0``,
    ``total, count = tf.zeros([]), 0``)."""
    for node in gast.walk(info.function):
        if isinstance(node, gast.AnnAssign) and node.value is not None and node.lineno < info.node.lineno \
                and isinstance(node.target, gast.Name) and node.target.id == name and _int_literal(node.value):
            return True  # (`count: int = 0`)
        if not isinstance(node, gast.Assign) or node.lineno >= info.node.lineno:
            continue
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, gast.Tuple) and isinstance(node.value, gast.Tuple) \
                    and len(target.elts) == len(node.value.elts):
                pairs = list(zip(target.elts, node.value.elts))
            if any(isinstance(t, gast.Name) and t.id == name and _int_literal(v) for t, v in pairs):
                return True
    return False


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
            if len(ops) != 1 or not _plain_accumulator(ctx, info, body, stored, name, updates):
                continue
            if any(not _shape_read(ctx, n) for n in _stray_reads(body, name, updates)) or (
                    _stray_reads(body, name, updates) and not _fixed_shape(ctx, info, name, updates)):
                continue
            info.reductions[name] = Reduction(name, ops.pop(), updates)
            info.classes[name] = REDUCTION


def _plain_accumulator(ctx, info, body, stored, name, updates) -> bool:
    """``name`` starts as a number or an array of its own, not a sequence (``+`` concatenates)
    nor a view that ``+=`` would write into (``s = x[-1]; s += x[i]``), and no other name of
    the body reads it through an alias."""
    initial = _initial_values(ctx, info, name)
    if any(_is_sequence_value(ctx, v) for v in initial):
        return False
    if any(isinstance(u, gast.AugAssign) for u in updates) and any(
            _view_base(ctx, v)[0] is not None for v in initial):
        return False
    loop_ids = {id(n) for n in _scope_nodes([info.node])}
    return not any(isinstance(n, gast.Name) and n.id != name and isinstance(n.ctx, gast.Load)
                   and n.id not in stored and (_alias_source(ctx, n, loop_ids) or ("",))[0] == name
                   for n in _scope_nodes(body))


#: reads of an array's shape and kind, not of its values
_SHAPE_CALLS = {"numpy.shape", "numpy.ndim", "numpy.size", "builtins.len"}
_SHAPE_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}

#: calls that return a new NumPy array, whose shape and dtype `+=` keeps
NEW_ARRAYS = {f"numpy.{name}" for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like",
                                             "empty_like", "full_like")}


def _shape_read(ctx, name_node) -> bool:
    """``np.shape(s)``, ``len(s)``, ``s.shape``, ``s.ndim``, ``s.dtype``: what the read takes
    is the array's shape or kind."""
    parent = ctx.parents.get(id(name_node))
    if isinstance(parent, gast.Attribute) and parent.value is name_node:
        return parent.attr in _SHAPE_ATTRIBUTES
    return (isinstance(parent, gast.Call) and parent.args == [name_node] and not parent.keywords
            and ctx.imports.resolve(parent.func) in _SHAPE_CALLS)


def _fixed_shape(ctx, info, name, updates) -> bool:
    """An accumulator whose shape and dtype no iteration changes: a new NumPy array
    (``np.zeros((n, 1))``) updated in place (``s += t``, which broadcasts ``t`` to ``s``), so
    a read of its shape (``np.ones(np.shape(s))``) reads the same on every iteration
    (ml-from-scratch's AdaBoost votes)."""
    initial = _initial_values(ctx, info, name)
    return bool(initial) and all(isinstance(u, gast.AugAssign) for u in updates) and all(
        isinstance(v, gast.Call) and ctx.imports.resolve(v.func) in NEW_ARRAYS for v in initial)


def _stray_reads(body, name, updates) -> list[gast.Name]:
    """The uses of ``name`` in the body outside its update statements."""
    update_ids = {id(n) for stmt in updates for n in gast.walk(stmt)}
    return [n for n in _scope_nodes(body) if isinstance(n, gast.Name) and n.id == name
            and id(n) not in update_ids]


#: callees of ``s = f(s, t)`` whose accumulate gives the loop's values, NaN included
#: (``builtins.max`` keeps its first argument when the second is NaN: neither ufunc does that;
#: ``np.fmax.accumulate`` returns another zero's sign than ``np.fmax`` of the same two zeros)
_SCAN_CALLS = {"numpy.maximum", "numpy.minimum", "tensorflow.maximum", "tensorflow.math.maximum",
               "tensorflow.minimum", "tensorflow.math.minimum"}


def _linear_update(stmt, name) -> tuple[gast.expr, gast.expr] | None:
    """``(a, b)`` when ``stmt`` is ``name = a * name + b`` in one of its spellings (``name * a``,
    ``b + a * name``, ``a * name - b``, ``b - a * name``), ``a`` and ``b`` not reading
    ``name``; the signs are folded into ``a`` and ``b`` (new nodes)."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == name and isinstance(stmt.value, gast.BinOp)
            and isinstance(stmt.value.op, (gast.Add, gast.Sub))):
        return None

    def scaled(node):  # `a * name` or `name * a`: a
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            for this, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(this, gast.Name) and this.id == name:
                    return other
            # `gamma * name * mask[t]`: the running value one factor of a product, the others
            # its coefficient; multiplied in another order than the loop's (`pforge_reassociated`)
            factors, left = [node.right], node.left
            while isinstance(left, gast.BinOp) and isinstance(left.op, gast.Mult):
                factors.insert(0, left.right)
                left = left.left
            factors.insert(0, left)
            mine = [f for f in factors if isinstance(f, gast.Name) and f.id == name]
            if len(mine) == 1 and len(factors) > 2:
                others = [copy.deepcopy(f) for f in factors if f is not mine[0]]
                a = others[0]
                for f in others[1:]:
                    a = gast.BinOp(left=a, op=gast.Mult(), right=f)
                a.pforge_reassociated = True
                return a
        return None

    def negated(node):  # a sign the spelling folds in (a minus the user wrote stays in its part)
        found = gast.UnaryOp(op=gast.USub(), operand=node)
        found.pforge_folded = True
        return found

    left, right, minus = stmt.value.left, stmt.value.right, isinstance(stmt.value.op, gast.Sub)
    if (a := scaled(left)) is not None:
        found = (a, negated(right) if minus else right)
    elif (a := scaled(right)) is not None:
        found = (negated(a) if minus else a, left)
    else:
        return None
    if any(isinstance(n, gast.Name) and n.id == name for part in found for n in gast.walk(part)):
        return None
    if all(isinstance(p, gast.UnaryOp) and isinstance(p.op, gast.USub) for p in found):
        # `-y[i] - s * a`: both parts negated, which `Scan.spelling` (one sign, on one part)
        # cannot say; it read `a * s - y` (fuzz seed 6301457)
        return None
    return found


def _find_scans(ctx, info, body, stored):
    """Scans (:class:`~pforge.transpile.analysis.facts.Scan`): ``s ⊕= t`` with ``⊕`` a sum,
    difference, product or ``np.maximum``/``np.minimum`` (``tf.``), the only store of ``s``,
    a statement of the body itself (not under an ``if`` or in an inner loop), and ``s`` read
    elsewhere in the body (else it is a reduction); or ``s = a * s + b``, read in the body or
    not. Reads before the update need the term to read nothing the body binds, so that the
    running values are known before the body runs."""
    for name, stores in stored.items():
        if name in info.classes or len(stores) != 1:
            continue
        update = next((stmt for stmt in body if any(n is stores[0] for n in gast.walk(stmt))), None)
        if update is None:
            continue
        op, linear = _reduction_update(ctx, update, name), None
        if op is None and (linear := _linear_update(update, name)) is not None:
            op = "linear"
        if op not in ("add", "mul", "max", "min", "linear"):
            continue
        if op in ("max", "min") and ctx.imports.resolve(update.value.func) not in _SCAN_CALLS:
            continue
        term = reduction_term(update, name) if linear is None else gast.Tuple(elts=list(linear), ctx=gast.Load())
        if (linear is None and _is_sequence_value(ctx, term)) or \
                not _plain_accumulator(ctx, info, body, stored, name, [update]):
            continue
        reads = _stray_reads(body, name, [update])
        if (not reads and linear is None) or any(not isinstance(n.ctx, gast.Load) for n in reads):
            continue
        before = {id(n) for stmt in body[:body.index(update)] for n in gast.walk(stmt)}
        exclusive = any(id(n) in before for n in reads)
        roots = alias_roots(ctx, info.node, _scope_nodes(body)) if exclusive else {}
        if exclusive and ({n.id for n in _loaded_names(term)} & set(stored) or stored_before_read(body, update, term, roots)):
            continue
        array, element = getattr(info.node, "pforge_carried", {}).get(name, (None, None))
        read = getattr(info.node, "pforge_carried_reads", {}).get(name)
        info.scans[name] = Scan(name, op, update, exclusive, *(linear or (None, None)), array, element, read)
        info.classes[name] = SCAN


def stored_before_read(body, update, term, roots=None) -> bool:
    """The term of an exclusive scan's update reads an array the body stores into, other than
    the same element stored after the update (``s = s + a[i]; a[i] = 0``, read first).

    The printers compute the running values, which the exclusive read needs, where the body
    starts: before ``d[i] *= 2`` (or ``d[i + 1] = c[i]`` of the iteration before) changes what
    the term reads (b90). A statement that computes the store from the running value read
    before the update (``a[i] = s + c[i]; s = s + a[i]``) feeds the running value back into its
    own terms, a recurrence no scan computes, which the dependence tests do not see as a cycle
    because reads of ``s`` are the scan's (b89). Names the body binds are refused by the caller.
    ``roots``: name -> the array it aliases (``a2 = a`` before the loop, :func:`alias_roots`),
    so that a store into ``a`` reaches reads of ``a2``."""
    roots = roots or {}
    reads: dict[str, set] = {}  # array -> the indices the term reads it at (None: otherwise)
    subscripted = {id(n.value) for n in gast.walk(term) if isinstance(n, gast.Subscript)}
    for n in gast.walk(term):
        if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name):
            reads.setdefault(roots.get(n.value.id, n.value.id), set()).add(gast.dump(n.slice))
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and id(n) not in subscripted:
            reads.setdefault(roots.get(n.id, n.id), set()).add(None)
    position = body.index(update)
    for k, stmt in enumerate(body):
        for n in gast.walk(stmt):
            if stmt is update or not (isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, gast.Store)):
                continue
            root = _root_name(n)
            if roots.get(root, root) in reads and (
                    k < position or not isinstance(n, gast.Subscript) or not isinstance(n.value, gast.Name)
                    or reads[roots.get(root, root)] != {gast.dump(n.slice)}):
                return True
    return False


def alias_roots(ctx, loop, nodes) -> dict[str, str]:
    """Name -> the array it is bound to before ``loop`` through ``b = a`` and views
    (:func:`~pforge.transpile.analysis.aliasing._alias_source`), for the names ``nodes`` (of the
    loop's body, in the tree) read."""
    loop_ids = {id(n) for n in _scope_nodes([loop])}
    roots = {}
    for n in nodes:
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in roots:
            found = _alias_source(ctx, n, loop_ids)
            if found is not None:
                roots[n.id] = found[0]
    return roots


def _root_name(node) -> str | None:
    """``a`` of ``a[i]``, ``a[i][j]``, ``a.b[i]``."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


_COMPARE_DIRECTION = {gast.Gt: ("max", True), gast.GtE: ("max", False),
                      gast.Lt: ("min", True), gast.LtE: ("min", False)}
_MIRROR = {gast.Gt: gast.Lt, gast.GtE: gast.LtE, gast.Lt: gast.Gt, gast.LtE: gast.GtE}


def _find_arg_reductions(info, body, stored):
    """Finds argmax/argmin tracking: ``if v > best: best, idx = v, i`` (also as two assignments,
    with ``>=``, ``<``, ``<=``, or with ``best`` on the left of the comparison), and the same
    with no index, ``if v > best: best = v`` (a max reduction whose NaN terms never win, keyed
    by ``best``, :attr:`ArgReduction.name` None), or with several values taken where the
    extreme is reached (``best_w = w``, ``best_at = i``: one ArgReduction each, one ``stmt``)."""
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
        if assigned is None or best not in assigned:
            continue
        term, names = assigned[best], set(assigned)
        loaded = {n.id for part in (left, *assigned.values()) for n in _loaded_names(part)}
        if gast.dump(term) != gast.dump(left) or loaded & names or \
                any(len(stored.get(n, ())) != 1 for n in names):
            continue
        owned = {id(n) for n in gast.walk(stmt)}
        if any(isinstance(n, gast.Name) and n.id in names and id(n) not in owned
               for n in _scope_nodes(body)):
            continue
        red_op, strict = _COMPARE_DIRECTION[op]
        info.reductions[best] = Reduction(best, red_op, [stmt])
        info.classes[best] = REDUCTION
        for idx in [n for n in assigned if n != best] or [None]:
            info.arg_reductions[idx or best] = ArgReduction(idx, best, red_op, strict, term, assigned.get(idx), stmt)
            if idx is not None:
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


# -- if i == 0: s = t / else: s += t ---------------------------------------------------------------

def first_iteration_reductions(ctx) -> bool:
    """``if i == 0: s = t`` / ``else: s += t`` at the top of a loop body is the reduction
    ``s += t`` whose first iteration assigns: the loop's result is the sum (or product) of
    the terms alone, whatever ``s`` held before. The ``if`` becomes the update and the loop
    is marked (``pforge_first_assign``): the direct printer assigns the reduced terms to
    ``s``, where the loop runs at all; the other printers leave it.

    Only where exact: ``i`` is the loop's index (a range, or ``enumerate``) and the test
    names its first value, the two terms are the same expression and do not read ``s``, and
    nothing else in the loop binds ``s`` or the index, or the start the test compares with.
    """
    changed = False
    for loop in list(_statements(ctx.tree)):
        if not isinstance(loop, gast.For):
            continue
        first = _first_value(ctx, loop)
        if first is None:
            continue
        index, start = first
        for position, stmt in enumerate(loop.body):
            found = _first_assigned(stmt, index, start)
            if found is None:
                continue
            name, update = found
            stored = _stored_names(loop.body)
            if len(stored.get(name, ())) != 2 or index in stored or any(
                    isinstance(n, gast.Name) and n.id in stored for n in gast.walk(start)):
                continue
            loop.body = loop.body[:position] + [update] + loop.body[position + 1:]
            loop.pforge_first_assign = getattr(loop, "pforge_first_assign", set()) | {name}
            changed = True
            break
    return changed


def _first_value(ctx, loop) -> tuple[str, gast.expr] | None:
    """The loop's index and the expression of its first value (``range(a, b)``: ``a``), or None."""
    it = loop.iter
    if not isinstance(it, gast.Call) or it.keywords:
        return None
    callee = ctx.imports.resolve(it.func)
    if callee == "builtins.range" and isinstance(loop.target, gast.Name) and 1 <= len(it.args) <= 3:
        start = it.args[0] if len(it.args) > 1 else gast.Constant(value=0, kind=None)
        if not all(isinstance(n, PLAIN_ARITHMETIC) for n in gast.walk(start)):
            return None
        return loop.target.id, start
    if callee == "builtins.enumerate" and 1 <= len(it.args) <= 2 and isinstance(loop.target, gast.Tuple) \
            and isinstance(loop.target.elts[0], gast.Name):
        start = it.args[1] if len(it.args) == 2 else gast.Constant(value=0, kind=None)
        return (loop.target.elts[0].id, start) if constant_int(start) is not None else None
    return None


def _first_assigned(stmt, index: str, start) -> tuple[str, gast.stmt] | None:
    """``(s, s += t)`` for ``if index == start: s = t else: s += t`` (or ``s = s + t``, ``*``)."""
    if not (isinstance(stmt, gast.If) and len(stmt.body) == 1 and len(stmt.orelse) == 1):
        return None
    test = stmt.test
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], gast.Eq)):
        return None
    sides = [test.left, test.comparators[0]]
    names = [isinstance(side, gast.Name) and side.id == index for side in sides]
    if names.count(True) != 1 or gast.dump(sides[names.index(False)]) != gast.dump(start):
        return None
    assign, update = stmt.body[0], stmt.orelse[0]
    if not (isinstance(assign, gast.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0], gast.Name)):
        return None
    name, term = assign.targets[0].id, assign.value
    if isinstance(update, gast.AugAssign) and isinstance(update.target, gast.Name) and update.target.id == name \
            and isinstance(update.op, (gast.Add, gast.Mult)):
        other = update.value
    elif isinstance(update, gast.Assign) and len(update.targets) == 1 and isinstance(update.targets[0], gast.Name) \
            and update.targets[0].id == name and isinstance(update.value, gast.BinOp) \
            and isinstance(update.value.op, (gast.Add, gast.Mult)):
        left, right = update.value.left, update.value.right
        if isinstance(left, gast.Name) and left.id == name:
            other = right
        elif isinstance(right, gast.Name) and right.id == name:
            other = left
        else:
            return None
    else:
        return None
    if gast.dump(other) != gast.dump(term) or any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(term)):
        return None
    return name, update
