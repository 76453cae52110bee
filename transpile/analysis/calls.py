"""Calls in a loop body through the effect tables (PF203, PF205, PF208-PF210), and the library
(Python, NumPy, TensorFlow) a loop is written in."""

from __future__ import annotations

import gast

from pforge.transpile import effects
from pforge.transpile.analysis.classes import likely_library
from pforge.transpile.analysis.facts import (ARG_REDUCTION, CARRIED, COLLECTOR, INDEXED, PRIVATE,
                                             REDUCTION, SCAN)
from pforge.transpile.analysis.nodes import appended_item


def _check_calls(ctx, info, nodes):
    private = {n for n, c in info.classes.items() if c == PRIVATE}
    written = set(info.arrays) | {n for n, c in info.classes.items()
                                  if c in (CARRIED, REDUCTION, COLLECTOR, INDEXED, ARG_REDUCTION, SCAN)}
    for node in nodes:
        if not isinstance(node, gast.Call):
            continue
        func = node.func
        if isinstance(func, gast.Name) and written:
            callee = ctx.local_definition(func)
            if callee is not None:
                reads = {n.id for n in gast.walk(callee) if isinstance(n, gast.Name)
                         and isinstance(n.ctx, gast.Load)} & written
                if reads:
                    name = min(reads)
                    info.dependences.append(f"{name}: read by `{func.id}` (line {callee.lineno}) "
                                            "while the loop writes it")
                    info.block("PF203", f"calls `{func.id}`, which reads `{name}` that the loop "
                               "writes, so iterations may see one another's writes", node)
                    continue
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            receiver = func.value.id
            if appended_item(node) is not None and receiver in info.collectors:
                continue
            if func.attr == "write" and receiver in info.tensorarrays:
                continue
            if receiver in private and func.attr in effects.MUTATING_METHODS:
                continue  # mutates a value private to the iteration
        effect = ctx.effects.classify(node)
        if effect.kind == effects.PURE:
            name = ctx.imports.resolve(func) or ""
            if name in ("builtins.int", "builtins.float", "builtins.bool"):
                info.host_casts.append(node)
            continue
        if effect.kind == effects.EFFECT:
            if isinstance(func, gast.Attribute) and func.attr == "append":
                stacking = "an empty list before the loop, consumed once after it by tf.stack / tf.concat" \
                    if likely_library(ctx, info) == "tensorflow" else \
                    "a list made before the loop (`[]`, `[first]`) that the loop reads only to append to"
                info.block("PF205", f"appends to `{gast.unparse(func.value).strip()}`, which is not a "
                           f"collector ({stacking})", node)
            else:
                info.block("PF205", f"calls {effect.what}, a side effect whose order the loop "
                           "fixes", node)
        elif effect.kind == effects.RANDOM and ctx.waived(node, "random-ok"):
            info.random_draws.append(node)  # opted in: the batch draws other numbers
        elif effect.kind == effects.RANDOM:
            info.block("PF208", f"draws random numbers ({effect.what}); a batched draw gives "
                       "different numbers (add `# pforge: random-ok` to the line to accept that)", node)
        elif effect.kind == effects.HOST:
            if info.library == "numpy":
                continue
            info.block("PF209", f"`{gast.unparse(node).strip()}` converts a tensor to a Python "
                       "value, which graph code cannot do", node)
        elif effect.kind == effects.UNKNOWN and not ctx.waived(node):
            info.block("PF210", f"calls `{effect.what}`, whose purity is unknown; if it has no side "
                       "effects, add `# pforge: pure` to the line", node)


#: Plain numbers that belong to no library: ``best = -np.inf`` does not make a loop a NumPy loop.
NEUTRAL_CONSTANTS = {"numpy.inf", "numpy.nan", "numpy.pi", "numpy.e", "numpy.newaxis",
                      "math.inf", "math.nan", "math.pi", "math.e"}


def _detect_library(ctx, info, nodes):
    extra = [n for c in info.collectors.values() for part in (c.consumer, c.init)
             if part is not None for n in gast.walk(part)]
    libraries = set()
    for node in list(nodes):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id in ctx.functions:
            extra += list(gast.walk(ctx.functions[node.func.id]))  # one level into local callees
    for node in list(nodes) + extra:
        if isinstance(node, gast.Attribute) or isinstance(node, gast.Name):
            if isinstance(ctx.parents.get(id(node)), gast.Attribute):
                continue  # `np` in `np.inf`: the attribute decides
            name = ctx.imports.resolve(node) or ""
            if name in NEUTRAL_CONSTANTS:
                continue
            if name.startswith("tensorflow"):
                libraries.add("tensorflow")
            elif name.startswith("numpy"):
                libraries.add("numpy")
    for name in [*info.reductions, *info.arrays]:
        libraries |= _definition_libraries(ctx, info, name)
    for name in info.tensorarrays:
        libraries.add("tensorflow")
    for col in info.collectors.values():  # `tf.stack(rows)` after the loop
        if isinstance(col.consumer, gast.Call) and (ctx.imports.resolve(col.consumer.func) or "").startswith("tensorflow"):
            libraries.add("tensorflow")
    if info.form == "tf.map_fn":
        libraries.add("tensorflow")
    if "numpy" in libraries:
        info.library = "numpy" if "tensorflow" not in libraries else "mixed"
    elif "tensorflow" in libraries:
        info.library = "tensorflow"
    # A host conversion is only a blocker for TensorFlow code.
    if info.library == "numpy":
        info.blockers = [b for b in info.blockers if b.code != "PF209"]


def _definition_libraries(ctx, info, name):
    """Libraries named where ``name`` is initialised before the loop (``s = tf.constant(0.)``)."""
    found = set()
    if info.function is None:
        return found
    for node in gast.walk(info.function):
        if isinstance(node, gast.Assign) and node.lineno < info.node.lineno and any(
                isinstance(t, gast.Name) and t.id == name for t in node.targets):
            for sub in gast.walk(node.value):
                if not isinstance(sub, (gast.Name, gast.Attribute)) or \
                        isinstance(ctx.parents.get(id(sub)), gast.Attribute):
                    continue
                resolved = ctx.imports.resolve(sub)
                if resolved in NEUTRAL_CONSTANTS:
                    continue
                if resolved and resolved.startswith("tensorflow"):
                    found.add("tensorflow")
                elif resolved and resolved.startswith("numpy"):
                    found.add("numpy")
    return found
