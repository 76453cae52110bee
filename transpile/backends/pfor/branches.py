"""If-conversion in the body: an ``if`` on a per-iteration value becomes ``tf.where`` merges
(both branches run; both are pure), a value appended on one path only becomes a filter mask."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import gast

from pforge.transpile import analysis, templates
from pforge.transpile.backends.common import Unsupported, _loads, _stores

_IDENTITY = {"add": "0", "mul": "1", "or": "False", "and": "True"}


@dataclass
class _Branch:
    stmts: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)


class BranchesMixin:
    """The ``_Vectorizer`` methods that lower an ``if`` in the body."""

    # -- branches ------------------------------------------------------------------------------

    def _lower_if(self, stmt, later):
        """An ``if`` in the body becomes ``tf.where`` merges (both branches run; both are pure)."""
        out: list[gast.stmt] = []
        cond_expr = self._test(stmt.test)
        if len(_loads(cond_expr)) and (self._count_merges(stmt) > 1):
            cond = self.namer.new("cond")
            out += templates.replace(f"{cond} = COND", COND=cond_expr)
            cond_expr = templates.name(cond)
        then = self._lower_branch(stmt.body)
        other = self._lower_branch(stmt.orelse)
        out += then.stmts + other.stmts
        local = analysis.branch_locals(self.info, stmt)
        for name in sorted(set(then.env) | set(other.env)):
            if name in local and (name not in then.env or name not in other.env):
                continue  # bound on one path and read only there: nothing to blend
            a = then.env.get(name, templates.name(name))
            b = other.env.get(name, templates.name(name))
            out += templates.replace(f"{name} = {self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            self.stacked.add(name)
        for key in [k for k in then.outputs] + [k for k in other.outputs if k not in then.outputs]:
            kind, name = key.split(":", 1)
            a, b = then.outputs.get(key), other.outputs.get(key)
            if key in self.outputs:
                raise Unsupported(f"`{name}` gets more than one value per iteration")
            if a is not None and b is not None:
                value = templates.expr(f"{self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            elif kind == "reduction":
                red = self.info.reductions[name]
                if red.op not in _IDENTITY:
                    raise Unsupported(f"a conditional `{red.op}` reduction of `{name}`")
                present = a if a is not None else b
                zero = templates.expr(f"{self.tf}.zeros_like(V)" if red.op == "add" else
                                      f"{self.tf}.ones_like(V)" if red.op == "mul" else _IDENTITY[red.op],
                                      V=present)
                value = templates.expr(f"{self.tf}.where(C, A, B)", C=cond_expr,
                                       A=a if a is not None else zero, B=b if b is not None else zero)
            else:  # appended in one branch only: a filter
                value = a if a is not None else b
                self.masks[key] = cond_expr if a is not None else templates.expr(
                    f"{self.tf}.logical_not(C)", C=cond_expr)
            self._record(key, value, later, out)
        return out

    def _count_merges(self, stmt):
        """How many ``tf.where`` merges the ``if`` needs (a shared condition pays off above one)."""
        appended = {n.func.value.id for n in gast.walk(stmt) if isinstance(n, gast.Call)
                    and isinstance(n.func, gast.Attribute) and n.func.attr == "append"
                    and isinstance(n.func.value, gast.Name)}
        return len(_stores(stmt.body) | _stores(stmt.orelse) | appended)

    def _lower_branch(self, stmts, outer_env=None):
        """Lowers one branch into temporaries; returns its statements, renamings and outputs.

        ``outer_env`` holds the renamings of enclosing branches, so a nested ``if`` reads the
        values its own branch computed.
        """
        outer_env = outer_env or {}
        branch = _Branch()
        saved = self.outputs, self.order, self.masks
        self.outputs, self.order, self.masks = {}, [], {}
        try:
            for stmt in stmts:
                scope = {**outer_env, **branch.env}
                kind = self._output_kind(stmt)
                if kind is not None:
                    key, value = kind
                    if key in self.outputs:
                        raise Unsupported(f"`{key.split(':', 1)[1]}` gets more than one value per iteration")
                    self.outputs[key] = self._expr(value, scope)
                    self.order.append(key)
                elif isinstance(stmt, gast.If):
                    branch.stmts += self._lower_if_in_branch(stmt, branch, scope)
                elif isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                        isinstance(stmt.targets[0], gast.Name):
                    name = stmt.targets[0].id
                    tmp = self.namer.new(f"{name}_if")
                    branch.stmts += templates.replace(f"{tmp} = VALUE", VALUE=self._expr(stmt.value, scope))
                    branch.env[name] = templates.name(tmp)
                elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
                    name = stmt.target.id
                    tmp = self.namer.new(f"{name}_if")
                    current = scope.get(name, templates.name(name))
                    value = gast.BinOp(left=copy.deepcopy(current), op=stmt.op,
                                       right=self._expr(stmt.value, scope))
                    branch.stmts += templates.replace(f"{tmp} = VALUE", VALUE=value)
                    branch.env[name] = templates.name(tmp)
                elif isinstance(stmt, gast.Pass):
                    continue
                else:
                    raise Unsupported(f"line {stmt.lineno}: only assignments, appends and nested "
                                      "ifs are lowered under a per-iteration `if`")
            branch.outputs = self.outputs
        finally:
            self.outputs, self.order, self.masks = saved
        return branch

    def _lower_if_in_branch(self, stmt, branch, scope):
        """A nested ``if`` inside a branch: its merges become temporaries of that branch."""
        cond_expr = self._test(stmt.test, scope)
        then = self._lower_branch(stmt.body, scope)
        other = self._lower_branch(stmt.orelse, scope)
        stmts = then.stmts + other.stmts
        local = analysis.branch_locals(self.info, stmt)
        for name in sorted(set(then.env) | set(other.env)):
            if name in local and (name not in then.env or name not in other.env):
                continue  # bound on one path and read only there: nothing to blend
            a = then.env.get(name, scope.get(name, templates.name(name)))
            b = other.env.get(name, scope.get(name, templates.name(name)))
            tmp = self.namer.new(f"{name}_if")
            stmts += templates.replace(f"{tmp} = {self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            branch.env[name] = templates.name(tmp)
        for key in list(then.outputs) + [k for k in other.outputs if k not in then.outputs]:
            a, b = then.outputs.get(key), other.outputs.get(key)
            if key in self.outputs:
                raise Unsupported(f"`{key.split(':', 1)[1]}` gets more than one value per iteration")
            if a is None or b is None:
                raise Unsupported("a filter inside a nested conditional is not rewritten yet")
            self.outputs[key] = templates.expr(f"{self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            self.order.append(key)
        return stmts

    def _test(self, test, env=None):
        return _to_graph_test(self._expr(test, env), self.tf)


def _to_graph_test(node, tf):
    """``a and b`` -> ``tf.logical_and(a, b)``; ``not a`` -> ``tf.logical_not(a)``; chained compares split."""
    if isinstance(node, gast.BoolOp):
        fn = "logical_and" if isinstance(node.op, gast.And) else "logical_or"
        values = [_to_graph_test(v, tf) for v in node.values]
        result = values[0]
        for v in values[1:]:
            result = templates.expr(f"{tf}.{fn}(A, B)", A=result, B=v)
        return result
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return templates.expr(f"{tf}.logical_not(A)", A=_to_graph_test(node.operand, tf))
    if isinstance(node, gast.Compare) and len(node.ops) > 1:
        parts, left = [], node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(gast.Compare(left=copy.deepcopy(left), ops=[op], comparators=[copy.deepcopy(right)]))
            left = right
        return _to_graph_test(gast.BoolOp(op=gast.And(), values=parts), tf)
    return node
