"""The driver: parse, discover loops, analyse, plan, rewrite with a backend, splice.

Reads like a table of contents, as AutoGraph's ``transform_ast`` does; each stage lives in
its own module (docs/architecture.md, "The pipeline").
"""

from __future__ import annotations

import copy
import re
from collections.abc import Container
from dataclasses import dataclass

import gast

from pforge.transpile import staging
from pforge.transpile.analysis import LoopInfo, ModuleContext, discover
from pforge.transpile.analysis.discovery import CHECKED_MARKER
from pforge.transpile.backends import pfor
from pforge.transpile.frontend import SourceText, check_syntax, decode_source
from pforge.transpile.naming import Namer, global_names
from pforge.transpile.outline import analyses_outline, module_context
from pforge.transpile.plan import LoopPlan, plan_for, unsafe_reason
from pforge.transpile.remarks import Remark
from pforge.transpile.spaces import constant_int
from pforge.transpile.splice import Splicer, unparse_lines

BACKENDS = ("auto", "direct", "pfor")
TARGETS = ("auto", "tensorflow")

#: what the marker comment says each backend emitted
_MARKER = {"pfor": "with tf.vectorized_map", "direct": "with batched ops"}


@dataclass(frozen=True)
class TranspileResult:
    """The outcome of transpiling one source text.

    Attributes:
        filename: as given.
        source: the original text.
        code: the new text (identical to ``source`` when nothing was rewritten).
        plans: one plan per loop unit (a nest root, or an inner loop of a refused nest), in
            source order.
    """

    filename: str
    source: str
    code: str
    plans: tuple[LoopPlan, ...]

    @property
    def changed(self) -> bool:
        return self.code != self.source

    @property
    def remarks(self) -> tuple[Remark, ...]:
        return tuple(r for p in self.plans for r in p.remarks)


def units(roots: list[LoopInfo]) -> list[LoopInfo]:
    """Loops to report and rewrite: a vectorizable level covers its nest; a refused one does not."""
    found = []

    def visit(info):
        found.append(info)
        if not info.vectorizable:
            for child in info.children:
                visit(child)

    for root in roots:
        visit(root)
    return found


def analyze_source(source: str | bytes, filename: str = "<string>") -> tuple[LoopPlan, ...]:
    """Analyses every loop without rewriting anything (what ``pforge check`` and ``explain`` use).

    Raises:
        SourceError: undecodable or syntactically invalid input.
    """
    return transpile_source(source, filename, rewrite=False).plans


@analyses_outline
def transpile_source(source: str | bytes, filename: str = "<string>", *, backend: str = "auto",
                     rewrite: bool = True, shapes: dict[str, int] | None = None,
                     target: str = "auto", unsafe: bool = True,
                     loops: Container[int] | None = None, vector_plans: bool = False) -> TranspileResult:
    """Rewrites every loop pforge proves independent into vectorized TensorFlow code.

    Args:
        source: Python source text or bytes (decoded by PEP 263 rules).
        filename: used in messages and remarks.
        backend: ``"pfor"`` (``tf.vectorized_map``), ``"direct"`` (batched ops from the rule
            registry; a TensorFlow loop it cannot batch falls back to pfor, a NumPy loop stays
            a loop) or ``"auto"`` (direct when every op has a rule and every rank is known,
            else pfor; the plan says which and why).
        rewrite: False to analyse only.
        shapes: per-parameter ranks (``{"x": 2}``, or ``{"f.x": 2}`` for one function), as
            given by ``--shapes`` or probed from ``example_inputs()``.
        target: ``"auto"``: each loop stays in the library it was written in; ``"tensorflow"``:
            NumPy loops are rewritten with ``tf.experimental.numpy`` (and ``import tensorflow
            as tf`` is added when missing), for code moving to the GPU.
        unsafe: False to leave loops whose rewrite may change results (``LoopPlan.unsafe``:
            a reassociated floating-point reduction, random draws) as they are, with a PF301 note.
        loops: the first lines of the loops to rewrite (``pforge check --fix`` passes the
            findings that are selected and not suppressed); None rewrites every loop.
        vector_plans: also print each vectorizable loop's vector plan into its
            ``LoopPlan.vector_plan`` (``pforge explain --plan``).
    Returns:
        The new text and one plan per loop unit. Deterministic; idempotent.
    Raises:
        SourceError: the input cannot be decoded or parsed.
        ValueError: an unknown backend.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    text = decode_source(source, filename)
    if not _may_hold_loop(text.text):
        check_syntax(text)  # still report bad input; ast alone is ~3x cheaper than gast
        return TranspileResult(filename, text.text, text.text, ())
    ctx = module_context(text)
    if ctx is None:  # no for or while statement
        return TranspileResult(filename, text.text, text.text, ())
    tree = ctx.tree
    roots = discover(ctx)
    loop_units = units(roots)
    rewrites: dict[int, pfor.LoopRewrite] = {}
    notes: dict[int, str] = {}
    chosen: dict[int, tuple[str, str]] = {}  # id(info) -> (backend, why)
    held: set[int] = set()  # unsafe rewrites not applied
    tf_alias = ctx.imports.alias_for("tensorflow")
    np_alias = ctx.imports.alias_for("numpy")
    import_numpy = np_alias is None and _imports_from_numpy(ctx)
    if import_numpy:  # `from numpy import zeros` only: the batched code adds `import numpy as np`
        np_alias = "np"
    if rewrite:
        reserved = global_names(tree)
        namers: dict[int, Namer] = {}  # one per function: generated names are local to it
        for info in loop_units:
            if not info.vectorizable or (loops is not None and info.lineno not in loops):
                continue
            scope = info.function if info.function is not None else tree
            namer = namers.setdefault(id(scope), Namer(scope, reserved))
            if target == "tensorflow" and info.library in ("numpy", "python"):
                _move_to_tensorflow(ctx, info, namer, tf_alias, shapes, rewrites, notes, chosen)
            else:
                _rewrite_unit(ctx, info, namer, backend, tf_alias, np_alias, shapes, rewrites, notes, chosen)
        if not unsafe:
            # Held back only when it would have been applied (rewritten, and its function
            # stageable), so "N loops left as unsafe" counts what --unsafe-fixes would change.
            trial, trial_notes = dict(rewrites), dict(notes)
            _drop_unstageable(ctx, loop_units, trial, trial_notes, dict(chosen))
            for info in loop_units:
                if id(info) in rewrites and (reason := unsafe_reason(info)):
                    del rewrites[id(info)]
                    chosen.pop(id(info), None)
                    if id(info) in trial:
                        notes[id(info)] = f"unsafe fix: {reason} (apply it with --unsafe-fixes)"
                        held.add(id(info))
                    else:
                        notes[id(info)] = trial_notes[id(info)]
        unstaged = _drop_unstageable(ctx, loop_units, rewrites, notes, chosen)
    else:
        unstaged = set()
    import_numpy = import_numpy and any(  # only when some rewrite spells `np.`
        isinstance(n, gast.Name) and n.id == "np" for info in loop_units if id(info) in rewrites
        for stmt in rewrites[id(info)].stmts for n in gast.walk(stmt))
    code = _splice(text, ctx, loop_units, rewrites, tf_alias, chosen, target, unstaged,
                   import_numpy) if rewrites else text.text
    printed = {id(info): _vector_plan(ctx, info, shapes) for info in loop_units
               if vector_plans and info.vectorizable and info.form == "loop"}
    plans = tuple(plan_for(info, rewrites.get(id(info)), notes.get(id(info)),
                           chosen.get(id(info), (backend, ""))[0], chosen.get(id(info), ("", ""))[1],
                           held_back=id(info) in held, vector_plan=printed.get(id(info), ()))
                  for info in loop_units)
    return TranspileResult(filename, text.text, code, plans)


def _vector_plan(ctx, info, shapes) -> tuple[str, ...]:
    """The printed vector plan of a vectorizable loop nest (``explain --plan``)."""
    from pforge.transpile.vplan import build_plan
    return tuple(build_plan(ctx, info, shapes).format())


def _move_to_tensorflow(ctx, info, namer, tf_alias, shapes, rewrites, notes, chosen):
    """``--target tensorflow``: a NumPy loop becomes ``tf.experimental.numpy`` batched code."""
    from pforge.transpile.backends import direct  # the rule registry loads on first use
    if tf_alias is None and "tf" in global_names(ctx.tree):
        notes[id(info)] = "--target tensorflow: the name `tf` is taken in this module"
        return
    try:
        rewrites[id(info)] = direct.rewrite_loop(ctx, info, namer, tf_alias or "tf", None, shapes,
                                                 to_tensorflow=True)
        chosen[id(info)] = ("direct", "--target tensorflow: the NumPy loop is written with "
                                      "tf.experimental.numpy")
    except direct.Unsupported as exc:
        notes[id(info)] = f"--target tensorflow: the direct backend cannot batch it: {exc}"


def _rewrite_unit(ctx, info, namer, backend, tf_alias, np_alias, shapes, rewrites, notes, chosen):
    """Rewrites one loop unit with the chosen backend, falling back as docs/architecture.md says.

    ``auto`` and ``direct`` try the rule registry first; a TensorFlow loop it cannot batch goes
    to pfor (the reason is kept for ``explain``), a NumPy loop stays a loop with a PF301 note
    naming the op.
    """
    why_not_direct = None
    if info.form != "loop" and info.library != "tensorflow":
        notes[id(info)] = f"a {info.form} over NumPy values is not rewritten (only TensorFlow ones are)"
        return
    if info.form != "loop" and backend != "pfor":
        why_not_direct = f"a {info.form} is rewritten with tf.vectorized_map"
    elif backend in ("auto", "direct"):
        from pforge.transpile.backends import direct  # the rule registry loads on first use
        try:
            result = direct.rewrite_loop(ctx, info, namer, tf_alias, np_alias, shapes)
            why_not_direct = _guard(info, result, [])
            if why_not_direct is None:
                rewrites[id(info)] = result
                chosen[id(info)] = ("direct", "every op has a batching rule and every rank is known"
                                    + _CHECKS_NOTE * bool(result.checks))
                return
        except direct.Unsupported as exc:
            why_not_direct = str(exc)
        if info.library != "tensorflow":
            result, why = _rewrite_with_inferred_ranks(ctx, info, namer, tf_alias, np_alias, shapes)
            if result is not None:
                rewrites[id(info)] = result
                chosen[id(info)] = ("direct", why)
                return
            notes[id(info)] = f"the direct backend cannot batch it: {why or why_not_direct}"
            return
    try:
        # A TensorFlow loop implies the module imports tensorflow under some alias.
        rewrites[id(info)] = pfor.rewrite_loop(ctx, info, namer, tf_alias or "tf")
        why = f"direct backend: {why_not_direct}" if why_not_direct else "--backend pfor"
        chosen[id(info)] = ("pfor", why)
    except pfor.Unsupported as exc:
        notes[id(info)] = str(exc) if why_not_direct is None else \
            f"{exc} (and the direct backend: {why_not_direct})"


def _rewrite_with_inferred_ranks(ctx, info, namer, tf_alias, np_alias, shapes):
    """A NumPy loop the direct backend could not batch, tried again with the ranks the code
    shows (:mod:`pforge.transpile.rank_inference`).

    Ranks the code proves are used as given; ranks it only suggests are checked at run time by
    a guard (``np.ndim(vec) == 1``) in front of the batched code, the loop as written running
    where the guard fails. Inferred arrays go through ``np.asarray`` unless the code shows they
    are arrays, so a Python list gets the same numbers.

    Returns:
        ``(rewrite, why)``: the rewrite (None when there is none) and the backend note, or, with
        no rewrite, the reason it still fails with the inferred ranks (None: no ranks to infer).
    """
    from pforge.transpile import ranks
    from pforge.transpile.backends import direct
    from pforge.transpile.rank_inference import infer_ranks, local_ranks
    fdef = info.function
    if fdef is None or np_alias is None:
        return None, None
    known = ranks.parameter_shapes(ctx, fdef, shapes)
    guess = infer_ranks(ctx, fdef, known)
    if guess is None or not guess.ranks:
        return None, None

    written = _needs_an_array(ctx, info, {n: r for n, r in guess.ranks.items() if r >= 1}, written_only=True)

    def option(assignment):
        given = {f"{fdef.name}.{name}": rank for name, rank in local_ranks(ctx, fdef, known, assignment).items()}
        given.update(shapes or {})
        # Written arrays are checked to be arrays (`isinstance`): the batched code writes them as such.
        given.update({f"{fdef.name}.{name}": rank if name in written else ("inferred", rank)
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

    told = ", ".join(f"`{name}` {_rank_words(rank)}" for name, rank in sorted(guess.ranks.items()))
    text = trial(guess.ranks) if guess.assumed else None
    try:
        result = direct.rewrite_loop(ctx, info, namer, tf_alias, np_alias, option(guess.ranks))
    except direct.Unsupported as exc:
        return None, f"{exc} (with the ranks inferred from the code: {told})"
    arrays = _needs_an_array(ctx, info, guess.ranks) | written
    if not guess.assumed:
        tests = [f"isinstance({name}, {np_alias}.ndarray)" for name in sorted(arrays)]
        why = _guard(info, result, [gast.parse(t).body[0].value for t in tests])
        if why is not None:
            return None, why
        return result, f"every op has a batching rule; ranks from the code: {told}" + _CHECKS_NOTE * bool(result.checks)
    accepted = _accepted_ranks(guess, lambda assignment: trial(assignment) == text)
    arrays |= _needs_an_array(ctx, info, {name: max(found) for name, found in accepted.items()})
    tests = [f"isinstance({name}, {np_alias}.ndarray)" for name in sorted(arrays - set(accepted))]
    tests += [_rank_check(np_alias, name, sorted(found), name in arrays) for name, found in sorted(accepted.items())]
    why = _guard(info, result, [gast.parse(t).body[0].value for t in tests])
    if why is not None:
        return None, why
    assumed = ", ".join(f"`{name}` {' or '.join(_rank_words(r) for r in sorted(found))}"
                        f"{f' ({guess.evidence[name]})' if name in guess.evidence else ''}"
                        for name, found in sorted(accepted.items()))
    return result, (f"every op has a batching rule for the ranks the code suggests, checked at run "
                    f"time: {assumed}; other ranks run the loop")


#: what the backend note adds when a rewrite needs run-time checks of its own
_CHECKS_NOTE = "; each sliding window is checked at run time to lie inside its array"


def _guard(info, result, checks: list) -> str | None:
    """Puts ``checks`` (rank checks) and the rewrite's own ``result.checks`` in front of the
    batched code, the loop as written kept for where they fail.

    Returns:
        None when done (or nothing to check), else why the loop cannot be kept beside its
        rewrite.
    """
    tests = [*checks, *result.checks]
    if not tests:
        return None
    if result.replace or result.anchor is not None:
        return "the rewrite edits code outside the loop, which a run-time check cannot cover"
    if _multiline_strings(info.node):
        return "the loop holds a string over several lines, which the guarded copy would change"
    result.drop = []  # a collector's `out = []` stays for the loop; the batched code rebinds it
    # A loop that runs no iteration checks nothing; its batched code might (shapes that do
    # not broadcast, an empty reduction): each level whose bounds are invariant must run.
    outer: set[str] = set()
    for level in info.walk():
        trips = _runs_at_all(level)
        if trips is not None and not any(isinstance(n, gast.Name) and n.id in outer for n in gast.walk(trips)):
            tests.append(trips)
        if level.space is not None:
            outer |= level.space.target_names()
    result.guard = tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)
    return None


def _runs_at_all(info) -> gast.expr | None:
    """``stop > start`` (or ``len(x) > 0``): the loop runs at least one iteration; None when the
    space is not one this can say simply (a step other than 1)."""
    space = info.space
    if space is None:
        return None
    bounds = [b for b in (space.start, space.stop) if b is not None] + [seq for _, seq in space.items[:1]]
    if any(isinstance(n, gast.Call) and not (isinstance(n.func, gast.Name) and n.func.id == "len")
           for b in bounds for n in gast.walk(b)):
        return None  # evaluated twice, a call could do its work (or its effect) twice
    if space.kind == "range" and (space.step is None or constant_int(space.step) == 1) and space.stop is not None:
        start = copy.deepcopy(space.start) if space.start is not None else gast.Constant(value=0, kind=None)
        return gast.Compare(left=copy.deepcopy(space.stop), ops=[gast.Gt()], comparators=[start])
    if space.kind in ("rows", "enumerate") and space.items:
        seq = space.items[0][1]
        return gast.Compare(left=gast.Call(func=gast.Name(id="len", ctx=gast.Load(), annotation=None, type_comment=None),
                                           args=[copy.deepcopy(seq)], keywords=[]),
                            ops=[gast.Gt()], comparators=[gast.Constant(value=0, kind=None)])
    return None


def _accepted_ranks(guess, same_rewrite) -> dict[str, set[int]]:
    """The ranks the run-time check accepts, per name: the assumed ones, widened to every
    neighbouring assignment whose rewrite is the same text (the batched code is then right for
    it too, ``x * w`` being the same for ``w`` a scalar or a row) when the widened ranges, taken
    together, admit no assignment whose rewrite differs.

    Args:
        guess: the inferred ranks and their neighbours.
        same_rewrite: ``assignment -> bool``, whether its rewrite is the chosen one's text.
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
    return wide


def _rank_check(np_alias: str, name: str, found: list[int], array: bool = False) -> str:
    """``np.ndim(x) == 1``, ``np.ndim(x) <= 2``, ``1 <= np.ndim(x) <= 3`` or ``np.ndim(x) in (0, 2)``;
    with ``array``, ``isinstance(x, np.ndarray) and x.ndim == 2`` (``np.ndim`` of a ragged list
    raises, and only an array's rows batch as they run in the loop)."""
    ndim = f"{name}.ndim" if array else f"{np_alias}.ndim({name})"
    low, high = found[0], found[-1]
    if len(found) == 1:
        test = f"{ndim} == {low}"
    elif found != list(range(low, high + 1)):
        test = f"{ndim} in ({', '.join(map(str, found))})"
    else:
        test = f"{ndim} <= {high}" if low == 0 else f"{low} <= {ndim} <= {high}"
    return f"isinstance({name}, {np_alias}.ndarray) and {test}" if array else test


def _needs_an_array(ctx, info, inferred: dict[str, int], written_only: bool = False) -> set[str]:
    """The parameters with inferred ranks the batched code may treat as arrays when the code
    does not show they are: a Python list of rows (``v * 3`` repeats a list, multiplies an
    array's row), or one the loop writes into (a list has no ``x[...] =`` of a batch). A flat
    list of numbers read only is converted with ``np.asarray`` and gives the same numbers."""
    from pforge.transpile.backends.common import _evidently_array
    from pforge.transpile.vplan.conditionals import written as bound_or_written
    fdef = info.function
    written = bound_or_written(info.node)
    return {name for name, rank in inferred.items()
            if ((rank >= 2 and not written_only) or (rank >= 1 and name in written))
            and not _evidently_array(ctx, fdef, gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                          type_comment=None))}


def _conjunction(test: gast.expr) -> str:
    """``a and b and c`` as written (ast.unparse brackets the third operand of a chain)."""
    values = test.values if isinstance(test, gast.BoolOp) else [test]
    return " and ".join(gast.unparse(v).strip() for v in values)


def _rank_words(rank: int) -> str:
    return "a scalar" if rank == 0 else f"{rank}-D"


def _multiline_strings(node) -> bool:
    return any(isinstance(n, gast.Constant) and isinstance(n.value, (str, bytes))
               and n.lineno != n.end_lineno for n in gast.walk(node))


def _imports_from_numpy(ctx) -> bool:
    """The module imports names from NumPy (``from numpy import zeros``) but not NumPy itself,
    and the name ``np`` is free everywhere in it."""
    if not any(target.startswith("numpy.") for target in ctx.imports.aliases.values()):
        return False
    return not any(isinstance(n, gast.Name) and n.id == "np" for n in gast.walk(ctx.tree))


_LOOP_KEYWORD = re.compile(r"\b(for|while|map_fn)\b")


def _may_hold_loop(text: str) -> bool:
    # Cheap pre-filter: building the gast tree is the dominant cost and most files hold no loop.
    return _LOOP_KEYWORD.search(text) is not None


def _drop_unstageable(ctx, loop_units, rewrites, notes, chosen) -> set[int]:
    """Keeps pfor rewrites only in functions that can be staged, so ``tf.vectorized_map`` is
    traced once; batched ops from the direct backend are fast eagerly too, so they stay.

    Returns:
        ``id`` of each function that must not be decorated with ``tf.function``.
    """
    unstaged: set[int] = set()
    by_function: dict[int, list[LoopInfo]] = {}
    for info in loop_units:
        by_function.setdefault(id(info.function), []).append(info)
    for infos in by_function.values():
        # NumPy loops rewritten with NumPy need no staging; only TensorFlow rewrites do.
        done = [i for i in infos if id(i) in rewrites and i.library == "tensorflow"]
        if not done:
            continue
        fdef = done[0].function
        if fdef is not None and staging.is_staged(ctx, fdef):
            continue
        kept = [i for i in infos if id(i) not in rewrites]
        reason = staging.stage_blocker(ctx, fdef, [i.node for i in done], kept)
        if reason:
            unstaged.add(id(fdef))
            for info in done:
                if chosen.get(id(info), ("pfor", ""))[0] == "direct":
                    continue
                del rewrites[id(info)]
                chosen.pop(id(info), None)
                notes[id(info)] = f"the enclosing function cannot be staged with tf.function: {reason}"
    return unstaged


def _splice(text: SourceText, ctx: ModuleContext, loop_units, rewrites, tf_alias, chosen, target="auto",
            unstaged=frozenset(), import_numpy=False) -> str:
    splicer = Splicer(text)
    nodes: dict[int, gast.AST] = {}
    if import_numpy:
        imports = [s for s in ctx.tree.body if isinstance(s, (gast.Import, gast.ImportFrom))]
        first = imports[0].lineno if imports else ctx.tree.body[0].lineno
        splicer.insert_line_before(first, "import numpy as np")
    if target == "tensorflow" and tf_alias is None:
        imports = [s for s in ctx.tree.body if isinstance(s, (gast.Import, gast.ImportFrom))]
        first = imports[0].lineno if imports else ctx.tree.body[0].lineno
        splicer.insert_line_before(first, "import tensorflow as tf")
    staged: set[int] = set()
    for info in loop_units:
        result = rewrites.get(id(info))
        if result is None:
            continue
        last = info.node.end_lineno
        span = f"line {info.lineno}" if info.lineno == last else f"lines {info.lineno}-{last}"
        marker = _MARKER[chosen.get(id(info), ("pfor", ""))[0]]
        comment = f"# pforge: vectorized loop (was {span}: {result.pattern}) {marker}"
        if getattr(result, "guard", None) is not None:
            comment += f", {CHECKED_MARKER}"
            splicer.replace_statement_guarded(info.node, comment, _conjunction(result.guard),
                                              unparse_lines(result.stmts))
        elif getattr(result, "anchor", None) is None:
            splicer.replace_statement(info.node, [comment] + unparse_lines(result.stmts))
        elif result.stmts:  # a comprehension: its statement is rebuilt around the batched value
            splicer.replace_statement(result.anchor, [comment] + unparse_lines(result.stmts))
        else:  # tf.map_fn: replaced in place
            splicer.insert_line_before(result.anchor.lineno, comment)
        for stmt in result.drop:
            splicer.delete_statement(stmt)
        for node in _consumers(ctx, result, nodes):
            splicer.replace_expression(node, unparse_lines([gast.Expr(value=result.replace[id(node)])])[0])
        fdef = info.function
        if info.library != "tensorflow":
            continue
        if fdef is not None and id(fdef) not in staged and id(fdef) not in unstaged \
                and not staging.is_staged(ctx, fdef):
            staged.add(id(fdef))
            splicer.insert_line_before(fdef.lineno, f"@{tf_alias}.function")
    return splicer.apply()


def _consumers(ctx, result, nodes):
    """The nodes a rewrite replaces outside its loop (``tf.stack(outs)``)."""
    if not result.replace:
        return []
    if not nodes:  # one walk per module, not one per loop
        nodes.update((id(n), n) for n in gast.walk(ctx.tree))
    return [nodes[key] for key in result.replace if key in nodes]
