"""Runs the analysis over many files for ``pforge check``.

One function, :func:`check_files`, turns a list of paths into one :class:`FileOutcome` per
path, in the order given. Presentation (output formats, selection of codes, suppressions)
is the caller's; this module only analyses, so it can later run files in parallel and cache
outcomes without the command changing.
"""

from __future__ import annotations

from dataclasses import dataclass

from pforge.transpile import Remark, SourceError, transpile_source
from pforge.transpile.frontend import read_source


@dataclass(frozen=True)
class FileOutcome:
    """What the analysis found in one file.

    Attributes:
        path: as given.
        remarks: every remark of every loop unit, in source order (PF1xx, PF2xx and PF3xx).
        error: one line ``FILE:LINE:COL: message`` when the file could not be read or
            parsed (then ``remarks`` is empty), else None.
    """

    path: str
    remarks: tuple[Remark, ...] = ()
    error: str | None = None


def check_file(path: str) -> FileOutcome:
    """Analyses one file (the rewrite is planned, not written); bad input becomes ``error``."""
    try:
        source = read_source(path)
        result = transpile_source(source.text, path)
    except SourceError as exc:
        return FileOutcome(path, (), str(exc))
    return FileOutcome(path, result.remarks)


def check_files(paths: list[str]) -> list[FileOutcome]:
    """Analyses each file; one outcome per path, in the order given. Never raises for bad input."""
    return [check_file(path) for path in paths]
