"""One deterministic namer for generated symbols (as AutoGraph's ``pyct/naming.py``)."""

from __future__ import annotations

import gast


class Namer:
    """Hands out names that clash with nothing in the module and with each other.

    Names are the base itself when free, else ``base_1``, ``base_2``, ...: no randomness, so
    golden files stay stable.

    Args:
        scope: the tree whose identifiers are reserved (a function, or the whole module).
        reserved: further names to avoid (the module's global names).
    """

    def __init__(self, scope: gast.AST, reserved: set[str] | None = None):
        self.taken: set[str] = set(reserved or ())
        for node in gast.walk(scope):
            if isinstance(node, gast.Name):
                self.taken.add(node.id)
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef, gast.AsyncFunctionDef)):
                self.taken.add(node.name)
            elif isinstance(node, gast.alias):
                self.taken.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, gast.Attribute):
                self.taken.add(node.attr)

    def new(self, base: str) -> str:
        candidate, k = base, 0
        while candidate in self.taken:
            k += 1
            candidate = f"{base}_{k}"
        self.taken.add(candidate)
        return candidate


def global_names(module: gast.Module) -> set[str]:
    """Names bound at the top level of a module (imports, defs, classes, assignments)."""
    names: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (gast.Import, gast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        else:
            names |= {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name)
                      and isinstance(n.ctx, gast.Store)}
    return names
