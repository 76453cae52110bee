"""Builds the vector plan of a loop nest: one converter per construct of the body.

The builder walks the body once, in order, and records for every statement the recipe that
replaces it over the whole iteration space (:mod:`.recipes`). Decisions that both printers
need are made here or in the modules it calls: if-conversion (:mod:`.conditionals`), the
operator, identity and signed term of a reduction (:mod:`.operators`), and whether an inner
loop is vectorized or kept sequential with its carried state (:func:`inner_loop`).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from pforge.transpile import dependence, ranks
from pforge.transpile.analysis import PRIVATE, LoopInfo, appended_item, contribution, read_outside, spelled_out_update
from pforge.transpile.vplan import recipes as r
from pforge.transpile.vplan.conditionals import _loads, _stores, if_conversion
from pforge.transpile.operators import AUG_OPS, OPERATORS


@dataclass(frozen=True)
class InnerLoopDecision:
    """How an inner loop is lowered.

    Attributes:
        mode: ``vectorized`` (the loop becomes one more loop axis) or ``sequential`` (it stays
            a loop inside the batched body; pfor prints one as ``tf.while_loop``, the direct
            printer as a Python loop of batched statements, carried names one value per outer iteration).
        ragged: its bounds vary per outer iteration (the trip count is not one number): the
            direct printer pads and masks it, pfor keeps it as a loop.
        carried: the names a loop kept as a loop carries from one inner iteration to the next
            or that the outer body reads after it, sorted.
        blocker: why the loop cannot be kept as a loop (a name bound only inside it and read
            after it: the loop may not run), or None.
    """

    mode: str
    ragged: bool
    carried: tuple[str, ...]
    blocker: str | None = None


def inner_loop(level: LoopInfo, child: LoopInfo, stacked: set[str]) -> InnerLoopDecision:
    """Decides the lowering of ``child``, a loop in the body of ``level``.

    ``stacked`` holds the names that vary per iteration of the enclosing levels at the point
    of the inner loop. A name private to each inner iteration and read nowhere else is not
    carried: it stays a local of the loop's step.
    """
    space = child.space
    bounds = [b for b in (space.start, space.stop, space.step) if b is not None] if space else []
    bounds += [seq for _, seq in (space.items if space else [])]
    ragged = any(_loads(b) & stacked for b in bounds)
    # a running value (a scan) has a batched form only over the outermost loop: inside
    # another loop it stays a loop, as a carried one does
    scans = any(inner.scans for inner in child.walk())
    mode = "vectorized" if child.vectorizable and space is not None and space.kind != "while" and not scans \
        else "sequential"
    counter = space.induction if space is not None else None
    outer_reads = read_outside(level, child.node)
    position = next((k for k, s in enumerate(level.body) if s is child.node), 0)
    bound_before = _stores(level.body[:position])
    carried, blocker = [], None
    for name in sorted(_stores(child.body) - {counter}):
        if child.classes.get(name) == PRIVATE:
            if name not in outer_reads:
                continue  # private to each inner iteration: a local of the step, not state
            if name not in bound_before and blocker is None:
                blocker = (f"`{name}` is bound only inside the inner loop at line {child.lineno} "
                           "and read after it (the loop may not run)")
        carried.append(name)
    return InnerLoopDecision(mode, ragged, tuple(carried), blocker)


def reduction_recipe(info: LoopInfo, stmt: gast.stmt, name: str, line: int, mask: str | None) -> r.Reduce:
    """The recipe of one update of the reduction ``name``: operator, identity, signed term."""
    op = OPERATORS[info.reductions[name].op]
    term = gast.unparse(contribution(stmt, name)).strip()
    return r.Reduce(line, mask, name, op.name, term, None if op.identity is None else op.identity_text)


def build_plan(ctx, root: LoopInfo, shapes: dict | None = None) -> r.Plan:
    """The vector plan of the vectorizable loop nest rooted at ``root``.

    Args:
        ctx: the module context (imports, source lines for annotations).
        root: an analysed, vectorizable outermost level.
        shapes: per-parameter ranks (``--shapes``), merged with the declared ones.
    Returns:
        The plan: values (stacked or unstacked, rank where known) and recipes in order.
    """
    builder = _Builder(ctx, root, shapes or {})
    body = _snapshots(root) + builder.level(root, None)
    values = tuple(r.Value(n, n in builder.stacked, builder.ranks.get(n))
                   for n in sorted(builder.seen))
    return r.Plan(root.lineno, root.space.describe() if root.space else "(not modelled)", values, tuple(body))


class _Builder:
    def __init__(self, ctx, root: LoopInfo, shapes: dict):
        self.root = root
        self.stacked: set[str] = set()
        self.seen: set[str] = set()
        self.masks = 0
        declared = ranks.parameter_shapes(ctx, root.function, shapes)
        self.ranks: dict[str, int | None] = {k: v.rank for k, v in declared.items()}

    # -- levels --------------------------------------------------------------------------------

    def level(self, info: LoopInfo, mask: str | None) -> list[r.Recipe]:
        space = info.space
        if space is not None:
            self.stacked |= space.target_names()
            self.seen |= space.target_names()
            for target, seq in space.items:
                if isinstance(target, gast.Name) and isinstance(seq, gast.Name) and self.ranks.get(seq.id):
                    self.ranks[target.id] = self.ranks[seq.id] - 1
            if space.induction:
                self.ranks[space.induction] = 0
        out: list[r.Recipe] = []
        for stmt in info.body:
            out += self.stmt(info, stmt, mask)
        return out

    def stmt(self, info: LoopInfo, stmt: gast.stmt, mask: str | None) -> list[r.Recipe]:
        convert = getattr(self, f"convert_{type(stmt).__name__}", None)
        if convert is None:
            return [r.Opaque(stmt.lineno, mask, f"a `{type(stmt).__name__}` statement")]
        return convert(info, stmt, mask)

    # -- one converter per construct ---------------------------------------------------------------

    def _scan(self, info, stmt) -> list[r.Recipe] | None:
        """The recipe of a scan's update (``info.scans``), or None when ``stmt`` is none."""
        scan = next((s for s in info.scans.values() if s.update is stmt), None)
        if scan is None:
            return None
        self.seen.add(scan.name)
        self.stacked.add(scan.name)
        # a linear recurrence's step is its whole right-hand side (`a * s + b`)
        term = gast.unparse(stmt.value if scan.op == "linear" else contribution(stmt, scan.name)).strip()
        return [r.Scan(stmt.lineno, None, scan.name, scan.op, term, not scan.exclusive)]

    def convert_Assign(self, info, stmt, mask):
        target = stmt.targets[0]
        line = stmt.lineno
        if (scanned := self._scan(info, stmt)) is not None:
            return scanned
        if isinstance(target, gast.Name):
            level = self._reduction_level(target.id, stmt)
            if level is not None:
                return [self._reduce(level, stmt, target.id, mask)]
            if target.id in info.tensorarrays:
                return [r.Opaque(line, mask, f"TensorArray write {gast.unparse(stmt).strip()}")]
        if isinstance(target, gast.Subscript):
            update = spelled_out_update(stmt)
            if update is not None:
                return self._scatter(target, update[1], AUG_OPS.get(type(update[0])), stmt, mask)
            return self._scatter(target, stmt.value, None, stmt, mask)
        return self._widen(_stores([stmt]), stmt.value, stmt, mask)

    def convert_AugAssign(self, info, stmt, mask):
        if (scanned := self._scan(info, stmt)) is not None:
            return scanned
        if isinstance(stmt.target, gast.Name):
            level = self._reduction_level(stmt.target.id, stmt)
            if level is not None:
                return [self._reduce(level, stmt, stmt.target.id, mask)]
            self.stacked.add(stmt.target.id)
            return self._widen({stmt.target.id}, stmt, stmt, mask)
        return self._scatter(stmt.target, stmt.value, AUG_OPS.get(type(stmt.op), type(stmt.op).__name__), stmt, mask)

    def convert_Expr(self, info, stmt, mask):
        call = stmt.value
        if appended_item(call) is not None and (call.func.attr == "append" or call.func.value.id in info.collectors):
            return [r.Collect(stmt.lineno, mask, call.func.value.id, _text(appended_item(call)),
                              "map" if mask is None else "filter")]
        if isinstance(call, gast.Constant):
            return []
        return [r.Opaque(stmt.lineno, mask, _text(call))]

    def convert_Pass(self, info, stmt, mask):
        return []

    def convert_If(self, info, stmt, mask):
        args = [a for a in self._levels_arg_reductions() if a.stmt is stmt]
        if args:
            return [r.ArgReduce(stmt.lineno, mask, arg.name, arg.value, arg.op, arg.strict) for arg in args]
        decision = if_conversion(self.root, info, stmt)
        self.masks += 1
        name = f"m{self.masks}"
        out: list[r.Recipe] = [r.MaskOp(stmt.lineno, mask, name, _text(stmt.test), hoisted=decision.hoisted)]
        then = [x for s in stmt.body for x in self.stmt(info, s, name)]
        other_name = f"not {name}"
        other = [x for s in stmt.orelse for x in self.stmt(info, s, other_name)]
        out += then + other
        merges = {m.name: m for m in decision.outputs}
        out = [_with_how(x, merges) for x in out]
        for blend in decision.blends:
            out.append(r.Blend(stmt.lineno, mask, blend.name, name, blend.then, blend.otherwise))
            self.stacked.add(blend.name)
        return out

    def convert_For(self, info, stmt, mask):
        child = next((c for c in info.children if c.node is stmt), None)
        if child is None:
            return [r.Opaque(stmt.lineno, mask, "an inner loop pforge did not analyse")]
        decision = inner_loop(info, child, self.stacked)
        body = tuple(self.level(child, mask))
        space = child.space.describe() if child.space else "(not modelled)"
        carried = decision.carried if decision.mode == "sequential" else ()
        return [r.InnerLoop(stmt.lineno, mask, decision.mode, space, carried, decision.ragged, body)]

    convert_While = convert_For

    def convert_With(self, info, stmt, mask):
        out: list[r.Recipe] = [r.Opaque(stmt.lineno, mask, f"with {_text(stmt.items[0].context_expr)}")]
        for inner in stmt.body:
            out += self.stmt(info, inner, mask)
        return out

    # -- helpers ---------------------------------------------------------------------------------------

    def _widen(self, targets, value, stmt, mask):
        loads = _loads(value)
        self.seen |= targets | (loads & self.stacked)
        stacked = bool(loads & self.stacked) or mask is not None
        if stacked:
            self.stacked |= targets
        rank = self._rank(value) if isinstance(value, gast.expr) else None
        for t in targets:
            self.ranks.setdefault(t, rank)
        text = _text(value) if isinstance(value, gast.expr) else _text(stmt)
        if isinstance(stmt, gast.AugAssign):
            return [r.Widen(stmt.lineno, mask, _text(stmt.target), text, True)]
        gathers = self._gathers(value, mask)
        return gathers + [r.Widen(stmt.lineno, mask, ", ".join(sorted(targets)), text, stacked)]

    def _scatter(self, target, value, combine, stmt, mask):
        base = target.value
        while isinstance(base, gast.Subscript):
            base = base.value
        self.seen.add(_text(base))
        return self._gathers(value, mask) + [r.Scatter(stmt.lineno, mask, _text(base), _text(target.slice),
                                                       _text(value), combine)]

    def _gathers(self, value, mask):
        """Reads ``x[e]`` whose index is stacked but not a bare loop index."""
        out = []
        for node in gast.walk(value):
            if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
                parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
                if any(not isinstance(p, gast.Name) and _loads(p) & self.stacked and not self._shift(p)
                       for p in parts):
                    out.append(r.Gather(getattr(node, "lineno", 0) or 0, mask, _text(node.value), _text(node.slice)))
        return out

    def _shift(self, index) -> bool:
        """``i + 1``, ``2 * i - j``: an affine function of loop indices (a slice, not a gather)."""
        form = dependence.Affine.of(index)
        inductions = {level.space.induction for level in self.root.walk()
                      if level.space is not None and level.space.induction}
        return form is not None and form.symbols() <= inductions

    def _rank(self, value) -> int | None:
        if isinstance(value, gast.Name):
            return self.ranks.get(value.id)
        if isinstance(value, gast.Constant):
            return 0
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            base = self.ranks.get(value.value.id)
            parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
            if base is not None and all(not isinstance(p, gast.Slice) for p in parts) and \
                    all(self.ranks.get(p.id) == 0 for p in parts if isinstance(p, gast.Name)):
                return base - len(parts) if base >= len(parts) else None
        if isinstance(value, gast.BinOp):
            left, right = self._rank(value.left), self._rank(value.right)
            return None if left is None or right is None else max(left, right)
        return None

    def _reduce(self, level, stmt, name, mask):
        self.seen.add(name)
        if level is not self.root:  # reduced over an inner loop: one value per outer iteration
            self.stacked.add(name)
        return reduction_recipe(level, stmt, name, stmt.lineno, mask)

    def _reduction_level(self, name, stmt):
        for level in self.root.walk():
            red = level.reductions.get(name)
            if red is not None and stmt in red.updates and (
                    name not in level.arg_reductions or level.arg_reductions[name].name is None):
                return level
        return None

    def _levels_arg_reductions(self):
        return [a for level in self.root.walk() for a in level.arg_reductions.values()]


def _snapshots(root) -> list[r.Recipe]:
    """The copies node splitting needs (``LoopInfo.snapshots``), first in the plan."""
    reads: dict[str, list[str]] = {}
    nodes = {id(n): n for n in gast.walk(root.node)}
    for level in root.walk():
        for node_id, name in level.snapshots.items():
            node = nodes.get(node_id)
            reads.setdefault(name, []).append(_text(node) if node is not None else name)
    return [r.Snapshot(root.lineno, None, name, tuple(sorted(texts))) for name, texts in sorted(reads.items())]


def _with_how(recipe, merges):
    """A collect recipe under an ``if`` says what the if-conversion made of it."""
    if isinstance(recipe, r.Collect) and recipe.name in merges:
        how = merges[recipe.name].how
        return r.Collect(recipe.line, recipe.mask, recipe.name, recipe.value, how)
    return recipe


def _text(node) -> str:
    return gast.unparse(node).strip()

