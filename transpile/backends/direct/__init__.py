"""The direct backend: batched ops written at source level from a registry of batching rules.

Where the pfor backend emits ``tf.vectorized_map`` and lets pfor convert each op at trace
time, this backend applies the same kind of converters (Agarwal & Ganichev,
arXiv:1903.04243) to the source: each call on stacked values is rewritten into its batched
form, so the output reads like hand-batched code, traces faster, and also works for NumPy,
which has no ``vectorized_map``. One module per op family registers its rules in
:data:`core.REGISTRY`; :mod:`.emitter` walks the loop body.
"""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.analysis import LoopInfo, ModuleContext
from pforge.transpile.analysis.facts import PRIVATE
from pforge.transpile.analysis.nodes import dead_start
from pforge.transpile.backends.direct import elementwise, linalg, nn, reductions, shape  # noqa: F401

_FAMILIES = (elementwise, linalg, nn, reductions, shape)  # importing them registers their rules
from pforge.transpile.backends.common import own_rank_asserts
from pforge.transpile.backends.common_subexpressions import bind_common_subexpressions
from pforge.transpile.backends.direct.core import REGISTRY, InvariantTest, Lib, Unsupported
from pforge.transpile.backends.direct.emitter import DirectRewriter
from pforge.transpile.backends.direct.shared import same_rows
from pforge.transpile.backends.pfor import LoopRewrite
from pforge.transpile.naming import Namer

__all__ = ["REGISTRY", "Unsupported", "rewrite_loop"]


def rewrite_loop(ctx: ModuleContext, info: LoopInfo, namer: Namer, tf: str | None, np: str | None = None,
                 shapes: dict | None = None, to_tensorflow: bool = False) -> LoopRewrite:
    """Builds the batched replacement of ``info``'s loop nest.

    Args:
        ctx: the module context.
        info: an analysed, vectorizable outermost loop level.
        namer: generated names (few: temporaries under a per-iteration ``if``).
        tf, np: the local names of ``tensorflow`` and ``numpy`` (None when not imported).
        shapes: ranks given by the user (``{"x": 2}`` or ``{"f.x": 2}``), or probed.
        to_tensorflow: write a NumPy loop with ``tf.experimental.numpy`` (``--target tensorflow``);
            ``tf`` is then the name the module will bind to tensorflow.
    Returns:
        The replacement statements and the edits outside the loop (collector initialisers
        dropped, ``tf.stack(outs)`` consumers replaced).
    Raises:
        Unsupported: an op without a batching rule, or an unknown rank that decides
            broadcasting; the message names it.
    """
    _check_semantics(ctx, info)
    if any(level.runtime_checks for level in info.walk() if level is not info) or info.runtime_checks and (
            to_tensorflow or info.library == "tensorflow"):
        # (an inner level's check reads the outer index, which no check in front can)
        raise Unsupported("an access distance that depends on invariant names, checked at run time, "
                          "inside another loop or in TensorFlow code")
    if info.library == "python" and ctx.imports.alias_for("tensorflow") and not to_tensorflow:
        # No library call in the loop: its values may be tensors as well as arrays.
        raise Unsupported("a loop with no NumPy or TensorFlow call in a module that imports "
                          "TensorFlow: its values may be tensors, which NumPy ops would not keep")
    if info.library == "tensorflow":
        if tf is None:
            raise Unsupported("tensorflow is not imported under a plain name")
        lib = Lib("tf", tf)
    elif info.library in ("numpy", "python") and to_tensorflow:
        for node in gast.walk(info.node):
            if isinstance(node, gast.Call) and (
                    ctx.imports.resolve(node.func) in ("numpy.argmax", "numpy.argmin")
                    or isinstance(node.func, gast.Attribute) and node.func.attr in ("argmax", "argmin")):
                raise Unsupported("np.argmax returns the index of a NaN, TensorFlow's does not")
        lib = Lib("np", f"{tf or 'tf'}.experimental.numpy")
        rewriter = DirectRewriter(ctx, info, namer, lib, shapes or {}, to_tf=True)
        result = rewriter.run()
        # (what the batched code needs of the trip counts, which `versioning.guard` tests)
        result.nonempty, result.needs_trip, result.trip_levels = \
            rewriter.nonempty, rewriter.needs_trip, rewriter.trip_levels
        return result
    elif info.library in ("numpy", "python"):
        if np is None:
            raise Unsupported("a plain-Python loop in a module that does not import numpy")
        lib = Lib("np", np)
    else:
        raise Unsupported("the loop mixes NumPy and TensorFlow")
    try:
        return _rewritten(DirectRewriter(ctx, info, namer, lib, shapes or {}))
    except InvariantTest as exc:
        return _unswitched(ctx, info, namer, lib, shapes or {}, exc)


def _rewritten(rewriter: DirectRewriter, bind_common: bool = True) -> LoopRewrite:
    taken = set(rewriter.namer.taken)
    result = rewriter.run()
    bound = getattr(rewriter.ctx, "memory_bound", None)
    if bound and (rows := rewriter.strip_rows()) is not None:
        _strip_mine(rewriter, result, rows, taken, bound)
    fresh = set(rewriter.namer.taken) - taken
    _coalesce(result, fresh)
    result.stmts[:] = [st for st in result.stmts if not _self_copy(st)]
    _drop_dead_privates(rewriter.info, result)
    _drop_dead_starts(rewriter, result)
    _unread_declared_ranks(rewriter, result)
    if bind_common:
        bind_common_subexpressions(result.stmts, rewriter.namer, rewriter.ctx.imports, fresh,
                                   _loaded(_outside_stmts(result)))
    result.consulted = set(rewriter.consulted)
    result.nonempty = rewriter.nonempty
    result.needs_trip = rewriter.needs_trip
    result.trip_levels = rewriter.trip_levels
    result.arrays = set(rewriter.arrays)
    result.sliced = set(rewriter.sliced)
    result.scalar_raising = rewriter.scalar_raising
    return result


def _loaded(nodes) -> set[str]:
    return {n.id for node in nodes for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _outside_stmts(result: LoopRewrite) -> list[gast.AST]:
    return [*result.prelude, *result.checks, *result.replace.values()]


def _coalesce(result: LoopRewrite, fresh: set[str]) -> None:
    """Copy coalescing of the batched statements: ``t = E`` then ``name = t``, where ``t`` is a
    name this rewrite made and nothing else reads, becomes ``name = E`` where the first was
    (nothing in between reads or binds ``name``): the running values of a TensorFlow scan bound
    straight to the list they are stacked from (``out = tf.math.cumsum(r, axis=0)``)."""
    stmts = result.stmts
    outside = _loaded(_outside_stmts(result))
    k = 0
    while k < len(stmts):
        first = stmts[k]
        if isinstance(first, gast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name) \
                and first.targets[0].id in fresh and first.targets[0].id not in outside:
            temp = first.targets[0].id
            uses = [n for st in stmts for n in gast.walk(st) if isinstance(n, gast.Name) and n.id == temp]
            copy_at = next((m for m in range(k + 1, len(stmts))
                            if isinstance(stmts[m], gast.Assign) and len(stmts[m].targets) == 1
                            and isinstance(stmts[m].targets[0], gast.Name)
                            and isinstance(stmts[m].value, gast.Name) and stmts[m].value.id == temp), None)
            if copy_at is not None and len(uses) == 2:
                name = stmts[copy_at].targets[0].id
                between = {n.id for st in stmts[k + 1:copy_at] for n in gast.walk(st) if isinstance(n, gast.Name)}
                if name not in between:
                    first.targets[0].id = name
                    del stmts[copy_at]
                    continue
        k += 1


def _self_copy(stmt: gast.stmt) -> bool:
    """``x[1:len(x)] = x[1:]``: a store of rows of an array into the same rows
    (:func:`~.shared.same_rows`), as an accumulate into its own array leaves the loop's write
    back of its values; it changes nothing, and goes."""
    return isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and same_rows(stmt.targets[0], stmt.value)


def _drop_dead_privates(info: LoopInfo, result: LoopRewrite) -> None:
    """Dead-code elimination of the batched statements: ``name = E``, where ``name`` is private to
    the loop (the analysis proved no read of it after the loop) and nothing in the rewrite reads
    it, goes (``reward = rewards[:n]`` beside a ``tf.scan`` whose step reads the row itself).
    Repeated until none goes: one statement's removal can leave another unread."""
    private = {name for name, kind in info.classes.items() if kind == PRIVATE} - set(info.live_out) \
        - info.live_last - info.live_invariants - info.live_targets
    removed = True
    while removed:
        removed = False
        read = _loaded([*result.stmts, *_outside_stmts(result)])
        for k, stmt in enumerate(result.stmts):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) \
                    and stmt.targets[0].id in private and stmt.targets[0].id not in read:
                del result.stmts[k]
                removed = True
                break


def _drop_dead_starts(rewriter: DirectRewriter, result: LoopRewrite) -> None:
    """The literal a running value starts from (``total = 0.0``) is deleted where the batched
    code does not read it (a scan of the terms alone, or one with the literal written in) and
    nothing but the loop did (:func:`analysis.nodes.dead_start`). A rewrite with checks in
    front keeps it for the loop that runs where they fail (:mod:`versioning` empties
    ``drop``)."""
    read = _loaded([*result.stmts, *_outside_stmts(result)])
    for name in sorted(rewriter.info.scans):
        if name not in read:
            stmts = dead_start(rewriter.ctx, rewriter.info.node, name)
            result.drop += [s for s in stmts or () if all(s is not d for d in result.drop)]


def _unread_declared_ranks(rewriter: DirectRewriter, result: LoopRewrite) -> None:
    """The check of a declared rank (:meth:`DirectRewriter._declared_ranks`) of a name the
    batched code no longer reads, its statements dropped as dead, goes with them."""
    asserts = own_rank_asserts(result)
    stmts = [st for st in result.stmts if not (isinstance(st, gast.Expr) and gast.dump(st.value) in asserts)]
    read = rewriter.rank_reads([*stmts, *result.prelude, *result.replace.values()])
    for name, (check, _) in list(result.declared_ranks.items()):
        if name not in read:
            dump = gast.dump(check)
            result.checks[:] = [c for c in result.checks if gast.dump(c) != dump]
            result.stmts[:] = [st for st in result.stmts if not (isinstance(st, gast.Expr) and gast.dump(st.value) == dump)]
            del result.declared_ranks[name]


def _strip_mine(rewriter: DirectRewriter, result: LoopRewrite, rows: gast.expr, taken: set[str],
                bound: int) -> None:
    """Strip-mining (Allen & Kennedy, "Optimizing Compilers for Modern Architectures", 2001,
    section 9.3.2, and JAX's ``lax.map(batch_size=...)``): ``result``'s batched code computes
    its largest value for every iteration of the outermost level at once, which may need far
    more memory than the loop (``X[i] - Y[j]`` batched is ``n × m × dim`` values where the
    loop holds one row). Its statements become a loop over strips of that level's rows, each
    strip the batched code for ``i_lo <= i < i_hi`` only, with as many rows as keep the
    largest value within ``bound`` bytes of float64 (at least one row)::

        i_strip = max(1, 2097152 // max(1, n_r * np.shape(X)[-1]))
        for i_lo in range(0, n_q, i_strip):
            i_hi = min(i_lo + i_strip, n_q)
            D[i_lo:i_hi, :] = np.sqrt(np.sum(np.square(X[i_lo:i_hi, np.newaxis] - Y[np.newaxis]), axis=-1))

    Legal because the level is independent and writes elements or reduces into a running
    value, which each strip's batched statement (``s += np.sum(...)``, ``s = np.maximum(s,
    np.max(...))``) combines its rows into (the strips run in the loop's order); the checks in front stay those of the whole range, which is kept only where
    the strips' own checks are the same ones. ``rows`` is :meth:`DirectRewriter.strip_rows`;
    ``taken`` the names taken before ``result`` was built (the strips reuse its names).
    ``result`` is left as it is where the strips cannot be built.
    """
    namer = rewriter.namer
    after = set(namer.taken)
    namer.taken = set(taken)
    index = rewriter.info.space.induction
    size, lo, hi = namer.new(f"{index}_strip"), namer.new(f"{index}_lo"), namer.new(f"{index}_hi")
    try:
        strip = DirectRewriter(rewriter.ctx, rewriter.info, namer, rewriter.lib, rewriter.shapes,
                               strip=(lo, hi)).run()
    except Unsupported:
        strip = None

    def dumps(nodes):
        return sorted(gast.dump(n) for n in nodes)

    if strip is None or dumps(strip.checks) != dumps(result.checks) or strip.drop or strip.replace \
            or result.drop or result.replace or dumps(strip.prelude) != dumps(result.prelude) \
            or _converts(strip.stmts, rewriter.lib.alias):
        namer.taken = after | set(namer.taken) - {size, lo, hi}
        return
    space = rewriter.info.space
    values = bound // 8
    start = copy.deepcopy(space.start) if space.start is not None else gast.Constant(value=0, kind=None)
    head = templates.replace(f"{size} = max(1, {values} // max(1, ROWS))", ROWS=rows)
    head += templates.replace(f"for {lo} in range(START, STOP, {size}):\n    {hi} = min({lo} + {size}, STOP)",
                              START=start, STOP=copy.deepcopy(space.stop))
    head[-1].body += strip.stmts
    result.stmts = head
    result.pattern += f", in strips of rows ({values:,} values at most at once)"
    strips = f" in strips of `{size}` rows, {values:,} values at most at once"
    result.footprint = result.footprint.replace(" at once,", f",{strips},", 1) if result.footprint else ""


def _converts(stmts: list[gast.stmt], np_alias: str) -> bool:
    """Whether ``stmts`` convert a name to an array (``np.asarray(xs)[i_lo:i_hi]``, a list the
    checks admit): each strip would convert all of it again."""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in ("asarray", "array")
               and isinstance(n.func.value, gast.Name) and n.func.value.id == np_alias
               and n.args and isinstance(n.args[0], gast.Name)
               for st in stmts for n in gast.walk(st))


def _unswitched(ctx, info, namer, lib, shapes, found: InvariantTest) -> LoopRewrite:
    """Loop unswitching (Allen & Kennedy, "Optimizing Compilers for Modern Architectures",
    2001, section 7.2.2): an ``if`` at the top of the body whose test is the same on every
    iteration (``if normalize:``) becomes a Python ``if`` around two rewrites of the loop, one
    with the ``if`` replaced by its body and one by its ``else`` part::

        if normalize:
            <the loop with `if normalize: A else: B` as A, batched>
        else:
            <the loop with it as B, batched>

    The test is evaluated once, where the loop evaluates it on every iteration: it reads only
    names the loop does not bind (``_unswitchable_test``), and only where the loop runs at
    least once (a check in front). Each rewrite's own checks are evaluated only where its
    outcome holds (``not t or checks``), so a check of a value one outcome never reads (a
    ``None`` the other branch skips) is never evaluated. One such ``if`` per loop.

    Raises:
        Unsupported: either rewrite fails, a second invariant ``if``, a loop whose trip count
            the check in front cannot state, or rewrites that edit code outside the loop apart.
    """
    from pforge.transpile import versioning
    stmt = found.stmt
    trips = versioning._runs_at_all(info)
    if trips is None:
        raise Unsupported(f"{found} (the loop's trip count is no simple test, so the `if` cannot be "
                          "evaluated once in front of it)")
    results, names_before = [], set(namer.taken)
    for outcome in (True, False):
        try:
            # (common subexpressions are bound once the statements both write are in front)
            results.append(_rewritten(DirectRewriter(ctx, info, namer, lib, shapes, assume={id(stmt): outcome}),
                                      bind_common=False))
        except InvariantTest as exc:
            raise Unsupported(f"{exc}, a second `if` whose test does not depend on the loop") from None
        except Unsupported as exc:
            branch = "its body" if outcome else "its `else` part"
            raise Unsupported(f"{exc} (the loop rewritten with the `if` at line {stmt.lineno} taken as "
                              f"{branch})") from None
    taken, other = results
    if taken.replace or other.replace or {id(s) for s in taken.drop} != {id(s) for s in other.drop}:
        raise Unsupported(f"{found}, and the two rewrites edit code outside the loop apart")
    test = stmt.test
    checks = [] if trips is versioning.RUNS else [copy.deepcopy(trips)]
    both = {gast.dump(c) for c in taken.checks} & {gast.dump(c) for c in other.checks}
    checks += [c for c in taken.checks if gast.dump(c) in both]  # (evaluated whichever way the test goes)
    for result, holds in ((taken, True), (other, False)):
        mine = [c for c in result.checks if gast.dump(c) not in both]
        if not mine:
            continue
        own = mine[0] if len(mine) == 1 else gast.BoolOp(op=gast.And(), values=mine)
        skip = copy.deepcopy(test) if not holds else gast.UnaryOp(op=gast.Not(), operand=copy.deepcopy(test))
        checks.append(gast.BoolOp(op=gast.Or(), values=[skip, own]))
    # what both rewrites do before the test's statement is written once, in front of the `if`
    dumps = [[gast.dump(s) for s in r.stmts] for r in results]
    common = next((k for k, (a, b) in enumerate(zip(*dumps)) if a != b), min(map(len, dumps)))
    common = min(common, len(taken.stmts) - 1, len(other.stmts) - 1) if common else 0
    unswitched = gast.If(test=copy.deepcopy(test), body=taken.stmts[common:] or [gast.Pass()],
                         orelse=other.stmts[common:] or [gast.Pass()])
    result = LoopRewrite(taken.stmts[:common] + [unswitched], taken.drop, {}, f"{taken.pattern}, unswitched on `{gast.unparse(test).strip()}`",
                         checks=checks)
    result.consulted = taken.consulted | other.consulted
    result.nonempty = taken.nonempty or other.nonempty
    result.needs_trip = True  # (the test is evaluated only where the loop runs)
    result.arrays = taken.arrays | other.arrays
    result.sliced = taken.sliced | other.sliced
    result.scalar_raising = taken.scalar_raising or other.scalar_raising
    seen = {gast.dump(st) for st in taken.prelude}
    result.prelude = taken.prelude + [st for st in other.prelude if gast.dump(st) not in seen]
    result.objects = taken.objects | other.objects
    result.unsafe = taken.unsafe or other.unsafe
    fresh, outside = set(namer.taken) - names_before, _loaded(_outside_stmts(result))
    for stmts in (result.stmts, unswitched.body, unswitched.orelse):
        bind_common_subexpressions(stmts, namer, ctx.imports, fresh, outside)
    return result


def _check_semantics(ctx: ModuleContext, info: LoopInfo) -> None:
    """Loop meanings the batching rules do not reproduce: argmax tracking (pfor keeps the
    loop's tie and NaN rules), built-in ``max``/``min`` reductions (Python's comparison skips
    NaN terms, ``reduce_max`` propagates them) and opted-in random draws (a batched call would
    be one draw for every iteration)."""
    for level in info.walk():
        if level.arg_reductions and (level is not info or info.library == "tensorflow"):
            name = next(iter(level.arg_reductions))
            raise Unsupported(f"argmax tracking of `{name}` has no batching rule here (NumPy, an "
                              "outermost loop with no inner one)")
        if level.random_draws:
            raise Unsupported("a random draw has no batching rule")
        for red in level.reductions.values():
            value = getattr(red.updates[0], "value", None)
            if isinstance(value, gast.Call) and ctx.imports.resolve(value.func) in ("numpy.fmax", "numpy.fmin"):
                raise Unsupported(f"`{gast.unparse(value).strip()}` skips NaN terms, which a batched "
                                  "max does not")
            if isinstance(value, gast.Call) and ctx.imports.resolve(value.func) in ("builtins.max", "builtins.min"):
                raise Unsupported(f"`{gast.unparse(value).strip()}` compares with Python's "
                                  f"{value.func.id}(), which skips NaN terms; use "
                                  f"{'tf.maximum' if value.func.id == 'max' else 'tf.minimum'} or np.{value.func.id}imum")
