"""Builds the gast tree of only the parts of a module that hold a loop (an outline).

Most of a large module is code without loops, and converting all of it to gast and running
beniget over it costs several times what parsing it with ``ast`` does. The outline keeps, as
gast, every top-level statement that is not a ``def`` or ``class``, every function (at the top
level or in a class body) that holds a ``for`` or ``while`` loop, and every class that holds
such a function; other functions and classes become stubs that bind the same name
(``def f(): pass``), so name resolution and def-use chains inside the kept functions are
those of the whole module.

Three things are taken from the whole ``ast`` tree instead of the outline, so they stay exact:
the import map, the function definitions by name (converted to gast only when an analysis
looks one up), and whether an outline may be used at all. It may not when the module has a
loop outside every function: the uses of its names can lie anywhere in the module. An
analysis that asks beniget about a definition outside the kept functions, or about a name
that some function declares ``global``, gets :class:`WholeModuleNeeded`, and the caller
starts again on the whole tree.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import gast

from pforge.transpile.analysis import ModuleContext, WholeModuleNeeded
from pforge.transpile.consumers import ARRAY_READERS, BUILTIN_READERS, CONSUMERS
from pforge.transpile.errors import SourceError
from pforge.transpile.frontend import (ImportMap, SourceText, parse_ast, position, shadowed_builtin_reads,
                                       shadowed_import_reads, source_lines, to_gast)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


_WHOLE_MODULE = contextvars.ContextVar("pforge_whole_module", default=False)


def analyses_outline(transpile):
    """Decorates the driver: it runs on an outline, and again on the whole module if need be.

    Also turns a ``RecursionError`` (code nested deeper than the analyses can recurse) into
    a :class:`SourceError`, as the parser does.
    """

    @functools.wraps(transpile)
    def driver(source, filename="<string>", *args, **kwargs):
        try:
            try:
                return transpile(source, filename, *args, **kwargs)
            except WholeModuleNeeded:
                with whole_module():
                    return transpile(source, filename, *args, **kwargs)
        except RecursionError:
            raise SourceError("expression nested too deeply to analyse", filename) from None

    return driver


@contextlib.contextmanager
def whole_module():
    """Within this block :func:`module_context` always gives the whole module (no outline)."""
    token = _WHOLE_MODULE.set(True)
    try:
        yield
    finally:
        _WHOLE_MODULE.reset(token)


def module_context(source: SourceText) -> ModuleContext | None:
    """The analysis context of ``source``: an outline when that is exact, else the whole module.

    Returns None when the module holds no ``for`` or ``while`` statement (nothing to analyse).
    Inside a retry of :func:`analyses_outline` it is always the whole module.

    Raises:
        SourceError: the text is not valid Python.
    """
    shape = outline(source)
    if not shape.has_loops:
        return None
    if shape.partial_ok and not _WHOLE_MODULE.get():
        return shape.partial_context()
    return shape.whole_context()


@dataclass
class Outline:
    """A parsed module and what is needed to analyse its loops.

    Attributes:
        source: the decoded text.
        module: the whole module as an ``ast`` tree.
        has_loops: the module holds at least one ``for`` or ``while`` statement.
        partial_ok: an outline may give the same analysis as the whole tree (every loop is
            inside a function).
        imports: the module's import map (from every statement of the module).
        global_names: the names declared ``global`` anywhere in the module.
        function_defs: the last ``def`` of each name in ``ast.walk`` order, as ``ast`` nodes
            (what :class:`~pforge.transpile.analysis.ModuleContext` would collect).
    """

    source: SourceText
    module: ast.Module
    has_loops: bool
    partial_ok: bool
    imports: ImportMap
    global_names: set[str]
    function_defs: dict[str, ast.FunctionDef]
    _parents: dict[int, ast.AST] = field(repr=False)
    _holds_loop: set[int] = field(repr=False)

    def whole_context(self) -> ModuleContext:
        """The analysis context of the whole module (the gast tree of every statement)."""
        tree = to_gast(self.module, self.source.filename)
        return ModuleContext(self.source, tree, imports=self.imports)

    def partial_context(self) -> "OutlineContext":
        """The analysis context of the outline; only valid when ``partial_ok``."""
        kept: dict[int, gast.AST] = {}
        body = self._outline_block(self.module.body, kept, top=True)
        module = ast.Module(body=body, type_ignores=[])
        tree = to_gast(module, self.source.filename)
        _pair(module.body, tree.body, kept)
        functions = _LazyFunctions(self, kept)
        ctx = OutlineContext(self.source, tree, imports=self.imports, functions=functions)
        ctx.global_names = self.global_names
        return ctx

    def _outline_block(self, stmts, kept, top):
        body = []
        for stmt in stmts:
            if isinstance(stmt, _FUNCTIONS):
                if id(stmt) in self._holds_loop:
                    body.append(stmt)
                    kept[id(stmt)] = None
                else:
                    body.append(_stub(stmt))
            elif isinstance(stmt, ast.ClassDef):
                if id(stmt) in self._holds_loop:
                    copy = ast.ClassDef(**{f: getattr(stmt, f) for f in stmt._fields if hasattr(stmt, f)})
                    copy.body = self._outline_block(stmt.body, kept, top=False)
                    body.append(ast.copy_location(copy, stmt))
                    copy.end_lineno, copy.end_col_offset = stmt.end_lineno, stmt.end_col_offset
                else:
                    body.append(_stub(stmt))
            else:
                body.append(stmt)
                if top or id(stmt) in self._holds_loop:
                    kept[id(stmt)] = None
        return body

    def enclosing_kept(self, node: ast.AST, kept: Mapping[int, object]) -> ast.AST | None:
        """The kept statement that holds ``node`` (or is it), else None."""
        while node is not None and id(node) not in kept:
            node = self._parents.get(id(node))
        return node


def _stub(stmt):
    """``def name(): pass`` or ``class name: pass``, at the position of ``stmt``."""
    fields = {"name": stmt.name, "body": [ast.Pass()], "decorator_list": []}
    if isinstance(stmt, ast.ClassDef):
        fields.update(bases=[], keywords=[])
    else:
        fields.update(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                         kw_defaults=[], kwarg=None, defaults=[]),
                      returns=None, type_comment=None)
    if "type_params" in type(stmt)._fields:  # Python 3.12+
        fields["type_params"] = []
    stub = type(stmt)(**fields)
    for node in (stub, stub.body[0]):
        ast.copy_location(node, stmt)
        node.end_lineno, node.end_col_offset = stmt.lineno, stmt.col_offset
    return stub


def _pair(ast_body, gast_body, kept):
    """Records the gast node of each kept statement (the two bodies run in parallel)."""
    for old, new in zip(ast_body, gast_body, strict=True):
        if id(old) in kept:
            kept[id(old)] = new
        elif isinstance(old, ast.ClassDef):
            _pair(old.body, new.body, kept)


class _LazyFunctions(Mapping):
    """Function definitions by name, converted to gast the first time one is looked up.

    A function inside a kept statement is that statement's own gast node (the analyses may
    have annotated the tree); any other one is converted on its own.
    """

    def __init__(self, outline: Outline, kept: dict[int, gast.AST]):
        self._outline = outline
        self._kept = kept
        self._done: dict[str, gast.AST] = {}

    def __getitem__(self, name: str) -> gast.AST:
        if name not in self._done:
            fdef = self._outline.function_defs[name]
            holder = self._outline.enclosing_kept(fdef, self._kept)
            if holder is None:
                self._done[name] = to_gast(fdef, self._outline.source.filename)
            else:
                root = self._kept[id(holder)]
                found = next((n for n in gast.walk(root) if isinstance(n, gast.FunctionDef)
                              and n.name == name and n.lineno == fdef.lineno
                              and n.col_offset == fdef.col_offset), None)
                if found is None:
                    found = to_gast(fdef, self._outline.source.filename)
                self._done[name] = found
        return self._done[name]

    def __contains__(self, name: object) -> bool:
        return name in self._outline.function_defs

    def __iter__(self) -> Iterator[str]:
        return iter(self._outline.function_defs)

    def __len__(self) -> int:
        return len(self._outline.function_defs)


class OutlineContext(ModuleContext):
    """The analysis context of an outline: beniget answers only about the kept functions.

    ``users_of`` and ``definitions_of`` raise :class:`WholeModuleNeeded` for a definition
    that is not local to a function, or a name some function declares ``global``, since
    its users or definitions may lie in code the outline left out.
    """

    global_names: set[str] = set()

    def users_of(self, name_node: gast.Name) -> list[gast.AST]:
        if not self._local(name_node) or _bound_name(name_node) in self.global_names:
            raise WholeModuleNeeded(f"users of a non-local definition at line "
                                    f"{getattr(name_node, 'lineno', '?')}")
        return super().users_of(name_node)

    def definitions_of(self, use: gast.Name) -> list:
        if getattr(use, "id", None) in self.global_names:
            raise WholeModuleNeeded(f"definitions of `{use.id}`, declared global somewhere")
        found = super().definitions_of(use)
        if not all(self._local(d.node) and _bound_name(d.node) not in self.global_names
                   for d in found):
            raise WholeModuleNeeded(f"definitions of `{getattr(use, 'id', '?')}`")
        return found

    def _local(self, node: gast.AST) -> bool:
        """True when ``node`` binds a name in the scope of some function (not module or class)."""
        prev, cur = node, self.parents.get(id(node))
        while cur is not None:
            if isinstance(cur, (gast.FunctionDef, gast.AsyncFunctionDef)):
                if any(stmt is prev for stmt in cur.body):
                    return True
            elif isinstance(cur, gast.Lambda):
                if cur.body is prev:
                    return True
            elif isinstance(cur, gast.arguments):
                params = cur.posonlyargs + cur.args + cur.kwonlyargs + [cur.vararg, cur.kwarg]
                if any(p is prev for p in params):
                    return True  # a parameter; defaults and annotations belong to the enclosing scope
            prev, cur = cur, self.parents.get(id(cur))
        return False


def _bound_name(node: gast.AST) -> str | None:
    """The name a definition node binds (a Name, a def or class, an import alias)."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        return node.name
    if isinstance(node, gast.alias):
        return (node.asname or node.name).split(".")[0]
    return None


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _holds_implicit_loop(stmt: ast.AST, lines: list[str]) -> bool:
    """A comprehension or a ``tf.map_fn`` call in ``stmt``'s own expressions (loops written
    as expressions, see ``analysis.discovery._implicit_loops``). ``stmt`` is a statement, an ``except``
    handler or a ``case`` of a ``match``. The text of its header is checked first, so most
    statements cost one substring search."""
    first = position(stmt)[0]  # a match_case has no position of its own
    body = getattr(stmt, "body", None)
    last = body[0].lineno - 1 if isinstance(body, list) and body else stmt.end_lineno
    text = "\n".join(lines[first - 1:max(first, last)])
    if "for" not in text and "map_fn" not in text:
        return False
    for name, value in ast.iter_fields(stmt):
        if name in _BLOCKS:
            continue
        for part in value if isinstance(value, list) else [value]:
            if not isinstance(part, ast.AST):
                continue
            if isinstance(stmt, ast.Assign) and part is stmt.value and isinstance(part, ast.ListComp) \
                    and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                return True  # `rows = [...]`, perhaps read as an array later
            for node in ast.walk(part):
                if isinstance(node, ast.DictComp):
                    return True
                if not isinstance(node, ast.Call):
                    continue
                callee = getattr(node.func, "attr", getattr(node.func, "id", None))
                # Only comprehensions that can build an array matter (analysis.discovery._may_build_array).
                if callee == "map_fn" or (callee in _ARRAY_CONSUMERS and node.args
                                          and isinstance(node.args[0], ast.ListComp)):
                    return True
    return False


#: Names of the calls whose list argument becomes an array (``consumers``, unresolved).
_ARRAY_CONSUMERS = {name.rsplit(".", 1)[-1] for name in CONSUMERS.keys() | ARRAY_READERS | BUILTIN_READERS}


def outline(source: SourceText) -> Outline:
    """Parses ``source`` with ``ast`` and surveys its statements (no gast conversion yet).

    The survey visits statements in the order ``ast.walk`` (breadth first) would, so the
    import map and the function table equal those built from the whole gast tree.

    Raises:
        SourceError: a syntax error, or input too deeply nested to parse.
    """
    module = parse_ast(source)
    lines = source_lines(source.text)
    parents: dict[int, ast.AST] = {}
    ordered: list[ast.AST] = []
    loops: list[ast.AST] = []
    global_names: set[str] = set()
    queue = [module]
    for node in queue:  # the list grows while it is read: a breadth-first walk
        for name in ("body", "handlers", "orelse", "finalbody", "cases"):
            children = getattr(node, name, None)
            if not children or not isinstance(children, list):
                continue
            for child in children:
                parents[id(child)] = node
                queue.append(child)
        if node is module:
            continue
        ordered.append(node)
        if isinstance(node, (ast.For, ast.While)) or _holds_implicit_loop(node, lines):
            loops.append(node)
        elif isinstance(node, ast.Global):
            global_names.update(node.names)
    holds_loop: set[int] = set()
    partial_ok = True
    for loop in loops:
        node, scope = loop, None
        while node is not None and id(node) not in holds_loop:
            holds_loop.add(id(node))
            if scope is None and isinstance(node, (*_FUNCTIONS, ast.ClassDef)) and node is not loop:
                scope = node
            node = parents.get(id(node))
        if scope is None:
            # Reached a marked ancestor (or the module) before any def or class: look further up.
            while node is not None and scope is None:
                if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
                    scope = node
                node = parents.get(id(node))
        if not isinstance(scope, _FUNCTIONS):
            partial_ok = False  # a loop at module or class level: its names are seen everywhere
    counts: dict[str, int] = {}
    for n in ordered:
        if isinstance(n, ast.FunctionDef):
            counts[n.name] = counts.get(n.name, 0) + 1
    # Only names defined by one `def`: which of two a call reaches is the chains' to say.
    functions = {n.name: n for n in ordered if isinstance(n, ast.FunctionDef) and counts[n.name] == 1}
    imports = ImportMap.from_nodes(ordered)
    imports.shadowed_at = shadowed_builtin_reads(module)
    imports.shadowed_imports_at = shadowed_import_reads(module, set(imports.aliases))
    return Outline(source, module, bool(loops), partial_ok, imports,
                   global_names, functions, parents, holds_loop)
