"""Errors raised by the transpile pipeline."""

from __future__ import annotations


class PforgeError(Exception):
    """Base class of every error pforge raises on purpose."""


class SourceError(PforgeError, SyntaxError):
    """The input is not Python pforge can read: undecodable bytes, a NUL byte, a syntax error.

    A ``SyntaxError`` subclass, so it carries ``filename``, ``lineno``, ``offset`` and ``text``
    and prints with a caret (as Tangent's ``fence`` and AutoGraph's unsupported-features
    checker do). ``str()`` gives one line: ``FILE:LINE:COL: message``.
    """

    def __init__(self, message: str, filename: str, lineno: int | None = None,
                 offset: int | None = None, text: str | None = None):
        super().__init__(message, (filename, lineno, offset, text))
        self.message = message

    def __str__(self) -> str:
        where = self.filename or "<string>"
        if self.lineno:
            where += f":{self.lineno}"
            if self.offset:
                where += f":{self.offset}"
        return f"{where}: {self.message}"


class InternalError(PforgeError):
    """An inconsistency inside pforge. This is a bug; please report it with the input file."""
