"""Per-iteration ``if`` statements by predication: both branches run with their effects masked,
names merge with ``where``; tests of an ``if``/``elif`` chain and their logical combinations."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import InvariantTest, Unsupported, Val, align
from pforge.transpile.backends.direct.shared import Ind, _Pending, _is_boolean
from pforge.transpile.spaces import constant_int
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
        pack = next((p for p in self.levels[-1].info.packs.values() if p.stmt is stmt), None)
        if pack is not None:
            self._pack(pack)
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
            if blend.name in self.conditional_lasts:
                continue  # (taken at the end: the last iteration whose tests held)
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

    def _pack(self, pack) -> None:
        """A pack (:mod:`~pforge.transpile.analysis.packs`): the values where the test holds,
        ``vals = v[t]`` in the loop's order, written into ``a`` from the counter's first written
        value on, and the counter moved past them::

            a_packed = v[mask]
            a[j + 1:j + 1 + a_packed.shape[0]] = a_packed
            j += a_packed.shape[0]

        (``shape``, not ``len``, which the module may bind to something else where the loop never
        calls it.) Checked in front: ``a`` is an array whose rank is the value's plus one (so
        each value fills one element or row, as the loop's write does, rather than broadcasting
        along the slice), not of objects (a slice stores Python numbers where the loop stores
        the NumPy scalars it computed), and ``j`` a Python int or a 64-bit NumPy integer (a narrower one would wrap
        around where the loop's counter does, at another element) from which the first write is
        at an index of 0 or more (the loop's negative indices count from the end, one element at
        a time). Past the array's end the loop raises an IndexError after its first writes, the
        slice assignment a ValueError before any, or none where one value is left to broadcast
        into an empty slice (the README's contract for a loop that raises).

        Raises:
            Unsupported: TensorFlow code, a pack inside another loop, a test that does not
                depend on the loop, or a value that does not, or of no known rank.
        """
        if self.lib.kind != "np" or self.to_tf or len(self.levels) != 1:
            raise Unsupported(f"the pack into `{pack.array}` (in TensorFlow code or inside another loop)")
        test = self._test(pack.stmt.test)
        if not test.stacked:
            raise Unsupported(f"the pack into `{pack.array}` under a test that does not depend on the loop")
        if test.rank not in (0, None):
            raise Unsupported(f"the pack into `{pack.array}` under a test on an array")
        test = Val(test.node, test.full, 0)
        saved = self.mask
        if saved is not None:  # (under an `if` of the body, a `continue` guard: both tests)
            test = self._and(saved, test)
        self.mask = test
        try:
            value = self.ev(pack.write.value)
        finally:
            self.mask = saved
        if not value.stacked or not all(value.full) or value.rank is None:
            raise Unsupported(f"the pack into `{pack.array}` of a value that does not vary with the loop, "
                              "or of no known rank")
        np_ = self.lib.alias
        array, counter = templates.name(pack.array), templates.name(pack.counter)
        first = "J" if pack.write_first else "J + 1"
        self.checks += [templates.expr(f"type(A) is {np_}.ndarray and A.ndim == {value.rank + 1} "
                                       "and A.dtype.kind != 'O'", A=array),
                        templates.expr(f"(type(J) is int or isinstance(J, {np_}.integer) and J.itemsize == 8) "
                                       f"and {first} >= 0", J=counter)]
        packed = self.namer.new(f"{pack.array}_packed")
        self.out += templates.replace(f"{packed} = V", V=core.subscript(value.node, [test.node]))
        self.out += templates.replace(f"A[{first}:{first} + {packed}.shape[0]] = {packed}", A=array, J=counter)
        self.out += templates.replace(f"J += {packed}.shape[0]", J=counter)

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
            saved, vals, result, partial = self.mask, [], None, 0
            try:
                for v in node.values:
                    if result is not None and result.stacked:
                        reach = result if conjunction else self._not(result)
                        self.mask = reach if saved is None else self._and(saved, reach)
                    elif result is not None and not partial:
                        # after an invariant operand (`k < len(w) and x[i] > w[k]`) the loop
                        # reaches the rest only where that operand lets it, maybe never
                        partial = 1
                        self.partial += 1
                    val = self._test(v)
                    vals.append(val)
                    if result is None or not (result.stacked or val.stacked):
                        result = val
                    else:
                        (a, b), full, rank = align(self.lib, [result, val], f"`{fn}`")
                        result = Val(self.lib.call(fn, a.node, b.node), full, rank)
            finally:
                self.mask = saved
                self.partial -= partial
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

    # -- what the loop evaluates only where a test lets it ---------------------------------------

    def _reached_only(self, node, value: Val | None = None) -> None:
        """Checks an invariant expression the loop evaluates only where a per-iteration test (or
        an invariant ``and``/``or`` operand before it) lets it, which the batched code evaluates
        once, whatever the tests: it must not raise where the loop would never have evaluated it
        (``if a[j] > 100: out[j] = a[j] + 1 / k`` with ``k == 0`` and no ``a[j]`` above 100).

        What passes cannot raise on the values the checks in front of the loop admit, or adds
        the check that makes it so, into ``self.checks``:

        - names, numbers, attributes (an array's ``.size`` needs ``type(w) is np.ndarray``);
        - ``+``, ``-``, ``*``, comparisons and NumPy's elementwise functions of at most one
          value that may be an array (two may not broadcast); an ordering of a name needs it
          real (``np.asarray(k).dtype.kind in 'biuf'``), ``-k`` needs it no bool;
        - a division by a nonzero number, or by a number read in front (``k != 0``);
        - a power of an array to a nonnegative int, or of two numbers;
        - ``np.sum(w)``, ``w.sum()`` and such of one array, ``abs``, ``len``, ``min``/``max`` of
          two or more numbers.

        Subscripts are checked where they are batched (:meth:`_fixed_reads`).

        Raises:
            Unsupported: anything else: a call of a function of the module, of ``math``, of
                ``np.linalg``, a power that may overflow a Python float or divide by 0, a
                ``@``, a shift, two arrays that may not broadcast.
        """
        def refuse(why):
            raise Unsupported(f"`{gast.unparse(node).strip()}` under a per-iteration test: {why}, where the "
                              "loop may never evaluate it and the batched code evaluates it once")

        def arrays(*children) -> int:  # how many may be arrays (a rank other than 0)
            return sum(1 for c in children if (v := self._seen(c)) is None or v.rank != 0)

        def named_kind(child, test):  # `np.asarray(k).dtype.kind in 'biuf'` for a name read in front
            if isinstance(child, gast.Name) and self._in_front(child):
                self._check(templates.expr(f"{self.lib.alias}.asarray(N).dtype.kind {test}", N=templates.name(child.id)))
                return True
            return isinstance(child, gast.Constant)

        np_ = self.lib.alias
        if isinstance(node, gast.Name):
            seen = value
            if seen is not None and seen.rank == 0 and not seen.python and seen.pytype is None and self._in_front(node):
                # a number of a kind the code does not show: the checks admit a 0-d array of
                # strings or objects, and a Python int too large for int64, on which arithmetic raises
                self._check(templates.expr(f"{np_}.asarray(N).dtype.kind in 'biufc'", N=templates.name(node.id)))
            return
        if isinstance(node, (gast.Constant, gast.Subscript, gast.BoolOp, gast.IfExp, gast.List, gast.Tuple)):
            return  # (an invariant `if` expression keeps Python's: only the arm taken is computed)
        if isinstance(node, gast.Attribute):
            if node.attr in _ARRAY_ATTRIBUTES and isinstance(node.value, gast.Name) and self._in_front(node.value):
                self._check(templates.expr(f"type(N) is {np_}.ndarray", N=templates.name(node.value.id)))
            return
        if isinstance(node, gast.Compare):
            if isinstance(node.ops[0], (gast.In, gast.NotIn)):
                refuse("`in` raises on a value that is no container")
            if len(node.ops) > 1 or arrays(node.left, *node.comparators) > 1:
                refuse("a comparison of two values that may be arrays of shapes that do not broadcast")
            if isinstance(node.ops[0], (gast.Lt, gast.LtE, gast.Gt, gast.GtE)) and not all(
                    named_kind(c, "in 'biuf'") for c in (node.left, *node.comparators)
                    if not isinstance(c, gast.Constant)):
                refuse("an ordering of a value that may be complex")
            return
        if isinstance(node, gast.UnaryOp):
            if isinstance(node.op, gast.Not):
                if arrays(node.operand):
                    refuse("`not` of a value that may be an array")
            elif isinstance(node.op, gast.Invert):
                if not self._integral(node.operand):
                    refuse("`~` raises on a float")
            elif not named_kind(node.operand, "!= 'b'"):
                refuse("a sign of a value that may be a bool array")
            return
        if isinstance(node, gast.BinOp):
            op = node.op
            if arrays(node.left, node.right) > 1:
                refuse("an operator on two values that may be arrays of shapes that do not broadcast")
            if isinstance(op, (gast.Add, gast.Sub, gast.Mult)):
                return
            if isinstance(op, (gast.Div, gast.FloorDiv, gast.Mod)):
                divisor = _number(node.right)
                if divisor is not None and divisor != 0:
                    return
                if arrays(node.right) or not self._in_front(node.right):
                    refuse("a division by a value that may be 0")
                self._python_operands(node.right)
                self._check(gast.Compare(left=copy.deepcopy(node.right), ops=[gast.NotEq()],
                                         comparators=[gast.Constant(value=0, kind=None)]))
                return
            if isinstance(op, gast.Pow):
                exponent, base = _number(node.right), _number(node.left)
                if (exponent is not None and base is not None and abs(exponent) < 64 and abs(base) < 1e4
                        and (base != 0 or exponent >= 0)):
                    return
                if isinstance(exponent, int) and exponent >= 0 and (v := self._seen(node.left)) is not None \
                        and (v.rank or 0) >= 1:
                    return  # (NumPy's array power overflows to inf; a Python float's raises)
                refuse("a power that may overflow a Python float or divide by 0")
            if isinstance(op, (gast.BitAnd, gast.BitOr, gast.BitXor)) and self._integral(node.left) \
                    and self._integral(node.right):
                return
            refuse(f"the operator `{type(op).__name__}` may raise")
        if isinstance(node, gast.Call):
            name = self.ctx.imports.resolve(node.func) or ""
            rule = core.lookup(name)
            plain = not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args)
            if plain and name.startswith("numpy.") and not name.startswith("numpy.linalg.") and (
                    (rule is not None and rule.family == "elementwise" and name not in _RAISING_UFUNCS
                     and arrays(*node.args) <= 1) or (name in _TOTAL_NUMPY and len(node.args) == 1)):
                return
            if plain and (name in ("builtins.abs", "builtins.bool", "builtins.len") and len(node.args) == 1 or (
                    name in ("builtins.min", "builtins.max") and len(node.args) >= 2 and not arrays(*node.args))):
                return
            if plain and isinstance(node.func, gast.Attribute) and not name and not node.args \
                    and node.func.attr in _TOTAL_METHODS and (self.ev(node.func.value).rank or 0) >= 1:
                receiver = node.func.value  # (a list the checks admit has no `.sum()`)
                if isinstance(receiver, gast.Name) and self._in_front(receiver):
                    self._check(templates.expr(f"type(N) is {np_}.ndarray", N=templates.name(receiver.id)))
                    return
                if isinstance(receiver, gast.Call) and (
                        self.ctx.imports.resolve(receiver.func) or "").startswith("numpy."):
                    return  # (NumPy's functions return arrays)
            refuse("a call that may raise")
        if any(isinstance(n, (gast.Call, gast.Subscript, gast.BinOp, gast.comprehension)) for n in gast.walk(node)):
            refuse("an expression that may raise")

    def _integral(self, node) -> bool:
        """Whether ``node`` is an int constant or a bool test (``~`` and ``&`` of those never raise)."""
        return (isinstance(node, gast.Constant) and type(node.value) in (int, bool)) or _is_boolean(node, self.ctx)

    def _in_front(self, node) -> bool:
        """Whether a check in front of the loop can evaluate ``node`` as the loop would: numbers,
        names the loop does not bind, the lengths of those (``len(w)``, ``w.shape[0]``) and
        ``+``, ``-``, ``*``, ``//`` of them."""
        for n in gast.walk(node):
            if isinstance(n, gast.Call) and self.ctx.imports.resolve(n.func) == "builtins.len" \
                    and len(n.args) == 1 and not n.keywords and isinstance(n.args[0], gast.Name):
                continue
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Attribute) and n.value.attr == "shape" \
                    and isinstance(n.value.value, gast.Name) and constant_int(n.slice) is not None:
                continue
            if isinstance(n, gast.Attribute) and n.attr == "shape" and isinstance(n.value, gast.Name):
                continue
            if isinstance(n, gast.BinOp) and isinstance(n.op, gast.FloorDiv) and not constant_int(n.right):
                return False
            if isinstance(n, gast.Name):
                if n.id in self.loop_stores or self._is_stacked_name(n.id) or n.id in self.snapshot_of:
                    return False
            elif not isinstance(n, (gast.Constant, gast.BinOp, gast.UnaryOp, gast.Add, gast.Sub, gast.Mult,
                                    gast.FloorDiv, gast.USub, gast.UAdd, gast.expr_context)):
                return False
        return True

    def _python_operands(self, node) -> None:
        """Before a check in front of the loop that computes ``node`` (``k + 1000 <= 127``,
        ``n - m != 0``): where ``node`` is arithmetic on names, each name it reads (other than
        through ``len(w)`` or ``w.shape``) must be a Python number, ``type(k) in (int, float,
        bool)``. A NumPy integer beside a Python int its dtype cannot hold raises
        (``np.uint8(5) + 1000``: OverflowError), which would make the checks raise where the loop,
        whose test never lets it compute ``node``, returns."""
        if isinstance(node, (gast.Name, gast.Constant)):
            return
        measured = {id(m) for n in gast.walk(node) if isinstance(n, (gast.Call, gast.Attribute)) for m in gast.walk(n)}
        for name in sorted({n.id for n in gast.walk(node) if isinstance(n, gast.Name) and id(n) not in measured}):
            self._check(templates.expr("type(N) in (int, float, bool)", N=templates.name(name)))

    def _check(self, test: gast.expr) -> None:
        """``test`` into the checks in front of the loop, once."""
        if gast.dump(test) not in {gast.dump(c) for c in self.checks}:
            self.checks.append(test)

    def _not(self, val):
        return Val(self.lib.call("logical_not", val.node), val.full, val.rank)

    def _and(self, a, b):
        (x, y), full, rank = align(self.lib, [a, b], "a nested test")
        return Val(self.lib.call("logical_and", x.node, y.node), full, rank)


def _number(node) -> int | float | None:
    """The value of a number literal (``2``, ``-0.5``), else None."""
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _number(node.operand)
        return -inner if inner is not None else None
    return None


#: NumPy's elementwise functions that raise on values: a negative int exponent, a float operand
_RAISING_UFUNCS = {"numpy.power", "numpy.bitwise_and", "numpy.bitwise_or", "numpy.bitwise_xor"}
#: attributes only an array has (a list or a number the checks admit has none)
_ARRAY_ATTRIBUTES = {"size", "shape", "ndim", "dtype", "T", "flat", "itemsize", "nbytes"}
#: NumPy functions that never raise on an array or number of the kinds the checks admit
_TOTAL_NUMPY = {"numpy.sum", "numpy.prod", "numpy.mean", "numpy.nansum", "numpy.nanmean", "numpy.any",
                "numpy.all", "numpy.count_nonzero", "numpy.cumsum", "numpy.cumprod", "numpy.shape", "numpy.ndim",
                "numpy.size", "numpy.asarray", "numpy.float64", "numpy.float32", "numpy.transpose", "numpy.ravel"}
#: methods of such arrays that never raise
_TOTAL_METHODS = {"sum", "prod", "mean", "any", "all", "copy", "ravel", "flatten", "conj", "cumsum", "cumprod"}


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
