"""Probes the ranks of each function's arguments by running the file's input builders.

This runs user code (the module and its ``example_inputs()`` / ``make_inputs()``), so the CLI
does it only when asked (``pforge transpile --probe``); the transpiler itself never imports
or runs what it rewrites.
"""

from __future__ import annotations

import inspect

from pforge.runtime.inputs import as_call_args, call_builder, has_case_inputs, has_example_inputs
from pforge.runtime.loader import RuntimeLoadError, load_module


def _rank(value) -> int | None:
    if isinstance(value, bool | int | float):
        return 0
    if isinstance(value, (list, tuple)):  # a nested sequence of numbers, as NumPy would see it
        import numpy as np

        try:
            array = np.asarray(value)
        except ValueError:
            return None
        return ("sequence", array.ndim) if array.dtype.kind in "biuf" else None
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    try:
        return len(shape)
    except (TypeError, ValueError):  # a TensorShape of unknown rank
        return None


def probe_ranks(path: str, source: str | None = None, module=None) -> dict[str, int | tuple]:
    """``{"func.param": rank}`` for every argument the file's builders make.

    A Python list or tuple of numbers is reported as ``("sequence", rank)``: the generated
    code must convert it before batching (``xs * 2`` repeats a list).

    Args:
        path: the Python file.
        source: its text, when already read.
        module: the file, already loaded with ``load_module`` (``pforge verify`` has it): its
            builders are called and the file is not run again.
    Returns:
        Ranks of array and scalar arguments (other values are left out).
    Raises:
        RuntimeLoadError: the module raised while being imported.
        LookupError: the file has neither ``example_inputs()`` nor ``make_inputs()``.
    """
    if module is None:
        module = load_module(path, source)
    calls = {}
    if has_example_inputs(module):
        built = call_builder(module.example_inputs, 0)
        if isinstance(built, dict):
            calls.update(built)
    if has_case_inputs(module):
        calls["original"] = call_builder(module.make_inputs, 0)
    if not calls:
        raise LookupError(f"{path}: --probe needs example_inputs() or make_inputs() in the file")
    found: dict[str, int] = {}
    for name, value in sorted(calls.items()):
        fn = getattr(module, name, None)
        if not callable(fn):
            continue
        args, kwargs = as_call_args(value)
        try:
            bound = inspect.signature(fn).bind_partial(*args, **kwargs)
        except (TypeError, ValueError):
            continue
        for param, arg in bound.arguments.items():
            rank = _rank(arg)
            if rank is not None:
                found[f"{name}.{param}"] = rank
    return found


def probe_option(path: str, source: str | None = None, module=None) -> dict[str, int | tuple]:
    """What ``--probe`` does (``transpile``, ``explain``, ``verify``, ``bench``): ``probe_ranks``
    with every failure turned into one line.

    Args:
        path: the Python file.
        source: its text, when already read.
        module: the file, already loaded (see ``probe_ranks``).
    Returns:
        The ranks, as ``probe_ranks`` returns them.
    Raises:
        ValueError: the file fails to import, has no input builder, or its builder raised;
            the message names the file and says ``--probe``.
    """
    try:
        return probe_ranks(path, source, module)
    except (RuntimeLoadError, LookupError) as exc:
        raise ValueError(f"--probe: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - user code raised while building inputs
        raise ValueError(f"{path}: --probe: example inputs raised {type(exc).__name__}: {exc}") from None
