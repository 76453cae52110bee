"""Reads and parses source files, and resolves which names mean TensorFlow and NumPy."""

from __future__ import annotations

import ast
import builtins
import io
import os
import stat
import tokenize
from dataclasses import dataclass, field

import gast
from gast.ast3 import Ast3ToGAst

from pforge.transpile.errors import SourceError

#: Larger files are refused: no hand-written module is this big (TensorFlow's largest, a
#: generated op wrapper, is 0.7 MB), and parsing one would stall a pre-commit hook.
MAX_SOURCE_BYTES = 4 * 1024 * 1024


def source_lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of source ``text`` as Python numbers them (``ast`` line numbers index this
    list from 1): split at ``\\n``, ``\\r\\n`` and ``\\r`` only, where ``str.splitlines`` also
    splits at a form feed, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028`` and ``\\u2029``."""
    lines = io.StringIO(text, newline="").readlines()
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


#: how a marker comment pforge writes above a rewrite begins, and how each line it wraps onto
#: begins (:meth:`pforge.transpile.style.Style.comment`)
MARKER_PREFIX = "# pforge:"
MARKER_CONTINUATION = "#   "


def marker_above(lines: list[str], lineno: int) -> str:
    """The marker comment right above line ``lineno`` (1-based, as ``ast`` numbers lines), its
    wrapped lines joined into one (``# pforge: vectorized loop (...) with batched ops``), or
    ``""`` where the line above is not the end of one. ``lines`` are :func:`source_lines`."""
    parts = []
    for k in range(lineno - 2, -1, -1):
        line = lines[k].strip()
        if line.startswith(MARKER_PREFIX):
            return " ".join([line, *reversed(parts)])
        if not lines[k].lstrip().startswith(MARKER_CONTINUATION) or not line[1:].strip():
            return ""
        parts.append(line[1:].strip())
    return ""


@dataclass(frozen=True)
class SourceText:
    """A decoded source file.

    Attributes:
        filename: the path as given by the user (used in every message).
        text: the decoded text, line endings untouched.
        newline: the file's line ending, ``"\\n"`` or ``"\\r\\n"``.
        encoding: the encoding found by PEP 263 rules (``tokenize.detect_encoding``).
    """

    filename: str
    text: str
    newline: str = "\n"
    encoding: str = "utf-8"


def decode_source(data: bytes | str, filename: str = "<string>") -> SourceText:
    """Decodes source bytes the way Python does (PEP 263 cookie, BOM, UTF-8 default).

    Raises:
        SourceError: undecodable bytes or a NUL byte, naming the line.
    """
    if isinstance(data, str):
        text, encoding = data, "utf-8"
    else:
        if len(data) > MAX_SOURCE_BYTES:
            raise SourceError(f"file is too large to analyse ({len(data):,} bytes; the limit is "
                              f"{MAX_SOURCE_BYTES // 2**20} MiB)", filename)
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
        except (SyntaxError, LookupError) as exc:
            raise SourceError(f"cannot decode: {exc}", filename, 1) from None
        except UnicodeDecodeError as exc:
            lineno = data[: exc.start].count(b"\n") + 1
            raise SourceError(f"cannot decode as {encoding}: invalid byte "
                              f"0x{data[exc.start]:02x}", filename, lineno) from None
        if text.startswith("\ufeff"):
            text = text[1:]
    if "\0" in text:
        lineno = text[: text.index("\0")].count("\n") + 1
        raise SourceError("source contains a NUL byte", filename, lineno)
    newline = "\r\n" if "\r\n" in text else "\n"
    return SourceText(filename, text, newline, encoding)


def read_source(path: str) -> SourceText:
    """Reads and decodes a file.

    Raises:
        SourceError: missing, unreadable or not a regular file (a directory, a broken symbolic
            link, a FIFO), larger than ``MAX_SOURCE_BYTES``, undecodable bytes.
    """
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError
        if not stat.S_ISREG(info.st_mode):
            # Opening a FIFO or a device would block or read forever.
            raise SourceError("not a regular file", path)
        if info.st_size > MAX_SOURCE_BYTES:
            raise SourceError(f"file is too large to analyse ({info.st_size:,} bytes; the limit "
                              f"is {MAX_SOURCE_BYTES // 2**20} MiB)", path)
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        if os.path.islink(path):
            raise SourceError(f"broken symbolic link (to {os.readlink(path)})", path) from None
        raise SourceError("no such file", path) from None
    except IsADirectoryError:
        raise SourceError("is a directory, not a Python file", path) from None
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}", path) from None
    return decode_source(data, path)


def parse_ast(source: SourceText) -> ast.Module:
    """Parses source text into a standard-library ``ast`` tree (the cheap first step).

    Raises:
        SourceError: a syntax error (with line and column) or input too deeply nested.
    """
    try:
        return ast.parse(source.text, filename=source.filename)
    except SyntaxError as exc:
        raise SourceError(f"syntax error: {exc.msg}", source.filename, exc.lineno,
                          exc.offset, exc.text) from None
    except (RecursionError, MemoryError):
        raise SourceError("expression nested too deeply to analyse", source.filename) from None
    except ValueError as exc:  # e.g. "source code string cannot contain null bytes"
        raise SourceError(str(exc), source.filename) from None


class _GastConverter(Ast3ToGAst):
    """gast's converter, except that the name of ``except E as name`` gets a source position.

    gast turns that name (a plain string in ``ast``) into a ``Name`` without ``lineno``, so
    any remark about it would crash; it now carries the handler's line.
    """

    def visit_ExceptHandler(self, node):
        new_node = super().visit_ExceptHandler(node)
        name = new_node.name
        if isinstance(name, gast.Name) and not hasattr(name, "lineno"):
            gast.copy_location(name, node)
            end = node.type if node.type is not None else node
            name.end_lineno, name.end_col_offset = end.lineno, getattr(end, "end_col_offset", None)
            if end is node:
                name.end_col_offset = node.col_offset
        return new_node


def position(node: ast.AST) -> tuple[int, int] | None:
    """``(lineno, col_offset)`` where ``node`` starts (an ``ast`` or a gast node).

    Not every node has a position: ``match_case``, ``comprehension``, ``arguments`` and
    ``withitem`` have none, so theirs is that of their first child that has one (a case's
    pattern). None when no node under ``node`` has a position.
    """
    if getattr(node, "lineno", None) is not None:
        return node.lineno, node.col_offset
    for child in ast.iter_child_nodes(node):
        found = position(child)
        if found is not None:
            return found
    return None


def to_gast(node: ast.AST, filename: str = "<string>") -> gast.AST:
    """Converts an ``ast`` node (a whole module or one statement) into gast.

    Raises:
        SourceError: the tree is too deeply nested for the converter's recursion.
    """
    try:
        return _GastConverter().visit(node)
    except (RecursionError, MemoryError):
        raise SourceError("expression nested too deeply to analyse", filename) from None


def parse(source: SourceText) -> gast.Module:
    """Parses source text into a gast tree with exact source positions.

    Raises:
        SourceError: a syntax error (with line and column) or input too deeply nested.
    """
    return to_gast(parse_ast(source), source.filename)


def check_syntax(source: SourceText) -> None:
    """Raises SourceError when the text is not valid Python (without building a gast tree)."""
    parse_ast(source)


_BUILTIN_NAMES = frozenset(dir(builtins))


@dataclass
class ImportMap:
    """Which local names mean which modules or objects.

    ``import tensorflow as tf`` maps ``tf`` to ``tensorflow``; ``from tensorflow import math
    as tfm`` maps ``tfm`` to ``tensorflow.math``; unshadowed builtins map to ``builtins.X``.
    Names bound anywhere else in the module (assignments, defs, parameters) shadow builtins
    only where they are bound, which this map approximates by module-level bindings.
    """

    aliases: dict[str, str] = field(default_factory=dict)
    shadowed: set[str] = field(default_factory=set)
    #: the positions ``(line, column)`` of reads of a builtin's name that a binding of their
    #: own scope or an enclosing one shadows (:func:`shadowed_builtin_reads`); where not
    #: known, every name a ``def`` or ``class`` binds anywhere shadows (:attr:`shadowed`)
    shadowed_at: set[tuple[int, int]] | None = None
    #: the positions of reads of an imported name that a binding other than an import, in
    #: their own scope or an enclosing one, shadows (:func:`shadowed_import_reads`): ``zeros``
    #: of ``from numpy import zeros`` where the module also has a ``def zeros``, ``np`` where
    #: the function has a parameter ``np``. Such a read resolves to nothing.
    shadowed_imports_at: set[tuple[int, int]] = field(default_factory=set)

    @classmethod
    def from_module(cls, module: gast.Module) -> "ImportMap":
        imports = cls.from_nodes(gast.walk(module))
        imports.shadowed_at = shadowed_builtin_reads(module)
        imports.shadowed_imports_at = shadowed_import_reads(module, set(imports.aliases))
        return imports

    @classmethod
    def from_nodes(cls, nodes) -> "ImportMap":
        """The map built from ``nodes`` (gast or ``ast`` nodes) in ``ast.walk`` order.

        Only import, ``def`` and ``class`` statements count, so the statements alone, in the
        order ``ast.walk`` would visit them, give the same map as the whole tree.
        """
        imports = cls()
        for node in nodes:
            if isinstance(node, (gast.Import, ast.Import)):
                for alias in node.names:
                    if alias.asname:
                        imports.aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        imports.aliases[top] = top
            elif isinstance(node, (gast.ImportFrom, ast.ImportFrom)) and node.module and not node.level:
                for alias in node.names:
                    imports.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef, ast.FunctionDef, ast.ClassDef)):
                imports.shadowed.add(node.name)
        return imports

    def resolve(self, node: gast.AST) -> str | None:
        """The dotted name an expression denotes (``tf.nn.relu`` -> ``tensorflow.nn.relu``)."""
        if isinstance(node, gast.Name):
            if node.id in self.aliases:
                if (getattr(node, "lineno", None), getattr(node, "col_offset", None)) in self.shadowed_imports_at:
                    return None
                return self.aliases[node.id]
            if node.id in _BUILTIN_NAMES and (node.id not in self.shadowed if self.shadowed_at is None else (
                    getattr(node, "lineno", None), getattr(node, "col_offset", None)) not in self.shadowed_at):
                return f"builtins.{node.id}"
            return None
        if isinstance(node, gast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def alias_for(self, module: str) -> str | None:
        """The local name bound to exactly ``module`` (``tensorflow`` -> ``tf``), if any."""
        for name, target in sorted(self.aliases.items()):
            if target == module:
                return name
        return None


_SCOPES = ("FunctionDef", "AsyncFunctionDef", "Lambda")


def _scope_nodes(root):
    """The nodes of ``root``'s own scope: its descendants, a nested function, lambda or class
    included but not what lies inside it."""
    stack = list(ast.iter_child_nodes(root) if isinstance(root, ast.AST) else gast.iter_child_nodes(root))
    while stack:
        node = stack.pop()
        yield node
        if type(node).__name__ not in _SCOPES and type(node).__name__ != "ClassDef":
            stack.extend(ast.iter_child_nodes(node) if isinstance(node, ast.AST) else gast.iter_child_nodes(node))


#: the builtins' names ``from numpy import *`` binds to NumPy's functions (NumPy 2; pylab and
#: ``scipy`` re-export NumPy's), and ``from math import *`` to math's
_STAR_BUILTINS = {
    "numpy": frozenset(("abs", "all", "any", "bool", "divmod", "max", "min", "pow", "round", "sum")),
    "math": frozenset(("pow",)), "cmath": frozenset(),
}
_STAR_BUILTINS.update(dict.fromkeys(("pylab", "matplotlib.pylab", "scipy"), _STAR_BUILTINS["numpy"]))


def star_imported_builtins(module: str) -> frozenset[str]:
    """The builtins' names ``from module import *`` may bind to something else: those the
    module is known to export (NumPy's ``sum``, ``max``, ``all``), every builtin's name for a
    module not known here (its ``__all__`` is not read: the module is never imported)."""
    known = _STAR_BUILTINS.get(module)
    if known is None and module.startswith("numpy."):
        known = _STAR_BUILTINS["numpy"]
    return known if known is not None else _BUILTIN_NAMES


def _bound_in(root, imports: bool = True) -> set[str]:
    """The names ``root`` (a module, function or lambda; ``ast`` or gast) binds in its own
    scope: parameters, assignment and loop targets, ``def``/``class`` names, ``match``
    captures, imports (unless not ``imports``; a star import binds the builtins' names of
    :func:`star_imported_builtins`)."""
    names: set[str] = set()
    for node in _scope_nodes(root):
        kind = type(node).__name__
        if kind == "Name" and type(node.ctx).__name__ in ("Store", "Param", "Del"):
            names.add(node.id)
        elif kind == "arg":
            names.add(node.arg)
        elif kind in ("FunctionDef", "AsyncFunctionDef", "ClassDef"):
            names.add(node.name)
        elif kind == "alias" and imports and node.name != "*":
            names.add(node.asname or node.name.split(".")[0])
        elif kind == "ImportFrom" and imports and any(a.name == "*" for a in node.names):
            names |= star_imported_builtins(node.module or "")
        elif kind in ("MatchAs", "MatchStar") and node.name:
            names.add(node.name)
        elif kind == "MatchMapping" and node.rest:
            names.add(node.rest)
        elif kind == "ExceptHandler" and isinstance(node.name, str):
            names.add(node.name)
    if type(root).__name__ in _SCOPES:  # (parameters are children of `args`, in its own scope)
        args = root.args
        for group in (args.posonlyargs, args.args, args.kwonlyargs, [args.vararg, args.kwarg]):
            for a in group:
                if a is not None:
                    names.add(a.arg if hasattr(a, "arg") else a.id)
    return names


def shadowed_builtin_reads(module) -> set[tuple[int, int]]:
    """The positions of the reads of a builtin's name (``max``, ``abs``, ``pow``) that do not
    mean the builtin: the name is bound in the read's own function, an enclosing one or the
    module (a parameter ``abs``, a local ``max = lambda a, b: a``, ``sum = 0`` at module
    level). Conservative: a binding anywhere in a scope counts for every read in it, before
    it or after (Python's own rule, up to reads before the first binding, which raise).
    ``module``: an ``ast`` or gast module."""
    found: set[tuple[int, int]] = set()

    def visit(root, outer: set[str]) -> None:
        bound = outer | _bound_in(root)
        # (a class body's names are not seen in its methods)
        enclosing = outer if type(root).__name__ == "ClassDef" else bound
        for node in _scope_nodes(root):
            if type(node).__name__ in _SCOPES or type(node).__name__ == "ClassDef":
                visit(node, enclosing)
            elif type(node).__name__ == "Name" and type(node.ctx).__name__ == "Load" \
                    and node.id in _BUILTIN_NAMES and node.id in bound:
                found.add((node.lineno, node.col_offset))

    visit(module, set())
    return found


def builtins_bound_at(module, target) -> set[str]:
    """The builtins' names (``type``, ``len``, ``list``) that do not mean the builtin where
    ``target`` (a node of ``module``) runs: bound in its own function, an enclosing one or the
    module, as :func:`shadowed_builtin_reads` decides (a parameter ``type="mean"``). Empty
    where ``target`` is not in ``module``."""

    def visit(root, outer: set[str]) -> set[str] | None:
        bound = outer | _bound_in(root)
        enclosing = outer if type(root).__name__ == "ClassDef" else bound
        for node in _scope_nodes(root):
            if node is target:
                return bound & _BUILTIN_NAMES
            if type(node).__name__ in _SCOPES or type(node).__name__ == "ClassDef":
                found = visit(node, enclosing)
                if found is not None:
                    return found
        return None

    return visit(module, set()) or set()


def shadowed_import_reads(module, names: set[str]) -> set[tuple[int, int]]:
    """The positions of the reads of ``names`` (the names imports bind) that a binding other
    than an import may rebind: in the read's own function, an enclosing one or the module
    (``def zeros(shape): ...`` or ``zeros = ...`` beside ``from numpy import zeros``, a
    parameter ``np``). Conservative as :func:`shadowed_builtin_reads`: a binding anywhere in
    a scope counts for every read in it. ``module``: an ``ast`` or gast module."""
    found: set[tuple[int, int]] = set()

    def visit(root, outer: set[str]) -> None:
        bound = outer | (_bound_in(root, imports=False) & names)
        enclosing = outer if type(root).__name__ == "ClassDef" else bound
        for node in _scope_nodes(root):
            if type(node).__name__ in _SCOPES or type(node).__name__ == "ClassDef":
                visit(node, enclosing)
            elif type(node).__name__ == "Name" and type(node.ctx).__name__ == "Load" and node.id in bound:
                found.add((node.lineno, node.col_offset))

    if names:
        visit(module, set())
    return found
