"""Formats the findings of ``pforge check`` for people and for tools.

Formats: ``concise`` (``path:line:col: CODE message``, one line each, like flake8 and ruff),
``full`` (adds the source lines around the loop, the loop line marked), ``json`` (a list of
objects), ``github`` (workflow commands, escaped as ``@actions/core`` does in
``toolkit/packages/core/src/command.ts``) and ``sarif`` (SARIF 2.1.0 for GitHub code
scanning: rules with help, repository-relative URIs, regions, ``partialFingerprints``).
Colour is used only on an interactive terminal, and never when ``NO_COLOR``, ``CI`` or
``PRE_COMMIT`` is set, unless ``--color always``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from dataclasses import dataclass
from urllib.parse import quote

from rich.console import Console
from rich.markup import escape

from pforge.transpile import RULES, Remark

FORMATS = ("concise", "full", "json", "github", "sarif")
COLORS = ("auto", "always", "never")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True)
class Finding:
    """One remark to report.

    Attributes:
        path: the file as given.
        remark: code, message, 1-based line and column.
        counted: False for remarks shown only for information (``--refused``); those do not
            make the exit status 1 and are ``note``-level in SARIF and GitHub.
        lines: the file's source lines (for ``full`` and fingerprints), without endings.
    """

    path: str
    remark: Remark
    counted: bool = True
    lines: tuple[str, ...] = ()

    @property
    def source_line(self) -> str:
        index = self.remark.lineno - 1
        return self.lines[index] if 0 <= index < len(self.lines) else ""


def use_color(choice: str, stream) -> bool:
    """Whether to colour ``stream``: ``always``, ``never``, or ``auto`` (a terminal, and none
    of ``NO_COLOR``, ``CI``, ``PRE_COMMIT`` set, and ``TERM`` not ``dumb``)."""
    if choice != "auto":
        return choice == "always"
    if any(os.environ.get(name) for name in ("NO_COLOR", "CI", "PRE_COMMIT")):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def console(color: bool, *, stderr: bool = False, file=None) -> Console:
    """A rich console that never wraps, highlights or guesses emoji; colour only if asked."""
    return Console(file=file, stderr=stderr, highlight=False, soft_wrap=True, emoji=False,
                   force_terminal=color, no_color=not color,
                   color_system="standard" if color else None)


def render(findings: list[Finding], output_format: str, *, root: str, color: bool = False,
           errors: list[tuple[str, str]] = ()) -> str:
    """The whole report as text, ready to print or write to ``--output-file``.

    Args:
        findings: in the order to report (files in the order given, remarks by line).
        output_format: one of ``FORMATS``.
        root: the repository root; SARIF URIs are relative to it.
        color: ANSI colour in ``concise`` and ``full``.
        errors: ``(path, message)`` per file that could not be analysed; the message is one
            line starting with the path. SARIF records them as tool notifications, ``github``
            as error annotations; the other formats leave them to standard error.
    """
    if output_format == "json":
        return json.dumps([_json(f) for f in findings], indent=2) + "\n"
    if output_format == "github":
        return "".join(_github(f) + "\n" for f in findings) + "".join(
            _github_error(path, line) + "\n" for path, line in errors)
    if output_format == "sarif":
        return json.dumps(sarif(findings, root=root, errors=errors), indent=2) + "\n"
    buffer = io.StringIO()
    out = console(color, file=buffer)
    for finding in findings:
        out.print(_concise(finding))
        if output_format == "full":
            out.print(_excerpt(finding))
    return buffer.getvalue()


def _concise(f: Finding) -> str:
    r = f.remark
    style = "red" if f.counted else "yellow"
    return (f"[bold]{escape(f.path)}[/bold][cyan]:[/cyan]{r.lineno}[cyan]:[/cyan]{r.col}"
            f"[cyan]:[/cyan] [bold {style}]{r.code}[/bold {style}] {escape(r.message)}")


def _excerpt(f: Finding) -> str:
    """The loop line with one line of context each side, ``|``-gutter, caret at the column."""
    r = f.remark
    first, last = max(1, r.lineno - 1), min(len(f.lines), r.lineno + 1)
    width = len(str(last))
    rows = [f"{' ' * width} |"]
    for number in range(first, last + 1):
        mark = ">" if number == r.lineno else " "
        rows.append(f"{number:>{width}} |{mark}{escape(f.lines[number - 1])}")
        if number == r.lineno:
            indent = len(f.lines[number - 1][: r.col - 1].expandtabs())
            rows.append(f"{' ' * width} | {' ' * indent}[bold red]^[/bold red] {r.code}")
    return "\n".join(rows) + "\n"


def _json(f: Finding) -> dict:
    rule = RULES.get(f.remark.code)
    return {"filename": f.path, "line": f.remark.lineno, "column": f.remark.col,
            "code": f.remark.code, "name": rule.name if rule else None,
            "message": f.remark.message, "counted": f.counted}


# GitHub workflow commands: ``::error file=F,line=L,col=C,title=T::MESSAGE``. Escaping as in
# @actions/core: the message escapes % CR LF; property values also escape : and ,.
def escape_data(text: str) -> str:
    """Escapes a workflow command's message (``%``, ``\\r``, ``\\n``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escapes a workflow command's property value (``%``, ``\\r``, ``\\n``, ``:``, ``,``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github(f: Finding) -> str:
    r = f.remark
    level = "error" if f.counted else "notice"
    props = ",".join(f"{k}={escape_property(str(v))}" for k, v in (
        ("file", f.path), ("line", r.lineno), ("col", r.col), ("title", f"pforge {r.code}")))
    return f"::{level} {props}::{escape_data(f'{r.code} {r.message}')}"


def _github_error(path: str, line: str) -> str:
    """An error annotation for a file that could not be analysed (``PATH[:LINE[:COL]]: msg``)."""
    rest = line[len(path):] if line.startswith(path) else ": " + line
    props = [("file", path)]
    parts = rest.split(": ", 1)
    where = parts[0].lstrip(":").split(":") if len(parts) == 2 else []
    for key, value in zip(("line", "col"), where):
        if value.isdigit():
            props.append((key, value))
    props.append(("title", "pforge: cannot analyse"))
    text = parts[1] if len(parts) == 2 else rest
    return f"::error {','.join(f'{k}={escape_property(v)}' for k, v in props)}::{escape_data(text)}"


# --------------------------------------------------------------------------- SARIF 2.1.0


def _version() -> str:
    from importlib import metadata  # only SARIF needs it; keeps start-up short

    try:
        return metadata.version("pforge")
    except metadata.PackageNotFoundError:
        return "0"


def _uri(path: str, root: str) -> tuple[str, bool]:
    """``(uri, relative)``: the path relative to ``root`` in URI form, or a ``file://`` URI."""
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, root)
    if rel.startswith(os.pardir):
        return "file://" + quote(absolute.replace(os.sep, "/")), False
    return quote(rel.replace(os.sep, "/")), True


def sarif(findings: list[Finding], *, root: str, errors: list[tuple[str, str]] = ()) -> dict:
    """A SARIF 2.1.0 log with one run (OASIS SARIF 2.1.0 errata 01; GitHub's
    "SARIF support for code scanning" lists the fields it reads).

    Every remark code is a rule (``shortDescription``, ``fullDescription``, ``help`` with
    the flagged and accepted examples). Each result has a repository-relative
    ``artifactLocation.uri`` (``uriBaseId`` ``%SRCROOT%``), a ``region`` with start line and
    column, and ``partialFingerprints.primaryLocationLineHash``: a hash of the rule, the URI
    and the stripped loop line, with the occurrence count of that key, so an alert survives
    code moving up or down the file.
    """
    codes = sorted(RULES)
    index = {code: i for i, code in enumerate(codes)}
    rules = [_sarif_rule(RULES[code]) for code in codes]
    results, seen = [], {}
    for f in findings:
        r = f.remark
        uri, relative = _uri(f.path, root)
        key = hashlib.sha256(f"{r.code}\0{uri}\0{f.source_line.strip()}".encode()).hexdigest()[:16]
        seen[key] = seen.get(key, 0) + 1
        location = {"uri": uri, "uriBaseId": "%SRCROOT%"} if relative else {"uri": uri}
        result = {
            "ruleId": r.code,
            "level": "warning" if f.counted else "note",
            "message": {"text": f"{r.code} {r.message}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": location,
                "region": {"startLine": r.lineno, "startColumn": r.col},
            }}],
            "partialFingerprints": {"primaryLocationLineHash": f"{key}:{seen[key]}"},
        }
        if r.code in index:
            result["ruleIndex"] = index[r.code]
        results.append(result)
    invocation = {"executionSuccessful": not errors}
    if errors:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": line}} for _, line in errors]
    root_uri = "file://" + quote(os.path.abspath(root).replace(os.sep, "/").rstrip("/") + "/")
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "pforge", "version": _version(), "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
            "invocations": [invocation],
            "results": results,
        }],
    }


def _sarif_rule(rule) -> dict:
    level = "warning" if rule.code.startswith("PF1") else "note"
    text = (f"{rule.summary}\n\n{rule.explanation}\n\nFlagged:\n{rule.example_bad}\n\n"
            f"Accepted:\n{rule.example_good}")
    markdown = (f"{rule.summary}\n\n{rule.explanation}\n\n**Flagged:**\n\n```python\n"
                f"{rule.example_bad}\n```\n\n**Accepted:**\n\n```python\n{rule.example_good}\n```")
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.explanation},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": ["performance", "vectorization"]},
    }


def write_report(text: str, output_file: str | None) -> None:
    """Prints the report, or writes it to ``output_file`` atomically (UTF-8)."""
    if output_file is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from pforge.cli.fix import write_atomic
    write_atomic(output_file, text, "utf-8")
