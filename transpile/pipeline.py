"""The driver: parse, discover loops, analyse, plan, rewrite with a backend, splice.

Reads like a table of contents, as AutoGraph's ``transform_ast`` does; each stage lives in
its own module (docs/architecture.md, "The pipeline").
"""

from __future__ import annotations

import ast
import re
from collections.abc import Container
from dataclasses import dataclass

import gast

from pforge.transpile import staging, templates, versioning
from pforge.transpile.analysis import LoopInfo, ModuleContext, discover
from pforge.transpile.analysis.discovery import CHECKED_MARKER
from pforge.transpile.backends import pfor
from pforge.transpile.errors import InternalError
from pforge.transpile.frontend import SourceText, check_syntax, decode_source
from pforge.transpile.naming import Namer, global_names
from pforge.transpile.outline import analyses_outline, module_context
from pforge.transpile.plan import LoopPlan, plan_for, unsafe_reason
from pforge.transpile.remarks import Remark
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
        if not getattr(info.node, "pforge_synthetic", False):  # the inner levels of a product loop
            found.append(info)
        if not info.vectorizable:
            for child in info.children:
                visit(child)

    for root in roots:
        visit(root)
    return found


def analyze_source(source: str | bytes, filename: str = "<string>", *, distribute: bool = True) -> tuple[LoopPlan, ...]:
    """Analyses every loop without rewriting anything (what ``pforge check`` and ``explain`` use).

    ``distribute=False`` analyses each loop whole (no loop distribution).

    Raises:
        SourceError: undecodable or syntactically invalid input.
    """
    return transpile_source(source, filename, rewrite=False, distribute=distribute).plans


#: expressions that stand in place of a call without parentheses
_ATOMS = (gast.Name, gast.Call, gast.Attribute, gast.Subscript, gast.Constant, gast.List, gast.Tuple)


#: the default ``memory_bound`` of :func:`transpile_source` (MiB): about a core's L2 cache, so
#: that a strip's values are reused while they are there
MEMORY_BOUND_MIB = 2.0

#: the longest ``line_length`` :func:`transpile_source` takes (ruff takes up to 320, black any)
LINE_LENGTH_MAX = 10_000


@analyses_outline
def transpile_source(source: str | bytes, filename: str = "<string>", *, backend: str = "auto",
                     rewrite: bool = True, shapes: dict[str, int] | None = None,
                     target: str = "auto", unsafe: bool = True,
                     loops: Container[int] | None = None, vector_plans: bool = False,
                     distribute: bool = True, fast_math: bool = False,
                     memory_bound: float | None = MEMORY_BOUND_MIB,
                     line_length: int | None = None, kinds: dict[str, tuple] | None = None) -> TranspileResult:
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
        distribute: split a loop refused whole into loops of its statements where some of
            them can then be vectorized (loop distribution, ``analysis.distribution``).
        fast_math: also use forms that trade precision for speed and memory as an expert
            would (the squared distance ``sum((a[i] - b[j]) ** 2)`` expanded into a matrix
            product); each is an unsafe fix, so ``unsafe`` must hold too.
        memory_bound: MiB (of float64 values) the largest value a NumPy rewrite computes for
            many iterations at once may hold, where it grows faster than the loop's own arrays
            (``X[i] - Y[j]`` batched is ``n × m × dim`` values): the outermost level then runs
            in strips of rows that keep it within the bound (strip-mining). None or 0: never.
        line_length: the longest line generated code may have (characters): a statement
            with a longer line is wrapped by black at that length, as a formatter configured
            with it would (``--line-length``, ``line-length`` of ``[tool.black]`` or
            ``[tool.ruff]``). None: the file's own, the smallest usual limit its lines fit
            in (:func:`~pforge.transpile.style.file_style`).
        kinds: the kinds of one call signature's arguments, keyed as ``shapes`` is (``{"f.x":
            ("ndarray", "<f8", 2)}``, ``("npscalar", "<f4")``, ``("number", "float")``): the
            staged decorator's, for whom a run-time check they decide is worked out once
            (:mod:`pforge.transpile.specialize`). The output is then right only for arguments of
            those kinds.
    Returns:
        The new text and one plan per loop unit. Deterministic; idempotent.
    Raises:
        SourceError: the input cannot be decoded or parsed.
        ValueError: an unknown backend, a ``memory_bound`` below 0 (or not a number), or a
            ``line_length`` that is not a whole number from 1 to :data:`LINE_LENGTH_MAX`.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    if line_length is not None and not (type(line_length) is int and 1 <= line_length <= LINE_LENGTH_MAX):
        raise ValueError(f"line_length must be a whole number from 1 to {LINE_LENGTH_MAX}, not {line_length!r}")
    text = decode_source(source, filename)
    if not _may_hold_loop(text.text):
        check_syntax(text)  # still report bad input; ast alone is ~3x cheaper than gast
        return TranspileResult(filename, text.text, text.text, ())
    ctx = module_context(text)
    if ctx is None:  # no for or while statement
        return TranspileResult(filename, text.text, text.text, ())
    roots = discover(ctx)
    if distribute:
        ctx, roots = _distributed(text, ctx, roots)
    ctx.reassociate = unsafe  # (a backend may then sum in another order, as an unsafe fix)
    ctx.fast_math = unsafe and fast_math
    if memory_bound is not None and not 0 <= memory_bound < 2 ** 40:
        raise ValueError(f"memory_bound must be a number of MiB >= 0, not {memory_bound}")
    ctx.memory_bound = int(memory_bound * 2 ** 20) if memory_bound else None
    ctx.kinds = kinds
    tree = ctx.tree
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
        position, tried = 0, set()
        while position < len(loop_units):
            info = loop_units[position]
            position += 1
            if not info.vectorizable or (loops is not None and info.lineno not in loops):
                continue
            if np_alias is None and (split := _distribution(info)) is not None and split[0].apart:
                notes[id(info)] = "loop distribution checks its arrays apart with NumPy, which the module does not import"
                continue
            scope = info.function if info.function is not None else tree
            namer = namers.setdefault(id(scope), Namer(scope, reserved))
            if target == "tensorflow" and info.library in ("numpy", "python"):
                _move_to_tensorflow(ctx, info, namer, tf_alias, shapes, rewrites, notes, chosen)
            else:
                _rewrite_unit(ctx, info, namer, backend, tf_alias, np_alias, shapes, rewrites, notes, chosen)
            if id(info) not in rewrites:
                # a nest no backend batched whole: its inner loops are tried on their own, in
                # source order, each iteration of the loops around them running as written
                inner = [c for c in info.children if c.form == "loop"
                         and not getattr(c.node, "pforge_synthetic", False)]
                loop_units[position:position] = inner
                tried.update(id(c) for c in inner)
                if loops is not None:
                    loops = set(loops) | {c.lineno for c in inner}
        # an inner loop tried on its own is reported only where it was rewritten
        loop_units = [info for info in loop_units if id(info) not in tried or id(info) in rewrites]
        if not unsafe:
            # Held back only when it would have been applied (rewritten, and its function
            # stageable), so "N loops left as unsafe" counts what --unsafe-fixes would change.
            trial, trial_notes = dict(rewrites), dict(notes)
            _drop_unstageable(ctx, loop_units, trial, trial_notes, dict(chosen))
            for info in loop_units:
                if id(info) in rewrites and (reason := unsafe_reason(info) or rewrites[id(info)].unsafe):
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
    _inside_unvectorized_split(loop_units, rewrites, notes, chosen)
    import_numpy = import_numpy and any(  # only when some rewrite spells `np.`
        isinstance(n, gast.Name) and n.id == "np" for info in loop_units if id(info) in rewrites
        for stmt in rewrites[id(info)].stmts for n in gast.walk(stmt))
    code = _splice(text, ctx, loop_units, rewrites, tf_alias, chosen, target, unstaged,
                   import_numpy, np_alias, line_length) if rewrites else text.text
    if rewrites:
        try:
            ast.parse(code)
        except SyntaxError as exc:  # (a bug; nothing is written from it)
            raise InternalError(f"{filename}: the rewritten code does not parse (line {exc.lineno}: {exc.msg}); "
                                "the file is left as it is. This is a bug; please report it with the input "
                                "file.") from None
    printed = {id(info): _vector_plan(ctx, info, shapes) for info in loop_units
               if vector_plans and info.vectorizable and info.form == "loop"}
    plans = tuple(plan_for(info, rewrites.get(id(info)), notes.get(id(info)),
                           chosen.get(id(info), (backend, ""))[0], chosen.get(id(info), ("", ""))[1],
                           held_back=id(info) in held, vector_plan=printed.get(id(info), ()))
                  for info in loop_units)
    return TranspileResult(filename, text.text, code, plans)


def _distributed(text: SourceText, ctx: ModuleContext, roots: list[LoopInfo]):
    """Loop distribution (``analysis.distribution``) of the ``for`` loops refused whole: the
    module is analysed again with each split into pieces, and a split is kept only where some
    piece can be vectorized (the others stay loops). Returns the context and loops to use."""
    refused = {(info.node.lineno, info.node.col_offset) for info in units(roots)
               if not info.vectorizable and info.form == "loop" and info.library != "tensorflow"
               and getattr(info.node, "pforge_splittable", False)}
    while refused:
        trial = module_context(text)
        trial_roots = discover(trial, frozenset(refused))
        pieces: dict[tuple[int, int], list[LoopInfo]] = {}
        for info in units(trial_roots):
            if (split := _distribution(info)) is not None:
                pieces.setdefault((split[0].loop.lineno, split[0].loop.col_offset), []).append(info)
        # (a loop split by index is worth it only where every piece is vectorizable)
        useful = {at for at, infos in pieces.items()
                  if (all if _distribution(infos[0])[0].iters is not None else any)(info.vectorizable for info in infos)}
        if useful == refused:
            return trial, trial_roots
        refused = useful  # (a split none of whose pieces is vectorizable: the loop stays whole)
    return ctx, roots


def _inside_unvectorized_split(loop_units, rewrites, notes, chosen) -> None:
    """Drops the rewrite of a loop inside a loop split in pieces (``analysis.distribution``)
    none of which was rewritten: the split is not made then, and each piece had rewritten that
    inner loop on its own, over the same lines of the source (two edits of one span, which
    spliced into code that does not parse). The loop stays as written, its inner loops too."""
    splits: dict[int, tuple] = {}
    for info in loop_units:
        if (split := _distribution(info)) is not None:
            splits.setdefault(id(split[0]), (split[0], []))[1].append(info)
    for plan, pieces in splits.values():
        if any(id(piece) in rewrites for piece in pieces):
            continue
        first, last = plan.loop.lineno, plan.loop.end_lineno
        for info in loop_units:
            if id(info) in rewrites and _distribution(info) is None \
                    and first <= info.lineno and info.node.end_lineno <= last:
                del rewrites[id(info)]
                chosen.pop(id(info), None)
                notes[id(info)] = ("inside a loop whose index set was split in pieces, none of them vectorized: the "
                                   "loop stays as written")


def _distribution(info: LoopInfo):
    """``(Distribution, k)`` when ``info`` is piece ``k`` of a distributed loop, else None."""
    return getattr(info.node, "pforge_distributed", None)


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
        result = direct.rewrite_loop(ctx, info, namer, tf_alias or "tf", None, shapes, to_tensorflow=True)
        # (the ranks each batched code is the same for, as the NumPy rewrite prints it)
        np_alias = ctx.imports.alias_for("numpy")
        versioning.widen_declared_ranks(ctx, info, namer, tf_alias, np_alias, shapes, result)
        if result.checks or result.nonempty or result.needs_trip or result.trip_levels:
            # The loop stays beside the batched code, which runs eagerly (no `tf.function` is
            # added to NumPy code), for where a check fails or a level runs no iteration (a
            # last value, `np.array([])` of an empty list, `(0,)` floats): each collector's
            # consumer becomes `tnp.asarray(out)`, which takes the loop's list as NumPy does
            # and the batched tensor as it is.
            consumers, result.replace = result.replace, {}
            if not all(isinstance(value, gast.Name) for value in consumers.values()):
                notes[id(info)] = ("--target tensorflow: a collector built in reverse, whose batched value is "
                                   "reversed where the loop's list is not, needs the loop to run")
                return
            if (why := versioning.guard(info, result, [], ctx, np_alias)) is not None:
                notes[id(info)] = f"--target tensorflow: {why}"
                return
            result.replace = {key: templates.expr(f"{tf_alias or 'tf'}.experimental.numpy.asarray(N)", N=value)
                              for key, value in consumers.items()}
        rewrites[id(info)] = result
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
    if info.form not in ("loop", "list comprehension") and info.library != "tensorflow":
        notes[id(info)] = f"a {info.form} over NumPy values is not rewritten (only TensorFlow ones are)"
        return
    if info.form != "loop" and backend != "pfor" and info.library == "tensorflow":
        why_not_direct = f"a {info.form} is rewritten with tf.vectorized_map"
    elif backend in ("auto", "direct"):
        from pforge.transpile.backends import direct  # the rule registry loads on first use
        taken = set(namer.taken)  # a first try's names are not taken from the next one
        try:
            result = direct.rewrite_loop(ctx, info, namer, tf_alias, np_alias, shapes)
            versioning.widen_declared_ranks(ctx, info, namer, tf_alias, np_alias, shapes, result)
            why_not_direct = versioning.guard(info, result, [], ctx, np_alias)
            if why_not_direct is None:
                rewrites[id(info)] = result
                chosen[id(info)] = ("direct", "every op has a batching rule and every rank is known"
                                    + versioning.CHECKS_NOTE * bool(result.checks))
                return
        except direct.Unsupported as exc:
            why_not_direct = str(exc)
        namer.taken = taken
        if info.library != "tensorflow":
            result, why = versioning.rewrite_with_inferred_ranks(ctx, info, namer, tf_alias, np_alias, shapes)
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


def _conjunction(test: gast.expr) -> str:
    """``a and b and c`` as written (ast.unparse brackets the third operand of a chain); an
    operand that binds less tightly than ``and`` (``a or b``) keeps its brackets."""
    values = test.values if isinstance(test, gast.BoolOp) and isinstance(test.op, gast.And) else [test]

    def operand(v):
        text = gast.unparse(v).strip()
        loose = isinstance(v, (gast.BoolOp, gast.IfExp, gast.Lambda, gast.NamedExpr)) and len(values) > 1
        return f"({text})" if loose and not (isinstance(v, gast.BoolOp) and isinstance(v.op, gast.And)) else text
    return " and ".join(operand(v) for v in values)


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
            unstaged=frozenset(), import_numpy=False, np_alias=None, line_length=None) -> str:
    splicer = Splicer(text, line_length=line_length)
    pieces: dict[int, dict[int, str]] = {}  # a distributed loop's rewritten pieces: k -> text
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
        split = _distribution(info)
        if split is not None:
            span = split[0].lines(split[1])
            mark = len(splicer.edits)
        # (a piece of a distributed loop goes under that loop's run-time check, when it has one)
        splicer.nested = int(split is not None and np_alias is not None and bool(split[0].guard(np_alias)))
        marker = _MARKER[chosen.get(id(info), ("pfor", ""))[0]]
        comment = f"# pforge: vectorized loop (was {span}: {result.pattern}) {marker}"
        init = getattr(info.node, "pforge_comprehension", None)
        if init is not None:
            # an unfolded comprehension (analysis.comprehensions): its list, bound on the
            # comprehension's own lines, starts empty where the rewrite extends it
            bound = any(st is init for st in result.drop) or any(
                isinstance(st, gast.Assign) and gast.dump(st.targets[0]) == gast.dump(init.targets[0])
                for st in result.stmts)
            result.drop = [st for st in result.drop if st is not init]
            if not bound:
                result.stmts = [init, *result.stmts]
        if getattr(result, "guard", None) is not None:
            comment += f", {CHECKED_MARKER}"
            kept = unparse_lines([info.node]) if getattr(info.node, "pforge_fallback_unparsed", False) else None
            if split is not None:
                kept = splicer.piece_lines(split[0].loop, split[0].groups[split[1]], header=split[0].header(split[1]))
            splicer.replace_statement_guarded(result.anchor or info.node, comment, _conjunction(result.guard),
                                              unparse_lines(result.stmts) or ["pass"], kept,
                                              unparse_lines(result.prelude), kept_as_written=split is not None)
        elif getattr(result, "anchor", None) is None:
            # (a loop whose values nothing reads leaves no statement: `pass` keeps its block one)
            prelude, body = unparse_lines(result.prelude), unparse_lines(result.stmts)
            splicer.replace_statement(info.node, prelude + [comment] + (body if prelude or body else ["pass"]))
        elif result.stmts:  # a comprehension: its statement is rebuilt around the batched value
            splicer.replace_statement(result.anchor, [comment] + unparse_lines(result.stmts))
        else:  # tf.map_fn: replaced in place
            splicer.insert_marker_before(result.anchor.lineno, comment)
        if split is not None:  # (its text goes with the other pieces', below)
            pieces.setdefault(id(split[0]), {})[split[1]] = splicer.edits.pop(mark).new
        for stmt in result.drop:
            splicer.delete_statement(stmt)
        for node in _consumers(ctx, result, nodes):
            value = result.replace[id(node)]
            text = unparse_lines([gast.Expr(value=value)])[0]
            if not isinstance(value, _ATOMS):
                text = f"({text})"  # (in place of a call, inside whatever expression held it)
            splicer.replace_expression(node, text)
        fdef = info.function
        if info.library != "tensorflow":
            continue
        if fdef is not None and id(fdef) not in staged and id(fdef) not in unstaged \
                and not staging.is_staged(ctx, fdef):
            staged.add(id(fdef))
            splicer.insert_line_before(fdef.lineno, f"@{tf_alias}.function")
    for info in loop_units:
        split = _distribution(info)
        if split is None or split[1] != 0:
            continue
        plan = split[0]
        start, end = splicer.line_start(plan.loop.lineno), splicer.line_end(plan.loop.end_lineno)
        if plan.apart and np_alias is None:  # (no NumPy to check with: the loop stays as it was)
            splicer.edits = [e for e in splicer.edits if not (start <= e.start and e.end <= end)]
        elif id(plan) in pieces or any(start <= e.start and e.end <= end for e in splicer.edits):
            texts = pieces.get(id(plan), {})  # (a piece rewritten, or a loop inside one)
            test = plan.guard(np_alias)
            what = "; ".join(f"{plan.lines(k)} {'vectorized' if k in texts else 'a loop'}"
                             for k in range(len(plan.groups)))
            # (under run-time checks, the marker says so: the loop kept under `else:` is not split again)
            how = "index set split" if plan.iters is not None else "loop distributed"
            headers = None if plan.iters is None else [plan.header(k) for k in range(len(plan.iters))]
            splicer.replace_distributed(plan.loop, f"# pforge: {how} (was lines {plan.loop.lineno}-"
                                        f"{plan.loop.end_lineno}: {what})" + f", {CHECKED_MARKER}" * bool(test), test,
                                        [texts.get(k) for k in range(len(plan.groups))], plan.groups, headers)
    return splicer.apply()


def _consumers(ctx, result, nodes):
    """The nodes a rewrite replaces outside its loop (``tf.stack(outs)``)."""
    if not result.replace:
        return []
    if not nodes:  # one walk per module, not one per loop
        nodes.update((id(n), n) for n in gast.walk(ctx.tree))
    return [nodes[key] for key in result.replace if key in nodes]
