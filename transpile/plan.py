"""Loop plans: the frozen, per-loop record of what the analysis found and what was done."""

from __future__ import annotations

from dataclasses import dataclass

import gast

from pforge.transpile.analysis import COLLECTOR, COMPREHENSION, INDEXED, LoopInfo, reduction_term
from pforge.transpile.operators import OPERATORS
from pforge.transpile.remarks import Remark
from pforge.transpile.remedies import with_remedy


@dataclass(frozen=True)
class LevelPlan:
    """One level of a loop nest, for ``explain``.

    Attributes:
        lineno: the level's ``for``/``while`` line.
        space: the iteration space in normal form (``i in range(n)``).
        classes: ``(name, class)`` pairs, sorted by name.
        verdict: ``vectorizable``, ``reduction`` (an independent level that only accumulates),
            or ``refused``.
        dependences: one line per dependence that the test found.
        blockers: the PF2xx remarks of this level.
        notes: facts that decided nothing but explain the level (a triangular or data-dependent
            trip count).
    """

    lineno: int
    depth: int
    space: str
    classes: tuple[tuple[str, str], ...]
    verdict: str
    dependences: tuple[str, ...]
    blockers: tuple[Remark, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class LoopPlan:
    """What pforge decided for one loop unit (a nest, or an inner loop of a refused nest).

    Attributes:
        lineno, col, end_lineno: the loop's span (1-based line, 1-based column).
        function: qualified name of the enclosing function ("" at module level).
        library: ``tensorflow``, ``numpy``, ``mixed`` or ``python``.
        vectorizable: the analysis proved the iterations independent.
        rewritten: the backend replaced the loop.
        backend: the backend that rewrote it (None when it was not rewritten).
        pattern: a short description (``map over x, collector outs``).
        remarks: the PF1xx remark (vectorizable) or the PF2xx remarks (refused), plus a
            PF301 note when a vectorizable loop was left as it was.
        levels: one entry per level of the nest, outermost first.
        unsafe: why rewriting this loop may change its results (a floating-point sum or
            product reassociated), or None when the rewrite computes the same values. Only
            set on vectorizable loops; ``pforge check --fix`` applies unsafe rewrites only
            with ``--unsafe-fixes``.
        backend_note: why that backend was chosen (``auto`` falls back to pfor when an op has
            no batching rule or a rank is unknown, and says which).
        held_back: a backend could rewrite the loop, but the rewrite is unsafe and was not
            applied (``unsafe=False``, i.e. ``check --fix`` without ``--unsafe-fixes``).
        vector_plan: the vector plan of a vectorizable loop, one line per recipe
            (:mod:`pforge.transpile.vplan`); empty unless ``transpile_source`` was asked for it.
        footprint: for a rewrite, the largest per-iteration value the batched code holds for
            many iterations at once and for how many (``pforge explain`` prints it: memory
            is that count times one value's size, where the loop holds one), or "".
        choices: for a rewrite, each idiom's forms weighed and what each costs (values held
            at once, multiply-adds; sizes as the source spells them), and which was taken
            and why, one line each (``pforge explain`` prints them).
    """

    lineno: int
    col: int
    end_lineno: int
    function: str
    library: str
    vectorizable: bool
    rewritten: bool
    backend: str | None
    pattern: str
    remarks: tuple[Remark, ...]
    levels: tuple[LevelPlan, ...]
    unsafe: str | None = None
    backend_note: str = ""
    held_back: bool = False
    vector_plan: tuple[str, ...] = ()
    footprint: str = ""
    choices: tuple[str, ...] = ()


def level_verdict(info: LoopInfo) -> str:
    if not info.vectorizable:
        return "refused"
    produces = [c for c in info.classes.values() if c in (COLLECTOR, INDEXED)]
    if not produces and info.reductions:
        return "reduction"
    if info.scatter_add and all(w.aug for ws in info.arrays.values() for w in ws) and not info.collectors:
        return "reduction"
    return "vectorizable"


def pattern_remark(info: LoopInfo, rewrite_pattern: str | None, backend: str | None,
                   note: str | None = None) -> Remark:
    """The PF1xx remark for a vectorizable loop: the most specific pattern first; ``note`` says
    why it was not rewritten (also the PF301 remark), so ``check`` shows it on one line."""
    if info.has_tape:
        code, what = "PF105", "per-example gradient"
    elif any(c.conditional for c in info.collectors.values()) or any(level.packs for level in info.walk()) or (
            info.form == "dict comprehension" and info.node.generators[0].ifs):
        code, what = "PF103", "filter"
    elif info.scatter_add:
        ops = {w.aug for writes in info.arrays.values() for w in writes if w.aug}
        code, what = "PF104", {frozenset({"mul"}): "scatter-multiply", frozenset({"or"}): "scatter-or",
                               frozenset({"and"}): "scatter-and"}.get(frozenset(ops), "scatter-add")
    elif any(level.scans for level in info.walk()):
        code, what = "PF106", "scan"
    elif level_verdict(info) == "reduction":
        code, what = "PF102", "reduction"
    else:
        code, what = "PF101", "map"
    outputs = _outputs(info)
    how = {"pfor": "pfor backend (tf.vectorized_map)", "direct": "direct backend (batched ops)"}.get(
        backend or "", "not rewritten" + (f": {note}" if note else ""))
    detail = rewrite_pattern or f"{info.space.describe()}{'; ' + outputs if outputs else ''}"
    split = getattr(info.node, "pforge_distributed", None)
    if split is not None:  # (a piece of a loop refused whole: analysis.distribution)
        transformation = "index-set splitting" if split[0].iters is not None else "loop distribution"
        detail = f"{transformation}, {split[0].lines(split[1])}: {detail}"
    checks = [c for level in info.walk() for c in level.runtime_checks]
    if checks:  # (a distance the code does not fix: vectorizable where it allows, the loop elsewhere)
        detail += ", where " + " and ".join(getattr(c, "pforge_says", None) or f"`{gast.unparse(c).strip()}`"
                                            for c in checks) + " (checked at run time)"
    return Remark(code, f"loop can be vectorized ({what}): {detail} [{how}]",
                  info.lineno, info.node.col_offset + 1)


def _outputs(info):
    parts = [f"collector {n}" for n in info.collectors if n != COMPREHENSION]
    if info.form != "loop":
        parts.insert(0, info.form)
    parts += [f"{r.op} reduction {n}" for n, r in info.reductions.items()]
    parts += [f"arg{a.op} {n} of {a.value}" for n, a in info.arg_reductions.items() if a.name is not None]
    parts += [f"{s.op} scan {s.array or n}" for n, s in info.scans.items()]
    packed = {p.array: p.counter for p in info.packs.values()}
    parts += [(f"pack {n} at {packed[n]}" if n in packed else f"indexed output {n}")
              + (" (an argument, updated in place)" if n in info.mutated_args else "") for n in info.arrays]
    parts += [f"TensorArray {n}" for n in info.tensorarrays]
    parts += [f"wrap-around {n}" for n in info.wraparound]
    parts += [f"last value under a test {n}" for n in info.live_conditional]
    if info.random_draws:
        parts.append("random draws opted in (the batch draws other numbers than the loop)")
    return ", ".join(parts)


def unsafe_reason(info: LoopInfo) -> str | None:
    """Why the rewrite of a vectorizable loop nest may not reproduce the loop's values, or None.

    A batched ``+`` or ``*`` reduction reassociates the sum or product, which changes the
    last bits of floating-point results; it is safe only when every term is an integer
    literal (``n += 1``), since the analysis knows no other dtypes; a derived induction variable
    (``t += dt``) is computed as ``t + k * dt``, exact only for the same integer steps. A
    NumPy scan is not reassociated (``ufunc.accumulate`` runs in the loop's order) unless its
    update adds several terms (``s = s + b[i] + c[i]``, ``analysis.chains``), a
    TensorFlow sum or product scan is (``tf.math.cumsum``), a NumPy linear recurrence is composed
    in a tree, a TensorFlow one runs in order (``tf.scan``). A scatter-add sums
    into the same slot in a different order. Random draws opted in with
    ``# pforge: random-ok`` (PF208) are unsafe: the batch draws other numbers.
    """
    for level in info.walk():
        if level.random_draws:
            return "draws random numbers in a batch, which gives other numbers than the loop"
        if level.scatter_add:
            return "sums into scattered slots in a different order than the loop"
        for name, red in level.reductions.items():
            if not OPERATORS[red.op].exact and not all(_integer_term(u) for u in red.updates):
                what = {"add": "sum", "mul": "product"}.get(red.op, f"{red.op} reduction")
                return (f"reassociates the {what} `{name}`; floating-point results may differ "
                        "in the last bits")
        for name, scan in level.scans.items():
            if scan.op in ("add", "mul") and getattr(reduction_term(scan.update, name), "pforge_reassociated", False):
                return (f"{'adds' if scan.op == 'add' else 'multiplies'} the terms of the running "
                        f"{'sum' if scan.op == 'add' else 'product'} `{name}` together before they reach it "
                        "(the loop takes them one by one); floating-point results may differ in the last "
                        "bits, and by more where terms cancel or a product of them over- or underflows")
            if scan.op in ("add", "mul") and info.library == "tensorflow":
                return (f"computes the running {'sum' if scan.op == 'add' else 'product'} `{name}` with "
                        f"tf.math.{'cumsum' if scan.op == 'add' else 'cumprod'}, whose order (parallel on a "
                        "GPU) may differ from the loop's in the last bits")
            if scan.op == "linear" and info.library != "tensorflow":
                return (f"composes the steps of the linear recurrence `{name}` in a tree (log-depth "
                        "products of its coefficients); floating-point results may differ in the "
                        "last bits from the loop's order")
        for name, updates in level.derived.items():
            if not all(_integer_term(update) for update in updates):
                return (f"computes `{name}` as its start plus the iteration count times its step; "
                        "floating-point values may differ in the last bits from adding the step "
                        "once per iteration")
    return None


def _integer_term(update) -> bool:
    value = getattr(update, "value", None)
    if isinstance(update, gast.Assign) and isinstance(value, gast.BinOp):
        value = value.right if isinstance(value.left, gast.Name) else value.left
    return (isinstance(value, gast.Constant) and type(value.value) is int)


def scan_costs(level: LoopInfo, library: str) -> list[str]:
    """For ``explain``: each scan of ``level`` with the form the direct backend gives it and
    its cost over n iterations, work and depth (the longest chain of dependent steps), after
    Blelloch, "Prefix sums and their applications" (1990)."""
    notes = []
    for name, scan in sorted(level.scans.items()):
        if library != "tensorflow" and scan.op == "linear":
            notes.append(f"scan `{name}`: a first-order linear recurrence as a blocked scan (a Toeplitz product "
                         "per block of 16 for one coefficient, lanes of 4 where it varies; recursive doubling "
                         "over the block ends): O(n) work, O(log n) depth; composed in another order than the "
                         "loop's (an unsafe fix)")
        elif library != "tensorflow":
            ufunc = {"add": "add", "mul": "multiply", "max": "maximum", "min": "minimum"}.get(scan.op, scan.op)
            notes.append(f"scan `{name}`: `np.{ufunc}.accumulate` from the start, in the loop's order: O(n) "
                         "work and depth")
        elif scan.op in ("add", "mul"):
            notes.append(f"scan `{name}`: `tf.math.{'cumsum' if scan.op == 'add' else 'cumprod'}`: O(n) work, "
                         "O(log n) depth on a GPU; TensorFlow's order may differ in the last bits (an unsafe fix)")
        else:
            notes.append(f"scan `{name}`: `tf.scan` of the loop's own step: O(n) work and depth, inside one graph")
    return notes


def plan_for(info: LoopInfo, rewrite, note: str | None, backend: str, backend_note: str = "",
             held_back: bool = False, vector_plan: tuple[str, ...] = ()) -> LoopPlan:
    """Freezes the analysis of a loop unit and what the backend did into a plan."""
    levels = []
    for level in info.walk():
        depth, parent = 0, level.parent
        while parent is not None and parent is not info.parent:
            depth, parent = depth + 1, parent.parent
        costs = scan_costs(level, info.library) if rewrite is not None and backend == "direct" else []
        levels.append(LevelPlan(level.lineno, depth,
                                level.space.describe() if level.space else "(not modelled)",
                                tuple(sorted(level.classes.items())), level_verdict(level),
                                tuple(level.dependences), tuple(level.blockers),
                                tuple(level.notes) + tuple(costs)))
    if info.vectorizable:
        if rewrite is None and note:
            note = with_remedy(note)  # (what would make it rewritable)
        used = backend if rewrite is not None else None
        remarks = [pattern_remark(info, rewrite.pattern if rewrite else None, used,
                                  note if rewrite is None else None)]
        if rewrite is None and note:
            remarks.append(Remark("PF301", f"left as a loop: {note}", info.lineno, info.node.col_offset + 1))
    else:
        remarks = list(info.blockers)
    return LoopPlan(info.lineno, info.node.col_offset + 1, info.end_lineno, info.qualname,
                    info.library, info.vectorizable, rewrite is not None,
                    backend if rewrite is not None else None,
                    rewrite.pattern if rewrite else _outputs(info), tuple(remarks), tuple(levels),
                    (unsafe_reason(info) or getattr(rewrite, "unsafe", None)) if info.vectorizable else None,
                    backend_note if rewrite is not None else "", held_back, vector_plan,
                    getattr(rewrite, "footprint", "") if rewrite is not None else "",
                    tuple(getattr(rewrite, "choices", ())) if rewrite is not None else ())
