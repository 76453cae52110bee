"""Puts each loop's iteration space in a normal form (range, rows, enumerate, zip, counted while)."""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from pforge.transpile.frontend import ImportMap

_RANGES = {"builtins.range", "tensorflow.range", "numpy.arange"}


@dataclass
class Space:
    """The iteration space of one loop level, in normal form (docs/architecture.md, "Names the project uses").

    Attributes:
        kind: ``range`` (``i = start + step*k``, k in [0, trip)), ``rows`` (rows of one or more
            sequences along axis 0, zipped), ``enumerate`` (an index and rows), or ``while``
            (a counted while loop, normalised to a range).
        induction: the name that takes the values of the range or the enumerate index.
        items: ``(target, sequence)`` pairs: ``target`` (a name, or a tuple node that unpacks
            the row) takes the rows of ``sequence``.
        start, stop, step: range bounds as expressions (``start``/``step`` may be None: 0, 1).
    """

    kind: str
    induction: str | None = None
    items: list[tuple[gast.AST, gast.AST]] = field(default_factory=list)
    start: gast.AST | None = None
    stop: gast.AST | None = None
    step: gast.AST | None = None
    enumerate_start: gast.AST | None = None

    def target_names(self) -> set[str]:
        names = {self.induction} if self.induction else set()
        for target, _ in self.items:
            names |= {n.id for n in gast.walk(target) if isinstance(n, gast.Name)}
        return names

    def step_sign(self) -> int | None:
        """+1 or -1 when the direction of the iteration is known, else None."""
        if self.kind != "range" and self.kind != "while":
            return 1
        if self.step is None:
            return 1
        value = constant_int(self.step)
        if value is None:
            return None
        return 1 if value > 0 else -1

    def describe(self) -> str:
        if self.kind in ("range", "while"):
            bounds = [gast.unparse(b).strip() for b in (self.start, self.stop, self.step) if b is not None]
            if self.start is None:
                bounds = [gast.unparse(self.stop).strip()] + (
                    [gast.unparse(self.step).strip()] if self.step is not None else [])
            what = "counted while " if self.kind == "while" else ""
            return f"{what}{self.induction} in range({', '.join(bounds)})"
        rows = ", ".join(f"{gast.unparse(t).strip()} in rows of {gast.unparse(s).strip()}"
                         for t, s in self.items)
        if self.kind == "enumerate":
            return f"{self.induction} = index, {rows}"
        return rows


def constant_int(node: gast.AST | None) -> int | None:
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = constant_int(node.operand)
        return -inner if inner is not None else None
    return None


def for_space(loop: gast.For, imports: ImportMap) -> Space | None:
    """The normal form of a ``for`` loop's iteration space, or None when not modelled."""
    it, target = loop.iter, loop.target
    if isinstance(it, gast.Call) and not any(isinstance(a, gast.Starred) for a in it.args):
        callee = imports.resolve(it.func)
        if callee in _RANGES and isinstance(target, gast.Name) and not it.keywords:
            args = it.args
            if len(args) == 1:
                return Space("range", target.id, stop=args[0])
            if len(args) in (2, 3):
                return Space("range", target.id, start=args[0], stop=args[1],
                             step=args[2] if len(args) == 3 else None)
            return None
        if callee == "builtins.enumerate" and len(it.args) in (1, 2):
            if not (isinstance(target, gast.Tuple) and len(target.elts) == 2
                    and isinstance(target.elts[0], gast.Name)):
                return None
            start = next((k.value for k in it.keywords if k.arg == "start"), it.args[1] if len(it.args) == 2 else None)
            if any(k.arg != "start" for k in it.keywords):
                return None
            inner = for_space(gast.For(target=target.elts[1], iter=it.args[0], body=[], orelse=[],
                                       type_comment=None), imports)
            if inner is None or inner.kind != "rows":
                return None
            return Space("enumerate", target.elts[0].id, items=inner.items, enumerate_start=start)
        if callee == "builtins.zip" and it.args and not it.keywords:
            if not (isinstance(target, gast.Tuple) and len(target.elts) == len(it.args)):
                return None
            if not all(_row_target(t) for t in target.elts):
                return None
            return Space("rows", items=list(zip(target.elts, [_reversed_view(a, imports) or a for a in it.args])))
        if callee == "builtins.reversed" and len(it.args) == 1 and not it.keywords and isinstance(target, gast.Name):
            inner = it.args[0]
            if isinstance(inner, gast.Call) and imports.resolve(inner.func) == "builtins.range" \
                    and 1 <= len(inner.args) <= 2 and not inner.keywords \
                    and not any(isinstance(a, gast.Starred) for a in inner.args):
                # reversed(range(a, b)) is range(b - 1, a - 1, -1), from b - 1 down to a
                low = inner.args[0] if len(inner.args) == 2 else gast.Constant(value=0, kind=None)
                high = inner.args[-1]
                return Space("range", target.id, start=_minus_one(high), stop=_minus_one(low),
                             step=gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=1, kind=None)))
        if _reversed_view(it, imports) is not None and _row_target(target):
            return Space("rows", items=[(target, _reversed_view(it, imports))])
        if callee in ("builtins.reversed", "builtins.sorted", "builtins.iter", "builtins.map",
                      "builtins.filter") or (callee or "").endswith(".items"):
            return None
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) and it.func.attr in (
            "items", "keys", "values"):
        return None
    if isinstance(it, (gast.Name, gast.Attribute, gast.Subscript, gast.Call, gast.List, gast.Tuple)):
        if _row_target(target):
            return Space("rows", items=[(target, it)])
    return None


def _reversed_view(it: gast.AST, imports: ImportMap) -> gast.Subscript | None:
    """``x[::-1]`` for ``reversed(x)`` of a name or attribute: the rows of a sequence, last first
    (the reversed view NumPy and TensorFlow give, and the reversed copy of a list); a sequence
    with no slice, a deque, is told apart where the rewrite checks the kind of its sequences.
    None for anything else."""
    if not (isinstance(it, gast.Call) and imports.resolve(it.func) == "builtins.reversed" and len(it.args) == 1
            and not it.keywords and isinstance(it.args[0], (gast.Name, gast.Attribute))):
        return None
    minus_one = gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=1, kind=None))
    view = gast.Subscript(value=it.args[0], slice=gast.Slice(lower=None, upper=None, step=minus_one), ctx=gast.Load())
    return gast.copy_location(view, it)


def _minus_one(node: gast.AST) -> gast.AST:
    """``node - 1`` (a constant folded)."""
    value = constant_int(node)
    if value is not None:
        return gast.Constant(value=value - 1, kind=None) if value >= 1 else \
            gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=1 - value, kind=None))
    return gast.BinOp(left=node, op=gast.Sub(), right=gast.Constant(value=1, kind=None))


def _row_target(target: gast.AST) -> bool:
    if isinstance(target, gast.Name):
        return True
    return isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts)


def while_space(loop: gast.While, previous: gast.stmt | None) -> Space | None:
    """Recognises ``v = init; while v < stop: ...; v += 1`` as ``for v in range(init, stop)``.

    The counter must be assigned only by the final increment, and ``stop`` must not be
    assigned in the body; the body must not ``break`` or ``continue``. Returns None otherwise.
    """
    test = loop.test
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1
            and isinstance(test.left, gast.Name) and isinstance(test.ops[0], (gast.Lt, gast.LtE))):
        return None
    counter, stop = test.left.id, test.comparators[0]
    if not (isinstance(previous, gast.Assign) and len(previous.targets) == 1
            and isinstance(previous.targets[0], gast.Name) and previous.targets[0].id == counter):
        return None
    if not loop.body or loop.orelse or not _is_increment(loop.body[-1], counter):
        return None
    stored = set()
    for stmt in loop.body[:-1]:
        for node in gast.walk(stmt):
            if isinstance(node, (gast.Break, gast.Continue)):
                return None
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                stored.add(node.id)
    stop_names = {n.id for n in gast.walk(stop) if isinstance(n, gast.Name)}
    if counter in stored or stop_names & stored:
        return None
    if isinstance(test.ops[0], gast.LtE):
        stop = gast.BinOp(left=stop, op=gast.Add(), right=gast.Constant(value=1, kind=None))
    return Space("while", counter, start=previous.value, stop=stop)


def _is_increment(stmt: gast.stmt, name: str) -> bool:
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add):
        return (isinstance(stmt.target, gast.Name) and stmt.target.id == name
                and constant_int(stmt.value) == 1)
    if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1:
        t, v = stmt.targets[0], stmt.value
        return (isinstance(t, gast.Name) and t.id == name and isinstance(v, gast.BinOp)
                and isinstance(v.op, gast.Add) and isinstance(v.left, gast.Name)
                and v.left.id == name and constant_int(v.right) == 1)
    return False
