"""The ``pforge`` command: transpile, check, explain, rule, verify.

Commands parse options and call one library function; domain errors are caught here and
printed as one line (``FILE:LINE: message``), ending in exit code 2. TensorFlow is imported
only by ``verify``, so ``check`` starts fast enough for a pre-commit hook.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import tempfile
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pforge.cli.engine import check_files, default_cache_dir
from pforge.cli.verify import verify
from pforge.transpile import RULES, SourceError, TranspileResult, transpile_source
from pforge.transpile.frontend import read_source

app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="Finds Python loops whose iterations are independent and rewrites them "
                       "into vectorized TensorFlow code.")
app.command("verify")(verify)

_SKIP_DIRS = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", ".tox",
              ".mypy_cache", ".pytest_cache", "build", "dist", ".eggs"}


def _stdout() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def _fail(message: str) -> None:
    _stderr().print(f"error: {escape(message)}")
    raise typer.Exit(code=2)


def _transpile_file(path: str, backend: str = "pfor") -> tuple[TranspileResult, str]:
    source = read_source(path)
    return transpile_source(source.text, path, backend=backend), source.encoding


def _write_atomic(path: str, text: str, encoding: str) -> None:
    """Writes via a temporary file in the same folder and a rename; keeps the file's mode."""
    folder = os.path.dirname(os.path.abspath(path))
    mode = None
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=".pforge-", suffix=".py", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as fh:
            fh.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _unified_diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=f"a/{path}", tofile=f"b/{path}")
    out = []
    for line in lines:
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


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
    backend: Annotated[str, typer.Option(help="Code generator: pfor (tf.vectorized_map).")] = "pfor",
):
    """Rewrites every independent loop of FILE into vectorized TensorFlow code.

    By default the new code goes to standard output. Exit status: 0 on success, 1 with
    --check when FILE would change, 2 on bad input.
    """
    if sum(bool(x) for x in (output, in_place, diff)) > 1:
        _fail("use only one of -o/--output, --in-place and --diff")
    try:
        result, encoding = _transpile_file(file, backend)
    except (SourceError, ValueError) as exc:
        _fail(str(exc))
    for plan in result.plans:
        for remark in plan.remarks:
            if remark.code == "PF301":
                _stderr().print(escape(remark.format(file)))
    if check:
        if result.changed:
            _stderr().print(f"would rewrite {escape(file)}")
        if diff:
            sys.stdout.write(_unified_diff(file, result.source, result.code))
        raise typer.Exit(code=1 if result.changed else 0)
    if diff:
        sys.stdout.write(_unified_diff(file, result.source, result.code))
    elif output:
        try:
            _write_atomic(output, result.code, encoding)
        except OSError as exc:
            _fail(f"{output}: cannot write: {exc.strerror or exc}")
    elif in_place:
        if result.changed:
            try:
                _write_atomic(file, result.code, encoding)
            except OSError as exc:
                _fail(f"{file}: cannot write: {exc.strerror or exc}")
            _stderr().print(f"Rewriting {escape(file)}")
    else:
        sys.stdout.write(result.code)


def _python_files(paths: list[str]) -> list[str]:
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
        else:
            found.append(path)
    return found


@app.command()
def check(
    paths: Annotated[list[str], typer.Argument(help="Files or folders to check.", show_default=False)],
    refused: Annotated[bool, typer.Option("--refused", help="Also print why other loops cannot "
                                          "be vectorized (PF2xx).")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache "
                                           "(.pforge_cache in the project root, or "
                                           "$PFORGE_CACHE_DIR).")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes "
                                             "[default: one per CPU].")] = None,
):
    """Flags loops that can be vectorized (PF1xx), one line each, like a linter.

    Exit status: 0 when no loop can be vectorized, 1 when some can, 2 when a file could not
    be read or parsed (the other files are still checked).
    """
    out, err = _stdout(), _stderr()
    findings = errors = 0
    cache_dir = None if no_cache else default_cache_dir()
    for outcome in check_files(_python_files(paths), cache_dir=cache_dir, jobs=jobs):
        if outcome.error:
            err.print(f"error: {escape(outcome.error)}")
            errors += 1
            continue
        for remark in outcome.remarks:
            if remark.vectorizable or (refused and remark.code.startswith("PF2")):
                out.print(escape(remark.format(outcome.path)))
                findings += remark.vectorizable
    if errors:
        raise typer.Exit(code=2)
    raise typer.Exit(code=1 if findings else 0)


@app.command()
def explain(
    target: Annotated[str, typer.Argument(help="FILE or FILE::FUNC.", show_default=False,
                                          metavar="FILE[::FUNC]")],
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
):
    """Shows, per loop: iteration space, each name's class, dependences, verdict, backend."""
    path, _, func = target.partition("::")
    if output_format not in ("text", "json"):
        _fail(f"--format must be text or json, not {output_format!r}")
    try:
        result, _ = _transpile_file(path)
    except (SourceError, ValueError) as exc:
        _fail(str(exc))
    plans = [p for p in result.plans if not func or p.function == func
             or p.function.endswith(f".{func}")]
    if func and not plans:
        _fail(f"{path}: no loop in a function named {func!r}")
    if output_format == "json":
        sys.stdout.write(json.dumps([asdict(p) for p in plans], indent=2) + "\n")
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
        for remark in plan.remarks:
            out.print(f"  {escape(remark.format(path))}")
        out.print()


@app.command()
def rule(code: Annotated[str, typer.Argument(help="A remark code such as PF201.", show_default=False)]):
    """Prints the documentation of a remark code, with a failing and a passing example."""
    found = RULES.get(code.upper())
    if found is None:
        _fail(f"unknown rule {code!r}; known: {', '.join(sorted(RULES))}")
    out = _stdout()
    out.print(f"[bold]{found.code} {found.name}[/bold]\n\n{escape(found.summary)}\n\n{escape(found.explanation)}\n")
    out.print("[bold]Flagged:[/bold]")
    out.print(escape(found.example_bad) + "\n")
    out.print("[bold]Accepted:[/bold]")
    out.print(escape(found.example_good))


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
