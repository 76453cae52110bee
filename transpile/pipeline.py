"""The driver: parse, discover loops, analyse, plan, rewrite with a backend, splice.

Reads like a table of contents, as AutoGraph's ``transform_ast`` does; each stage lives in
its own module (DESIGN.md, "Pipeline").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import gast

from pforge.transpile import staging
from pforge.transpile.analysis import LoopInfo, ModuleContext, discover
from pforge.transpile.backends import pfor
from pforge.transpile.frontend import SourceText, check_syntax, decode_source
from pforge.transpile.naming import Namer, global_names
from pforge.transpile.outline import analyses_outline, module_context
from pforge.transpile.plan import LoopPlan, plan_for
from pforge.transpile.remarks import Remark
from pforge.transpile.splice import Splicer, unparse_lines

BACKENDS = ("pfor",)


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
def transpile_source(source: str | bytes, filename: str = "<string>", *, backend: str = "pfor",
                     rewrite: bool = True) -> TranspileResult:
    """Rewrites every loop pforge proves independent into vectorized TensorFlow code.

    Args:
        source: Python source text or bytes (decoded by PEP 263 rules).
        filename: used in messages and remarks.
        backend: ``"pfor"`` (``tf.vectorized_map``).
        rewrite: False to analyse only.
    Returns:
        The new text and one plan per loop unit. Deterministic; idempotent.
    Raises:
        SourceError: the input cannot be decoded or parsed.
        ValueError: an unknown backend.
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
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
    tf_alias = ctx.imports.alias_for("tensorflow")
    if rewrite:
        reserved = global_names(tree)
        namers: dict[int, Namer] = {}  # one per function: generated names are local to it
        for info in loop_units:
            if not info.vectorizable:
                continue
            scope = info.function if info.function is not None else tree
            namer = namers.setdefault(id(scope), Namer(scope, reserved))
            try:
                # A TensorFlow loop implies the module imports tensorflow under some alias.
                rewrites[id(info)] = pfor.rewrite_loop(ctx, info, namer, tf_alias or "tf")
            except pfor.Unsupported as exc:
                notes[id(info)] = str(exc)
        _drop_unstageable(ctx, loop_units, rewrites, notes)
    code = _splice(text, ctx, loop_units, rewrites, tf_alias) if rewrites else text.text
    plans = tuple(plan_for(info, rewrites.get(id(info)), notes.get(id(info)), backend)
                  for info in loop_units)
    return TranspileResult(filename, text.text, code, plans)


_LOOP_KEYWORD = re.compile(r"\b(for|while)\b")


def _may_hold_loop(text: str) -> bool:
    # Cheap pre-filter: building the gast tree is the dominant cost and most files hold no loop.
    return _LOOP_KEYWORD.search(text) is not None


def _drop_unstageable(ctx, loop_units, rewrites, notes):
    """Keeps rewrites only in functions that can be staged, so the vectorized code is traced once."""
    by_function: dict[int, list[LoopInfo]] = {}
    for info in loop_units:
        by_function.setdefault(id(info.function), []).append(info)
    for infos in by_function.values():
        done = [i for i in infos if id(i) in rewrites]
        if not done:
            continue
        fdef = done[0].function
        if fdef is not None and staging.is_staged(ctx, fdef):
            continue
        kept = [i for i in infos if id(i) not in rewrites]
        reason = staging.stage_blocker(ctx, fdef, [i.node for i in done], kept)
        if reason:
            for info in done:
                del rewrites[id(info)]
                notes[id(info)] = f"the enclosing function cannot be staged with tf.function: {reason}"


def _splice(text: SourceText, ctx: ModuleContext, loop_units, rewrites, tf_alias) -> str:
    splicer = Splicer(text)
    staged: set[int] = set()
    for info in loop_units:
        result = rewrites.get(id(info))
        if result is None:
            continue
        last = info.node.end_lineno
        span = f"line {info.lineno}" if info.lineno == last else f"lines {info.lineno}-{last}"
        comment = f"# pforge: vectorized loop (was {span}: {result.pattern}) with tf.vectorized_map"
        splicer.replace_statement(info.node, [comment] + unparse_lines(result.stmts))
        for stmt in result.drop:
            splicer.delete_statement(stmt)
        for node in _consumers(ctx, result):
            splicer.replace_expression(node, unparse_lines([gast.Expr(value=result.replace[id(node)])])[0])
        fdef = info.function
        if fdef is not None and id(fdef) not in staged and not staging.is_staged(ctx, fdef):
            staged.add(id(fdef))
            splicer.insert_line_before(fdef.lineno, f"@{tf_alias}.function")
    return splicer.apply()


def _consumers(ctx, result):
    wanted = set(result.replace)
    return [n for n in gast.walk(ctx.tree) if id(n) in wanted]
