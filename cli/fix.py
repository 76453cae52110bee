"""Writes rewritten files safely and prints diffs, for ``transpile`` and ``check --fix``.

A file is written only when its content changes, through a temporary file in the same
folder and an atomic rename, with the original permissions; the text keeps its line endings
and encoding because the splice changes only loop spans. Diffs are unified diffs that
``git apply`` accepts, including the ``\\ No newline at end of file`` marker.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Container
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pforge.transpile import TranspileResult



def write_atomic(path: str, text: str, encoding: str) -> None:
    """Replaces ``path`` with ``text`` via a temporary file in its folder and ``os.replace``.

    Keeps the file's permission bits; writes ``text`` with its own line endings (no newline
    translation). A symbolic link is written through (its target changes, the link stays); a
    file the user may not write (read-only) is refused, though its folder would allow the
    rename; a file with several hard links is rewritten in place so every link sees the change.
    On any error the original file is untouched and the temporary file removed.

    Raises:
        OSError: the file or its folder is not writable, the disk is full, ...
        UnicodeEncodeError: ``text`` cannot be encoded in ``encoding``.
    """
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    mode = None
    try:
        info = os.stat(path)
        mode = info.st_mode & 0o7777
        if not os.access(path, os.W_OK):
            raise PermissionError(13, "Permission denied", path)
        if info.st_nlink > 1:
            data = text.encode(encoding)  # encode first: an error leaves the file untouched
            with open(path, "r+b") as fh:
                fh.write(data)
                fh.truncate()
            return
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


def diff_path(path: str) -> str:
    """The path as a diff header names it: relative to the working folder when inside it."""
    rel = os.path.relpath(os.path.abspath(path))
    return path if rel.startswith(os.pardir) else rel.replace(os.sep, "/")


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff from ``old`` to ``new`` with ``a/``/``b/`` headers (``git apply -p1``).

    Empty when the texts are equal. Lines keep their endings (``\\r\\n`` stays); a last line
    without a newline is followed by git's ``\\ No newline at end of file`` marker.
    """
    name = diff_path(path)
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=f"a/{name}", tofile=f"b/{name}")
    out = []
    for line in lines:
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


@dataclass(frozen=True)
class FixOutcome:
    """The rewrite of one file by ``check --fix``.

    Attributes:
        path: as given.
        result: the transpiler's result (``result.code`` is the new text).
        encoding: the file's encoding, to write it back in.
        unsafe_left: loops a backend could rewrite, left as they were because the rewrite
            is unsafe and ``--unsafe-fixes`` was not given.
        held: ``(line, why)`` of each such loop, in source order.
    """

    path: str
    result: "TranspileResult"
    encoding: str
    unsafe_left: int
    held: tuple[tuple[int, str], ...] = ()

    @property
    def changed(self) -> bool:
        return self.result.changed


def fix_file(path: str, loops: Container[int], *, unsafe: bool, backend: str | None,
             target: str | None = None, shapes: dict | None = None,
             line_length: int | None = None) -> FixOutcome:
    """Rewrites the loops of ``path`` that start on ``loops`` lines, in memory (nothing written).

    Args:
        loops: first lines of the loops to rewrite (the findings left after selection and
            suppression).
        unsafe: also apply rewrites that may change results (``LoopPlan.unsafe``).
        backend, target: passed to ``transpile_source``; None for its defaults.
        shapes: ranks for the rewrite (``[tool.pforge] shapes`` or ``--shapes``).
        line_length: the longest generated line (``--line-length``, or the configuration's);
            None: the file's own.
    Raises:
        SourceError: the file cannot be read or parsed.
    """
    from pforge.transpile import transpile_source  # noqa: PLC0415 - loads the analysis
    from pforge.transpile.frontend import read_source  # noqa: PLC0415

    source = read_source(path)
    options = {key: value for key, value in (("backend", backend), ("target", target)) if value is not None}
    result = transpile_source(source.text, path, unsafe=unsafe, loops=loops, shapes=shapes or None,
                              line_length=line_length, **options)
    held = tuple((p.lineno, p.unsafe or "") for p in result.plans if p.held_back and p.lineno in loops)
    return FixOutcome(path, result, source.encoding, 0 if unsafe else len(held), () if unsafe else held)
