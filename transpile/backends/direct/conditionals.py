"""Per-iteration ``if`` statements by predication: both branches run with their effects masked,
names merge with ``where``; tests of an ``if``/``elif`` chain and their logical combinations."""

from __future__ import annotations

import gast

from pforge.transpile import templates
from pforge.transpile.analysis import branch_locals
from pforge.transpile.backends.direct.core import Unsupported, Val, align
from pforge.transpile.backends.direct.shared import Ind, _Pending, _is_boolean, _loads
from pforge.transpile.backends.pfor import _stores


class ConditionalsMixin:
    """``if`` statements on per-iteration tests, and the tests themselves."""

    # -- conditionals (predication) ------------------------------------------------------------------

    def _if(self, stmt, later, depth):
        test = self.tests.pop(id(stmt), None) or self._chain_tests(stmt)
        if not test.stacked:
            raise Unsupported(f"line {stmt.lineno}: an `if` whose test does not depend on the loop")
        if test.rank not in (0, None):
            raise Unsupported(f"line {stmt.lineno}: an `if` on an array")
        test = Val(test.node, test.full, 0)
        saved_env, saved_mask, saved_branch = dict(self.env), self.mask, self.in_branch
        counts = {k: len(v) for k, v in self.pending.items()}
        negated = self._not(test)
        results, middle = [], {}
        for branch, cond in ((stmt.body, test), (stmt.orelse, negated)):
            self.env = dict(saved_env)
            self.mask = cond if saved_mask is None else self._and(saved_mask, cond)
            self.in_branch = True
            self._block(branch, later, depth)
            results.append(self.env)
            if not middle:
                middle = {k: len(v) for k, v in self.pending.items()}
        self.env, self.mask, self.in_branch = dict(saved_env), saved_mask, saved_branch
        then_env, else_env = results
        local = branch_locals(self.levels[-1].info, stmt)
        for name in sorted(set(then_env) | set(else_env)):
            a, b = then_env.get(name), else_env.get(name)
            if a is saved_env.get(name) and b is saved_env.get(name):
                continue
            if name in local and (a is saved_env.get(name) or b is saved_env.get(name)):
                continue  # bound on one path and read only there: nothing to blend
            if a is None or b is None or isinstance(a, Ind) or isinstance(b, Ind):
                raise Unsupported(f"`{name}` is bound in only one branch of the `if` at line {stmt.lineno}")
            (c, x, y), full, rank = align(self.lib, [test, a, b], f"`{name}` merged after the `if`")
            self._bind(name, Val(self.lib.call("where", c.node, x.node, y.node), full, rank), later)
        for name, entries in self.pending.items():
            start, mid = counts.get(name, 0), middle.get(name, counts.get(name, 0))
            then_new, else_new = entries[start:mid], entries[mid:]
            if len(then_new) == 1 and len(else_new) == 1:  # one append in each branch: a select
                new = then_new + else_new
                (c, x, y), full, rank = align(self.lib, [test, new[0].value, new[1].value],
                                              f"the value appended to `{name}`")
                merged = Val(self.lib.call("where", c.node, x.node, y.node), full, rank)
                self.pending[name] = entries[:counts.get(name, 0)] + [_Pending(saved_mask, merged)]

    def _chain_tests(self, stmt) -> Val:
        """The test of ``stmt``; when a branch of its ``if``/``elif`` chain writes what a test
        reads, every test of the chain is computed once, up front, into a temporary.

        The loop evaluates each test before its branch writes (DESIGN.md: an ``if``/``elif``
        chain is one selection over the values its tests read *before* any branch writes),
        whereas whole-array branches run one after the other; re-evaluating a test after an
        earlier branch's write would select on new values (``if d[i] > 0: d[i] = -1.0 else:
        d[i] = 1.0`` turned every ``d`` to 1).
        """
        chain = [stmt]
        while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], gast.If):
            chain.append(chain[-1].orelse[0])
        if not set().union(*(_loads(s.test) for s in chain)) & _written(stmt):
            return self._test(stmt.test)
        for link in chain:
            val = self._test(link.test)
            if val.stacked:
                tmp = self.namer.new("cond")
                self.out += templates.replace(f"{tmp} = V", V=val.node)
                val = val.with_node(templates.name(tmp))
            self.tests[id(link)] = val
        return self.tests.pop(id(stmt))

    def _test(self, node):
        if isinstance(node, gast.BoolOp):
            vals = [self._test(v) for v in node.values]
            if not any(v.stacked for v in vals):
                return self.ev(node)
            fn = "logical_and" if isinstance(node.op, gast.And) else "logical_or"
            result = vals[0]
            for v in vals[1:]:
                (a, b), full, rank = align(self.lib, [result, v], f"`{fn}`")
                result = Val(self.lib.call(fn, a.node, b.node), full, rank)
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


# -- helpers ---------------------------------------------------------------------------------------------


def _written(stmt) -> set[str]:
    """Names bound in ``stmt`` and arrays written through a subscript (``d`` of ``d[i] = v``)."""
    found = _stores([stmt])
    for node in gast.walk(stmt):
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
            base = node.value
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Name):
                found.add(base.id)
    return found
