"""Common-subexpression elimination of a loop's batched statements: a subexpression the
rewrite spells out several times (``np.asarray(xs) < 0`` in three arms of a ``where``, the
same broadcast operand twice) is bound to a name once, as a reviewer would have written it.

Local value numbering over the straight-line batched statements (Aho, Lam, Sethi and Ullman,
"Compilers: Principles, Techniques, and Tools", 2nd ed., 2006, section 8.5; Cocke, "Global
common subexpression elimination", 1970). The rewrite must still compute what it computed,
so an expression is bound only where evaluating it once gives every occurrence the value it
had:

- **Pure.** Names, constants, attributes, subscripts, arithmetic, comparisons and calls that
  :mod:`pforge.transpile.effects` classifies as pure library functions or pure methods; no
  random draw, no tape, no assertion, no call of the module's own functions.
- **Evaluated every time.** Occurrences under a short-circuit (``a and E``), a conditional
  expression's arms, a ``lambda`` (a ``tf.scan`` step) or a comprehension are not counted; the
  statements are the top-level simple statements and the tests of ``if`` statements (what a
  ``with``, ``for`` or ``if`` block does inside is a barrier).
- **Unchanged in between.** No statement from the first occurrence up to the last one binds
  a name the expression reads, writes into a subscript or an attribute, augments anything
  in place (``total += x`` on an array), or calls anything not known to be pure.
- **Only read.** Every occurrence is an operand whose value is consumed (arithmetic, a
  comparison, an index, an argument of a pure call), possibly through views of it
  (``E[:, 0]``, ``np.asarray(E)``); an occurrence that could be bound to a name or handed to
  an unknown callee is never shared, since its object could be written to later.

An expression is bound only when that shortens the code by 6 tokens or more: ``k``
occurrences of ``t`` tokens become ``t + 3`` tokens for the binding and ``k`` names, and ``t``
is at least 5, so ``xs.shape[0]`` twice stays as it is (and so does ``xs < 0``). Two temporaries the rewrite made with the same value
(``operand_1 = E`` and ``operand_2 = E``) become one.
"""

from __future__ import annotations

import io
import tokenize

import gast

from pforge.transpile import templates
from pforge.transpile.effects import PURE, EffectAnalyzer
from pforge.transpile.frontend import ImportMap
from pforge.transpile.naming import Namer

__all__ = ["bind_common_subexpressions"]

_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)
#: Methods with more than a value: a tape's gradient may be taken once, a TensorArray or a
#: variable read may see a write, ``numpy_function`` runs Python.
_IMPURE_METHODS = frozenset({"gradient", "jacobian", "batch_jacobian", "watch", "stop_recording",
                             "numpy_function", "read", "read_value", "value"})
#: Library functions classified pure whose call does more than compute: assertions raise,
#: host callbacks run Python, a tape or a variable has state.
_IMPURE_PREFIXES = ("tensorflow.debugging.", "tensorflow.py_function", "tensorflow.numpy_function",
                    "tensorflow.GradientTape", "tensorflow.Variable", "tensorflow.TensorArray",
                    "tensorflow.print", "tensorflow.Assert", "tensorflow.compat.", "builtins.print",
                    "builtins.next", "builtins.iter", "builtins.input", "builtins.id")
#: NumPy functions and methods whose result is a new array (never a view of an argument), and
#: builtins whose result is a number or a bool
_FRESH_FUNCTIONS = frozenset({f"numpy.{f}" for f in (
    "where", "stack", "concatenate", "einsum", "matmul", "dot", "sum", "mean", "prod", "cumsum",
    "cumprod", "maximum", "minimum", "logical_and", "logical_or", "logical_not", "logical_xor",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "abs",
    "absolute", "sqrt", "exp", "log", "square", "isfinite", "isnan", "any", "all", "result_type",
    "shape", "ndim", "size", "arange", "bincount", "take", "outer", "clip", "round")} | {
    f"builtins.{f}" for f in ("len", "int", "float", "bool", "abs", "isinstance", "max", "min")})
_FRESH_METHODS = frozenset({"astype", "sum", "mean", "prod", "any", "all", "max", "min", "copy", "take",
                            "round", "clip", "cumsum", "cumprod", "dot"})
_LAYOUT = {tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER,
           tokenize.COMMENT}
_MIN_TOKENS = 5
_MIN_SAVED = 6


def bind_common_subexpressions(stmts: list[gast.stmt], namer: Namer, imports: ImportMap,
                               fresh: set[str], outside: set[str]) -> None:
    """Binds repeated subexpressions of ``stmts`` (edited in place) to fresh names.

    Args:
        stmts: the batched statements of one loop, in order.
        namer: gives the new names (``xs_array``, ``xs_mask``).
        imports: the module's import aliases, to resolve callees.
        fresh: names this rewrite made; two of them bound to one value become one.
        outside: names read by statements outside ``stmts`` (checks, prelude), never merged.
    """
    effects = EffectAnalyzer(imports, {})
    before = set(namer.taken)
    temporaries = fresh - outside
    while _drop_dead(stmts, effects, temporaries) or _merge_temporaries(stmts, effects, temporaries) \
            or _bind_one(stmts, namer, effects, temporaries):
        temporaries |= set(namer.taken) - before


# --- purity -----------------------------------------------------------------------------------

def _pure_call(call: gast.Call, effects: EffectAnalyzer) -> bool:
    if call.keywords and any(k.arg is None for k in call.keywords):
        return False
    func = call.func
    name = effects.imports.resolve(func)
    if name is None:
        if not isinstance(func, gast.Attribute) or func.attr in _IMPURE_METHODS:
            return False
    elif name.startswith(_IMPURE_PREFIXES) or not name.startswith(("numpy.", "tensorflow.", "builtins.", "math.")):
        return False
    return effects.classify(call).kind == PURE


def _pure(node: gast.AST, effects: EffectAnalyzer) -> bool:
    """Whether evaluating ``node`` twice gives one value and does nothing else."""
    for n in gast.walk(node):
        if isinstance(n, gast.Call):
            if not _pure_call(n, effects):
                return False
        elif isinstance(n, (gast.Lambda, gast.NamedExpr, gast.Await, gast.Yield, gast.YieldFrom,
                            gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                            gast.Starred, gast.JoinedStr, gast.List, gast.Dict, gast.Set)):
            return False
        elif isinstance(n, (gast.Name, gast.Attribute, gast.Subscript)) and not isinstance(n.ctx, gast.Load):
            return False
    return True


# --- occurrences ------------------------------------------------------------------------------

def _unconditional(node: gast.AST):
    """The subexpressions of ``node`` evaluated each time ``node`` is, in source order."""
    if isinstance(node, gast.expr):
        yield node
    if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
        return
    for name, value in gast.iter_fields(node):
        if isinstance(node, gast.BoolOp) and name == "values":
            value = value[:1]
        elif isinstance(node, gast.IfExp) and name in ("body", "orelse"):
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, gast.AST):
                yield from _unconditional(item)


def _parents(stmt: gast.stmt) -> dict[int, tuple]:
    found = {}
    for node in gast.walk(stmt):
        for name, value in gast.iter_fields(node):
            for k, item in enumerate(value) if isinstance(value, list) else ((None, value),):
                if isinstance(item, gast.AST):
                    found[id(item)] = (node, name, k)
    return found


def _consumed(node: gast.expr, parents: dict[int, tuple], effects: EffectAnalyzer,
              read_only: frozenset[str] = frozenset()) -> bool:
    """Whether ``node``'s value is only read: it reaches, through views of it at most, an
    operand of arithmetic or a comparison, an index, a test, or a pure call's argument whose
    result is not itself bound or handed on (see the module docstring)."""
    while id(node) in parents:
        parent, field, _ = parents[id(node)]
        if isinstance(parent, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.Slice)):
            return True
        if isinstance(parent, (gast.IfExp, gast.If)) or isinstance(parent, gast.AugAssign) and field == "value":
            return field in ("test", "value")
        if isinstance(parent, gast.Subscript):
            if field == "slice":
                return True
            node = parent  # a view of it
        elif isinstance(parent, (gast.Tuple, gast.List, gast.Attribute)):
            node = parent  # one of several values (an index, arguments), or E.T, or E.astype
        elif isinstance(parent, (gast.Call, gast.keyword)):
            call = parents[id(parent)][0] if isinstance(parent, gast.keyword) else parent
            if not _pure_call(call, effects):
                return False
            if _fresh_result(call, effects):
                return True
            node = call  # its result may be a view of it (np.asarray(E)): follow it
        elif isinstance(parent, gast.Assign) and all(isinstance(t, gast.Subscript) for t in parent.targets):
            return True  # copied into an array
        elif isinstance(parent, gast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], gast.Name):
            return parent.targets[0].id in read_only  # a temporary of the rewrite, only ever read
        else:
            return False
    return False


def _fresh_result(call: gast.Call, effects: EffectAnalyzer) -> bool:
    """Whether ``call`` returns a new value that shares no memory with its arguments, or an
    immutable one (every TensorFlow function: a tensor is never written in place)."""
    name = effects.imports.resolve(call.func)
    if name is None:
        return isinstance(call.func, gast.Attribute) and call.func.attr in _FRESH_METHODS and not any(
            k.arg == "copy" for k in call.keywords)
    return name.startswith("tensorflow.") or name in _FRESH_FUNCTIONS


# --- barriers ---------------------------------------------------------------------------------

def _changes(stmt: gast.stmt, reads: set[str], effects: EffectAnalyzer) -> bool:
    """Whether ``stmt`` may change what an expression reading ``reads`` evaluates to."""
    for n in gast.walk(stmt):
        if isinstance(n, gast.AugAssign):
            return True
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)) and n.id in reads:
            return True
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, (gast.Store, gast.Del)):
            return True
        if isinstance(n, gast.Call) and not _pure_call(n, effects):
            return True
        if isinstance(n, (gast.Global, gast.Nonlocal, gast.FunctionDef, gast.ClassDef, gast.Import,
                          gast.ImportFrom, gast.NamedExpr)):
            return True
    return False


def _reads(node: gast.AST) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}


def _clear(stmts, first: int, last: int, reads: set[str], effects: EffectAnalyzer) -> bool:
    return not any(_changes(stmts[k], reads, effects) for k in range(first, last))


# --- the two transformations ------------------------------------------------------------------

def _tokens(node: gast.AST) -> int:
    source = gast.unparse(node).strip()
    return sum(1 for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in _LAYOUT)


def _occurrences(stmt: gast.stmt):
    """The unconditional subexpressions of a simple statement's value (not its targets), or of
    an ``if`` statement's test."""
    if isinstance(stmt, gast.If):
        yield from _unconditional(stmt.test)
    elif isinstance(stmt, _SIMPLE) and stmt.value is not None:
        yield from _unconditional(stmt.value)


def _bind_one(stmts: list[gast.stmt], namer: Namer, effects: EffectAnalyzer, temporaries: set[str]) -> bool:
    stores = _stores(stmts)
    read_only = frozenset(t for t in temporaries if stores.get(t) == 1 and _only_read(stmts, {t}, effects))
    groups: dict[str, list[tuple[int, gast.expr]]] = {}
    parents = {}
    for k, stmt in enumerate(stmts):
        if not isinstance(stmt, (*_SIMPLE, gast.If)):
            continue
        parents.update(_parents(stmt))
        for node in _occurrences(stmt):
            # (not a callee: `E.astype` is bound once as `E` is, the call is made each time)
            called = isinstance(parents[id(node)][0], gast.Call) and parents[id(node)][1] == "func"
            if not called and not isinstance(node, (gast.Name, gast.Constant, gast.Tuple, gast.Slice)):
                groups.setdefault(_key(node), []).append((k, node))
    best = None
    for found in (run for group in groups.values() for run in _runs(group, stmts, effects)):
        if len(found) < 2:
            continue
        node = found[0][1]
        size = sum(1 for _ in gast.walk(node))
        if best is not None and size <= best[0]:
            continue
        t = _tokens(node)
        if t < _MIN_TOKENS or (len(found) - 1) * t - (len(found) + 3) < _MIN_SAVED:
            continue
        if not _pure(node, effects) or not all(_consumed(n, parents, effects, read_only) for _, n in found):
            continue
        best = (size, found)
    if best is None:
        return False
    found = best[1]
    bounds = all(isinstance(parents[id(n)][0], gast.Slice) for _, n in found)
    name = namer.new(_hint(found[0][1], effects, "stop" if bounds else None))
    (binding,) = templates.replace("name = value", name=name, value=found[0][1])
    for _, node in found:
        parent, field, index = parents[id(node)]
        load = templates.name(name)
        if index is None:
            setattr(parent, field, load)
        else:
            getattr(parent, field)[index] = load
    stmts.insert(found[0][0], binding)
    return True


def _key(node: gast.expr) -> str:
    """What makes two occurrences one value: the expression, and the clamps versioning may
    drop from it (``pforge_clamp``, set by the printer where a slice's bound is clamped)."""
    marks = "".join("1" if getattr(n, "pforge_clamp", False) else "0" for n in gast.walk(node) if isinstance(n, gast.Call))
    return f"{gast.dump(node)}|{marks}"


def _runs(group: list[tuple[int, gast.expr]], stmts, effects: EffectAnalyzer):
    """The occurrences of one expression split where a statement between two of them may
    change its value: each run can share one evaluation."""
    reads = _reads(group[0][1])
    run = [group[0]]
    for previous, current in zip(group, group[1:]):
        if not _clear(stmts, previous[0], current[0], reads, effects):
            yield run
            run = []
        run.append(current)
    yield run


def _merge_temporaries(stmts: list[gast.stmt], effects: EffectAnalyzer, temporaries: set[str]) -> bool:
    """``t1 = E`` ... ``t2 = E`` with ``t1``, ``t2`` made by this rewrite, each bound once and
    only read: the second goes and its reads read ``t1``."""
    stores = _stores(stmts)
    temps = {}
    for k, stmt in enumerate(stmts):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            continue
        name = stmt.targets[0].id
        if name not in temporaries or stores.get(name) != 1 or not _pure(stmt.value, effects):
            continue
        key = gast.dump(stmt.value)
        if key in temps:
            first, earlier = temps[key]
            if not _clear(stmts, first + 1, k, _reads(stmt.value) | {earlier}, effects) \
                    or not _only_read(stmts, {earlier, name}, effects):
                continue
            del stmts[k]
            for rest in stmts[k:]:
                for n in gast.walk(rest):
                    if isinstance(n, gast.Name) and n.id == name:
                        n.id = earlier
            return True
        temps[key] = (k, name)
    return False


def _stores(stmts) -> dict[str, int]:
    stores: dict[str, int] = {}
    for stmt in stmts:
        for n in gast.walk(stmt):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
    return stores


def _drop_dead(stmts: list[gast.stmt], effects: EffectAnalyzer, temporaries: set[str]) -> bool:
    """``t = E`` where ``t`` is a temporary of the rewrite nothing reads and ``E`` is pure goes."""
    targets = {id(stmt.targets[0]) for stmt in stmts if isinstance(stmt, gast.Assign)}
    loaded = {n.id for stmt in stmts for n in gast.walk(stmt) if isinstance(n, gast.Name) and id(n) not in targets}
    for k, stmt in enumerate(stmts):
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) \
                and stmt.targets[0].id in temporaries and stmt.targets[0].id not in loaded and _pure(stmt.value, effects):
            del stmts[k]
            return True
    return False


def _only_read(stmts, names: set[str], effects: EffectAnalyzer) -> bool:
    for stmt in stmts:
        parents = _parents(stmt)
        for n in gast.walk(stmt):
            if isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, gast.Load) \
                    and not _consumed(n, parents, effects):
                return False
    return True


# --- names ------------------------------------------------------------------------------------

_SUFFIXES = {"asarray": "array", "array": "array", "convert_to_tensor": "tensor", "astype": "cast",
             "cast": "cast", "maximum": "max", "minimum": "min", "logical_and": "mask", "logical_or": "mask",
             "logical_not": "mask", "logical_xor": "mask", "isfinite": "mask", "isnan": "mask",
             "arange": "index", "range": "index", "result_type": "dtype"}


def _hint(node: gast.expr, effects: EffectAnalyzer, role: str | None = None) -> str:
    """A name for ``node``'s value: its first variable and what the outermost operation makes
    of it (``xs_mask`` for ``np.asarray(xs) < 0``, ``n_x`` for ``len(x)``), or ``role``
    (``x_stop`` for a slice's bound)."""
    while isinstance(node, gast.Call) and getattr(node, "pforge_clamp", False):
        node = node.args[0]  # np.maximum(n - 1, 0), which versioning may print as n - 1
    root = next((n.id for n in _source_order(node) if isinstance(n, gast.Name)
                 and effects.imports.resolve(n) is None), None)
    callee = None
    if isinstance(node, gast.Call):
        func = node.func
        callee = func.attr if isinstance(func, gast.Attribute) else func.id if isinstance(func, gast.Name) else "value"
    if root and (callee == "len" or _shape_entry(node, effects) == 0):
        return f"n_{root}"  # len(x), x.shape[0], np.shape(x)[0]
    if root and _shape_entry(node, effects) is not None:
        axis = _shape_entry(node, effects)
        return f"{root}_dim{axis}" if axis > 0 else f"{root}_dim"
    if role:
        suffix = role
    elif isinstance(node, (gast.Compare, gast.BoolOp)) or isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        suffix = "mask"
    elif callee is not None:
        suffix = _SUFFIXES.get(callee, callee)
    elif isinstance(node, gast.Subscript):
        index = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        expanded = any(_is_newaxis(i, effects) for i in index) and all(
            _is_newaxis(i, effects) or isinstance(i, gast.Slice) and i.lower is i.upper is i.step is None for i in index)
        suffix = ("mask" if isinstance(node.value, gast.Compare) else "expanded") if expanded else "part"
    elif isinstance(node, gast.BinOp):
        suffix = "term"
    elif isinstance(node, gast.Attribute):
        suffix = node.attr
    else:
        suffix = "value"
    hint = f"{root}_{suffix}" if root else "constant"  # (it reads no variable)
    return hint if hint.isidentifier() else "value"


def _shape_entry(node: gast.expr, effects: EffectAnalyzer) -> int | None:
    """``k`` of ``x.shape[k]``, ``np.shape(x)[k]`` or ``tf.shape(x)[k]`` with ``k`` an integer
    literal (``-1`` spelled either way), else None."""
    if not isinstance(node, gast.Subscript) or not (
            isinstance(node.value, gast.Attribute) and node.value.attr == "shape" or isinstance(node.value, gast.Call)
            and effects.imports.resolve(node.value.func) in ("numpy.shape", "tensorflow.shape")):
        return None
    index, sign = node.slice, 1
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub):
        index, sign = index.operand, -1
    if isinstance(index, gast.Constant) and type(index.value) is int:
        return sign * index.value
    return None


def _is_newaxis(node: gast.expr, effects: EffectAnalyzer) -> bool:
    return isinstance(node, gast.Constant) and node.value is None or effects.imports.resolve(node) in (
        "numpy.newaxis", "tensorflow.newaxis")


def _source_order(node: gast.AST):
    yield node
    for _, value in gast.iter_fields(node):
        for item in value if isinstance(value, list) else (value,):
            if isinstance(item, gast.AST):
                yield from _source_order(item)
