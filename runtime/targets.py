"""Resolves ``FILE::FUNC`` targets for verify and bench: reads, transpiles, loads, builds inputs.

``pforge verify`` and ``pforge bench`` both run a function of a user file next to transpiled
versions of it, on the same inputs and device; this module holds what they share so that each
only adds what it measures.
"""

import ast
import contextlib
import os

from pforge.runtime import inputs as _inputs
from pforge.runtime.loader import RuntimeLoadError, load_module
from pforge.runtime.timing import pick_device, timed_call


class TargetError(ValueError):
    """The target cannot be run as given: missing file or function, no inputs,
    unparsable source, or the original code fails on the inputs. The message
    names the file."""


def parse_specs(arg_specs):
    """Returns ``ArgSpec``s from specs or spec strings (``"x=float32[64,32]"``).

    Raises:
      ValueError: a spec string is malformed.
    """
    return tuple(s if isinstance(s, _inputs.ArgSpec) else _inputs.parse_arg_spec(s)
                 for s in arg_specs)


def read(path):
    """Returns the text of ``path``. Raises ``TargetError`` when it is not a file."""
    from pforge.transpile import SourceError  # noqa: PLC0415
    from pforge.transpile.frontend import read_source  # noqa: PLC0415

    try:  # the same checks as `pforge check`: size, encoding, NUL bytes, links, folders
        return read_source(path).text
    except SourceError as exc:
        raise TargetError(str(exc)) from None


def parse(text, path):
    """Parses with ``ast``; a syntax error becomes ``TargetError`` naming file and line."""
    try:
        return ast.parse(text, path)
    except SyntaxError as exc:
        raise TargetError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise TargetError(f"{path}: expression nested too deeply to parse") from None


def transpile(text, path, backend):
    """Runs ``pforge.transpile.transpile_source``, looked up per call (tests patch it).

    Raises:
      TargetError: the source does not parse.
      ValueError: an unknown backend (from the transpiler).
    """
    import pforge.transpile as transpile_package  # noqa: PLC0415

    entry = getattr(transpile_package, "transpile_source", None)
    if entry is None:
        raise RuntimeError("pforge.transpile.transpile_source is missing. This is a bug.")
    try:
        return entry(text, path, backend=backend)
    except SyntaxError as exc:  # pforge.transpile.SourceError included
        raise TargetError(f"{path}:{exc.lineno}: {exc.msg}") from None


def load_original(path):
    """Executes the user's file as a fresh module; an import error becomes ``TargetError``."""
    try:
        return load_module(path)
    except RuntimeLoadError as exc:
        raise TargetError(str(exc)) from exc


def resolve(module, func, path):
    """Returns ``module.func`` (dotted names allowed). Raises ``TargetError`` when missing."""
    target = module
    for part in func.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise TargetError(f"{path}: no function {func!r}")
    if not callable(target):
        raise TargetError(f"{path}: {func!r} is not callable")
    return target


def belongs(qualname, func):
    """Whether a plan's function (qualified name) is ``func`` or nested in it."""
    parts = [p for p in str(qualname).split(".") if p != "<locals>"]
    want = func.split(".")
    return parts[:len(want)] == want or parts[-len(want):] == want


def plans_of(result, func):
    """The plans of a ``TranspileResult`` that belong to ``func`` (see ``belongs``)."""
    return [p for p in result.plans if belongs(p.function, func)]


def input_maker(module, func, specs, seed, path, as_tensor):
    """``pforge.runtime.inputs.input_maker`` with user errors turned into ``TargetError``."""
    try:
        return _inputs.input_maker(module, func, specs, seed, as_tensor)
    except LookupError as exc:
        raise TargetError(f"{path}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the user's input builder failed
        raise TargetError(f"{path}: building inputs for {func!r} raised "
                          f"{type(exc).__name__}: {exc}") from exc


def call_original(fn, make_args, path, func):
    """Calls the original once on fresh inputs: the reference result.

    Returns:
      ``(result, seconds)``.

    Raises:
      TargetError: the original raised (the inputs do not fit it).
    """
    try:
        return timed_call(fn, *make_args())
    except Exception as exc:  # noqa: BLE001
        raise TargetError(f"{path}::{func}: the original raised "
                          f"{type(exc).__name__}: {exc}") from exc


@contextlib.contextmanager
def on_device(which="auto"):
    """Runs the block on ``pick_device(which)``'s device; yields ``(label, has_tf)``.

    Without TensorFlow installed (a NumPy-only file) everything runs on the
    CPU as plain Python.

    Raises:
      TargetError: ``which`` is ``"gpu"`` and TensorFlow sees no GPU.
    """
    try:
        device, label = pick_device(which)
    except ImportError:
        device = None
    except LookupError as exc:
        raise TargetError(str(exc)) from None
    if device is None:
        yield "CPU (TensorFlow not installed)", False
        return
    from pforge.runtime._tf import tensorflow  # noqa: PLC0415 - lazy

    with tensorflow().device(device):
        yield label, True


def functions_in(path):
    """Lists the functions of a file that have inputs, without transpiling.

    Args:
      path: the Python file.

    Returns:
      The names in ``example_inputs()`` (in its order), or ``["original"]``
      for a shared case; ``[]`` when the file follows neither convention
      (checked on the syntax tree, so such a file is never executed).

    Raises:
      TargetError: the file is missing, does not parse or fails to import.
    """
    tree = parse(read(path), path)
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "example_inputs" in defined:
        module = load_original(path)
        try:
            names = _inputs.call_builder(module.example_inputs, 0)
        except Exception as exc:  # noqa: BLE001
            raise TargetError(f"{path}: example_inputs() raised "
                              f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(names, dict):
            raise TargetError(f"{path}: example_inputs() must return a dict mapping "
                              f"function name -> args, got {type(names).__name__}")
        return list(names)
    if {"make_inputs", "original"} <= defined:
        return ["original"]
    return []


def over_path(run, path, **options):
    """Runs ``run(file, func, **options)`` for every function with inputs under ``path``.

    Args:
      run: e.g. ``verify_function`` or ``bench_function``.
      path: a ``.py`` file, or a directory whose ``*.py`` files are taken in
        sorted order (not recursively); files with neither ``example_inputs``
        nor ``make_inputs``/``original`` are skipped.
      **options: passed to ``run``.

    Returns:
      The list of ``run``'s results.

    Raises:
      TargetError: a missing path, or a file given by name that has no inputs.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
        return [run(f, name, **options) for f in files for name in functions_in(f)]
    names = functions_in(path)
    if not names:
        raise TargetError(f"{path}: no inputs: define example_inputs(seed=0) returning "
                          "{name: (args...)}, or name FILE::FUNC and pass --arg options")
    return [run(path, name, **options) for name in names]
