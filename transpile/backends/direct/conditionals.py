"""Per-iteration ``if`` statements by predication: both branches run with their effects masked,
names merge with ``where``; tests of an ``if``/``elif`` chain and their logical combinations."""

from __future__ import annotations

import gast

from pforge.transpile import templates
from pforge.transpile.backends.direct.core import InvariantTest, Unsupported, Val, align
from pforge.transpile.backends.direct.shared import Ind, _Pending, _is_boolean
from pforge.transpile.vplan import if_conversion


class ConditionalsMixin:
    """``if`` statements on per-iteration tests, and the tests themselves."""

    # -- conditionals (predication) ------------------------------------------------------------------

    def _if(self, stmt, later, depth):
        """Prints the plan's if-conversion of ``stmt`` (:func:`vplan.if_conversion`): both
        branches run under their masks, the plan's blends merge with ``where``, masked
        reductions carry their running value from one branch into the next, and appends
        become the plan's selects or filters."""
        if id(stmt) in self.assume:  # unswitched: this rewrite is for one outcome of the test
            self._block(stmt.body if self.assume[id(stmt)] else stmt.orelse, later, depth)
            return
        plan = if_conversion(self.info, self.levels[-1].info, stmt)
        test = self.tests.pop(id(stmt), None) or self._chain_tests(plan)
        if not test.stacked:
            message = f"line {stmt.lineno}: an `if` whose test does not depend on the loop"
            if self.mask is None and any(stmt is s for s in self.info.body) and self.lib.kind == "np" \
                    and not self.to_tf and _unswitchable_test(stmt.test, self.loop_stores):
                raise InvariantTest(message, stmt)
            raise Unsupported(message)
        if test.rank not in (0, None):
            raise Unsupported(f"line {stmt.lineno}: an `if` on an array")
        test = Val(test.node, test.full, 0)
        saved_env, saved_mask, saved_branch = dict(self.env), self.mask, self.in_branch
        counts = {k: len(v) for k, v in self.pending.items()}
        negated = self._not(test)
        results, middle = [], {}
        for branch, cond in ((stmt.body, test), (stmt.orelse, negated)):
            carried = {n: results[0][n] for n in plan.flows if results and n in results[0]}
            self.env = {**saved_env, **carried}
            self.mask = cond if saved_mask is None else self._and(saved_mask, cond)
            self.in_branch = True
            self._block(branch, later, depth)
            results.append(self.env)
            if not middle:
                middle = {k: len(v) for k, v in self.pending.items()}
        then_env, else_env = results
        self.env, self.mask, self.in_branch = dict(saved_env), saved_mask, saved_branch
        covered = {b.name for b in plan.blends} | plan.flows | plan.local
        for name in sorted((set(then_env) | set(else_env)) - covered):
            if then_env.get(name) is not saved_env.get(name) or else_env.get(name) is not saved_env.get(name):
                raise Unsupported(f"`{name}` changes under the `if` at line {stmt.lineno} in a way the "
                                  "plan does not merge")
        for name in plan.flows:  # masked, not blended: the value after both branches
            if name in else_env:
                self.env[name] = else_env[name]
        for blend in plan.blends:
            name, old = blend.name, saved_env.get(blend.name)
            a = then_env.get(name) if blend.then == "branch" else old
            b = else_env.get(name) if blend.otherwise == "branch" else old
            if a is old and b is old:
                continue
            if a is None or b is None or isinstance(a, Ind) or isinstance(b, Ind):
                raise Unsupported(f"`{name}` is bound in only one branch of the `if` at line {stmt.lineno}")
            (c, x, y), full, rank = align(self.lib, [test, a, b], f"`{name}` merged after the `if`")
            x, y = self._strong_arm(x, y), self._strong_arm(y, x)
            self._bind(name, self._merged(self.lib.call("where", c.node, x.node, y.node), full, rank, a, b), later)
        for merge in plan.outputs:
            if merge.how != "select" or merge.name not in self.pending:
                continue  # a filter keeps its masked entry; a masked reduction is done
            entries = self.pending[merge.name]
            start, mid = counts.get(merge.name, 0), middle.get(merge.name, counts.get(merge.name, 0))
            then_new, else_new = entries[start:mid], entries[mid:]
            if len(then_new) != 1 or len(else_new) != 1:
                raise Unsupported(f"`{merge.name}` gets more than one value per iteration")
            (c, x, y), full, rank = align(self.lib, [test, then_new[0].value, else_new[0].value],
                                          f"the value appended to `{merge.name}`")
            x, y = self._strong_arm(x, y), self._strong_arm(y, x)
            value = self._merged(self.lib.call("where", c.node, x.node, y.node), full, rank,
                           then_new[0].value, else_new[0].value)
            self.pending[merge.name] = entries[:start] + [_Pending(saved_mask, value)]

    def _chain_tests(self, plan) -> Val:
        """The test of ``plan.stmt``; when the plan hoists its chain's tests (a branch writes
        what a test reads), every test of the chain is computed once, up front, into a
        temporary: the loop evaluates each test before its branch writes, whereas whole-array
        branches run one after the other (``if d[i] > 0: d[i] = -1.0 else: d[i] = 1.0``
        re-tested after the first write turned every ``d`` to 1).
        """
        if not plan.hoisted:
            return self._test(plan.stmt.test)
        saved, reach = self.mask, None
        for link in plan.chain:
            # an `elif` test runs only where the tests before it failed (it may read what they guard)
            self.mask = saved if reach is None else reach if saved is None else self._and(saved, reach)
            try:
                val = self._test(link.test)
            finally:
                self.mask = saved
            if val.stacked:
                failed = self._not(val)
                reach = failed if reach is None else self._and(reach, failed)
                tmp = self.namer.new("cond")
                self.out += templates.replace(f"{tmp} = V", V=val.node)
                val = val.with_node(templates.name(tmp))
            self.tests[id(link)] = val
        return self.tests.pop(id(plan.stmt))

    def _test(self, node):
        if isinstance(node, gast.BoolOp):
            # `and`/`or` short-circuit: each operand is evaluated where the ones before it let the
            # loop reach it (`i + 1 < n and x[i + 1] > 0` reads `x[n]` nowhere), under that mask
            conjunction = isinstance(node.op, gast.And)
            fn = "logical_and" if conjunction else "logical_or"
            saved, vals, result = self.mask, [], None
            try:
                for v in node.values:
                    if result is not None and result.stacked:
                        reach = result if conjunction else self._not(result)
                        self.mask = reach if saved is None else self._and(saved, reach)
                    val = self._test(v)
                    vals.append(val)
                    if result is None or not (result.stacked or val.stacked):
                        result = val
                    else:
                        (a, b), full, rank = align(self.lib, [result, val], f"`{fn}`")
                        result = Val(self.lib.call(fn, a.node, b.node), full, rank)
            finally:
                self.mask = saved
            if not any(v.stacked for v in vals):
                return self.ev(node)
            return result
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            inner = self._test(node.operand)
            return self._not(inner) if inner.stacked else self.ev(node)
        if isinstance(node, gast.Compare) and len(node.ops) > 1:
            parts, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                parts.append(gast.Compare(left=left, ops=[op], comparators=[right]))
                left = right
            return self._test(gast.BoolOp(op=gast.And(), values=parts))
        val = self.ev(node)
        if val.stacked and not _is_boolean(node, self.ctx):
            raise Unsupported("a per-iteration test that is not a comparison or logical expression")
        return val

    def _not(self, val):
        return Val(self.lib.call("logical_not", val.node), val.full, val.rank)

    def _and(self, a, b):
        (x, y), full, rank = align(self.lib, [a, b], "a nested test")
        return Val(self.lib.call("logical_and", x.node, y.node), full, rank)


def _unswitchable_test(test, loop_stores: set[str]) -> bool:
    """Whether the invariant test of an ``if`` at the top of the loop body can be evaluated once,
    in front of the loop, as the loop evaluates it on its first iteration: names the loop does
    not bind (and attributes of them), constants, comparisons, ``not``, ``and`` and ``or``; no
    call, subscript or other expression that could do work or raise otherwise."""
    allowed = (gast.Name, gast.Attribute, gast.Constant, gast.Compare, gast.BoolOp, gast.UnaryOp, gast.Load,
               gast.boolop, gast.cmpop, gast.Not)
    for node in gast.walk(test):
        if not isinstance(node, allowed):
            return False
        if isinstance(node, gast.UnaryOp) and not isinstance(node.op, gast.Not):
            return False
        if isinstance(node, gast.Attribute) and not isinstance(node.value, (gast.Name, gast.Attribute)):
            return False
        if isinstance(node, gast.Name) and node.id in loop_stores:
            return False
    return True
