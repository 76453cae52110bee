"""If-conversion, decided once: masks, blends with explicit old values, and masked outputs.

Both printers execute both branches of a per-iteration ``if`` for every iteration and merge
what they bound (predication; Allen & Kennedy, "Optimizing Compilers for Modern
Architectures", ch. 7). What is merged, from which values, and how each output is masked
is decided here, so the two printers cannot decide it differently:

- a name bound in a branch is **blended** after the ``if``: ``where(test, then, else)``, where
  a path that does not bind it supplies the name's **old value** (its value before the
  ``if``), unless the name is local to the branch that binds it (nothing outside reads it);
- a **reduction** updated in a branch is not blended: its term is masked with the operator's
  identity where the test is false, and the running value flows from the first branch into
  the second (``s += a`` in one branch and ``s += b`` in the other sum both);
- an **append** in one branch is a filter (the mask drops the other iterations); one in each
  branch is a select;
- the tests of an ``if``/``elif`` chain whose branches write what a test reads are
  **hoisted**: computed once before the first branch, as the loop evaluates each test before
  its branch writes.
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from pforge.transpile.analysis import PRIVATE, LoopInfo, appended_item, read_outside


@dataclass(frozen=True)
class BlendDecision:
    """``name = where(test, then, otherwise)``; each side is ``"branch"`` or ``"old"``."""

    name: str
    then: str
    otherwise: str


@dataclass(frozen=True)
class OutputMerge:
    """How an output updated under the ``if`` is masked.

    ``how``: ``select`` (appended in both branches), ``filter`` (appended in one branch:
    ``kept_when`` says which), ``masked`` (a reduction term, the identity where its branch
    does not run).
    """

    name: str
    how: str
    kept_when: bool = True


@dataclass(frozen=True)
class IfConversion:
    """The if-conversion of one ``if`` statement (its ``elif`` links are ``if``s of their own).

    Attributes:
        stmt: the ``if``.
        chain: the ``if`` and its ``elif`` links, in order.
        hoisted: the chain's tests are computed before its first branch.
        blends: the names merged after the ``if``, sorted.
        local: names bound on one path only and read nowhere else: never merged.
        flows: reductions updated under the ``if``: masked, not blended; the running value
            flows from one branch to the next.
        outputs: appends under the ``if``, with how each is masked.
    """

    stmt: gast.If
    chain: tuple[gast.If, ...]
    hoisted: bool
    blends: tuple[BlendDecision, ...]
    local: frozenset[str]
    flows: frozenset[str]
    outputs: tuple[OutputMerge, ...]


def if_conversion(root: LoopInfo, level: LoopInfo, stmt: gast.If) -> IfConversion:
    """Decides the if-conversion of ``stmt``, an ``if`` in the body of ``level`` (a level of the
    nest rooted at ``root``)."""
    chain = [stmt]
    while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], gast.If):
        chain.append(chain[-1].orelse[0])
    tested = set().union(*(_loads(link.test) for link in chain))
    hoisted = bool(tested & written(stmt))
    masked = _masked_outputs(root, stmt)
    then_bound = _stores(stmt.body) - masked
    else_bound = _stores(stmt.orelse) - masked
    local = branch_locals(level, stmt)
    blends = []
    for name in sorted(then_bound | else_bound):
        if name in local and not (name in then_bound and name in else_bound):
            continue  # bound on one path and read only there: nothing to blend
        blends.append(BlendDecision(name, "branch" if name in then_bound else "old",
                                    "branch" if name in else_bound else "old"))
    outputs = []
    then_appends, else_appends = _appended(stmt.body), _appended(stmt.orelse)
    for name in sorted(then_appends | else_appends):
        if name in then_appends and name in else_appends:
            outputs.append(OutputMerge(name, "select"))
        else:
            outputs.append(OutputMerge(name, "filter", kept_when=name in then_appends))
    for name in sorted(masked & (_stores(stmt.body) | _stores(stmt.orelse))):
        outputs.append(OutputMerge(name, "masked"))
    return IfConversion(stmt, tuple(chain), hoisted, tuple(blends), frozenset(local),
                        frozenset(masked), tuple(outputs))


def branch_locals(info: LoopInfo, stmt: gast.If) -> set[str]:
    """Names bound under ``stmt`` that nothing in the loop body reads outside it.

    Such a name (``if c: p = f(x[i]); out[i] = p``) needs no merge after the ``if``: the
    other path may never bind it, and merging it with its "old value" would read a name
    that was never bound (``UnboundLocalError`` in the rewrite, where the loop runs fine).
    A name an inner loop holding ``stmt`` reads again (in a later inner iteration) is not
    local.
    """
    bound = {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    return {name for name in bound - read_outside(info, stmt) - _read_again(info, stmt)
            if info.classes.get(name) == PRIVATE}


def _read_again(info: LoopInfo, stmt: gast.If) -> set[str]:
    """Names a loop nested in the body of ``info`` around ``stmt`` carries from one of its
    iterations to the next (any class there but private): a later inner iteration reads what
    this one bound under the test (``for j: if d < m: m = d``, where ``m`` is private to the
    level and carried by the inner loop), so the name is not local to the branch. A loop the
    analysis did not annotate counts every name it reads."""
    found: set[str] = set()
    annotated = {id(level.node): level for level in info.walk() if level is not info}
    for node in (n for s in info.body for n in gast.walk(s)):
        if isinstance(node, (gast.For, gast.While)) and any(n is stmt for n in gast.walk(node)):
            level = annotated.get(id(node))
            if level is not None:
                found |= {name for name, kind in level.classes.items() if kind != PRIVATE}
            else:
                found |= {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    return found


def written(stmt) -> set[str]:
    """Names bound in ``stmt`` and arrays written through a subscript (``d`` of ``d[i] = v``)."""
    found = _stores([stmt])
    for node in gast.walk(stmt):
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
            base = node.value
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Name):
                found.add(base.id)
    return found


def _masked_outputs(root: LoopInfo, stmt: gast.If) -> set[str]:
    """Reductions of any level of the nest, and TensorArrays, updated under ``stmt``."""
    inside = {id(n) for n in gast.walk(stmt)}
    found = set()
    for level in root.walk():
        for name, red in level.reductions.items():
            if any(id(u) in inside for u in red.updates):
                found.add(name)
        for name, writes in level.tensorarrays.items():
            if any(id(w) in inside for w in writes):
                found.add(name)
        for arg in level.arg_reductions.values():
            if id(arg.stmt) in inside:
                found |= {arg.name, arg.value} - {None}
    return found


def _stores(stmts) -> set[str]:
    """Names bound anywhere in ``stmts``."""
    return {n.id for s in stmts for n in gast.walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _loads(node) -> set[str]:
    """Names read anywhere in ``node``."""
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _appended(stmts) -> set[str]:
    return {n.func.value.id for s in stmts for n in gast.walk(s) if appended_item(n) is not None}
