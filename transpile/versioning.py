"""Loop versioning: a rewrite that is right only under conditions the source cannot prove
runs behind a run-time check of them, with the loop as written kept for where they fail.

The conditions are the ranks pforge inferred but the code only suggests
(:mod:`pforge.transpile.rank_inference`), array-ness where the batched code needs an array,
that the loop runs at all, and the checks a printer asks for (``LoopRewrite.checks``: each
sliding window inside its array, ``zip`` of equal lengths). After LLVM's LoopAccessAnalysis,
which versions a loop on run-time alias checks (docs/architecture.md, "Run-time checks").
"""

from __future__ import annotations

import collections
import copy
import itertools
import math

import gast

from pforge.transpile import specialize, templates
from pforge.transpile.backends.common import _evidently_array, rank_test
from pforge.transpile.frontend import builtins_bound_at
from pforge.transpile.naming import Namer
from pforge.transpile.spaces import constant_int
from pforge.transpile.splice import unparse_lines


def rewrite_with_inferred_ranks(ctx, info, namer, tf_alias, np_alias, shapes):
    """A NumPy loop the direct backend could not batch, tried again with the ranks the code
    shows (:mod:`pforge.transpile.rank_inference`).

    Ranks the code proves are used as given; ranks it only suggests are checked at run time by
    a guard (``np.ndim(vec) == 1``) in front of the batched code, the loop as written running
    where the guard fails. A flat list the loop only reads goes through ``np.asarray``; a value
    whose rows the batched code uses, or which it writes into, is checked to be an array
    (:func:`_needs_an_array`).

    Returns:
        ``(rewrite, why)``: the rewrite (None when there is none) and the backend note, or, with
        no rewrite, the reason it still fails with the inferred ranks (None: no ranks to infer).
    """
    from pforge.transpile import ranks
    from pforge.transpile.analysis.nodes import literal_number_at_entry, shape_ints_at_entry
    from pforge.transpile.backends import direct
    from pforge.transpile.backends.direct.levels import _bound_once
    from pforge.transpile.rank_inference import RankGuess, infer_ranks, local_ranks
    from pforge.transpile.rank_inference import _evaluate as evaluate
    from pforge.transpile.rank_inference import _parameters as fdef_parameters
    fdef = info.function
    if fdef is None or np_alias is None:
        return None, None
    known = ranks.parameter_shapes(ctx, fdef, shapes)
    guess = infer_ranks(ctx, fdef, known)
    if guess is None or not guess.ranks:
        # Every parameter's rank is known (or none can be inferred): the locals' may still be
        # (`c = from_mel(np.arange(n))`).
        if not local_ranks(ctx, fdef, known, {}):
            return None, None
        guess = RankGuess({}, {})

    written = _needs_an_array(ctx, info, {n: r for n, r in guess.ranks.items() if r >= 1}, written_only=True)
    checked_locals = _checkable_locals(info)

    def locals_for(assignment):
        """The inferred ranks of the locals the loop reads that a check can cover: bound by a
        statement of the function body before the loop, or evidently arrays."""
        return {name: rank for name, rank in local_ranks(ctx, fdef, known, assignment).items()
                if name in checked_locals}

    def option(assignment):
        # Inferred locals may be lists: read through np.asarray, written only where evidently arrays.
        given = {f"{fdef.name}.{name}": ("inferred", rank) for name, rank in locals_for(assignment).items()}
        given.update(shapes or {})
        # Written arrays are checked to be arrays (`isinstance`): the batched code writes them as such.
        # (`("checked", r)`: as a declared rank, whose check is this function's, not the printer's)
        given.update({f"{fdef.name}.{name}": ("checked", rank) if name in written else ("inferred", rank)
                      for name, rank in assignment.items()})
        return given

    def trial(assignment):
        """The text of the rewrite for ``assignment`` (None: none), named as the real one."""
        names = Namer.__new__(Namer)
        names.taken = set(namer.taken)
        try:
            found = direct.rewrite_loop(ctx, info, names, tf_alias, np_alias, option(assignment))
        except direct.Unsupported:
            return None
        return unparse_lines(found.stmts) + unparse_lines([gast.Expr(value=c) for c in found.checks])

    in_loop = {n.id for n in gast.walk(info.node) if isinstance(n, gast.Name)} | {
        name for level in info.walk() for name in level.helper_reads}  # (read by helpers it calls)
    told = ", ".join(f"`{name}` {_rank_words(rank)}" for name, rank in sorted(guess.ranks.items())) or \
        ", ".join(f"`{name}` {_rank_words(rank)}" for name, rank in sorted(locals_for({}).items())
                  if name in in_loop)
    text = trial(guess.ranks) if guess.assumed else None
    try:
        result = direct.rewrite_loop(ctx, info, namer, tf_alias, np_alias, option(guess.ranks))
    except direct.Unsupported as exc:
        return None, f"{exc} (with the ranks inferred from the code: {told})"
    fixed = {name: shape.rank for name, shape in known.items()}
    accepted = _accepted_ranks(guess, lambda assignment: trial(assignment) == text,
                               lambda assignment: evaluate(ctx, fdef, fixed, assignment) is not None
                               ) if guess.assumed else {}
    # Every inferred rank is checked, the proven ones too: the code proves a rank only for inputs
    # the loop runs on without raising, and for the others the loop must run, and raise, as written.
    found = {name: accepted.get(name, {rank}) for name, rank in guess.ranks.items()}
    # A local given a rank (`kept = np.zeros(shape)`) is checked where the loop starts: only
    # if this loop uses it, and then it must be bound there already.
    params = set(fdef_parameters(fdef))
    found = {name: f for name, f in found.items() if name in params or name in in_loop}
    # A name the batched code never reads (passed to a helper's branch the call does not take)
    # needs no check, unless its rank decided which branch that is.
    # (a name the batched code only binds, `prev = E`, is not read: `s += t` reads `s`)
    read = {n.id for st in result.stmts for n in gast.walk(st) if isinstance(n, gast.Name)
            and (not isinstance(n.ctx, gast.Store) or any(isinstance(a, gast.AugAssign) and a.target is n
                                                         for a in gast.walk(st)))} | {
        n.id for c in result.checks for n in gast.walk(c) if isinstance(n, gast.Name)} | result.consulted
    # a list the loop only appends to (and the batched code extends) is no array to check
    extended = {name for level in info.walk() for name, col in level.collectors.items() if col.kind == "extend"}
    # a list of objects whose attributes the batched code gathered holds no numbers to check
    flowing = _flowing_into(fdef, read - extended, info.node, ctx.imports)
    found = {name: f for name, f in found.items()
             if name in flowing and name not in extended
             and name not in result.objects}
    # A parameter that is only the shape of arrays made before the loop (`counts = np.zeros(k)`)
    # decides nothing but their ranks: those are checked where the loop starts, on the arrays
    # themselves (`counts.ndim == 1`, whatever spelled the shape), or not at all where every
    # rank of the shape gives this rewrite (:func:`_shape_only`).
    from pforge.transpile.rank_inference import _MAX_RANK
    made_checks: dict[str, tuple[list[str], list[str]]] = {}  # shape -> (the arrays made, their checks)
    for name in sorted(found):
        made = _shape_only(ctx, fdef, name) if name in params and name not in in_loop | read else None
        if not made or not all(m in checked_locals and _bound_once(fdef, m) and m in read
                               and not _bound_from(fdef, m, info.node) for m in made):
            continue  # (each array read by the batched code itself, and bound to no other name)
        if set(range(_MAX_RANK + 1)) <= found[name]:
            made_checks[name] = (made, [])
        elif found[name] == {0}:  # (a scalar shape: arrays of one axis)
            made_checks[name] = (made, [f"{m}.ndim == 1" for m in made])
    found = {name: f for name, f in found.items() if name not in made_checks}
    unbound = sorted(name for name in found if name not in params and name not in checked_locals)
    if unbound:
        return None, (f"`{unbound[0]}`, whose rank the code only suggests, may not be bound where "
                      "the loop starts, so no run-time check can cover it")
    # a list itself as an operand (`x * c` repeats it, `x + y` concatenates; a list of arrays
    # too): only an array computes as the batch does
    # (the batched code's own operands too: `x[i] * 3` is `x * 3` there, helper-68)
    operands = {side.id for root in [info.node, *result.stmts] for n in gast.walk(root) if isinstance(n, gast.BinOp)
                for side in (n.left, n.right) if isinstance(side, gast.Name)}
    sliced = (getattr(result, "sliced", set()) | {name for name, f in found.items() if min(f) >= 1 and name in operands
                                                  and not _evidently_array(ctx, fdef, templates.name(name), at=info.node)}) & set(found)
    evident = {name for name in found if _evidently_array(ctx, fdef, templates.name(name), at=info.node)}  # `x.shape` is read
    arrays = _needs_an_array(ctx, info, {name: max(f) for name, f in found.items()}) | written | \
        (result.arrays & set(found)) | sliced | (
            _read_raw(ctx, result, {n for n, f in found.items() if min(f) >= 1}) - params - evident)
    # Values the batched code converts (`np.asarray(x)`) compute with NumPy's numbers; the others
    # keep Python's (`shape[0] - 1` of a tuple of ints).
    converted = {n.args[0].id for st in result.stmts for n in gast.walk(st)
                 if isinstance(n, gast.Call) and n.args and isinstance(n.args[0], gast.Name)
                 and isinstance(n.func, gast.Attribute) and n.func.attr == "asarray"}
    # `x.shape` shows an array, but not that it is no subclass: a matrix multiplies its rows
    # with `*`, a masked array drops its mask. Only `type(x) is np.ndarray` runs batched.
    # A negative Python float's fractional power is complex where float64 gives nan: where the
    # loop takes such a power of a number, a list the batched code converts runs the loop.
    raising = getattr(result, "scalar_raising", False) or _numbers_out(ctx, info)
    # (a list only indexed with: its numbers meet no others, :func:`_indices_only`)
    indices = {name for name in found if name not in written and _indices_only(info, name)}
    # A list of lists of Python numbers the loop writes element by element (a Game of Life
    # board): batched on an array copy, written back row by row (:func:`_grid_kind`).
    grids = {name: kind for name in sorted(written & params) if sorted(found.get(name, ())) == [2]
             and name not in evident and not raising and (kind := _grid_kind(info, name)) is not None}
    tests = [f"({_kind_check(np_alias, name, [2], True, False)} or {_grid_test(name, grids[name])})"
             if name in grids else
             _rank_check(np_alias, name, sorted(f), array=min(f) >= 1)
             if name in evident and name not in arrays else
             _kind_check(np_alias, name, sorted(f), name in arrays, name not in written | sliced,
                         sorted(f) == [2] and _elements_only(info, name),
                         python_ints=name not in converted or ("index" if name in indices else "exact"
                                                               if _compared_or_stored(info, name) else False),
                         lists=not (raising and name in converted))
             for name, f in sorted(found.items())]
    def shape_int(name):
        # `n = len(x)`, `n = x.shape[0]`, `n, d = x.shape`: a Python int where each array it
        # measures passes its check (no value those checks admit has a shape of other numbers),
        # an array bound once, so the one measured is the one checked
        arrays = shape_ints_at_entry(ctx, info.node, name)
        return arrays is not None and all(a in found and _bound_once(fdef, a) for a in arrays)

    # (a local every definition reaching the loop binds to a number literal, `G = 0.0`, is one,
    # and so is one bound to a number of a checked array's shape)
    local = {name: rank for name, rank in locals_for(guess.ranks).items()
             if name in in_loop and name in flowing and not _evidently_array(ctx, fdef, templates.name(name), at=info.node)
             and name not in extended
             and not (rank == 0 and (literal_number_at_entry(ctx, info.node, name) is not None or shape_int(name)))}
    # A list of Python floats becomes a float64 array; in the loop each is a weak float, which
    # a float32 array (or scalar) keeps float32 (NEP 50): where one is a list, the other values
    # must compute in float64 with it. One test for them all, as long as the values: every
    # such name an array, or every value (those lists too, which convert to float64 or int64;
    # of one list, the others) computing in float64. It holds only where each list's own test
    # would (the other values in float64 where it is a list), and runs the loop only where a
    # list of float32 arrays meets another list.
    # (an index list's numbers meet no others: it has no partners and is none)
    lists = sorted(name for name, f in found.items() if name in converted and not (name in evident and name not in arrays)
                   and not raising and _lists_of_numbers(sorted(f), name in arrays, name not in written | sliced)
                   and name not in indices)
    # (the arrays the function makes before the loop and the loop reads are values too:
    # `out = np.ones(k, np.float32)` then `out[i] += w[i]` adds a weak float in float32)
    made_arrays = {name for name in in_loop & checked_locals if name not in found and name not in local
                   and name not in extended and name not in result.objects
                   and name not in (info.space.target_names() if info.space is not None else ())
                   and _evidently_array(ctx, fdef, templates.name(name), at=info.node) and not _made_wide(ctx, fdef, name)}
    # (one made like another value, `G = np.zeros_like(W)`, has its dtype: tested with it)
    made_arrays = {name for name in made_arrays if _made_like(ctx, fdef, name) not in set(found) | set(local)}
    values = sorted((set(found) | set(local) | made_arrays) - indices - set(lists[:len(lists) == 1]))  # (one list: the others)
    if lists and values:
        # (of several values, one test over them all, as long as one of its own)
        each = "v" if len(values) > 1 else values[0]
        floats = (f"{np_alias}.asarray({each}).dtype.kind in 'biuf' and "
                  f"{np_alias}.result_type({np_alias}.asarray({each}), 0.0) == {np_alias}.float64")
        if len(values) > 1:
            floats = f"all({floats} for v in ({', '.join(values)}))"
        tests.append(f"({' and '.join(f'type({name}) is {np_alias}.ndarray' for name in lists)} or {floats})")
    # (a local the batched code subscripts as an array, `v[:, np.newaxis]`, must be one)
    subscripted = result.arrays | getattr(result, "sliced", set()) | (
        _read_raw(ctx, result, {n for n, rank in local.items() if rank >= 1}) - params)
    tests += [test for name in sorted(made_checks) for test in made_checks[name][1]]
    tests += [_kind_check(np_alias, name, [rank], rank >= 2 or name in subscripted,
                          name not in operands and name not in subscripted,
                          python_ints=name not in converted or ("exact" if _compared_or_stored(info, name) else False),
                          lists=not (raising and name in converted) and name not in operands)
              for name, rank in sorted(local.items())]
    # Two arguments may be one array (`f(a, a)`): the batched code reads all of it before it
    # writes, the loop reads what earlier iterations wrote.
    tests += [templates.apart(np_alias, w, r) for w in sorted(written & params)
              for r in sorted(n for n, f in found.items() if n != w and n in params and max(f) >= 1 and n in in_loop)]
    # (a grid's rows are lists: no other list the loop reads may be it or hold one of its rows)
    tests += [_grids_apart(w, r) for w in sorted(grids)
              for r in sorted(n for n in found if n != w and n in in_loop)]
    for name in sorted(grids):
        _on_a_copy(result, name, namer, np_alias)
    why = guard(info, result, _parsed(tests), ctx, np_alias)
    if why is not None:
        return None, why
    if not guess.assumed:
        return result, f"every op has a batching rule; ranks from the code: {told}" + CHECKS_NOTE * bool(result.checks)
    assumed = ", ".join(f"`{name}` {_ranks_words(sorted(found))}"
                        f"{f' ({guess.evidence[name]})' if name in guess.evidence else ''}"
                        if name not in made_checks else
                        f"`{'`, `'.join(made_checks[name][0])}` "
                        f"{'1-D' if made_checks[name][1] else 'of any rank'} (made in the shape `{name}`)"
                        for name, found in sorted(accepted.items()))
    return result, (f"every op has a batching rule for the ranks the code suggests, checked at run "
                    f"time: {assumed}; other ranks run the loop")


def _flowing_into(fdef, names: set[str], loop, imports=None) -> set[str]:
    """``names`` and every name whose value can flow into one of them through the function's
    statements outside ``loop`` (whose batched code is what reads ``names``): ``h =
    np.asarray(w)`` makes ``w`` flow into ``h``. A compound statement binds through its
    header (``for t in xs``), a nested function through anything it reads. The items of a
    literal shape of a new array (``k`` of ``np.zeros((n, k))``, where ``imports`` resolves
    NumPy) do not flow: the array is made before the loop, both versions run the call, which
    raises for any item but an integer scalar, and the array's rank is the shape's length."""
    inside = {id(n) for n in gast.walk(loop)}
    binders: dict[str, set[str]] = {}
    shapes = {id(n) for call in gast.walk(fdef) if isinstance(call, gast.Call) and imports is not None
              and imports.resolve(call.func) in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full")
              for shape in [*call.args[:1], *(k.value for k in call.keywords if k.arg == "shape")]
              if isinstance(shape, (gast.Tuple, gast.List)) and not any(isinstance(e, gast.Starred) for e in shape.elts)
              for n in gast.walk(shape)}

    def names_in(nodes, ctx):
        return {n.id for node in nodes for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, ctx)
                and (ctx is gast.Store or id(n) not in shapes)}

    for stmt in gast.walk(fdef):
        if not isinstance(stmt, gast.stmt) or stmt is fdef or id(stmt) in inside:
            continue
        if isinstance(stmt, (gast.For, gast.AsyncFor)):
            parts = [stmt.target, stmt.iter]
        elif isinstance(stmt, (gast.With, gast.AsyncWith)):
            parts = stmt.items
        elif isinstance(stmt, (gast.If, gast.While, gast.Try, gast.Match)):
            continue  # their blocks' statements are walked on their own
        else:
            parts = [stmt]
        stored = names_in(parts, gast.Store) | ({stmt.name} if isinstance(stmt, (gast.FunctionDef, gast.ClassDef,
                                                                                 gast.AsyncFunctionDef)) else set())
        loaded = names_in(parts, gast.Load)
        for name in stored:
            binders.setdefault(name, set()).update(loaded)
    found, todo = set(names), list(names)
    while todo:
        for source in binders.get(todo.pop(), ()):
            if source not in found:
                found.add(source)
                todo.append(source)
    return found


def _shape_only(ctx, fdef, name: str) -> list[str] | None:
    """The locals made from the parameter ``name`` where it is only ever the shape of a new
    array bound to one name (``counts = np.zeros(k)``, ``np.empty(shape=k)``; ``ones``,
    ``full``) and never rebound: those arrays are all the function makes of it, and their
    ranks all a rewrite can depend on. None for any other use."""
    from pforge.transpile.backends.direct.levels import _MADE_OF_SHAPE
    made: list[str] = []
    for node in gast.walk(fdef):
        if not (isinstance(node, gast.Name) and node.id == name) or isinstance(node.ctx, gast.Param):
            continue
        call = ctx.parents.get(id(node))
        if isinstance(call, gast.keyword):  # (`shape=k`: the call is one up)
            call = ctx.parents.get(id(call))
        if not (isinstance(node.ctx, gast.Load) and isinstance(call, gast.Call)
                and ctx.imports.resolve(call.func) in _MADE_OF_SHAPE
                and (call.args[:1] == [node] or any(k.arg == "shape" and k.value is node for k in call.keywords))):
            return None
        bound = ctx.parents.get(id(call))
        if not (isinstance(bound, gast.Assign) and bound.value is call and len(bound.targets) == 1
                and isinstance(bound.targets[0], gast.Name)):
            return None
        made.append(bound.targets[0].id)
    return sorted(set(made)) or None


#: dtypes whose values compute in float64 with a weak Python float (NEP 50): every int and
#: bool, and float64 itself
_WIDE_DTYPES = {f"numpy.{t}" for t in ("float64", "double", "bool_", "int8", "int16", "int32", "int64", "intp",
                                         "uint8", "uint16", "uint32", "uint64", "uintp")} | {
    "builtins.int", "builtins.float", "builtins.bool"}


def _made_by(fdef, name: str) -> gast.Call | None:
    """The call ``name`` is bound to where one assignment binds it and nothing else does
    (``out = np.zeros(k)``), else None."""
    from pforge.transpile.backends.direct.levels import _bound_once
    binds = [n for n in gast.walk(fdef) if isinstance(n, gast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], gast.Name) and n.targets[0].id == name]
    if len(binds) != 1 or not _bound_once(fdef, name) or not isinstance(binds[0].value, gast.Call):
        return None
    return binds[0].value


def _made_wide(ctx, fdef, name: str) -> bool:
    """``name`` is bound once, to ``np.zeros``, ``ones`` or ``empty`` of a shape with no dtype
    (float64) or one of :data:`_WIDE_DTYPES`: a Python float meets its values in float64, as
    the batched code's float64 array does, so it needs no test that it does."""
    call = _made_by(fdef, name)
    if call is None or ctx.imports.resolve(call.func) not in ("numpy.zeros", "numpy.ones", "numpy.empty") \
            or len(call.args) > 1:
        return False
    dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
    if any(k.arg not in ("dtype", "shape") for k in call.keywords):
        return False
    return dtype is None or (ctx.imports.resolve(dtype) or (f"builtins.{dtype.id}" if isinstance(dtype, gast.Name)
                                                           else None)) in _WIDE_DTYPES


def _made_like(ctx, fdef, name: str) -> str | None:
    """The name ``other`` where ``name`` is bound once, to ``np.zeros_like(other)`` (``ones``,
    ``empty``) with no ``dtype`` or ``subok`` keyword: an array of ``other``'s dtype (its
    values compute with a Python float as ``other``'s do); else None."""
    from pforge.transpile.backends.direct.levels import _bound_once
    call = _made_by(fdef, name)
    if call is None or ctx.imports.resolve(call.func) not in ("numpy.zeros_like", "numpy.ones_like", "numpy.empty_like") \
            or len(call.args) != 1 or not isinstance(call.args[0], gast.Name) \
            or any(k.arg in ("dtype", "subok") or k.arg is None for k in call.keywords) \
            or not _bound_once(fdef, call.args[0].id):  # (the `other` tested is the one it was made like)
        return None
    return call.args[0].id


def _bound_from(fdef, name: str, loop) -> bool:
    """Whether a statement of ``fdef`` outside ``loop`` binds another name from a value that
    reads ``name`` (``out = acc``, ``view = acc[1:]``, ``n = len(acc)``): a name that may
    alias it, or whose value its shape decides."""
    inside = {id(n) for n in gast.walk(loop)}
    for stmt in gast.walk(fdef):
        if not isinstance(stmt, gast.stmt) or stmt is fdef or id(stmt) in inside:
            continue
        if isinstance(stmt, (gast.If, gast.While, gast.Try, gast.Match)):
            continue  # (their blocks' statements are walked on their own)
        parts = [stmt.target, stmt.iter] if isinstance(stmt, (gast.For, gast.AsyncFor)) else \
            stmt.items if isinstance(stmt, (gast.With, gast.AsyncWith)) else [stmt]
        names = [n for part in parts for n in gast.walk(part) if isinstance(n, gast.Name)]
        if any(n.id == name and isinstance(n.ctx, gast.Load) for n in names) and any(
                n.id != name and isinstance(n.ctx, gast.Store) for n in names):
            return True
        if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)) and any(
                n.id == name for n in names):
            return True  # (a nested function reading it)
    return False


def _checkable_locals(info) -> set[str]:
    """Names surely bound where the loop starts, so a check in front of it can read them: bound
    by a statement that comes before it in its block or an enclosing one, or the target of an
    enclosing loop."""
    found: set[str] = set()

    def stores(node):
        return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}

    block = info.function.body
    while True:
        for stmt in block:
            if stmt is info.node:
                return found
            if any(n is info.node for n in gast.walk(stmt)):
                if isinstance(stmt, (gast.For, gast.AsyncFor)):
                    found |= stores(stmt.target)
                inner = next((b for b in (getattr(stmt, "body", []), getattr(stmt, "orelse", []),
                                          getattr(stmt, "finalbody", []))
                              if any(any(n is info.node for n in gast.walk(s)) for s in b)), None)
                if inner is None:
                    return found
                block = inner
                break
            if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
                found |= stores(stmt)
        else:
            return found


#: what the backend note adds when a rewrite needs run-time checks of its own
CHECKS_NOTE = "; what it needs of its inputs (their types and dtypes, windows inside their arrays) is checked at run time"


#: the most combinations of widened ranks tried together (each costs a trial rewrite)
_WIDENED_BOX = 16


def widen_declared_ranks(ctx, info, namer, tf_alias, np_alias, shapes, result) -> None:
    """Widens each run-time check of a rank the user declared (``x.ndim == 2``,
    :attr:`LoopRewrite.declared_ranks`) to every rank whose rewrite is the same code, and drops
    it where that is every rank: ``np.add.accumulate(totals, out=totals)`` runs along the first
    axis of an array of any rank, as the loop ``totals[i] += totals[i - 1]`` does.

    Each rank is tried by printing the loop again as if the user had declared it (the same
    source, a docstring's or ``--shapes``; :func:`ranks.parameter_shapes`' ``("trial", r)``)
    and comparing everything the rewrite consists of (statements, checks but the rank's own,
    the collectors and consumers it replaces, what :func:`guard` reads of it): where that is
    the same, the printer made the same code for both ranks, so it is right for both. Ranks
    spread outwards from the declared one while the rewrite stays the same; where checks of
    several names widen, every combination of their ranks is tried too (at most
    ``_WIDENED_BOX``), else none widens. Rank inference accepts ranks the same way
    (:func:`_accepted_ranks`).

    Changes ``result.checks`` in place, or for TensorFlow (``result.rank_spelling``) the
    ``tf.debugging.assert_rank`` statements at the head of ``result.stmts``, dropping an
    assertion that rules out only a number where the loop reads the value's rows first
    (:func:`_rows_read_first`); nothing under the staged decorator, whose checks of ranks
    :mod:`pforge.transpile.specialize` works out from the call signature.
    """
    from pforge.transpile.backends import direct
    from pforge.transpile.rank_inference import _MAX_RANK
    fdef = info.function
    declared = dict(result.declared_ranks)
    if not declared or fdef is None or getattr(ctx, "kinds", None) is not None:
        return
    module, style = result.rank_spelling
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs if isinstance(a, gast.Name)}

    printed: dict[tuple, object] = {}

    def rewritten(assignment):
        """The rewrite with ``assignment``'s ranks as if declared (None: there is none)."""
        key = tuple(sorted(assignment.items()))
        if key not in printed:
            given = dict(shapes or {})
            for name, rank in assignment.items():
                given.pop(name, None)
                given.pop(f"{fdef.name}.{name}", None)
                given[f"{fdef.name}.{name}"] = ("trial", rank) if name in params else rank
            names = Namer.__new__(Namer)
            names.taken = set(namer.taken)
            try:
                printed[key] = direct.rewrite_loop(ctx, info, names, tf_alias, np_alias, given)
            except direct.Unsupported:
                printed[key] = None
        return printed[key]

    def text(found, tried):
        """All a rewrite consists of but the rank checks of the names ``tried``."""
        own = {gast.dump(check) for name, (check, _) in found.declared_ranks.items() if name in tried}
        return (unparse_lines([st for st in found.stmts if not (isinstance(st, gast.Expr) and gast.dump(st.value) in own)]),
                unparse_lines([gast.Expr(value=c) for c in found.checks if gast.dump(c) not in own]),
                unparse_lines(found.prelude),
                sorted(found.declared_ranks), [gast.dump(d) for d in found.drop],
                sorted(gast.dump(v) for v in found.replace.values()), found.nonempty, found.needs_trip,
                found.trip_levels, sorted(found.arrays), sorted(found.sliced), found.scalar_raising,
                found.unsafe, sorted(found.consulted), sorted(found.objects))

    def same(assignment):
        found, base = rewritten(assignment), rewritten({})
        return found is not None and text(found, assignment) == text(base, assignment)

    if rewritten({}) is None:
        return
    accepted = {}
    for name, (_, rank) in declared.items():
        if name in result.derived_ranks:
            continue  # (a local whose rank follows from another's: no rank of its own to try)
        got = {rank}
        for step in (-1, 1):
            other = rank + step
            while 0 <= other <= _MAX_RANK and same({name: other}):
                got.add(other)
                other += step
        if len(got) > 1:
            accepted[name] = got
    if len(accepted) > 1:
        names = sorted(accepted)
        box = [dict(zip(names, ranks_)) for ranks_ in itertools.product(*(sorted(accepted[n]) for n in names))]
        box = [a for a in box if sum(a[n] != declared[n][1] for n in names) > 1]  # (each alone is tried)
        if len(box) > _WIDENED_BOX or not all(same(a) for a in box):
            return
    for name, got in accepted.items():
        check = gast.dump(declared[name][0])
        # (NumPy's in front, as a test; TensorFlow's a statement of the batched code)
        held = result.checks if style == "array" else [st.value if isinstance(st, gast.Expr) else st
                                                         for st in result.stmts]
        where = next((k for k, c in enumerate(held) if gast.dump(c) == check), None)
        if where is None:
            continue
        iterated = style == "assert" and _rows_read_first(info, name)
        if got == set(range(_MAX_RANK + 1)) or iterated and got == set(range(1, _MAX_RANK + 1)):
            # (TensorFlow's loop over the rows of a number raises as the assertion would)
            widened = None
        elif max(got) == _MAX_RANK:  # (as far as ranks are tried: a rank past them is as those; 0 is not in got)
            widened = templates.expr(rank_test(result.rank_spelling, name, [min(got)], at_least=True))
        elif style == "assert":
            widened = templates.expr(rank_test(result.rank_spelling, name, sorted(got)))
        else:
            widened = templates.expr(_rank_check(module, name, sorted(got), array=min(got) >= 1))
        if style == "array":
            result.checks[where:where + 1] = [widened] if widened is not None else []
        else:
            result.stmts[where:where + 1] = [gast.Expr(value=widened)] if widened is not None else []
        if widened is not None:
            result.declared_ranks[name] = (widened, declared[name][1])
        else:
            del result.declared_ranks[name]


def _rows_read_first(info, name: str) -> bool:
    """Whether the loop, before its first iteration, reads the rows of ``name`` (``for r in x``,
    ``zip(x, y)``) or the length of its first axis (``range(len(x))``, ``range(x.shape[0])``,
    ``range(tf.shape(x)[0])``, or ``range(n)`` where a statement of the function's body before
    the loop's is the only binding of ``n``, ``n = x.shape[0]``): a number has neither, and the
    code raises for one before the loop runs."""
    space = info.space
    if space is None:
        return False
    if any(isinstance(seq, gast.Name) and seq.id == name for _, seq in space.items):
        return True
    bounds = [b for b in (space.start, space.stop, space.step) if b is not None]
    fdef = info.function
    if fdef is not None:
        inside = {id(n) for n in gast.walk(info.node)}
        top = next((k for k, st in enumerate(fdef.body) if any(id(n) in inside for n in gast.walk(st))), 0)
        stores = collections.Counter(n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)
                                     and isinstance(n.ctx, (gast.Store, gast.Del)))
        for st in fdef.body[:top]:
            if isinstance(st, gast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], gast.Name) \
                    and stores[st.targets[0].id] == 1 \
                    and any(isinstance(n, gast.Name) and n.id == st.targets[0].id for b in bounds for n in gast.walk(b)):
                bounds.append(st.value)
    for node in (n for bound in bounds for n in gast.walk(bound)):
        inner = None
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "len" \
                and len(node.args) == 1:
            inner = node.args[0]
        elif isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) and node.slice.value == 0:
            shape = node.value
            if isinstance(shape, gast.Attribute) and shape.attr == "shape":
                inner = shape.value
            elif isinstance(shape, gast.Call) and isinstance(shape.func, gast.Attribute) \
                    and shape.func.attr == "shape" and len(shape.args) == 1:
                inner = shape.args[0]
        if isinstance(inner, gast.Name) and inner.id == name:
            return True
    return False


def guard(info, result, checks: list, ctx=None, np_alias: str | None = None) -> str | None:
    """Puts ``checks`` (rank checks) and the rewrite's own ``result.checks`` in front of the
    batched code, the loop as written kept for where they fail. Those the kinds of the
    arguments decide (``ctx.kinds``, of one call signature: :mod:`pforge.transpile.specialize`)
    are worked out instead; ``np_alias`` is NumPy's name in the module. With ``ctx`` (the
    module's), a rewrite that would call a builtin the code binds to something else where the
    loop runs (a parameter ``type="mean"``) is refused (:func:`_shadowed_builtin`).

    Returns:
        None when done (or nothing to check), else why the loop cannot be kept beside its
        rewrite.
    """
    tests = []
    for test in [*checks, *result.checks]:  # each once
        if gast.dump(test) not in {gast.dump(t) for t in tests}:
            tests.append(test)
    shadowed = _shadowed_builtin(ctx, info, [*result.stmts, *tests]) if ctx is not None else None
    if shadowed is not None:
        return (f"the rewrite would use the builtin `{shadowed}`, which the code binds to something "
                "else where the loop runs")
    known = specialize.parameter_kinds(ctx, info.function, ctx.kinds) if ctx is not None else {}
    if not tests and not result.nonempty and not result.needs_trip and not result.trip_levels:
        return None
    if result.replace or result.anchor is not None and info.form != "list comprehension":
        return "the rewrite edits code outside the loop, which a run-time check cannot cover"
    if _multiline_strings(result.anchor or info.node):
        return "the loop holds a string over several lines, which the guarded copy would change"
    # A loop that runs no iteration checks nothing; its batched code might (shapes that do
    # not broadcast, an empty reduction): each level whose bounds are invariant must run.
    outer: set[str] = set()
    runs = False  # the batched code runs only where the outermost loop runs at least once
    for depth, level in enumerate(info.walk()):
        trips = _runs_at_all(level)
        invariant = trips is not None and not any(isinstance(n, gast.Name) and n.id in outer for n in gast.walk(trips))
        runs = runs or (depth == 0 and (trips is RUNS or invariant))
        if trips is RUNS:
            pass
        elif invariant and gast.dump(trips) not in {gast.dump(t) for t in tests}:
            tests.append(trips)
        elif not invariant and result.nonempty:
            return ("the loop may run no iteration, and then the list it builds, read as an array, "
                    "has a shape and dtype the batched code cannot know")
        elif not invariant and (result.needs_trip or depth < result.trip_levels) and trips is not None:
            return ("an inner loop may run no iteration, and the batched code reads an element at a "
                    "fixed index, which raises where that axis is empty, though the loop never reads it")
        if level.space is not None:
            outer |= level.space.target_names()
    if runs:
        _unclamp(result.stmts)
    if not tests:
        return None  # every level runs whatever the inputs
    tests = _type_tests_first(_implied_type_tests(_arrays_apart(_conjuncts(tests))))
    # A check that reads an element (`abs(d[i + 1, i + 1]) + ... < 2 ** 63`) runs after the
    # tests that the loops run: where they do not, the loop reads nothing and that element may
    # not exist (an inner loop over `range(i + 1, n)` at `i = n - 1`).
    tests = [t for t in tests if not _reads_an_element(t)] + [t for t in tests if _reads_an_element(t)]
    tests = specialize.decided(_known_arrays_folded(_fold_empty_ranges(tests)), known, np_alias)
    if tests is None:
        return "a run-time check of the rewrite fails for every argument of these kinds"
    if not tests:
        return None  # (the signature decides every check)
    result.drop = []  # a collector's `out = []` stays for the loop; the batched code rebinds it
    result.guard = tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)
    return None


def _shadowed_builtin(ctx, info, generated: list[gast.AST]) -> str | None:
    """A builtin's name that the ``generated`` code (the batched statements and the checks)
    reads as the builtin, where the code binds it to something else at the loop
    (:func:`~pforge.transpile.frontend.builtins_bound_at`), or None: a call of it (``type(x)``,
    ``len(x)``), a type a type test names (``isinstance(x, (list, tuple))``, ``type(v) is
    float``), or a read the loop itself never makes. Another read the loop makes too is its
    own value (``out[:len]`` of a parameter ``len``)."""
    bound = builtins_bound_at(ctx.tree, info.node)
    if not bound:
        return None
    in_loop = {n.id for n in gast.walk(info.node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    for root in generated:
        as_types = set()  # (the types a type test names: `isinstance(x, (list, tuple))`, `type(x) is int`)
        for node in gast.walk(root):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "isinstance" \
                    and len(node.args) == 2:
                as_types |= {id(n) for n in gast.walk(node.args[1])}
            elif isinstance(node, gast.Compare) and isinstance(node.left, gast.Call) \
                    and isinstance(node.left.func, gast.Name) and node.left.func.id == "type":
                as_types |= {id(n) for c in node.comparators for n in gast.walk(c)}
        for node in gast.walk(root):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in bound:
                return node.func.id
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in bound \
                    and (node.id not in in_loop or id(node) in as_types):
                return node.id
    return None


def _fold_empty_ranges(tests: list[gast.expr]) -> list[gast.expr]:
    """``len(range(a, b)) == 0 or Q`` (``or R ...``) as ``Q`` (``Q or R ...``) where another check is ``b > a`` (``range(b)``:
    ``b > 0``) and both are ints (:func:`_an_int`): the loop runs, so the range is not empty. ``Q`` moves last, after that check,
    which its own test guarded it with (``Q`` may read the first iteration's element)."""
    above = set()
    for test in tests:
        if isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], gast.Gt):
            above.add((gast.dump(test.left), gast.dump(test.comparators[0])))
    kept, folded = [], []
    for test in tests:
        empty = test.values[0] if isinstance(test, gast.BoolOp) and isinstance(test.op, gast.Or) else None
        if isinstance(empty, gast.Compare) and len(empty.ops) == 1 and isinstance(empty.ops[0], gast.Eq) \
                and isinstance(empty.comparators[0], gast.Constant) and empty.comparators[0].value == 0 \
                and type(empty.comparators[0].value) is int and isinstance(empty.left, gast.Call) \
                and isinstance(empty.left.func, gast.Name) and empty.left.func.id == "len" \
                and len(empty.left.args) == 1 and isinstance(span := empty.left.args[0], gast.Call) \
                and isinstance(span.func, gast.Name) and span.func.id == "range" and 1 <= len(span.args) <= 2 \
                and not span.keywords:
            start = span.args[0] if len(span.args) == 2 else gast.Constant(value=0, kind=None)
            if (gast.dump(span.args[-1]), gast.dump(start)) in above and all(map(_an_int, span.args)):
                folded.append(test.values[1] if len(test.values) == 2 else gast.BoolOp(op=gast.Or(), values=test.values[1:]))
                continue
        kept.append(test)
    return kept + folded


def _known_arrays_folded(tests: list[gast.expr]) -> list[gast.expr]:
    """The conjuncts, each read after ``type(x) is np.ndarray`` (a conjunct of its own, so
    ``x`` is an ndarray wherever a later one runs) spelled for that array: ``np.asarray(x)`` is
    ``x`` itself, ``np.ndim(x)`` is ``x.ndim``, ``np.shape(x)`` is ``x.shape``; and the type
    tests in a later ``and``/``or`` that an earlier conjunct decides, folded
    (:func:`_decided`): ``type(x) is np.ndarray or isinstance(x, (list, tuple)) and ...`` is
    true there and goes. Each change keeps the value and what raises: NumPy returns an ndarray
    from ``np.asarray`` unchanged, ``np.ndim`` and ``np.shape`` read the attributes, and a
    type test of a name never raises."""
    kept: list[gast.expr] = []
    arrays: dict[str, str] = {}  # a name tested to be an ndarray -> how NumPy is spelled there
    for test in tests:
        known = {gast.dump(t) for t in kept}
        folded = _decided(test, known, arrays)
        if folded is True:
            continue
        test = _spelled_for_arrays(test if folded is None or folded is False else folded, arrays)
        kept.append(test)
        typed = _type_test(test)
        if typed is not None and typed[2] and len(typed[1]) == 1 and (kind := next(iter(typed[1]))).endswith(".ndarray"):
            arrays[typed[0]] = kind[:-len(".ndarray")]
    return kept


#: types no ndarray is an instance of (spelled as the checks spell them; NumPy's after its alias)
_NOT_ARRAYS = frozenset(("int", "float", "complex", "bool", "str", "bytes", "list", "tuple", "dict", "set"))
_NOT_ARRAYS_NP = frozenset(("number", "bool_", "generic", "integer", "floating", "complexfloating"))


def _decided(test: gast.expr, known: set[str], arrays: dict[str, str]):
    """``test`` folded where an earlier conjunct decides part of it: True or False where it is
    decided whole, a new ``and``/``or`` where some operands go, None where nothing changes.
    Decided are: an earlier conjunct again (by its code, true), and a type test of a name in
    ``arrays`` (an exact ndarray: ``isinstance(x, (list, tuple))`` false, ``type(x) is
    np.ndarray`` true). An ``and`` drops its true operands and is false at a false one with
    none before it; an ``or`` the other way round; operands that run are never dropped unless
    decided, so what raises still raises."""
    if gast.dump(test) in known:
        return True
    typed = _type_test(test)
    if typed is not None:
        name, kinds, exact = typed
        np_ = arrays.get(name)
        if np_ is None:
            return None
        if f"{np_}.ndarray" in kinds:
            return True
        if all(k in _NOT_ARRAYS or k.startswith(f"{np_}.") and k[len(np_) + 1:] in _NOT_ARRAYS_NP for k in kinds):
            return False
        return None
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        # (`not isinstance(x, (list, tuple))` beside `type(x) is np.ndarray`: true)
        folded = _decided(test.operand, known, arrays)
        if folded is None or folded is True or folded is False:
            return folded if folded is None else not folded
        return gast.UnaryOp(op=gast.Not(), operand=folded)
    if not isinstance(test, gast.BoolOp):
        return None
    absorbing = isinstance(test.op, gast.Or)  # (the value that decides the whole)
    values, changed = [], False
    for value in test.values:
        folded = _decided(value, known, arrays)
        if folded is None:
            values.append(value)
        elif folded is absorbing:
            if not values:
                return absorbing
            values.append(value)  # (operands before it run first: kept as it is)
        elif folded is (not absorbing):
            changed = True  # (true in an `and`, false in an `or`: no effect)
        else:
            values.append(folded)
            changed = True
    if not changed:
        return None
    if not values:
        return not absorbing
    return values[0] if len(values) == 1 else gast.BoolOp(op=test.op, values=values)


def _spelled_for_arrays(test: gast.expr, arrays: dict[str, str]) -> gast.expr:
    """``test`` with ``np.asarray(x)``, ``np.ndim(x)`` and ``np.shape(x)`` of each ``x`` in
    ``arrays`` (a name known to be an ndarray, and NumPy's spelling there) as ``x``,
    ``x.ndim`` and ``x.shape``; a copy where anything changes."""
    class Respell(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            if isinstance(func, gast.Attribute) and func.attr in ("asarray", "ndim", "shape") \
                    and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], gast.Name) \
                    and node.args[0].id in arrays and gast.unparse(func.value).strip() == arrays[node.args[0].id]:
                name = gast.Name(id=node.args[0].id, ctx=gast.Load(), annotation=None, type_comment=None)
                return name if func.attr == "asarray" else gast.Attribute(value=name, attr=func.attr, ctx=gast.Load())
            return node

    if not arrays:
        return test
    marked = getattr(test, "pforge_after_trips", False)
    copied = Respell().visit(copy.deepcopy(test))
    if marked:
        copied.pforge_after_trips = True
    return copied


def _an_int(node: gast.expr) -> bool:
    """An int literal, ``len(x)``, or one of them plus or minus an int literal: a Python int
    (where it does not raise), which ``range`` takes, as ``>`` compares it."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        return _an_int(node.left) and _an_int(node.right)
    return isinstance(node, gast.Constant) and type(node.value) is int or isinstance(node, gast.Call) \
        and isinstance(node.func, gast.Name) and node.func.id == "len" and len(node.args) == 1 and not node.keywords


def _reads_an_element(test: gast.expr) -> bool:
    """Whether ``test`` indexes a value other than a shape (``x.shape[1]``, ``np.shape(x)[0]``),
    or reads an attribute the loop reads only where it runs (``type(self.q) is np.ndarray``,
    marked ``pforge_after_trips`` by the printer)."""
    return getattr(test, "pforge_after_trips", False) or any(isinstance(n, gast.Subscript) and not (
        isinstance(n.value, gast.Attribute) and n.value.attr == "shape"
        or isinstance(n.value, gast.Call) and getattr(n.value.func, "attr", None) == "shape")
        for n in gast.walk(test))


def _unclamp(stmts: list[gast.stmt]) -> None:
    """``x[:np.maximum(n - 1, 0)]`` as ``x[:n - 1]`` in ``stmts``, for the clamps the direct
    backend marked (a slice of the outermost loop's rows from a start of at least 0): where
    that loop runs at least once its bound is above the start, so the clamp changes nothing."""
    def plain(value):
        return value.args[0] if isinstance(value, gast.Call) and getattr(value, "pforge_clamp", False) else value

    for stmt in stmts:
        for node in gast.walk(stmt):
            for name, value in gast.iter_fields(node):
                if isinstance(value, list):
                    value[:] = [plain(v) for v in value]
                elif plain(value) is not value:
                    setattr(node, name, plain(value))


def _conjuncts(tests: list[gast.expr]) -> list[gast.expr]:
    """The checks as one list of conjuncts (``a and b`` is ``a``, ``b``), each once, in order:
    a rank check and a contraction's dtype check both ask ``type(x) is np.ndarray``."""
    flat, seen = [], set()
    for test in tests:
        for conjunct in test.values if isinstance(test, gast.BoolOp) and isinstance(test.op, gast.And) else [test]:
            if gast.dump(conjunct) not in seen:
                seen.add(gast.dump(conjunct))
                flat.append(conjunct)
    return flat


def _type_test(test: gast.expr) -> tuple[str, frozenset[str], bool] | None:
    """``(x, {T1, T2}, False)`` for ``isinstance(x, (T1, T2))``, ``(x, {T}, True)`` for
    ``type(x) is T`` (the types as spelled), where ``x`` is a name, else None."""
    if isinstance(test, gast.Call) and isinstance(test.func, gast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and not test.keywords and isinstance(test.args[0], gast.Name):
        kinds = test.args[1].elts if isinstance(test.args[1], gast.Tuple) else [test.args[1]]
        return test.args[0].id, frozenset(gast.unparse(k).strip() for k in kinds), False
    if isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], gast.Is) \
            and isinstance(test.left, gast.Call) and isinstance(test.left.func, gast.Name) \
            and test.left.func.id == "type" and len(test.left.args) == 1 and isinstance(test.left.args[0], gast.Name):
        return test.left.args[0].id, frozenset([gast.unparse(test.comparators[0]).strip()]), True
    return None


def _implies(a, b) -> bool:
    """Whether type test ``a`` passing means ``b`` passes (:func:`_type_test`'s triples):
    ``type(x) is T`` implies ``isinstance(x, (..., T, ...))``, an ``isinstance`` of fewer types
    the one of more; no ``isinstance`` implies ``type(x) is T`` (a subclass)."""
    return a[0] == b[0] and a[1] <= b[1] and (a[2] or not b[2])


def _implied_type_tests(tests: list[gast.expr]) -> list[gast.expr]:
    """The conjuncts, a type test implied by a later one dropped (``isinstance(w, (int, float,
    complex, np.number))`` before ``isinstance(w, (int, float, np.number))``, or
    ``isinstance(x, (list, np.ndarray))`` beside ``type(x) is np.ndarray``): the narrower test
    takes the place of the first, so that what ran only after the wider one (``np.ndim(w)``)
    still runs only where a test of ``w``'s type passed. ``isinstance`` and ``type`` are the
    builtins here: the checks are pforge's own, which shadowed builtins do not reach."""
    tests = list(tests)
    k = 0
    while k < len(tests):
        mine = _type_test(tests[k])
        narrower = next((m for m in range(len(tests)) if m != k and mine is not None
                         and (other := _type_test(tests[m])) is not None and _implies(other, mine)
                         and (not _implies(mine, other) or m > k)), None)
        if narrower is None:
            k += 1
            continue
        if not _implies(mine, tests_type := _type_test(tests[narrower])) or not _implies(tests_type, mine):
            tests[min(k, narrower)] = tests[narrower]
        del tests[max(k, narrower)]  # (of two tests of one meaning, the later)
        k = 0
    return tests


def _type_tests_first(tests: list[gast.expr]) -> list[gast.expr]:
    """The conjuncts, each type test of a name (:func:`_type_test`) moved in front of the first
    other test that reads that name: ``n <= np.shape(x)[0]`` raises for a dict ``x`` (its shape
    is ``()``), which ``type(x) is np.ndarray`` sends to the loop first. A type test of a name
    never raises and changes nothing, so where it stands decides only what runs after it."""
    tests = list(tests)
    for test in list(tests):
        typed = _type_test(test)
        if typed is None:
            continue
        at = next(k for k, t in enumerate(tests) if t is test)
        first = next((k for k, t in enumerate(tests[:at]) if _type_test(t) is None and any(
            isinstance(n, gast.Name) and n.id == typed[0] for n in gast.walk(t))), None)
        if first is not None:
            tests.insert(first, tests.pop(at))
    return tests


def _arrays_apart(tests: list[gast.expr]) -> list[gast.expr]:
    """The checks, each :func:`~pforge.transpile.templates.apart` of a value that another
    check shows is an array (``type(r) is np.ndarray``, not inside an ``or``) shortened to
    ``not np.may_share_memory(w, r)``: its items need no comparing one by one."""
    conjuncts = [v for t in tests for v in (t.values if isinstance(t, gast.BoolOp) and isinstance(t.op, gast.And) else [t])]
    arrays = {c.left.args[0].id for c in conjuncts
              if isinstance(c, gast.Compare) and isinstance(c.ops[0], gast.Is) and isinstance(c.left, gast.Call)
              and isinstance(c.left.func, gast.Name) and c.left.func.id == "type" and len(c.left.args) == 1
              and isinstance(c.left.args[0], gast.Name) and isinstance(c.comparators[0], gast.Attribute)
              and c.comparators[0].attr == "ndarray"}

    def short(test):
        if not (isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not) and isinstance(test.operand, gast.IfExp)):
            return test
        share = test.operand.body
        if not (isinstance(share, gast.Call) and isinstance(share.func, gast.Attribute)
                and share.func.attr == "may_share_memory" and len(share.args) == 2
                and isinstance(share.args[1], gast.Name) and share.args[1].id in arrays):
            return test
        return gast.UnaryOp(op=gast.Not(), operand=share)
    return [short(t) for t in tests]


#: builtins a check may call again (no effect, no state): the bounds of ``range(min(m.shape))``
_PURE_BUILTINS = frozenset(("len", "min", "max", "abs", "int"))

#: what :func:`_runs_at_all` gives for a loop that runs whatever the inputs (``range(1, 256)``)
RUNS = gast.Constant(value=True, kind=None)


def _runs_at_all(info) -> gast.expr | None:
    """``stop > start`` (``start > stop`` counting down, or ``len(x) > 0``): the loop runs at
    least one iteration; :data:`RUNS` when it always does; None when the space is not one
    this can say simply (a step that is no integer literal, bounds with calls)."""
    space = info.space
    if space is None:
        return None
    if space.kind == "rows" and space.items and _combinations_of(space.items[0][1]) is not None:
        items, r = _combinations_of(space.items[0][1])  # `combinations(xs, r)` has a row when len(xs) >= r
        length = gast.Call(func=gast.Name(id="len", ctx=gast.Load(), annotation=None, type_comment=None),
                           args=[copy.deepcopy(items)], keywords=[])
        return gast.Compare(left=length, ops=[gast.GtE()], comparators=[gast.Constant(value=r, kind=None)])
    bounds = [b for b in (space.start, space.stop, space.step) if b is not None] + [seq for _, seq in space.items[:1]]
    if any(isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id in _PURE_BUILTINS)
           for b in bounds for n in gast.walk(b)):
        return None  # evaluated twice, a call could do its work (or its effect) twice
    step = 1 if space.step is None else constant_int(space.step)
    if space.kind == "range" and space.stop is not None and (step is None or any(
            isinstance(n, gast.Call) and n.func.id != "len" for b in bounds for n in gast.walk(b))):
        # `range(min(m.shape))`, `range(0, n, step)`: Python's own count of the iterations
        args = [copy.deepcopy(a) if a is not None else gast.Constant(value=0, kind=None)
                for a in (space.start, space.stop, space.step)[:3 if space.step is not None else 2]]
        count = gast.Call(func=gast.Name(id="range", ctx=gast.Load(), annotation=None, type_comment=None),
                          args=args, keywords=[])
        return gast.Compare(left=gast.Call(func=gast.Name(id="len", ctx=gast.Load(), annotation=None,
                                                          type_comment=None), args=[count], keywords=[]),
                            ops=[gast.Gt()], comparators=[gast.Constant(value=0, kind=None)])
    if space.kind == "range" and step and space.stop is not None:
        low, high = (constant_int(space.start) if space.start is not None else 0), constant_int(space.stop)
        if low is not None and high is not None and (high - low) * step > 0:
            return RUNS  # `range(1, 256)` runs
        start = copy.deepcopy(space.start) if space.start is not None else gast.Constant(value=0, kind=None)
        first, last = (copy.deepcopy(space.stop), start) if step > 0 else (start, copy.deepcopy(space.stop))
        return gast.Compare(left=first, ops=[gast.Gt()], comparators=[last])
    if space.kind in ("rows", "enumerate") and space.items:
        seq = space.items[0][1]
        return gast.Compare(left=gast.Call(func=gast.Name(id="len", ctx=gast.Load(), annotation=None, type_comment=None),
                                           args=[copy.deepcopy(seq)], keywords=[]),
                            ops=[gast.Gt()], comparators=[gast.Constant(value=0, kind=None)])
    return None


def _combinations_of(seq):
    """``(xs, r)`` for ``itertools.combinations(xs, r)`` (or ``combinations(...)`` imported
    from it) with ``r`` an integer literal and ``xs`` free of calls, else None. The direct
    backend batches only the call that resolves to ``itertools.combinations``."""
    if not (isinstance(seq, gast.Call) and len(seq.args) == 2 and not seq.keywords
            and gast.unparse(seq.func).strip().split(".")[-1] == "combinations"):
        return None
    r = constant_int(seq.args[1])
    if r is None or r < 1 or any(isinstance(n, gast.Call) for n in gast.walk(seq.args[0])):
        return None
    return seq.args[0], r


def _accepted_ranks(guess, same_rewrite, valid=None) -> dict[str, set[int]]:
    """The ranks the run-time check accepts, per name: the assumed ones, widened to every
    neighbouring assignment whose rewrite is the same text (the batched code is then right for
    it too, ``x * w`` being the same for ``w`` a scalar or a row) when the widened ranges, taken
    together, admit no assignment whose rewrite differs; then each widened rank is raised
    further while the rewrite stays the same (:func:`_raised_ranks`).

    Args:
        guess: the inferred ranks and their neighbours.
        same_rewrite: ``assignment -> bool``, whether its rewrite is the chosen one's text.
        valid: ``assignment -> bool``, whether the code can run with those ranks (the hard
            constraints of rank inference); without it no rank is raised past a neighbour.
    """
    narrow = {name: {rank} for name, rank in guess.assumed.items()}
    same = [n for n in guess.neighbours if same_rewrite(n)]
    if not same:
        return narrow
    accepted = [guess.ranks, *same]
    names = set(guess.assumed) | {k for n in same for k in n if n[k] != guess.ranks[k]}
    wide = {name: {a[name] for a in accepted} for name in names}
    for n in guess.neighbours:
        if all(n[k] in wide[k] for k in names) and n not in same:
            return narrow
    if valid is None:
        return wide
    return _raised_ranks(guess, wide, [guess.ranks, *same], same_rewrite, valid) or wide


def _raised_ranks(guess, wide, seen, same_rewrite, valid) -> dict[str, set[int]] | None:
    """``wide`` with each name's ranks raised past the neighbour while the rewrite stays the
    same (``X = np.array([c, s]) + centre`` is a matrix whether ``centre`` is a scalar, a
    vector or a ``(2, 1)`` column), the others as guessed; None when no rank rises, when the
    box of accepted ranks holds more assignments than rank inference tries as neighbours
    (each costs a trial rewrite), or when one of
    them that the code can run with has another rewrite (ranks accepted one at a time are
    not accepted together)."""
    from pforge.transpile.rank_inference import _MAX_RANK, _NEIGHBOURS

    raised = {name: set(found) for name, found in wide.items()}
    for name in sorted(wide):
        rank = max(wide[name]) + 1
        if rank != guess.ranks[name] + 2:
            continue  # the neighbour above was not accepted
        while rank <= _MAX_RANK:
            candidate = {**guess.ranks, name: rank}
            if not (valid(candidate) and same_rewrite(candidate)):
                break
            raised[name].add(rank)
            rank += 1
    if raised == wide:
        return None
    names = sorted(raised)
    spans = [sorted(raised[name]) for name in names]
    if math.prod(len(span) for span in spans) > _NEIGHBOURS:
        return None
    for combo in itertools.product(*spans):
        candidate = {**guess.ranks, **dict(zip(names, combo))}
        if candidate not in seen and valid(candidate) and not same_rewrite(candidate):
            return None
    return raised


def _array_test(np_alias: str, name: str, read_only: bool, number_rows: bool = False,
                number: str = None) -> str:
    """``type(x) is np.ndarray``; for a value the loop only reads, also a list or tuple of
    arrays of one shape (``mats = [M1, M2]``): its rows are arrays, which batch as an array's
    rows do, and ``np.asarray`` stacks them. With ``number_rows`` (the loop reads only single
    numbers of it, :func:`_elements_only`), also a list of equally long lists of numbers."""
    test = f"type({name}) is {np_alias}.ndarray"  # a subclass (a masked array, a matrix) runs the loop
    if read_only:
        test += (f" or isinstance({name}, (list, tuple)) and all(type(v) is {np_alias}.ndarray "
                 f"for v in {name}) and len({{(v.shape, v.dtype) for v in {name}}}) == 1")
    if read_only and number_rows:
        test += (f" or isinstance({name}, (list, tuple)) and all(isinstance(r, (list, tuple)) and "
                 f"all({number or _NUMBER} for v in r) for r in {name}) "
                 f"and len({{len(r) for r in {name}}}) == 1")
    return f"({test})" if read_only else test


#: the test that ``v`` is a number that ``np.asarray`` keeps as it is (a float64: no int, no bool)
_NUMBER = "isinstance(v, float)"
#: the same for a value the batched code leaves as it is: Python's ints keep their semantics
#: (no bool, an int subclass: as an index ``w[True]`` is a new axis of ``w``, not ``w[1]``, and
#: ``True + True`` of a list of them converted is ``True``)
_PYTHON_NUMBER = "(type(v) is int or isinstance(v, float))"
#: a number a list of them converts to exactly: ints within float64's integers (``np.asarray``
#: makes a list with an int of 2**63 or more uint64 or float64, and one mixing floats with
#: ints beyond 2**53 rounds them), no bool (``[True, 2]`` converts to ints)
_EXACT_NUMBER = "(isinstance(v, float) or type(v) is int and -2 ** 53 <= v <= 2 ** 53)"
#: a number a list of indices converts to exactly: an int (no bool, ``w[True]`` is a new axis),
#: within float64's integers like :data:`_EXACT_NUMBER` (``np.asarray([-1, 2 ** 63])`` is float64)
_INDEX_NUMBER = "type(v) is int and -2 ** 53 <= v <= 2 ** 53"


def _numbers_out(ctx, info) -> bool:
    """Whether the loop binds a name the function reads outside it that may be a number
    (``total`` of ``total += x[i] * 2``, the best of an argmax; not an evident array,
    ``field = np.zeros(n)``): computed from a list of Python floats, the loop's is a Python
    float, the batched code's a NumPy one; so a list the batched code converts then runs the
    loop. (Collected values come back as Python numbers: ``V.tolist()``.)"""
    fdef = info.function
    if fdef is None:
        return False
    inside = {id(n) for n in gast.walk(info.node)}
    targets = info.space.target_names() if info.space is not None else set()
    bound = {n.id for n in gast.walk(info.node) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store)} - targets
    return any(isinstance(n, gast.Name) and n.id in bound and isinstance(n.ctx, gast.Load) and id(n) not in inside
               and not _evidently_array(ctx, fdef, templates.name(n.id), at=info.node) for n in gast.walk(fdef))


def _number_test(np_alias: str, name: str) -> str:
    """A number, a NumPy scalar or a 0-d array: never a list, and never ``None``, a slice or
    ``...``, whose ``np.ndim`` is 0 too but which index and compute otherwise."""
    return f"isinstance({name}, (int, float, complex, {np_alias}.number, {np_alias}.bool_, {np_alias}.ndarray))"


def _lists_of_numbers(found: list[int], array: bool, read_only: bool) -> bool:
    """Whether :func:`_kind_check` accepts a flat list of numbers for these ranks."""
    if array:
        return read_only and found[0] == 1 and len(found) > 1
    return found[-1] != 0


def _kind_check(np_alias: str, name: str, found: list[int], array: bool, read_only: bool,
                number_rows: bool = False, python_ints: bool | str = False, lists: bool = True) -> str:
    """The run-time check of an inferred rank that holds only for inputs the batched code takes
    as the loop does, and never raises itself (``np.ndim`` of a ragged list would): an array
    where the batched code writes it or takes its rows (or, read only, a list of arrays of one
    shape); a scalar that is no list; else an array (not a subclass: a masked array's mask, a
    matrix's rows would be lost) or a flat list of float64 numbers (Python ints in an int64
    array lose their unbounded range and their ``x ** -1``, bools add as logical or, float32
    numbers mixed with floats are promoted); with ``python_ints`` (the batched code does not
    convert the value, so Python computes with it as in the loop) also of Python ints; with
    ``python_ints="exact"`` (the batched code converts a list only compared or stored) of
    Python ints that a float64 holds exactly, in a flat list or, with ``number_rows``, in
    lists of lists; with ``python_ints="index"`` (a list only indexed with,
    :func:`_indices_only`) of those ints alone. Without ``lists``, no list of numbers."""
    if not lists:
        number_rows = False
    exact = {"exact": _EXACT_NUMBER, "index": _INDEX_NUMBER}.get(python_ints)
    rows = exact or _NUMBER  # (a list of lists is converted)
    if array and found[0] == 0 and len(found) > 1:
        # a number, or an array of one of the other ranks (a list of rows is no array here)
        return (f"({_number_test(np_alias, name)} and {_rank_check(np_alias, name, [0])} or "
                f"{_rank_check(np_alias, name, found[1:], True, read_only, number_rows, rows)})")
    if array and read_only and found[0] == 1 and len(found) > 1 and lists:
        # a flat list of numbers (rank 1 only), or an array of any of the ranks
        number = exact or (_PYTHON_NUMBER if python_ints else _NUMBER)
        return (f"(isinstance({name}, (list, tuple)) and all({number} for v in {name}) or "
                f"{_rank_check(np_alias, name, found, True, read_only, number_rows, rows)})")
    if array:
        return _rank_check(np_alias, name, found, True, read_only, number_rows, rows)
    if found[-1] == 0:
        return f"{_number_test(np_alias, name)} and {_rank_check(np_alias, name, found)}"
    scalar = f" or isinstance({name}, (int, float, complex, {np_alias}.number))" if found[0] == 0 else ""
    if not lists:
        return f"(type({name}) is {np_alias}.ndarray{scalar}) and {_rank_check(np_alias, name, found)}"
    number = exact or (_PYTHON_NUMBER if python_ints else _NUMBER)
    flat = (f"(type({name}) is {np_alias}.ndarray{scalar} or isinstance({name}, (list, tuple)) and "
            f"all({number} for v in {name}))")
    return f"{flat} and {_rank_check(np_alias, name, found)}"


def _rank_check(np_alias: str, name: str, found: list[int], array: bool = False, read_only: bool = False,
                number_rows: bool = False, number: str = None) -> str:
    """``np.ndim(x) == 1``, ``np.ndim(x) <= 2``, ``1 <= np.ndim(x) <= 3`` or ``np.ndim(x) in (0, 2)``;
    with ``array``, ``type(x) is np.ndarray and x.ndim == 2`` (``np.ndim`` of a ragged list
    raises, and only an array's rows batch as they run in the loop), or with ``read_only`` also
    a list of arrays of one shape (:func:`_array_test`)."""
    ndim = f"{name}.ndim" if array and not read_only else f"{np_alias}.ndim({name})"
    low, high = found[0], found[-1]
    if len(found) == 1:
        test = f"{ndim} == {low}"
    elif found != list(range(low, high + 1)):
        test = f"{ndim} in ({', '.join(map(str, found))})"
    else:
        test = f"{ndim} <= {high}" if low == 0 else f"{low} <= {ndim} <= {high}"
    return f"{_array_test(np_alias, name, read_only, number_rows, number)} and {test}" if array else test


def _needs_an_array(ctx, info, inferred: dict[str, int], written_only: bool = False) -> set[str]:
    """The parameters with inferred ranks the batched code may treat as arrays when the code
    does not show they are: a Python list of rows (``v * 3`` repeats a list, multiplies an
    array's row), or one the loop writes into (a list has no ``x[...] =`` of a batch). A flat
    list of numbers read only is converted with ``np.asarray`` and gives the same numbers."""
    from pforge.transpile.vplan.conditionals import written as bound_or_written
    written = bound_or_written(info.node)
    return {name for name, rank in inferred.items()
            if ((rank >= 2 and not written_only) or (rank >= 1 and name in written))
            and not _evidently_array(ctx, info.function, templates.name(name), at=info.node)}


def _compared_or_stored(info, name: str) -> bool:
    """Every read of ``name`` in the loop is an element (``t[k]``) that is only compared or
    stored into an array element (``if level != table[level]: picture[j][i] = table[level]``):
    a list of Python ints read through ``np.asarray`` then gives the loop's results, since a
    comparison of a NumPy integer with a Python int is exact either way (NEP 50) and a store
    casts the same number (one out of the array's range raises in the loop)."""
    names, parents = _occurrences(info, name)
    for node in names:
        sub = parents.get(id(node))
        if not (isinstance(node.ctx, gast.Load) and isinstance(sub, gast.Subscript) and sub.value is node
                and isinstance(sub.ctx, gast.Load)):
            return False
        outer = parents.get(id(sub))
        if isinstance(outer, gast.Subscript) and outer.value is sub and isinstance(outer.ctx, gast.Load) \
                and not isinstance(sub.slice, (gast.Slice, gast.Tuple)):
            sub = outer  # (an element of a row: `t[i][j]`)
        use = parents.get(id(sub))
        compared = isinstance(use, gast.Compare) and len(use.ops) == 1
        stored = isinstance(use, gast.Assign) and use.value is sub and len(use.targets) == 1 and \
            isinstance(use.targets[0], gast.Subscript)
        if not (compared or stored):
            return False
    return bool(names)


def _occurrences(info, name: str) -> tuple[list[gast.Name], dict[int, gast.AST]]:
    """The names ``name`` in the loop ``info.node``, and each node's parent by ``id``."""
    parents = {id(c): p for p in gast.walk(info.node) for c in gast.iter_child_nodes(p)}
    return [n for n in gast.walk(info.node) if isinstance(n, gast.Name) and n.id == name], parents


def _read_raw(ctx, result, names: set[str]) -> set[str]:
    """The ``names`` the batched code reads where a list computes otherwise than its array:
    an operand of an operator or a comparison (``x != 0.5`` of a list is one bool, ``-x``
    raises, ``x * 3`` repeats it), or the base of an attribute or of an index other than a
    slice or one int, directly or through slices (``x[:n]``); a NumPy function's argument
    converts a list as it is. Such a name (of rows or numbers per iteration, ``names``) must be an
    array: ``x = a`` of a parameter ``a`` is read so (helper-69), where a parameter itself is
    converted where it may be a list."""
    parents = {id(child): node for st in result.stmts for node in gast.walk(st) for child in gast.iter_child_nodes(node)}
    raw = set()
    for st in result.stmts:
        for node in gast.walk(st):
            if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in names):
                continue
            name, up = node.id, parents.get(id(node))
            while isinstance(up, gast.Subscript) and up.value is node and isinstance(up.slice, gast.Slice):
                node, up = up, parents.get(id(up))  # (a slice of a list is a list)
            if isinstance(up, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.BoolOp, gast.Attribute)) \
                    or isinstance(up, gast.Subscript) and up.value is node and constant_int(up.slice) is None:
                raw.add(name)  # (an element, `shape[0]`, is one number either way)
    return raw


def _indices_only(info, name: str) -> bool:
    """Every read of ``name`` in the loop is one element used as an index into another value
    (``counts[labels[i]]``, ``grid[rows[i], cols[i]]``), or its length: its numbers then meet
    no other number in arithmetic, so a list of Python ints indexes as its ``np.asarray`` does
    (an index out of range, or a float, raises IndexError either way)."""
    names, parents = _occurrences(info, name)
    found = False
    for node in names:
        sub = parents.get(id(node))
        if isinstance(sub, gast.Call) and isinstance(sub.func, gast.Name) and sub.func.id == "len" \
                and sub.args == [node] or isinstance(sub, gast.Attribute) and sub.attr == "shape":
            continue  # (measured: `range(len(labels))`)
        if not (isinstance(node.ctx, gast.Load) and isinstance(sub, gast.Subscript) and sub.value is node
                and isinstance(sub.ctx, gast.Load) and not isinstance(sub.slice, (gast.Slice, gast.Tuple))):
            return False
        use = parents.get(id(sub))
        if isinstance(use, gast.Tuple) and sub in use.elts:
            use = parents.get(id(use)) if isinstance(parents.get(id(use)), gast.Subscript) \
                and parents.get(id(use)).slice is use else None
        elif not (isinstance(use, gast.Subscript) and use.slice is sub):
            return False
        if use is None:
            return False
        found = True
    return found


def _elements_only(info, name: str) -> bool:
    """Every read of ``name`` in the loop takes one number: ``x[i, j]``, ``x[i][j]``, or rows
    the loop iterates (``for r in x``, also in ``zip``/``enumerate``) that it only unpacks or
    indexes once (``r[0]``). A list of lists of numbers then gives the loop's numbers through
    ``np.asarray``, where its rows, as lists, would not (``r * 2`` repeats a list). For a
    value of rank 2."""
    loop = info.node
    parents = {id(c): p for p in gast.walk(loop) for c in gast.iter_child_nodes(p)}
    rows: set[str] = set()
    for level in info.walk():
        space = level.space
        for target, seq in (space.items if space is not None else ()):
            if isinstance(seq, gast.Name) and seq.id == name:
                if isinstance(target, gast.Name):
                    rows.add(target.id)
                elif not (isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts)):
                    return False
    headers = {id(n) for level in info.walk() if isinstance(level.node, gast.For)
               for n in gast.walk(level.node.iter)}
    for node in gast.walk(loop):
        if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load)):
            continue
        parent = parents.get(id(node))
        if node.id == name:
            if id(node) in headers:
                continue  # the rows the loop iterates: their uses are checked as `rows`
            if isinstance(parent, gast.Subscript) and parent.value is node:
                if isinstance(parent.slice, gast.Tuple) and len(parent.slice.elts) == 2 \
                        and not any(isinstance(e, gast.Slice) for e in parent.slice.elts):
                    continue
                outer = parents.get(id(parent))
                if not isinstance(parent.slice, (gast.Slice, gast.Tuple)) and isinstance(outer, gast.Subscript) \
                        and outer.value is parent and not isinstance(outer.slice, (gast.Slice, gast.Tuple)):
                    continue
            return False
        if node.id in rows and not (isinstance(parent, gast.Subscript) and parent.value is node
                                    and not isinstance(parent.slice, (gast.Slice, gast.Tuple))):
            return False
    return True


def _grid_kind(info, name: str) -> str | None:
    """``"int"`` or ``"float"``: the loop reads ``name`` only as single numbers
    ``name[i][j]`` and writes it only as ``name[i][j] = v``, ``v`` a number of that type or an
    element of ``name`` (an int within 2**53), and reads only compared or stored
    (``board[x][y] == 1``). A list of lists
    of such numbers is then batched as an array copy (``np.array``: int64 holds the ints
    within 2**53 exactly, float64 the floats) and written back row by row, every element the
    number the loop leaves there, of its type. None for any other use."""
    loop = info.node
    parents = {id(c): p for p in gast.walk(loop) for c in gast.iter_child_nodes(p)}

    def element(node) -> bool:
        return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Subscript) \
            and isinstance(node.value.value, gast.Name) and node.value.value.id == name \
            and not any(isinstance(s, (gast.Slice, gast.Tuple)) for s in (node.slice, node.value.slice))

    kinds, reads = set(), []
    for node in gast.walk(loop):
        if not (isinstance(node, gast.Name) and node.id == name):
            continue
        outer = parents.get(id(parents.get(id(node))))
        if not element(outer) or outer.value.value is not node:
            return None
        if isinstance(outer.ctx, gast.Load):
            reads.append(outer)
            continue
        stmt = parents.get(id(outer))
        if not (isinstance(stmt, gast.Assign) and stmt.targets == [outer]):
            return None  # (`+=`, a tuple target: the loop's int arithmetic)
        value = stmt.value
        if isinstance(value, gast.Constant) and (type(value.value) is float or (
                type(value.value) is int and -2 ** 53 <= value.value <= 2 ** 53)):
            kinds.add(type(value.value).__name__)
        elif not element(value):
            return None
    if len(kinds) != 1:
        return None
    for read in reads:  # (a sum would add in NumPy's order, and give NumPy's number)
        use = parents.get(id(read))
        compared = isinstance(use, gast.Compare) and len(use.ops) == 1
        stored = isinstance(use, gast.Assign) and use.value is read and element(use.targets[0])
        if not (compared or stored):
            return None
    return kinds.pop()


def _grid_test(name: str, kind: str) -> str:
    """A list or tuple of distinct, equally long lists (no row repeated: the loop would write
    it through each index) of numbers of ``kind`` that an array holds exactly; not of a
    subclass (its own ``__getitem__`` would index otherwise than ``np.array`` reads)."""
    number = "type(v) is int and -2 ** 53 <= v <= 2 ** 53" if kind == "int" else "type(v) is float"
    return (f"type({name}) in (list, tuple) and len({name}) > 0 and all(type(r) is list and "
            f"all({number} for v in r) for r in {name}) and len({{len(r) for r in {name}}}) == 1 "
            f"and len({{id(r) for r in {name}}}) == len({name})")


def _grids_apart(grid: str, read: str) -> str:
    """``read`` is not the grid, nor one of its rows, nor a list holding one of them."""
    return (f"{{id({grid}), *map(id, {grid})}}.isdisjoint({{id({read}), *(map(id, {read}) "
            f"if isinstance({read}, (list, tuple)) else ())}})")


def _on_a_copy(result, name: str, namer, np_alias: str) -> None:
    """The batched code writes ``{name}_rows``, ``name`` itself where it is an array, else an
    array copy of its lists, whose numbers then go back into those lists (``row[:] = values``)."""
    rows = namer.new(f"{name}_rows")
    row, values = namer.new(f"{rows}_row"), namer.new(f"{rows}_values")
    for stmt in result.stmts:
        for node in gast.walk(stmt):
            if isinstance(node, gast.Name) and node.id == name:
                node.id = rows
    result.stmts[:0] = templates.replace(
        f"{rows} = {name} if type({name}) is {np_alias}.ndarray else {np_alias}.array({name})")
    result.stmts += templates.replace(
        f"if {rows} is not {name}:\n"
        f"    for {row}, {values} in zip({name}, {rows}.tolist()):\n"
        f"        {row}[:] = {values}")


def _parsed(tests: list[str]) -> list[gast.expr]:
    return [gast.parse(test).body[0].value for test in tests]


def _rank_words(rank: int) -> str:
    return "a scalar" if rank == 0 else f"{rank}-D"


def _ranks_words(found: list[int]) -> str:
    """``a scalar or 1-D``; three ranks or more in a row as a range, ``a scalar to 6-D``."""
    if len(found) >= 3 and found == list(range(found[0], found[-1] + 1)):
        return f"{_rank_words(found[0])} to {_rank_words(found[-1])}"
    return " or ".join(_rank_words(r) for r in found)


def _multiline_strings(node) -> bool:
    return any(isinstance(n, gast.Constant) and isinstance(n.value, (str, bytes))
               and n.lineno != n.end_lineno for n in gast.walk(node))
