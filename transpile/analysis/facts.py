"""What the analyses record and share: the name classes, the :class:`LoopInfo` of a loop level
with its collectors and reductions, and the :class:`ModuleContext` that answers def-use
questions (beniget's chains) for every loop of a module."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import beniget
import gast

from pforge.transpile import dependence, effects
from pforge.transpile.analysis.nodes import _binding
from pforge.transpile.frontend import ImportMap, SourceText, position, source_lines
from pforge.transpile.remarks import Remark
from pforge.transpile.spaces import Space

INVARIANT, INDUCTION, ITEM, PRIVATE = "invariant", "induction", "item", "private"
COLLECTOR, INDEXED, REDUCTION, CARRIED, DERIVED, ARG_REDUCTION, SCAN, WRAPAROUND, PACK = (
    "collector", "indexed output", "reduction", "carried", "derived induction", "arg reduction", "scan",
    "wrap-around", "pack counter")

#: ``try`` and ``try ... except*`` (gast has TryStar from 0.5.4 on).
TRY_STATEMENTS = tuple(getattr(gast, name) for name in ("Try", "TryStar") if hasattr(gast, name))

#: The pseudo-name of the list a comprehension builds (it is a collector with no name).
COMPREHENSION = "<comprehension>"


@dataclass
class Collector:
    """A list built by ``append`` in the loop and consumed once after it, or (``extend``) any
    list made before the loop that the loop only appends to.

    Attributes:
        init: the statement that binds the list before the loop (None for a comprehension).
        appends: the ``name.append(e)`` calls in the body (possibly under ``if``).
        consumer: the call after the loop (``tf.stack(name)``) and its ``kind`` (None and ""
            for a comprehension whose list is used as a list): ``stack`` or ``concat``, ``array``
            (a NumPy function reading the list as an array) or ``list`` (any other one use, the
            consumer then being that use of the name), or ``extend`` (no consumer: a list with
            items before the loop, or used more than once after it, which the batched code
            extends with the items the loop appends), or ``nested`` (the list is appended, as
            a list, to a collector of the loop around it: a row of that collector's items,
            batched only with it).
        conditional: some append runs only under an ``if`` in this level's body.
        backwards: the consumer reads the list reversed (``tf.stack(rows[::-1])``, a stack or an
            array read only): the batched value, reversed along the loop axis.
        prepends: every item goes to the front of the list (``rows.insert(0, e)``, rewards-to-go
            walking the rewards backwards), a stack or an array read only: the list holds the
            items last first, the batched value reversed along the loop axis.
    """

    name: str
    init: gast.stmt
    appends: list[gast.Call]
    consumer: gast.Call
    kind: str
    conditional: bool = False
    backwards: bool = False
    prepends: bool = False


@dataclass
class Reduction:
    """``name ⊕= term`` in every store of ``name`` in the body; ``op`` is add, mul, max, min, or, and."""

    name: str
    op: str
    updates: list[gast.stmt]


@dataclass
class Pack:
    """A pack (stream compaction, :mod:`~pforge.transpile.analysis.packs`): the ``if`` statement
    ``stmt`` holds ``counter += 1`` (``increment``) and ``array[counter] = v`` (``write``), the
    write first where ``write_first`` (it then writes at the counter's value before the
    increment, ``j0``, ``j0 + 1``, ...; else at the value after it, from ``j0 + 1``)."""

    counter: str
    array: str
    stmt: gast.If
    write: gast.Assign
    increment: gast.AugAssign
    write_first: bool


@dataclass
class Scan:
    """``name ⊕= term``, the only store of ``name``, a statement of the body itself, with other
    reads of ``name`` in the body: a prefix scan (Blelloch, "Prefix sums and their
    applications", 1990). A read after ``update`` sees the running value with this iteration's
    term (inclusive), a read before it the value without (exclusive: ``exclusive`` is True when
    there is one; the term then reads nothing the body binds, so it is known first). A
    first-order linear recurrence ``s = a * s + b`` is one too (``op`` ``linear``): the
    affine maps ``s -> a * s + b`` compose associatively (Blelloch 1990, section 1.4), and a
    linear recurrence need not be read in the body (``s`` after the loop is its value)."""

    name: str
    op: str
    update: gast.stmt
    exclusive: bool
    #: for ``op == "linear"`` (``s = a * s + b``, a first-order linear recurrence): ``a`` and
    #: ``b`` with their signs (``s = b - a * s`` gives ``-(a)``)
    coefficient: gast.expr | None = None
    offset: gast.expr | None = None
    #: for an array recurrence put in scalar-replaced form
    #: (:func:`~pforge.transpile.analysis.recurrences.carried_elements`): the array whose
    #: elements the running value carries, and the element before the loop's first write (the start)
    array: str | None = None
    element: gast.expr | None = None
    #: the read it replaces, ``a[i - 1]`` (what a remark names)
    read: str | None = None

    @property
    def spelling(self) -> str:
        """How a linear update combines ``a``, ``s`` and ``b``: ``a * s + b``, ``a * s - b``
        (the offset carries the sign) or ``b - a * s`` (the coefficient does)."""
        if _negated(self.offset):
            return "a * s - b"
        return "b - a * s" if _negated(self.coefficient) else "a * s + b"

    @property
    def parts(self) -> tuple[gast.expr, gast.expr]:
        """``a`` and ``b`` of a linear update as written, without the sign of :attr:`spelling`."""
        return tuple(p.operand if _negated(p) else p for p in (self.coefficient, self.offset))

    @property
    def reassociated(self) -> bool:
        """Whether ``a`` gathers factors the update multiplies in another order
        (``gamma * s * mask[t]``: ``a`` is ``gamma * mask[t]``, its product with ``s`` rounds
        otherwise than the loop's)."""
        return self.op == "linear" and getattr(self.parts[0], "pforge_reassociated", False)


def _negated(node) -> bool:
    """A sign :func:`~pforge.transpile.analysis.reductions._linear_update` folded into a part
    (``b - a * s``); a minus written on the part itself (``-a[i] * s``) is the part's own,
    computed in its dtype (a uint8 ``-a[i]`` wraps, helper-38)."""
    return isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and getattr(node, "pforge_folded", False)


@dataclass
class ArgReduction:
    """``if v > best: best, idx = v, i``: ``idx`` tracks where the ``max`` (or ``min``) reduction
    of ``value`` was reached. ``strict`` (``>``/``<``) keeps the first such iteration, ``>=``/``<=``
    the last; ``index`` is the expression recorded (usually the loop index). With no index
    (``if v > best: best = v``), ``name`` and ``index`` are None and the entry is keyed by
    ``value``: a max or min reduction that NaN terms never win."""

    name: str | None
    value: str
    op: str
    strict: bool
    term: gast.expr
    index: gast.expr | None
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
    #: derived induction variables (``j += c``, each ``c`` invariant, at the top of the body, once
    #: or several times per iteration: TSVC's s127): name -> its updates in body order
    derived: dict[str, tuple[gast.stmt, ...]] = field(default_factory=dict)
    #: wrap-around variables (Allen & Kennedy, section 5.5): ``w = E`` last in the body, read
    #: before it, ``E`` computed from the loop index and invariants only: each iteration reads
    #: the previous one's ``E`` (the first one the value before the loop). Name -> that statement.
    wraparound: dict[str, gast.stmt] = field(default_factory=dict)
    scans: dict[str, Scan] = field(default_factory=dict)
    #: packs (``if t: j += 1; a[j] = v``): counter -> :class:`Pack`
    packs: dict[str, Pack] = field(default_factory=dict)
    dependences: list[str] = field(default_factory=list)
    blockers: list[Remark] = field(default_factory=list)
    children: list["LoopInfo"] = field(default_factory=list)
    library: str = "python"
    has_tape: bool = False
    scatter_add: bool = False
    idempotent: set[str] = field(default_factory=set)  # arrays whose every write stores one constant
    host_casts: list[gast.Call] = field(default_factory=list)
    aliases: dict[str, set[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: conditions under which the loop has no dependence the analysis could not rule out
    #: statically (``k >= n`` for ``a[i + k] = a[i]``): the rewrite runs only where they
    #: hold, the loop as written elsewhere (run-time dependence checks, as LLVM's
    #: LoopAccessAnalysis versions a loop)
    runtime_checks: list[gast.expr] = field(default_factory=list)
    form: str = "loop"
    array_consumer: bool = False
    random_draws: list[gast.Call] = field(default_factory=list)
    mutated_args: list[str] = field(default_factory=list)
    snapshots: dict[int, str] = field(default_factory=dict)
    #: names that helpers defined in the function, called by the loop, read from it (closures)
    helper_reads: set[str] = field(default_factory=set)
    #: privates used after the loop -> a use there (:func:`classes.check_live_out`)
    live_out: dict[str, gast.Name] = field(default_factory=dict)
    #: of those, the ones bound to a value of the loop's invariants (the last value is that)
    live_invariants: set[str] = field(default_factory=set)
    #: of those, the others bound once by a statement every iteration runs: after the loop they
    #: hold the last iteration's value (OpenMP's ``lastprivate``; scalar expansion, then the
    #: last element copied out: Allen and Kennedy 2001, section 5.5)
    live_last: set[str] = field(default_factory=set)
    #: of those, the ones bound once, under ``if`` tests only, and read nowhere in the body
    #: (``if a[i] < 0: j = i``): after the loop they hold the value of the last iteration
    #: whose tests held (TSVC s331; a conditional ``lastprivate``) -> that binding
    live_conditional: dict[str, gast.Assign] = field(default_factory=dict)
    #: names of the loop's target used after it: the loop leaves them its last iteration's
    #: index or row (:func:`classes._last_target`)
    live_targets: set[str] = field(default_factory=set)
    #: names the body reads whole, bound before the loop to an element selection of an array
    #: it writes (``x0 = x[0]``): a number where the indices select one element (a copy),
    #: else a view the writes change, which only the ranks tell -> the written array's name
    element_reads: dict[str, str] = field(default_factory=dict)
    #: names the body reads whole, bound before the loop by a binding pforge cannot follow (a
    #: call's result, a global): compared at run time with each array the loop writes
    untraced_reads: set[str] = field(default_factory=set)

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
    its crashes on ``case None:`` and on a ``global`` statement at the module's top level."""

    def warn(self, msg, node):
        pass

    def visit_Global(self, node):
        # `global x` at a module's top level is legal and does nothing; beniget (0.5) records it
        # as a global of the module scope and then fails its own count of the module's names
        if len(self._globals) > 1:
            super().visit_Global(node)

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
        self.lines = source_lines(source.text)
        self._chains: beniget.DefUseChains | None = None
        self._use_def: dict | None = None
        #: Whether a backend may compute a sum in another order than the loop (an unsafe fix,
        #: ``LoopRewrite.unsafe``): ``transpile_source(unsafe=...)`` sets it.
        self.reassociate = False
        #: Whether a backend may also trade precision for speed and memory where the trade is
        #: the expert's usual one (``|a - b|**2`` expanded into a matrix product): an unsafe fix,
        #: only on request (``transpile_source(fast_math=True)``, ``--fast-math``).
        self.fast_math = False
        #: Bytes the largest value a NumPy rewrite computes for many iterations at once may
        #: hold before its outermost level is strip-mined (``transpile_source(memory_bound=)``);
        #: None: never.
        self.memory_bound: int | None = None
        #: The kinds of one call signature's arguments (``"f.x"`` -> ``("ndarray", "<f8", 2, ())``,
        #: :mod:`pforge.transpile.specialize`), which decide some run-time checks; None: unknown
        #: (``transpile_source(kinds=...)``, given by the staged decorator).
        self.kinds: dict[str, tuple] | None = None
        #: what may make a floating-point error raise in the module's text (a node), None where
        #: nothing does, False before the direct backend first looks (its ``_raising_errstate``)
        self.raising_setting = False

    @functools.cached_property
    def bound_names(self) -> frozenset[str]:
        """Names the module binds to a value anywhere: by an assignment, a ``for`` or ``with``
        target, or as a parameter (not by a ``def``, a ``class`` or an import alone)."""
        return frozenset(n.id for n in gast.walk(self.tree) if isinstance(n, gast.Name)
                         and isinstance(n.ctx, (gast.Store, gast.Param)))

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
