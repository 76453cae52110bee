"""Helpers the tests of one transformation share: a module's functions run from source text,
and the plan of one function's loop."""

from __future__ import annotations


def run_module(code: str) -> dict:
    """The namespace of ``code`` executed as a module (the loop's source, or its rewrite)."""
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace


def file_module(path, source: str):
    """``source`` written to ``path`` and imported from there, as a user's module is: the
    staged decorator reads its functions' source from the file."""
    import importlib.util

    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plan_of(result, name: str):
    """The first loop plan of function ``name`` in a ``TranspileResult``."""
    return next(p for p in result.plans if p.function == name)


def plans_of(result, name: str) -> list:
    """Every loop plan of function ``name``, outermost and first in the source first."""
    return [p for p in result.plans if p.function == name]
