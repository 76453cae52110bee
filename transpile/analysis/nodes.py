"""Tree helpers the loop analyses share: the nodes of a scope, the names it stores and loads,
the statement that binds a name or holds a node."""

from __future__ import annotations

import ast
import copy

import gast

from pforge.transpile.spaces import constant_int


def _scope_nodes(stmts):
    """All nodes under ``stmts``, not descending into nested function or class bodies."""
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        stack.extend(reversed(list(gast.iter_child_nodes(node))))


def _stored_names(stmts) -> dict[str, list[gast.Name]]:
    """The names ``stmts`` bind in their own scope, each with its stores. A comprehension's
    targets live in the comprehension's scope (Python 3), so they are not stores of ``stmts``;
    a ``:=`` inside a comprehension binds in the enclosing scope and is one."""
    stored: dict[str, list[gast.Name]] = {}
    private = {id(n) for node in _scope_nodes(stmts) if isinstance(node, gast.comprehension)
               for n in gast.walk(node.target)}
    for node in _scope_nodes(stmts):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and id(node) not in private:
            stored.setdefault(node.id, []).append(node)
    return stored


def _loaded_names(node) -> list[gast.Name]:
    found, bound = [], set()
    for sub in gast.walk(node):
        if isinstance(sub, gast.comprehension):
            bound |= {n.id for n in gast.walk(sub.target) if isinstance(n, gast.Name)}
        elif isinstance(sub, gast.Lambda):
            bound |= {a.id for a in sub.args.args if isinstance(a, gast.Name)}
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and sub.id not in bound:
            found.append(sub)
    return found


def _statements(root):
    """``root`` and every statement under it, nested functions and classes included.

    Loops and ``global``/``nonlocal`` are statements: finding them this way skips the
    expressions, most of the tree.
    """
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(reversed(block))


def statements_under_tests(stmts):
    """The statements of ``stmts`` and of the arms of their ``if`` statements, at any depth,
    not of inner loops (a ``continue`` guard is an ``if`` around the rest of a body by the time
    the analyses run)."""
    for stmt in stmts:
        yield stmt
        if isinstance(stmt, gast.If):
            yield from statements_under_tests(stmt.body)
            yield from statements_under_tests(stmt.orelse)


def _binding(ctx, name_node):
    """The statement that binds ``name_node`` and the value bound to it (tuple targets too)."""
    parent = ctx.parents.get(id(name_node))
    if isinstance(parent, gast.Assign) and len(parent.targets) == 1 and parent.targets[0] is name_node:
        return parent, parent.value
    if isinstance(parent, gast.Tuple):
        stmt = ctx.parents.get(id(parent))
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is parent
                and isinstance(stmt.value, gast.Tuple) and len(stmt.value.elts) == len(parent.elts)):
            return stmt, stmt.value.elts[parent.elts.index(name_node)]
    return None, None


def shape_source(ctx, name_node) -> gast.expr | bool | None:
    """What binds ``name_node`` to a number of an array's shape: the array (a name) for
    ``n = x.shape[k]``, ``n = np.shape(x)[k]``, ``n = x.ndim``, ``n = x.size`` and
    ``n, d = x.shape`` (also ``np.shape(x)``), whose values are Python ints where ``x`` is an
    ndarray; True for ``n = len(...)``, a Python int whatever it measures; else None."""
    stmt, value = _binding(ctx, name_node)
    if stmt is None:  # `n, d = x.shape`
        parent = ctx.parents.get(id(name_node))
        stmt = ctx.parents.get(id(parent)) if isinstance(parent, gast.Tuple) else None
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is parent):
            return None
        return _shape_of_name(ctx, stmt.value)
    if isinstance(value, gast.Call) and ctx.imports.resolve(value.func) == "builtins.len" \
            and len(value.args) == 1 and not value.keywords:
        return True
    if isinstance(value, gast.Attribute) and value.attr in ("ndim", "size") and isinstance(value.value, gast.Name):
        return value.value
    if isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Constant) \
            and type(value.slice.value) is int:
        return _shape_of_name(ctx, value.value)
    return None


def _shape_of_name(ctx, node) -> gast.Name | None:
    """``x`` for ``x.shape`` or ``np.shape(x)``."""
    if isinstance(node, gast.Attribute) and node.attr == "shape" and isinstance(node.value, gast.Name):
        return node.value
    if isinstance(node, gast.Call) and ctx.imports.resolve(node.func) == "numpy.shape" and len(node.args) == 1 \
            and not node.keywords and isinstance(node.args[0], gast.Name):
        return node.args[0]
    return None


def _range_target(ctx, name_node) -> bool:
    """``name_node`` is the target of ``for name in range(...)``: a Python int."""
    loop = ctx.parents.get(id(name_node))
    return isinstance(loop, gast.For) and loop.target is name_node and isinstance(loop.iter, gast.Call) \
        and ctx.imports.resolve(loop.iter.func) == "builtins.range"


def shape_ints_at_entry(ctx, loop, name: str) -> set[str] | None:
    """The arrays ``name`` measures when every definition of it that reaches a read in
    ``loop`` from outside binds a number of an array's shape (:func:`shape_source`), or is
    the index of a ``range`` loop around it: where those arrays are ndarrays, ``name`` holds
    a Python int wherever the loop starts (``len`` and ``range`` need none). None otherwise."""
    found = _entry_definitions(ctx, loop, name)
    if found is None or found[1] or not found[0]:
        return None
    arrays: set[str] = set()
    for d in found[0]:
        source = shape_source(ctx, d) if isinstance(d, gast.Name) else None
        if source is None and isinstance(d, gast.Name) and _range_target(ctx, d):
            source = True
        if source is None:
            return None
        if source is not True:
            arrays.add(source.id)
    return arrays


def _entry_definitions(ctx, loop, name: str) -> tuple[list, bool] | None:
    """The definitions of ``name`` (their nodes) that reach a read of it in ``loop`` (``s *= t``
    reads ``s``) from outside the loop, by beniget's reaching definitions, and whether one
    from inside the loop reaches one too. None where they need the whole module."""
    from pforge.transpile.analysis.facts import WholeModuleNeeded
    inside = {id(n) for n in gast.walk(loop)}
    updated = {id(n.target) for n in gast.walk(loop) if isinstance(n, gast.AugAssign)}
    outside, rebound = [], False
    for node in gast.walk(loop):
        if not (isinstance(node, gast.Name) and node.id == name and
                (isinstance(node.ctx, gast.Load) or id(node) in updated)):
            continue
        try:
            defs = ctx.definitions_of(node)
        except WholeModuleNeeded:
            return None
        for d in defs:
            if id(d.node) in inside:
                rebound = True
            elif all(o is not d.node for o in outside):
                outside.append(d.node)
    return outside, rebound


def _statement_of(ctx, node):
    while node is not None and not isinstance(node, gast.stmt):
        node = ctx.parents.get(id(node))
    return node


#: what an expression the analysis evaluates again may hold: names, integers' arithmetic
PLAIN_ARITHMETIC = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Load, gast.Add, gast.Sub, gast.Mult,
                    gast.FloorDiv, gast.USub, gast.UAdd)


def _enclosing_scope(ctx, node):
    """The function (or module) whose body holds ``node``."""
    while not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Module)):
        node = ctx.parents[id(node)]
    return node


def _private_names(scope) -> bool:
    """Nothing but ``scope``'s own statements can see its names: no nested function, lambda or
    class, no ``global`` or ``nonlocal``."""
    return not any(isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
                                  gast.Global, gast.Nonlocal)) for n in _scope_nodes(scope.body))


#: the Python type of a number literal
_LITERAL_TYPES = {bool: "bool", int: "int", float: "float", complex: "complex"}


def literal_number_at_entry(ctx, loop, name: str) -> str | None:
    """``"bool"``, ``"int"``, ``"float"`` or ``"complex"`` when every definition of ``name``
    that reaches a read of it in ``loop`` (``s *= t`` reads ``s``) from outside the loop binds a
    number literal (``G = 0.0``, ``count = -1``), by beniget's reaching definitions: ``name``
    then holds a Python number of that type wherever the loop starts, and no run-time check
    need ask. None otherwise (no such definition, another binding, literals of two types, or
    definitions outside the function's outline)."""
    entry = _entry_definitions(ctx, loop, name)
    if entry is None:
        return None
    found = set()
    for d in entry[0]:
        stmt, value = _binding(ctx, d) if isinstance(d, gast.Name) else (None, None)
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
            value = value.operand
        kind = _LITERAL_TYPES.get(type(value.value)) if isinstance(value, gast.Constant) else None
        if kind is None:
            return None
        found.add(kind)
    return found.pop() if len(found) == 1 else None


def literal_at_entry(ctx, loop, name: str) -> int | float | None:
    """The value of the int or float literal (``s = 0.0``, ``s = -1e9``, ``s = tf.constant(0.0)``) that every
    definition of ``name`` reaching ``loop`` from outside it binds, where ``loop`` is no loop's
    body (the next pass of a loop around it would start from the value this one left); else
    None. Equal literals of two types (``0`` and ``0.0``) give the first."""
    node = ctx.parents.get(id(loop))
    while node is not None and not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Module)):
        if isinstance(node, (gast.For, gast.While, gast.AsyncFor)):
            return None
        node = ctx.parents.get(id(node))
    entry = _entry_definitions(ctx, loop, name)
    if entry is None or not entry[0]:
        return None
    found = []
    for d in entry[0]:
        _, value = _binding(ctx, d) if isinstance(d, gast.Name) else (None, None)
        if isinstance(value, gast.Call) and ctx.imports.resolve(value.func) == "tensorflow.constant" \
                and len(value.args) == 1 and not value.keywords:
            value = value.args[0]
        number = number_literal(value)
        if number is None:
            return None
        found.append(number)
    return found[0] if all(v == found[0] for v in found) else None


def number_literal(node) -> int | float | None:
    """The int or float a literal spells, ``0.0`` or ``-1e9`` (a minus sign before a literal), else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = number_literal(node.operand)
        return None if inner is None or isinstance(node.operand, gast.UnaryOp) else -inner
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def tensor_at_entry(ctx, loop, name: str) -> str | None:
    """``"float32"`` or ``"int32"`` where every definition of ``name`` reaching ``loop`` from
    outside it is ``tf.constant(<literal>)`` (:func:`literal_at_entry`) of a float or an int:
    TensorFlow's dtype for a Python number, which the loop's ``s + x[i]`` converts each term to
    (a NumPy float64 term becomes float32); else None."""
    if literal_at_entry(ctx, loop, name) is None:
        return None
    kinds = set()
    for d in _entry_definitions(ctx, loop, name)[0]:
        _, value = _binding(ctx, d) if isinstance(d, gast.Name) else (None, None)
        if not (isinstance(value, gast.Call) and ctx.imports.resolve(value.func) == "tensorflow.constant"):
            return None
        kinds.add("float32" if isinstance(number_literal(value.args[0]), float) else "int32")
    return kinds.pop() if len(kinds) == 1 else None


def dead_start(ctx, loop, name: str) -> list[gast.stmt] | None:
    """The statements ``name = <literal>`` (:func:`literal_at_entry`) beside ``loop`` in its block
    that start a running value of it, where nothing but the loop reads what they bind: the statements to delete once
    the loop's rewrite no longer reads ``name`` (a scan of the terms alone, a start written as
    the literal); else None (a read elsewhere, a definition that is no plain literal)."""
    if literal_at_entry(ctx, loop, name) is None:
        return None
    siblings = _block_of(ctx, loop)
    inside = {id(n) for n in gast.walk(loop)}
    stmts = []
    for d in _entry_definitions(ctx, loop, name)[0]:
        stmt, _ = _binding(ctx, d)
        if stmt is None or len(stmt.targets) != 1 or stmt.targets[0] is not d:
            return None  # (`s, t = 0.0, x`: the statement binds more than the start)
        if any(id(u) not in inside for u in ctx.users_of(d)):
            return None
        if siblings is None or all(stmt is not s for s in siblings):
            return None  # (only beside the loop: one in a branch of its own would leave `pass`)
        stmts.append(stmt)
    return stmts


def bound_at_entry_to(ctx, loop, name: str, value: gast.expr) -> bool:
    """Whether ``name`` holds the value of ``value`` wherever ``loop`` starts: the one definition
    of it that reaches the loop from outside is ``name = value`` (the same code, up to the
    spelling of a negative literal), in the loop's block before it, ``value`` reads names,
    literals, subscripts and arithmetic only (no call, no attribute), none of them bound in
    the loop or by that statement, and nothing in between could change them
    (:func:`quiet_between`). ``prev = x[-1]`` before ``for i in range(len(x)): ...;
    prev = x[i]`` is so bound to ``x[i - 1]`` of the first iteration."""
    allowed = (gast.Name, gast.Constant, gast.Subscript, gast.Slice, gast.Tuple, gast.BinOp, gast.UnaryOp,
               gast.Load, gast.operator, gast.unaryop)
    if not all(isinstance(n, allowed) for n in gast.walk(value)):
        return False
    read = {n.id for n in gast.walk(value) if isinstance(n, gast.Name)}
    if read & {n.id for n in gast.walk(loop) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}:
        return False
    entry = _entry_definitions(ctx, loop, name)
    if entry is None or len(entry[0]) != 1 or not isinstance(entry[0][0], gast.Name):
        return False
    stmt, bound = _binding(ctx, entry[0][0])
    if stmt is None or len(stmt.targets) != 1 or _spelled(bound) != _spelled(value):
        return False
    if read & {n.id for n in gast.walk(stmt.targets[0]) if isinstance(n, gast.Name)}:
        return False  # (`x, prev = y, x[-1]`: the start is of the array bound before)
    return quiet_between(ctx, stmt, loop, read)


def in_a_namesake(ctx, fdef) -> bool:
    """Whether the function ``fdef`` lies inside a function of its own name (``def f(x):
    def f(x): ...``), where a fact keyed ``"f.x"`` (``--shapes``, the staged decorator's
    signature) names the outer one's parameter."""
    up = ctx.parents.get(id(fdef))
    while up is not None:
        if isinstance(up, (gast.FunctionDef, gast.AsyncFunctionDef)) and up.name == fdef.name:
            return True
        up = ctx.parents.get(id(up))
    return False


def quiet_between(ctx, stmt, loop, names: set[str]) -> bool:
    """Whether ``stmt`` stands before ``loop`` in its block, and the statements between bind
    plain names not in ``names`` to values that call nothing but ``len`` and NumPy's
    constructors, with no ``:=``, ``yield`` or ``await`` in them: nothing there rebinds,
    resizes or writes what ``names`` hold (``x.pop()``, ``del x[-1]``, ``x[:] = x[1:]``,
    ``out.resize(...)``, a helper that pops, a caller that reshapes while a generator waits)."""
    block = _block_of(ctx, loop)
    at = [k for k, s in enumerate(block or []) if s is stmt or s is loop]
    if len(at) != 2 or block[at[0]] is not stmt:
        return False
    from pforge.transpile.analysis.aliasing import _FRESH_CALLS
    for between in block[at[0] + 1:at[1]]:
        if any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await)) for n in gast.walk(between)):
            return False  # (`k = (m := m - 1)` binds `m`; at a `yield` the caller may reshape anything: helper-71)
        if not isinstance(between, gast.Assign) or any(
                not isinstance(t, gast.Name) or t.id in names for t in between.targets) or any(
                isinstance(n, gast.Call) and ctx.imports.resolve(n.func) not in _FRESH_CALLS | {"builtins.len"}
                for n in gast.walk(between.value)):
            return False
    return True


def _spelled(node) -> str:
    """``node``'s code, parsed again: ``x[-1]`` whether its index is the literal -1 or ``-(1)``."""
    return ast.dump(ast.parse(gast.unparse(node).strip(), mode="eval"))


def _block_of(ctx, stmt) -> list | None:
    """The list of statements (a body, an ``else`` part) that holds ``stmt``."""
    parent = ctx.parents.get(id(stmt))
    return next((value for field in ("body", "orelse", "finalbody")
                 if isinstance(value := getattr(parent, field, None), list) and any(s is stmt for s in value)), None)


def appended_item(call) -> gast.expr | None:
    """The item ``call`` adds to a list named by a plain name: ``e`` of ``v.append(e)`` (at the
    end) and of ``v.insert(0, e)`` (at the front); else None."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and isinstance(call.func.value, gast.Name) and not call.keywords
            and not any(isinstance(a, gast.Starred) for a in call.args)):
        return None
    if call.func.attr == "append" and len(call.args) == 1:
        return call.args[0]
    if call.func.attr == "insert" and len(call.args) == 2 and isinstance(call.args[0], gast.Constant) \
            and type(call.args[0].value) is int and call.args[0].value == 0:
        return call.args[1]
    return None


def prepends(call) -> bool:
    """Whether ``call`` is ``v.insert(0, e)``, an item put at the front (:func:`appended_item`)."""
    return appended_item(call) is not None and call.func.attr == "insert"


def substituted(node, values: dict) -> gast.expr:
    """A copy of ``node`` with each name in ``values`` replaced by (a copy of) its expression."""
    class _Swap(gast.NodeTransformer):
        def visit_Name(self, name):
            return copy.deepcopy(values[name.id]) if name.id in values else name

    return _Swap().visit(copy.deepcopy(node))


def reversed_operand(node) -> gast.expr | None:
    """``v`` of ``v[::-1]`` (read in the opposite order), else None."""
    if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) and node.slice.lower is None \
            and node.slice.upper is None and constant_int(node.slice.step) == -1:
        return node.value
    return None
