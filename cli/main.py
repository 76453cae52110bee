"""The ``pforge`` command: transpile, check, explain, rule, verify, bench.

Commands parse options and call one library function; domain errors are caught here and
printed as one line (``FILE:LINE: message``), ending in exit code 2. TensorFlow is imported
only by ``verify`` and ``bench``, so ``check`` starts fast enough for a pre-commit hook.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pforge.cli.bench import bench
from pforge.cli.config import ConfigError, formatter_line_length
from pforge.cli.config import line_length as valid_line_length
from pforge.cli.fix import unified_diff, write_atomic
from pforge.cli.lint import CheckOptions, run_check
from pforge.cli.report import COLORS, FORMATS
from pforge.cli.runner import SHAPES_HELP
from pforge.cli.verify import verify
from pforge.transpile import RULES, SourceError
from pforge.transpile.errors import InternalError

if TYPE_CHECKING:
    from pforge.transpile import TranspileResult

app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="Finds Python loops whose iterations are independent and rewrites them "
                       "into vectorized TensorFlow code.")
app.command("verify")(verify)
app.command("bench")(bench)


def _version(value: bool):
    if value:
        from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

        try:
            print(f"pforge {version('pforge')}")
        except PackageNotFoundError:
            print("pforge (not installed)")
        raise typer.Exit()


@app.callback()
def _main(show_version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                     help="Print the version and exit.")] = False):
    """Finds Python loops whose iterations are independent and rewrites them into vectorized
    TensorFlow code."""

def _stdout() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def _fail(message: str) -> None:
    _stderr().print(f"error: {escape(message)}")
    raise typer.Exit(code=2)


def _transpile_file(path: str, backend: str = "auto", shapes: str | None = None, probe: bool = False,
                    target: str = "auto", vector_plans: bool = False,
                    fast_math: bool = False, memory_bound: float | None = None,
                    line_length: int | None = None) -> tuple["TranspileResult", str]:
    """Reads and transpiles one file; ``shapes`` is the ``--shapes`` text, ``probe`` runs the file,
    ``memory_bound`` is ``--memory-bound`` in MiB (None: the default; 0: no strip-mining),
    ``line_length`` the longest generated line (None: the file's own).

    Raises:
        SourceError, ValueError: bad input or options (printed as one line by the caller).
        InternalError: a bug in pforge met while transpiling (also printed as one line).
    """
    from pforge.transpile import transpile_source  # noqa: PLC0415 - check never needs these
    from pforge.transpile.ranks import parse_shapes_option, unknown_shape_names  # noqa: PLC0415
    from pforge.transpile.frontend import read_source  # noqa: PLC0415

    source = read_source(path)
    ranks: dict = {}
    if probe:
        from pforge.runtime.probe import probe_option  # noqa: PLC0415 - runs user code, rarely needed

        ranks.update(probe_option(path, source.text))
    given = parse_shapes_option(shapes or "")
    unknown = unknown_shape_names(source.text, given) if given else []
    if unknown:
        raise ValueError(f"--shapes: `{unknown[0]}` is not a parameter or local variable of any "
                         f"function in {path}" if "." not in unknown[0] else
                         f"--shapes: `{unknown[0]}` names no parameter or local variable of a function "
                         f"`{unknown[0].rpartition('.')[0]}` in {path}")
    ranks.update(given)  # explicit ranks win over probed ones
    if memory_bound is not None and not 0 <= memory_bound < 2 ** 40:
        raise ValueError(f"--memory-bound must be a number of MiB >= 0, not {memory_bound}")
    options = {} if memory_bound is None else {"memory_bound": memory_bound}
    try:
        result = transpile_source(source.text, path, backend=backend, shapes=ranks or None, target=target,
                                  vector_plans=vector_plans, fast_math=fast_math, line_length=line_length,
                                  **options)
    except (SourceError, InternalError, ValueError):
        raise
    except Exception as exc:  # noqa: BLE001 - a bug in pforge: one line, never a traceback
        from pforge.cli.engine import internal_error  # noqa: PLC0415

        raise InternalError(internal_error(path, exc)) from exc
    return result, source.encoding


_BACKEND_HELP = ("Code generator: auto (direct when every op has a batching rule and every rank "
                 "is known, else pfor), direct (batched ops; NumPy loops stay NumPy) or pfor "
                 "(tf.vectorized_map).")
_SHAPES_HELP = SHAPES_HELP
_PROBE_HELP = "Learn ranks by running the file's example_inputs() (or make_inputs()); this runs the file."
_LINE_LENGTH_HELP = ("Longest line of the generated code; longer statements are wrapped as black "
                     "wraps them. [default: line-length of [tool.pforge], ruff or black in the "
                     "nearest configuration, else the smallest usual limit the file's lines fit in]")
_MEMORY_HELP = ("MiB of float64 values a NumPy rewrite may hold in its largest batched value where that "
                "value outgrows every array the loop reads or writes (pairwise differences): the "
                "outermost loop then runs in strips of rows within it. 0: never strip-mine. "
                "[default: 2]")


@app.command()
def transpile(
    file: Annotated[str, typer.Argument(help="The Python file to transpile.", show_default=False)],
    output: Annotated[str | None, typer.Option("-o", "--output", help="Write the result to OUT "
                                               "(always, even when nothing changed).")] = None,
    in_place: Annotated[bool, typer.Option("--in-place", "-i", help="Rewrite FILE itself "
                                           "(only when something changed).")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff instead of the code.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Write nothing; exit 1 when FILE would "
                                        "change.")] = False,
    backend: Annotated[str, typer.Option(help=_BACKEND_HELP)] = "auto",
    target: Annotated[str, typer.Option(help="Library of the rewritten code: auto (each loop "
                                        "stays in the library it was written in) or tensorflow "
                                        "(NumPy loops become tf.experimental.numpy code).")] = "auto",
    shapes: Annotated[str | None, typer.Option(help=_SHAPES_HELP)] = None,
    probe: Annotated[bool, typer.Option("--probe", help=_PROBE_HELP)] = False,
    fast_math: Annotated[bool, typer.Option("--fast-math", help="Also use the forms an expert trades "
                                            "precision for speed and memory with: pairwise squared "
                                            "distances as |a|^2 + |b|^2 - 2 a.b (a matrix product), "
                                            "which loses precision where points are close.")] = False,
    memory_bound: Annotated[float | None, typer.Option("--memory-bound", metavar="MIB", help=_MEMORY_HELP,
                                                       show_default=False)] = None,
    line_length: Annotated[int | None, typer.Option("--line-length", metavar="N", help=_LINE_LENGTH_HELP,
                                                    show_default=False)] = None,
):
    """Rewrites every independent loop of FILE into vectorized TensorFlow code.

    By default the new code goes to standard output. Exit status: 0 on success, 1 with
    --check when FILE would change, 2 on bad input.
    """
    if sum(bool(x) for x in (output, in_place, diff)) > 1:
        _fail("use only one of -o/--output, --in-place and --diff")
    try:
        length = formatter_line_length(file) if line_length is None else valid_line_length(line_length,
                                                                                             "--line-length")
        result, encoding = _transpile_file(file, backend, shapes, probe, target, fast_math=fast_math,
                                           memory_bound=memory_bound, line_length=length)
    except (SourceError, InternalError, ValueError, ConfigError) as exc:
        _fail(str(exc))
    for plan in result.plans:
        for remark in plan.remarks:
            if remark.code == "PF301":
                _stderr().print(escape(remark.format(file)))
        if backend == "direct" and plan.rewritten and plan.backend != "direct":
            # Asked for by name: say so when a loop needed the other backend.
            _stderr().print(escape(f"{file}:{plan.lineno}:{plan.col}: note: written with "
                                   f"tf.vectorized_map: {plan.backend_note}"))
    if check:
        if result.changed:
            _stderr().print(f"would rewrite {escape(file)}")
        if diff:
            sys.stdout.write(unified_diff(file, result.source, result.code))
        raise typer.Exit(code=1 if result.changed else 0)
    if diff:
        sys.stdout.write(unified_diff(file, result.source, result.code))
    elif output:
        try:
            write_atomic(output, result.code, encoding)
        except OSError as exc:
            _fail(f"{output}: cannot write: {exc.strerror or exc}")
    elif in_place:
        if result.changed:
            try:
                write_atomic(file, result.code, encoding)
            except OSError as exc:
                _fail(f"{file}: cannot write: {exc.strerror or exc}")
            _stderr().print(f"Rewriting {escape(file)}")
    else:
        sys.stdout.write(result.code)


@app.command()
def check(
    paths: Annotated[list[str], typer.Argument(help="Files or folders to check.", show_default=False)],
    refused: Annotated[bool, typer.Option("--refused", help="Also print why other loops cannot "
                                          "be vectorized (PF2xx); they do not set exit 1.")] = False,
    output_format: Annotated[str, typer.Option("--output-format", help="concise, full, json, "
                                               "github or sarif.")] = "concise",
    output_file: Annotated[str | None, typer.Option("--output-file", help="Write the report to "
                                                    "this file instead of standard output.")] = None,
    color: Annotated[str, typer.Option("--color", help="auto (a terminal, without NO_COLOR, CI "
                                       "or PRE_COMMIT set), always or never.")] = "auto",
    fix: Annotated[bool, typer.Option("--fix", help="Rewrite the flagged loops in place "
                                      "(safe rewrites only).")] = False,
    unsafe_fixes: Annotated[bool, typer.Option("--unsafe-fixes", help="With --fix or --diff, "
                                               "also rewrite loops whose floating-point results "
                                               "may change (reassociated sums, opted-in random "
                                               "draws).")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Print the fixes as a unified diff; write "
                                       "nothing; exit 1 when there is something to change.")] = False,
    exit_zero: Annotated[bool, typer.Option("--exit-zero", help="Exit 0 even when loops are "
                                            "flagged (bad input still exits 2).")] = False,
    select: Annotated[str | None, typer.Option("--select", help="Codes to report, comma "
                                               "separated prefixes (PF1,PF201); overrides the "
                                               "configuration.")] = None,
    ignore: Annotated[str | None, typer.Option("--ignore", help="Codes not to report, added to "
                                               "the configuration's.")] = None,
    config: Annotated[str | None, typer.Option("--config", help="Read [tool.pforge] from this "
                                               "file instead of the discovered pyproject.toml.")] = None,
    isolated: Annotated[bool, typer.Option("--isolated", help="Ignore every configuration "
                                           "file.")] = False,
    force_exclude: Annotated[bool, typer.Option("--force-exclude", help="Apply exclude and "
                                                "extend-exclude to files named explicitly, as "
                                                "pre-commit passes them.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache "
                                           "(.pforge_cache in the project root, or "
                                           "$PFORGE_CACHE_DIR).")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes "
                                             "[default: one per CPU].")] = None,
    shapes: Annotated[str | None, typer.Option("--shapes", help="Ranks for the rewrites of "
                                               "--fix and --diff, as transpile --shapes takes "
                                               "them (x=2,f.w=1); added to the configuration's "
                                               "shapes.")] = None,
    line_length: Annotated[int | None, typer.Option("--line-length", metavar="N", help="Longest line "
                                                    "of the code --fix and --diff write (overrides "
                                                    "the configuration).", show_default=False)] = None,
):
    """Flags loops that can be vectorized (PF1xx), one line each, like a linter.

    Configuration comes from [tool.pforge] in the nearest pyproject.toml (select, ignore,
    exclude, extend-exclude, per-file-ignores, backend, target, shapes, line-length). A "# noqa: PF101" comment on
    the loop line suppresses a finding; "# pforge: noqa" on its own line, a whole file.
    Exit status: 0 when nothing is flagged, 1 when some loop is (with --diff: when there is
    something to change), 2 when a file could not be read or parsed (the other files are
    still checked) or the configuration is invalid.
    """
    if output_format not in FORMATS:
        _fail(f"--output-format must be one of {', '.join(FORMATS)}, not {output_format!r}")
    if color not in COLORS:
        _fail(f"--color must be one of {', '.join(COLORS)}, not {color!r}")
    if fix and diff:
        _fail("use only one of --fix and --diff")
    raise typer.Exit(code=run_check(CheckOptions(
        tuple(paths), refused, output_format, output_file, color, fix, unsafe_fixes, diff,
        exit_zero, config, isolated, select, ignore, force_exclude, no_cache, jobs, shapes, line_length)))


def _probed_sizes(path: str, plans) -> dict[int, tuple[list[str], str]]:
    """For ``explain --probe``: each rewritten plan's ``choice:`` and ``memory:`` lines with the
    number each product of sizes they name comes to, in the function's frame where the loop
    starts with the file's example inputs (:func:`pforge.runtime.probe.loop_locals`); plans
    whose function takes no such inputs, or does not reach the loop, are left out."""
    from pforge.runtime.loader import RuntimeLoadError, load_module  # noqa: PLC0415 - runs user code
    from pforge.runtime.probe import loop_locals, with_sizes  # noqa: PLC0415

    wanted = [p for p in plans if p.rewritten and (p.choices or p.footprint)]
    if not wanted:
        return {}
    try:
        module = load_module(path)
    except (RuntimeLoadError, OSError):
        return {}
    sized = {}
    for plan in wanted:
        try:
            names = loop_locals(module, plan.function, plan.lineno)
        except Exception:  # noqa: BLE001 - the file's input builder raised: no numbers
            names = None
        if names is not None:
            sized[id(plan)] = ([with_sizes(c, names) for c in plan.choices], with_sizes(plan.footprint, names))
    return sized


@app.command()
def explain(
    target: Annotated[str, typer.Argument(help="FILE or FILE::FUNC.", show_default=False,
                                          metavar="FILE[::FUNC]")],
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    backend: Annotated[str, typer.Option(help=_BACKEND_HELP)] = "auto",
    shapes: Annotated[str | None, typer.Option(help=_SHAPES_HELP)] = None,
    probe: Annotated[bool, typer.Option("--probe", help=_PROBE_HELP)] = False,
    show_plan: Annotated[bool, typer.Option("--plan", help="Also print the vector plan of each "
                                            "vectorizable loop: its values (stacked or "
                                            "unstacked) and its recipes (widen, mask, blend, "
                                            "reduce, collect, gather, scatter, snapshot, inner "
                                            "loop), "
                                            "in order.")] = False,
    fast_math: Annotated[bool, typer.Option("--fast-math", help="Explain the rewrite "
                                            "`pforge transpile --fast-math` makes.")] = False,
    memory_bound: Annotated[float | None, typer.Option("--memory-bound", metavar="MIB", help=_MEMORY_HELP,
                                                       show_default=False)] = None,
):
    """Shows, per loop: iteration space, each name's class, dependences, verdict, the
    backend chosen with the reason (``auto`` falls back to pfor when an op has no batching rule
    or a rank is unknown, and names it), and what the rewrite holds at once (its largest
    batched value, against the loop's one at a time). With ``--plan``, the vector plan that
    both backends print."""
    path, _, func = target.partition("::")
    if output_format not in ("text", "json"):
        _fail(f"--format must be text or json, not {output_format!r}")
    try:
        result, _ = _transpile_file(path, backend, shapes, probe, vector_plans=show_plan, fast_math=fast_math,
                                    memory_bound=memory_bound)
    except (SourceError, InternalError, ValueError) as exc:
        _fail(str(exc))
    plans = [p for p in result.plans if not func or p.function == func
             or p.function.endswith(f".{func}")]
    if func and not plans:
        _fail(f"{path}: no loop in a function named {func!r}")
    sized = _probed_sizes(path, plans) if probe else {}
    if output_format == "json":
        records = [asdict(p) for p in plans]
        for plan, record in zip(plans, records):
            if not show_plan:
                record.pop("vector_plan")
            if id(plan) in sized:  # (the sizes of the probed inputs, where the loop starts)
                record["probed"] = {"choices": sized[id(plan)][0], "footprint": sized[id(plan)][1]}
        sys.stdout.write(json.dumps(records, indent=2) + "\n")
        return
    out = _stdout()
    if not out.is_terminal:
        out.width = max(out.width, 160)  # a piped table should not wrap names mid-row
    if not plans:
        out.print(f"{escape(path)}: no loops")
    for plan in plans:
        verdict = "vectorizable" if plan.vectorizable else "refused"
        done = f"rewritten by the {plan.backend} backend" if plan.rewritten else "left as a loop"
        where = f"{path}:{plan.lineno}" + (f" in {plan.function}" if plan.function else "")
        out.print(f"[bold]{escape(where)}[/bold] ({plan.library}): {verdict}, {done}")
        if plan.rewritten and plan.backend_note:
            out.print(f"  backend: {plan.backend}, because {escape(plan.backend_note)}")
        choices, footprint = sized.get(id(plan), (plan.choices, plan.footprint))
        if plan.rewritten and footprint:
            out.print(f"  memory: {escape(footprint)}")
        for choice in choices if plan.rewritten else ():
            out.print(f"  choice: {escape(choice)}")
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for column in ("line", "level", "iteration space", "names", "verdict"):
            table.add_column(column)
        for level in plan.levels:
            names = ", ".join(f"{n}: {c}" for n, c in level.classes if c != "invariant")
            invariants = [n for n, c in level.classes if c == "invariant"]
            if invariants:
                names += ("; " if names else "") + "invariant: " + " ".join(invariants)
            table.add_row(str(level.lineno), "  " * level.depth + str(level.depth),
                          escape(level.space), escape(names), level.verdict)
        out.print(table)
        for level in plan.levels:
            for dep in level.dependences:
                out.print(f"  dependence (line {level.lineno}): {escape(dep)}")
            for note in level.notes:
                out.print(f"  note (line {level.lineno}): {escape(note)}")
        for remark in plan.remarks:
            out.print(f"  {escape(remark.format(path))}")
        if show_plan:
            for line in plan.vector_plan or ("no vector plan: the loop is not vectorizable",):
                out.print(f"  {escape(line)}", highlight=False)
        out.print()


@app.command()
def rule(code: Annotated[str | None, typer.Argument(help="A remark code such as PF201; none lists "
                                                     "every code.", show_default=False)] = None):
    """Prints the documentation of a remark code, with a flagged and an accepted example."""
    if code is None:
        out = _stdout()
        for known in sorted(RULES.values(), key=lambda r: r.code):
            out.print(f"{known.code}  {known.name:36} {escape(known.summary)}")
        return
    found = RULES.get(code.upper())
    if found is None:
        _fail(f"unknown rule {code!r}; known: {', '.join(sorted(RULES))}")
    out = _stdout()
    out.print(f"[bold]{found.code} {found.name}[/bold]\n\n{escape(found.summary)}\n\n{escape(found.explanation)}\n")
    if found.code == "PF301":
        out.print(escape(_batching_rules()) + "\n")
    out.print("[bold]Flagged:[/bold]")
    out.print(escape(found.example_bad) + "\n")
    out.print("[bold]Accepted:[/bold]")
    out.print(escape(found.example_good))


def _batching_rules() -> str:
    """The functions and methods the direct backend batches, by library (its rule registry)."""
    import textwrap

    from pforge.transpile.backends.direct import core  # (the registry; no TensorFlow import)
    groups = {"NumPy": "numpy.", "math (in NumPy loops)": "math.", "methods of arrays": "method.",
              "TensorFlow": "tensorflow."}
    parts = ["Functions with a batching rule (anything else in the body keeps the loop):"]
    for title, prefix in groups.items():
        names = sorted(n[len(prefix):] for n in core.REGISTRY if n.startswith(prefix))
        if prefix == "method.":
            names = [f".{n}()" for n in names]
        parts.append(f"{title} ({len(names)}):\n" + textwrap.fill(", ".join(names), 92,
                                                                  initial_indent="  ", subsequent_indent="  "))
    return "\n\n".join(parts)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
