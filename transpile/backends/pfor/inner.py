"""Inner loops of the body: an independent one becomes a nested ``tf.vectorized_map``, a
carried (or ragged) one a ``tf.while_loop`` over its state."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.backends.common import Unsupported, _stores
from pforge.transpile.backends.pfor.branches import _to_graph_test
from pforge.transpile.backends.pfor.expressions import _ExprRewriter
from pforge.transpile.spaces import constant_int
from pforge.transpile.vplan import inner_loop


class InnerLoopsMixin:
    """The ``_Vectorizer`` methods that lower a loop nested in the body."""

    # -- inner loops -----------------------------------------------------------------------------

    def _lower_inner_loop(self, stmt):
        child = next((c for c in self.info.children if c.node is stmt), None)
        if child is None:
            raise Unsupported(f"line {stmt.lineno}: an inner loop pforge did not analyse")
        decision = self._inner_decision(child)
        if decision.mode == "vectorized" and not decision.ragged:
            inner = type(self)(self.ctx, child, self.namer, self.tf, stacked_outside=set(self.stacked), inner=True)
            rewrite = inner.run()
            for col in rewrite.drop:
                self.inner_drop.add(id(col))
            self.inner_replace.update(rewrite.replace)
            for s in rewrite.stmts:
                self._mark_stacked(s)
            self.stacked |= _stores(rewrite.stmts)
            return [_ExprRewriter(self, {}).visit(s) for s in rewrite.stmts]
        return self._while_loop(child, decision)

    def _inner_decision(self, child):
        """The plan's decision for ``child`` (:func:`vplan.inner_loop`): vectorized, ragged, or
        sequential with its carried state."""
        return inner_loop(self.info, child, self.stacked)

    def _while_loop(self, child, decision):
        """A carried (or ragged) inner loop kept as a loop: ``tf.while_loop`` over its state."""
        space = child.space
        if space is None or space.kind not in ("range", "while"):
            raise Unsupported("an inner loop over rows with a per-iteration length")
        step = constant_int(space.step) if space.step is not None else 1
        if step != 1:
            raise Unsupported("an inner loop with a step other than 1")
        if child.collectors or child.tensorarrays or child.arrays:
            raise Unsupported("an inner loop kept as a loop may only update variables")
        blocking = [b for b in child.blockers if b.code != "PF201"]
        if blocking:
            raise Unsupported(f"inner loop at line {child.lineno}: {blocking[0].message}")
        if decision.blocker:
            raise Unsupported(decision.blocker)
        counter = space.induction
        state = list(decision.carried)
        loop_vars = state + [counter]
        out: list[gast.stmt] = []
        if space.kind == "range":
            start = space.start if space.start is not None else gast.Constant(value=0, kind=None)
            out += templates.replace(f"{counter} = START", START=self._expr(start))
        cond_name = self.namer.new(f"_{self.prefix}_cond")
        step_name = self.namer.new(f"_{self.prefix}_step")
        args = ", ".join(loop_vars)
        cond_def = templates.replace(f"def {cond_name}({args}):\n    return TEST",
                                     TEST=_to_graph_test(self._expr(_lt(counter, space.stop)), self.tf))
        saved_stacked = set(self.stacked)
        self.stacked |= set(loop_vars)
        step_body = []
        for s in child.body:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                raise Unsupported("control flow inside a loop kept as a loop is not rewritten yet")
            step_body.append(self._expr(s))
        self.stacked = saved_stacked | set(loop_vars)
        increment = child.node.body[-1] if space.kind == "while" else \
            templates.replace(f"{counter} += 1")[0]
        step_def = templates.replace(f"def {step_name}({args}):\n    pass\n")[0]
        step_def.body = step_body + [copy.deepcopy(increment) if space.kind == "while" else increment] + \
            templates.replace(f"return {args}" + ("," if len(loop_vars) == 1 else ""))
        call = templates.replace(f"{args}{',' if len(loop_vars) == 1 else ''} = "
                                 f"{self.tf}.while_loop({cond_name}, {step_name}, ({args},))")
        return out + cond_def + [step_def] + call


def _lt(counter, stop):
    return gast.Compare(left=templates.name(counter), ops=[gast.Lt()], comparators=[copy.deepcopy(stop)])
