"""Splices generated code into the original text: only the edited spans change, byte for byte.

As pyupgrade does, edits are made on the text at AST offsets rather than by unparsing the
whole module, so comments, blank lines and formatting elsewhere stay exactly as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import gast

from pforge.transpile.errors import InternalError
from pforge.transpile.frontend import MARKER_PREFIX, SourceText, source_lines
from pforge.transpile.style import Style, file_style, requoted


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (character offsets) by ``new``."""

    start: int
    end: int
    new: str


class Splicer:
    """Maps AST positions to text offsets and applies non-overlapping edits.

    Generated code is written in the file's style (:mod:`pforge.transpile.style`: its quotes,
    and its line length, long statements wrapped); the file's own lines are kept as written.

    Args:
        source: the decoded source; AST columns are UTF-8 byte offsets and are converted.
        style: the style of generated code; by default the file's own (``file_style``).
        line_length: the longest generated line, over the style's own (a formatter's
            configured one); None: the style's.
    """

    def __init__(self, source: SourceText, style: Style | None = None, line_length: int | None = None):
        self.source = source
        self.lines = source_lines(source.text, keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))
        self.edits: list[Edit] = []
        self.indent_unit = _indent_unit(self.lines)
        self.style = file_style(source.text) if style is None else style
        if line_length is not None:
            self.style = replace(self.style, line_length=line_length)
        #: levels of indentation the text of the next edits will get later (a piece of a
        #: distributed loop goes under that loop's run-time check), for the line length
        self.nested = 0

    def offset(self, lineno: int, col_bytes: int) -> int:
        line = self.lines[lineno - 1]
        col = len(line.encode("utf-8")[:col_bytes].decode("utf-8", errors="ignore"))
        return self.starts[lineno - 1] + col

    def line_start(self, lineno: int) -> int:
        return self.starts[lineno - 1]

    def line_end(self, lineno: int) -> int:
        """Offset of the end of line ``lineno``, before its line break."""
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.rstrip("\r\n"))

    def indentation(self, lineno: int) -> str:
        line = self.lines[lineno - 1]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def replace_statement(self, stmt: gast.stmt, code_lines: list[str]) -> None:
        """Replaces whole lines ``stmt.lineno..end_lineno`` by ``code_lines`` at its indentation."""
        indent = self.indentation(stmt.lineno)
        code_lines = [part for line in code_lines for part in (
            self.style.comment(line, self._width(indent)) if line.startswith(MARKER_PREFIX) else [line])]
        code_lines = self.style.lines(code_lines, self._width(indent))
        text = self.source.newline.join(indent + self._reindent(line) if line else ""
                                        for line in code_lines)
        self.edits.append(Edit(self.line_start(stmt.lineno), self.line_end(stmt.end_lineno), text))

    def replace_statement_guarded(self, stmt: gast.stmt, comment: str, test: str,
                                  code_lines: list[str], kept_lines: list[str] | None = None,
                                  prelude: list[str] = (), kept_as_written: bool = False) -> None:
        """Replaces ``stmt`` by ``if test: code_lines else: stmt``, the statement's own text
        (comments and all) indented one level under ``else:``, or ``kept_lines`` when given
        (a loop pforge put in another form first); ``prelude`` lines come before it all, so the
        marker comment stays right above the test."""
        indent = self.indentation(stmt.lineno)
        unit = self.indent_unit
        nl = self.source.newline
        deeper = self._width(indent + unit)
        body = [indent + unit + self._reindent(line) if line else ""
                for line in self.style.lines(code_lines, deeper)] or [indent + unit + "pass"]
        if kept_lines is not None:  # (lines of the file itself keep its indentation: `kept_as_written`)
            if not kept_as_written:  # (generated: a loop pforge put in another form first)
                kept_lines = self.style.lines(kept_lines, deeper)
            kept = [indent + unit + (line if kept_as_written else self._reindent(line)) if line else ""
                    for line in kept_lines]
        else:
            kept = self._deeper(stmt.lineno, stmt.end_lineno)
        text = nl.join([*(indent + self._reindent(line) for line in self.style.lines(list(prelude), self._width(indent))),
                        *self._marker(indent, comment), *self._header(indent, test), *body, f"{indent}else:", *kept])
        self.edits.append(Edit(self.line_start(stmt.lineno), self.line_end(stmt.end_lineno), text))

    def piece_lines(self, loop: gast.For, stmts: list[gast.stmt], edits: list[Edit] = (),
                    header: str | None = None) -> list[str]:
        """The text of ``loop`` with only ``stmts`` of its body (a piece of a distributed loop):
        its header's lines and each statement's own lines (with the comments right above it,
        and ``edits`` inside it applied: an inner loop rewritten), less the loop's indentation.
        A statement split off an ``if`` (``pforge_if``) has that ``if``'s header, its test negated
        for the ``else`` branch."""
        indent = self.indentation(loop.lineno)
        nl = self.source.newline
        last = self._header_end(loop.iter, loop.body)
        lines = [indent + header] if header is not None else \
            [line.rstrip("\r\n") for line in self.lines[loop.lineno - 1:last]]
        for stmt in stmts:
            inner = getattr(stmt, "pforge_body", stmt)
            if hasattr(stmt, "pforge_if"):
                split, negated = stmt.pforge_if
                lines += [self.indentation(split.lineno) + f"if not ({gast.unparse(split.test).strip()}):"] if negated \
                    else [line.rstrip("\r\n") for line in self.lines[split.lineno - 1:self._header_end(split.test, split.body)]]
            first = inner.lineno
            while first > last + 1 and self.lines[first - 2].lstrip().startswith("#"):
                first -= 1  # (the comments right above a statement go with it)
            start, end = self.line_start(first), self.line_end(inner.end_lineno)
            text = self.source.text[start:end]
            for edit in sorted((e for e in edits if start <= e.start and e.end <= end), key=lambda e: -e.start):
                text = text[:edit.start - start] + edit.new + text[edit.end - start:]
            lines += text.split(nl)
        return [line.removeprefix(indent) for line in lines]

    def _header_end(self, expr: gast.expr, body: list[gast.stmt]) -> int:
        """The line of the colon ending the header whose last expression is ``expr`` (a loop's
        iterable, an ``if``'s test): comments and blank lines above ``body`` are not its."""
        last = expr.end_lineno
        while last < body[0].lineno - 1 and not self.lines[last - 1].split("#")[0].rstrip().endswith(":"):
            last += 1
        return last

    def _deeper(self, first: int, last: int) -> list[str]:
        """Lines ``first..last`` of the file one level deeper (under an ``else:``)."""
        return [self.indent_unit + line.rstrip("\r\n") if line.strip() else "" for line in self.lines[first - 1:last]]

    def replace_distributed(self, loop: gast.For, comment: str, test: str, texts: list[str | None],
                            groups: list[list[gast.stmt]], headers: list[str] | None = None) -> None:
        """Replaces ``loop`` by its pieces in order under ``comment``: ``texts[k]`` (the rewrite
        of piece ``k``, at the loop's indentation) or, where it is None, the piece's own loop
        (with the edits already made inside its statements: an inner loop rewritten); all under
        ``if test:`` with the loop as written under ``else:`` when ``test`` is given."""
        indent = self.indentation(loop.lineno)
        nl = self.source.newline
        start, end = self.line_start(loop.lineno), self.line_end(loop.end_lineno)
        inside = [e for e in self.edits if start <= e.start and e.end <= end]
        self.edits = [e for e in self.edits if e not in inside]
        lines = []
        for k, (text, stmts) in enumerate(zip(texts, groups)):
            lines += text.split(nl) if text is not None else [
                indent + line if line else "" for line in self.piece_lines(
                    loop, stmts, inside, headers[k] if headers is not None else None)]
        if test:
            lines = [*self._header(indent, test), *(self.indent_unit + line if line else "" for line in lines),
                     f"{indent}else:", *self._deeper(loop.lineno, loop.end_lineno)]
        self.edits.append(Edit(start, end, nl.join([*self._marker(indent, comment), *lines])))

    def delete_statement(self, stmt: gast.stmt) -> bool:
        """Deletes a statement standing alone on its lines; returns False (no edit) otherwise."""
        first = self.lines[stmt.lineno - 1]
        before = first[: self.offset(stmt.lineno, stmt.col_offset) - self.line_start(stmt.lineno)]
        after = self.source.text[self.offset(stmt.end_lineno, stmt.end_col_offset):
                                 self.line_end(stmt.end_lineno)]
        if before.strip() or (after.strip() and not after.strip().startswith("#")):
            return False
        self.edits.append(Edit(self.line_start(stmt.lineno), self.starts[stmt.end_lineno], ""))
        return True

    def replace_expression(self, node: gast.expr, text: str) -> None:
        """Replaces the expression ``node`` by generated ``text``, in the file's style: its
        strings in the file's quotes, and wrapped inside its parentheses where its line would be
        over the file's line length (:meth:`Style.expression`)."""
        if self.style.quote:
            text = requoted(text, self.style.quote)
        start, end = self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)
        if node.lineno == node.end_lineno:
            before = self.source.text[self.line_start(node.lineno):start]
            indent = self.indentation(node.lineno)
            # (an expression outside any loop: `nested`, which is for a loop's pieces, does not apply)
            lines = self.style.expression(text, _width(before), _width(indent), self.line_end(node.lineno) - end)
            text = self.source.newline.join([lines[0], *(indent + self._reindent(line) for line in lines[1:])])
        self.edits.append(Edit(start, end, text))

    def insert_line_before(self, lineno: int, text: str) -> None:
        start = self.line_start(lineno)
        self.edits.append(Edit(start, start, self.indentation(lineno) + text + self.source.newline))

    def insert_marker_before(self, lineno: int, comment: str) -> None:
        """Inserts the marker ``comment`` above line ``lineno``, wrapped at the line length."""
        indent = self.indentation(lineno)
        nl = self.source.newline
        self.edits.append(Edit(self.line_start(lineno), self.line_start(lineno),
                               nl.join(self._marker(indent, comment)) + nl))

    def apply(self) -> str:
        text = self.source.text
        edits = sorted(set(self.edits), key=lambda e: (e.start, e.end))
        for before, after in zip(edits, edits[1:]):
            if after.start < before.end:
                raise InternalError(f"overlapping edits at offsets {before.start}-{before.end} and "
                                    f"{after.start}-{after.end}. This is a bug.")
        for edit in reversed(edits):
            text = text[: edit.start] + edit.new + text[edit.end:]
        return text

    def _marker(self, indent: str, comment: str) -> list[str]:
        """The lines of the marker ``comment`` at ``indent`` (:meth:`Style.comment`)."""
        return [indent + line for line in self.style.comment(comment, self._width(indent))]

    def _header(self, indent: str, test: str) -> list[str]:
        """The lines of ``if test:`` at ``indent``, in the file's style (wrapped when long)."""
        return [indent + self._reindent(line) for line in self.style.header("if", test, self._width(indent))]

    def _width(self, indent: str) -> int:
        """The columns generated code at ``indent`` will start at in the file."""
        return _width(indent) + self.nested * _width(self.indent_unit)

    def _reindent(self, line: str) -> str:
        if self.indent_unit == "    ":
            return line
        stripped = line.lstrip(" ")
        levels = (len(line) - len(stripped)) // 4
        return self.indent_unit * levels + stripped


def _width(indent: str) -> int:
    """The columns ``indent`` takes (a tab as 4, as most editors show it)."""
    return len(indent.expandtabs(4))


def _indent_unit(lines: list[str]) -> str:
    for line in lines:
        if line.startswith("\t"):
            return "\t"
    widths = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip() and line[0] == " "]
    smallest = min(widths, default=4)
    return " " * (smallest if smallest in (2, 3, 4, 8) else 4)


def unparse_lines(stmts: list[gast.stmt]) -> list[str]:
    """The source lines of generated statements (``ast.unparse``; never astunparse)."""
    module = gast.Module(body=stmts, type_ignores=[])
    # ast.unparse puts a blank line before each nested def; inside one loop's span they only
    # spread the code out. Only those are dropped (a blank line inside a string must stay).
    lines = gast.unparse(module).strip("\n").splitlines()
    return [line for k, line in enumerate(lines)
            if line.strip() or k + 1 >= len(lines)
            or not lines[k + 1].lstrip().startswith(("def ", "@", "async def ", "class "))]
