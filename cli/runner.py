"""Shared by ``pforge verify`` and ``pforge bench``: expands targets, runs them, formats numbers."""

import contextlib
import dataclasses
import math
import os
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from pforge.runtime.targets import TargetError, functions_in

#: The ``TARGET...`` argument of verify and bench.
Targets = Annotated[list[str], typer.Argument(
    help="FILE, FILE::FUNC or a directory of *.py files.", metavar="TARGET", show_default=False)]
#: The repeatable ``--arg`` option of verify and bench.
ArgSpecs = Annotated[list[str] | None, typer.Option(
    "--arg", metavar="SPEC", help="Input spec for FILE::FUNC, repeatable: x=float32[64,32], "
                                  "n=int:5, lr=0.1. Default: the file's example_inputs().")]
#: The ``--seed`` option of verify and bench.
Seed = Annotated[int, typer.Option(help="Seed for the inputs.")]
#: Help of ``--shapes``, as ``pforge transpile`` has it.
SHAPES_HELP = ("Ranks of arrays the source does not declare: NAME=RANK[,NAME=RANK...], where NAME "
               "is a parameter or a local variable (f.x=2 for one function); an unknown name is "
               "an error.")
#: The ``--shapes`` option of verify and bench (parsed by ``parse_shapes``).
Shapes = Annotated[str | None, typer.Option(
    help=SHAPES_HELP + " They win over the ranks of the inputs.", show_default=False)]
#: The ``--probe/--no-probe`` option of verify and bench; ``None`` when not given.
Probe = Annotated[bool | None, typer.Option(
    "--probe/--no-probe", show_default=False,
    help="Transpile with the ranks of the file's example_inputs() (or make_inputs()), as "
         "`pforge transpile --probe` (an error without them); --no-probe: only --shapes and "
         "the source's own declarations, as plain `pforge transpile`. Default: probe when the "
         "inputs come from the file, the ranks of the --arg specs when they come from --arg.")]


def parse_shapes(text):
    """Parses ``--shapes`` with the parser of ``pforge transpile --shapes``.

    Args:
      text: the option's value, or None.

    Returns:
      ``{"x": 2, "f.w": 1}``; empty for None.

    Raises:
      ValueError: an entry that is not ``NAME=RANK`` (one line, naming it).
    """
    from pforge.transpile.ranks import parse_shapes_option  # noqa: PLC0415

    return parse_shapes_option(text or "")


def expand_targets(targets, specs):
    """Checks targets before anything runs.

    Args:
      targets: ``FILE``, ``FILE::FUNC`` or a directory, as typed.
      specs: the parsed ``--arg`` specs; they need a single ``FILE::FUNC``.

    Returns:
      ``(file, func or None, explicit)`` jobs; files found in a directory are
      not explicit and are skipped when they have no inputs.

    Raises:
      TargetError: a missing path, an empty function name, ``--arg`` without
        a function, or ``FILE::FUNC`` on a directory.
    """
    jobs = []
    for target in targets:
        file, sep, func = target.rpartition("::") if "::" in target else (target, "", "")
        if sep and not func:
            raise TargetError(f"{target}: empty function name after '::'")
        if not os.path.exists(file):
            raise TargetError(f"{file}: no such file or directory")
        if specs and not func:
            raise TargetError(f"{target}: --arg needs a single function, as FILE::FUNC")
        if os.path.isdir(file):
            if func:
                raise TargetError(f"{target}: FILE::FUNC needs a file, not a directory")
            jobs += [(os.path.join(file, f), None, False)
                     for f in sorted(os.listdir(file)) if f.endswith(".py")]
        else:
            jobs.append((file, func or None, True))
    return jobs


def run_jobs(jobs, run_one):
    """Runs ``run_one(file, func)`` for every function of every job.

    Returns:
      ``(results, bad_input, failed)``: the results in order, the messages of
      ``TargetError``s (bad input), and one line per unexpected exception (the
      other jobs still run).
    """
    results, bad_input, failed = [], [], []
    for file, func, explicit in jobs:
        try:
            names = [func] if func else functions_in(file)
            if explicit and not names:
                raise TargetError(f"{file}: no inputs: define example_inputs(seed=0) "
                                  "or name FILE::FUNC and pass --arg options")
            results += [run_one(file, name) for name in names]
        except TargetError as exc:
            bad_input.append(str(exc))
        except Exception as exc:  # noqa: BLE001 - report, don't crash the whole run
            failed.append(f"{file}: {type(exc).__name__}: {exc}")
    return results, bad_input, failed


def finish(err, targets, results, bad_input, failed):
    """Prints the error lines and ends the command with its exit status.

    Exit 2 on bad input or when nothing was found to run; 1 when a run failed
    unexpectedly or a result's ``ok`` is false; otherwise returns (exit 0).

    Args:
      err: the stderr ``Console``.
      targets: the targets as typed, for the "nothing found" line.
      results, bad_input, failed: as returned by ``run_jobs``.

    Raises:
      typer.Exit: with code 1 or 2.
    """
    for message in bad_input + failed:
        err.print(f"error: {escape(message)}")
    if not (results or bad_input or failed):
        err.print("error: no functions with inputs found in " + escape(", ".join(targets)))
    if bad_input or not (results or failed):
        raise typer.Exit(code=2)
    if failed or not all(r.ok for r in results):
        raise typer.Exit(code=1)


def table_console(width):
    """A stdout ``Console`` for a table; at least ``width`` columns wide when not a terminal
    (a log file or pipe should not squeeze columns)."""
    console = Console(highlight=False, emoji=False)
    if not console.is_terminal:
        console.width = max(console.width, width)
    return console


def short_path(path):
    """``path`` relative to the working directory when that is shorter."""
    rel = os.path.relpath(path)
    return rel if len(rel) < len(path) else path


def fmt_num(value, fmt):
    """Formats a finite number; ``inf`` and ``—`` (NaN, -inf) otherwise."""
    return fmt.format(value) if math.isfinite(value) else ("inf" if value > 0 else "—")


def jsonable(value):
    """A dataclass (or dict, list) as JSON-ready data: non-finite floats become ``None``."""
    if dataclasses.is_dataclass(value):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@contextlib.contextmanager
def stdout_to_stderr(active):
    """Sends what user code prints (also tf.print at the C level) to stderr, keeping
    stdout clean for JSON output."""
    if not active:
        yield
        return
    saved = None
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
        saved = os.dup(fd)
        os.dup2(sys.stderr.fileno(), fd)
    except (AttributeError, OSError, ValueError):  # not a real file, e.g. under CliRunner
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            sys.stdout.flush()
            os.dup2(saved, fd)
            os.close(saved)
