"""Closed-form Jacobians of a dense layer: ``d f(W @ x + b) / d x = f'(...)[:, None] * W``.

A loop that takes one Jacobian row per iteration (``tape.gradient(y[i], x)``) is batched as
``tape.jacobian(y, x)`` (:mod:`~pforge.transpile.backends.direct.tapes`), which runs the backward
pass once per row under pfor: for ``y`` of ``m`` entries and ``x`` of ``n``, an ``m x m`` by
``m x n`` product where the answer has ``m x n`` entries. When ``y`` is elementwise functions
of one affine map of ``x`` (``y = tanh(tf.linalg.matvec(W, x) + b)``, a dense layer, and
chains of such elementwise steps), the chain rule gives it directly (forward-mode
differentiation of the recorded expression, Griewank and Walther, *Evaluating Derivatives*,
2008, chapter 3): ``J = D[:, None] * W`` with ``D`` the product of the elementwise derivatives,
each written from the value the forward pass already computed where TensorFlow's own gradient
does (``1 - y**2`` for ``tanh``, as ``TanhGrad``).

The expression is read from the tape's block, following names bound there; it qualifies when
``x`` appears once, as ``tf.linalg.matvec(W, x)`` with ``W`` not reading ``x``, and every step
above it is a listed elementwise function, or ``+``, ``-``, ``*``, ``/`` with an operand that
does not read ``x``. Every name the closed form reads is bound once in the function (so it
holds what the forward pass read). What the tape would see differently is checked where the
code runs (a Python test, at trace time under ``tf.function``), and ``tape.jacobian`` runs
otherwise: ``x`` floating (the tape watches no other dtype), ``y`` of rank 1, and no other
operand the same tensor as ``x`` (the tape follows tensors, not names). An operand that
broadcasts ``W @ x`` to more entries (one row of ``W``, four of ``b``) needs no test: ``D`` has
``y``'s entries, and ``D[:, None] * W`` broadcasts ``W``'s row to each.

The printer writes it as an unsafe fix only (``LoopRewrite.unsafe``): the loop's backward pass
multiplies the zeros of each row's one-hot cotangent by every entry of ``W`` and of the
elementwise derivatives, so a NaN or infinity in one row reaches all rows, where the closed
form keeps it in its own.
"""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates

#: elementwise functions and their derivative, of the output ``OUT`` or the input ``ARG``, as
#: TensorFlow's registered gradients compute them
DERIVATIVES = {
    **dict.fromkeys(("tensorflow.tanh", "tensorflow.math.tanh", "tensorflow.nn.tanh"), "1.0 - tf.square(OUT)"),
    **dict.fromkeys(("tensorflow.sigmoid", "tensorflow.math.sigmoid", "tensorflow.nn.sigmoid"), "OUT * (1.0 - OUT)"),
    **dict.fromkeys(("tensorflow.exp", "tensorflow.math.exp"), "OUT"),
    "tensorflow.nn.relu": "tf.cast(OUT > 0, OUT.dtype)",  # (ReluGrad: where the output is positive)
    **dict.fromkeys(("tensorflow.nn.softplus", "tensorflow.math.softplus"), "tf.sigmoid(ARG)"),
    **dict.fromkeys(("tensorflow.square", "tensorflow.math.square"), "2.0 * ARG"),
    **dict.fromkeys(("tensorflow.sin", "tensorflow.math.sin"), "tf.cos(ARG)"),
    **dict.fromkeys(("tensorflow.cos", "tensorflow.math.cos"), "-tf.sin(ARG)"),
}
_MATVEC = "tensorflow.linalg.matvec"


def dense_jacobian(ctx, block: gast.With, tape: str, target: str, source: str, function, loop=None,
                   tf: str = "tf"):
    """``(test, J)`` for ``d target / d source`` recorded in ``block`` (the tape's ``with``), or
    None where the expression is not of the form in the module docstring.

    ``J``: ``[m, n]`` for ``target`` of shape ``[m]`` and ``source`` of shape ``[n]``, equal to
    ``tape.jacobian(target, source)`` (to rounding) where ``test`` holds. ``function``: the
    function holding the loop, whose bindings show that a name is bound once; ``loop``: the loop,
    where the block holds it (the statements before it are read); ``tf``: the module's name for
    TensorFlow.
    """
    bindings = _bindings(block, tape, source, loop)
    if bindings is None or target not in bindings:
        return None
    once = _bound_once(function)
    derivatives, scales, operands = [], [], []  # scales: (operator, value); operands: what x is combined with
    node, output = bindings[target], templates.name(target)
    while True:
        if isinstance(node, gast.Name) and node.id in bindings:
            node, output = bindings[node.id], templates.name(node.id)
            continue
        callee = ctx.imports.resolve(node.func) if isinstance(node, gast.Call) else None
        if callee == _MATVEC:
            if node.keywords or len(node.args) != 2 or not (isinstance(node.args[1], gast.Name)
                                                            and node.args[1].id == source):
                return None
            matrix = node.args[0]
            if _reads(matrix, source, bindings):
                return None
            operands.append(matrix)
            break
        if callee in DERIVATIVES:
            if node.keywords or len(node.args) != 1 or isinstance(node.args[0], gast.Starred):
                return None
            formula = DERIVATIVES[callee].replace("tf.", f"{tf}.")
            derivatives.append(templates.expr(formula, OUT=copy.deepcopy(output), ARG=copy.deepcopy(node.args[0])))
            node = node.args[0]
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            scales.append((gast.Mult(), gast.Constant(value=-1.0, kind=None)))
            node = node.operand
        elif isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)):
            left, right = _reads(node.left, source, bindings), _reads(node.right, source, bindings)
            if left == right or (right and isinstance(node.op, gast.Div)):
                return None  # (both sides or neither read x; x in a denominator)
            inner, other = (node.left, node.right) if left else (node.right, node.left)
            if isinstance(node.op, (gast.Mult, gast.Div)):
                scales.append((copy.deepcopy(node.op), copy.deepcopy(other)))
            elif isinstance(node.op, gast.Sub) and right:
                scales.append((gast.Mult(), gast.Constant(value=-1.0, kind=None)))
            operands.append(other)
            node = inner
        else:
            return None
        output = copy.deepcopy(node)
    factors = None
    for factor in reversed(derivatives):  # innermost first
        factors = factor if factors is None else gast.BinOp(left=factors, op=gast.Mult(), right=factor)
    if factors is None:
        factors = templates.expr(f"{tf}.ones_like(Y)", Y=templates.name(target))
    for op, value in reversed(scales):
        factors = gast.BinOp(left=factors, op=op, right=value)
    jacobian = templates.expr(f"D[:, {tf}.newaxis] * W", D=factors, W=copy.deepcopy(matrix))
    read = {n.id for n in gast.walk(jacobian) if isinstance(n, gast.Name)} - {tf}
    if any(name not in once for name in read | {source, target}):
        return None
    others = sorted(_names_read(operands, bindings) - {source, tf})
    tests = [f"{source}.dtype.is_floating", f"{target}.shape.rank == 1"] + [f"{o} is not {source}" for o in others]
    return templates.expr(" and ".join(tests)), jacobian


def _bindings(block: gast.With, tape: str, source: str, loop) -> dict[str, gast.expr] | None:
    """The names ``block`` binds before ``loop`` (one assignment each, a plain name) and their
    values, or None where the block holds other statements there or binds a name twice, or does
    not watch ``source`` before its first assignment."""
    found, watched = {}, False
    for stmt in block.body:
        if stmt is loop or any(n is loop for n in gast.walk(stmt)):
            break
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
                and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr == "watch" \
                and isinstance(stmt.value.func.value, gast.Name) and stmt.value.func.value.id == tape:
            watched |= any(isinstance(a, gast.Name) and a.id == source for a in stmt.value.args) and not found
            continue
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            return None
        name = stmt.targets[0].id
        if name in found or name == source:
            return None
        found[name] = stmt.value
    return found if watched else None


def _bound_once(function) -> set[str]:
    """The names ``function`` binds exactly once (a parameter counts as a binding)."""
    counts: dict[str, int] = {}
    args = function.args
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        counts[a.id] = counts.get(a.id, 0) + 1
    for node in gast.walk(function):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) and node is not function:
            counts[node.name] = counts.get(node.name, 0) + 2  # (a nested definition: not followed)
    return {name for name, count in counts.items() if count == 1}


def _reads(node, source: str, bindings, seen=frozenset()) -> bool:
    """``node`` reads ``source``, through the names the block binds."""
    for n in gast.walk(node):
        if isinstance(n, gast.Name):
            if n.id == source:
                return True
            if n.id in bindings and n.id not in seen and _reads(bindings[n.id], source, bindings, seen | {n.id}):
                return True
    return False


def _names_read(nodes, bindings) -> set[str]:
    """The names ``nodes`` read that the block does not bind, through those it binds."""
    found, stack, seen = set(), list(nodes), set()
    while stack:
        for n in gast.walk(stack.pop()):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                if n.id in bindings:
                    if n.id not in seen:
                        seen.add(n.id)
                        stack.append(bindings[n.id])
                else:
                    found.add(n.id)
    return found
