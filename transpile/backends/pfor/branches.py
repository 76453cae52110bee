"""If-conversion in the body: an ``if`` on a per-iteration value becomes ``tf.where`` merges
(both branches run; both are pure), a value appended on one path only becomes a filter mask."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import gast

from pforge.transpile import templates
from pforge.transpile.backends.common import Unsupported, _loads, _stores
from pforge.transpile.vplan import if_conversion
from pforge.transpile.operators import OPERATORS



@dataclass
class _Branch:
    stmts: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)


class BranchesMixin:
    """The ``_Vectorizer`` methods that lower an ``if`` in the body."""

    # -- branches ------------------------------------------------------------------------------

    def _lower_if(self, stmt, later):
        """Prints the plan's if-conversion of ``stmt`` (:func:`vplan.if_conversion`) as
        ``tf.where`` merges: both branches run into temporaries, the plan's blends merge them
        (a path that does not bind a name gives its old value), outputs become selects,
        filter masks, or reduction terms masked with the operator's identity."""
        plan = if_conversion(self.info, self.info, stmt)
        out: list[gast.stmt] = []
        cond_expr = self._test(stmt.test)
        if len(_loads(cond_expr)) and (plan.hoisted or self._count_merges(stmt) > 1):
            cond = self.namer.new("cond")
            out += templates.replace(f"{cond} = COND", COND=cond_expr)
            cond_expr = templates.name(cond)
        then = self._lower_branch(stmt.body)
        other = self._lower_branch(stmt.orelse)
        out += then.stmts + other.stmts
        for name, a, b in _blends(plan, then, other, lambda n: templates.name(n)):
            out += templates.replace(f"{name} = {self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            self.stacked.add(name)
        merges = {m.name: m for m in plan.outputs}
        for key in [k for k in then.outputs] + [k for k in other.outputs if k not in then.outputs]:
            kind, name = key.split(":", 1)
            a, b = then.outputs.get(key), other.outputs.get(key)
            if key in self.outputs:
                raise Unsupported(f"`{name}` gets more than one value per iteration")
            if a is not None and b is not None:
                value = templates.expr(f"{self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            elif kind == "reduction":
                op = OPERATORS[self.info.reductions[name].op]
                if op.identity is None:
                    raise Unsupported(f"a conditional `{op.name}` reduction of `{name}`")
                present = a if a is not None else b
                identity = _identity(op, present, self.tf)
                value = templates.expr(f"{self.tf}.where(C, A, B)", C=cond_expr,
                                       A=a if a is not None else identity, B=b if b is not None else identity)
            elif kind == "collector" and merges.get(name) is not None and merges[name].how == "filter":
                value = a if a is not None else b
                self.masks[key] = cond_expr if merges[name].kept_when else templates.expr(
                    f"{self.tf}.logical_not(C)", C=cond_expr)
            else:
                raise Unsupported(f"`{name}` is written on one path of the `if` at line {stmt.lineno} only")
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
        plan = if_conversion(self.info, self.info, stmt)
        cond_expr = self._test(stmt.test, scope)
        then = self._lower_branch(stmt.body, scope)
        other = self._lower_branch(stmt.orelse, scope)
        stmts = then.stmts + other.stmts
        for name, a, b in _blends(plan, then, other, lambda n: scope.get(n, templates.name(n))):
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


def _blends(plan, then, other, old):
    """``(name, then value, else value)`` for each blend of the plan; ``old(name)`` is the
    value before the ``if``. A name the plan does not blend must not change in a branch."""
    covered = {b.name for b in plan.blends} | plan.local | plan.flows
    stray = sorted((set(then.env) | set(other.env)) - covered)
    if stray:
        raise Unsupported(f"`{stray[0]}` changes under the `if` at line {plan.stmt.lineno} in a way "
                          "the plan does not merge")
    found = []
    for blend in plan.blends:
        a = then.env.get(blend.name) if blend.then == "branch" else old(blend.name)
        b = other.env.get(blend.name) if blend.otherwise == "branch" else old(blend.name)
        if a is None or b is None:
            raise Unsupported(f"`{blend.name}` is bound in only one branch of the `if` at line "
                              f"{plan.stmt.lineno}")
        found.append((blend.name, a, b))
    return found


def _identity(op, like, tf):
    """The operator's identity, shaped like the term ``like`` where it is a number."""
    if type(op.identity) is not bool and op.identity in (0, 1):
        return templates.expr(f"{tf}.{'zeros' if op.identity == 0 else 'ones'}_like(V)", V=like)
    return templates.expr(op.identity_text)
