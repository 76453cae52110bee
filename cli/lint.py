"""Runs ``pforge check``: settings, files, analysis, selection and suppression, fixes, report.

The analysis itself is :func:`pforge.cli.engine.check_files`; this module decides what to
show (``select``/``ignore``, ``per-file-ignores``, ``# noqa``), applies ``--fix`` through the
same transpiler as ``pforge transpile`` and returns the exit status: 0 clean, 1 findings (or
changes, with ``--diff``), 2 bad input or bad configuration.
"""

from __future__ import annotations

import functools
import io
import os
import re
import sys
import tokenize
from dataclasses import dataclass, replace

import pathspec
from rich.markup import escape

from pforge.cli import report
from pforge.cli.config import (ConfigError, Settings, formatter_line_length, line_length, load_settings,
                               parse_codes)
from pforge.cli.engine import check_files, default_cache_dir
from pforge.cli.files import python_files
from pforge.cli.fix import fix_file, unified_diff, write_atomic
from pforge.cli.config import BACKENDS
from pforge.transpile import Remark, SourceError
from pforge.transpile.errors import InternalError

# flake8's noqa syntax: ``# noqa`` (every code) or ``# noqa: PF101, PF2`` (those prefixes).
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]*(?:[,\s]+[A-Z]+[0-9]*)*))?", re.I)
# A whole file: ``# pforge: noqa`` alone on a line (like ``# flake8: noqa``), optionally
# with codes (like ``# ruff: noqa: F401``).
_FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*pforge:[ \t]*noqa(?::[ \t]*(?P<codes>[A-Z0-9, \t]+))?[ \t]*$",
                        re.I | re.M)


@dataclass(frozen=True)
class CheckOptions:
    """The command-line options of ``pforge check`` (see ``pforge check --help``)."""

    paths: tuple[str, ...]
    refused: bool = False
    output_format: str = "concise"
    output_file: str | None = None
    color: str = "auto"
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    exit_zero: bool = False
    config: str | None = None
    isolated: bool = False
    select: str | None = None
    ignore: str | None = None
    force_exclude: bool = False
    no_cache: bool = False
    jobs: int | None = None
    shapes: str | None = None
    line_length: int | None = None


class _Filter:
    """Decides which remarks of a file are shown: selection, per-file ignores, noqa."""

    def __init__(self, settings: Settings, refused: bool):
        self.settings = settings
        self.refused = refused
        self.per_file = [(pathspec.GitIgnoreSpec.from_lines([pattern]), codes)
                         for pattern, codes in settings.per_file_ignores]
        # --refused adds the PF2xx remarks, unless the selection already says which it wants.
        self.pf2_selected = any(p in ("ALL", "P", "PF") or p.startswith("PF2") for p in settings.select)

    def findings(self, path: str, remarks: tuple[Remark, ...], text: str | None = None
                 ) -> list[report.Finding]:
        ignored = self._per_file_codes(path)
        wanted = []
        for remark in remarks:
            if _matches(remark.code, ignored):
                continue
            if self.settings.selects(remark.code):
                wanted.append((remark, True))
            elif (self.refused and remark.code.startswith("PF2") and not self.pf2_selected
                  and not _matches(remark.code, self.settings.ignore + self.settings.ignore_always)):
                wanted.append((remark, False))
        if not wanted:
            return []
        if text is None:
            try:
                from pforge.transpile.frontend import read_source  # noqa: PLC0415
                text = read_source(path).text
            except SourceError:
                text = ""
        lines = tuple(text.splitlines())
        # Tokenize (so a `# noqa` in a string does not count) only when the text mentions noqa.
        comments = _comments(text, lines) if "noqa" in text.lower() else {}
        file_codes = _file_noqa(comments, lines)
        found = []
        for remark, counted in wanted:
            if file_codes is not None and (not file_codes or _matches(remark.code, file_codes)):
                continue
            match = _NOQA.search(comments.get(remark.lineno, ""))
            if match and (not match.group("codes") or _matches(remark.code, _split(match.group("codes")))):
                continue
            found.append(report.Finding(path, remark, counted, lines))
        return found

    def _per_file_codes(self, path: str) -> tuple[str, ...]:
        if not self.per_file:
            return ()
        absolute = os.path.abspath(path)
        rel = os.path.relpath(absolute, self.settings.root).replace(os.sep, "/")
        codes: list[str] = []
        for spec, ignored in self.per_file:
            if spec.match_file(rel) or spec.match_file(os.path.basename(absolute)):
                codes += ignored
        return tuple(codes)


def _split(codes: str) -> tuple[str, ...]:
    return tuple(c.upper() for c in re.split(r"[,\s]+", codes) if c)


def _matches(code: str, prefixes) -> bool:
    return any(p == "ALL" or code.startswith(p) for p in prefixes)


def _comments(text: str, lines: tuple[str, ...]) -> dict[int, str]:
    """``line -> comment`` from the tokenizer, so ``# noqa`` inside a string is no comment."""
    found: dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string
    except (tokenize.TokenError, SyntaxError):  # unreadable: fall back to the raw lines
        return {k + 1: line[line.index("#"):] for k, line in enumerate(lines) if "#" in line}
    return found


def _file_noqa(comments: dict[int, str], lines: tuple[str, ...]) -> tuple[str, ...] | None:
    """None without a file-level ``# pforge: noqa`` (a comment alone on its line); () for
    every code; else the codes."""
    for lineno, comment in sorted(comments.items()):
        if not lines[lineno - 1].lstrip().startswith("#"):
            continue
        match = _FILE_NOQA.search(comment)
        if match is not None:
            return _split(match.group("codes") or "")
    return None


def run_check(options: CheckOptions) -> int:
    """Runs ``pforge check`` and returns its exit status (0, 1 or 2); see the module docstring."""
    err = report.console(report.use_color(options.color, sys.stderr), stderr=True)
    try:
        settings = _settings(options)
    except ConfigError as exc:
        err.print(f"error: {escape(str(exc))}")
        return 2
    paths = python_files(list(options.paths), settings, force_exclude=options.force_exclude)
    analyse = functools.partial(
        check_files, cache_dir=None if options.no_cache else default_cache_dir(), jobs=options.jobs,
        backend=settings.backend or "auto", target=settings.target or "auto", shapes=dict(settings.shapes))
    if len(paths) > 1 and report.use_color(options.color, sys.stderr):
        with err.status(f"Checking {len(paths)} files"):
            outcomes = analyse(paths)
    else:
        outcomes = analyse(paths)
    keep = _Filter(settings, options.refused)
    errors: list[tuple[str, str]] = []  # (path, one-line message)
    findings: dict[str, list[report.Finding]] = {}
    for outcome in outcomes:
        if outcome.error:
            errors.append((outcome.path, outcome.error))
        else:
            findings[outcome.path] = keep.findings(outcome.path, outcome.remarks)
    for _, line in errors:
        err.print(f"error: {escape(line)}")
    if options.fix or options.diff:
        status = _fix(options, settings, keep, findings, errors, err)
        if options.diff:
            return 2 if errors else (0 if options.exit_zero else status)
    shown = [f for path in findings for f in findings[path]]
    text = report.render(shown, options.output_format, root=_repository_root(settings.root),
                         color=options.output_file is None
                         and report.use_color(options.color, sys.stdout),
                         errors=errors)
    try:
        report.write_report(text, options.output_file)
    except OSError as exc:
        err.print(f"error: {escape(str(options.output_file))}: cannot write: "
                  f"{escape(exc.strerror or str(exc))}")
        return 2
    if errors:
        return 2
    return 1 if any(f.counted for f in shown) and not options.exit_zero else 0


def _settings(options: CheckOptions) -> Settings:
    settings = load_settings(list(options.paths), config=options.config, isolated=options.isolated)
    select = parse_codes(options.select, "--select")
    ignore = parse_codes(options.ignore, "--ignore")
    # The command line is a later layer than the file, as in ruff: --select replaces the file's
    # select and ignore, --ignore wins over any select.
    if select is not None:
        settings = replace(settings, select=select, ignore=())
    if ignore is not None:
        settings = replace(settings, ignore_always=ignore)
    if options.shapes:  # later than the file's shapes, entry by entry
        from pforge.transpile.ranks import parse_shapes_option  # noqa: PLC0415

        try:
            given = parse_shapes_option(options.shapes)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        settings = replace(settings, shapes=tuple({**dict(settings.shapes), **given}.items()))
    if options.line_length is not None:
        settings = replace(settings, line_length=line_length(options.line_length, "--line-length"))
    if settings.backend is not None and settings.backend not in BACKENDS:
        raise ConfigError(f"{settings.config_file}: [tool.pforge] backend: {settings.backend!r} is "
                          f"not available in this version of pforge (available: "
                          f"{', '.join(BACKENDS)})")
    return settings


def _fix(options, settings, keep, findings, errors, err) -> int:
    """Applies (``--fix``) or prints (``--diff``) the rewrites of the shown PF1xx findings.

    Updates ``findings`` to what is left after the fix. Returns 1 when ``--diff`` printed a
    change, else 0.
    """
    changed = unsafe_left = 0
    lengths: dict[str, int | None] = {}  # folder -> its formatter's line length, read once
    for path, found in findings.items():
        loops = {f.remark.lineno for f in found if f.counted and f.remark.vectorizable}
        if not loops:
            continue
        try:
            folder = os.path.dirname(os.path.abspath(path))
            if settings.line_length is None and not options.isolated and folder not in lengths:
                lengths[folder] = formatter_line_length(path)
            length = settings.line_length if settings.line_length is not None or options.isolated \
                else lengths[folder]
            outcome = fix_file(path, loops, unsafe=options.unsafe_fixes, backend=settings.backend,
                               target=settings.target, shapes=dict(settings.shapes), line_length=length)
        except (SourceError, InternalError, ValueError, ConfigError) as exc:
            errors.append((path, str(exc)))
            err.print(f"error: {escape(str(exc))}")
            continue
        unsafe_left += outcome.unsafe_left
        for line, why in outcome.held:  # named one by one, as ruff names each unsafe fix
            err.print(f"{escape(path)}:{line}: left as it was: the rewrite {escape(why)}")
        if not outcome.changed:
            continue
        changed += 1
        if options.diff:
            sys.stdout.write(unified_diff(path, outcome.result.source, outcome.result.code))
            continue
        try:
            write_atomic(path, outcome.result.code, outcome.encoding)
        except (OSError, UnicodeEncodeError) as exc:
            line = f"{path}: cannot write: {getattr(exc, 'strerror', None) or exc}"
            errors.append((path, line))
            err.print(f"error: {escape(line)}")
            continue
        err.print(f"Rewriting {escape(path)}")
        try:  # report what is left at its new line numbers
            from pforge.transpile import transpile_source  # noqa: PLC0415
            again = transpile_source(outcome.result.code, path, shapes=dict(settings.shapes) or None, **{
                key: value for key, value in (("backend", settings.backend), ("target", settings.target))
                if value is not None}).remarks
        except (SourceError, InternalError):  # not expected: the splice keeps the text valid Python
            again = ()
        findings[path] = keep.findings(path, again, outcome.result.code)
    if unsafe_left:
        err.print(f"{unsafe_left} loop{'s' if unsafe_left > 1 else ''} left as "
                  f"{'they were' if unsafe_left > 1 else 'it was'}: the rewrite may change "
                  "floating-point results or random draws; apply with --unsafe-fixes")
    return 1 if changed else 0


def _repository_root(start: str) -> str:
    """The nearest folder at or above ``start`` holding ``.git`` or ``.hg``, else ``start``."""
    folder = start
    while True:
        if any(os.path.exists(os.path.join(folder, m)) for m in (".git", ".hg")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent
