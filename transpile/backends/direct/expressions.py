"""Expressions of the loop body: names, loop indices as values, operators, attributes, calls
(looked up in the rule registry) and built-ins; subscripts are in :mod:`.indexing`."""

from __future__ import annotations

import contextlib
import copy
import struct

import gast

from pforge.transpile import ranks, templates
from pforge.transpile.analysis.aliasing import _fresh_value
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import (INT_ARM, NOT_INT, Args, Unsupported, Val, align, const,
                                                  leading_axes_dropped, python_result)
from pforge.transpile.backends.direct.dtypes import FLOAT_VALUED
from pforge.transpile.backends.direct.linalg import convert_matmul_operator
from pforge.transpile.backends.direct.shared import Ind, ObjectRows
from pforge.transpile.consumers import ARRAY_READERS
from pforge.transpile.operators import INT_COMPARISONS
from pforge.transpile.rank_inference import rebound_in_module
from pforge.transpile.spaces import constant_int

_LIST_ARG_RULES = {"tensorflow.stack", "numpy.stack", "tensorflow.concat", "numpy.concatenate", "numpy.array",
                   "numpy.asarray"}
#: the zero of each Python number type, for NumPy's rule for a weak Python number
_WEAK_ZEROS = {"int": "0", "float": "0.0", "complex": "0j", "bool": "False"}

#: NumPy functions of a float result for any real input: a Python number or a float64 array in
#: them gives the same number
_FLOAT_VALUED = FLOAT_VALUED

#: expressions that compute a new number from their operands (see :meth:`ExpressionsMixin.ev`;
#: a call, whose arguments' kinds decide, is seen in :meth:`ExpressionsMixin._ev_Call`)
_COMPUTING = (gast.BinOp, gast.UnaryOp, gast.Compare)
#: the nodes of an expression cheap enough to spell twice
_PLAIN_READS = (gast.Name, gast.Attribute, gast.Subscript, gast.Constant, gast.Slice, gast.Tuple,
                gast.Load, gast.expr_context, gast.UnaryOp, gast.USub)

_BINOPS = {gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow,
           gast.BitAnd, gast.BitOr, gast.BitXor, gast.LShift, gast.RShift}


#: calls that raise on some values (LinAlgError on a singular or non-positive-definite matrix,
#: InvalidArgumentError in TensorFlow, no convergence on NaN): under a per-iteration test
#: they would see the values of iterations the loop skips
_RAISE_ON_VALUES = {
    "numpy.linalg.inv", "numpy.linalg.solve", "numpy.linalg.cholesky", "numpy.linalg.eigh",
    "numpy.linalg.eigvalsh", "numpy.linalg.eig", "numpy.linalg.eigvals", "numpy.linalg.svd",
    "numpy.linalg.pinv", "numpy.linalg.lstsq", "numpy.linalg.matrix_power", "numpy.linalg.tensorinv",
    "numpy.linalg.tensorsolve", "numpy.linalg.matrix_rank", "numpy.linalg.cond",
    "tensorflow.linalg.inv", "tensorflow.linalg.cholesky", "tensorflow.linalg.solve",
    "tensorflow.linalg.eigh", "tensorflow.linalg.svd", "tensorflow.linalg.matrix_inverse",
}




def _lengths_only(bound) -> bool:
    """A bound that is a sum of lengths (``len(x)``, ``x.shape[0]``), literals below 2**32, and
    lengths times literals below 2**14: no length reaches 2**48 (256 TiB of bytes), so no such
    bound reaches int64's limit."""
    if isinstance(bound, gast.Constant):
        return isinstance(bound.value, int) and bound.value < 2 ** 32
    if isinstance(bound, gast.BinOp) and isinstance(bound.op, (gast.Add, gast.Sub)):
        return _lengths_only(bound.left) and _lengths_only(bound.right)
    if isinstance(bound, gast.BinOp) and isinstance(bound.op, gast.FloorDiv):  # (`len(x) // 2`)
        return _lengths_only(bound.left) and isinstance(bound.right, gast.Constant)
    if isinstance(bound, gast.BinOp) and isinstance(bound.op, gast.Mult):
        small = [isinstance(b, gast.Constant) and isinstance(b.value, int) and b.value < 2 ** 14
                 for b in (bound.left, bound.right)]
        return any(small) and all(s or _lengths_only(b) for s, b in zip(small, (bound.left, bound.right)))
    if isinstance(bound, gast.Call) and isinstance(bound.func, gast.Name) and bound.func.id in ("abs", "max"):
        return all(_lengths_only(a) for a in bound.args)
    if isinstance(bound, gast.Call) and isinstance(bound.func, gast.Name) and bound.func.id == "len":
        return True
    return isinstance(bound, gast.Subscript) and isinstance(bound.value, gast.Attribute) and bound.value.attr == "shape"


#: NumPy's binary ufuncs that compute an operator, for the checks under a test (:meth:`_masked_pair`)
_UFUNC_OPERATORS = {"numpy.power": gast.Pow, "numpy.float_power": gast.Pow, "numpy.subtract": gast.Sub,
                    "numpy.floor_divide": gast.FloorDiv, "numpy.mod": gast.Mod, "numpy.remainder": gast.Mod,
                    "numpy.left_shift": gast.LShift, "numpy.right_shift": gast.RShift,
                    "numpy.bitwise_and": gast.BitAnd, "numpy.bitwise_or": gast.BitOr, "numpy.bitwise_xor": gast.BitXor}


class ExpressionsMixin:
    """The batched form of the expressions of the loop body (:meth:`ev`)."""

    # -- expressions -----------------------------------------------------------------------------------

    def ev(self, node) -> Val:
        """The batched form of an expression of the loop body."""
        copy_name = self.snapshot_reads.get(id(node))
        if copy_name is not None:  # node splitting: the element as it was before the loop
            self.snapshot_used.add(id(node))
            node = gast.Subscript(value=templates.name(copy_name), slice=node.slice, ctx=gast.Load())
        method = getattr(self, f"_ev_{type(node).__name__}", None)
        if method is None:
            if any(isinstance(n, gast.Name) and self._is_stacked_name(n.id) for n in gast.walk(node)):
                raise Unsupported(f"`{gast.unparse(node).strip()}`: a `{type(node).__name__}` on "
                                  "per-iteration values")
            if self._np and (self.mask is not None or self.partial) and self._in_batched_code(node):
                self._reached_only(node)
            return Val(node, (), None)
        outer, self.mixing = getattr(self, "mixing", False), False
        try:
            result = method(node)
        finally:
            mixed, self.mixing = self.mixing, outer
        if self._np and not result.stacked and (self.mask is not None or self.partial) and self._in_batched_code(node):
            self._reached_only(node, result)
        if self._np:
            floaty, wide = self._kinds(node, result)
            floaty, wide = max(floaty, result.floaty), max(wide, result.wide)
            if (floaty, wide) != (result.floaty, result.wide):
                result = result.with_node(result.node, floaty=floaty, wide=wide)
        if mixed and isinstance(node, gast.Subscript) and self._seen(node.value) is not None:
            # an element is of its array's dtype, whatever kind of number indexes it
            mixed = self._seen(node.value).mixed
        if mixed and self._np and isinstance(node, _COMPUTING):
            # `(x[i] if c else 0.1) * 3`: in the loop, the Python number's iterations compute in
            # Python (or weakly, in the other operand's dtype) and the others in the array's
            # dtype (uint8 wraps, float32 rounds); the batched `where` has one dtype for both.
            # Python's numbers compute as float64 does (ints within 2**53), so where every array
            # the loop reads holds float64 values, checked in front, the two agree.
            if mixed == INT_ARM:
                raise Unsupported(f"`{gast.unparse(node).strip()}` computes with a value that is a Python number "
                                  "on some iterations and a NumPy value on others, one of them an int or a bool, "
                                  "which may compute otherwise than the batched float64 (`-0` is 0, ints past "
                                  "2**53, `True + True` is `True`)")
            if isinstance(node, gast.BinOp) and (isinstance(node.op, gast.MatMult) or isinstance(node.op, gast.Pow) and not (
                    # (a float power of a negative Python float is complex, of a float64 nan)
                    isinstance(node.right, gast.Constant) and type(node.right.value) is int and node.right.value >= 0)) or \
                    isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Invert):
                raise Unsupported(f"`{gast.unparse(node).strip()}` computes with a value that is a Python "
                                  "number on some iterations and a NumPy value on others, or Python numbers "
                                  "of two types, with an operator whose result differs between them")
            operands = [node.left, node.right] if isinstance(node, gast.BinOp) else [node.operand] \
                if isinstance(node, gast.UnaryOp) else [node.left, *node.comparators]
            self._mixed_operands(node, mixed, operands)
        if mixed or result.mixed:  # a value computed from a mixed one is mixed too
            kind = core.join_mixed(mixed, result.mixed)
            self.mixing = kind
            if result.mixed != kind:
                result = result.with_node(result.node, mixed=kind)
        if self._np:
            self.seen_vals[id(node)] = (node, result)  # (the node kept: its id is not reused)
        if not result.stacked and result.node is node and any(
                isinstance(n, gast.Name) and self._is_stacked_name(n.id) for n in gast.walk(node)):
            # An invariant result kept as written would still name the loop's variables
            # (`x[i].shape[0]`): nothing batched it, so the batched code cannot use it.
            raise Unsupported(f"`{gast.unparse(node).strip()}`: an invariant value computed from "
                              "per-iteration values")
        if not result.stacked and result.node is node and any(
                isinstance(n, gast.Name) and self._stands_for_another_value(n.id) for n in gast.walk(node)):
            # Kept as written, it would read a name whose value the batched code holds elsewhere
            # (an invariant bound under a per-iteration `if` is never assigned).
            raise Unsupported(f"`{gast.unparse(node).strip()}`: an invariant bound under a per-iteration `if`")
        return result

    def _stands_for_another_value(self, name):
        value = self.env.get(name)
        return isinstance(value, Val) and not value.stacked and not (
            isinstance(value.node, gast.Name) and value.node.id == name)

    def _is_stacked_name(self, name):
        value = self.env.get(name)
        return isinstance(value, Ind) or (isinstance(value, Val) and value.stacked) or name in self.deferred

    def _ev_Constant(self, node):
        if isinstance(node.value, (int, float, bool, complex)):
            return Val(node, (), 0, True, pytype=type(node.value).__name__)
        return Val(node, (), None, True)

    def _ev_Name(self, node):
        if node.id in self.deferred:
            raise self.deferred[node.id]
        if node.id in self.element_masks:
            raise Unsupported(f"`{node.id}` (positions selected per iteration) is used other than as "
                              "the index of a write and of the reads in its value")
        if node.id in self.selections:
            raise Unsupported(f"`{node.id}` (rows selected per iteration, of varying length) is used "
                              "other than by a sum, mean or len")
        value = self.env.get(node.id)
        if isinstance(value, ObjectRows):
            raise Unsupported(f"`{node.id}`, an object of `{gast.unparse(value.seq).strip()}`, read other than "
                              "by its attributes")
        if isinstance(value, Ind):
            return self._ind_val(value)
        if isinstance(value, Val):
            return value
        if id(node) in self.consumers:
            return self._inner_collected(self.consumers[id(node)])
        if node.id in self.consumers.values():
            raise Unsupported(f"the inner collector `{node.id}` is read other than by its consumer")
        shape = self._shape_of(node.id)
        if shape is not None:
            return Val(node, (), shape.rank)
        return Val(node, (), None)

    def _inner_collected(self, name: str) -> Val:
        """The list an inner loop collected, read by its consumer: the inner loop's axis
        becomes the first per-iteration axis of the outer level."""
        value = self.inner_values[name]
        depth = len(self.levels)
        if value.rank is None:
            raise Unsupported("an inner collector of unknown rank")
        return Val(value.node, value.full[:depth], value.rank + value.depth - depth)

    def _ind_val(self, ind: Ind) -> Val:
        """A loop index used as a value: ``i = np.arange(start, stop, step)`` on its loop axis."""
        if self.lib.kind == "tf":
            raise Unsupported(f"the loop index `{ind.name}` used as a value (only as a subscript in "
                              "TensorFlow code)")
        level = self.levels[ind.level - 1]
        full = (False,) * (ind.level - 1) + (True,)
        if not level.bound:
            args = [a for a in (ind.start, ind.stop, ind.step) if a is not None]
            if ind.start is None and ind.step is not None:
                args = [const(0)] + args
            rng = self.lib.call("arange", *args)
            if ind.level > 1:
                rng = core.insert_axes(self.lib, Val(rng), 0, ind.level - 1)
            stmts = templates.replace(f"{ind.name} = R", R=rng)
            self.index_bindings += stmts
            at = level.out_start
            self.out[at:at] = stmts
            level.out_start += len(stmts)  # later bindings of this level go after
            for inner in self.levels[ind.level:]:  # inner levels that started here shift too
                if inner.out_start >= at:
                    inner.out_start += len(stmts)
            level.bound = True
        return Val(templates.name(ind.name), full, 0, python=True, pytype="int")

    def _int64_holds(self, node) -> None:
        """A check in front that Python's ints in ``node`` (``(i + c) * 2 ** 62``: the loop
        index, literals, invariant numbers) stay within int64, which the batched arrays hold
        them in: NumPy's ints wrap where Python's grow. Each operand's magnitude is bounded
        by interval arithmetic over the loop's range (``max(abs(start), abs(stop))`` for an
        index), computed in Python's ints before the loop; where it passes 2**63 the loop runs.
        A sum or difference of values the loop computes (``len(rows) - 1``) has no such bound
        and is not checked: it passes int64 only where both operands pass 2**62.

        Raises:
            Unsupported: a bound that cannot be computed before the loop (an index whose range
                depends on another loop's, a value the loop computes).
        """
        bound = self._int_bound(node)
        if bound is NOT_INT:
            return
        if bound is not None and _lengths_only(bound):
            return  # (`2 * i + 1` over `range(len(x))`: lengths and small literals never reach 2**62)
        if bound is None and isinstance(node.op, (gast.Add, gast.Sub)):
            # (a sum of values the loop computes, lengths and indices: past int64 only where
            # both are past 2**62, which no length is; a product of them is checked itself)
            return
        if bound is None:
            raise Unsupported(f"`{gast.unparse(node).strip()}`: integer arithmetic on Python ints, which "
                              "int64 may overflow, with no bound pforge can compute before the loop")
        check = templates.expr("B < 2 ** 63", B=bound)
        if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
            self.checks.append(check)

    def _int_bound(self, node, hops: int = 8):
        """An expression, computed before the loop, no smaller than ``abs(node)`` on every
        iteration; :data:`NOT_INT` where ``node`` is no int (a true division, a float); None
        when there is none (:meth:`_int64_holds`). A name the loop binds once is its value."""
        indices = {ind.name for ind in (getattr(lv, "ind", None) for lv in self.levels) if ind is not None}
        if hops <= 0:
            return None
        if isinstance(node, gast.Constant):
            if type(node.value) in (int, bool):
                return gast.Constant(value=abs(int(node.value)), kind=None)
            return NOT_INT if type(node.value) in (float, complex) else None
        if isinstance(node, gast.Name) and isinstance(self.env.get(node.id), Ind):
            ind = self.env[node.id]
            ends = [e for e in (ind.start, ind.stop) if e is not None]
            batched = {n.id for st in self.out for n in gast.walk(st)
                       if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            if any(isinstance(n, gast.Name) and (n.id in indices or n.id in self.loop_stores or n.id in batched)
                   for e in ends for n in gast.walk(e)):
                # (a range that depends on another loop's index, or is bound by the batched code:
                # a ragged level's `j_stop`, which the check in front cannot read, helper-39)
                return None
            parts = [const(abs(k)) if (k := constant_int(e)) is not None
                     else templates.expr("abs(E)", E=copy.deepcopy(e)) for e in ends]
            return parts[0] if len(parts) == 1 else gast.Call(func=templates.name("max"), args=parts, keywords=[])
        if isinstance(node, gast.Name) and node.id in self.loop_stores:
            values = [st.value for st in gast.walk(self.info.node) if isinstance(st, gast.Assign)
                      and len(st.targets) == 1 and isinstance(st.targets[0], gast.Name) and st.targets[0].id == node.id]
            return self._int_bound(values[0], hops - 1) if len(values) == 1 else None
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, gast.Div):
                return NOT_INT
            a, b = self._int_bound(node.left, hops - 1), self._int_bound(node.right, hops - 1)
            if NOT_INT in (a, b) and not isinstance(node.op, (gast.LShift, gast.RShift)):
                return NOT_INT  # (a float beside an int is a float)
            if isinstance(node.op, (gast.Add, gast.Sub, gast.Mult)) and a is not None and b is not None:
                op = gast.Mult() if isinstance(node.op, gast.Mult) else gast.Add()
                return gast.BinOp(left=a, op=op, right=b)
            k = constant_int(node.right)
            if isinstance(node.op, gast.FloorDiv) and a is not None and k:  # (`size // 2`)
                return a
            if isinstance(node.op, gast.Mod) and k:
                return gast.Constant(value=abs(k), kind=None)
            if isinstance(node.op, (gast.Pow, gast.LShift)) and a is not None and k is not None and 0 <= k <= 64:
                return gast.BinOp(left=a, op=gast.Mult(), right=gast.Constant(value=1 << k, kind=None)) \
                    if isinstance(node.op, gast.LShift) else gast.BinOp(left=a, op=gast.Pow(), right=const(k))
            return None
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._int_bound(node.operand, hops - 1)
        if isinstance(node, gast.Call) and (self.ctx.imports.resolve(node.func) or "") in FLOAT_VALUED:
            return NOT_INT  # (`np.cos(rad)`)
        if isinstance(node, gast.Call) and (self.ctx.imports.resolve(node.func) or "").startswith(
                ("math.", "builtins.float")) and (self.ctx.imports.resolve(node.func) or "") not in (
                "math.floor", "math.ceil", "math.trunc", "math.comb", "math.perm", "math.factorial",
                "math.gcd", "math.lcm", "math.isqrt", "math.prod"):
            return NOT_INT
        names = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
        calls = [n for n in gast.walk(node) if isinstance(n, gast.Call)]
        if not names & (indices | self.loop_stores) and all(
                (self.ctx.imports.resolve(c.func) or "") == "builtins.len" for c in calls):
            return templates.expr("abs(E)", E=copy.deepcopy(node))  # an invariant number (`x.shape[1]`)
        return None

    def _ev_Attribute(self, node):
        if (self.ctx.imports.resolve(node) or "") in _CONSTANTS:  # np.pi, math.inf: one number
            return Val(node, (), 0, True)
        if isinstance(node.value, gast.Name) and isinstance(self.env.get(node.value.id), ObjectRows):
            return self._gathered(node)
        base = self.ev(node.value)
        if not base.stacked:  # `x.shape` of an invariant array: a tuple of ints, one per axis
            if node.attr in ("T", "real", "imag") and base.rank is not None:
                return Val(node, (), base.rank)
            given = self.free.get(f"{node.value.id}.{node.attr}") if isinstance(node.value, gast.Name) else None
            if given is not None and not given.sequence:  # `self.w`, as pforge.vectorize saw it
                return Val(node, (), given.rank)
            return Val(node, (), {"shape": 1, "ndim": 0, "size": 0}.get(node.attr))
        if node.attr == "T":
            if base.rank is None or base.rank > 2:
                raise Unsupported("`.T` of a per-iteration value of rank other than 1 or 2")
            if base.rank < 2:
                return base
            return Val(self.lib.call("swapaxes", base.node, -1, -2), base.full, 2)
        if node.attr == "shape":
            return Val(core.subscript(gast.Attribute(value=base.node, attr="shape", ctx=gast.Load()),
                                      [gast.Slice(lower=const(base.depth), upper=None, step=None)]), (), 1)
        if node.attr == "dtype":
            return Val(gast.Attribute(value=base.node, attr="dtype", ctx=gast.Load()), (), None)
        if node.attr in ("real", "imag") and self.lib.kind == "np" and not self.to_tf:  # elementwise
            return Val(gast.Attribute(value=base.node, attr=node.attr, ctx=gast.Load()), base.full, base.rank)
        raise Unsupported(f"the attribute `.{node.attr}` of a per-iteration value")

    def _masked_pair(self, node, left_node, right_node, left: Val, right: Val, op: type) -> None:
        """The checks for a binary operation ``op`` (a ``gast.operator`` class) under a
        per-iteration test, as an operator (``a[j] + k``) or a NumPy ufunc (``np.add(a[j], k)``,
        ``np.maximum``): a Python int beside an integer array (:meth:`_masked_python_int`), a
        number of a kind the code does not show (:meth:`_masked_unknown_number`); a power whose
        exponent may be a negative integer, which NumPy refuses for an integer base
        (``ValueError``) on the elements the test skips: the arrays the loop reads must then be
        float64; and for a name read in front, the kinds NumPy computes ``op`` of on any array:
        no bool for ``-`` (a bool array minus a bool raises), an int or bool for shifts and
        ``&``, ``|``, ``^``, no complex for ``//`` and ``%`` (helper-44)."""
        if self.mask is None or not self._np:
            return
        power = op is gast.Pow
        kinds = {gast.Sub: "!= 'b'", gast.LShift: "in 'biu'", gast.RShift: "in 'biu'", gast.BitAnd: "in 'biu'",
                 gast.BitOr: "in 'biu'", gast.BitXor: "in 'biu'", gast.FloorDiv: "in 'biuf'", gast.Mod: "in 'biuf'"}
        if op in kinds:
            for side, val in ((left_node, left), (right_node, right)):
                if not val.stacked and isinstance(side, gast.Name) and not val.python and self._in_front(side):
                    self._check(templates.expr(f"{self.lib.alias}.asarray(N).dtype.kind {kinds[op]}", N=templates.name(side.id)))
        if left.python != right.python:
            self._masked_python_int(node, *((left, right) if left.python else (right, left)))
        elif left.stacked != right.stacked:
            self._masked_unknown_number(node, right_node if left.stacked else left_node,
                                        *((right, left) if left.stacked else (left, right)))
        exponent = constant_int(right_node)
        if power and not (exponent is not None and exponent >= 0) and not (
                isinstance(right_node, gast.Constant) and isinstance(right_node.value, float)):
            if left.python and left.pytype != "float":
                raise Unsupported(f"`{gast.unparse(node).strip()}` under a per-iteration test: a power of a "
                                  "Python int to an exponent that may be a negative integer")
            self._check_float64(core.STRICT)

    def _numpy_call(self, node: gast.AST) -> bool:
        """Whether ``node`` calls a NumPy function (``np.sqrt(v)``): in the loop its result is a
        NumPy scalar or array, never a Python float."""
        return isinstance(node, gast.Call) and (self.ctx.imports.resolve(node.func) or "").startswith("numpy.")

    def _ev_BinOp(self, node):
        left, right = self.ev(node.left), self.ev(node.right)
        if not left.stacked and not right.stacked:
            rank = None if left.rank is None or right.rank is None else max(left.rank, right.rank)
            if isinstance(node.op, gast.MatMult):
                rank = None
            return Val(_respelled(node, left=left, right=right), (), rank, left.python and right.python,
                       mixed=left.mixed or right.mixed,
                       pytype=python_result(node.op, left.pytype, right.pytype, constant_int(node.right)))
        if isinstance(node.op, gast.Pow) and left.rank in (0, None) and right.rank in (0, None) \
                and not _integral_constant(node.right) \
                and not any(self._numpy_call(n) for n in (node.left, node.right)):
            # a power of two numbers: a negative Python float's fractional power is a complex
            # (`(-4.0) ** 0.5`) where float64 gives nan; a NumPy function's result
            # (`np.sqrt(b) ** p`) computes as float64 in the loop too. (Where Python's floats
            # raise, `1.0 / 0.0` or `1e200 ** 2`, the batched code may be more defined.)
            self.scalar_raising = True
        self._masked_pair(node, node.left, node.right, left, right, type(node.op))
        if isinstance(node.op, gast.MatMult):
            return convert_matmul_operator(self.lib, left, right, node)
        if type(node.op) not in _BINOPS:
            raise Unsupported(f"the operator `{type(node.op).__name__}`")
        if isinstance(node.op, gast.Pow) and any(
                isinstance(n, gast.Name) and isinstance(self.env.get(n.id), Ind) for n in gast.walk(node.right)):
            # Python's `2 ** i` never overflows and gives a float for i < 0; int64 arrays do neither.
            raise Unsupported(f"`{gast.unparse(node).strip()}`: a power with the loop index as exponent")
        (a, b), full, rank = align(self.lib, [left, right], f"`{gast.unparse(node).strip()}`")
        witness = None
        if left.python != right.python:
            divide = isinstance(node.op, gast.Div)
            a, b = self._weak(a, b, left.pytype, divide=divide) if left.python \
                else self._weak(b, a, right.pytype, divide=divide)[::-1]
            number, other = (left, right) if left.python else (right, left)
            if other.witness is not None:
                witness = other.witness  # `(i + c) * 2` is what `i + c` is
            elif number.stacked and not other.stacked and other.rank == 0 and self._np:
                # `i + c`: a Python number where `c` is one, else a NumPy scalar
                witness = self._kind_witness(node.op, templates.expr(_WEAK_ZEROS.get(number.pytype, "0")),
                                             other.node)
        elif left.witness is not None or right.witness is not None:
            if left.witness is not None and right.witness is not None:
                witness = self._kind_witness(node.op, left.witness, right.witness)
            else:
                (seen, w), (plain, p) = ((a, left), (b, right)) if left.witness is not None else ((b, right), (a, left))
                if not p.stacked and p.rank == 0:
                    witness = self._kind_witness(node.op, w.witness, plain.node)  # `(i + c) * d`
                else:  # a NumPy value: the cast `i + c` would have taken in the loop
                    seen, plain = self._weak(seen, plain, None, zero=w.witness, divide=isinstance(node.op, gast.Div))
                    a, b = (seen, plain) if left.witness is not None else (plain, seen)
        python = left.python and right.python
        pytype = python_result(node.op, left.pytype, right.pytype, constant_int(node.right))
        if self._np and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Pow, gast.LShift)) and (
                python and pytype == "int" or witness is not None and pytype not in ("float", "complex")):
            self._int64_holds(node)
        if isinstance(node.op, gast.Pow) and self._np and not left.python and left.stacked \
                and constant_int(node.right) == 2:
            # a bool array's `** 2` is NumPy's square, int8, where a bool's is an int64 (`x[i] ** 2
            # * 200` of a bool `x` overflows int8): np.power computes as the loop's scalars do
            return Val(self.lib.call("power", a.node, b.node), full, rank, python,
                       pytype=python_result(node.op, left.pytype, right.pytype, constant_int(node.right)),
                       scalar=rank == 0 and witness is None, witness=witness)
        left_node, right_node = a.node, b.node
        if self._np and a.stacked and b.stacked:
            # (aligned, both have the loop axes and `rank` more: the axes one holds in front
            # only to meet the other's are put back by broadcasting, `x[:, np.newaxis] - y`)
            right_node = leading_axes_dropped(self.lib, b.node)
            if right_node is b.node:
                left_node = leading_axes_dropped(self.lib, a.node)
        return Val(gast.BinOp(left=left_node, op=copy.deepcopy(node.op), right=right_node), full, rank, python,
                   pytype=python_result(node.op, left.pytype, right.pytype, constant_int(node.right)),
                   scalar=rank == 0 and not python and witness is None, witness=witness)

    @property
    def _np(self) -> bool:
        return self.lib.kind == "np" and not self.to_tf

    def _kind_witness(self, op, a: gast.expr, b: gast.expr) -> gast.expr:
        """A number of the kind ``x op y`` has for numbers of the kinds of ``a`` and ``b``
        (:attr:`Val.witness`): ``a * b``, which is a float for a true division (``* 0.0``);
        a power's kind depends on its values, so it is refused."""
        if isinstance(op, gast.Pow):
            raise Unsupported("a power of a value that is a Python number or a NumPy scalar as an argument is")
        product = gast.BinOp(left=copy.deepcopy(a), op=gast.Mult(), right=copy.deepcopy(b))
        if isinstance(op, gast.Div):
            product = gast.BinOp(left=product, op=gast.Mult(), right=gast.Constant(value=0.0, kind=None))
        return product

    def _masked_python_int(self, node, number: Val, other: Val) -> None:
        """``u[i] + 1000`` under a per-iteration test: NumPy raises OverflowError where a Python
        int meets an integer array whose dtype cannot hold it (NEP 50: int8 and 1000, uint8 and
        -1), and the batched code computes the arm on every element, where the loop computes it
        only on the iterations that take it (and raises only if one does). An int in
        ``[0, 127]``, which every integer dtype holds, and a float or bool are safe; otherwise
        ``other`` must be float64 where the arrays the loop reads are (:attr:`Val.floaty`,
        checked in front by :meth:`_default_dtypes`), else Unsupported."""
        if number.stacked or number.pytype in ("float", "bool", "complex"):
            return  # (a stacked number is cast to the array's dtype by :meth:`_weak`)
        value = constant_int(number.node)
        if value is not None and 0 <= value <= 127:
            return
        if not other.floaty:
            raise Unsupported(f"`{gast.unparse(node).strip()}` under a per-iteration test: a Python int beside "
                              "a value that may be an integer array, where NumPy raises for an int its dtype "
                              "cannot hold (int8 and 1000) on the elements the loop never computes")
        self._check_float64(other.floaty)

    def _masked_unknown_number(self, node, side, number: Val, other: Val) -> None:
        """``u[i] + k`` under a per-iteration test, ``k`` an invariant number of a kind the code
        does not show: a Python int beside an integer array raises as a literal does
        (:meth:`_masked_python_int`), so ``type(k) is not int or 0 <= k <= 127`` is checked in
        front (a NumPy integer promotes, a float or bool never raises, and every integer dtype
        holds ``[0, 127]``); where ``k`` is not computed in front, the literal's rule applies."""
        if number.rank != 0 or number.pytype in ("float", "bool", "complex") or constant_int(side) is not None \
                or isinstance(side, gast.Constant):
            return
        if self._in_front(side):
            self._python_operands(side)
            self._check(templates.expr("type(K) is not int or 0 <= K <= 127", K=copy.deepcopy(side)))
        else:
            self._masked_python_int(node, number, other)

    def _masked_unary(self, node, operand: Val) -> None:
        """``-x[i]`` under a per-iteration test: NumPy raises for ``-`` and ``+`` of a bool
        array and ``~`` of a float one, and the batched code computes the arm on every element,
        where the loop computes it only on the iterations that take it (``if x[i] < 0: out[i] =
        -x[i]`` of a bool ``x`` takes none). ``-`` and ``+`` need the operand float64 where the
        arrays the loop reads are (checked in front, as for :meth:`_masked_python_int`), ``~``
        a comparison's bools; otherwise Unsupported."""
        if isinstance(node.op, gast.Invert):
            if not isinstance(node.operand, gast.Compare):
                raise Unsupported(f"`{gast.unparse(node).strip()}` under a per-iteration test: `~` of a value "
                                  "that may be a float array, where NumPy raises on the elements the loop never "
                                  "computes")
            return
        if not operand.floaty:
            raise Unsupported(f"`{gast.unparse(node).strip()}` under a per-iteration test: a sign of a value "
                              "that may be a bool array, where NumPy raises on the elements the loop never "
                              "computes")
        self._check_float64(operand.floaty)

    def _weak(self, number: Val, other: Val, pytype: str | None, zero: gast.expr | None = None,
              divide: bool = False) -> tuple[Val, Val]:
        """A Python number that is a stacked array (``i`` as ``np.arange``) meeting a NumPy value:
        in the loop, the number was *weak* and took the array's dtype (``x[i] * i`` is float32
        for a float32 ``x``, NEP 50), where an int64 or float64 array would widen the result.
        It is cast to ``np.result_type(other, 0)`` (``0.0``, ``0j`` or ``False`` by its type),
        NumPy's own rule for a Python number of that type. ``other`` is read twice, so unless it
        is a name, an element of one or ``np.asarray`` of one (or arithmetic on those, when it
        is the same on every iteration), it is bound to a temporary first.
        An unstacked number stays weak.

        Args:
            number, other: the operands as aligned (``number`` is :attr:`Val.python`).
            pytype: the number's Python type (:attr:`Val.pytype`, which alignment drops).
            zero: for a value whose kind only the run knows, its :attr:`Val.witness`, in
                place of the zero of ``pytype``.
            divide: the operation is a true division, which NumPy computes in the dtype of
                ``other / 1`` with the number's exact value (``uint8 / 257`` is float64, where
                casting 257 to uint8 first would wrap it).
        Returns:
            ``(number, other)`` as the operation reads them.
        """
        if not number.stacked or self.lib.kind != "np":
            return number, other
        if zero is None and pytype not in _WEAK_ZEROS:
            raise Unsupported(f"`{gast.unparse(number.node).strip()}`: a Python number of unknown type, "
                              "batched as an array, meets an array whose dtype it would take")
        cheap = _PLAIN_READS if other.stacked else _PLAIN_READS + (gast.BinOp, gast.operator)
        if any(not isinstance(n, cheap) and not (
                isinstance(n, gast.Call) and self.ctx.imports.resolve(n.func) == "numpy.asarray")
                for n in gast.walk(other.node)):
            tmp = self.namer.new("operand")
            self.out += templates.replace(f"{tmp} = V", V=other.node)
            other = other.with_node(templates.name(tmp))
        dtype = self.lib.call("result_type", other.node, zero if zero is not None else templates.expr(_WEAK_ZEROS[pytype]))
        if divide:
            dtype = templates.expr(f"({self.lib.alias}.zeros(0, D) / 1).dtype", D=dtype)
        return number.with_node(templates.expr("N.astype(D)", N=number.node, D=dtype)), other

    def _ev_UnaryOp(self, node):
        operand = self.ev(node.operand)
        if not operand.stacked:
            return Val(_respelled(node, operand=operand), (), operand.rank, operand.python, pytype=operand.pytype)
        if isinstance(node.op, gast.Not):
            return self._not(self._test(node.operand))
        if operand.python and _maybe_bool(node.operand, operand):
            # `-flag`, `+flag`, `~flag` of a Python bool are the ints -1, 1 and -2; a NumPy
            # bool array refuses `-` and `+` and takes `~` as logical not
            raise Unsupported(f"`{gast.unparse(node).strip()}` of a per-iteration Python value that may be a bool")
        if self.mask is not None and self._np and not operand.python:
            self._masked_unary(node, operand)
        # `-i` of the loop index stays a Python number for NumPy's weak rule (`-i - x[i]` is
        # float32 for a float32 `x`)
        return Val(gast.UnaryOp(op=copy.deepcopy(node.op), operand=operand.node), operand.full, operand.rank,
                   operand.python, mixed=operand.mixed, pytype=operand.pytype,
                   scalar=operand.rank == 0 and not operand.python and operand.witness is None,
                   witness=operand.witness)

    def _ev_Compare(self, node):
        if len(node.ops) > 1:
            return self._test(node)
        left, right = self.ev(node.left), self.ev(node.comparators[0])
        if not left.stacked and not right.stacked:
            rank = None if left.rank is None or right.rank is None else max(left.rank, right.rank)
            return Val(_respelled(node, left=left, comparators=[right]), (), rank)
        if isinstance(node.ops[0], (gast.Is, gast.IsNot, gast.In, gast.NotIn)):
            raise Unsupported("`is`/`in` on a per-iteration value")
        (a, b), full, rank = align(self.lib, [left, right], f"`{gast.unparse(node).strip()}`")
        # two Python numbers compare to a Python bool (`i % 2 == 0`), anything else to a NumPy one
        python = left.python and right.python
        return Val(gast.Compare(left=a.node, ops=[copy.deepcopy(node.ops[0])], comparators=[b.node]), full, rank,
                   python, pytype="bool" if python else None, scalar=rank == 0 and not python)

    def _ev_BoolOp(self, node):
        vals = [self.ev(v) for v in node.values]
        if not any(v.stacked for v in vals):
            return Val(_respelled(node, values=vals), (), None)
        return self._test(node)

    def _ev_IfExp(self, node):
        test = self.ev(node.test)
        if not test.stacked:
            return self._invariant_choice(node, test)
        if test.stacked:
            test = self._test(node.test)
        saved = self.mask
        try:  # each branch where the loop evaluates it (`x[i + 1] if i + 1 < n else 0.0`)
            if test.stacked:
                self.mask = test if saved is None else self._and(saved, test)
            body = self.ev(node.body)
            if test.stacked:
                failed = self._not(test)
                self.mask = failed if saved is None else self._and(saved, failed)
            orelse = self.ev(node.orelse)
        finally:
            self.mask = saved
        if not (test.stacked or body.stacked or orelse.stacked):
            return Val(_respelled(node, test=test, body=body, orelse=orelse), (), None)
        if not test.stacked:
            raise Unsupported("a conditional expression with an invariant test and per-iteration branches")
        (c, a, b), full, rank = align(self.lib, [test, body, orelse], "a conditional expression")
        one_type = getattr(node, "pforge_one_type", False)
        if not one_type:
            a, b = self._strong_arm(a, b), self._strong_arm(b, a)
        return self._merged(self.lib.call("where", c.node, a.node, b.node), full, rank, body, orelse,
                            one_type=one_type)

    def _invariant_choice(self, node, test: Val) -> Val:
        """``a if c else b`` with ``c`` the same on every iteration: every iteration takes the
        same arm, so the batched value is Python's conditional of the batched arms (only the
        arm taken is computed, as in the loop). Each arm must emit nothing before it (that would
        run for the arm not taken), vary per iteration (an invariant arm would be one value where
        the loop has one per iteration) and be of one kind and rank with the other."""
        before = len(self.out)
        body, orelse = self.ev(node.body), self.ev(node.orelse)
        if not (body.stacked or orelse.stacked):
            return Val(_respelled(node, test=test, body=body, orelse=orelse), (), None)
        if len(self.out) != before:
            raise Unsupported("a conditional expression with an invariant test whose branches compute "
                              "values before it")
        if not (body.stacked and orelse.stacked):
            # `x[i] if flag else BIG`: the arm taken would be one number, not one per iteration
            raise Unsupported("a conditional expression with an invariant test and one invariant arm")
        if body.python != orelse.python or body.rank is None or body.rank != orelse.rank \
                or body.pytype != orelse.pytype or body.scalar != orelse.scalar:
            raise Unsupported("a conditional expression with an invariant test and branches of two kinds "
                              "or ranks")
        (a, b), full, rank = align(self.lib, [body, orelse], "a conditional expression")
        choice = gast.IfExp(test=test.node, body=a.node, orelse=b.node)
        return Val(choice, full, rank, body.python, mixed=core.join_mixed(body.mixed, orelse.mixed),
                   pytype=body.pytype, scalar=body.scalar, floaty=min(body.floaty, orelse.floaty),
                   wide=min(body.wide, orelse.wide))

    def _strong_arm(self, arm: Val, other: Val) -> Val:
        """``np.asarray(-1)``: a Python number beside a NumPy value in a ``where`` (``t[k] if c
        else -1``), where NumPy's weak rule would give it the other arm's dtype (-1 becomes 255
        beside uint8, 0.1 becomes float32(0.1) beside float32); as an array of its own it takes
        the default dtype of its kind, and the ``where`` one that holds both. Left weak: a bool,
        an int in ``[0, 127]`` or a float a float16 holds, which every dtype NumPy could give it
        holds exactly."""
        if arm.stacked or other.python or self.lib.kind != "np":
            return arm
        if not arm.python:
            # a number the code does not show the kind of (`k`, a parameter): a Python int 300
            # beside uint8 would wrap in the `where`, as a constant would
            if arm.rank == 0 and isinstance(arm.node, (gast.Name, gast.Attribute)):
                return arm.with_node(self.lib.call("asarray", arm.node))
            return arm
        node = arm.node
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
            value = -node.operand.value if type(node.operand.value) in (int, float) else None
        else:
            value = node.value if isinstance(node, gast.Constant) else None
        if type(value) is bool or type(value) is int and 0 <= value <= 127 \
                or type(value) is float and _half_holds(value):
            return arm
        if type(value) is int and _smallest_int(value) is not None:
            # the smallest dtype that holds it (NumPy's `min_scalar_type`): 300 beside uint64
            # stays uint64, where an int64 300 would make the `where` float64
            dtype = templates.expr(f"{self.lib.alias}.{_smallest_int(value)}")
            return arm.with_node(self.lib.call("asarray", node, dtype=dtype), python=False, pytype=None)
        return arm.with_node(self.lib.call("asarray", node), python=False, pytype=None)

    def _ev_List(self, node):
        vals = [self.ev(e) for e in node.elts]
        if any(v.stacked for v in vals):
            raise Unsupported("a list of per-iteration values outside `stack`/`concat`")
        return Val(node, (), ranks.literal_rank(node), True)

    _ev_Tuple = _ev_List

    def _ev_Call(self, node):
        if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name) \
                and node.func.value.id in self.tapes:
            return self._tape_gradient(node, self.tapes[node.func.value.id])
        outer = self._outer_tape(node)
        if outer is not None:
            return self._outer_tape_gradient(node, outer)
        if self.lib.kind == "tf" and len(node.args) == 2 and not node.keywords \
                and isinstance(node.args[1], gast.Name) and isinstance(self.env.get(node.args[1].id), Ind) \
                and self.ctx.imports.resolve(node.func) == "tensorflow.gather":
            # `tf.gather(y, i)` by the loop index is the row `y[i]` (which raises out of range, as
            # gather does on a CPU)
            return self.ev(gast.copy_location(gast.Subscript(value=node.args[0], slice=node.args[1],
                                                             ctx=gast.Load()), node))
        selected = self._selection_reduction(node)
        if selected is not None:
            return selected
        if id(node) in self.consumers:
            return self._inner_collected(self.consumers[id(node)])
        name = self.ctx.imports.resolve(node.func)
        spread = any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        inlined = self._inlined(node) if name is None and isinstance(node.func, gast.Name) and not any(
            k.arg is None for k in node.keywords) else None
        if spread and inlined is None:
            if any(self._is_stacked_name(n.id) for n in gast.walk(node) if isinstance(n, gast.Name)):
                why = self.not_inlined.get(node.func.id) if isinstance(node.func, gast.Name) else None
                raise Unsupported("`*args`/`**kwargs` in a call on per-iteration values"
                                  + (f" (`{node.func.id}` {why})" if why else ""))
            return Val(node, (), None)
        if name is None and isinstance(node.func, gast.Name):
            if inlined is not None:
                self.inlining.add(node.func.id)  # never into itself (recursion)
                try:
                    return self.ev(inlined)
                finally:
                    self.inlining.discard(node.func.id)
        is_method = False
        receiver = None
        if name is None and isinstance(node.func, gast.Attribute):
            receiver = self.ev(node.func.value)
            if receiver.stacked:
                name, is_method = f"method.{node.func.attr}", True
        if name in ("builtins.min", "builtins.max", "builtins.abs", "builtins.len", "builtins.int",
                    "builtins.float", "builtins.bool", "builtins.round"):
            return self._builtin(node, name)
        if name == "builtins.pow" and len(node.args) == 2 and not node.keywords:
            # `pow(x, y)` calls `x.__pow__(y)`, as `x ** y` does (three arguments: a modulus)
            return self.ev(gast.copy_location(gast.BinOp(left=node.args[0], op=gast.Pow(),
                                                         right=node.args[1]), node))
        if name in _LIST_ARG_RULES:
            pos = [Val(node.args[0], (), None)] + [self.ev(a) for a in node.args[1:]]
        else:
            pos = [self.ev(a) for a in node.args]
        if is_method:
            if self.to_tf:
                raise Unsupported(f"the method `.{node.func.attr}()`, which TensorFlow tensors lack")
            pos = [receiver] + pos
        kw = {k.arg: self.ev(k.value) for k in node.keywords}
        if self._np and any(v.mixed for v in [*pos, *kw.values()]):
            # `np.sqrt(x[i] if c else 2.0)`, as for an operator (:meth:`ev`); NumPy converts a
            # Python int to int64 (`np.square(2**40)` wraps): only functions of a float result
            if name not in _FLOAT_VALUED or any(v.mixed == INT_ARM for v in [*pos, *kw.values()]):
                raise Unsupported(f"`{gast.unparse(node).strip()}` on a value that is a Python number on some "
                                  "iterations and a NumPy value on others")
            self._mixed_operands(node, core.join_mixed(*(v.mixed for v in [*pos, *kw.values()])),
                                 [*node.args, *(k.value for k in node.keywords)])
        rule = core.lookup(name) if name else None
        if self.mask is not None and name in _RAISE_ON_VALUES and any(v.stacked for v in [*pos, *kw.values()]):
            raise Unsupported(f"`{name}` under a per-iteration test: it raises on values the loop never "
                              "passes it (a singular matrix the test skips)")
        stacked = any(v.stacked for v in pos) or any(v.stacked for v in kw.values()) or (
            name in _LIST_ARG_RULES and any(self._is_stacked_name(n.id) for n in gast.walk(node.args[0])
                                            if isinstance(n, gast.Name)) if node.args else False)
        if not stacked:
            rank = None
            if rule is not None:
                try:
                    rank = rule.convert(self._args(node, name, pos, kw, is_method)).rank
                except (Unsupported, IndexError, KeyError, AttributeError, TypeError):
                    rank = None
            rank = _constructor_rank(self, node, name) if rank is None else rank
            if rank is None and name is None and isinstance(node.func, gast.Name):
                rank = self._helper_rank(node)
            if rank is None and receiver is not None and receiver.rank is not None and not self.to_tf:
                rank = self._method_rank(node, receiver, pos, kw)
            if name is not None and name.startswith("math.") and name not in _MATH_NOT_SCALAR:
                # `math.*` returns a Python number: `scale = 1.0 / math.sqrt(q.shape[1])`
                return Val(node, (), 0, True)
            respelled = any(v.node is not a for v, a in zip(pos, node.args)) or any(
                kw[k.arg].node is not k.value for k in node.keywords)
            if respelled and not is_method and name not in _LIST_ARG_RULES:
                # An invariant operand the batched code spells otherwise (`tf.shape(m[i])` is
                # `tf.shape(m)[1:]`): the call is rebuilt around the new spelling.
                call = gast.Call(func=copy.deepcopy(node.func), args=[v.node for v in pos],
                                 keywords=[gast.keyword(arg=k.arg, value=kw[k.arg].node) for k in node.keywords])
                return Val(call, (), rank)
            return Val(node, (), rank)
        if rule is None:
            what = name or gast.unparse(node.func).strip()
            why = self.not_inlined.get(what) if name is None else None
            raise Unsupported(f"no batching rule for `{what}`" + (
                f" (a module function is inlined when its body binds names and returns one expression; "
                f"`{what}` {why})" if why else ""))
        weak_pair = rule.family == "elementwise" and not name.startswith("math.") or name == "numpy.linspace"
        if weak_pair and name.startswith("numpy.") and not is_method and len(pos) == 2 and len(node.args) == 2:
            self._masked_pair(node, node.args[0], node.args[1], pos[0], pos[1], _UFUNC_OPERATORS.get(name))
        if weak_pair and not is_method and len(pos) >= 2 and pos[0].python != pos[1].python:
            # `np.maximum(x[i], i)`, `np.linspace(x[i], i, n)`: NumPy's rule for a Python number,
            # as for `x[i] * i` (`math` converts every operand to a Python float)
            number, other = (0, 1) if pos[0].python else (1, 0)
            pos = list(pos)
            pos[number], pos[other] = self._weak(pos[number], pos[other], pos[number].pytype,
                                                 divide=name in ("numpy.true_divide", "numpy.divide"))
        elif weak_pair and not is_method and len(pos) >= 2 and (pos[0].witness is None) != (pos[1].witness is None):
            # `np.minimum(c * i, x[i])`: `c * i` is a Python float where `c` is one, weak against
            # a float32 `x[i]` in the loop; batched it is a float64 array unless cast (fuzz seed
            # 5400067; `np.linspace(x[i], c - i, 3)`, seed 6630462)
            seen, other = (0, 1) if pos[0].witness is not None else (1, 0)
            if not pos[other].python:
                pos = list(pos)
                pos[seen], pos[other] = self._weak(pos[seen], pos[other], None, zero=pos[seen].witness)
        value = rule.convert(self._args(node, name, pos, kw, is_method))
        contraction = self._contraction(node, name, value)
        if contraction is not None:
            return contraction
        if name in NUMPY_UFUNCS and value.rank == 0 and not value.python and self.lib.kind == "np":
            value = value.with_node(value.node, scalar=True)  # a ufunc returns scalars for 0-d input
        return value

    def _args(self, node, name, pos, kw, is_method):
        args = Args(node, self.lib, name, pos, kw, method=is_method)
        args.evaluate = self.ev
        args.hoist = self._hoist
        return args

    def _hoist(self, node, hint: str):
        """``node`` bound to a new name before its use (a value a rule spells twice); a name
        stays as it is."""
        if isinstance(node, gast.Name):
            return node
        tmp = self.namer.new(hint)
        self.out += templates.replace(f"{tmp} = V", V=node)
        return templates.name(tmp)

    def _inlined(self, node, invariant: bool = False):
        """A call of a small helper defined at module level (or in the calling function's body,
        before the loop), on per-iteration values, as the expression it returns (``_mu(a, r, k)
        -> a * np.cos(r * k)``), or None.

        The helper's body is read as a partial evaluator would: ``name = expr`` and
        ``a, b = ...`` bind expressions, ``x += v`` rebinds, an ``if`` whose test is decided
        here (a flag passed as a constant, ``x.ndim == 1`` of a value whose rank is known,
        ``type(x) is int`` of an array) keeps its one branch, and the first ``return`` gives
        the expression. Parameters are plain or have constant defaults; ``**kwargs`` is
        accepted where the call passes none. A module helper's other names (``np``, module
        constants) must mean the same in the caller (not bound there); a nested helper's are
        the caller's own variables, read at the call as the closure reads them. The analysis
        has already found it pure.
        """
        functions = getattr(self.ctx, "functions", {})
        fname = node.func.id
        if fname not in functions or fname in self.inlining or (
                self.info.function is not None and fname == self.info.function.name):
            return None
        fdef = functions[fname]
        args = fdef.args
        declined = self.not_inlined.setdefault
        caller = self.info.function
        # a helper defined in the calling function's body before the loop reads the caller's
        # names as the inlined expression does: at the call, the variables themselves
        nested = fdef.col_offset != 0 and caller is not None and any(st is fdef for st in caller.body) \
            and fdef.lineno < self.info.node.lineno
        if (fdef.col_offset != 0 and not nested) or fdef.decorator_list or args.vararg or args.kwonlyargs \
                or args.posonlyargs or any(isinstance(a, gast.Starred) for a in node.args[:-1]):
            declined(fname, "is nested or decorated, or takes `*args`, keyword-only or positional-only "
                     "parameters")
            return None
        if not invariant and not any(isinstance(n, gast.Name) and self._is_stacked_name(n.id)
                                     for a in node.args + [k.value for k in node.keywords] for n in gast.walk(a)):
            return None  # an invariant call stays a call (``invariant``: to learn its rank)
        params = [a.id for a in args.args]
        call_args = list(node.args)
        if call_args and isinstance(call_args[-1], gast.Starred):
            if args.defaults:
                # a parameter with a default may be filled by the row or not: the loop takes rows
                # of several lengths, the batched code one
                declined(fname, "is called with `*v` where `v` may fill a parameter that has a default")
                return None
            spread = self._spread(call_args[-1].value, len(params) - len(call_args) + 1, fname, invariant)
            if spread is None:
                declined(fname, "is called with `*v` of a value whose items the call cannot count")
                return None
            call_args[-1:] = spread
        bound = dict(zip(params, call_args))
        if len(call_args) > len(params):
            return None
        for k in node.keywords:
            if k.arg not in params or k.arg in bound:
                return None  # also `**extra` at the call, and a keyword for `**kwargs`
            bound[k.arg] = k.value
        for p, default in zip(params[len(params) - len(args.defaults):], args.defaults):
            if p not in bound and isinstance(default, gast.Constant):
                bound[p] = default
        if set(bound) != set(params):
            declined(fname, "has a parameter the call leaves to a default that is not a constant")
            return None
        taken = set() if caller is None else {n.id for n in gast.walk(caller) if isinstance(n, gast.Name)
                                              and isinstance(n.ctx, (gast.Store, gast.Param))}
        local = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)} \
            | set(params) | ({args.kwarg.id} if args.kwarg else set())
        free = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load) and n.id not in local}
        if free & taken - {fname} and not nested:  # a name the caller binds too would change meaning
            declined(fname, f"reads `{sorted(free & taken - {fname})[0]}`, which the calling function "
                     "binds too")
            return None
        if fname in taken or (not nested and rebound_in_module(self.ctx.tree, fname)):
            # `_f` is not (only) the `def`: a local, a parameter, `_f = ...` after it
            declined(fname, "is bound again, in the calling function or the module")
            return None
        inner = next((n for n in gast.walk(fdef) if n is not fdef and isinstance(n, (
            gast.Lambda, gast.FunctionDef, gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp,
            gast.Global, gast.Nonlocal))), None)
        if inner is not None:  # names bound by an inner scope are not the helper's
            declined(fname, f"has {_STATEMENT_WORDS.get(type(inner).__name__, 'an inner scope')} at line "
                     f"{getattr(inner, 'lineno', '?')}")
            return None
        self._declined = None
        expr = self._partial_evaluation(fdef.body, dict(bound), args.kwarg.id if args.kwarg else None)
        if expr is None and self._declined is not None:
            declined(fname, self._declined)
        return expr

    def _spread(self, items, count: int, fname: str, invariant: bool) -> list | None:
        """``f(*v)`` with ``v`` one row per iteration (``grey_of(*picture[i][j])``): the
        arguments ``v[0], ..., v[count - 1]``, with ``count`` the parameters left to fill;
        the batched code raises the loop's ``TypeError`` where a row holds another number of
        items. None where ``v`` is no per-iteration array, or under a per-iteration test
        (where the check would run for rows the loop never passes)."""
        value = self.ev(items)
        if invariant or count < 1 or not value.stacked or value.rank is None or value.rank < 1 \
                or self.mask is not None or self.lib.kind != "np":
            return None
        depth = value.depth
        self.out += templates.replace(
            f"if {self.lib.alias}.shape(V)[{depth}] != {count}:\n"
            f"    raise TypeError('{fname}() takes {count} positional arguments for the items of one row')",
            V=value.node)
        return [gast.Subscript(value=copy.deepcopy(items), slice=const(m), ctx=gast.Load()) for m in range(count)]

    def _helper_rank(self, node) -> int | None:
        """The rank of an invariant call of a module helper (the call stays as written), read
        from the expression it returns; None when unknown. Nothing it evaluates is kept."""
        expr = self._inlined(node, invariant=True)
        if expr is None:
            return None
        self.inlining.add(node.func.id)
        try:
            value = self._aside(expr)
        finally:
            self.inlining.discard(node.func.id)
        return None if value is None or value.stacked else value.rank

    def _method_rank(self, node, receiver: Val, pos, kw) -> int | None:
        """The rank of an invariant NumPy method call whose receiver's rank is known
        (``np.array([a]).reshape(a.size)`` -> 1, ``m.sum(axis=0)``), read from the method's
        batching rule as for a function; None when no rule gives it. Nothing the rule emits is
        kept (the call stays as written)."""
        mname = f"method.{node.func.attr}"
        rule = core.lookup(mname)
        if rule is None:
            return None
        with self._discarded():
            try:
                return rule.convert(self._args(node, mname, [receiver] + pos, kw, True)).rank
            except (Unsupported, IndexError, KeyError, AttributeError, TypeError):
                return None

    def _partial_evaluation(self, stmts, values, kwarg, depth=0):
        """The expression ``stmts`` return, with the names in ``values`` replaced; None where
        it depends on what only the run can decide, or the body does other things."""
        if depth > 20:
            return None

        class _Substitute(gast.NodeTransformer):
            def visit_Name(self, name_node):
                if isinstance(name_node.ctx, gast.Load) and name_node.id in values:
                    return copy.deepcopy(values[name_node.id])
                return name_node

            def visit_Call(self, call):
                self.generic_visit(call)
                # `f(x, **kwargs)` with no keywords passed: `f(x)`
                call.keywords = [k for k in call.keywords if not (k.arg is None and isinstance(k.value, gast.Name)
                                                                    and k.value.id == kwarg)]
                return call

        def subst(expr):
            out = _Substitute().visit(copy.deepcopy(expr))
            if kwarg is not None and any(isinstance(n, gast.Name) and n.id == kwarg for n in gast.walk(out)):
                raise _NotStatic  # `kwargs` used otherwise than passed on
            return out

        try:
            for k, st in enumerate(stmts):
                if isinstance(st, gast.Expr) and isinstance(st.value, gast.Constant):
                    continue  # a docstring
                if isinstance(st, gast.Return):
                    return None if st.value is None else subst(st.value)
                if isinstance(st, gast.Assign) and len(st.targets) == 1:
                    target = st.targets[0]
                    if isinstance(target, gast.Name):
                        values[target.id] = subst(st.value)
                        continue
                    if isinstance(target, (gast.Tuple, gast.List)) and all(isinstance(t, gast.Name) for t in target.elts):
                        if isinstance(st.value, (gast.Tuple, gast.List)):
                            if len(st.value.elts) != len(target.elts):
                                return None
                            parts = [subst(v) for v in st.value.elts]
                        else:  # `_, b = f(...)`: each name is its item of the (pure) call
                            whole = subst(st.value)
                            parts = [gast.Subscript(value=copy.deepcopy(whole), slice=gast.Constant(value=i, kind=None),
                                                    ctx=gast.Load()) for i in range(len(target.elts))]
                        for t, part in zip(target.elts, parts):
                            values[t.id] = part
                        continue
                    if self._masked_local_write(st, target, values, subst):
                        continue
                    self._declined = f"has an assignment to a subscript or an attribute at line {st.lineno}"
                    return None
                if isinstance(st, gast.AugAssign) and isinstance(st.target, gast.Name) and st.target.id in values:
                    if not self._fresh(values[st.target.id]):
                        return None  # `t += 1` on what may be the caller's array (a row) writes into it
                    values[st.target.id] = gast.BinOp(left=copy.deepcopy(values[st.target.id]), op=copy.deepcopy(st.op),
                                                      right=subst(st.value))
                    continue
                if isinstance(st, gast.If):
                    truth = self._static_truth(subst(st.test))
                    if truth is None:
                        self._declined = f"has an `if` at line {st.lineno} that only the data decide"
                        return None
                    return self._partial_evaluation((st.body if truth else st.orelse) + stmts[k + 1:], values, kwarg,
                                                    depth + 1)
                self._declined = (f"has {_STATEMENT_WORDS.get(type(st).__name__, 'a statement of another kind')} "
                                  f"at line {st.lineno}")
                return None
        except _NotStatic:
            return None
        return None  # falls off the end: returns None

    def _masked_local_write(self, st, target, values, subst) -> bool:
        """In a helper being inlined, ``a[m] = v`` into a local ``a`` bound to a new array
        (``spectrum = np.fft.rfft(x); spectrum[freqs < lo] = 0.0``), with ``m`` a boolean array
        that varies per iteration: done as a batched masked write into a stacked copy
        (:meth:`_private_masked_write`), after which ``a`` names that stack. False when the
        write is not one (the helper is then not inlined)."""
        name = getattr(target.value, "id", None)
        if not (isinstance(target.value, gast.Name) and name in values and self._fresh(values[name])
                and self.lib.kind == "np" and not self.to_tf):
            return False
        index = subst(target.slice)
        if not self._boolean_mask(index) or not self._varies(index):
            return False
        current = self.ev(values[name])
        tmp = self.namer.new(name)
        self._private_masked_write(tmp, current, index, self.ev(subst(st.value)), None, st)
        values[name] = templates.name(tmp)
        return True

    def _varies(self, expr) -> bool:
        """Whether ``expr`` reads a per-iteration name."""
        return any(isinstance(n, gast.Name) and self._is_stacked_name(n.id) for n in gast.walk(expr))

    def _fresh(self, expr) -> bool:
        """Whether ``expr`` makes a new value (arithmetic, a NumPy reduction or constructor),
        never one of its operands: an update in place of it writes into nothing else."""
        if isinstance(expr, (gast.BinOp, gast.UnaryOp, gast.Constant)):
            return True
        if not isinstance(expr, gast.Call):
            return False
        name = self.ctx.imports.resolve(expr.func) or ""
        if any(k.arg == "out" for k in expr.keywords):
            return False
        return name in _FRESH_CALLS and name not in ("numpy.array", "numpy.copy") or _fresh_value(self.ctx, expr)

    def _static_truth(self, test) -> bool | None:
        """Whether ``test`` holds on every iteration, when that is known before the loop runs:
        constants, ``x.ndim`` and ``len(x.shape)`` of a value whose rank is known, ``type(x) is
        int`` (or ``float``) of an array value, and ``not``/``and``/``or``/comparisons of those."""
        value = self._static_value(test)
        return None if value is _UNKNOWN else bool(value)

    def _static_value(self, node):
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            inner = self._static_value(node.operand)
            return _UNKNOWN if inner is _UNKNOWN else not inner
        if isinstance(node, gast.BoolOp):
            parts = [self._static_value(v) for v in node.values]
            stop = (lambda v: not v) if isinstance(node.op, gast.And) else bool
            for part in parts:  # the first decisive operand, as Python's short circuit
                if part is _UNKNOWN:
                    return _UNKNOWN
                if stop(part):
                    return part
            return parts[-1]
        if isinstance(node, gast.Attribute) and node.attr == "ndim":
            return self._static_rank(node.value)
        if isinstance(node, gast.Compare) and len(node.ops) == 1:
            op, right = node.ops[0], node.comparators[0]
            if isinstance(op, (gast.Is, gast.IsNot)) and isinstance(node.left, gast.Call) \
                    and self.ctx.imports.resolve(node.left.func) == "builtins.type" and len(node.left.args) == 1 \
                    and isinstance(right, gast.Name) and self.ctx.imports.resolve(right) in (
                        "builtins.int", "builtins.float", "builtins.bool", "builtins.complex"):
                self.consulted |= {n.id for n in gast.walk(node.left.args[0]) if isinstance(n, gast.Name)}
                v = self._aside(node.left.args[0])
                if v is None:
                    return _UNKNOWN
                if v.python:
                    if v.pytype is None:
                        return _UNKNOWN
                    same = v.pytype == right.id
                elif v.rank is not None and v.rank >= 1:
                    same = False  # an array per iteration: never exactly a Python number
                else:
                    return _UNKNOWN
                return same if isinstance(op, gast.Is) else not same
            left, right = self._static_value(node.left), self._static_value(right)
            if left is _UNKNOWN or right is _UNKNOWN or not all(type(v) in (int, bool) for v in (left, right)):
                return _UNKNOWN
            compare = INT_COMPARISONS.get(type(op))
            return _UNKNOWN if compare is None else compare(int(left), int(right))
        return _UNKNOWN

    def _static_rank(self, node):
        """The per-iteration rank of ``node`` when it is known for certain here."""
        self.consulted |= {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
        v = self._aside(node)
        if v is None or v.rank is None or v.python:
            return _UNKNOWN
        return v.rank

    def _aside(self, node) -> Val | None:
        """``node`` evaluated for what it is (rank, kind), nothing it emits kept; None when it
        has no batched form."""
        with self._discarded():
            try:
                return self.ev(node)
            except Unsupported:
                return None

    @contextlib.contextmanager
    def _discarded(self):
        """What the block emits is dropped: the statements, checks and labels, and the loop
        indices it bound (``i = np.arange(n)``, so a later use binds them again)."""
        saved = (list(self.out), list(self.checks), list(self.labels))
        levels = [(level.bound, level.out_start) for level in self.levels]
        raising = self.scalar_raising
        try:
            yield
        finally:
            self.out[:], self.checks[:], self.labels[:] = saved
            self.scalar_raising = raising
            for level, (bound, start) in zip(self.levels, levels):
                level.bound, level.out_start = bound, start

    def _builtin(self, node, name):
        vals = [self.ev(a) for a in node.args]
        if node.keywords or not any(v.stacked for v in vals):
            if any(v.stacked for v in vals):
                raise Unsupported(f"`{name[9:]}` with keywords on per-iteration values")
            rank = 0 if name in ("builtins.len", "builtins.int", "builtins.float", "builtins.bool") else (
                max((v.rank for v in vals), default=None) if all(v.rank is not None for v in vals) else None)
            return Val(node, (), rank, True, pytype=_CONVERSION_TYPES.get(name))
        short = name[9:]
        if short in ("min", "max"):
            if len(vals) != 2:
                raise Unsupported(f"`{short}` of other than two per-iteration values")
            (a, b), full, rank = align(self.lib, vals, f"`{short}`")
            a, b = self._strong_arm(a, b), self._strong_arm(b, a)  # `max(x[i], 300)` of uint8 `x`
            # Python's max(a, b) is `b if b > a else a`: with a NaN the comparison is false and
            # `a` is kept, where np.maximum would give NaN. `where` keeps Python's meaning.
            if self._np and _nonzero_number(node.args[1]) and not core.mixes(vals[1], vals[0]):
                # ...except where `b` is a number other than 0 (`min(v, 255)`): a NaN `a` is kept
                # by both, and no pair of zeros of two signs can meet. np.minimum and np.maximum
                # are the `clip` an expert writes, one pass with no mask. (Not where `a` is a
                # NumPy value and `b` a Python number: the loop stores or collects each
                # iteration's own kind, which the `where`'s arms keep, :meth:`_cast_arms`.)
                fn = "maximum" if short == "max" else "minimum"
                return self._merged(self.lib.call(fn, a.node, b.node), full, rank, vals[1], vals[0])
            test = gast.Compare(left=copy.deepcopy(b.node), ops=[gast.Gt() if short == "max" else gast.Lt()],
                                comparators=[copy.deepcopy(a.node)])
            return self._merged(self.lib.call("where", test, b.node, a.node), full, rank, vals[1], vals[0])
        if short == "abs":
            if self._np and vals[0].mixed:
                # `abs(min(x[i], 0.5))` of int8 `x`: the loop's abs of int8 -128 wraps, the
                # batched `where` is float64; arms of floats compute alike (the float64 check)
                if vals[0].mixed not in (core.FLOAT_ARMS, core.FLOAT_ARMS_LOOSE):
                    raise Unsupported(f"`{gast.unparse(node).strip()}` of a value of two kinds (arrays of two "
                                      "dtypes, or a Python number and a NumPy value)")
                self._mixed_operands(node, vals[0].mixed, [])
            return Val(gast.Call(func=copy.deepcopy(node.func), args=[vals[0].node], keywords=[]), vals[0].full,
                       vals[0].rank, mixed=vals[0].mixed)
        if short == "len":
            v = vals[0]
            return Val(templates.expr(f"V.shape[{v.depth}]", V=v.node), (), 0, True, pytype="int")  # an int, as len()
        if self.lib.kind == "tf" or self.to_tf:
            raise Unsupported(f"`{short}()` of a tensor")
        if vals[0].rank != 0:
            raise Unsupported(f"`{short}()` of a per-iteration array")
        if short == "round":
            raise Unsupported("`round()` (Python rounds halves to even like NumPy, but returns an int)")
        if short == "int":
            # `astype(int)` wraps a float past int64 (1e19 becomes -2**63) where Python's int is
            # exact: such values (rare) take a slower path to Python ints (an object array);
            # a NaN or inf, where the loop raises, is 0 there (a lane the loop may not take).
            np_ = self.lib.alias
            value = self._hoist(vals[0].node, "whole")
            return Val(templates.expr(
                f"V.astype(int) if not {np_}.any({np_}.abs(V) >= 2.0 ** 63) else "
                f"{np_}.vectorize(int, otypes=[object])({np_}.where({np_}.isfinite(V), V, 0))", V=value),
                vals[0].full, 0, True, pytype=short)
        return Val(templates.expr(f"V.astype({short})", V=vals[0].node), vals[0].full, 0, True, pytype=short)


#: NumPy calls whose result is a new array, never their argument (``np.asarray`` may be it)
_FRESH_CALLS = ARRAY_READERS | {"numpy.array", "numpy.stack", "numpy.concatenate", "numpy.vstack", "numpy.zeros",
                                "numpy.ones", "numpy.full", "numpy.zeros_like", "numpy.ones_like", "numpy.copy"}


class _NotStatic(Exception):
    """A helper's body does what the partial evaluation does not model."""


#: a value the partial evaluation cannot know before the loop runs
_UNKNOWN = object()

#: the type of the Python number a conversion returns
_CONVERSION_TYPES = {"builtins.len": "int", "builtins.int": "int", "builtins.float": "float", "builtins.bool": "bool"}

#: NumPy's scalar types, called as conversions
_SCALAR_TYPES = {f"numpy.{t}" for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                        "float16", "float32", "float64", "complex64", "complex128", "bool_",
                                        "intp", "double", "single")}

#: module constants that are one number
_CONSTANTS = {f"{module}.{name}" for module in ("numpy", "math") for name in ("pi", "e", "inf", "nan", "tau", "euler_gamma")}

#: ``math`` functions whose result is not one Python number
_MATH_NOT_SCALAR = {"math.frexp", "math.modf"}


# -- helpers ---------------------------------------------------------------------------------------------


def _respelled(node, **parts):
    """``node`` as written, or a copy with the children that the batched code spells otherwise
    (an invariant `len(x[i])` is `x.shape[1]`): ``parts`` maps each field to the evaluated
    child (or list of children) it holds."""
    fields = {}
    for field, value in parts.items():
        written = getattr(node, field)
        if isinstance(value, list):
            if any(v.node is not w for v, w in zip(value, written)):
                fields[field] = [v.node for v in value]
        elif value.node is not written:
            fields[field] = value.node
    if not fields:
        return node
    new = copy.copy(node)
    for field, value in fields.items():
        setattr(new, field, value)
    return new


#: NumPy ufuncs with a batching rule: on numbers and 0-d arrays they return NumPy scalars
NUMPY_UFUNCS = frozenset(f"numpy.{name}" for name in (
    "abs", "absolute", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil",
    "rint", "trunc", "sign", "square", "negative", "reciprocal", "isnan", "isinf", "isfinite",
    "logical_not", "logical_and", "logical_or", "logical_xor", "conj", "conjugate", "radians", "degrees",
    "deg2rad", "rad2deg", "fabs", "cbrt", "exp2", "maximum", "minimum", "fmax", "fmin", "add", "subtract",
    "multiply", "divide", "true_divide", "floor_divide", "power", "mod", "remainder", "hypot", "arctan2",
    "logaddexp", "logaddexp2", "greater", "less", "equal", "not_equal", "greater_equal", "less_equal",
    "copysign", "heaviside", "float_power", "fmod"))


#: what a helper holds that keeps it from being inlined, in the words of a remark
_STATEMENT_WORDS = {
    "Try": "a `try` statement", "For": "a `for` loop", "While": "a `while` loop", "With": "a `with` statement",
    "Raise": "a `raise` statement", "Assert": "an `assert`", "Expr": "a statement that is a bare call",
    "AugAssign": "an update of a name it did not bind, or of an argument", "Delete": "a `del` statement",
    "Assign": "an assignment to a subscript or an attribute", "AnnAssign": "an annotated assignment",
    "Lambda": "a lambda", "FunctionDef": "a nested function", "ListComp": "a list comprehension",
    "GeneratorExp": "a generator expression", "DictComp": "a dict comprehension",
    "SetComp": "a set comprehension", "Global": "a `global` statement", "Nonlocal": "a `nonlocal` statement",
}


#: operators whose result is never a bool, whatever Python numbers they take (``True + True`` is 2)
_NEVER_BOOL = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow, gast.LShift,
               gast.RShift, gast.USub, gast.UAdd, gast.Invert)


def _maybe_bool(node, value: Val) -> bool:
    """Whether the Python number ``value`` (the value of ``node``) may be a bool: its type says
    so, or is unknown and ``node`` is no arithmetic (``x ** 2 + y ** 2`` never is)."""
    if value.pytype is not None:
        return value.pytype == "bool"
    return not (isinstance(node, (gast.BinOp, gast.UnaryOp)) and isinstance(node.op, _NEVER_BOOL))


def _nested_rank(rw, node) -> int | None:
    """The rank of the array NumPy makes of a nested list of invariant values
    (``[[np.cos(a), np.sin(a)]]`` -> 2): one axis per level of nesting above values of one
    known rank; None when the levels disagree (a ragged list) or a rank is unknown."""
    if isinstance(node, (gast.List, gast.Tuple)):
        if not node.elts:
            return None
        inner = {_nested_rank(rw, e) for e in node.elts}
        return inner.pop() + 1 if len(inner) == 1 and None not in inner else None
    literal = ranks.literal_rank(node)
    if literal is not None:
        return literal
    value = rw._aside(node)
    return None if value is None or value.stacked else value.rank


def _constructor_rank(rw, node, name):
    """Ranks of invariant constructors: ``zeros((n, m))`` -> 2, ``zeros_like(x)`` -> rank of x."""
    shape_kw = next((k.value for k in node.keywords if k.arg == "shape"), None)
    if name in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "tensorflow.zeros",
                "tensorflow.ones", "tensorflow.fill") and (node.args or shape_kw is not None):
        shape = node.args[0] if node.args else shape_kw  # `np.zeros(shape=(n, 1))`
        if isinstance(shape, (gast.List, gast.Tuple)):
            return len(shape.elts)
        if isinstance(shape, gast.Call) and rw.ctx.imports.resolve(shape.func) == "numpy.shape" \
                and len(shape.args) == 1 and not shape.keywords and isinstance(shape.args[0], gast.Name):
            shape = gast.Attribute(value=shape.args[0], attr="shape", ctx=gast.Load())  # `np.shape(x)`: `x.shape`
        if isinstance(shape, gast.Attribute) and shape.attr == "shape" and isinstance(shape.value, gast.Name):
            known = rw._shape_of(shape.value.id)
            return known.rank if known else None
        val = rw.ev(shape)
        if val.rank == 0:
            return 1
        return None
    if name in ("numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like",
                "numpy.copy", "tensorflow.zeros_like", "tensorflow.ones_like", "numpy.asarray",
                "numpy.array", "tensorflow.constant", "tensorflow.convert_to_tensor") and node.args:
        arg = node.args[0]
        if isinstance(arg, (gast.List, gast.Tuple, gast.Constant)):
            return _nested_rank(rw, arg)
        return rw.ev(arg).rank
    if name in ("tensorflow.eye", "numpy.eye", "numpy.identity"):
        return 2
    if name in _SCALAR_TYPES and len(node.args) == 1 and not node.keywords:  # np.int8(v): v's rank
        return rw.ev(node.args[0]).rank
    if name in ("numpy.arange", "numpy.linspace", "numpy.logspace", "numpy.geomspace",
                "numpy.fft.fftfreq", "numpy.fft.rfftfreq"):
        return 1
    if name in ("numpy.unique", "numpy.flatnonzero") and len(node.args) == 1 and not node.keywords:
        return 1  # flattened, whatever the argument's rank
    return None


def _smallest_int(value: int) -> str | None:
    """The smallest NumPy integer dtype that holds ``value`` (unsigned first, as NumPy's
    ``min_scalar_type``), None past 64 bits."""
    for bits in (8, 16, 32, 64):
        if 0 <= value < 2 ** bits:
            return f"uint{bits}"
        if -2 ** (bits - 1) <= value < 0:
            return f"int{bits}"
    return None


def _nonzero_number(node) -> bool:
    """Whether ``node`` is an int or float literal other than 0 (``255``, ``-1.5``), perhaps
    negated: never NaN, and never a zero of either sign. An int must be one int64 holds: the
    Python ints beside it are batched as int64, and NumPy 2 raises OverflowError for a Python
    int its dtype does not hold (``np.minimum(i, 2 ** 70)``, where the loop's ``min`` is ``i``)."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        sign = -1 if isinstance(node.op, gast.USub) else 1
        node = node.operand
    if not (isinstance(node, gast.Constant) and type(node.value) in (int, float) and node.value != 0):
        return False
    return type(node.value) is float or -2 ** 63 <= sign * node.value < 2 ** 63


def _half_holds(value: float) -> bool:
    """Whether an IEEE half float (float16, the narrowest NumPy float) holds ``value`` exactly."""
    try:
        return struct.unpack("<e", struct.pack("<e", value))[0] == value
    except (OverflowError, struct.error):
        return False


def _integral_constant(node: gast.AST) -> bool:
    """Whether ``node`` is a literal whole number (``2``, ``3.0``, ``-1``): a power with it is
    real for every real base."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return isinstance(node, gast.Constant) and (
        type(node.value) is int or type(node.value) is float and node.value.is_integer())
