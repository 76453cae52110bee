"""Statements of the loop body: dispatch by kind, bindings of batched values, assignments and
augmented assignments (which hand reductions, writes and TensorArrays to their mixins)."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.analysis import PRIVATE, appended_item, spelled_out_update
from pforge.transpile.analysis.nodes import reversed_operand
from pforge.transpile.backends.common import _evidently_array
from pforge.transpile.backends.direct.core import Unsupported, Val, lift
from pforge.transpile.backends.direct.shared import Ind, _is_boolean, _loads, may_be_view
from pforge.transpile.backends.pfor import _stores
from pforge.transpile.spaces import constant_int
from pforge.transpile.vplan import inner_loop


class StatementsMixin:
    """Statements of the loop body, one at a time."""

    # -- statements --------------------------------------------------------------------------------

    def _block(self, stmts, later, depth):
        for k, stmt in enumerate(stmts):
            rest = _stores(stmts[k + 1:]) | later
            self._stmt(stmt, rest, depth)

    def _stmt(self, stmt, later, depth):
        info_here = self.levels[-1].info
        if id(stmt) in self._inner_inits():
            return
        if any(stmt is s for updates in info_here.derived.values() for s in updates):
            name = next(n for n, updates in info_here.derived.items() if any(stmt is s for s in updates))
            step = self.derived_steps[name][1][id(stmt)]
            value = self.ev(gast.BinOp(left=templates.name(name), op=gast.Add(), right=copy.deepcopy(step)))
            node = value.node  # (`j + i * 2 + 1 + 1` folded to `j + i * 2 + 2`)
            if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add) and isinstance(node.left, gast.BinOp) \
                    and isinstance(node.left.op, gast.Add) and constant_int(node.right) is not None \
                    and constant_int(node.left.right) is not None:
                folded = constant_int(node.left.right) + constant_int(node.right)
                value = value.with_node(node.left.left if folded == 0 else gast.BinOp(
                    left=node.left.left, op=gast.Add() if folded > 0 else gast.Sub(),
                    right=gast.Constant(value=abs(folded), kind=None)))
            self.env[name] = value
            return
        if self._scan_update(stmt):
            return
        if isinstance(stmt, gast.Assign):
            return self._assign(stmt, later)
        if isinstance(stmt, gast.AugAssign):
            return self._aug_assign(stmt, later)
        if isinstance(stmt, gast.Expr):
            if isinstance(stmt.value, gast.Constant):
                return
            call = stmt.value
            item = appended_item(call)
            if item is not None and (call.func.attr == "append" or any(
                    call.func.value.id in level.info.collectors for level in self.levels)):
                return self._append(call.func.value.id, item, later)
            raise Unsupported(f"line {stmt.lineno}: an expression statement (a call for its effect)")
        if isinstance(stmt, gast.If):
            args = [a for a in info_here.arg_reductions.values() if a.stmt is stmt]
            if args:
                return self._arg_reduce(args)
            return self._if(stmt, later, depth)
        if isinstance(stmt, gast.For):
            child = next((c for c in self.levels[-1].info.children if c.node is stmt), None)
            if child is None:
                raise Unsupported(f"line {stmt.lineno}: an inner loop pforge did not analyse")
            stacked = {n for n, v in self.env.items() if getattr(v, "stacked", True)}
            decision = inner_loop(self.levels[-1].info, child, stacked)
            if decision.mode == "sequential":
                return self._sequential_inner(child, decision, later, depth)
            return self._level(child, later)
        if isinstance(stmt, gast.Pass):
            return
        if isinstance(stmt, gast.With):
            return self._tape(stmt, later)
        raise Unsupported(f"line {stmt.lineno}: a `{type(stmt).__name__}` statement")

    def _sequential_inner(self, child, decision, later, depth):
        """An inner loop the analysis keeps as a loop (each inner iteration reads what an
        earlier one wrote) in a level whose iterations are independent: a Python loop over the
        inner range whose body is batched over the enclosing levels. It computes what the
        loops interchanged compute with the new inner loop vectorized (outer-loop
        vectorization; legal because no dependence is carried by the enclosing levels, Allen &
        Kennedy 6.2): ``for i: for j in range(1, n): a[j, i] = a[j - 1, i] + b[j, i]`` becomes
        ``for j in range(1, n): a[j, i] = a[j - 1, i] + b[j, i]`` with ``i`` all columns at once.

        A name carried from one inner iteration to the next (``s = np.tanh(s) + x[i, j]``, bound
        in the outer body before the loop) is a variable of the batched loop: it starts as the
        value the outer body gave it (a Python number stays one, so the first step computes in
        the dtype the loop's does) and holds one value per outer iteration after the first step.

        NumPy only; a range whose bounds are the same for every outer iteration; no test
        around it; no loop, ``break`` or ``continue`` inside it; a carried name keeps its rank.

        Raises:
            Unsupported: any of those does not hold.
        """
        space = child.space
        if self.lib.kind != "np" or self.to_tf or space is None or space.kind != "range" or decision.ragged \
                or decision.blocker or self.mask is not None or child.node.orelse \
                or any(isinstance(n, (gast.For, gast.While, gast.Break, gast.Continue, gast.Return))
                       for st in child.node.body for n in gast.walk(st)) \
                or any(self.ev(b).stacked for b in (space.start, space.stop, space.step) if b is not None):
            raise Unsupported(f"the inner loop at line {child.lineno} is not independent")
        counter = space.induction
        carried = {}
        for name in decision.carried:
            value = self.env.get(name)
            if not isinstance(value, Val) or value.rank is None:
                raise Unsupported(f"the inner loop at line {child.lineno} carries `{name}`, whose value "
                                  "before it the batched code does not hold")
            self._wide_reads(child.node)
            if not (isinstance(value.node, gast.Name) and value.node.id == name):
                self.out += templates.replace(f"{name} = V", V=value.node)
            carried[name] = Val(templates.name(name), (True,) * depth, value.rank)
        saved = {**self.env, **carried}
        outside, self.out = self.out, []
        self.env.update(carried)
        self.env[counter] = Val(templates.name(counter), (), 0, True, pytype="int")
        try:
            self._block(child.node.body, later | {counter} | set(carried), depth)
            for name, entry in carried.items():  # (each step leaves it as the next one reads it)
                value = self.env.get(name)
                if not (isinstance(value, Val) and isinstance(value.node, gast.Name) and value.node.id == name
                        and value.rank == entry.rank and all(value.full)):
                    raise Unsupported(f"the inner loop at line {child.lineno} carries `{name}` in another "
                                      "form than it starts in")
        finally:
            body, self.out = self.out, outside
            # the names bound in the inner body are its own (the analysis proved none is read
            # after it): the outer levels' names keep their values, a carried one its variable
            self.env = {**saved, **{k: v for k, v in self.env.items() if k in saved and k != counter},
                        **carried}
        indices = {lv.ind.name for lv in self.levels if getattr(lv, "ind", None) is not None}
        hoisted = [st for st in body if isinstance(st, gast.Assign) and len(st.targets) == 1
                   and isinstance(st.targets[0], gast.Name) and st.targets[0].id in indices]
        self.out += hoisted  # (an enclosing loop's index as an array, `i = np.arange(n)`: once)
        body = [st for st in body if not any(st is h for h in hoisted)]
        loop = gast.For(target=templates.name(counter, store=True), iter=copy.deepcopy(child.node.iter),
                        body=body or [gast.Pass()], orelse=[], type_comment=None)
        self.out.append(gast.copy_location(loop, child.node))

    def _wide_reads(self, loop) -> None:
        """Checks in front that each array ``loop`` reads holds float64 or int64 values (or is a
        Python number): a name it carries keeps its first value's type on the outer iterations
        that never update it (a Python number, ``last = -1``, or a uint8 element, ``m = X[i, 0]``)
        and takes the update's type on the others, where the batched variable is one array for
        all of them, of the dtype ``np.where`` gives both. Beside uint8 values it would hold 255
        for -1 or double a uint8 without wrapping, beside int8 values wrap where Python's ints do
        not, beside float32 values round (helper-44); with float64 and int64 values every type
        computes the same numbers, to 2**53 and 2**63."""
        np_ = self.lib.alias
        stored = {n.id for n in gast.walk(self.info.node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        bases = {id(n.func) for n in gast.walk(loop) if isinstance(n, gast.Call)} | {
            id(n.value) for n in gast.walk(loop) if isinstance(n, gast.Attribute)}
        read = {n.id for n in gast.walk(loop) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                and id(n) not in bases}
        for name in sorted(read - stored):
            shape = self._shape_of(name)
            if shape is None or shape.rank == 0 or self.ctx.imports.resolve(templates.name(name)) is not None:
                continue  # (a number, `n` of `range(n)`, is no array of values)
            check = templates.expr(f"type(N) in (int, float) or {np_}.asarray(N).dtype in ({np_}.float64, {np_}.int64)",
                                   N=templates.name(name))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)

    def _inner_inits(self):
        ids = set()
        for level in self.info.walk():
            if level is self.info:
                continue
            for col in level.collectors.values():
                ids.add(id(col.init))
        return ids

    def _bind(self, name, val: Val, later):
        """Binds a name to a batched value: emitted (``name = V``) or, in a branch, a temporary."""
        if not val.stacked:
            raise Unsupported("internal: an unstacked value bound as stacked. This is a bug.")
        if self.in_branch:
            tmp = self.namer.new(f"{name}_if")
            self.out += templates.replace(f"{tmp} = V", V=val.node)
            self.env[name] = val.with_node(templates.name(tmp))
            return
        self.out += templates.replace(f"{name} = V", V=val.node)
        self.env[name] = val.with_node(templates.name(name))

    def _last_value(self, name, val: Val, copied: bool) -> None:
        """``name``, used after the loop (``lastprivate``), as the loop leaves it: the last of its
        batched values (the loop axis comes first, in the loop's order), where the loop runs (a
        trip check in front: with no iteration ``name`` keeps what it held), taken after the
        level (:meth:`_end_last_values`). A view of an array the loop writes is refused, so the
        batched code's later writes reach the last value as the loop's own writes reach it."""
        if not val.stacked and self.lib.kind == "np":
            self.needs_trip = True  # (the same on every iteration: bound once, as the loop would)
            return
        if not val.stacked or val.mixed:
            raise Unsupported(f"`{name}` is used after the loop, and its last value is not one per-iteration value")
        if copied:
            # (the loop's own value is a view of an array it writes after, which shows those writes)
            raise Unsupported(f"`{name}`, used after the loop, is a view of an array the loop writes")
        if val.python and self.lib.kind != "np":
            raise Unsupported(f"`{name}`, used after the loop, is a Python number")
        numpy_zero_d = self.lib.kind == "np" and (val.rank is None or val.rank == 0 and not (val.python or val.scalar))
        if numpy_zero_d or val.witness is not None:
            # (`m[i][..., -1]` is a 0-d array, `V[-1]` a NumPy scalar; `i + c` a Python number
            # or a NumPy scalar, by what `c` is)
            raise Unsupported(f"`{name}`, used after the loop, may be a 0-d array or a number of a kind the "
                              "batched values do not keep")
        if self.lib.kind == "np":
            self.needs_trip = True
        self.last_values[name] = val.python

    def _conditional_last(self, name: str, stmt) -> None:
        """``if a[i] < 0: j = i`` with ``j`` read only after the loop (a conditional
        ``lastprivate``, TSVC s331): ``j`` ends as the value of the last iteration whose tests
        held, or as it was where none did. NumPy, one loop level, one number per iteration:
        ``hits = np.flatnonzero(mask)``, then ``j = values[hits[-1]]`` where there is a hit (a
        Python number taken out as one, ``.item()``), under the trip check in front.

        Raises:
            Unsupported: TensorFlow code, an inner loop, or a value that is not one number.
        """
        if self.lib.kind != "np" or self.to_tf or len(self.levels) != 1 or self.mask is None:
            raise Unsupported(f"`{name}`, bound under a test and used after the loop (NumPy code, one loop only)")
        value = self.ev(stmt.value)
        if value.rank != 0 or value.mixed or value.witness is not None:
            raise Unsupported(f"`{name}`, bound under a test and used after the loop, is not one number of one kind")
        # the test and the values as they are here, before the body's later statements write the
        # arrays they read (`if a[i] > 0: j = a[i]`, then `a[i] = -1.0`; helper-48): bound now,
        # copies where they may be views of an array the loop writes
        mask = self._unshared(lift(self.lib, self.mask, 1))
        held = self.namer.new(f"{name}_mask")
        self.out += templates.replace(f"{held} = M", M=mask.node)
        mask = mask.with_node(templates.name(held))
        if value.stacked:
            value = self._unshared(lift(self.lib, value, 1))
            values = self.namer.new(f"{name}_values")
            self.out += templates.replace(f"{values} = V", V=value.node)
            value = value.with_node(templates.name(values))
        self.conditional_lasts[name] = (mask, value)

    def _end_conditional_lasts(self) -> None:
        """The names of :meth:`_conditional_last`, bound at the batched code's end."""
        np_ = self.lib.alias
        for name, (mask, value) in self.conditional_lasts.items():
            hits = self.namer.new(f"{name}_hits")
            self.last_statements += templates.replace(f"{hits} = {np_}.flatnonzero(M)", M=mask.node)
            taken = templates.expr(f"V[{hits}[-1]]" + (".item()" if value.python else ""), V=value.node) \
                if value.stacked else copy.deepcopy(value.node)
            self.last_statements.append(gast.If(test=templates.expr(f"len({hits}) > 0"),
                                                body=templates.replace(f"{name} = V", V=taken), orelse=[]))
        if self.conditional_lasts:
            self.needs_trip = True

    def _end_last_values(self) -> None:
        """The names used after the loop take their last iteration's value (:meth:`_last_value`),
        a Python number as one (``.item()``), and the loop's variables theirs
        (:meth:`LevelsMixin._last_targets`): in NumPy code under the trip check in front, in
        TensorFlow code under a test that the loop runs, so that with no iteration each name
        keeps what it held. The statements go last in the batched code
        (:attr:`last_statements`): a collector's batched value, bound after the level, reads
        the batched values these names are bound to before (``out = t + 1.0``, then ``t =
        t[-1]``)."""
        self._end_conditional_lasts()
        lasts = [templates.replace(f"{name} = V", V=node) for name, node in self.last_targets.items()]
        for name, python in self.last_values.items():
            # (the last of values in reverse order, `v[::-1][-1]`, is the first of `v`)
            values = self.env[name].node
            at, values = ("0", reversed_operand(values)) if reversed_operand(values) is not None else ("-1", values)
            lasts.append(templates.replace(f"{name} = V[{at}]{'.item()' if python else ''}", V=values))
        if not lasts:
            return
        if self.lib.kind == "np":
            self.needs_trip = True
            self.last_statements += [stmt for last in lasts for stmt in last]
            return
        from pforge.transpile.versioning import RUNS, _combinations_of, _runs_at_all  # noqa: PLC0415 - (no cycle at import)
        runs = _runs_at_all(self.info)
        space = self.info.space
        if space.kind in ("rows", "enumerate") and _combinations_of(space.items[0][1]) is None:
            # (`len()` of a tensor raises in a `tf.function`: the rows of one are counted by its
            # static shape, which a list has not)
            seq = space.items[0][1]
            tensor = self._unstacked(seq)  # (`tf.unstack([a, b])` takes a list too)
            if not _evidently_array(self.ctx, self.info.function, tensor, at=self.info.node):
                raise Unsupported(f"`{min(self.last_targets.keys() | self.last_values.keys())}` is used after "
                                  f"the loop, and whether the loop runs is known of a tensor only "
                                  f"(`x.shape[0] > 0`), which `{gast.unparse(seq).strip()}` may not be")
            runs = templates.expr("S.shape[0] > 0", S=copy.deepcopy(tensor))
        if runs is None:
            raise Unsupported(f"`{min(self.last_targets.keys() | self.last_values.keys())}` is used after the "
                              "loop, which may run no iteration")
        for last in lasts:
            self.last_statements += last if runs is RUNS else [gast.If(test=runs, body=last, orelse=[])]

    def _unshared(self, val: Val) -> Val:
        """``val`` as the loop's value is, where it may share memory with an array the loop
        writes: a copy (``np.copy(x[:n])``) where the loop's value is one number, which it read
        before the write (``t = a[i]; a[i] = b[i]; b[i] = t``); the batched view itself where
        the loop's is a row, a view that sees the writes after it (``t = A[i]; A[i] *= 2;
        B[i] = t`` stores the doubled row; helper-54).

        Raises:
            Unsupported: a row whose batched value may not be a view of the same memory
                (``A[idx[i]]`` becomes ``A[idx]``, a copy), or a value of a rank not known.
        """
        if not val.stacked or not self._np or not may_be_view(val.node):
            return val
        written = {name for level in self.info.walk() for name in level.arrays}
        written |= {alias for name in written for alias in self.info.aliases.get(name, ())}
        if not _loads(val.node) & written:
            return val
        if val.rank == 0:
            return val.with_node(self.lib.call("copy", val.node))
        if val.rank is None:  # (a number, which needs a copy, or a row, which must not be one)
            raise Unsupported(f"`{gast.unparse(val.node).strip()}` reads an array the loop writes, and its rank is "
                              "not known")
        if not _basic_view(val.node):
            raise Unsupported(f"`{gast.unparse(val.node).strip()}` holds rows of an array the loop writes, which "
                              "in the loop are views that see its later writes")
        return val

    def _assign(self, stmt, later):
        if len(stmt.targets) != 1:
            raise Unsupported(f"line {stmt.lineno}: chained assignment")
        target = stmt.targets[0]
        if isinstance(target, gast.Name):
            name = target.id
            if name in self.info.tensorarrays or any(name in lv.info.tensorarrays for lv in self.levels):
                return self._ta_write(name, stmt)
            red = self._reduction_of(name, stmt)
            if red is not None:
                return self._reduce(red, stmt)
            if any(lv.info.live_conditional.get(name) is stmt for lv in self.levels):
                return self._conditional_last(name, stmt)
            self.element_masks.pop(name, None)  # a new binding: no longer the mask it was
            self.boolean_vectors.pop(name, None)
            self.deferred.pop(name, None)
            last = name in self.info.live_last and len(self.levels) == 1
            if self._selection(name, stmt.value) or self._element_mask(name, stmt.value):
                if last:
                    raise Unsupported(f"`{name}`, used after the loop, is a selection of elements")
                return
            try:
                raw = self.ev(stmt.value)
            except Unsupported as why:
                if not self._deferrable(name, stmt, last):
                    raise
                self.deferred[name] = why
                self.env.pop(name, None)
                return
            val = self._unshared(raw)
            if last:
                self._last_value(name, val, copied=val is not raw)
                if self.lib.kind == "tf" and val.stacked:
                    # (TensorFlow rewrites replace the stacked list after the loop, so no check
                    # in front: the values under a name of their own, the last taken where the
                    # loop runs, and `name` left as it was where it does not)
                    values = self.namer.new(f"{name}_values")
                    self.out += templates.replace(f"{values} = V", V=val.node)
                    self.env[name] = val.with_node(templates.name(values))
                    return
            if val.stacked and isinstance(val.node, gast.Subscript) and isinstance(val.node.value, gast.Name):
                self.row_selections[name] = val  # `y_i = y[i]`: rows of `y` (a tape's Jacobian rows)
            else:
                self.row_selections.pop(name, None)
            if val.rank == 1 and self.lib.kind == "np" and _is_boolean(stmt.value, self.ctx):
                self.boolean_vectors[name] = stmt.value  # may index a masked write
            if val.stacked and isinstance(val.node, gast.Name) and val.node.id not in later \
                    and not self.in_branch:
                self.env[name] = val  # `r = x[i]` is `x` itself: no new name
                return
            if val.stacked:
                return self._bind(name, val, later)
            if self.in_branch:
                if _loads(stmt.value) & later or not isinstance(target, gast.Name):
                    raise Unsupported(f"line {stmt.lineno}: an invariant assignment under a per-iteration `if`")
                self.env[name] = Val(copy.deepcopy(stmt.value), (), val.rank, val.python)  # merged by the `if`
                return
            if self._names_the_loop(stmt.value):
                # `a = np.ones(len(x[i]))`: the same on every iteration, but spelled with the
                # loop's names, which the batched code does not bind as the loop did
                if self._names_the_loop(val.node):
                    raise Unsupported(f"line {stmt.lineno}: `{gast.unparse(stmt.value).strip()}`, the same on "
                                      "every iteration, is computed from per-iteration values")
                self.out += templates.replace(f"{name} = V", V=val.node)
                self.needs_trip = True  # the loop computes it only where it runs
            else:
                self.out.append(copy.deepcopy(stmt))  # invariant: computed once, as written
                if any(name in level.info.live_invariants for level in self.levels):
                    self.needs_trip = True  # read after the loop: bound only where the loop runs
            self.env[name] = Val(templates.name(name), (), val.rank, val.python, mixed=val.mixed, pytype=val.pytype)
            return
        if isinstance(target, gast.Tuple) and isinstance(stmt.value, gast.Tuple) \
                and len(target.elts) == len(stmt.value.elts) and all(isinstance(e, gast.Name) for e in target.elts):
            vals = [self.ev(v) for v in stmt.value.elts]
            for elt, val in zip(target.elts, vals):
                if not val.stacked:
                    raise Unsupported(f"line {stmt.lineno}: tuple assignment of an invariant")
                self._bind(elt.id, val, later)
            return
        if isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts):
            items = self._tuple_items(stmt.value)  # `sign, logdet = np.linalg.slogdet(c)`
            if items is not None and len(items) == len(target.elts):
                for elt, val in zip(target.elts, items):
                    self._bind(elt.id, val, later)
                return
        if isinstance(target, gast.Subscript):
            update = spelled_out_update(stmt)  # `h[k] = h[k] + v` is `h[k] += v`
            if update is not None:
                return self._write(target, update[1], update[0], stmt)
            return self._write(target, stmt.value, None, stmt)
        raise Unsupported(f"line {stmt.lineno}: assignment to `{gast.unparse(target).strip()}`")

    def _deferrable(self, name: str, stmt, last: bool) -> bool:
        """Whether a TensorFlow private whose value cannot be batched may wait for its reads:
        ``u = x[t] * 2.0`` with ``x`` of a rank not known, which a linear scan's step reads
        through forward substitution (:meth:`_tf_linear_inline`); any other read of ``u``
        raises why it could not be batched. Only a binding of the body itself (not in a branch
        or an inner loop), of a name private to the loop and not read after it, that a scan's
        update reads (itself or through other such names), and that draws no random
        numbers (the loop draws them on every iteration, read or not)."""
        if not (self.lib.kind == "tf" and len(self.levels) == 1 and not self.in_branch and not last
                and stmt in self.info.body and self.info.classes.get(name) == PRIVATE
                and not any(isinstance(n, gast.Call) and n in self.info.random_draws for n in gast.walk(stmt.value))):
            return False
        reaching = {n for scan in self.info.scans.values() for n in _loads(scan.update.value)}
        grown = True
        while grown:
            grown = False
            for st in self.info.body:
                if isinstance(st, gast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], gast.Name) \
                        and st.targets[0].id in reaching and not _loads(st.value) <= reaching:
                    reaching |= _loads(st.value)
                    grown = True
        return name in reaching

    def _names_the_loop(self, node) -> bool:
        """Whether ``node`` reads a loop index or a per-iteration name."""
        return any(isinstance(n, gast.Name) and (isinstance(self.env.get(n.id), Ind) or self._is_stacked_name(n.id))
                   for n in gast.walk(node))

    def _aug_assign(self, stmt, later):
        target = stmt.target
        if isinstance(target, gast.Name):
            red = self._reduction_of(target.id, stmt)
            if red is not None:
                return self._reduce(red, stmt)
            if self.lib.kind == "np":
                raise Unsupported(f"line {stmt.lineno}: in-place update of `{target.id}` (it may alias an array)")
            value = gast.BinOp(left=templates.name(target.id), op=stmt.op, right=stmt.value)
            return self._bind(target.id, self.ev(value), later)
        if isinstance(target, gast.Subscript):
            return self._write(target, stmt.value, stmt.op, stmt)
        raise Unsupported(f"line {stmt.lineno}: augmented assignment to `{gast.unparse(target).strip()}`")


def _basic_view(node) -> bool:
    """A batched value that is a view of an array whatever its inputs are: a name under basic
    subscripts (slices, integer constants, ``...``, ``None``) and ``.T``."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        if isinstance(node, gast.Attribute):
            if node.attr != "T":
                return False
        else:
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            if not all(isinstance(p, gast.Slice) or isinstance(p, gast.Constant) and (
                    p.value is None or p.value is Ellipsis or type(p.value) is int) for p in parts):
                return False
        node = node.value
    return isinstance(node, gast.Name)
