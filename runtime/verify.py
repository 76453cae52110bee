"""Runs original and transpiled code on the same inputs, compares and times them."""

import ast
import contextlib
import dataclasses
import os

from pforge.runtime import inputs as _inputs
from pforge.runtime.compare import compare
from pforge.runtime.loader import RuntimeLoadError, load_module
from pforge.runtime.timing import pick_device, time_interleaved, timed_call


class VerifyInputError(ValueError):
    """The target cannot be verified as given: missing file or function, no
    inputs, unparsable source, or the original code fails on the inputs.
    The message names the file."""


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    """Outcome of verifying one function.

    Attributes:
      file: the source file.
      function: the function's name in the file.
      loops_found: loops the transpiler found in the function.
      loops_vectorized: of those, how many it rewrote.
      max_abs_err: see ``Comparison`` (``inf`` on a structure mismatch or
        when the generated code raised).
      max_rel_err: see ``Comparison``.
      ok: the generated function returned the original's result.
      time_original_s: median seconds per call of the original.
      time_generated_s: median seconds per call of the generated code.
      speedup: ``time_original_s / time_generated_s``.
      device: where it ran, e.g. ``"GPU: NVIDIA H200"``.
      note: why it failed, or remarks (e.g. nothing was rewritten).
      first_original_s: seconds of the original's first call.
      first_generated_s: seconds of the generated code's first call
        (includes ``tf.function`` tracing).
    """

    file: str
    function: str
    loops_found: int
    loops_vectorized: int
    max_abs_err: float
    max_rel_err: float
    ok: bool
    time_original_s: float
    time_generated_s: float
    speedup: float
    device: str
    note: str = ""
    first_original_s: float = float("nan")
    first_generated_s: float = float("nan")


def verify_function(path, func, *, arg_specs=(), seed=0, rtol=1e-4, atol=1e-5, repeats=20,
                    warmup=2, time_budget_s=5.0, backend="pfor"):
    """Transpiles a file, then runs, compares and times one function both ways.

    Inputs come from ``arg_specs`` (keyword arguments) if given, else from the
    file's ``example_inputs(seed)[func]``, else ``make_inputs(seed)`` when
    ``func == "original"`` (the shared-cases convention); they are rebuilt for
    every call. Timed calls alternate between the two versions.

    Args:
      path: the Python file.
      func: the name of a module-level function.
      arg_specs: ``ArgSpec``s or spec strings (``"x=float32[64,32]"``).
      seed: seed for the inputs.
      rtol: relative tolerance of the comparison.
      atol: absolute tolerance of the comparison.
      repeats: timed calls of each version.
      warmup: untimed calls of each version before timing.
      time_budget_s: timing takes about at most this many seconds (but at
        least 3 repeats): slow originals get fewer repeats.
      backend: passed to ``pforge.transpile.transpile_source``.

    Returns:
      A ``VerifyResult``. A generated version that fails to import or raises
      gives ``ok=False`` with the error in ``note``.

    Raises:
      VerifyInputError: see the class.
      ValueError: a spec string is malformed.
    """
    path = os.fspath(path)
    specs = tuple(s if isinstance(s, _inputs.ArgSpec) else _inputs.parse_arg_spec(s)
                  for s in arg_specs)
    text = _read(path)
    result = _transpile(text, path, backend)
    plans = [p for p in result.plans if _belongs(p.function, func)]
    found, rewritten = len(plans), sum(bool(p.rewritten) for p in plans)
    original = _load_original(path)
    fn_orig = _resolve(original, func, path)

    with _on_device() as (label, has_tf):
        make_args = _input_maker(original, func, specs, seed, path, as_tensor=has_tf)
        try:
            want, first_orig = timed_call(fn_orig, *make_args())
        except Exception as exc:  # noqa: BLE001
            raise VerifyInputError(f"{path}::{func}: the original raised "
                                   f"{type(exc).__name__}: {exc}") from exc
        try:
            generated = load_module(path, source=result.code)
            fn_gen = _resolve(generated, func, path)
            got, first_gen = timed_call(fn_gen, *make_args())
            match = compare(want, got, rtol, atol)
            t_orig, t_gen = time_interleaved([fn_orig, fn_gen], make_args, repeats, warmup,
                                             time_budget_s)
        except Exception as exc:  # noqa: BLE001 - a broken rewrite is a result, not a crash
            inf, nan = float("inf"), float("nan")
            return VerifyResult(
                path, func, found, rewritten, inf, inf, False, nan, nan, nan, label,
                note=f"generated code raised {type(exc).__name__}: {exc}",
                first_original_s=first_orig)
    notes = [match.message] if match.message else []
    if not rewritten:
        notes.append("no loop rewritten")
    return VerifyResult(
        file=path, function=func, loops_found=found, loops_vectorized=rewritten,
        max_abs_err=match.max_abs_err, max_rel_err=match.max_rel_err, ok=match.ok,
        time_original_s=t_orig.median_s, time_generated_s=t_gen.median_s,
        speedup=t_orig.median_s / t_gen.median_s if t_gen.median_s > 0 else float("inf"),
        device=label, note="; ".join(notes),
        first_original_s=first_orig, first_generated_s=first_gen)


def functions_in(path):
    """Lists the functions of a file that have inputs, without transpiling.

    Args:
      path: the Python file.

    Returns:
      The names in ``example_inputs()`` (in its order), or ``["original"]``
      for a shared case; ``[]`` when the file follows neither convention
      (checked on the syntax tree, so such a file is never executed).

    Raises:
      VerifyInputError: the file is missing, does not parse or fails to import.
    """
    tree = _parse(_read(path), path)
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if "example_inputs" in defined:
        module = _load_original(path)
        try:
            names = _inputs.call_builder(module.example_inputs, 0)
        except Exception as exc:  # noqa: BLE001
            raise VerifyInputError(f"{path}: example_inputs() raised "
                                   f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(names, dict):
            raise VerifyInputError(f"{path}: example_inputs() must return a dict mapping "
                                   f"function name -> args, got {type(names).__name__}")
        return list(names)
    if {"make_inputs", "original"} <= defined:
        return ["original"]
    return []


def verify_path(path, **options):
    """Verifies every function with inputs in a file, or in every file of a directory.

    Args:
      path: a ``.py`` file, or a directory whose ``*.py`` files are taken in
        sorted order (not recursively); files with neither ``example_inputs``
        nor ``make_inputs``/``original`` are skipped.
      **options: passed to ``verify_function``.

    Returns:
      A list of ``VerifyResult``.

    Raises:
      VerifyInputError: a missing path, or a file given by name that has no
        inputs; see also ``verify_function``.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        files = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
        return [verify_function(f, name, **options) for f in files for name in functions_in(f)]
    names = functions_in(path)
    if not names:
        raise VerifyInputError(f"{path}: no inputs: define example_inputs(seed=0) returning "
                               "{name: (args...)}, or name FILE::FUNC and pass --arg options")
    return [verify_function(path, name, **options) for name in names]


@contextlib.contextmanager
def _on_device():
    """Runs the block on ``pick_device()``'s device; yields ``(label, has_tf)``.

    Without TensorFlow installed (a NumPy-only file) everything runs on the
    CPU as plain Python.
    """
    try:
        device, label = pick_device()
    except ImportError:
        device = None
    if device is None:
        yield "CPU (TensorFlow not installed)", False
        return
    from pforge.runtime._tf import tensorflow  # noqa: PLC0415 - lazy

    with tensorflow().device(device):
        yield label, True


def _input_maker(module, func, specs, seed, path, as_tensor):
    try:
        return _inputs.input_maker(module, func, specs, seed, as_tensor)
    except LookupError as exc:
        raise VerifyInputError(f"{path}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - the user's input builder failed
        raise VerifyInputError(f"{path}: building inputs for {func!r} raised "
                               f"{type(exc).__name__}: {exc}") from exc


def _read(path):
    if not os.path.isfile(path):
        raise VerifyInputError(f"{path}: no such file")
    with open(path, encoding="utf-8") as f:
        return f.read()


def _parse(text, path):
    try:
        return ast.parse(text, path)
    except SyntaxError as exc:
        raise VerifyInputError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None


def _transpile(text, path, backend):
    import pforge.transpile as transpile  # noqa: PLC0415 - looked up per call (tests patch it)

    entry = getattr(transpile, "transpile_source", None)
    if entry is None:
        raise RuntimeError("pforge.transpile.transpile_source is missing. This is a bug.")
    try:
        return entry(text, path, backend=backend)
    except SyntaxError as exc:  # pforge.transpile.SourceError included
        raise VerifyInputError(f"{path}:{exc.lineno}: {exc.msg}") from None


def _load_original(path):
    try:
        return load_module(path)
    except RuntimeLoadError as exc:
        raise VerifyInputError(str(exc)) from exc


def _resolve(module, func, path):
    target = module
    for part in func.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise VerifyInputError(f"{path}: no function {func!r}")
    if not callable(target):
        raise VerifyInputError(f"{path}: {func!r} is not callable")
    return target


def _belongs(qualname, func):
    """Whether a plan's function (qualified name) is ``func`` or nested in it."""
    parts = [p for p in str(qualname).split(".") if p != "<locals>"]
    want = func.split(".")
    return parts[:len(want)] == want or parts[-len(want):] == want
