"""The surrounding file's style, applied to the code pforge generates: quotes and line length.

A rewrite is read in review beside code the user wrote, so it should look like that code.
:func:`file_style` reads two things from the file being transpiled:

- **quotes**: the quote most of its one-line string literals use (``'`` or ``"``), counted
  only over literals that contain neither quote character, so either spelling was possible;
  docstrings and other triple-quoted strings do not count. With no such literal, or a tie,
  the quote is None and generated strings keep ``ast.unparse``'s ``'``.
- **line length**: the smallest of the usual limits (79, 88, 99, 100, 119, 120: PEP 8,
  black, and common ``line-length`` settings of black and ruff) that every line of the file
  that is not a comment fits in, or None when some line is longer than 120 (no limit to keep).

:meth:`Style.lines` applies them to generated lines. A string literal is requoted only where
its body holds no quote and no backslash, so its value is the same. A statement with a line
over the limit is wrapped by black (https://github.com/psf/black), the formatter most of
these files were written for, at the limit less the indentation the statement will have; a
statement black cannot format, or whose wrapped form parses to another tree, is kept as it
was. Lines that fit are never reformatted, so code that fits stays as ``ast.unparse`` wrote it.
A generated expression put inside the user's own statement (``tf.stack(outs)`` replaced) is
wrapped only inside its own parentheses (:meth:`Style.expression`); the rest of that statement,
like the loop kept under ``else:``, is the user's text and stays as written.
"""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize
from collections import Counter
from dataclasses import dataclass

from pforge.transpile.frontend import MARKER_CONTINUATION, source_lines

#: line-length limits in common use, smallest first: PEP 8, black's default, and the usual
#: ``line-length`` settings of black and ruff
LIMITS = (79, 88, 99, 100, 119, 120)


@dataclass(frozen=True)
class Style:
    """What generated code should look like in one file.

    Attributes:
        quote: ``'`` or ``"`` for string literals, or None to keep ``ast.unparse``'s.
        line_length: the longest line allowed (characters, indentation included), or None.
    """

    quote: str | None = None
    line_length: int | None = None

    def lines(self, lines: list[str], indent: int = 0) -> list[str]:
        """``lines`` of generated code (whole statements, indented by 4 spaces a level, as
        ``ast.unparse`` writes them) in this style, for a place ``indent`` columns deep.

        Comment lines between statements are kept as they are. Never raises: what cannot be
        restyled is returned unchanged.
        """
        if not lines:
            return lines
        text = "\n".join(lines)
        if self.quote == '"':
            text = requoted(text, '"')
        out = text.split("\n")
        if self.line_length is None or all(indent + len(line) <= self.line_length for line in out):
            return out
        return _wrapped(out, self.line_length - indent, self.quote == '"')

    def comment(self, text: str, indent: int = 0) -> list[str]:
        """The lines of a marker comment ``text`` (``# pforge: ...``, one line) for a place
        ``indent`` columns deep: where it is over the line length, wrapped at spaces, each
        later line starting ``#   `` (:data:`~pforge.transpile.frontend.MARKER_CONTINUATION`;
        :func:`~pforge.transpile.frontend.marker_above` joins them again). A word longer than
        the room left stays whole, over the limit."""
        if self.line_length is None or indent + len(text) <= self.line_length:
            return [text]
        width = max(self.line_length - indent, 2 * len(MARKER_CONTINUATION) + 1)
        return textwrap.wrap(text, width, subsequent_indent=MARKER_CONTINUATION, break_long_words=False,
                             break_on_hyphens=False) or [text]

    def header(self, keyword: str, test: str, indent: int = 0) -> list[str]:
        """The lines of ``{keyword} {test}:`` (an ``if`` or ``while`` header) in this style, for
        a place ``indent`` columns deep; the body's lines are the caller's."""
        lines = self.lines([f"{keyword} {test}:", "    pass"], indent)
        return lines[:-1] if lines and lines[-1].strip() == "pass" else [f"{keyword} {test}:"]


    def expression(self, text: str, column: int, indent: int, rest: int) -> list[str]:
        """The lines of ``text``, a parenthesized generated expression put in place of another
        inside the user's statement: at ``column`` of a line of a statement ``indent`` columns
        deep, with ``rest`` characters after it on that line. Where that line would be over
        the limit, the expression is wrapped inside its own parentheses, as black wraps the
        right side of an assignment: ``(`` ends the first line, its parts follow one level
        deeper than the statement (lines relative to that indentation), ``)`` starts the last.
        Otherwise, or where black would drop the parentheses, it is ``[text]``."""
        if self.line_length is None or column + len(text) + rest <= self.line_length \
                or not (text.startswith("(") and text.endswith(")")):
            return [text]
        lines = self.lines([f"_ = {text}"], indent)
        if len(lines) < 3 or lines[0] != "_ = (" or lines[-1] != ")":
            return [text]
        return ["(", *lines[1:]]


def file_style(text: str) -> Style:
    """The style of the Python source ``text`` (see the module docstring).

    Never raises: source that cannot be tokenized gives the default ``Style()``.
    """
    quotes: Counter[str] = Counter()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type != tokenize.STRING:
                continue
            body = tok.string.lstrip("rRbBuUfF")
            if body[:3] in ('"""', "'''") or "\\" in body:
                continue
            if not any(q in body[1:-1] for q in "'\""):
                quotes[body[0]] += 1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return Style()
    quote = None
    if quotes["'"] != quotes['"']:
        quote = max(quotes, key=lambda q: quotes[q])
    longest = max((len(line.rstrip("\r\n")) for line in source_lines(text)
                   if line.strip() and not line.lstrip().startswith("#")), default=0)
    limit = next((n for n in LIMITS if longest <= n), None)
    return Style(quote, limit)


def requoted(code: str, quote: str) -> str:
    """``code`` with each one-line string literal quoted by ``quote`` where that keeps its
    value: its body holds neither quote character nor a backslash (f-strings, triple-quoted
    strings and anything else are left as they are). Code that does not tokenize is returned
    as it is."""
    other = "'" if quote == '"' else '"'
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return code
    lines = code.split("\n")
    for tok in reversed(tokens):  # (right to left: an edit keeps the columns before it)
        if tok.type != tokenize.STRING or tok.start[0] != tok.end[0]:
            continue
        prefix = tok.string[:len(tok.string) - len(tok.string.lstrip("rRbBuU"))]
        body = tok.string[len(prefix):]
        if len(body) < 2 or body[0] != other or body[:3] == other * 3 or "\\" in body \
                or quote in body[1:-1] or other in body[1:-1]:
            continue
        row, (start, end) = tok.start[0] - 1, (tok.start[1], tok.end[1])
        lines[row] = lines[row][:start] + prefix + quote + body[1:-1] + quote + lines[row][end:]
    return "\n".join(lines)


def _wrapped(lines: list[str], width: int, double: bool) -> list[str]:
    """``lines`` with each top-level statement that has a line over ``width`` formatted by
    black at that line length; see :meth:`Style.lines`."""
    text = "\n".join(lines)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return lines
    out: list[str] = []
    done = 0  # lines of `lines` already in `out`
    for stmt in tree.body:
        first, last = _first_line(stmt), stmt.end_lineno
        out += lines[done:first - 1]  # (comments and blank lines between statements)
        own = lines[first - 1:last]
        done = last
        if all(len(line) <= width for line in own):
            out += own
            continue
        out += _black(own, width, double)
    return out + lines[done:]


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", [])
    return min([stmt.lineno, *(d.lineno for d in decorators)])


def _black(own: list[str], width: int, double: bool) -> list[str]:
    """One statement's lines formatted by black at ``width``, or as given where black fails
    or changes what the code means (its tree)."""
    import black  # noqa: PLC0415 - only where a line is too long: most files never need it

    source = "\n".join(own) + "\n"
    try:
        formatted = black.format_str(source, mode=black.Mode(line_length=max(width, 20),
                                                             string_normalization=double))
        same = ast.dump(ast.parse(formatted)) == ast.dump(ast.parse(source))
    except Exception:  # noqa: BLE001 - black's errors are many and all mean "keep the line"
        return own
    if not same:
        return own
    out = formatted.rstrip("\n").split("\n")
    if all(line.strip() for line in own):
        # black puts blank lines around a nested def; inside one loop's span they only spread
        # the code out (dropped only where the tree stays the same: a string may hold one)
        tight = [line for line in out if line.strip()]
        if ast.dump(ast.parse("\n".join(tight))) == ast.dump(ast.parse(source)):
            out = tight
    return out
