"""Decides whether a function may be staged with ``tf.function`` (Agrawal et al., arXiv:1903.01855).

Vectorized code must not re-trace on every call, so the enclosing function is decorated with
``tf.function`` when that keeps its meaning: everything left in it is graph-safe (pure
TensorFlow and Python arithmetic, no prints, host conversions, NumPy calls or other effects
that would run only once, at trace time).
"""

from __future__ import annotations

import gast

from pforge.transpile import effects
from pforge.transpile.analysis import NEUTRAL_CONSTANTS, ModuleContext

_ORDERED_ONLY = {"PF201", "PF202", "PF203", "PF212"}
_ALLOWED_DECORATORS = {"builtins.staticmethod", "builtins.classmethod"}


def is_staged(ctx: ModuleContext, fdef: gast.FunctionDef) -> bool:
    """True when ``fdef`` is already decorated with ``tf.function``."""
    for dec in fdef.decorator_list:
        target = dec.func if isinstance(dec, gast.Call) else dec
        if ctx.imports.resolve(target) == "tensorflow.function":
            return True
    return False


def stage_blocker(ctx: ModuleContext, fdef: gast.FunctionDef | None, rewritten: list[gast.stmt],
                  kept_loops: list) -> str | None:
    """Why ``fdef`` cannot be decorated with ``tf.function`` after the rewrite, or None.

    Args:
        fdef: the enclosing function (None at module level: nothing to stage).
        rewritten: the loop statements being replaced (not inspected).
        kept_loops: analysed loops that stay loops in the function.
    Returns:
        None when staging is safe, else a short reason naming the line.
    """
    if fdef is None:
        return "module-level code cannot be staged; move the loop into a function"
    if isinstance(fdef, gast.AsyncFunctionDef):
        return "an async function cannot be staged"
    for dec in fdef.decorator_list:
        target = dec.func if isinstance(dec, gast.Call) else dec
        if ctx.imports.resolve(target) not in _ALLOWED_DECORATORS | {"tensorflow.function"}:
            return f"it has the decorator `{gast.unparse(dec).strip()}` (line {dec.lineno})"
    for loop in kept_loops:
        bad = [b for b in loop.blockers if b.code not in _ORDERED_ONLY]
        if bad:
            return f"the loop at line {loop.lineno} stays a loop and has effects ({bad[0].code})"
        branch = _append_under_a_test(loop.node)
        if branch is not None:
            return (f"the loop at line {loop.lineno} stays a loop and appends to a list under the `if` at line "
                    f"{branch.lineno}, which tf.function would make a graph conditional whose tensors the "
                    "list cannot hold")
        number = _python_number_carried(fdef, loop.node)
        if number is not None:
            return (f"the loop at line {loop.lineno} stays a loop and binds `{number.id}`, a Python number "
                    f"before it (line {number.lineno}), to other values: tf.function may make it a graph "
                    "loop, whose variables keep one dtype")
        bound = _binding_under_a_test(loop.node)
        if bound is not None:
            return (f"the loop at line {loop.lineno} stays a loop and binds `{bound.id}` under an `if` (line "
                    f"{bound.lineno}), which tf.function would make a graph conditional whose branches must "
                    "give it one dtype (a Python number before it and a tensor in it do not)")
    if _is_method(ctx, fdef):
        return ("it is a method: tf.function holds only a weak reference to `self`, so calls on a "
                "temporary object would fail")
    miscompiled = _leaky_relu_pattern(ctx, fdef)
    if miscompiled is not None:
        return (f"`{gast.unparse(miscompiled).strip()}` (line {miscompiled.lineno}) is miscompiled in "
                "graphs: TensorFlow's remapper fuses max(x * a, x) into LeakyRelu, which is right "
                "only for a <= 1")
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs
              if isinstance(a, gast.Name)}
    declared = {n for node in gast.walk(fdef) if isinstance(node, (gast.Global, gast.Nonlocal))
                for n in node.names}
    local_names = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)
                   and isinstance(n.ctx, gast.Store)} - params - declared
    # `log = model.history` makes `log` another name of what outlives the call
    local_names -= {t.id for node in gast.walk(fdef) if isinstance(node, gast.Assign)
                    and isinstance(node.value, (gast.Name, gast.Attribute, gast.Subscript))
                    for t in node.targets if isinstance(t, gast.Name)}
    variable = _module_variable_read(ctx, fdef, local_names | params)
    if variable is not None:
        return (f"it reads the module variable `{variable.id}` (line {variable.lineno}), which "
                "tf.function would freeze at its first call")
    skip = {id(n) for stmt in rewritten for n in gast.walk(stmt)}
    stack = list(fdef.body)
    while stack:
        node = stack.pop()
        if id(node) in skip:
            continue
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        stack.extend(gast.iter_child_nodes(node))
        reason = _unsafe(ctx, node, local_names)
        if reason:
            return f"{reason} (line {node.lineno})"
    return None


def _append_under_a_test(loop) -> gast.If | None:
    """An ``if`` (or a ``continue``/``break`` under one, which the loop's normal form turns into
    an ``if`` around the rest) in ``loop``'s body, on a test that is not a constant, with a
    ``list.append`` in its branches."""
    return next((node for node in gast.walk(loop)
                 if isinstance(node, gast.If) and not isinstance(node.test, gast.Constant)
                 and any(isinstance(sub, gast.Call) and isinstance(sub.func, gast.Attribute) and sub.func.attr == "append"
                         for stmt in node.body + node.orelse for sub in gast.walk(stmt))), None)


def _python_number_carried(fdef, loop) -> gast.Name | None:
    """A name ``loop`` binds that the function binds to a Python number (or None) before it
    (fuzz seed 8152516: ``w2 = 2`` before the loop, ``w2 = x[i] * 2.0`` in it: AutoGraph's
    ``tf.while_loop`` over a range of unknown length needs one dtype on every iteration)."""
    stored = {n.id for n in gast.walk(loop) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    for node in gast.walk(fdef):
        value = node.value if isinstance(node, gast.Assign) else None
        while isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
            value = value.operand  # `w2 = -1` is a number too (fuzz seed 8250600)
        if isinstance(node, gast.Assign) and node.lineno < loop.lineno and isinstance(value, gast.Constant) \
                and (value.value is None or type(value.value) in (int, float, bool)):
            for target in node.targets:
                if isinstance(target, gast.Name) and target.id in stored:
                    return target
    return None


def _binding_under_a_test(loop) -> gast.Name | None:
    """A name bound in a branch of an ``if`` on a test that is not a constant, in ``loop``'s body
    (fuzz seed 8131048: ``r1 = 0`` before the loop, ``if r1 != 0 or x[i] > 0.5: r1 = x[i]``)."""
    return next((sub for node in gast.walk(loop)
                 if isinstance(node, gast.If) and not isinstance(node.test, gast.Constant)
                 for stmt in node.body + node.orelse for sub in gast.walk(stmt)
                 if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Store)), None)


def _module_variable_read(ctx, fdef, local_names):
    """A load of a module-level variable that may change between calls, or None.

    ``tf.function`` reads Python globals once, when it traces. Names bound at module level
    once, in ALL_CAPS (constants by PEP 8's convention), functions, classes and imports are
    taken as constant; any other module variable, or one rebound anywhere (a second binding,
    ``global`` in some function), would be frozen, so the function is not staged.
    """
    bindings = getattr(ctx, "_module_bindings", None)
    if bindings is None:
        bindings = ctx._module_bindings = _module_bindings(ctx)
    for node in gast.walk(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                node.id in bindings and node.id not in local_names:
            if bindings[node.id] > 1 or not node.id.isupper():
                return node
    return None


def _module_bindings(ctx) -> dict[str, int]:
    """How many times each module-level name is bound (``global`` declarations count twice)."""
    bindings: dict[str, int] = {}
    for stmt in ctx.tree.body:
        targets = stmt.targets if isinstance(stmt, gast.Assign) else \
            [stmt.target] if isinstance(stmt, (gast.AugAssign, gast.AnnAssign, gast.For)) else []
        for target in targets:
            for name in gast.walk(target):
                if isinstance(name, gast.Name):
                    bindings[name.id] = bindings.get(name.id, 0) + 1
    declared = getattr(ctx, "global_names", None)  # an outline knows them from the whole module
    if declared is None:
        declared = {n for node in gast.walk(ctx.tree) if isinstance(node, gast.Global) for n in node.names}
    for name in declared:
        bindings[name] = bindings.get(name, 0) + 2
    return bindings


def _is_method(ctx, fdef) -> bool:
    parent = ctx.parents.get(id(fdef))
    if not isinstance(parent, gast.ClassDef):
        return False
    return not any(ctx.imports.resolve(d) == "builtins.staticmethod" for d in fdef.decorator_list)


def _unsafe(ctx, node, local_names) -> str | None:
    if isinstance(node, (gast.Yield, gast.YieldFrom, gast.Await)):
        return "it is a generator"
    if isinstance(node, (gast.Global, gast.Nonlocal)):
        return "it declares global or nonlocal names"
    if isinstance(node, gast.Try):
        return "it uses try/except"
    if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Store):
        return "it writes an attribute"
    if isinstance(node, gast.Raise):
        return "it raises: staged, a `raise` under a tensor condition runs while tracing"
    if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
        base = node.value
        while isinstance(base, (gast.Subscript, gast.Attribute)):
            base = base.value
        if not (isinstance(base, gast.Name) and base.id in local_names):
            return (f"it writes into `{gast.unparse(node.value).strip()}`, which outlives the call; "
                    "staged, the write would run once at trace time")
    if isinstance(node, (gast.Attribute, gast.Name)) and isinstance(node.ctx, gast.Load):
        name = ctx.imports.resolve(node) or ""
        if name.startswith("numpy.") and name not in NEUTRAL_CONSTANTS and \
                not name.startswith(("numpy.float", "numpy.int")):
            return f"it calls NumPy ({gast.unparse(node).strip()}), which graph tensors do not support"
    if isinstance(node, gast.Call):
        name = ctx.imports.resolve(node.func) or ""
        if name in ("builtins.int", "builtins.float", "builtins.bool"):
            return f"`{gast.unparse(node).strip()}` converts to a Python value"
        effect = ctx.effects.classify(node)
        if effect.kind == effects.EFFECT:
            # Mutating a Python list or assigning a variable traces to the same program;
            # tf.print is a graph op. Host-side effects would run once, at trace time.
            receiver = node.func.value if isinstance(node.func, gast.Attribute) else None
            if node.func.attr in effects.MUTATING_METHODS if receiver is not None else False:
                if isinstance(receiver, gast.Name) and receiver.id in local_names:
                    return None
                return (f"it mutates `{gast.unparse(receiver).strip()}`, which outlives the call; "
                        "staged, the mutation would run once at trace time")
            if name == "tensorflow.print":
                return None
            return f"it calls {effect.what}, which would run once at trace time"
        if effect.kind in (effects.RANDOM, effects.HOST):
            return f"it calls {effect.what}"
        if effect.kind == effects.UNKNOWN and not ctx.waived(node):
            return f"it calls `{effect.what}`, whose effects are unknown"
    return None


_MAXIMUM = {"tensorflow.maximum", "tensorflow.math.maximum"}


def _leaky_relu_pattern(ctx: ModuleContext, fdef: gast.FunctionDef) -> gast.Call | None:
    """A ``tf.maximum(x * a, x)`` whose factor ``a`` is not a constant in [0, 1], or None.

    TensorFlow's Grappler remapper (oneDNN builds on CPU, TF 2.16-2.21) rewrites
    ``Maximum(Mul(x, a), x)`` into ``LeakyRelu(x, alpha=a)``, which equals the maximum only
    when ``a <= 1``: ``tf.maximum(3.0 * y, y)`` gives ``y`` for positive ``y`` once staged,
    while the eager loop gives ``3 * y``. Grappler first turns ``x + x`` into ``2 * x`` and a
    division by a constant into a product, so those count as products too. Found by the
    differential fuzzer.
    """
    for node in gast.walk(fdef):
        if not (isinstance(node, gast.Call) and ctx.imports.resolve(node.func) in _MAXIMUM
                and len(node.args) == 2):
            continue
        first, second = node.args
        for scaled, other in ((first, second), (second, first)):
            factor = _scale_of(scaled, other)
            if factor is not None and not (isinstance(factor, (int, float)) and 0 <= factor <= 1):
                return node
    return None


def _scale_of(expr, base):
    """``a`` when ``expr`` is ``base`` scaled by ``a`` (``base * a``, ``a * base``, ``base / a``,
    ``base + base``): a number when ``a`` is a literal, else the node; None otherwise."""
    same = gast.dump(base)
    if not isinstance(expr, gast.BinOp):
        return None
    if isinstance(expr.op, gast.Add) and gast.dump(expr.left) == same == gast.dump(expr.right):
        return 2
    pairs = {gast.Mult: ((expr.left, expr.right), (expr.right, expr.left)), gast.Div: ((expr.right, expr.left),)}
    for factor, operand in pairs.get(type(expr.op), ()):
        if gast.dump(operand) == same:
            value = factor.value if isinstance(factor, gast.Constant) else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return 1 / value if isinstance(expr.op, gast.Div) and value else value
            return factor
    return None
