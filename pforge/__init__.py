"""pforge: finds Python loops whose iterations are independent and rewrites them as vectorized code.

``import pforge`` imports nothing heavy: ``pforge.vectorize`` (the staged decorator, see
``pforge.runtime.staged``) loads on first use, and never imports TensorFlow by itself. The
transpiler, the command line and the runtime are ``pforge.transpile``, ``pforge.cli`` and
``pforge.runtime``.
"""

import importlib

#: Where each public name lives; loaded on first use (PEP 562).
_HOMES = {"vectorize": "staged", "StagedFunction": "staged", "MismatchError": "staged",
          "PforgeWarning": "staged"}

__all__ = sorted(_HOMES)


def __getattr__(name):
    if name in _HOMES:
        return getattr(importlib.import_module(f"pforge.runtime.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'pforge' has no attribute {name!r}")
