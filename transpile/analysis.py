"""Finds loops and annotates each level with its iteration space, name classes and blockers.

Analyses annotate, they never rewrite (STYLE.md). For each loop level the result is a
:class:`LoopInfo`: every name touched in the body gets one class (DESIGN.md, "Name
classification"), subscripted accesses go through the dependence test
(:mod:`pforge.transpile.dependence`), calls through the effect tables
(:mod:`pforge.transpile.effects`), and each reason the level cannot be vectorized becomes a
``PF2xx`` remark naming the variable and the lines. Def-use chains come from beniget.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import beniget
import gast

from pforge.transpile import dependence, effects
from pforge.transpile.frontend import ImportMap, SourceText, position
from pforge.transpile.remarks import Remark
from pforge.transpile.spaces import Space, constant_int, for_space, while_space

INVARIANT, INDUCTION, ITEM, PRIVATE = "invariant", "induction", "item", "private"
COLLECTOR, INDEXED, REDUCTION, CARRIED, DERIVED, ARG_REDUCTION = (
    "collector", "indexed output", "reduction", "carried", "derived induction", "arg reduction")

#: Consumers of a collector after the loop: resolved callee -> kind of result.
CONSUMERS = {
    "tensorflow.stack": "stack", "tensorflow.convert_to_tensor": "stack",
    "tensorflow.constant": "stack", "tensorflow.concat": "concat",
    "numpy.stack": "stack", "numpy.array": "stack", "numpy.asarray": "stack",
    "numpy.concatenate": "concat", "numpy.vstack": "concat",
}
_FRESH_CALLS = {"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.array",
                "numpy.copy", "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like",
                "numpy.full_like", "builtins.list", "builtins.dict", "builtins.set",
                "tensorflow.TensorArray"}
_REDUCE_CALLS = {
    "builtins.max": "max", "builtins.min": "min", "tensorflow.maximum": "max",
    "tensorflow.minimum": "min", "tensorflow.math.maximum": "max", "tensorflow.math.minimum": "min",
    "numpy.maximum": "max", "numpy.minimum": "min", "numpy.fmax": "max", "numpy.fmin": "min",
}
#: ``try`` and ``try ... except*`` (gast has TryStar from 0.5.4 on).
TRY_STATEMENTS = tuple(getattr(gast, name) for name in ("Try", "TryStar") if hasattr(gast, name))
_AUG_OPS = {gast.Add: "add", gast.Sub: "add", gast.Mult: "mul", gast.BitOr: "or", gast.BitAnd: "and"}


@dataclass
class Collector:
    """A list built by ``append`` in the loop and consumed once after it.

    Attributes:
        init: the statement that binds the empty list before the loop (None for a comprehension).
        appends: the ``name.append(e)`` calls in the body (possibly under ``if``).
        consumer: the call after the loop (``tf.stack(name)``) and its ``kind`` (None and ""
            for a comprehension whose list is used as a list).
        conditional: some append runs only under an ``if`` in this level's body.
    """

    name: str
    init: gast.stmt
    appends: list[gast.Call]
    consumer: gast.Call
    kind: str
    conditional: bool = False


@dataclass
class Reduction:
    """``name ⊕= term`` in every store of ``name`` in the body; ``op`` is add, mul, max, min, or, and."""

    name: str
    op: str
    updates: list[gast.stmt]


@dataclass
class ArgReduction:
    """``if v > best: best, idx = v, i``: ``idx`` tracks where the ``max`` (or ``min``) reduction
    of ``value`` was reached. ``strict`` (``>``/``<``) keeps the first such iteration, ``>=``/``<=``
    the last; ``index`` is the expression recorded (usually the loop index)."""

    name: str
    value: str
    op: str
    strict: bool
    term: gast.expr
    index: gast.expr
    stmt: gast.If


@dataclass
class LoopInfo:
    """Annotations of one loop level (one ``for`` or ``while``).

    ``classes`` maps each name touched in the body to its class; ``blockers`` holds the PF2xx
    remarks (empty when the level is vectorizable); ``children`` are the loops nested directly
    in the body. ``form`` is ``loop`` (a ``for``/``while`` statement), ``list comprehension``,
    ``dict comprehension``, ``set comprehension``, ``generator expression`` or ``tf.map_fn``:
    the last five are expressions (``node``), analysed through a synthetic ``body`` whose
    nodes are the expression's own (so lines and def-use chains stay right).
    """

    node: gast.stmt
    qualname: str
    function: gast.FunctionDef | None
    parent: "LoopInfo | None"
    space: Space | None = None
    body: list[gast.stmt] = field(default_factory=list)
    classes: dict[str, str] = field(default_factory=dict)
    collectors: dict[str, Collector] = field(default_factory=dict)
    reductions: dict[str, Reduction] = field(default_factory=dict)
    arg_reductions: dict[str, ArgReduction] = field(default_factory=dict)
    tensorarrays: dict[str, list[gast.Assign]] = field(default_factory=dict)
    arrays: dict[str, list[dependence.Access]] = field(default_factory=dict)
    derived: dict[str, gast.stmt] = field(default_factory=dict)
    dependences: list[str] = field(default_factory=list)
    blockers: list[Remark] = field(default_factory=list)
    children: list["LoopInfo"] = field(default_factory=list)
    library: str = "python"
    has_tape: bool = False
    scatter_add: bool = False
    host_casts: list[gast.Call] = field(default_factory=list)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    form: str = "loop"
    array_consumer: bool = False
    random_draws: list[gast.Call] = field(default_factory=list)
    mutated_args: list[str] = field(default_factory=list)

    @property
    def vectorizable(self) -> bool:
        return not self.blockers

    @property
    def lineno(self) -> int:
        return self.node.lineno

    @property
    def end_lineno(self) -> int:
        return self.node.end_lineno

    def block(self, code: str, message: str, node: gast.AST | None = None) -> None:
        where = (position(node) if node is not None else None) or position(self.node)
        remark = Remark(code, message, where[0], where[1] + 1)
        if remark not in self.blockers:
            self.blockers.append(remark)

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def _parents(tree: gast.AST) -> dict[int, gast.AST]:
    """``id(node) -> parent`` for every node under ``tree`` (~2.5x faster than gast.walk)."""
    parents: dict[int, gast.AST] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, gast.AST):
                parents[id(value)] = node
                stack.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, gast.AST):
                        parents[id(item)] = node
                        stack.append(item)
    return parents


class _QuietDefUseChains(beniget.DefUseChains):
    """beniget's chains without its warnings, which it prints to standard output, and without
    its crash on ``case None:``."""

    def warn(self, msg, node):
        pass

    def visit_MatchSingleton(self, node):
        # beniget (0.4, 0.5) visits `value` as a node, but it is the constant True, False or None.
        return self.chains.setdefault(node, beniget.Def(node))


class WholeModuleNeeded(Exception):
    """An analysis asked about code the outline left out; analyse the whole module instead."""


class ModuleContext:
    """Everything about one module that the per-loop analyses share.

    Args:
        source, tree: the module's text and its gast tree (possibly an outline of it, see
            :mod:`pforge.transpile.outline`).
        imports, functions: the module's import map and its function definitions by name,
            when already known; by default both come from ``tree``.
    """

    def __init__(self, source: SourceText, tree: gast.Module, *, imports: ImportMap | None = None,
                 functions=None):
        self.source = source
        self.tree = tree
        self.imports = imports if imports is not None else ImportMap.from_module(tree)
        self.parents: dict[int, gast.AST] = _parents(tree)
        if functions is None:
            defs: dict[str, list[gast.FunctionDef]] = {}
            for node in gast.walk(tree):
                if isinstance(node, gast.FunctionDef):
                    defs.setdefault(node.name, []).append(node)
            functions = {name: found[0] for name, found in defs.items() if len(found) == 1}
        #: Functions whose name is defined by exactly one ``def`` in the module.
        self.functions = functions
        self.effects = effects.EffectAnalyzer(self.imports, self.functions, self.local_definition)
        self.lines = source.text.splitlines()
        self._chains: beniget.DefUseChains | None = None
        self._use_def: dict | None = None

    @property
    def chains(self) -> beniget.DefUseChains:
        if self._chains is None:
            chains = _QuietDefUseChains(self.source.filename)
            chains.visit(self.tree)
            self._chains = chains
        return self._chains

    def definitions_of(self, use: gast.Name) -> list:
        """beniget's reaching definitions of a name load."""
        if self._use_def is None:
            self._use_def = beniget.UseDefChains(self.chains).chains
        return self._use_def.get(use, [])

    def local_definition(self, name_node: gast.Name):
        """The ``def`` (or ``name = lambda ...``) that a called name reaches, or None (then the
        module's table of uniquely named functions answers)."""
        try:
            defs = self.definitions_of(name_node)
        except WholeModuleNeeded:  # a module-level function, outside the outline's chains
            return None
        if len(defs) != 1:
            return None
        node = defs[0].node
        if isinstance(node, gast.FunctionDef):
            return node
        stmt, value = _binding(self, node) if isinstance(node, gast.Name) else (None, None)
        return value if isinstance(value, gast.Lambda) else None

    def users_of(self, name_node: gast.Name) -> list[gast.AST]:
        chain = self.chains.chains.get(name_node)
        return [u.node for u in chain.users()] if chain is not None else []

    def waived(self, node: gast.AST, waiver: str = "pure") -> bool:
        """A ``# pforge: pure`` comment on any line of the node waives PF210;
        ``# pforge: random-ok`` opts a random draw in (PF208: the batched draw differs)."""
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            if 0 < line <= len(self.lines) and f"pforge: {waiver}" in self.lines[line - 1]:
                return True
        return False


# ---------------------------------------------------------------------------------------------
# Discovery


def discover(ctx: ModuleContext) -> list[LoopInfo]:
    """All loop nests of the module, outermost first, in source order; each level analysed."""
    roots: list[LoopInfo] = []
    _normalise_continue(ctx.tree)

    def visit_block(stmts, qualname, function, parent_loop, sink):
        previous = None
        for stmt in stmts:
            if isinstance(stmt, (gast.For, gast.While)):
                info = LoopInfo(stmt, qualname, function, parent_loop)
                info.space = (for_space(stmt, ctx.imports) if isinstance(stmt, gast.For)
                              else while_space(stmt, previous))
                info.body = list(stmt.body)
                if isinstance(stmt, gast.While) and info.space is not None:
                    info.body = info.body[:-1]  # the counter increment is the iteration space
                sink.append(info)
                visit_block(stmt.body, qualname, function, info, info.children)
                visit_block(stmt.orelse, qualname, function, parent_loop, sink)
            elif isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
                if _generated(ctx, stmt):
                    continue  # pforge's own output is not vectorized twice (idempotence)
                inner = f"{qualname}.{stmt.name}" if qualname else stmt.name
                visit_block(stmt.body, inner, stmt, None, roots)
            elif isinstance(stmt, gast.ClassDef):
                inner = f"{qualname}.{stmt.name}" if qualname else stmt.name
                visit_block(stmt.body, inner, None, None, roots)
            else:
                if parent_loop is None:
                    for node in _implicit_loops(ctx, stmt):
                        sink.append(_implicit_loop_info(ctx, node, qualname, function))
                for block in _child_blocks(stmt):
                    visit_block(block, qualname, function, parent_loop, sink)
            previous = stmt

    visit_block(ctx.tree.body, "", None, None, roots)
    roots.sort(key=lambda info: (info.node.lineno, info.node.col_offset))
    for root in roots:
        for info in root.walk():
            _analyse_level(ctx, info)
    return [r for r in roots if r.form == "loop" or _array_building(r)]


def _array_building(info: LoopInfo) -> bool:
    """Which loops written as expressions are worth a remark: ``tf.map_fn``; a list
    comprehension whose list becomes an array (``tf.stack([...])``, ``np.array([...])``); a
    dict comprehension of array values over a range. Others build Python values from Python
    values (``[t.name for t in tensors]``), idiomatic as they are, and are not reported."""
    if info.form == "tf.map_fn":
        return True
    if info.library == "python":
        return False
    if info.form == "list comprehension":
        return info.array_consumer
    if info.form == "dict comprehension":
        return info.space is not None and info.space.kind in ("range", "enumerate")
    return False


#: The pseudo-name of the list a comprehension builds (it is a collector with no name).
COMPREHENSION = "<comprehension>"
_COMPREHENSION_FORMS = {gast.ListComp: "list comprehension", gast.DictComp: "dict comprehension",
                        gast.SetComp: "set comprehension", gast.GeneratorExp: "generator expression"}


def _implicit_loops(ctx, stmt):
    """Comprehensions and ``tf.map_fn`` calls in ``stmt``'s own expressions (not in its nested
    blocks, lambdas or definitions), outermost only: loops written as expressions."""
    body = getattr(stmt, "body", None)
    last = body[0].lineno - 1 if isinstance(body, list) and body else stmt.end_lineno
    header = "\n".join(ctx.lines[stmt.lineno - 1:max(stmt.lineno, last)])
    if "for" not in header and "map_fn" not in header:
        return []  # the text decides for most statements, without a walk
    fields = [value for name, value in gast.iter_fields(stmt)
              if name not in ("body", "orelse", "finalbody", "handlers", "cases", "decorator_list")]
    fields += [case.guard for case in getattr(stmt, "cases", ())]  # a match: its guards too
    stack = [v for value in fields for v in (value if isinstance(value, list) else [value])
             if isinstance(v, gast.AST)]
    found = []
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.Lambda, gast.FunctionDef, gast.ClassDef)):
            continue
        if type(node) in _COMPREHENSION_FORMS or (
                isinstance(node, gast.Call) and ctx.imports.resolve(node.func) == "tensorflow.map_fn"):
            if _may_build_array(ctx, node):
                found.append(node)
            continue
        stack.extend(gast.iter_child_nodes(node))
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _may_build_array(ctx, node) -> bool:
    """Cheap filter before a comprehension is analysed (see :func:`_array_building`): its list
    is consumed by ``tf.stack``/``np.array``/..., or it is a dict comprehension over a range."""
    if isinstance(node, gast.Call):
        return True  # tf.map_fn
    if isinstance(node, gast.DictComp):
        it = node.generators[0].iter
        return isinstance(it, gast.Call) and ctx.imports.resolve(it.func) in (
            "builtins.range", "numpy.arange", "tensorflow.range")
    parent = ctx.parents.get(id(node))
    return isinstance(node, gast.ListComp) and isinstance(parent, gast.Call) and \
        _consumer_kind(ctx, parent, node) is not None


def _located(node, where):
    gast.copy_location(node, where)
    node.end_lineno, node.end_col_offset = where.end_lineno, where.end_col_offset
    return node


def _implicit_loop_info(ctx, node, qualname, function) -> LoopInfo:
    """A LoopInfo for a comprehension or a ``tf.map_fn`` call, with a synthetic body.

    A list comprehension (or generator) ``[e for t in s if c]`` is analysed as the loop
    ``for t in s: if c: <comprehension>.append(e)``, whose collector is the comprehension
    itself; a dict comprehension as ``for t in s: if c: (k, v)``; ``tf.map_fn(fn, elems)`` as
    ``for row in elems: fn(row)``.
    """
    info = LoopInfo(node, qualname, function, None)
    if isinstance(node, gast.Call):
        info.form = "tf.map_fn"
        fn = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "fn"), None)
        elems = node.args[1] if len(node.args) > 1 else next(
            (k.value for k in node.keywords if k.arg == "elems"), None)
        if fn is None or elems is None:
            return info
        if isinstance(fn, gast.Lambda) and len(fn.args.args) == 1 and not fn.args.defaults:
            info.space = Space("rows", items=[(fn.args.args[0], elems)])
            info.body = [_located(gast.Expr(value=fn.body), fn.body)]
        else:
            row = _located(gast.Name(id="<row>", ctx=gast.Load(), annotation=None, type_comment=None), fn)
            info.space = Space("rows", items=[(_located(gast.Name(id="<row>", ctx=gast.Store(),
                                                                   annotation=None, type_comment=None), fn),
                                                elems)])
            call = _located(gast.Call(func=fn, args=[row], keywords=[]), fn)
            info.body = [_located(gast.Expr(value=call), fn)]
        return info
    info.form = _COMPREHENSION_FORMS[type(node)]
    parent = ctx.parents.get(id(node))
    info.array_consumer = isinstance(parent, gast.Call) and _consumer_kind(ctx, parent, node) is not None
    if len(node.generators) != 1 or node.generators[0].is_async:
        return info
    generator = node.generators[0]
    info.space = for_space(generator, ctx.imports)
    if isinstance(node, gast.DictComp):
        element = _located(gast.Expr(value=_located(
            gast.Tuple(elts=[node.key, node.value], ctx=gast.Load()), node.key)), node.key)
    elif isinstance(node, gast.SetComp):
        element = _located(gast.Expr(value=node.elt), node.elt)
    else:
        receiver = _located(gast.Attribute(
            value=_located(gast.Name(id=COMPREHENSION, ctx=gast.Load(), annotation=None,
                                     type_comment=None), node.elt),
            attr="append", ctx=gast.Load()), node.elt)
        element = _located(gast.Expr(value=_located(gast.Call(func=receiver, args=[node.elt], keywords=[]),
                                                    node.elt)), node.elt)
    body = [element]
    for test in reversed(generator.ifs):
        body = [_located(gast.If(test=test, body=body, orelse=[]), test)]
        body[0].end_lineno, body[0].end_col_offset = element.end_lineno, element.end_col_offset
    info.body = body
    return info


def _generated(ctx, fdef) -> bool:
    """A body function pforge generated: its ``def`` follows a ``# pforge: vectorized`` marker."""
    first = min([fdef.lineno] + [d.lineno for d in fdef.decorator_list])
    return first > 1 and ctx.lines[first - 2].strip().startswith("# pforge: vectorized")


def _child_blocks(stmt):
    if isinstance(stmt, gast.If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, (gast.With, gast.AsyncWith)):
        return [stmt.body]
    if isinstance(stmt, TRY_STATEMENTS):
        return [stmt.body, *[h.body for h in stmt.handlers], stmt.orelse, stmt.finalbody]
    if isinstance(stmt, gast.AsyncFor):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, gast.Match):
        return [case.body for case in stmt.cases]
    return []


def _normalise_continue(tree: gast.Module) -> None:
    """``if c: continue`` followed by ``rest`` at the top of a loop body becomes ``if not c: rest``.

    Adapted from AutoGraph's ``continue_statements`` converter: the rest of the body runs
    exactly when the guard is false, so the rewrite keeps the iteration's effects.
    """
    for node in list(_statements(tree)):
        if isinstance(node, (gast.For, gast.While)):
            node.body = _guard_rest(node.body)


def _statements(root):
    """``root`` and every statement under it, nested functions and classes included.

    Loops and ``global``/``nonlocal`` are statements: finding them this way skips the
    expressions, most of the tree.
    """
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(reversed(block))


def _guard_rest(body):
    for k, stmt in enumerate(body):
        if (isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1
                and isinstance(stmt.body[0], gast.Continue)):
            rest = _guard_rest(body[k + 1:])
            if not rest:
                return body[:k]
            guard = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=stmt.test), body=rest, orelse=[])
            gast.copy_location(guard, stmt)
            guard.end_lineno, guard.end_col_offset = rest[-1].end_lineno, rest[-1].end_col_offset
            return body[:k] + [guard]
    return body


# ---------------------------------------------------------------------------------------------
# Per-level analysis


def _scope_nodes(stmts):
    """All nodes under ``stmts``, not descending into nested function or class bodies."""
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        stack.extend(reversed(list(gast.iter_child_nodes(node))))


def _stored_names(stmts) -> dict[str, list[gast.Name]]:
    stored: dict[str, list[gast.Name]] = {}
    for node in _scope_nodes(stmts):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stored.setdefault(node.id, []).append(node)
    return stored


def _loaded_names(node) -> list[gast.Name]:
    found, bound = [], set()
    for sub in gast.walk(node):
        if isinstance(sub, gast.comprehension):
            bound |= {n.id for n in gast.walk(sub.target) if isinstance(n, gast.Name)}
        elif isinstance(sub, gast.Lambda):
            bound |= {a.id for a in sub.args.args if isinstance(a, gast.Name)}
    for sub in gast.walk(node):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and sub.id not in bound:
            found.append(sub)
    return found


def _analyse_level(ctx: ModuleContext, info: LoopInfo) -> None:
    loop = info.node
    if info.space is None and info.form != "loop":
        what = ("`tf.map_fn` with a function of one argument and `elems`" if info.form == "tf.map_fn"
                else f"a {info.form} with one `for` clause over a range, rows, enumerate or zip")
        info.block("PF213", f"only {what} is modelled")
        _detect_library(ctx, info, list(_scope_nodes([loop])))
        return
    if info.space is None:
        if isinstance(loop, gast.While):
            info.block("PF207", "while loop whose exit depends on values computed in the loop; "
                       "only counted loops (`v = a; while v < b: ...; v += 1`) are vectorized")
        else:
            info.block("PF213", f"iteration space `{gast.unparse(loop.iter).strip()}` is not "
                       "one pforge models (range, rows, enumerate, zip)")
    if getattr(loop, "orelse", None):
        info.block("PF211", "`for ... else` is not vectorized")
    body = info.body
    nodes = list(_scope_nodes(body))
    node_ids = {id(n) for n in gast.walk(loop)}  # uses in lambdas in the loop are inside it
    targets = info.space.target_names() if info.space else set()
    stored = _stored_names(body)
    if info.space and info.space.kind == "while":
        stored.pop(info.space.induction, None)

    _trip_count_notes(info)
    _structural_blockers(ctx, info, nodes)
    _find_tensorarrays(info, body, stored)
    _find_collectors(ctx, info, nodes, node_ids, stored)
    _comprehension_collector(ctx, info, nodes)
    _find_arg_reductions(info, body, stored)
    _find_reductions(ctx, info, body, stored)
    _find_derived(info, body, stored, targets)
    _classify_scalars(ctx, info, body, stored, targets, node_ids)
    _check_subscripts(ctx, info, nodes, stored, targets)
    _check_calls(ctx, info, nodes)
    _detect_library(ctx, info, nodes)
    _check_inplace_views(ctx, info, nodes, stored)
    for name in sorted({n.id for n in nodes if isinstance(n, gast.Name)} - set(info.classes)):
        info.classes[name] = INVARIANT


def _trip_count_notes(info):
    """Explains inner trip counts that vary with an enclosing loop: triangular (``range(i)``)
    or data-dependent (``range(lens[i])``), a ragged iteration space once batched."""
    space = info.space
    if space is None or space.kind not in ("range", "while") or info.parent is None:
        return
    bounds = [b for b in (space.start, space.stop, space.step) if b is not None]
    outer = info.parent
    while outer is not None:
        variant = (outer.space.target_names() if outer.space else set()) | set(_stored_names(outer.body))
        for bound in bounds:
            used = sorted({n.id for n in _loaded_names(bound)} & variant)
            if not used:
                continue
            text = gast.unparse(bound).strip()
            inductions = {outer.space.induction} if outer.space and outer.space.kind in ("range", "while") else set()
            if set(used) - inductions or any(isinstance(n, (gast.Subscript, gast.Call))
                                             for n in gast.walk(bound)):
                info.notes.append(f"data-dependent trip count: the bound `{text}` is data that "
                                  f"changes with each iteration of the loop at line {outer.lineno}; "
                                  "batched, the iteration space is ragged (padded and masked)")
            else:
                info.notes.append(f"triangular iteration space: the bound `{text}` depends on "
                                  f"`{used[0]}`, the index of the loop at line {outer.lineno}; "
                                  "batched, the iteration space is a triangle (masked)")
            return
        outer = outer.parent


#: Statements a loop body is refused for (PF211), with their name in the remark.
_UNANALYSED = {**dict.fromkeys(TRY_STATEMENTS, "try"), gast.Match: "match", gast.Delete: "del",
               gast.Import: "import", gast.ImportFrom: "import", gast.ClassDef: "a class definition",
               gast.FunctionDef: "a nested function", gast.AsyncFunctionDef: "a nested function",
               gast.Global: "global", gast.Nonlocal: "nonlocal"}


def _structural_blockers(ctx, info, nodes):
    own_loop_nodes = _own_level_nodes(info)
    for node in nodes:
        if isinstance(node, (gast.Return, gast.Yield, gast.YieldFrom, gast.Await)):
            kind = type(node).__name__.lower().replace("yieldfrom", "yield from")
            info.block("PF204", f"`{kind}` in the loop body leaves the loop early", node)
        elif isinstance(node, gast.Raise):
            info.block("PF204", "`raise` in the loop body can end the loop early", node)
        elif isinstance(node, gast.Assert):
            info.block("PF204", "`assert` in the loop body can end the loop early (check the "
                       "whole batch before or after the loop instead)", node)
        elif isinstance(node, gast.Break) and id(node) in own_loop_nodes:
            info.block("PF204", "`break` makes the trip count depend on the data", node)
        elif isinstance(node, gast.Continue) and id(node) in own_loop_nodes:
            info.block("PF211", "`continue` is vectorized only as a leading `if cond: continue`", node)
        elif type(node) in _UNANALYSED:
            info.block("PF211", f"{_UNANALYSED[type(node)]} in the loop body is not analysed", node)
        elif isinstance(node, gast.NamedExpr) and info.form != "loop":
            info.block("PF206", f"`{gast.unparse(node.target).strip()} := ...` binds a name of the "
                       "enclosing scope in iteration order", node)
        elif isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Store):
            info.block("PF206", f"writes the attribute `{gast.unparse(node).strip()}`, visible "
                       "outside the loop in iteration order", node)
        elif isinstance(node, gast.With):
            for item in node.items:
                if isinstance(item.context_expr, gast.Call) and (
                        ctx.imports.resolve(item.context_expr.func) or "").endswith("GradientTape"):
                    info.has_tape = True
    if info.function is not None:
        declared = {n for node in _statements(info.function)
                    if isinstance(node, (gast.Global, gast.Nonlocal)) for n in node.names}
        for name in sorted(declared & set(_stored_names(info.body))):
            info.block("PF206", f"writes `{name}`, declared global/nonlocal in the function")


def _own_level_nodes(info):
    """Nodes of the body that belong to this level, not to the body of a nested loop."""
    own, stack = set(), list(info.body)
    while stack:
        node = stack.pop()
        own.add(id(node))
        if isinstance(node, gast.For):
            stack += [node.target, node.iter]  # the header belongs here, the body does not
        elif isinstance(node, gast.While):
            stack.append(node.test)
        elif not isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            stack.extend(gast.iter_child_nodes(node))
    return own


def _find_tensorarrays(info, body, stored):
    for node in _scope_nodes(body):
        if (isinstance(node, gast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Call)
                and isinstance(node.value.func, gast.Attribute) and node.value.func.attr == "write"
                and isinstance(node.value.func.value, gast.Name)
                and node.value.func.value.id == node.targets[0].id and len(node.value.args) == 2):
            info.tensorarrays.setdefault(node.targets[0].id, []).append(node)
    for name, writes in list(info.tensorarrays.items()):
        if len(stored.get(name, [])) != len(writes):
            del info.tensorarrays[name]
            continue
        info.classes[name] = INDEXED


def _find_collectors(ctx, info, nodes, node_ids, stored):
    appends: dict[str, list[gast.Call]] = {}
    receivers: set[int] = set()
    for node in nodes:
        if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                and node.func.attr == "append" and isinstance(node.func.value, gast.Name)
                and len(node.args) == 1 and not node.keywords
                and isinstance(ctx.parents.get(id(node)), gast.Expr)):
            appends.setdefault(node.func.value.id, []).append(node)
            receivers.add(id(node.func.value))
    for name, calls in appends.items():
        if name in stored:
            continue
        other_loads = [n for n in nodes if isinstance(n, gast.Name) and n.id == name
                       and id(n) not in receivers]
        if other_loads:
            continue
        defs = ctx.definitions_of(calls[0].func.value)
        if len(defs) != 1:
            continue
        def_node = defs[0].node
        if id(def_node) in node_ids:
            continue
        init, value = _binding(ctx, def_node)
        if init is None or not _is_empty_list(ctx, value):
            continue
        outside = [u for u in ctx.users_of(def_node) if id(u) not in node_ids]
        if len(outside) != 1:
            continue
        consumer = ctx.parents.get(id(outside[0]))
        kind = _consumer_kind(ctx, consumer, outside[0])
        if kind is None:
            continue
        low, high = _append_counts(info.body, {id(c) for c in calls})
        conditional = low != high  # some iterations append fewer: a filter
        info.collectors[name] = Collector(name, init, calls, consumer, kind, conditional)
        info.classes[name] = COLLECTOR


def _comprehension_collector(ctx, info, nodes):
    """A list comprehension or generator is a collector; its consumer is the call around it."""
    if info.form not in ("list comprehension", "generator expression", "set comprehension"):
        return
    if info.form == "set comprehension":
        info.block("PF211", "a set comprehension's order and duplicates are not modelled")
        return
    calls = [n for n in nodes if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
             and isinstance(n.func.value, gast.Name) and n.func.value.id == COMPREHENSION]
    parent = ctx.parents.get(id(info.node))
    kind = _consumer_kind(ctx, parent, info.node) if isinstance(parent, gast.Call) else None
    low, high = _append_counts(info.body, {id(c) for c in calls})
    info.collectors[COMPREHENSION] = Collector(COMPREHENSION, None, calls, parent if kind else None,
                                               kind or "", low != high)
    info.classes[COMPREHENSION] = COLLECTOR


def _binding(ctx, name_node):
    """The statement that binds ``name_node`` and the value bound to it (tuple targets too)."""
    parent = ctx.parents.get(id(name_node))
    if isinstance(parent, gast.Assign) and len(parent.targets) == 1 and parent.targets[0] is name_node:
        return parent, parent.value
    if isinstance(parent, gast.Tuple):
        stmt = ctx.parents.get(id(parent))
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is parent
                and isinstance(stmt.value, gast.Tuple) and len(stmt.value.elts) == len(parent.elts)):
            return stmt, stmt.value.elts[parent.elts.index(name_node)]
    return None, None


def _is_empty_list(ctx, value) -> bool:
    if isinstance(value, gast.List) and not value.elts:
        return True
    return (isinstance(value, gast.Call) and ctx.imports.resolve(value.func) == "builtins.list"
            and not value.args)


def _consumer_kind(ctx, call, arg) -> str | None:
    if not isinstance(call, gast.Call) or not call.args or call.args[0] is not arg:
        return None
    kind = CONSUMERS.get(ctx.imports.resolve(call.func) or "")
    if kind is None:
        return None
    axis = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "axis"), None)
    if axis is not None and not (isinstance(axis, gast.Constant) and axis.value == 0):
        return None
    if kind == "concat" and axis is None and (ctx.imports.resolve(call.func) or "").startswith("tensorflow"):
        return None
    allowed = {"axis", "dtype", "name"}
    if any(k.arg not in allowed for k in call.keywords):
        return None
    return kind


def _append_counts(stmts, calls) -> tuple[int, int]:
    """Fewest and most of ``calls`` one iteration can run (``(1, 1)``: exactly one, a map)."""
    low = high = 0
    for stmt in stmts:
        if isinstance(stmt, gast.If):
            a, b = _append_counts(stmt.body, calls), _append_counts(stmt.orelse, calls)
            low, high = low + min(a[0], b[0]), high + max(a[1], b[1])
        elif isinstance(stmt, (gast.For, gast.While)):
            _, inner = _append_counts(stmt.body, calls)
            high += 2 * inner  # a loop may run any number of times
        elif isinstance(stmt, (gast.With, gast.AsyncWith)):
            a, b = _append_counts(stmt.body, calls)
            low, high = low + a, high + b
        elif any(id(n) in calls for n in gast.walk(stmt)):
            low, high = low + 1, high + 1
    return low, high




def _reduction_update(ctx, stmt, name):
    """The reduction operator if ``stmt`` is ``name ⊕= term`` (in any accepted spelling)."""
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name) and stmt.target.id == name:
        op = _AUG_OPS.get(type(stmt.op))
        if op and name not in {n.id for n in _loaded_names(stmt.value)}:
            return op
        return None
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name):
        return None
    value = stmt.value
    operands = None
    if isinstance(value, gast.BinOp) and type(value.op) in (gast.Add, gast.Mult, gast.Sub):
        op = _AUG_OPS[type(value.op)]
        if isinstance(value.left, gast.Name) and value.left.id == name:
            operands = (op, value.right)
        elif isinstance(value.right, gast.Name) and value.right.id == name and not isinstance(value.op, gast.Sub):
            operands = (op, value.left)
    elif isinstance(value, gast.BoolOp) and len(value.values) == 2:
        op = "or" if isinstance(value.op, gast.Or) else "and"
        first, second = value.values
        if isinstance(first, gast.Name) and first.id == name:
            operands = (op, second)
    elif isinstance(value, gast.Call) and len(value.args) == 2 and not value.keywords:
        op = _REDUCE_CALLS.get(ctx.imports.resolve(value.func) or "")
        first, second = value.args
        if op and isinstance(first, gast.Name) and first.id == name:
            operands = (op, second)
        elif op and isinstance(second, gast.Name) and second.id == name:
            operands = (op, first)
    if operands and name not in {n.id for n in _loaded_names(operands[1])}:
        return operands[0]
    return None


_BOOLEAN_CALLS = {"builtins.any", "builtins.all", "builtins.bool", "builtins.isinstance",
                  "numpy.any", "numpy.all", "numpy.isnan", "numpy.isfinite", "numpy.isinf",
                  "numpy.array_equal", "numpy.allclose", "numpy.isclose", "tensorflow.reduce_any",
                  "tensorflow.reduce_all", "tensorflow.equal", "tensorflow.not_equal",
                  "tensorflow.greater", "tensorflow.greater_equal", "tensorflow.less",
                  "tensorflow.less_equal", "tensorflow.math.is_nan", "tensorflow.math.is_finite",
                  "tensorflow.math.is_inf", "tensorflow.logical_and", "tensorflow.logical_or",
                  "tensorflow.logical_not", "tensorflow.math.logical_and",
                  "tensorflow.math.logical_or", "tensorflow.math.logical_not",
                  "tensorflow.math.reduce_any", "tensorflow.math.reduce_all"}


def _evidently_boolean(ctx, node) -> bool:
    """A comparison, a ``not``, a bool literal or a call that returns booleans: ``or``/``and``
    on anything else returns one of its operands, which is not a reduction."""
    if isinstance(node, (gast.Compare, gast.UnaryOp)) and (
            isinstance(node, gast.Compare) or isinstance(node.op, gast.Not)):
        return True
    if isinstance(node, gast.Constant):
        return isinstance(node.value, bool)
    if isinstance(node, gast.BoolOp):
        return all(_evidently_boolean(ctx, v) for v in node.values)
    return isinstance(node, gast.Call) and ctx.imports.resolve(node.func) in _BOOLEAN_CALLS


def _is_sequence_value(ctx, node) -> bool:
    """Strings, lists and tuples: ``+`` on them concatenates in order, which is no reduction."""
    if isinstance(node, (gast.List, gast.Tuple, gast.ListComp, gast.JoinedStr)):
        return True
    if isinstance(node, gast.Constant):
        return isinstance(node.value, (str, bytes))
    return isinstance(node, gast.Call) and ctx.imports.resolve(node.func) in (
        "builtins.str", "builtins.list", "builtins.tuple", "builtins.repr", "builtins.sorted")


def _initial_values(ctx, info, name):
    """Values bound to ``name`` before the loop in the same function (an approximation)."""
    scope = info.function.body if info.function is not None else ctx.tree.body
    found = []
    for stmt in scope:
        if stmt.lineno >= info.node.lineno:
            break
        for node in gast.walk(stmt):
            if isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Store):
                _, value = _binding(ctx, node)
                if value is not None:
                    found.append(value)
    return found


def reduction_term(stmt, name):
    """The term combined into ``name`` by a reduction update (``s += t`` -> ``t``)."""
    if isinstance(stmt, gast.AugAssign):
        return stmt.value
    value = stmt.value
    if isinstance(value, gast.BinOp):
        return value.right if isinstance(value.left, gast.Name) and value.left.id == name else value.left
    if isinstance(value, gast.BoolOp):
        return value.values[1]
    if isinstance(value, gast.Call):
        first, second = value.args
        return second if isinstance(first, gast.Name) and first.id == name else first
    return value


def branch_locals(info: LoopInfo, stmt: gast.If) -> set[str]:
    """Names bound under ``stmt`` that nothing in the loop body reads outside it.

    Such a name (``if c: p = f(x[i]); out[i] = p``) needs no merge after the ``if``: the
    other path may never bind it, and merging it with its "old value" would read a name
    that was never bound (``UnboundLocalError`` in the rewrite, where the loop runs fine).
    Both backends ask this function before they blend a branch's names.
    """
    bound = {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    return {name for name in bound - read_outside(info, stmt) if info.classes.get(name) == PRIVATE}


def read_outside(info: LoopInfo, node: gast.AST) -> set[str]:
    """Names the loop body of ``info`` reads outside ``node`` (a statement of that body)."""
    inside = {id(n) for n in gast.walk(node)}
    return {n.id for s in info.body for n in gast.walk(s)
            if id(n) not in inside and isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def runs_before(ctx, read, write) -> bool:
    """Whether ``read`` runs before ``write`` when the body runs as whole-array statements.

    Whole-array execution runs each statement of the body for every iteration before the next
    statement; within one statement the value is computed before it is stored. So a read
    sees an element before any iteration's write only when it is in the writing statement
    or in a statement that starts earlier (an ``if`` test before its branches).
    """
    r, w = _statement_of(ctx, read), _statement_of(ctx, write)
    if r is w:
        return True
    return (r.lineno, r.col_offset) < (w.lineno, w.col_offset)


def _statement_of(ctx, node):
    while node is not None and not isinstance(node, gast.stmt):
        node = ctx.parents.get(id(node))
    return node


def _find_reductions(ctx, info, body, stored):
    for name, stores in stored.items():
        if name in info.classes:
            continue
        updates, ops = [], set()
        for store in stores:
            stmt = _statement_of(ctx, store)
            op = _reduction_update(ctx, stmt, name)
            if op is None:
                break
            term = reduction_term(stmt, name)
            if op in ("or", "and") and not _evidently_boolean(ctx, term):
                break
            if op in ("add", "mul") and _is_sequence_value(ctx, term):
                break
            updates.append(stmt)
            ops.add(op)
        else:
            if len(ops) != 1:
                continue
            initial = _initial_values(ctx, info, name)
            if any(_is_sequence_value(ctx, v) for v in initial):
                continue
            if any(isinstance(u, gast.AugAssign) for u in updates) and any(
                    _view_base(ctx, v)[0] is not None for v in initial):
                continue  # `s = x[-1]; s += x[i]`: on an array, += writes into x as it goes
            update_ids = set()
            for stmt in updates:
                update_ids |= {id(n) for n in gast.walk(stmt)}
            stray = [n for n in _scope_nodes(body) if isinstance(n, gast.Name) and n.id == name
                     and id(n) not in update_ids]
            loop_ids = {id(n) for n in _scope_nodes([info.node])}
            aliased = [n for n in _scope_nodes(body) if isinstance(n, gast.Name) and n.id != name
                       and isinstance(n.ctx, gast.Load) and n.id not in stored
                       and (_alias_source(ctx, n, loop_ids) or ("",))[0] == name]
            if stray or aliased:
                continue
            info.reductions[name] = Reduction(name, ops.pop(), updates)
            info.classes[name] = REDUCTION


_COMPARE_DIRECTION = {gast.Gt: ("max", True), gast.GtE: ("max", False),
                      gast.Lt: ("min", True), gast.LtE: ("min", False)}
_MIRROR = {gast.Gt: gast.Lt, gast.GtE: gast.LtE, gast.Lt: gast.Gt, gast.LtE: gast.GtE}


def _find_arg_reductions(info, body, stored):
    """Finds argmax/argmin tracking: ``if v > best: best, idx = v, i`` (also as two assignments,
    with ``>=``, ``<``, ``<=``, or with ``best`` on the left of the comparison)."""
    for stmt in body:
        if not (isinstance(stmt, gast.If) and not stmt.orelse and isinstance(stmt.test, gast.Compare)
                and len(stmt.test.ops) == 1 and type(stmt.test.ops[0]) in _COMPARE_DIRECTION):
            continue
        left, op, right = stmt.test.left, type(stmt.test.ops[0]), stmt.test.comparators[0]
        if isinstance(left, gast.Name) and not isinstance(right, gast.Name):
            left, right, op = right, left, _MIRROR[op]  # best < v  ==  v > best
        if not isinstance(right, gast.Name):
            continue
        best = right.id
        assigned = _pairs_assigned(stmt.body)
        if assigned is None or len(assigned) != 2 or best not in assigned:
            continue
        (idx,) = set(assigned) - {best}
        term, index = assigned[best], assigned[idx]
        loaded = {n.id for part in (left, term, index) for n in _loaded_names(part)}
        if gast.dump(term) != gast.dump(left) or loaded & {best, idx} or \
                len(stored.get(best, ())) != 1 or len(stored.get(idx, ())) != 1:
            continue
        owned = {id(n) for n in gast.walk(stmt)}
        if any(isinstance(n, gast.Name) and n.id in (best, idx) and id(n) not in owned
               for n in _scope_nodes(body)):
            continue
        red_op, strict = _COMPARE_DIRECTION[op]
        info.reductions[best] = Reduction(best, red_op, [stmt])
        info.arg_reductions[idx] = ArgReduction(idx, best, red_op, strict, term, index, stmt)
        info.classes[best] = REDUCTION
        info.classes[idx] = ARG_REDUCTION


def _pairs_assigned(stmts) -> dict[str, gast.expr] | None:
    """``{name: value}`` for a block of plain assignments (``a, b = x, y`` or ``a = x; b = y``)."""
    found: dict[str, gast.expr] = {}
    for stmt in stmts:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1):
            return None
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, gast.Tuple) and isinstance(value, gast.Tuple) and \
                len(target.elts) == len(value.elts):
            pairs = zip(target.elts, value.elts)
        else:
            pairs = [(target, value)]
        for name, expr in pairs:
            if not isinstance(name, gast.Name) or name.id in found:
                return None
            found[name.id] = expr
    return found


def _find_derived(info, body, stored, targets):
    if info.space is None or info.space.kind not in ("range", "while", "enumerate"):
        return
    for name, stores in stored.items():
        if name in info.classes or name in targets or len(stores) != 1:
            continue
        stmt = next((s for s in body if any(n is stores[0] for n in gast.walk(s))), None)
        if stmt is None:
            continue  # not at the top level of the body
        step = None
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, (gast.Add, gast.Sub)):
            step = stmt.value
        elif (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.BinOp)
              and isinstance(stmt.value.op, (gast.Add, gast.Sub))
              and isinstance(stmt.value.left, gast.Name) and stmt.value.left.id == name):
            step = stmt.value.right
        if step is None or {n.id for n in _loaded_names(step)} & (set(stored) | targets):
            continue
        info.derived[name] = stmt
        info.classes[name] = DERIVED


def _exposed_reads(stmts, defined, assigned, out):
    """Must-define scan: records loads of ``assigned`` names not yet defined in the iteration.

    Returns the names definitely defined after ``stmts``. A branch ending in ``continue``,
    ``break`` or ``return`` does not fall through, so it defines everything.
    """
    everything = set(assigned)
    for stmt in stmts:
        if isinstance(stmt, (gast.Continue, gast.Break, gast.Return, gast.Raise)):
            _record(_loaded_names(stmt), defined, assigned, out)
            return everything
        if isinstance(stmt, gast.If):
            _record(_loaded_names(stmt.test), defined, assigned, out)
            left = _exposed_reads(stmt.body, set(defined), assigned, out)
            right = _exposed_reads(stmt.orelse, set(defined), assigned, out)
            defined = left & right
        elif isinstance(stmt, gast.For):
            _record(_loaded_names(stmt.iter), defined, assigned, out)
            inner = set(defined) | {n.id for n in gast.walk(stmt.target) if isinstance(n, gast.Name)}
            _exposed_reads(stmt.body, inner, assigned, out)
        elif isinstance(stmt, gast.While):
            _record(_loaded_names(stmt.test), defined, assigned, out)
            _exposed_reads(stmt.body, set(defined), assigned, out)
        elif isinstance(stmt, (gast.With, gast.AsyncWith)):
            for item in stmt.items:
                _record(_loaded_names(item.context_expr), defined, assigned, out)
                if item.optional_vars is not None:
                    defined |= {n.id for n in gast.walk(item.optional_vars) if isinstance(n, gast.Name)}
            defined = _exposed_reads(stmt.body, defined, assigned, out)
        elif isinstance(stmt, gast.AugAssign):
            _record(_loaded_names(stmt.value), defined, assigned, out)
            if isinstance(stmt.target, gast.Name):
                _record([stmt.target], defined, assigned, out)
                defined.add(stmt.target.id)
            else:
                _record(_loaded_names(stmt.target), defined, assigned, out)
        elif isinstance(stmt, (gast.Assign, gast.AnnAssign)):
            if stmt.value is not None:
                _record(_loaded_names(stmt.value), defined, assigned, out)
            targets = stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target]
            for target in targets:
                _record(_loaded_names(target), defined, assigned, out)
                defined |= {n.id for n in gast.walk(target)
                            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        else:
            _record(_loaded_names(stmt), defined, assigned, out)
    return defined


def _record(names, defined, assigned, out):
    for name in names:
        if name.id in assigned and name.id not in defined and name.id not in out:
            out[name.id] = name


def _classify_scalars(ctx, info, body, stored, targets, node_ids):
    for name in sorted(targets):  # a set: sorted, so the remarks come in a fixed order
        info.classes[name] = INDUCTION if name == (info.space.induction if info.space else None) else ITEM
        if name in stored:
            info.block("PF211", f"the loop variable `{name}` is reassigned in the body",
                       stored[name][0])
    if isinstance(info.node, gast.For):
        for store in gast.walk(info.node.target):
            if isinstance(store, gast.Name) and isinstance(store.ctx, gast.Store):
                outside = [u for u in ctx.users_of(store) if id(u) not in node_ids]
                if outside:
                    info.block("PF212", f"the loop variable `{store.id}` is used after the loop "
                               f"(line {outside[0].lineno}); it holds the last iteration's value",
                               outside[0])
    assigned = {n for n in stored if n not in info.classes}
    exposed: dict[str, gast.Name] = {}
    _exposed_reads(body, set(), assigned, exposed)
    for name in sorted(assigned):
        if name in exposed:
            read = exposed[name]
            write = stored[name][0]
            info.classes[name] = CARRIED
            info.dependences.append(f"{name}: read at line {read.lineno} before it is written "
                                    f"at line {write.lineno} (loop-carried)")
            hint = " (a recurrence: consider tf.scan)" if info.library != "numpy" else ""
            info.block("PF201", f"`{name}` is read at line {read.lineno} before it is written at "
                       f"line {write.lineno}, so each iteration needs the previous one's value"
                       f"{hint}", read)
            continue
        info.classes[name] = PRIVATE
        for store in stored[name]:
            outside = [u for u in ctx.users_of(store) if id(u) not in node_ids]
            if outside:
                info.block("PF212", f"`{name}` is used after the loop (line {outside[0].lineno}); "
                           "it holds only the last iteration's value", outside[0])
                break


def _fresh_value(ctx, value) -> bool:
    if isinstance(value, (gast.List, gast.Dict, gast.Set, gast.ListComp, gast.DictComp,
                          gast.SetComp, gast.Constant, gast.BinOp)):
        return True
    if isinstance(value, gast.Call):
        callee = ctx.imports.resolve(value.func)
        if callee in _FRESH_CALLS:
            return True
        return isinstance(value.func, gast.Attribute) and value.func.attr in ("copy", "astype")
    return False


def _through_shared_rows(ctx, access, sub, shared):
    """``access`` as the dependence test must see it when its list repeats one object.

    ``r = [[0.0] * m] * n`` makes every row ``r[i]`` the same list, so ``r[i][j]`` is element
    ``j`` of that one list whatever ``i`` is: the subscripts that select a shared object are
    dropped, and ``shared[id(new access)]`` keeps ``(sub, dropped subscripts, the repeating
    expression)`` for the remark. Other accesses come back as they are.
    """
    if len(access.dims) < 2 or not isinstance(sub, gast.Subscript):
        return access
    base = sub
    while isinstance(base, gast.Subscript):
        base = base.value
    positions, repeating = _repeated_positions(ctx, base, len(access.dims) - 1)
    if not positions:
        return access
    new = dataclasses.replace(access, dims=[d for k, d in enumerate(access.dims) if k not in positions])
    shared[id(new)] = (sub, [d for k, d in enumerate(access.dims) if k in positions], repeating)
    return new


def _shared_row_written(info, name, wlist, shared, variant) -> bool:
    """Blocks (PF203) when a write goes through a row of ``name`` that is one object repeated,
    selected by an index that changes between iterations: every iteration writes that object."""
    rows = [(w, shared[id(w)]) for w in wlist if id(w) in shared]
    if rows:
        info.dependences.append(f"{name}: its rows are one shared object (line {rows[0][1][2].lineno})")
    for w, (sub, dropped, repeating) in rows:
        if {n.id for d in dropped for n in _loaded_names(d)} & variant:
            info.block("PF203", f"`{w.base}`: its rows are one shared object (`"
                       f"{gast.unparse(repeating).strip()}` at line {repeating.lineno} repeats it), "
                       f"so `{gast.unparse(sub).strip()}` writes into that one object in every "
                       "iteration (build a new row for each index: `[... for _ in range(n)]`)", w.node)
            return True
    return False


def _repeated_positions(ctx, value, depth, hops=8):
    """Which subscripts of ``value[i0][i1]...[i(depth-1)]`` the object reached does not depend
    on, and the list expression that repeats it: ``[[0.0] * m] * n`` at depth 1 gives ``{0}``
    (every row is one list), as do ``[row] * n``, ``[row, row]`` and ``[row for _ in range(n)]``;
    ``[[0.0] * m for _ in range(n)]`` gives none (a new row each time). Names are followed to
    their bindings (all of them, when several reach); a shallow copy (``a[:]``, ``list(a)``,
    ``a.copy()``) holds ``a``'s rows."""
    if depth <= 0 or hops <= 0 or value is None:
        return set(), None
    if isinstance(value, gast.Name):
        found, repeating = set(), None
        for definition in ctx.definitions_of(value):
            more, where = _repeated_positions(ctx, _binding(ctx, definition.node)[1], depth, hops - 1)
            found, repeating = found | more, repeating or where
        return found, repeating
    copied = _shallow_copy_source(ctx, value)
    if copied is not None:
        return _repeated_positions(ctx, copied, depth, hops - 1)
    items = _repetition(value)
    if items is not None:
        repeated = True
    elif isinstance(value, gast.List):
        items = value.elts
        repeated = len(items) > 1 and all(isinstance(e, gast.Name) and e.id == items[0].id for e in items)
    elif isinstance(value, gast.ListComp) and len(value.generators) == 1:
        items = [value.elt]
        bound = {n.id for n in gast.walk(value.generators[0].target) if isinstance(n, gast.Name)}
        repeated = _same_each_time(value.elt, bound, depth - 1)
    else:
        return set(), None
    inner = [_repeated_positions(ctx, item, depth - 1, hops - 1) for item in items]
    below = set.intersection(*(p for p, _ in inner)) if inner else set()
    positions = ({0} if repeated else set()) | {p + 1 for p in below}
    return positions, (value if repeated else next((w for _, w in inner if w is not None), None))


def _shallow_copy_source(ctx, value):
    """``a`` when ``value`` is ``a[start:stop]``, ``list(a)``, ``copy.copy(a)`` or ``a.copy()``."""
    if isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice):
        return value.value
    if not isinstance(value, gast.Call) or value.keywords:
        return None
    if len(value.args) == 1 and ctx.imports.resolve(value.func) in ("builtins.list", "copy.copy"):
        return value.args[0]
    if not value.args and isinstance(value.func, gast.Attribute) and value.func.attr == "copy":
        return value.func.value
    return None


def _same_each_time(element, bound, depth) -> bool:
    """Whether the object ``depth`` subscripts below ``element`` is one and the same object each
    time a comprehension evaluates ``element`` (its target names are ``bound``): a name from
    outside it is, a list display, a repetition or a call builds a new one."""
    if isinstance(element, (gast.Name, gast.Attribute)):
        return not {n.id for n in gast.walk(element) if isinstance(n, gast.Name)} & bound
    if depth <= 0:
        return False
    if isinstance(element, gast.ListComp) and len(element.generators) == 1:
        inner = bound | {n.id for n in gast.walk(element.generators[0].target) if isinstance(n, gast.Name)}
        return _same_each_time(element.elt, inner, depth - 1)
    items = _repetition(element) or (element.elts if isinstance(element, gast.List) else [])
    return bool(items) and all(_same_each_time(item, bound, depth - 1) for item in items)


def _repetition(value):
    """The items of the list repetition ``[items] * n`` (or ``n * [items]``), else None."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult):
        return next((side.elts for side in (value.left, value.right) if isinstance(side, gast.List)), None)
    return None


def _check_subscripts(ctx, info, nodes, stored, targets):
    writes: dict[str, list[dependence.Access]] = {}
    reads: dict[str, list[dependence.Access]] = {}
    aug_read_ids: set[int] = set()
    shared: dict[int, tuple[gast.Subscript, list[gast.AST], gast.AST]] = {}  # see _through_shared_rows
    for node in nodes:
        if isinstance(node, (gast.Assign, gast.AugAssign)):
            tlist = node.targets if isinstance(node, gast.Assign) else [node.target]
            for target in tlist:
                for sub in gast.walk(target):
                    if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store):
                        flat = dependence.flatten_subscript(sub)
                        if flat is None:
                            if not isinstance(sub.value, gast.Attribute):
                                info.block("PF203", f"cannot model the subscripted write "
                                           f"`{gast.unparse(sub).strip()}`", node)
                            else:
                                info.block("PF206", f"writes into `{gast.unparse(sub.value).strip()}`, "
                                           "an attribute", node)
                            continue
                        aug = _aug_kind(node, sub)
                        if aug:
                            aug_read_ids |= _same_subscript_reads(node, sub)
                        access = dependence.Access(flat[0], flat[1], node, True, aug)
                        writes.setdefault(flat[0], []).append(_through_shared_rows(ctx, access, sub, shared))
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
            parent = ctx.parents.get(id(node))
            if isinstance(parent, gast.Subscript) and parent.value is node:
                continue  # the outer subscript of a chain is the access
            flat = dependence.flatten_subscript(node)
            if flat is not None:
                reads.setdefault(flat[0], []).append(dependence.Access(flat[0], flat[1], node))
    for name, tas in info.tensorarrays.items():
        for assign in tas:
            writes.setdefault(name, []).append(
                dependence.Access(name, [assign.value.args[0]], assign, True))
        for node in nodes:
            if (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                    and isinstance(node.func.value, gast.Name) and node.func.value.id == name
                    and node.func.attr != "write"):
                dims = [node.args[0]] if node.func.attr == "read" and node.args else [gast.Slice(None, None, None)]
                reads.setdefault(name, []).append(dependence.Access(name, dims, node))

    for name in {w.base for ws in writes.values() for w in ws if id(w) in shared} & set(reads):
        reads[name] = [_through_shared_rows(ctx, r, r.node, shared) for r in reads[name]]
    _merge_aliases(ctx, info, nodes, writes, reads, stored)
    variant = (set(stored) | {n for n in targets if n != (info.space.induction if info.space else None)}
               | _inner_targets(info))
    induction = info.space.induction if info.space and info.space.kind != "rows" else None
    step_sign = info.space.step_sign() if info.space else None
    for name, wlist in sorted(writes.items()):
        cls = info.classes.get(name)
        if cls in (PRIVATE, ITEM, INDUCTION) or name in stored and cls is None:
            stores = stored.get(name, [])
            fresh = all(_fresh_value(ctx, _binding(ctx, s)[1]) for s in stores) and stores
            if cls == ITEM or not fresh:
                info.block("PF203", f"writes through `{name}`, which may be a view of another "
                           "array (make a copy first)", wlist[0].node)
            continue
        if name in stored and name not in info.tensorarrays:
            continue  # rebound in the body: handled as a scalar
        info.classes.setdefault(name, INDEXED)
        if name not in info.tensorarrays:
            info.arrays[name] = wlist
        if _shared_row_written(info, name, wlist, shared, variant | targets):
            continue
        whole = next((w for n in info.aliases.get(name, {name})
                      if (w := _whole_array_use(ctx, nodes, n, info)) is not None), None)
        if whole is not None:
            info.dependences.append(f"{name}: used whole at line {whole.lineno} while elements "
                                    "are written")
            info.block("PF203", f"`{name}` is written element by element and also used whole "
                       f"(line {whole.lineno}), so iterations see one another's writes", whole)
            continue
        blocked_before = len(info.blockers)
        rlist = [r for r in reads.get(name, []) if id(r.node) not in aug_read_ids]
        only_aug = all(w.aug in ("add", "mul", "or", "and") for w in wlist) and not rlist \
            and len({w.aug for w in wlist}) == 1
        for w in wlist:
            if only_aug and dependence.separating_dim(w, induction or "", variant) is None:
                info.scatter_add = True
                info.dependences.append(f"{name}: `{w.aug}` updates may collide; a scatter-"
                                        f"{w.aug} is order-independent")
                continue
            for other in rlist + [o for o in wlist if o is not w]:
                if only_aug and other.write:
                    continue
                conflict = dependence.test_pair(w, other, induction, variant, step_sign)
                if conflict is None or conflict.kind == "anti" and (
                        other.write or runs_before(ctx, other.node, w.node)):
                    continue
                where = f"line {w.node.lineno}" + (
                    f" and line {other.node.lineno}" if other.node.lineno != w.node.lineno else "")
                info.dependences.append(f"{name}: {conflict.kind} dependence ({conflict.detail}) at {where}")
                if conflict.kind == "flow":
                    info.block("PF202", f"`{gast.unparse(other.node).strip()}` {conflict.detail} "
                               f"(`{w.base}` is written at line {w.node.lineno}): a loop-carried "
                               "dependence", other.node)
                elif conflict.kind == "anti":
                    info.block("PF202", f"`{gast.unparse(other.node).strip()}` {conflict.detail}, but "
                               f"runs after the write at line {w.node.lineno}: whole-array execution "
                               "would read the new value (statement order)", other.node)
                else:
                    info.block("PF203", f"`{name}`: {conflict.detail} ({where})", other.node)
                break
            else:
                if not rlist and len(wlist) == 1 and w.aug is None and \
                        dependence.separating_dim(w, induction or "", variant) is None:
                    varies = {n.id for d in w.dims for n in _loaded_names(d)} & (variant | {induction})
                    if varies:
                        info.block("PF203", f"`{name}`: the written index (line {w.node.lineno}) "
                                   "is computed from data, so two iterations may write the same "
                                   "element; only `+=`, `*=`, `|=`, `&=` updates are order-independent "
                                   "(a scatter-add)", w.node)
                    else:
                        info.block("PF203", f"`{name}`: every iteration writes the same element "
                                   f"(line {w.node.lineno})", w.node)
        wrapping = _wrapping_access(info, wlist + rlist, induction)
        if wrapping is not None and len(info.blockers) == blocked_before:
            text = gast.unparse(wrapping.node).strip().splitlines()[0]
            info.dependences.append(f"{name}: a negative index wraps around at line {wrapping.node.lineno}")
            info.block("PF203", f"`{text}` may index `{name}` below zero, which wraps around to "
                       "the end of the array, where other iterations write", wrapping.node)


_VIEW_METHODS = {"reshape", "view", "transpose", "swapaxes", "ravel", "squeeze", "__getitem__"}
_VIEW_CALLS = {"numpy.reshape", "numpy.transpose", "numpy.asarray", "numpy.ravel", "numpy.squeeze",
               "numpy.flip", "numpy.fliplr", "numpy.flipud", "numpy.rot90", "numpy.diagonal",
               "numpy.broadcast_to", "numpy.asanyarray", "numpy.ascontiguousarray",
               "numpy.expand_dims", "numpy.swapaxes", "numpy.moveaxis", "numpy.atleast_1d",
               "numpy.atleast_2d"}
_VIEW_ATTRS = {"T", "real", "imag", "flat", "mT"}


def _view_base(ctx, value) -> tuple[gast.Name | None, bool]:
    """``(base, is_view)`` when ``value`` is another array's name (``b = a``) or may be a view
    of it (``a[1:]``, ``a.T``, ``a.reshape(...)``, ``np.asarray(a)``); ``(None, False)`` else."""
    if isinstance(value, gast.Name):
        return value, False
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        return value.value, True
    if isinstance(value, gast.Attribute) and value.attr in _VIEW_ATTRS and isinstance(value.value, gast.Name):
        return value.value, True
    if isinstance(value, gast.Call):
        func = value.func
        resolved = ctx.imports.resolve(func)
        if resolved is not None:  # a module function: `np.reshape(a, -1)` views `a`
            if resolved in _VIEW_CALLS and value.args and isinstance(value.args[0], gast.Name):
                return value.args[0], True
            return None, False
        no_copy = any(k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value is False
                      for k in value.keywords)
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and (
                func.attr in _VIEW_METHODS or func.attr == "astype" and no_copy):
            return func.value, True
    return None, False


def _alias_source(ctx, name_node, loop_ids):
    """Follows single reaching definitions outside the loop through ``b = a`` and view bindings.

    Returns ``(root name, exact, line, root node)``: ``exact`` when every step was a plain
    rebinding (the two names are the same array, element for element), ``line`` the binding
    nearest the loop; None when ``name_node`` is bound to a value of its own.
    """
    current, exact, line = name_node, True, None
    for _ in range(8):  # alias chains in real code are short; this also guards cycles
        defs = _local_definitions(ctx, current)
        if defs is None or len(defs) != 1 or id(defs[0].node) in loop_ids:
            break
        stmt, value = _binding(ctx, defs[0].node)
        base, view = _view_base(ctx, value)
        if base is None:
            break
        exact, line, current = exact and not view, line or stmt.lineno, base
    if current is name_node:
        return None
    return current.id, exact, line, current


def _origin(ctx, name_node, loop_ids) -> tuple[str, int | None]:
    """Where the array a name refers to at the loop comes from: ``fresh`` (allocated by a
    known constructor or computed), ``argument``, or ``unknown``; with the binding's line.
    A module-level name is ``unknown``: any function may have rebound it."""
    defs = _local_definitions(ctx, name_node)
    if not defs:
        return "unknown", None
    kinds, line = set(), None
    for definition in defs:
        node = definition.node
        if id(node) in loop_ids:
            return "unknown", getattr(node, "lineno", None)
        if isinstance(ctx.parents.get(id(node)), gast.arguments):
            kinds.add("argument")
            continue
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            kinds.add("fresh")
            continue
        stmt, value = _binding(ctx, node)
        line = getattr(stmt, "lineno", None) or getattr(node, "lineno", None)
        contained = isinstance(value, (gast.List, gast.Tuple, gast.Set, gast.Dict)) and any(
            not isinstance(n, gast.Constant) for n in gast.iter_child_nodes(value)
            if not isinstance(n, (gast.Load, gast.Store)))
        kinds.add("fresh" if value is not None and _fresh_value(ctx, value) and not contained
                  else "unknown")
    if "unknown" in kinds:
        return "unknown", line
    return ("argument" if "argument" in kinds else "fresh"), line


def _local_definitions(ctx, name_node):
    """beniget's reaching definitions, or None for a name defined outside the function (the
    outline does not hold those; the callers then assume the least)."""
    try:
        return ctx.definitions_of(name_node)
    except WholeModuleNeeded:
        return None


def _is_argument(ctx, name_node) -> bool:
    defs = _local_definitions(ctx, name_node)
    return bool(defs) and any(isinstance(ctx.parents.get(id(d.node)), gast.arguments) for d in defs)


def _merge_aliases(ctx, info, nodes, writes, reads, stored):
    """Puts accesses through two names of one array under one name, so the dependence test sees
    them together; blocks (PF203) when one name may be a view of the other (the mapping between
    their elements is not modelled). Records arrays that are arguments written in place."""
    loop_ids = {id(n) for n in _scope_nodes([info.node])}
    first: dict[str, gast.Name] = {}
    for node in nodes:
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in first:
            first[node.id] = node
    groups: dict[str, set[str]] = {}
    views: set[str] = set()  # names that may be a view of another array
    traced: dict[str, gast.Name] = {}  # name -> the name whose binding says where its array is from
    for name in sorted(set(writes) | set(reads)):
        if name in stored or name not in first:
            continue
        source = _alias_source(ctx, first[name], loop_ids)
        if source is None:
            groups.setdefault(name, set()).add(name)
            continue
        root, exact, line, root_node = source
        groups.setdefault(root, set()).add(name)
        if not exact:
            views.add(name)
            traced[name] = root_node
            continue
        info.dependences.append(f"{name}: the same array as `{root}` (bound at line {line})")
        for table in (writes, reads):
            if name in table:
                table.setdefault(root, []).extend(table.pop(name))
        traced.setdefault(root, root_node)
        first.setdefault(root, first[name])
    for root, names in groups.items():
        info.aliases[root] = names
        viewing = {n for n in names & views if n != root and n in first}
        if len(names) > 1 and viewing and any(n in writes for n in names):
            view = min(viewing)
            info.dependences.append(f"{view}: may be a view of `{root}`")
            info.block("PF203", f"`{view}` may be a view of `{root}`, and one of them is written "
                       "while the other is used, so iterations may see one another's writes "
                       "(make a copy with `.copy()`)", first[view])
    for name in writes:
        node = first.get(name)
        if node is not None and _is_argument(ctx, node) and name not in info.mutated_args:
            info.mutated_args.append(name)
    # Bindings pforge cannot follow (`b = helper(a)`, `b = d["k"]`) may share memory with any
    # array that is not freshly allocated; arguments are assumed distinct from one another.
    origins = {name: _origin(ctx, traced.get(name, first[name]), loop_ids)
               for name in set(writes) | set(reads) if name in first and name not in stored}
    for name in sorted(writes):
        if name not in origins:
            continue
        for other in sorted(origins):
            if other == name or info.aliases.get(other) and name in info.aliases[other]:
                continue
            pair = {origins[name][0], origins[other][0]}
            if "unknown" in pair and "fresh" not in pair:
                unknown, partner = (name, other) if origins[name][0] == "unknown" else (other, name)
                line = origins[unknown][1]
                at = f" at line {line}" if line else ""
                info.dependences.append(f"{unknown}: bound{at} to a value that may share memory "
                                        f"with `{partner}`")
                info.block("PF203", f"`{unknown}` is bound{at or ' outside the function'} to a value "
                           f"pforge cannot trace, which may share memory with `{partner}` (bind a "
                           "copy, or a fresh array, to vectorize)", first[unknown])
                return


def _lowest_index(space) -> int | None:
    """The smallest value the induction variable takes, when it is a known constant."""
    if space.kind == "enumerate":
        return 0 if space.enumerate_start is None else constant_int(space.enumerate_start)
    if space.kind == "while":
        return constant_int(space.start) if space.start is not None else 0
    step = constant_int(space.step) if space.step is not None else 1
    if step is None:
        return None
    if step > 0:
        return constant_int(space.start) if space.start is not None else 0
    stop = constant_int(space.stop)
    return None if stop is None else stop + 1


def _wrapping_access(info, accesses, induction):
    """An access ``a[c*i + k]`` whose index may be negative in some iteration (Python's
    negative indices count from the end, outside the affine model), or None."""
    if info.space is None or induction is None:
        return None
    lowest = _lowest_index(info.space)
    for access in accesses:
        for index in access.dims:
            if isinstance(index, gast.Slice):
                continue
            form = dependence.Affine.of(index)
            if form is None or form.coeff(induction) == 0 or form.symbols() != {induction}:
                continue
            c = form.coeff(induction)
            if c < 0 or lowest is None and form.const < 0 or \
                    lowest is not None and c * lowest + form.const < 0:
                return access
    return None


def _check_inplace_views(ctx, info, nodes, stored):
    """``r = x[i]; r += e``: on a NumPy array ``+=`` updates in place, so a private name bound
    to a view writes into the array it views (TensorFlow tensors are immutable: a rebinding)."""
    if info.library == "tensorflow":
        return
    for node in nodes:
        if not (isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name)
                and info.classes.get(node.target.id) == PRIVATE):
            continue
        name = node.target.id
        for store in stored.get(name, []):
            stmt, value = _binding(ctx, store)
            if stmt is not None and stmt is not node and not _fresh_value(ctx, value):
                info.block("PF203", f"`{name}` is bound to `{gast.unparse(value).strip()}` (line "
                           f"{stmt.lineno}), which may be a view, and `{name} {_op_text(node.op)}= "
                           "...` updates it in place (write `" + name + " = " + name
                           + f" {_op_text(node.op)} ...`)", node)
                break


def _op_text(op) -> str:
    return {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
            gast.Mod: "%", gast.Pow: "**", gast.BitOr: "|", gast.BitAnd: "&", gast.BitXor: "^",
            gast.MatMult: "@", gast.LShift: "<<", gast.RShift: ">>"}.get(type(op), "?")


def _whole_array_use(ctx, nodes, name, info):
    """A load of ``name`` that is not the base of a subscript (``x.sum()``, ``f(x)``), if any."""
    for node in nodes:
        if not (isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load)):
            continue
        parent = ctx.parents.get(id(node))
        if isinstance(parent, gast.Subscript) and parent.value is node:
            continue
        if name in info.tensorarrays and isinstance(parent, gast.Attribute) and parent.attr in ("write", "read"):
            continue
        return node
    return None


def _aug_kind(stmt, sub):
    if isinstance(stmt, gast.AugAssign):
        return _AUG_OPS.get(type(stmt.op))
    update = spelled_out_update(stmt)
    return _AUG_OPS[type(update[0])] if update is not None else None


def spelled_out_update(stmt) -> tuple[gast.operator, gast.expr] | None:
    """``a[e] = a[e] + v`` (or ``v + a[e]``, or ``*``) as the augmented update ``(op, v)``.

    The loop reads ``a[e]`` afresh in every iteration, so with repeated indices the updates
    accumulate exactly as ``a[e] += v`` does; a rewrite must combine them (a scatter-add), not
    buffer them (``a[idx] = a[idx] + v`` keeps one update per slot). Both backends ask this
    function, so the two spellings cannot be lowered differently.

    Returns:
        The operator node and the term, or None when ``stmt`` is not such an update (the
        other operand reads ``a`` too, or the operator is not ``+``/``*``).
    """
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], gast.Subscript)):
        return None
    sub, value = stmt.targets[0], stmt.value
    if not (isinstance(value, gast.BinOp) and type(value.op) in (gast.Add, gast.Mult)):
        return None
    for side in (value.left, value.right):
        if isinstance(side, gast.Subscript) and gast.dump(side.value) == gast.dump(sub.value) \
                and gast.dump(side.slice) == gast.dump(sub.slice):
            other = value.right if side is value.left else value.left
            if not any(isinstance(n, gast.Subscript) and gast.dump(n.value) == gast.dump(sub.value)
                       for n in gast.walk(other)):
                return value.op, other
    return None


def contribution(stmt, name) -> gast.expr:
    """What one reduction update combines into ``name``, with its sign.

    ``s -= t`` and ``s = s - t`` contribute ``-t``; ``s += a - b`` contributes ``a - b`` as
    written (its subtraction is inside the term). Backends that sum contributions ask this
    function rather than the statement's spelling.

    Returns:
        A new node (the term itself, or ``-(term)``).
    """
    term = reduction_term(stmt, name)
    op = stmt.op if isinstance(stmt, gast.AugAssign) else getattr(stmt.value, "op", None)
    if isinstance(op, gast.Sub):
        return gast.UnaryOp(op=gast.USub(), operand=term)
    return term


def _same_subscript_reads(stmt, sub):
    if isinstance(stmt, gast.AugAssign):
        return set()
    return {id(n) for n in gast.walk(stmt.value) if isinstance(n, gast.Subscript)
            and gast.dump(n.value) == gast.dump(sub.value) and gast.dump(n.slice) == gast.dump(sub.slice)}


def _inner_targets(info):
    names = set()
    for child in info.walk():
        if child is not info and child.space is not None:
            names |= child.space.target_names()
    return names


def _check_calls(ctx, info, nodes):
    private = {n for n, c in info.classes.items() if c == PRIVATE}
    written = set(info.arrays) | {n for n, c in info.classes.items()
                                  if c in (CARRIED, REDUCTION, COLLECTOR, INDEXED, ARG_REDUCTION)}
    for node in nodes:
        if not isinstance(node, gast.Call):
            continue
        func = node.func
        if isinstance(func, gast.Name) and written:
            callee = ctx.local_definition(func)
            if callee is not None:
                reads = {n.id for n in gast.walk(callee) if isinstance(n, gast.Name)
                         and isinstance(n.ctx, gast.Load)} & written
                if reads:
                    name = min(reads)
                    info.dependences.append(f"{name}: read by `{func.id}` (line {callee.lineno}) "
                                            "while the loop writes it")
                    info.block("PF203", f"calls `{func.id}`, which reads `{name}` that the loop "
                               "writes, so iterations may see one another's writes", node)
                    continue
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            receiver = func.value.id
            if func.attr == "append" and receiver in info.collectors:
                continue
            if func.attr == "write" and receiver in info.tensorarrays:
                continue
            if receiver in private and func.attr in effects.MUTATING_METHODS:
                continue  # mutates a value private to the iteration
        effect = ctx.effects.classify(node)
        if effect.kind == effects.PURE:
            name = ctx.imports.resolve(func) or ""
            if name in ("builtins.int", "builtins.float", "builtins.bool"):
                info.host_casts.append(node)
            continue
        if effect.kind == effects.EFFECT:
            if isinstance(func, gast.Attribute) and func.attr == "append":
                info.block("PF205", f"appends to `{gast.unparse(func.value).strip()}`, which is not a "
                           "collector (an empty list before the loop, consumed once after it by "
                           "tf.stack / tf.concat / np.array)", node)
            else:
                info.block("PF205", f"calls {effect.what}, a side effect whose order the loop "
                           "fixes", node)
        elif effect.kind == effects.RANDOM and ctx.waived(node, "random-ok"):
            info.random_draws.append(node)  # opted in: the batch draws other numbers
        elif effect.kind == effects.RANDOM:
            info.block("PF208", f"draws random numbers ({effect.what}); a batched draw gives "
                       "different numbers (add `# pforge: random-ok` to the line to accept that)", node)
        elif effect.kind == effects.HOST:
            if info.library == "numpy":
                continue
            info.block("PF209", f"`{gast.unparse(node).strip()}` converts a tensor to a Python "
                       "value, which graph code cannot do", node)
        elif effect.kind == effects.UNKNOWN and not ctx.waived(node):
            info.block("PF210", f"calls `{effect.what}`, whose purity is unknown; if it has no side "
                       "effects, add `# pforge: pure` to the line", node)


#: Plain numbers that belong to no library: ``best = -np.inf`` does not make a loop a NumPy loop.
NEUTRAL_CONSTANTS = {"numpy.inf", "numpy.nan", "numpy.pi", "numpy.e", "numpy.newaxis",
                      "math.inf", "math.nan", "math.pi", "math.e"}


def _detect_library(ctx, info, nodes):
    extra = [n for c in info.collectors.values() for part in (c.consumer, c.init)
             if part is not None for n in gast.walk(part)]
    libraries = set()
    for node in list(nodes):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id in ctx.functions:
            extra += list(gast.walk(ctx.functions[node.func.id]))  # one level into local callees
    for node in list(nodes) + extra:
        if isinstance(node, gast.Attribute) or isinstance(node, gast.Name):
            if isinstance(ctx.parents.get(id(node)), gast.Attribute):
                continue  # `np` in `np.inf`: the attribute decides
            name = ctx.imports.resolve(node) or ""
            if name in NEUTRAL_CONSTANTS:
                continue
            if name.startswith("tensorflow"):
                libraries.add("tensorflow")
            elif name.startswith("numpy"):
                libraries.add("numpy")
    for name in [*info.reductions, *info.arrays]:
        libraries |= _definition_libraries(ctx, info, name)
    for name in info.tensorarrays:
        libraries.add("tensorflow")
    if info.form == "tf.map_fn":
        libraries.add("tensorflow")
    if "numpy" in libraries:
        info.library = "numpy" if "tensorflow" not in libraries else "mixed"
    elif "tensorflow" in libraries:
        info.library = "tensorflow"
    # A host conversion is only a blocker for TensorFlow code.
    if info.library == "numpy":
        info.blockers = [b for b in info.blockers if b.code != "PF209"]


def _definition_libraries(ctx, info, name):
    """Libraries named where ``name`` is initialised before the loop (``s = tf.constant(0.)``)."""
    found = set()
    if info.function is None:
        return found
    for node in gast.walk(info.function):
        if isinstance(node, gast.Assign) and node.lineno < info.node.lineno and any(
                isinstance(t, gast.Name) and t.id == name for t in node.targets):
            for sub in gast.walk(node.value):
                if not isinstance(sub, (gast.Name, gast.Attribute)) or \
                        isinstance(ctx.parents.get(id(sub)), gast.Attribute):
                    continue
                resolved = ctx.imports.resolve(sub)
                if resolved in NEUTRAL_CONSTANTS:
                    continue
                if resolved and resolved.startswith("tensorflow"):
                    found.add("tensorflow")
                elif resolved and resolved.startswith("numpy"):
                    found.add("numpy")
    return found
