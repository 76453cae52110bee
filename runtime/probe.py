"""Probes the ranks of each function's arguments by running the file's input builders.

This runs user code (the module and its ``example_inputs()`` / ``make_inputs()``), so the CLI
does it only when asked (``pforge transpile --probe``); the transpiler itself never imports
or runs what it rewrites.
"""

from __future__ import annotations

import ast
import inspect
import numbers
import re
import sys

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


def _built_calls(module) -> dict:
    """Function name -> the arguments the file's builders make for it (seed 0):
    ``example_inputs()``'s dict, and ``make_inputs()`` for ``original``."""
    calls = {}
    if has_example_inputs(module):
        built = call_builder(module.example_inputs, 0)
        if isinstance(built, dict):
            calls.update(built)
    if has_case_inputs(module):
        calls["original"] = call_builder(module.make_inputs, 0)
    return calls


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
    calls = _built_calls(module)
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


#: how a size reads in ``pforge explain``'s lines: an expression in backticks, several of them
#: multiplied (``\`xs.shape[0]\` × \`ys.shape[0]\```)
_PRODUCT = re.compile(r"`[^`]+`(?: × `[^`]+`)*")


class _Reached(Exception):
    """Raised from the trace function to stop a probed call where the loop starts."""


def _size_like(node: ast.AST) -> bool:
    """An expression that only reads sizes: names, numbers, attributes (``x.shape``),
    constant subscripts, arithmetic, and ``len``/``range``/``max``/``min`` of those (no other
    call: nothing a size line names runs user code when it is evaluated)."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _size_like(node.value)
    if isinstance(node, ast.Subscript):
        return _size_like(node.value) and _size_like(node.slice)
    if isinstance(node, ast.UnaryOp):
        return _size_like(node.operand)
    if isinstance(node, ast.BinOp):
        return _size_like(node.left) and _size_like(node.right)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in ("len", "range", "max", "min") \
            and not node.keywords and all(_size_like(a) for a in node.args)
    return False


def loop_locals(module, function: str, lineno: int) -> dict | None:
    """The names of ``function``'s frame where its loop at ``lineno`` first starts, with the
    inputs the file's builder makes for it (``example_inputs()`` / ``make_inputs()``), or
    None where there are none, the function does not reach the loop, or it raises first.

    The call is stopped there (the loop does not run): a trace function (``sys.settrace``)
    raises at the loop's first line event in that frame.
    """
    calls = _built_calls(module)
    fn = getattr(module, function, None)
    if function not in calls or not callable(fn):
        return None
    code, seen = getattr(fn, "__code__", None), {}

    def trace(frame, event, arg):
        if frame.f_code is not code:
            return None
        if event == "line" and frame.f_lineno == lineno:
            seen.update(frame.f_locals, __globals__=frame.f_globals)
            raise _Reached
        return trace

    args, kwargs = as_call_args(calls[function])
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        fn(*args, **kwargs)
    except _Reached:
        pass
    except Exception:  # noqa: BLE001 - the function raised before its loop: no sizes
        return None
    finally:
        sys.settrace(previous)
    return seen or None


def with_sizes(line: str, names: dict) -> str:
    r"""``line`` (a ``choice:`` or ``memory:`` line of ``pforge explain``) with the value of
    each product of sizes it names, in the frame ``names`` (:func:`loop_locals`), after it:
    ``\`xs.shape[0]\` × \`ys.shape[0]\``` becomes ``\`xs.shape[0]\` × \`ys.shape[0]\` (6)``.
    A product with a term that is no size, or that does not evaluate to an int, is left."""
    scope = dict(names)
    env = scope.pop("__globals__", {})

    def value(match):
        total = 1
        for text in re.findall(r"`([^`]+)`", match.group(0)):
            try:
                tree = ast.parse(text, mode="eval").body
            except SyntaxError:
                return match.group(0)
            if not _size_like(tree):
                return match.group(0)
            try:
                size = eval(compile(ast.Expression(tree), "<size>", "eval"), dict(env), dict(scope))  # noqa: S307
            except Exception:  # noqa: BLE001 - a name the loop binds later, say: no number
                return match.group(0)
            if isinstance(size, range):
                size = len(size)
            if isinstance(size, bool) or not isinstance(size, numbers.Integral):
                return match.group(0)
            total *= int(size)
        return f"{match.group(0)} ({total:,})"

    return _PRODUCT.sub(value, line)
