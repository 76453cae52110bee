"""The ``pforge bench`` command: times a loop against its staged, pfor, direct and reference versions."""

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pforge.cli.runner import (ArgSpecs, Probe, Seed, Shapes, Targets, expand_targets, finish,
                               fmt_num, jsonable, parse_shapes, run_jobs, short_path,
                               stdout_to_stderr, table_console)
from pforge.runtime.bench import STATUSES, VARIANTS, bench_function
from pforge.runtime.inputs import parse_arg_spec
from pforge.runtime.timing import DEVICES

_NUMBER = {"type": ["number", "null"]}
#: JSON Schema (draft 2020-12) of ``pforge bench --format json``; times in seconds,
#: ``null`` where a number is undefined (a variant that did not run, a ratio without pfor).
JSON_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["device", "repeats", "warmup", "results", "errors"],
    "properties": {
        "device": {"type": ["string", "null"]},
        "repeats": {"type": "integer", "minimum": 1},
        "warmup": {"type": "integer", "minimum": 0},
        "errors": {"type": "array", "items": {"type": "string"}},
        "results": {"type": "array", "items": {
            "type": "object",
            "required": ["file", "function", "device", "loops_found", "ok", "variants",
                         "call_floor_s"],
            "properties": {
                "call_floor_s": _NUMBER,
                "file": {"type": "string"},
                "function": {"type": "string"},
                "device": {"type": "string"},
                "loops_found": {"type": "integer", "minimum": 0},
                "ok": {"type": "boolean"},
                "variants": {"type": "array", "minItems": len(VARIANTS), "maxItems": len(VARIANTS),
                             "items": {
                    "type": "object",
                    "required": ["name", "status", "median_s", "first_s", "repeats", "vs_loop",
                                 "vs_pfor", "max_abs_err", "note"],
                    "additionalProperties": False,
                    "properties": {
                        "name": {"enum": list(VARIANTS)},
                        "status": {"enum": list(STATUSES)},
                        "median_s": _NUMBER, "first_s": _NUMBER, "vs_loop": _NUMBER,
                        "vs_pfor": _NUMBER, "max_abs_err": _NUMBER,
                        "repeats": {"type": "integer", "minimum": 0},
                        "note": {"type": "string"},
                    },
                }},
            },
        }},
    },
}


def bench(
    targets: Targets,
    arg: ArgSpecs = None,
    repeats: Annotated[int, typer.Option(min=1, help="Timed calls of each variant (a slow eager "
                                         "loop gets fewer, at least 3).")] = 30,
    warmup: Annotated[int, typer.Option(min=0, help="Untimed calls of each variant after "
                                        "the first.")] = 3,
    device: Annotated[str, typer.Option(help="auto (a GPU when TensorFlow sees one), cpu "
                                        "or gpu.")] = "auto",
    seed: Seed = 0,
    rtol: Annotated[float, typer.Option(help="Relative tolerance against the eager loop.")] = 1e-4,
    atol: Annotated[float, typer.Option(help="Absolute tolerance against the eager loop.")] = 1e-5,
    shapes: Shapes = None,
    probe: Probe = None,
    output_format: Annotated[str, typer.Option("--format", help="text (a table) or json.")] = "text",
):
    """Times each loop function eagerly, under tf.function, as pfor and direct output, and
    against the file's reference_<func>, interleaved in one process on one device.

    Prints the steady-state median and the first call (trace + run) of each, the speedup
    over the eager loop and over the pfor output, and the max abs error against the eager
    loop. The file is transpiled with ranks as `pforge transpile` takes them (--shapes,
    --probe; by default the ranks of the inputs it runs on); output that left a loop for lack
    of a rank has status "unchanged". NumPy code runs on NumPy arrays, without TensorFlow.
    Exit status: 0 when the generated code matches everywhere, 1 when some mismatches
    or raises, 2 on bad input.
    """
    err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
    try:
        if output_format not in ("text", "json"):
            raise ValueError(f"--format must be text or json, not {output_format!r}")
        if device not in DEVICES:
            raise ValueError(f"--device must be one of {', '.join(DEVICES)}, not {device!r}")
        specs = tuple(parse_arg_spec(a) for a in arg or ())
        ranks = parse_shapes(shapes)
        jobs = expand_targets(targets, specs)
    except ValueError as exc:  # TargetError included
        err.print(f"error: {escape(str(exc))}")
        raise typer.Exit(code=2) from None

    options = dict(arg_specs=specs, seed=seed, repeats=repeats, warmup=warmup, device=device,
                   rtol=rtol, atol=atol, shapes=ranks, probe=probe)
    as_json = output_format == "json"
    with stdout_to_stderr(as_json):
        results, bad_input, failed = run_jobs(
            jobs, lambda file, name: bench_function(file, name, **options))

    if as_json:
        rows = [dict(jsonable(r), ok=r.ok) for r in results]
        print(json.dumps({"device": results[0].device if results else None, "repeats": repeats,
                          "warmup": warmup, "results": rows, "errors": bad_input + failed},
                         indent=2))
    else:
        _print_table(results)
    finish(err, targets, results, bad_input, failed)


def _print_table(results):
    console = table_console(180)
    devices = sorted({r.device for r in results})
    table = Table(title=f"pforge bench ({escape(', '.join(devices))})")
    table.add_column("function / file", overflow="fold")
    table.add_column("variant", no_wrap=True)
    for name in ("median ms", "first call ms", "× loop", "× pfor", "max abs err"):
        table.add_column(name, justify="right")
    table.add_column("status", no_wrap=True)
    table.add_column("note", overflow="fold")
    for result in results:
        # The function's name on the first row, its file on the second: both stay readable.
        where = [f"[bold]{escape(result.function)}[/bold]",
                 f"[dim]{escape(short_path(result.file))}[/dim]"]
        if result.call_floor_s == result.call_floor_s:  # not NaN
            where.append(f"[dim]call floor {result.call_floor_s * 1e3:.3f} ms[/dim]")
        for k, v in enumerate(result.variants):
            table.add_row(
                where[k] if k < len(where) else "", VARIANTS[v.name],
                fmt_num(v.median_s * 1e3, "{:.3f}"), fmt_num(v.first_s * 1e3, "{:.1f}"),
                fmt_num(v.vs_loop, "{:.2f}"), fmt_num(v.vs_pfor, "{:.2f}"),
                fmt_num(v.max_abs_err, "{:.1e}"), _status(v), escape(v.note),
                end_section=k == len(result.variants) - 1)
    if results:
        console.print(table)
        console.print("× loop: eager-loop median / this median; × pfor: pfor-output median / "
                      "this median (higher is faster). Errors are against the eager loop. Call "
                      "floor: an empty tf.function called with the same arguments, included in "
                      "every staged median.")
        console.print(f"Ran on {escape(', '.join(devices))}.")


def _status(variant):
    colour = {"ok": "green", "unchanged": "yellow", "mismatch": "bold red",
              "error": "bold red"}.get(variant.status)
    if colour is None:
        return "n/a"
    text = variant.status.upper() if colour == "bold red" else variant.status
    return f"[{colour}]{text}[/{colour}]"
