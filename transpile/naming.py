"""One deterministic namer for generated symbols (as AutoGraph's ``pyct/naming.py``)."""

from __future__ import annotations

import gast


class Namer:
    """Hands out names that clash with nothing in the module and with each other.

    Names are the base itself when free, else ``base_1``, ``base_2``, ...: no randomness, so
    golden files stay stable.

    Args:
        module: the tree whose identifiers are reserved.
    """

    def __init__(self, module: gast.AST):
        self.taken: set[str] = set()
        for node in gast.walk(module):
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
