"""Resolves ``FILE::FUNC`` targets for verify and bench: reads, transpiles, loads, builds inputs.

``pforge verify`` and ``pforge bench`` both run a function of a user file next to transpiled
versions of it, on the same inputs and device; this module holds what they share so that each
only adds what it measures.
"""

import ast
import contextlib
import os
import re

from pforge.runtime import inputs as _inputs
from pforge.runtime.loader import RuntimeLoadError, load_module
from pforge.runtime.timing import pick_device, timed_call
from pforge.transpile.analysis.discovery import CHECKED_MARKER
from pforge.transpile.frontend import marker_above, source_lines


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


def transpile(text, path, backend, shapes=None, **options):
    """Runs ``pforge.transpile.transpile_source``, looked up per call (tests patch it).

    Args:
      text: the source.
      path: the file, for messages.
      backend: ``auto``, ``direct`` or ``pfor``.
      shapes: ranks for the transpiler (``{"f.x": 2}``), as ``ranks_for`` gathers them;
        ``None`` or empty for none, as ``pforge transpile`` without ``--shapes``/``--probe``.
      options: more keyword arguments of ``transpile_source`` (``fast_math=True``).

    Returns:
      The ``TranspileResult``.

    Raises:
      TargetError: the source does not parse.
      ValueError: an unknown backend (from the transpiler).
    """
    import pforge.transpile as transpile_package  # noqa: PLC0415

    entry = getattr(transpile_package, "transpile_source", None)
    if entry is None:
        raise RuntimeError("pforge.transpile.transpile_source is missing. This is a bug.")
    try:
        return entry(text, path, backend=backend, shapes=shapes or None, **options)
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


def ranks_for(module, func, path, specs=(), shapes=None, probe=None):
    """The ranks to transpile ``func`` with, gathered as ``pforge transpile`` gathers them.

    In order, later ones winning: the ranks ``--probe`` finds (``probe.probe_option`` on the
    loaded module: the arguments its ``example_inputs()`` / ``make_inputs()`` build); the
    ranks of the ``--arg`` specs, for ``func`` (unless ``probe`` is False); the ``--shapes``
    ranks.

    Args:
      module: the loaded original module.
      func: the function to run.
      path: the file, for messages.
      specs: parsed ``--arg`` specs.
      shapes: ``--shapes`` ranks, parsed (``{"x": 2}``).
      probe: ``True`` probes (an error when the file has no input builder); ``False``
        takes only ``shapes``, as plain ``pforge transpile`` would; ``None`` (the default of
        ``verify`` and ``bench``) probes when the inputs come from the file: no specs, and
        an ``example_inputs()`` or ``make_inputs()`` there.

    Returns:
      A dict for ``transpile(shapes=...)``; empty when nothing gives a rank.

    Raises:
      TargetError: probing failed (see ``probe.probe_option``).
    """
    from pforge.runtime.probe import probe_option  # noqa: PLC0415

    ranks = {}
    probing = probe
    if probe is None:
        probing = not specs and (_inputs.has_example_inputs(module) or _inputs.has_case_inputs(module))
    if probing:
        try:
            ranks.update(probe_option(path, module=module))
        except ValueError as exc:
            raise TargetError(str(exc)) from None
    if probe is not False:
        ranks.update({f"{func}.{s.name}": 0 if s.shape is None else len(s.shape) for s in specs})
    ranks.update(shapes or {})
    return ranks


#: Words of a PF301 note that say a rank was missing (``the rank of `x` is unknown``,
#: ``an index of unknown rank``, ``operand ranks are unknown``).
_RANK_UNKNOWN = re.compile(r"\brank\b.*\bunknown\b|\bunknown rank\b|\branks are unknown\b")


def rank_unknown(plan):
    """Why a loop the analysis proved independent was left as a loop for lack of a rank.

    Args:
      plan: a ``LoopPlan`` of a ``TranspileResult``.

    Returns:
      The PF301 note (``left as a loop: ... the rank of `x` is unknown``), or ``""`` when
      the loop was rewritten, was refused, or was left for another reason.
    """
    if getattr(plan, "rewritten", False) or not getattr(plan, "vectorizable", False):
        return ""
    for remark in getattr(plan, "remarks", ()):
        if remark.code == "PF301" and _RANK_UNKNOWN.search(remark.message):
            return remark.message
    return ""


def rank_unknown_notes(plans):
    """Says which loops were left for lack of a rank, for a result's note.

    Args:
      plans: a function's plans (``plans_of``).

    Returns:
      ``"line N: <PF301 note>"`` per loop of ``plans`` left for lack of a rank (see
      ``rank_unknown``), then a hint on where ranks come from; ``[]`` when there is none.
    """
    notes = [f"line {p.lineno}: {rank_unknown(p)}" for p in plans if rank_unknown(p)]
    if notes:
        notes.append("give ranks with --shapes NAME=RANK, --probe (the file's example_inputs()) "
                     "or --arg")
    return notes


#: the end of the comment pforge writes above a rewrite guarded by run-time checks
RANK_CHECKED = CHECKED_MARKER
_RECORD = ("\n\n_PFORGE_CHECKS_HELD = []\n\n\ndef _pforge_check(value):\n"
           "    _PFORGE_CHECKS_HELD.append(bool(value))\n    return value\n")


def instrument_rank_checks(code):
    """``code`` with each run-time rank check recorded as it runs.

    A rewrite whose ranks were inferred, not declared, runs under
    ``if np.ndim(x) == 2 ...:`` with the loop as written under ``else:``. This
    turns each such test into ``if _pforge_check(...):``, which appends the
    test's truth to the module's ``_PFORGE_CHECKS_HELD`` list, so a caller can
    tell whether the batched code or the loop ran.

    Args:
      code: transpiled source text.

    Returns:
      The instrumented text (the same lines, plus the recorder at the end).
    """
    lines = source_lines(code)
    tests = [node.test for node in ast.walk(ast.parse(code))
             if isinstance(node, ast.If) and marker_above(lines, node.lineno).endswith(RANK_CHECKED)]
    # (by position in the text: a long test is wrapped over several lines; right to left, so
    # an edit keeps the columns before it)
    for test in sorted(tests, key=lambda t: (t.lineno, t.col_offset), reverse=True):
        for row, col, text in ((test.end_lineno, test.end_col_offset, ")"),
                               (test.lineno, test.col_offset, "_pforge_check(")):
            line = lines[row - 1].encode("utf-8")
            lines[row - 1] = (line[:col] + text.encode("utf-8") + line[col:]).decode("utf-8")
    return "\n".join(lines) + _RECORD


def has_rank_checks(code: str) -> bool:
    """Whether ``code`` holds a rewrite under run-time checks: a marker comment ending in
    :data:`RANK_CHECKED`, wrapped over several lines or not."""
    lines = source_lines(code)
    return any(line.lstrip().startswith("#") and marker_above(lines, k + 2).endswith(RANK_CHECKED)
               for k, line in enumerate(lines))


def rank_checks_held(path, code, func, make_args):
    """Whether the run-time rank checks of ``code`` hold on ``make_args()``.

    Returns:
      None when no check ran (``code`` has none, ``func`` reaches none, or it
      raises), else True when every check that ran held (the batched code
      ran), False when one failed (the loop ran).
    """
    if not has_rank_checks(code):
        return None
    module = load_module(path, source=instrument_rank_checks(code), variant="checked")
    try:
        timed_call(resolve(module, func, path), *make_args())
    except Exception:  # noqa: BLE001 - the comparison reports errors; this only looks
        return None
    held = module._PFORGE_CHECKS_HELD
    return all(held) if held else None


def is_numpy(plans, tree):
    """Whether a function's code is NumPy code, to be run on NumPy arrays without TensorFlow.

    Args:
      plans: the function's plans (``plans_of``).
      tree: the module's ``ast`` tree (``parse``).

    Returns:
      True when its loops are NumPy loops (no TensorFlow or mixed one), or, when it has no
      NumPy or TensorFlow loop, when the module imports ``numpy`` and not ``tensorflow``.
    """
    libraries = {getattr(p, "library", None) for p in plans}
    if libraries & {"tensorflow", "mixed"}:
        return False
    if "numpy" in libraries:
        return True
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.partition(".")[0])
    return "numpy" in imported and "tensorflow" not in imported


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


#: The device label of NumPy code (``on_device(numpy=True)``).
NUMPY_DEVICE = "CPU (NumPy)"


@contextlib.contextmanager
def on_device(which="auto", numpy=False):
    """Runs the block on ``pick_device(which)``'s device; yields ``(label, has_tf)``.

    Without TensorFlow installed everything runs on the CPU as plain Python.

    Args:
      which: ``"auto"``, ``"cpu"`` or ``"gpu"``.
      numpy: the code is NumPy code (``is_numpy``): it runs on the CPU, and TensorFlow is
        not imported for it (``has_tf`` is False, the label ``NUMPY_DEVICE``).

    Raises:
      TargetError: ``which`` is ``"gpu"`` and TensorFlow sees no GPU.
    """
    if numpy:
        yield NUMPY_DEVICE, False
        return
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
