"""The ``pforge verify`` command: runs original and transpiled code, compares and times them."""

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pforge.cli.runner import (ArgSpecs, Probe, Seed, Shapes, Targets, expand_targets, finish,
                               fmt_num, jsonable, parse_shapes, run_jobs, short_path,
                               stdout_to_stderr, table_console)
from pforge.runtime.inputs import parse_arg_spec
from pforge.runtime.verify import VerifyInputError, verify_function


def verify(
    targets: Targets,
    arg: ArgSpecs = None,
    seed: Seed = 0,
    rtol: Annotated[float, typer.Option(help="Relative tolerance.")] = 1e-4,
    atol: Annotated[float, typer.Option(help="Absolute tolerance.")] = 1e-5,
    repeats: Annotated[int, typer.Option(min=1, help="Timed calls of each version.")] = 20,
    backend: Annotated[str, typer.Option(
        help="Transpiler backend: pfor, direct or auto.")] = "auto",
    shapes: Shapes = None,
    probe: Probe = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
    decorated: Annotated[bool, typer.Option(
        "--decorated", help="Run each function under @pforge.vectorize (rewritten at its first "
        "call, with that call's ranks) instead of the file's static rewrite.")] = False,
):
    """Checks that transpiled functions return what the originals return, and times both.

    The file is transpiled with ranks as `pforge transpile` takes them (--shapes, --probe;
    by default the ranks of the inputs it runs on). NumPy code runs on NumPy arrays, without
    TensorFlow. A loop left as a loop for lack of a rank has status "unchanged: rank unknown".
    Exit status: 0 when every result matches, 1 when any mismatches, 2 on
    bad input (missing file, bad --arg or --shapes, no inputs for a function).
    """
    err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)  # keep paths whole
    try:
        specs = tuple(parse_arg_spec(a) for a in arg or ())
        ranks = parse_shapes(shapes)
        jobs = expand_targets(targets, specs)
    except (ValueError, VerifyInputError) as exc:
        err.print(f"error: {escape(str(exc))}")
        raise typer.Exit(code=2) from None

    options = dict(arg_specs=specs, seed=seed, rtol=rtol, atol=atol, repeats=repeats,
                   backend=backend, shapes=ranks, probe=probe, decorated=decorated)
    with stdout_to_stderr(json_output):
        results, bad_input, failed = run_jobs(
            jobs, lambda file, name: verify_function(file, name, **options))

    if json_output:
        print(json.dumps({"device": results[0].device if results else None,
                          "results": [jsonable(r) for r in results],
                          "errors": bad_input + failed}, indent=2))
    else:
        _print_table(results)
    finish(err, targets, results, bad_input, failed)


def _print_table(results):
    console = table_console(160)
    table = Table(title="pforge verify")
    names = [escape(f"{short_path(r.file)}::{r.function}") for r in results]
    table.add_column("file::function", overflow="fold",
                     min_width=min(30, max(map(len, names), default=10)))
    for name in ("loops", "vectorized", "max abs err", "max rel err", "original ms",
                 "generated ms", "speedup ×"):
        table.add_column(name, justify="right")
    table.add_column("status", no_wrap=True)
    for name, r in zip(names, results):
        table.add_row(
            name, str(r.loops_found),
            str(r.loops_vectorized), fmt_num(r.max_abs_err, "{:.2e}"), fmt_num(r.max_rel_err, "{:.2e}"),
            fmt_num(r.time_original_s * 1e3, "{:.3f}"), fmt_num(r.time_generated_s * 1e3, "{:.3f}"),
            fmt_num(r.speedup, "{:.2f}"), _status(r))
    if results:
        console.print(table)
    for r in results:
        if r.status not in ("ok", "unchanged") and r.note:
            console.print(escape(f"{short_path(r.file)}::{r.function}: {r.note}"), soft_wrap=True)
    devices = sorted({r.device for r in results})
    if devices:
        console.print(f"Ran on {escape(', '.join(devices))}.")


def _status(result):
    if result.status in ("mismatch", "error"):
        return f"[bold red]{result.status.upper()}[/bold red]"
    if result.status == "unchanged":
        return "ok [dim](unchanged)[/dim]"
    if result.status == "ok":
        return "[green]ok[/green]"
    return f"[yellow]{escape(result.status)}[/yellow]"
