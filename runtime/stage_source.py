"""Where ``pforge.vectorize`` reads a function from, and how it compiles the rewrite back.

The module's text with the function's decorators blanked (so the transpiler sees a plain
``def`` at the same lines), the function found again in the transpiled text, and compiled in
the function's own globals with its closure cells, defaults and annotations.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import linecache
import textwrap
import threading
import types

#: held while Python builds an AST: CPython 3.11 and 3.12 can fail building two at once in two
#: threads ("AST constructor recursion depth mismatch", python/cpython#106905)
PARSE_LOCK = threading.Lock()

_FACTORY = "__pforge_stage__"


class _AsWritten(Exception):
    """The function cannot be staged at all (its source is unreadable, or it is not a plain def)."""


@dataclasses.dataclass
class _Source:
    """The module text a decorated function is transpiled in, its decorators blanked out.

    Attributes:
        filename: the file the function was defined in.
        text: the module's text with the lines of the function's decorators left blank, so
            that the transpiler sees a plain function (and may stage it) at the same lines.
        first, last: the function's lines (``def`` to its end).
        lines: ``range(first, last + 1)``: the loops to rewrite.
        index: which of the module's functions of that name it is, in ``ast.walk`` order.
        original: the function's source as written, dedented.
        mangle: the class whose private names (``self.__x``) the method mangles, or None.
        tensorflow: the module imports TensorFlow.
        defined: the first line of each module-level ``def`` (decorators included), by name.
        top_level: the module's statements (``ast.dump``), to tell the imports a rewrite adds.
        owner: the function's first parameter (``self``), or None.
        owner_reads: ``(label, key in __dict__)`` per attribute of ``owner`` the function reads
            (``("self.__w", "_Model__w")``: mangled as the class body does).
    """

    filename: str
    text: str
    first: int
    last: int
    lines: range
    index: int
    original: str
    mangle: str | None
    tensorflow: bool = False
    defined: dict = dataclasses.field(default_factory=dict)
    top_level: frozenset = frozenset()
    owner: str | None = None
    owner_reads: tuple = ()

    @classmethod
    def read(cls, fn) -> _Source:
        if not isinstance(fn, types.FunctionType):
            raise _AsWritten(f"it is a {type(fn).__name__}, not a function (another decorator under "
                             "pforge.vectorize?); pforge.vectorize must be the innermost decorator")
        if fn.__name__ == "<lambda>":
            raise _AsWritten("a lambda has no statements to rewrite")
        if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
            raise _AsWritten("generators and coroutines are not rewritten")
        if hasattr(fn, "__wrapped__"):  # functools.wraps: another decorator's wrapper
            raise _AsWritten(f"it is a wrapper of {fn.__wrapped__.__qualname__} made by another decorator; "
                             "pforge.vectorize must be the innermost decorator")
        filename = fn.__code__.co_filename
        lines = linecache.getlines(filename, fn.__globals__)
        if not lines:
            raise _AsWritten(f"its source cannot be read (defined in {filename})")
        text = "".join(lines)
        try:
            with PARSE_LOCK:
                tree = ast.parse(text, filename)
        except SyntaxError as exc:
            raise _AsWritten(f"its file {filename} does not parse (line {exc.lineno})") from None
        found = _find_def(tree, fn)
        if found is None:
            raise _AsWritten(f"its `def` was not found in {filename} (the file changed since it was imported?)")
        node, index, owner = found
        decorators = node.decorator_list
        below = decorators[:]
        while below and not _is_vectorize(below[-1]) and _is_method_kind(below[-1]):
            below.pop()  # @staticmethod/@classmethod under pforge.vectorize: it staged the function
        if decorators and (not below or not _is_vectorize(below[-1])):
            raise _AsWritten(f"`@{ast.unparse(decorators[-1])}` is applied before pforge.vectorize; "
                             "pforge.vectorize must be the innermost decorator")
        blanked = list(lines)
        for dec in decorators:  # `@` and its expression: the decorator's lines, blank
            for ln in range(dec.lineno - 1, dec.end_lineno):
                blanked[ln] = "\n"
        original = textwrap.dedent("".join(lines[node.lineno - 1:node.end_lineno]))
        mangle = owner.lstrip("_") if owner and owner.lstrip("_") else None
        tensorflow = any(isinstance(n, ast.Import) and any(a.name.split(".")[0] == "tensorflow" for a in n.names)
                         or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "tensorflow"
                         for n in ast.walk(tree))
        defined = {n.name: min([n.lineno] + [d.lineno for d in n.decorator_list]) for n in tree.body
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        positional = node.args.posonlyargs + node.args.args
        first_param = positional[0].arg if positional else None
        reads = sorted({n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
                        and isinstance(n.value, ast.Name) and n.value.id == first_param})
        mangled = _Mangler(mangle)._mangled if mangle else (lambda a: a)
        return cls(filename, "".join(blanked), node.lineno, node.end_lineno,
                   range(node.lineno, node.end_lineno + 1), index, original, mangle, tensorflow, defined,
                   frozenset(ast.dump(st) for st in tree.body), first_param,
                   tuple((f"{first_param}.{a}", mangled(a)) for a in reads))

    def patched_helpers(self, fn, free) -> str:
        """Why the module's functions that ``fn`` calls are not the ``def``s of this source
        (replaced since, as ``mock.patch`` does), or "" when they are: the transpiler reads
        helpers from the source."""
        module = fn.__globals__
        for name in free.helpers if free is not None else ():
            value = module.get(name)
            code = getattr(value, "__code__", None)
            if code is None or code.co_filename != self.filename or self.defined.get(name) != code.co_firstlineno:
                return f"`{name}` is not the function its module's source defines (replaced since it was imported)"
        return ""

    def compile(self, code: str, fn, serial: int):
        """``(function, its source, staged)``: the rewritten ``fn`` from the transpiled module
        ``code``, compiled in ``fn``'s globals with ``fn``'s closure cells, defaults and
        annotations (evaluated once, when ``fn`` was defined, never again). ``staged``: the
        transpiler decorated it with ``tf.function`` (left to ``_staged_function``)."""
        tree = ast.parse(code, self.filename)
        found = _nth_def(tree, fn.__name__, self.index)
        if found is None:  # the transpiler keeps every def; this would be a bug
            raise RuntimeError(f"pforge.vectorize: {fn.__qualname__} is missing from its rewrite. This is a bug.")
        added = [st for st in tree.body if isinstance(st, (ast.Import, ast.ImportFrom))
                 and ast.dump(st) not in self.top_level]
        lines = code.splitlines(keepends=True)
        first = min([found.lineno] + [d.lineno for d in found.decorator_list])
        source = textwrap.dedent("".join(lines[first - 1:found.end_lineno]))
        staged = bool(found.decorator_list)
        found.decorator_list = []
        _drop_evaluated_parts(found.args)
        found.returns = None
        if self.mangle:
            _Mangler(self.mangle).visit(found)
        freevars = fn.__code__.co_freevars
        factory = ast.FunctionDef(
            name=_FACTORY,
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in freevars], vararg=None,
                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=added + [found, ast.Return(value=ast.Name(id=fn.__name__, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_params=[])
        module = ast.Module(body=[factory], type_ignores=[])
        ast.fix_missing_locations(module)
        filename = f"<pforge.vectorize {fn.__qualname__} #{serial + 1} from {self.filename}>"
        linecache.cache[filename] = (len(code), None, lines, filename)  # tracebacks show the rewrite
        namespace: dict = {}
        exec(compile(module, filename, "exec"), fn.__globals__, namespace)  # noqa: S102 - pforge's own output
        cells = dict(zip(freevars, fn.__closure__ or ()))
        made = namespace[_FACTORY](*(_contents(cells[v]) for v in freevars))
        mine = dict(zip(made.__code__.co_freevars, made.__closure__ or ()))
        closure = tuple(cells.get(v, mine.get(v)) for v in made.__code__.co_freevars)
        rewritten = types.FunctionType(made.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                       closure or None)
        rewritten.__kwdefaults__ = fn.__kwdefaults__
        functools.update_wrapper(rewritten, fn)
        del rewritten.__wrapped__
        return rewritten, source, staged


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # not bound yet: the real cell replaces it below
        return None


def _drop_evaluated_parts(args: ast.arguments) -> None:
    """Removes defaults and annotations: the compiled function takes ``fn``'s, as evaluated once."""
    args.defaults = []
    args.kw_defaults = [None] * len(args.kwonlyargs)
    for a in args.posonlyargs + args.args + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]:
        a.annotation = None


class _Mangler(ast.NodeTransformer):
    """Python's private-name mangling (``self.__x`` -> ``self._C__x`` in class ``C``), which the
    compiler applies only inside a class body."""

    def __init__(self, owner: str):
        self.prefix = f"_{owner}"

    def _mangled(self, name: str) -> str:
        if name.startswith("__") and not name.endswith("__") and "." not in name:
            return self.prefix + name
        return name

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = self._mangled(node.attr)
        return node

    def visit_Name(self, node):
        node.id = self._mangled(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self._mangled(node.arg)
        return node


def _is_vectorize(dec: ast.expr) -> bool:
    """``@pforge.vectorize``, ``@vectorize``, ``@pf.vectorize(...)`` and the like."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    return (isinstance(target, ast.Attribute) and target.attr == "vectorize") or (
        isinstance(target, ast.Name) and target.id == "vectorize")


def _is_method_kind(dec: ast.expr) -> bool:
    return isinstance(dec, ast.Name) and dec.id in ("staticmethod", "classmethod")


def _find_def(tree: ast.Module, fn):
    """``(node, index among defs of that name, enclosing class name or None)`` for ``fn``."""
    first = fn.__code__.co_firstlineno
    index = 0
    for node, owner in _defs(tree):
        if node.name != fn.__name__:
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        if start == first or node.lineno == first:
            return node, index, owner
        index += 1
    return None


def _nth_def(tree: ast.Module, name: str, index: int):
    matches = [node for node, _ in _defs(tree) if node.name == name]
    return matches[index] if index < len(matches) else None


def _defs(tree):
    """Every ``def`` with the innermost class around it (or None), in breadth-first order."""
    queue = [(tree, None)]
    while queue:
        node, owner = queue.pop(0)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield child, owner
            # private names are mangled in everything a class body holds, nested defs included
            queue.append((child, child.name if isinstance(child, ast.ClassDef) else owner))
