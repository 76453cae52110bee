"""Loop distribution: a loop refused as a whole is split into loops of its own statements,
so the parts without a loop-carried dependence cycle can be vectorized (Allen & Kennedy,
"Optimizing Compilers for Modern Architectures", 2001, section 2.4.2 and the codegen
algorithm of section 2.4.3: the strongly connected components of the statement dependence
graph, in a topological order).

``for i in range(1, n): a[i] = a[i - 1] * a[i - 1] + b[i]; c[i] = b[i] * 2.0`` becomes two
loops over the same range, the first of them carried (it stays a loop), the second a map.
Each piece is a ``for`` statement in the tree in place of the loop (``pforge_distributed``
says which loop and which statements), analysed and rewritten as any other loop; where no
piece is vectorizable the driver keeps the loop whole (``pipeline``).

The statement graph is built conservatively over the body's top-level statements:

- an edge from every statement to each later one touching a name either of them binds or
  writes into (the order of the body, which covers dependences within one iteration);
- an edge back from the later to the earlier one where the later one's access at some
  iteration may run before the earlier one's at a later iteration: a flow into the earlier
  statement from a previous iteration, an anti-dependence from a later one, or an output
  dependence whose direction the dependence test cannot rule out (``dependence.test_pair``);
- both edges where a name other than an array read and written through affine subscripts
  passes between them (a scalar, an array used whole): the two stay in one loop.

Distribution runs every iteration of one piece before the next piece starts, so two names
that are one array (``f(x, x)``) would see each other's writes in another order. A pair of
parameters, one written by a piece and the other read by another, is checked at run time
(``not np.may_share_memory``; the loop runs as written where they may overlap); any other
name shared so must be bound to a new array (``np.zeros(n)``) before the loop.

A loop that raises (an index past the end) still raises, but the pieces before the one that
raises have then run all their iterations.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import gast

from pforge.transpile import dependence, effects
from pforge.transpile.analysis.aliasing import _new_scalar
from pforge.transpile.analysis.subscripts import _lowest_index, _wrapping_access
from pforge.transpile.analysis.nodes import _stored_names
from pforge.transpile.spaces import constant_int, for_space

#: the statements a distributed body may hold (an ``if`` or an inner ``for`` of them, too)
_SIMPLE = (gast.Assign, gast.AugAssign, gast.If, gast.For, gast.Pass)
#: what no distributed body may hold anywhere
_BARRED = (gast.Break, gast.Continue, gast.Return, gast.Yield, gast.YieldFrom, gast.Await, gast.Raise,
           gast.Try, gast.With, gast.Global, gast.Nonlocal, gast.Delete, gast.NamedExpr, gast.Lambda,
           gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.While, gast.AsyncFor)


@dataclass
class Distribution:
    """How one loop is split.

    Attributes:
        loop: the original ``for`` statement (no longer in the tree).
        groups: the statements of each piece, pieces in the order they run, statements in the
            order of the body.
        apart: ``(written, other)`` parameter pairs that must not share memory (checked at run
            time in front of the pieces).
    """

    loop: gast.For
    groups: list[list[gast.stmt]]
    apart: list[tuple[str, str]]
    #: index-set splitting: each piece's ``range(...)`` (its statements are the whole body, a
    #: copy for every piece but the first) and what the marker calls its iterations
    iters: list[gast.expr] | None = None
    labels: list[str] | None = None

    def guard(self, np_alias: str) -> str:
        """The run-time test in front of the pieces ("" where none is needed): each parameter
        written is an array of numbers (a list, or an array of objects, may hold another's
        rows: the loop runs), each one read beside it such an array or a number, and no such
        pair shares memory (NumPy compares memory bounds: it may see an overlap where none is,
        and the loop runs)."""
        written = sorted({w for w, _ in self.apart})
        read = sorted({r for _, r in self.apart} - set(written))
        tests = [f"type({w}) is {np_alias}.ndarray and not {w}.dtype.hasobject" for w in written]
        tests += [f"(type({r}) is {np_alias}.ndarray and not {r}.dtype.hasobject or isinstance({r}, (int, float, "
                  f"complex, {np_alias}.number, {np_alias}.bool_)))" for r in read]
        tests += [f"not {np_alias}.may_share_memory({w}, {r})" for w, r in self.apart]
        return " and ".join(tests)

    def header(self, k: int) -> str | None:
        """The ``for`` line of piece ``k`` where the loop was split by index, else None (the
        loop's own header)."""
        if self.iters is None:
            return None
        return f"for {gast.unparse(self.loop.target).strip()} in {gast.unparse(self.iters[k]).strip()}:"

    def lines(self, k: int) -> str:
        """The lines of piece ``k``'s statements, as a remark names them (``lines 20, 22``), or
        its iterations where the loop was split by index (``i < n // 2 + 1``)."""
        if self.labels is not None:
            return self.labels[k]
        spans = [str(first) if first == last else f"{first}-{last}"
                 for first, last in (getattr(s, "pforge_lines", (s.lineno, s.end_lineno)) for s in self.groups[k])]
        return ("line " if len(spans) == 1 and "-" not in spans[0] else "lines ") + ", ".join(spans)


def distribute_loops(ctx, positions) -> bool:
    """Replaces each ``for`` statement starting at one of ``positions`` (``(lineno, col_offset)``)
    by its pieces where :func:`groups` splits it; returns whether any was split."""
    split = False
    for parent in list(gast.walk(ctx.tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if not isinstance(block, list):
                continue
            k = 0
            while k < len(block):
                stmt = block[k]
                if isinstance(stmt, gast.For) and (stmt.lineno, stmt.col_offset) in positions:
                    plan = groups(ctx, stmt) or index_split(ctx, stmt)
                    if plan is not None:
                        pieces = [_piece(stmt, plan, j) for j in range(len(plan.groups))]
                        block[k:k + 1] = pieces
                        k += len(pieces)
                        split = True
                        continue
                k += 1
    return split


def mark_splittable(ctx) -> None:
    """Sets ``pforge_splittable`` on each ``for`` statement :func:`groups` splits, so the driver
    analyses the module again only where a loop refused whole has pieces."""
    for node in gast.walk(ctx.tree):
        if isinstance(node, gast.For):
            node.pforge_splittable = groups(ctx, node) is not None or index_split(ctx, node) is not None


def _piece(loop: gast.For, plan: Distribution, k: int) -> gast.For:
    header = plan.iters[k] if plan.iters is not None else copy.deepcopy(loop.iter)
    piece = gast.copy_location(gast.For(target=copy.deepcopy(loop.target), iter=header,
                                        body=list(plan.groups[k]), orelse=[], type_comment=None), loop)
    piece.end_lineno, piece.end_col_offset = loop.end_lineno, loop.end_col_offset
    piece.pforge_distributed = (plan, k)
    return piece


def index_split(ctx, loop: gast.For) -> Distribution | None:
    """Index-set splitting (Allen & Kennedy 2001, section 5.5.3; the weak-zero SIV case): a loop
    ``for i in range(lo, hi)`` writing ``a[i + k]`` and reading one fixed element ``a[m]`` meets
    it only at iteration ``i0 = m - k``. The iterations up to ``i0`` read the element before
    it is written (the last of them writes it), the ones after read the new value and write
    other elements; so the loop runs as ``range(lo, min(i0 + 1, hi))`` and then
    ``range(max(i0 + 1, lo), hi)``, each piece free of that dependence (the weak-zero test
    proves it from their headers, ``dependence._weak_zero``). TSVC s1113, and the peeling of a
    first iteration (``a[i] = a[0] * s + b[i]``).

    The weak-crossing case (section 3.3.2.2, TSVC s281): a read ``a[r - i]`` of the array
    written at ``a[i + k]`` meets the write in two iterations whose indices add up to
    ``S = r - k``. The iterations up to ``S // 2`` read elements no earlier iteration wrote,
    the ones after read elements only the first half wrote: the loop runs as
    ``range(lo, min(S // 2 + 1, hi))`` and then ``range(max(S // 2 + 1, lo), hi)``
    (``dependence._weak_crossing`` proves each half free of it).

    Returns:
        The two pieces (the body twice, the second a copy), or None where the loop is not that.
    """
    space = for_space(loop, ctx.imports)
    if space is None or space.kind != "range" or loop.orelse or not isinstance(loop.iter, gast.Call) \
            or ctx.imports.resolve(loop.iter.func) != "builtins.range" or space.step_sign() != 1 \
            or space.step is not None and not (isinstance(space.step, gast.Constant) and space.step.value == 1):
        return None
    body = loop.body
    if any(not isinstance(st, _SIMPLE) for st in body) or any(isinstance(n, _BARRED + (gast.For,))
                                                              for st in body for n in gast.walk(st)):
        return None  # (no inner loop: a piece's text is its statements' lines, each piece's the same)
    induction = space.induction
    stored = _stored_names(body)
    if induction in stored or _range_reads_the_body(loop, body, stored) or any(
            isinstance(n, (gast.Constant, gast.JoinedStr)) and n.end_lineno != n.lineno for st in body for n in gast.walk(st)):
        return None
    for call in (n for n in gast.walk(loop) if isinstance(n, gast.Call)):
        callee = ctx.imports.resolve(call.func)
        if callee is None and not isinstance(call.func, gast.Attribute) \
                or ctx.effects.classify(call).kind != effects.PURE or _may_write(callee, call):
            return None
    variant = set(stored) | {induction}
    writes, fixed, crossing = {}, set(), []
    for node in (n for st in body for n in gast.walk(st)):
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)):
            continue
        index = node.slice.elts[0] if isinstance(node.slice, gast.Tuple) and node.slice.elts else node.slice
        form = dependence.symbolic_form(index, variant - {induction}) if not isinstance(index, gast.Slice) else None
        if isinstance(node.ctx, gast.Store):
            if form is None or form.coeff(induction) != 1:
                return None  # (one write form per array: `a[i + k]`)
            writes.setdefault(node.value.id, set()).add(form)
        elif form is not None and form.coeff(induction) == 0:
            fixed.add((node.value.id, index))
        elif form is not None and form.coeff(induction) == -1:
            crossing.append((node.value.id, form))
    if not fixed and crossing:
        return _crossing_split(loop, space, body, writes, crossing, induction)
    points = set()
    for name, index in fixed:
        if name not in writes or len(writes[name]) != 1:
            continue
        (wform,) = writes[name]
        offset = dependence.Affine(tuple((key, v) for key, v in wform.coeffs if key != induction), wform.const)
        if offset.coeffs:
            return None
        points.add(gast.dump(index) + f"{-offset.const:+d}")
        split = (index, -offset.const)
    if len(points) != 1:
        return None
    index, shift = split  # the first iteration after the one that writes `a[m]`: m - k + 1
    if constant_int(index) is not None:
        after = gast.Constant(value=constant_int(index) + shift + 1, kind=None)
    elif shift + 1:
        after = gast.BinOp(left=copy.deepcopy(index), op=gast.Add(), right=gast.Constant(value=shift + 1, kind=None))
    else:
        after = copy.deepcopy(index)
    return _halves(loop, space, body, induction, after)


def _crossing_split(loop, space, body, writes, crossing, induction) -> Distribution | None:
    """:func:`index_split`'s weak-crossing case: one point ``S // 2 + 1`` for every read
    ``a[r - i]`` of an array written at ``a[i + k]`` (one write form), ``S = r - k``."""
    totals = set()
    for name, rform in crossing:
        if name not in writes or len(writes[name]) != 1:
            continue
        (wform,) = writes[name]
        r = dependence.Affine(tuple((key, v) for key, v in rform.coeffs if key != induction), rform.const)
        k = dependence.Affine(tuple((key, v) for key, v in wform.coeffs if key != induction), wform.const)
        totals.add(r.minus(k))
    if len(totals) != 1:
        return None
    (total,) = totals
    if not total.coeffs:
        after = gast.Constant(value=total.const // 2 + 1, kind=None)
    else:
        half = gast.BinOp(left=_form_node(total), op=gast.FloorDiv(), right=gast.Constant(value=2, kind=None))
        after = gast.BinOp(left=half, op=gast.Add(), right=gast.Constant(value=1, kind=None))
    return _halves(loop, space, body, induction, after)


def _form_node(form) -> gast.expr:
    """An affine form (:func:`dependence.symbolic_form`) as an expression: its names, its atoms
    as written (``len(a)``), times their coefficients, plus its constant."""
    node = None
    for key, v in form.coeffs:
        term = gast.parse(key[1:-1].lstrip("+")).body[0].value if key.startswith("<") else \
            gast.Name(id=key, ctx=gast.Load(), annotation=None, type_comment=None)
        if abs(v) != 1:
            term = gast.BinOp(left=gast.Constant(value=abs(v), kind=None), op=gast.Mult(), right=term)
        if node is None:
            node = term if v > 0 else gast.UnaryOp(op=gast.USub(), operand=term)
        else:
            node = gast.BinOp(left=node, op=gast.Add() if v > 0 else gast.Sub(), right=term)
    if node is None:
        return gast.Constant(value=form.const, kind=None)
    if form.const:
        node = gast.BinOp(left=node, op=gast.Add() if form.const > 0 else gast.Sub(),
                          right=gast.Constant(value=abs(form.const), kind=None))
    return node


def _halves(loop, space, body, induction, after) -> Distribution:
    """The loop as ``range(lo, min(after, hi))`` and then ``range(max(after, lo), hi)``."""
    start = copy.deepcopy(space.start) if space.start is not None else gast.Constant(value=0, kind=None)

    def call(name, *args):
        return gast.Call(func=gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None),
                         args=list(args), keywords=[])

    head = call("range", *([copy.deepcopy(space.start)] if space.start is not None else []),
                call("min", after, copy.deepcopy(space.stop)))
    first = copy.deepcopy(after) if constant_int(after) is not None and constant_int(start) is not None \
        and constant_int(after) >= constant_int(start) else call("max", copy.deepcopy(after), start)
    tail = call("range", first, copy.deepcopy(space.stop))
    for node in (head, tail):
        for part in gast.walk(node):
            gast.copy_location(part, loop.iter)
            part.end_lineno, part.end_col_offset = loop.iter.end_lineno, loop.iter.end_col_offset
    text = gast.unparse(after).strip()
    return Distribution(loop, [list(body), copy.deepcopy(body)], [], iters=[head, tail],
                        labels=[f"{induction} < {text}", f"{induction} >= {text}"])


def groups(ctx, loop: gast.For) -> Distribution | None:
    """The pieces ``loop`` distributes into (two or more), or None where it does not or cannot
    (see the module docstring for what is needed)."""
    space = for_space(loop, ctx.imports)
    body = loop.body
    if space is None or space.kind != "range" or loop.orelse \
            or ctx.imports.resolve(loop.iter.func) != "builtins.range" or body[0].lineno <= loop.lineno:
        return None
    if any(not isinstance(s, _SIMPLE) for s in body) or any(isinstance(n, _BARRED) for s in body for n in gast.walk(s)):
        return None
    if any(b.lineno <= a.end_lineno for a, b in zip(body, body[1:])):
        return None  # (two statements on one line: a piece's text is its statements' lines)
    induction = space.induction
    stored = _stored_names(body)
    if induction in stored:
        return None
    for call in (n for n in gast.walk(loop) if isinstance(n, gast.Call)):
        callee = ctx.imports.resolve(call.func)
        if callee is None and not isinstance(call.func, gast.Attribute):
            return None  # a helper of this module may read what another statement writes
        if ctx.effects.classify(call).kind != effects.PURE or _may_write(callee, call):
            return None  # (random draws would come in another order)
    variant = set(stored) - {induction}
    if _range_reads_the_body(loop, body, stored):
        return None  # (each piece evaluates the range again: it must give the same iterations)
    if any(isinstance(n, (gast.Constant, gast.JoinedStr)) and n.end_lineno != n.lineno
           for st in body for n in gast.walk(st)):
        return None  # (a string over several lines: a piece's text is indented anew)
    try:
        body = _split_ifs(ctx, body, variant)
        count = len(body)
        if count < 2:
            return None
        facts = [_Statement(s) for s in body]
    except _Refused:
        return None
    if any(name in variant for f in facts for name, accesses in f.accesses.items() if any(a.write for a in accesses)):
        return None  # `row = x[i]; row[0] = v` writes into `x` under another name
    _tie_views(facts)
    augmented = {f.stmt.target.id for f in facts if isinstance(f.stmt, gast.AugAssign) and isinstance(f.stmt.target, gast.Name)}
    if any(not _bound_fresh(ctx, n) for name in augmented for n in stored[name]
           if not isinstance(ctx.parents.get(id(n)), gast.AugAssign)):
        return None  # `r = x[i]; r += t` adds into `x` where `x[i]` is a row
    recomputed = _recomputable(ctx, loop, facts, stored, induction)
    reads = [set(f.names) for f in facts]
    for f in facts:  # (a recomputed name is, to the other statements, a function of the index)
        if f.stmt not in recomputed.values():
            f.names -= recomputed.keys()
    kept = [k for k in range(count) if facts[k].stmt not in recomputed.values()]
    # an index that may be negative counts from the end, outside the dependence test's model
    wrapped = {access.base for f in facts for group in f.accesses.values()
               if _wrapping_access(_Level(space), group, induction) is not None for access in group}
    if _lowest_index(space) is None:  # (`range(k, n)`: `a[i]` itself may be `a[-1]`)
        wrapped |= {name for f in facts for name, group in f.accesses.items()
                    if any(induction in {n.id for d in a.dims for n in gast.walk(d) if isinstance(n, gast.Name)}
                           for a in group)}
    edges = set()
    for a in kept:
        for b in kept:
            if a < b and facts[a].meets(facts[b]):
                forward, backward = _directions(facts[a], facts[b], induction, variant, space.step_sign(), wrapped)
                edges |= {(a, b)} if forward else set()
                edges |= {(b, a)} if backward else set()
    components = [{kept[k] for k in c} for c in _components(len(kept), {(kept.index(a), kept.index(b))
                                                                           for a, b in edges})]
    if len(components) < 2:
        return None
    for k, f in enumerate(facts):  # each definition recomputed in the pieces that read its name
        if f.stmt in recomputed.values():
            name = f.stmt.targets[0].id
            readers = [c for c in components if any(name in reads[j] for j in c)] or components[:1]
            for c in readers:
                c.add(k)
    pieces = [[facts[k] for k in sorted(c)] for c in components]
    apart = _apart(ctx, loop, pieces, induction)
    if apart is None:
        return None
    seen: set[int] = set()
    groups_ = []
    for piece in pieces:  # (a statement in two pieces is a copy in the second: one node, one parent)
        groups_.append([f.stmt if id(f.stmt) not in seen else copy.deepcopy(f.stmt) for f in piece])
        seen |= {id(f.stmt) for f in piece}
    return Distribution(loop, groups_, apart)


#: NumPy functions that take ``out`` by position: the positional arguments before it
_BEFORE_OUT = {"clip": 3, "sum": 3, "mean": 3, "prod": 3, "cumsum": 3, "cumprod": 3, "nansum": 3, "nanmean": 3,
               "std": 3, "var": 3, "take": 3, "percentile": 3, "quantile": 3, "dot": 2, "matmul": 2, "round": 2,
               "around": 2, "max": 2, "min": 2, "amax": 2, "amin": 2, "any": 2, "all": 2, "argmax": 2,
               "argmin": 2, "concatenate": 2, "choose": 2, "median": 2, "ptp": 2, "trace": 5}
#: NumPy ufuncs of one operand (``out`` second) and of two (``out`` third)
_UNARY = set("abs absolute sin cos tan tanh sinh cosh arcsin arccos arctan arcsinh arccosh arctanh exp exp2 "
             "expm1 log log2 log10 log1p sqrt cbrt square negative positive sign floor ceil rint trunc fix isnan "
             "isinf isfinite reciprocal conj conjugate logical_not fabs deg2rad rad2deg degrees radians "
             "invert signbit spacing".split())
_BINARY = set("add subtract multiply divide true_divide floor_divide power float_power maximum minimum fmax fmin "
              "mod remainder fmod arctan2 hypot logical_and logical_or logical_xor bitwise_and bitwise_or "
              "bitwise_xor left_shift right_shift greater less equal not_equal greater_equal less_equal "
              "copysign ldexp nextafter heaviside gcd lcm logaddexp logaddexp2".split())


def _tie_views(facts) -> None:
    """A name bound to an element or row of an array (``prev = x[i]``, or another such name) may
    be a view of it: where a statement writes that array (``x[i, 0] = 0.0``), a statement reading
    the name sees the write, in whichever iteration it reads it (a wrap-around variable reads the
    row of the iteration before). Each reader reads the array whole, so it stays in one loop with
    the writers (helper-47: distributed, the wrap-around read rows the loop had written)."""
    views: dict[str, str] = {}
    for _ in range(len(facts)):
        for f in facts:
            st = f.stmt
            if isinstance(st, gast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], gast.Name):
                base = st.value
                while isinstance(base, gast.Subscript):
                    base = base.value
                if isinstance(base, gast.Name) and (base is not st.value or base.id in views):
                    views.setdefault(st.targets[0].id, views.get(base.id, base.id))
    written = set().union(*(f.written for f in facts))
    for f in facts:
        for name, array in views.items():
            if name in f.names and array in written:
                f.names.add(array)
                f.whole.add(array)


def _may_write(callee: str | None, call: gast.Call) -> bool:
    """A call that may write into one of its arguments though the effect tables call it pure:
    ``out`` given by position (``np.multiply(a, b, c)``), ``operator.setitem``, an unbound
    ``ndarray`` method (``np.ndarray.fill(c, v)``)."""
    if callee is None:
        return False
    if callee.startswith("operator.") or ".ndarray." in callee:
        return True
    if not callee.startswith("numpy."):
        return False
    short = callee.rpartition(".")[2]
    limit = 1 if short in _UNARY else 2 if short in _BINARY else _BEFORE_OUT.get(short)
    return limit is not None and len(call.args) > limit


def _written_into(body) -> set[str]:
    """The arrays ``body`` stores elements of (``a[i] = v``, ``a[i][j] += v``)."""
    flats = (dependence.flatten_subscript(node) for stmt in body for node in gast.walk(stmt)
             if isinstance(node, gast.Subscript) and not isinstance(node.ctx, gast.Load))
    return {flat[0] for flat in flats if flat is not None}


def _range_reads_the_body(loop, body, stored) -> bool:
    """The range reads a name the body binds, or an array the body writes into other than
    through its length or shape (``len(a)`` stays what it was where ``a[i]`` is written)."""
    written = set(stored) | _written_into(body)
    sized = {id(n.args[0]) for n in gast.walk(loop.iter) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
             and n.func.id == "len" and len(n.args) == 1}
    sized |= {id(n.value) for n in gast.walk(loop.iter) if isinstance(n, gast.Attribute) and n.attr in _SIZES}
    return any(isinstance(n, gast.Name) and n.id in written and (n.id in stored or id(n) not in sized)
               for n in gast.walk(loop.iter))


def _split_ifs(ctx, body: list[gast.stmt], variant: set[str]) -> list[gast.stmt]:
    """``body`` with each ``if T: S1; S2 else: S3`` whose test reads nothing the loop binds or
    writes into (the index and values it only reads) as ``if T: S1``, ``if T: S2`` and ``if not
    (T): S3``: the same statements under the same test, each free to go to a loop of its own
    (if-conversion across statements: the test is computed again, with the same value, in
    each piece). Each such statement names the ``if`` it comes from, whether it is of the
    ``else`` branch, and its statement (``pforge_if``, ``pforge_body``: ``Splicer.piece_lines``
    writes its text). An ``elif`` chain stays whole."""
    written = set(variant) | _written_into(body)
    out = []
    for stmt in body:
        tested = {n.id for n in gast.walk(stmt.test) if isinstance(n, gast.Name)} if isinstance(stmt, gast.If) else None
        parts = stmt.body + stmt.orelse if tested is not None else []
        if tested is None or tested & written or len(parts) < 2 or stmt.body[0].lineno <= stmt.lineno \
                or _elif(ctx, stmt) or any(b.lineno <= a.end_lineno for a, b in zip(parts, parts[1:])) \
                or any(ctx.lines[part.lineno - 1][:part.col_offset].strip() for part in parts):
            # (`else: c[i] = v` on one line: a statement's text must start its line)
            out.append(stmt)
            continue
        for branch, negated in ((stmt.body, False), (stmt.orelse, True)):
            for inner in branch:
                test = gast.UnaryOp(op=gast.Not(), operand=copy.deepcopy(stmt.test)) if negated \
                    else copy.deepcopy(stmt.test)
                unit = gast.If(test=test, body=[inner], orelse=[])
                gast.copy_location(unit, stmt)
                unit.end_lineno, unit.end_col_offset = inner.end_lineno, inner.end_col_offset
                unit.pforge_if, unit.pforge_body = (stmt, negated), inner
                unit.pforge_lines = (inner.lineno, inner.end_lineno)  # (what a remark names)
                out.append(unit)
    return out


def _elif(ctx, stmt: gast.If) -> bool:
    """``stmt``'s ``else`` is an ``elif`` (its text shares the ``if``'s level)."""
    return len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], gast.If) and \
        ctx.lines[stmt.orelse[0].lineno - 1].lstrip().startswith("elif")


def _recomputable(ctx, loop, facts, stored, induction) -> dict[str, gast.Assign]:
    """The names bound by ``name = E`` once in the body, read only after it and not after the
    loop, where ``E`` reads the loop index and values the loop writes nowhere: each piece that
    reads ``name`` computes it again, and the statements reading it need not share a loop
    (scalar expansion without the array: Allen & Kennedy 5.4)."""
    inside = {id(n) for n in gast.walk(loop)}
    written = set().union(*(f.written for f in facts)) | set(stored)
    found = {}
    for k, f in enumerate(facts):
        stmt = f.stmt
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            continue
        name = stmt.targets[0].id
        reads = {n.id for n in gast.walk(stmt.value) if isinstance(n, gast.Name)}
        if len(stored.get(name, ())) != 1 or reads & written or name in reads or name == induction or any(
                isinstance(n, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)) for n in gast.walk(stmt.value)):
            continue  # (a comprehension would be a loop in each piece that computes it)
        if any(name in other.names for other in facts[:k]):
            continue  # (read before it: the previous iteration's value)
        if any(id(use) not in inside for use in ctx.users_of(stmt.targets[0])):
            continue  # (read after the loop: a piece batched would not keep the last value)
        found[name] = stmt
    return found


@dataclass
class _Level:
    """What ``subscripts._wrapping_access`` reads of a loop level: its iteration space."""

    space: object


class _Refused(Exception):
    """A statement distribution cannot model (a write through an attribute or a view)."""


class _Statement:
    """What one top-level statement of the body binds, writes into and reads."""

    def __init__(self, stmt):
        self.stmt = stmt
        parents = {id(c): p for p in gast.walk(stmt) for c in gast.iter_child_nodes(p)}
        names = [n for n in gast.walk(stmt) if isinstance(n, gast.Name)]
        self.names = {n.id for n in names}
        self.bound = {n.id for n in names if not isinstance(n.ctx, gast.Load)}
        self.accesses: dict[str, list[dependence.Access]] = {}
        through: set[int] = set()  # the base names of modelled subscripts
        for node in gast.walk(stmt):
            if isinstance(node, (gast.Attribute, gast.Starred)) and not isinstance(node.ctx, gast.Load):
                raise _Refused  # `obj.x = v`: no name says what it touches
            parent = parents.get(id(node))
            if not isinstance(node, gast.Subscript) or isinstance(parent, gast.Subscript) and parent.value is node:
                continue  # (the outer subscript of a chain is the access)
            store = not isinstance(node.ctx, gast.Load)
            flat = dependence.flatten_subscript(node)
            if flat is None:
                if store:
                    raise _Refused
                continue  # (its base, read whole below, ties it to any writer)
            base = node
            while isinstance(base, gast.Subscript):
                base = base.value
            through.add(id(base))
            self.accesses.setdefault(flat[0], []).append(dependence.Access(flat[0], flat[1], stmt, store))
            if store:
                self.bound.add(flat[0])
                if isinstance(stmt, gast.AugAssign):  # (`a[i] += t` reads the element too)
                    self.accesses[flat[0]].append(dependence.Access(flat[0], flat[1], stmt))
        self.whole = {n.id for n in names if id(n) not in through}
        #: the names it reads, any of which may be an array (`b[q[i + 1]]` reads `q`; a number
        #: passes the checks of `_apart`)
        self.data = set(self.names)
        #: names whose memory the statement may write: elements stored (`a[i] = v`), or an
        #: augmented name (`acc += t` adds into an array in place)
        self.written = {name for name, accesses in self.accesses.items() if any(a.write for a in accesses)}
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
            self.written.add(stmt.target.id)

    def meets(self, other: "_Statement") -> bool:
        """The two touch a name one of them binds or writes into."""
        return bool(self.bound & other.names or other.bound & self.names)

    def scalar_shared(self, other: "_Statement") -> set[str]:
        """Names one binds and the other touches that are not arrays read and written through
        subscripts in both (they tie the two statements into one loop)."""
        shared = self.bound & other.names | other.bound & self.names
        return {n for n in shared if n in self.whole or n in other.whole
                or n not in self.accesses or n not in other.accesses}


def _directions(first: _Statement, later: _Statement, induction, variant, step_sign,
                wrapped: set[str]) -> tuple[bool, bool]:
    """Whether ``first`` may touch an element at the same or an earlier iteration than ``later``
    (after it in the body) touches it, one of them writing (the loop needs ``first``'s access
    first: forward); and whether ``later`` may touch one at an earlier iteration (backward).
    An array in ``wrapped`` (an index that may be negative) ties them both ways."""
    if first.scalar_shared(later) or (first.bound & later.names | later.bound & first.names) & wrapped:
        return True, True
    forward = backward = False
    for name in first.bound & later.names | later.bound & first.names:
        for p in first.accesses.get(name, []):
            for q in later.accesses.get(name, []):
                for writer, other, writer_first in ((p, q, True), (q, p, False)):
                    if writer.write:
                        ahead, behind = _order(dependence.test_pair(writer, other, induction, variant, step_sign),
                                               writer_first)
                        forward, backward = forward or ahead, backward or behind
    return forward, backward


def _order(conflict, writer_first: bool) -> tuple[bool, bool]:
    """``(forward, backward)`` for what ``dependence.test_pair(writer, other)`` found: None, the
    same iteration's element only (or none), which the body's order settles; flow, the writer's
    iteration earlier; anti, the other's; output, as ``write_later`` says; else both."""
    if conflict is None:
        return True, False
    if conflict.kind in ("flow", "anti"):
        writer_earlier = conflict.kind == "flow"
    elif conflict.kind == "output" and conflict.write_later is not None:
        writer_earlier = not conflict.write_later
    else:
        return True, True
    first_earlier = writer_earlier == writer_first
    return first_earlier, not first_earlier


def _components(count: int, edges: set[tuple[int, int]]) -> list[set[int]]:
    """The strongly connected components of the statement graph, in a topological order (ties
    by the first statement of each)."""
    reach = [[a == b or (a, b) in edges for b in range(count)] for a in range(count)]
    for k in range(count):  # Warshall's transitive closure
        for a in range(count):
            if reach[a][k]:
                for b in range(count):
                    reach[a][b] = reach[a][b] or reach[k][b]
    components: list[set[int]] = []
    for a in range(count):
        if not any(a in c for c in components):
            components.append({b for b in range(count) if reach[a][b] and reach[b][a]})
    order: list[set[int]] = []
    while components:
        ready = next(c for c in components if not any(
            reach[b][a] for other in components if other is not c for b in other for a in c))
        order.append(ready)
        components.remove(ready)
    return order


def _apart(ctx, loop, pieces, induction) -> list[tuple[str, str]] | None:
    """The parameter pairs to check apart at run time; None where a name shared between pieces
    may be another's memory and no check can tell (see the module docstring)."""
    fdef = ctx.parents.get(id(loop))
    while fdef is not None and not isinstance(fdef, (gast.FunctionDef, gast.AsyncFunctionDef)):
        fdef = ctx.parents.get(id(fdef))
    if fdef is None:
        return None
    params = {a.id for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    params |= {a.id for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None}
    inner = {id(n) for n in gast.walk(loop)}
    outside = {name: [n for n in nodes if id(n) not in inner] for name, nodes in _stored_names(fdef.body).items()}
    facts = [f for piece in pieces for f in piece]
    local = set().union(*(f.bound for f in facts)) - set().union(*(f.written for f in facts))
    ranged = {n.id for n in gast.walk(loop.iter) if isinstance(n, gast.Name)}  # (each piece reads it again)
    pairs = set()
    for a, mine in enumerate(pieces):
        for b, theirs in enumerate(pieces):
            if a == b and not ranged:
                continue
            for written in set().union(*(f.written for f in mine)):
                reads = ranged | (set().union(*(f.data for f in theirs)) if a != b else set())
                for other in reads - local - {written, induction}:
                    if other in params or other in outside or ctx.imports.resolve(gast.Name(
                            id=other, ctx=gast.Load(), annotation=None, type_comment=None)) is None:
                        pairs.add((written, other))  # (not a module or a builtin the function leaves)
    checked = []
    for written, other in sorted(pairs):
        for name in (written, other):
            bindings = outside.get(name, [])
            if name in params and not bindings or name not in params and bindings and all(
                    _bound_fresh(ctx, n) for n in bindings):
                continue
            return None  # a parameter bound again, a global, or a local that may be a view
        if written in params and other in params and (other, written) not in checked:
            checked.append((written, other))  # (np.may_share_memory is symmetric)
    return checked


def _bound_fresh(ctx, name_node) -> bool:
    """``name = <a new array>`` (``np.zeros(n)``), a list of constants (``[0.0] * n``) or a
    number (``n = a.shape[0]``, ``len(a)``): nothing else holds its memory, nor does it hold
    another's (a list display of arrays, ``[a]``, or of one row repeated, ``[[0] * 2] * n``,
    does)."""
    stmt = ctx.parents.get(id(name_node))
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is name_node):
        return False
    return _new_memory(ctx, stmt.value)


def _new_memory(ctx, value) -> bool:
    if isinstance(value, gast.Constant) or _new_scalar(ctx, value):
        return True
    if isinstance(value, gast.List):
        return all(isinstance(e, gast.Constant) for e in value.elts)
    if isinstance(value, gast.BinOp):  # `[0.0] * n`, `[1, 2] + [3]` (`a + b` of lists holds their rows)
        flat = [isinstance(v, gast.List) and _new_memory(ctx, v) for v in (value.left, value.right)]
        return isinstance(value.op, gast.Mult) and (flat[0] and _number(value.right) or flat[1] and _number(value.left)) \
            or isinstance(value.op, gast.Add) and all(flat)
    if isinstance(value, gast.Call):
        callee = ctx.imports.resolve(value.func)
        if callee in ("numpy.array", "numpy.asarray", "numpy.copy") and len(value.args) == 1 and not any(
                k.arg == "copy" for k in value.keywords):
            # a copy into a dtype of numbers (of an array of objects, its items would be shared)
            dtype = next((k.value for k in value.keywords if k.arg == "dtype"), None)
            return callee != "numpy.asarray" and dtype is not None and (ctx.imports.resolve(dtype) or "") in _NUMBERS
        return callee in _NEW_ARRAYS and not any(k.arg == "out" for k in value.keywords)
    while isinstance(value, gast.Subscript):
        value = value.value
    return isinstance(value, gast.Attribute) and value.attr in _SIZES


def _number(value) -> bool:
    """An expression of names and integers only (``n``, ``len(x) - 1``): a count, as in ``[0.0] * n``."""
    return isinstance(value, (gast.Name, gast.Constant)) or isinstance(value, gast.BinOp) and \
        _number(value.left) and _number(value.right) or isinstance(value, gast.Call) and \
        isinstance(value.func, gast.Name) and value.func.id == "len"


#: dtypes of numbers, as a ``dtype=`` argument names them
_NUMBERS = {"builtins.float", "builtins.int", "builtins.complex", "builtins.bool"} | {
    f"numpy.{t}" for t in ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "uint16",
                           "uint32", "uint64", "complex128", "complex64", "bool_", "double", "intp")}

#: NumPy calls that make a new array of numbers (whatever their arguments hold)
_NEW_ARRAYS = {f"numpy.{name}" for name in ("zeros", "ones", "empty", "full", "arange", "linspace", "eye",
                                            "identity", "zeros_like", "ones_like", "empty_like")}


#: attributes of an array that are numbers or tuples of numbers
_SIZES = ("shape", "size", "ndim", "itemsize", "nbytes")
