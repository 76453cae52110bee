"""Subscripted writes of NumPy code: ``out[i] = v`` into an array outside the loop (sliced,
scattered with ``ufunc.at``, or with the loop axis moved), and writes into per-iteration arrays."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import ranks, templates
from pforge.transpile.backends.common import _evidently_array
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import Unsupported, Val, align, const, lift
from pforge.transpile.backends.direct.shared import _REDUCE_FN, Ind, _components, _is_boolean, _loads
from pforge.transpile.backends.direct.indexing import _is_ellipsis, _is_newaxis
from pforge.transpile.operators import AUG_OPS, OPERATORS

_OP_SYMBOL = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.BitOr: "|", gast.BitAnd: "&"}


def _in_place(target, op, value, views=False) -> list:
    """``out[...] = v`` (never ``out = v``: the array may be the caller's, and assignment casts
    to its dtype as the loop's element writes do); ``out[s] = out[s] + v`` for ``+=`` of single
    elements, which truncates into an integer array as the loop's ``out[i] += v`` does. With
    ``views`` (the loop's ``out[i]`` is a row, updated in place by a ufunc, which refuses to cast
    a float into an integer array), ``out[s] += v``, which refuses it too."""
    if isinstance(target, gast.Name):
        target = gast.Subscript(value=target, slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
    if op is None:
        return templates.replace("T = V", T=target, V=value)
    if views:
        return templates.replace(f"T {_OP_SYMBOL[type(op)]}= V", T=target, V=value)
    read = copy.deepcopy(target)
    read.ctx = gast.Load()
    return templates.replace(f"T = R {_OP_SYMBOL[type(op)]} V", T=target, R=read, V=value)


def _slices_as_calls(index):
    """``(idx, :)`` is no expression: ``np.add.at`` takes ``(idx, slice(None))``."""
    def convert(part):
        if isinstance(part, gast.Slice):
            return gast.Call(func=gast.Name(id="slice", ctx=gast.Load(), annotation=None, type_comment=None),
                             args=[p if p is not None else gast.Constant(value=None, kind=None)
                                   for p in (part.lower, part.upper, part.step)], keywords=[])
        return part
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[convert(e) for e in index.elts], ctx=gast.Load())
    return convert(index)


class WritesMixin:
    """Item assignments into arrays."""

    # -- subscripted writes (NumPy) -----------------------------------------------------------------

    # -- writes at the positions a per-iteration mask selects (NumPy) ------------------------------

    def _element_mask(self, name, value) -> bool:
        """``sel = np.where(cond)`` with ``cond`` a boolean vector: the positions a
        later write ``out[i, sel] = f(x[sel])`` takes (pyroomacoustics' mel filter bank). Kept as
        the mask; ``sel`` may only be that write's index and its reads' (:meth:`_masked_write`)."""
        if self.lib.kind != "np" or self.to_tf or self.in_branch:
            return False
        if not (isinstance(value, gast.Call) and self.ctx.imports.resolve(value.func) == "numpy.where"
                and len(value.args) == 1 and not value.keywords and _is_boolean(value.args[0], self.ctx)):
            return False
        mask = self.ev(value.args[0])
        if mask.rank != 1:  # per iteration, or the same on every one
            return False
        self.element_masks[name] = (mask, value.args[0], self._compared_vectors(value.args[0]))
        return True

    def _compared_vectors(self, cond) -> set[str]:
        """The invariant vectors ``cond`` compares elementwise (``k`` in ``c[m] < k``): they have
        the mask's length. Checked to be arrays where the code does not show it (a list would
        compare as one value)."""
        inside = {id(n) for sub in gast.walk(cond) if isinstance(sub, gast.Subscript) for n in gast.walk(sub)}
        arrays = {n.id for n in gast.walk(cond) if isinstance(n, gast.Name) and id(n) not in inside
                  and not self._is_stacked_name(n.id) and n.id not in self.loop_stores
                  and (self._shape_of(n.id) or ranks.Shape(-1)).rank == 1}
        self._require_arrays(arrays)
        return arrays

    def _masked_write(self, target, value_node, op, stmt):
        """``out[i, sel] = f(x[sel])`` with ``sel`` a per-iteration mask: ``f`` is elementwise in
        the selected elements, so it is computed on all of ``x`` and written where the mask
        holds (``np.where``), the other elements keeping their values. ``x`` must be an array the
        mask's condition compares elementwise (so it has the mask's length), and the written
        axis that length (a run-time check). True when done, None when the write is not one."""
        comps = _components(target.slice)
        masked = [k for k, c in enumerate(comps) if isinstance(c, gast.Name) and (
            c.id in self.element_masks or c.id in self.boolean_vectors)]
        if not masked:
            return None
        if len(comps) == 1 and isinstance(target.value, gast.Name) and target.value.id in self.loop_stores \
                and isinstance(self.env.get(target.value.id), Val):
            return None  # `p[neg] = -1` into an array of this iteration: :meth:`_private_masked_write`
        if len(masked) != 1 or op is not None or not isinstance(target.value, gast.Name) \
                or target.value.id in self.loop_stores:
            raise Unsupported(f"line {stmt.lineno}: a write at masked positions other than one plain "
                              "assignment into an array")
        position, sel = masked[0], comps[masked[0]].id
        if sel in self.element_masks:
            mask, _, arrays = self.element_masks[sel]
        else:  # `below = grid < c` bound per iteration: its batched value is the mask
            mask, arrays = self.ev(templates.name(sel)), self._compared_vectors(self.boolean_vectors[sel])

        class _AllOf(gast.NodeTransformer):
            """`x[sel]` -> `x`: the value over every position, written only where `sel` is."""

            def visit_Subscript(self, node):
                if isinstance(node.slice, gast.Name) and node.slice.id == sel and \
                        isinstance(node.value, gast.Name) and node.value.id in arrays:
                    return copy.deepcopy(node.value)
                return self.generic_visit(node)

        class _OneOf(gast.NodeTransformer):
            """`x[sel]` -> `x[0]`: what the value is for one selected position."""

            def visit_Subscript(self, node):
                if isinstance(node.slice, gast.Name) and node.slice.id == sel:
                    return gast.Subscript(value=copy.deepcopy(node.value), slice=const(0), ctx=gast.Load())
                return self.generic_visit(node)

        whole_value = _AllOf().visit(copy.deepcopy(value_node))
        if any(isinstance(n, gast.Name) and n.id == sel for n in gast.walk(whole_value)):
            raise Unsupported(f"line {stmt.lineno}: `{sel}` indexes an array its condition does not "
                              "compare, in the value written at it")
        # Position by position only when every vector in the value is a masked read: a vector
        # of its own (`bank[m, sel] = w[m]`) fills the selected positions in order instead.
        raising = self.scalar_raising  # (a probe: the loop computes on the selected vectors)
        one = self.ev(_OneOf().visit(copy.deepcopy(value_node)))
        self.scalar_raising = raising
        if one.rank != 0:
            raise Unsupported(f"line {stmt.lineno}: a value written at masked positions that is not "
                              "one number per position")
        value = self.ev(whole_value)
        if value.rank is not None and value.rank > 1:
            raise Unsupported(f"line {stmt.lineno}: a write at masked positions of a value of rank > 1")
        parts = [gast.Slice(lower=None, upper=None, step=None) if k == position else copy.deepcopy(c)
                 for k, c in enumerate(comps)]
        whole = gast.Subscript(value=copy.deepcopy(target.value), slice=gast.Tuple(elts=parts, ctx=gast.Load())
                               if len(parts) > 1 else parts[0], ctx=gast.Store())
        length = arrays and sorted(arrays)[0]
        if not length:
            raise Unsupported(f"line {stmt.lineno}: masked positions of no array of the mask's length")
        self.checks.append(templates.expr(f"{self.lib.alias}.shape(A)[{position}] == {self.lib.alias}.shape(X)[0]",
                                          A=target.value, X=templates.name(length)))
        saved_mask = self.mask
        if saved_mask is None:
            self.mask = mask
        else:
            (a, b), full, rank = align(self.lib, [saved_mask, mask], "a masked write")
            self.mask = Val(self.lib.call("logical_and", a.node, b.node), full, rank)
        try:
            self._write(whole, whole_value, None, stmt, value=value)
        finally:
            self.mask = saved_mask
        return True

    def _write(self, target, value_node, op, stmt, value=None):
        if self.lib.kind != "np" or self.to_tf:
            raise Unsupported("item assignment into a TensorFlow tensor")
        if value is None and (self.element_masks or self.boolean_vectors):
            if self._masked_write(target, value_node, op, stmt):
                return None
        target = self._merged_chain(target)  # `out[i][j] = v` into an array is `out[i, j] = v`
        base = target.value
        if not isinstance(base, gast.Name):
            raise Unsupported(f"line {stmt.lineno}: a write into `{gast.unparse(base).strip()}`")
        name = base.id
        if value is None and isinstance(value_node, (gast.List, gast.Tuple)):
            value = self._listed_row(name, value_node, stmt)
        value = self.ev(value_node) if value is None else value
        current = self.env.get(name)
        depth = len(self.levels)
        if name in self.loop_stores and isinstance(current, Val) and self._boolean_mask(target.slice):
            return self._private_masked_write(name, current, target.slice, value, op, stmt)
        if isinstance(current, Val) and current.stacked:
            return self._private_write(name, current, target, value, op, stmt)
        comps = _components(target.slice)
        self._integer_fixed(comps)
        if self._np and self._fixed_index(comps):
            # `m[i, 0] = v`: the column raises where that axis is empty (`np.zeros((n, n))` of
            # n = 0), and the loop writes it only when the levels around the write run; so the
            # batched code runs only then
            self.trip_levels = max(self.trip_levels, len(self.levels))
        shape = self._shape_of(name)
        declared = self._declared(name)
        if not declared and (name not in self.locals or name in self.inferred_locals) \
                and not _evidently_array(self.ctx, self.info.function, base, at=self.info.node):
            # A Python list has no `x[...] = batch`: only an array the code shows, or declares.
            raise Unsupported(f"line {stmt.lineno}: a write into `{name}`, which may be a Python list")
        if self._bound_to_list(name):
            raise Unsupported(f"line {stmt.lineno}: a write into `{name}`, a Python list")
        saved = (list(self.out), list(self.checks), list(self.labels), [(lv.bound, lv.out_start) for lv in self.levels])
        try:
            index = self._index(templates.name(name), comps, shape, store=True)
        except Unsupported:
            # `G[:, t] -= X[i]` of a per-iteration `t`: through a view with that axis first
            if not comps or not _full_slice(comps[0]):
                raise
            self.out[:], self.checks[:], self.labels[:] = saved[:3]
            for level, (bound, start) in zip(self.levels, saved[3]):
                level.bound, level.out_start = bound, start
            moved = self._through_moved_view(name, comps, shape, stmt)
            if moved is None:
                raise
            return self._write(moved, value_node, op, stmt, value=value)
        if index is None:
            raise Unsupported(f"line {stmt.lineno}: a write whose index does not depend on the loop")
        node, idx_full, elem_rank, kind = index
        fancy = kind is True
        full = tuple(idx_full) + (False,) * (depth - len(idx_full))
        if type(kind) is int:
            if len(self.levels) != 1 or self.mask is not None and op is not None:
                moved = self._through_moved_view(name, comps, shape, stmt)
                if moved is not None:  # `G[:, t] += X[i]` in a nest: `np.moveaxis(G, 1, 0)[t] += X[i]`
                    return self._write(moved, value_node, op, stmt, value=value)
            return self._moved_write(node, kind, elem_rank, value, op, stmt)
        value = lift(self.lib, value, depth) if value.stacked else value
        red = AUG_OPS.get(type(op)) if op else None  # `-=` adds the negated value
        selected = None  # (mask, value) of a scattered update under a test
        masked = None  # (mask, value) of an update under a test, before the `where`
        if op is not None and red is None:
            raise Unsupported(f"line {stmt.lineno}: augmented `{type(op).__name__}` write")
        # `t1[j] = 1` under a test of row i: every write stores one constant (the analysis'
        # `idempotent`), so an element is written where any iteration along the loop axes its
        # index does not depend on would write it
        same = [k for k in range(depth) if not full[k] and op is None and not value.stacked
                and name in self.levels[k].info.idempotent]
        if same and self.mask is None:
            self.needs_trip = True  # the element is written only where the loop runs
        scattered = op is None and fancy and any(name in level.info.idempotent for level in self.levels)
        if scattered:
            self._integer_indices(comps, stmt)
        if scattered and self.mask is not None and any(self._data_index(c) for c in comps):
            # `seen[idx[i]] = True` under a test: a batched `where` would also write the old
            # value at the unselected iterations, and a collision could let it win
            raise Unsupported(f"line {stmt.lineno}: one constant scattered under a per-iteration test, where a "
                              "collision could keep the old value")
        if self.mask is not None:
            mask = self.mask
            if same:
                for axis, c in enumerate(comps):  # the batched code reads every element the
                    ind = self.env.get(getattr(c, "id", None))  # loop may write: inside the array
                    if isinstance(ind, Ind):
                        if not self._safe(ind) or ind.stop is None or any(
                                isinstance(n, gast.Name) and (n.id in self.loop_stores or self._is_stacked_name(n.id))
                                for n in gast.walk(ind.stop)):
                            raise Unsupported(f"line {stmt.lineno}: one constant written under a test, at "
                                              "a loop index that may run past the array")
                        self.checks.append(templates.expr(f"S <= {self.lib.alias}.shape(A)[{axis}]",
                                                          S=copy.deepcopy(ind.stop), A=templates.name(name)))
                lifted = lift(self.lib, mask, depth)
                axes = const(same[0]) if len(same) == 1 else gast.Tuple(elts=[const(k) for k in same], ctx=gast.Load())
                reduced = self.lib.call("any", lifted.node, axis=axes, keepdims=const(True))
                mask = Val(reduced, tuple(f and k not in same for k, f in enumerate(lifted.full)), lifted.rank)
            if op is None and fancy and elem_rank == 0 and not same and not any(isinstance(c, gast.Slice) for c in comps):
                # only the iterations where the test holds write, at indices the others may not
                # have in the array (`if d[i] % 2 == 0: b[i + 2] = ...` over `range(n - 2, 1, -1)`):
                # the positions and values where it holds, scattered (a `where` with the old
                # elements would read and write every index)
                self._masked_scatter(name, node, lift(self.lib, mask, depth), self._as_element(value, name))
                return
            if op is None:
                old = Val(copy.deepcopy(node), full, elem_rank)
                (m, v, o), vfull, rank = align(self.lib, [mask, self._as_element(value, name), old],
                                               "a conditional write")
                triangle = self.levels[-1].triangle
                if triangle is not None and triangle[2] is mask and not fancy and elem_rank == 0 and all(full) \
                        and len(v.full) == depth and all(v.full) and self._zeros_where_written(name):
                    # every cell outside the triangle keeps its 0: `np.tril` is `where` with zeros
                    # (and the store casts the value as the loop's stores do)
                    (_, v, _), vfull, rank = align(self.lib, [mask, value, old], "a conditional write")
                    diagonal = [const(triangle[1])] if triangle[1] else []
                    value = Val(self.lib.call(triangle[0], v.node, *diagonal), vfull, rank)
                else:
                    value = Val(self.lib.call("where", m.node, v.node, o.node), vfull, rank)
            elif all(full) and not fancy and value_node is not None:
                # each iteration updates its own element: `np.where(m, out op v, out)`, the
                # update computed as the loop computes it (`out + np.where(m, 7, 0)` would add an
                # int64 array to a uint64 `out`, in float64; `-0.0 + 0` loses the sign)
                load = gast.Subscript(value=copy.deepcopy(target.value), slice=copy.deepcopy(target.slice),
                                      ctx=gast.Load())
                new = self.ev(gast.BinOp(left=load, op=copy.deepcopy(op), right=value_node))
                old = Val(copy.deepcopy(node), full, elem_rank)
                (m, v, o), vfull, rank = align(self.lib, [mask, self._as_element(new, name), old],
                                               "a conditional update")
                value = Val(self.lib.call("where", m.node, v.node, o.node), vfull, rank)
                op = red = None
            else:
                if OPERATORS[red].identity is None:
                    raise Unsupported("a conditional augmented write")
                masked = (mask, value)  # (the test and the terms, for a masked contraction)
                (m, v, z), vfull, rank = align(self.lib, [mask, value, Val(templates.expr(OPERATORS[red].identity_text), (), 0, True)],
                                               "a conditional write")
                if fancy and elem_rank == 0 and not any(isinstance(c, gast.Slice) for c in comps):
                    selected = (lift(self.lib, m, depth), value)  # a scatter takes the updates where the test holds
                merged = self.lib.call("where", m.node, v.node, z.node)
                if value.python:
                    # the loop updates by a weak Python number, in the element's dtype (`+= 7`
                    # of uint64 stays uint64); the `where` of two numbers is an int64 array
                    if value.pytype not in ("int", "float", "bool"):
                        raise Unsupported(f"line {stmt.lineno}: a conditional update by a Python number "
                                          "of unknown type")
                    zero = {"int": "0", "float": "0.0", "bool": "False"}[value.pytype]
                    merged = templates.expr(f"M.astype({self.lib.alias}.result_type(A, {zero}))",
                                            M=merged, A=templates.name(name))
                value = Val(merged, vfull, rank)
        if op is None and self.mask is None and getattr(value.node, "pforge_merge", False):
            value = value.with_node(self._cast_arms(value.node, name))
        if value.stacked:
            if value.rank is None or elem_rank is None:
                # (a number per iteration too: into rows, the batched numbers need an axis per
                # axis of a row, or they line up with the rows' last axis, not with the rows)
                raise Unsupported(f"line {stmt.lineno}: the rank of the written element is unknown")
            value = lift(self.lib, value, depth)
            if elem_rank is not None and value.rank > elem_rank:
                # `out[i] = v` with `v` of shape (1, d) into a row of d: NumPy drops the leading
                # 1 element by element; batched, the extra axis would not line up
                raise Unsupported(f"line {stmt.lineno}: a value of higher rank than the element it is written to")
            if elem_rank is not None and value.rank < elem_rank:
                value = Val(core.insert_axes(self.lib, value, depth, elem_rank - value.rank), value.full, elem_rank)
            missing = [k for k in range(depth) if value.full[k] and not full[k]]
            if missing and op is None:
                raise Unsupported(f"line {stmt.lineno}: several iterations write the same element")
            if op is not None and any(not full[k] and not value.full[k] for k in range(depth)):
                raise Unsupported(f"line {stmt.lineno}: an update repeated along a loop it does not "
                                  "depend on")
            if missing:
                if red not in ("add", "mul"):
                    raise Unsupported(f"line {stmt.lineno}: a bitwise update combined across iterations")
                fn = _REDUCE_FN["np"][red]
                # A scatter's index arrays broadcast over the loop axes up to the last one they
                # vary along: the updates keep those axes (size 1 where summed) and lose the
                # later ones (`H[t[i]] -= X[i]` in a loop over `j`: `t` is `(n,)`, the updates
                # `(n, d)`, not `(n, 1, d)`)
                dropped = [a for a in missing if fancy and a >= len(idx_full)]
                kept = [a for a in missing if a not in dropped]
                reduced = value.node
                dtype = {}
                contraction = None
                if masked is not None and red == "add" and not fancy and not masked[1].python \
                        and not masked[1].mixed:
                    contraction = self._masked_contraction(*masked, value_node, missing, templates.name(name))
                if contraction is not None:
                    # summed in the dtype of `A + t`, as below, with no `where` of every axis
                    self._presum_check(name, value_node)
                    reduced = contraction
                    dropped = kept = []
                elif self.lib.kind == "np" and not self.to_tf and not value.python:
                    # summed as the loop adds each term into the element: in the dtype of
                    # `A + t` (int64 terms added first would wrap, float32 ones round)
                    self._presum_check(name, value_node)
                    reduced = self._hoist(reduced, f"{name}_terms")
                    dtype = {"dtype": templates.expr(f"{self.lib.alias}.result_type(A, T)", A=templates.name(name),
                                                     T=reduced)}
                for axes, keep in ((dropped, False), (kept, fancy)):
                    if axes:
                        axis = const(axes[0]) if len(axes) == 1 else gast.Tuple(elts=[const(a) for a in axes],
                                                                                ctx=gast.Load())
                        reduced = self.lib.call(fn, reduced, axis=axis, **({"keepdims": const(True)} if keep else {}),
                                                **dtype)
                value = Val(reduced, value.full, value.rank)
        if not value.stacked and op is not None and not all(full):
            raise Unsupported(f"line {stmt.lineno}: an update repeated along a loop it does not depend on")
        scatter = fancy and op is not None  # ufunc.at is += that also adds colliding indices
        if scatter:
            ufunc = OPERATORS[red].np_scatter
            idx = _slices_as_calls(node.slice)
            self._no_bool_indices(idx)
            if selected is not None and not any(value.full[k] and not full[k] for k in range(depth)):
                # under a test: only the iterations where it holds update (adding the identity
                # elsewhere turns -0.0 into 0.0, and rounds an int64 element through a float term)
                value = selected[1]
                picked, taken = self._taken_where(idx, selected[0].node, value.node)
                idx = templates.expr(f"({', '.join(picked)},)")
                value = value.with_node(templates.expr(taken))
            right = value.node
            if isinstance(op, gast.Sub):
                # `A[k] -= v` subtracts in the dtype of `A - v`; a negated uint8 `v` would wrap
                # first, a negated bool raise
                if ufunc != "add":
                    raise Unsupported(f"line {stmt.lineno}: a scattered `-=` of a {red} update")
                ufunc = "subtract"
            if value.python:
                # `np.add.at` takes a Python number as an int64 or float64 array, not weakly as
                # the loop's `out[k] += 1` does (uint64 `out` would add through float64)
                if value.pytype not in ("int", "float", "bool"):
                    raise Unsupported(f"line {stmt.lineno}: a scattered update by a Python number of unknown type")
                # (made in that dtype, not cast to it: an int the dtype cannot hold raises
                # OverflowError, as the loop's `out[k] + 300` of uint8 `out` does, not wraps)
                zero = {"int": "0", "float": "0.0", "bool": "False"}[value.pytype]
                right = templates.expr(f"{self.lib.alias}.asarray(V, {self.lib.alias}.result_type(A, {zero}))",
                                       V=right, A=templates.name(name))
            self.out += templates.replace(f"{self.lib.alias}.{ufunc}.at(A, I, V)", A=templates.name(name), I=idx, V=right)
            return
        self.out += _in_place(node, op, value.node, views=self.lib.kind == "np" and bool(elem_rank))
        if self.mask is None and op is None:
            self._exclusive_first(stmt)

    def _masked_scatter(self, name, node, mask, value) -> None:
        """``A[P0[sel], ...] = V[sel]`` of ``A[P0, ...]`` (``node``, an advanced index of the
        loop axes) written with ``value`` where ``mask`` holds, the indices, mask and values
        broadcast together first (``np.broadcast_arrays``)."""
        picked, taken = self._taken_where(_slices_as_calls(node.slice), mask.node, value.node)
        self.out += templates.replace(f"A[{', '.join(picked)}] = {taken}", A=templates.name(name))

    def _zeros_where_written(self, name: str) -> bool:
        """Every element of ``name`` is 0 wherever the loop writes it, until it does: ``name`` is
        bound to ``np.zeros(...)`` (``np.zeros_like``) in the block that holds the loop, no
        statement between them mentions it, and in the loop one statement stores into it and
        every other mention reads one element or slice (``name[...]``)."""
        value = self.aliases.get(name)
        if self.lib.kind != "np" or not isinstance(value, gast.Call) or \
                self.ctx.imports.resolve(value.func) not in ("numpy.zeros", "numpy.zeros_like"):
            return False
        loop = self.info.node
        parent = self.ctx.parents.get(id(loop))
        block = next((b for b in (getattr(parent, f, None) for f in ("body", "orelse", "finalbody"))
                      if isinstance(b, list) and any(s is loop for s in b)), None)
        if block is None:
            return False
        before = block[:next(k for k, s in enumerate(block) if s is loop)]
        for statement in reversed(before):
            if isinstance(statement, gast.Assign) and statement.value is value:
                break
            if any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(statement)):
                return False
        else:
            return False
        stores = 0
        for node in gast.walk(loop):
            if isinstance(node, gast.Name) and node.id == name:
                element = self.ctx.parents.get(id(node))
                if not (isinstance(element, gast.Subscript) and element.value is node) or \
                        isinstance(self.ctx.parents.get(id(element)), (gast.Subscript, gast.Attribute)):
                    return False
                stores += not isinstance(element.ctx, gast.Load)
        return stores == 1

    def _taken_where(self, idx, mask, value) -> tuple[list[str], str]:
        """The index arrays of ``idx`` and ``value``, taken where ``mask`` holds once the three
        are broadcast together (``sel, p, v = np.broadcast_arrays(m, i, v)``): ``p[sel]`` for each
        index, ``v[sel]``."""
        parts = list(idx.elts) if isinstance(idx, gast.Tuple) else [idx]
        names = [self.namer.new("sel") for _ in range(len(parts) + 2)]
        self.out += templates.replace(f"{', '.join(names)} = {self.lib.alias}.broadcast_arrays(M, "
                                      + ", ".join(f"P{k}" for k in range(len(parts))) + ", V)",
                                      M=mask, V=value, **{f"P{k}": p for k, p in enumerate(parts)})
        picked = [f"{n}[{names[0]}]" for n in names[1:]]
        return picked[:-1], picked[-1]

    def _no_bool_indices(self, idx) -> None:
        """``np.asarray(k).dtype != np.bool_`` for each array the scatter's indices ``idx``
        read: the loop's ``out[np.True_] += w`` adds ``w`` to every element (a bool scalar index
        is a new axis of length 1), where ``np.add.at`` takes bools as a mask; for an array
        whose elements are the indices, ``np.asarray(k).dtype.kind in 'iu'`` (no bools, and no
        object array either). Indices computed in the batched code from comparisons keep the
        loop."""
        if any(isinstance(n, (gast.Compare, gast.BoolOp)) for n in gast.walk(idx)):
            raise Unsupported("a scattered update at indices that are comparisons (bools index as a mask "
                              "batched, as a new axis in the loop)")
        bound = {n.id for st in self.out for n in gast.walk(st) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        # (nor the loop indices, ints the batched code binds, in front of a sequential inner
        # loop whose body this is: fuzz seed 8292928 read `i` in the checks, unbound there)
        bound |= {lv.ind.name for lv in self.levels if getattr(lv, "ind", None) is not None}
        np_ = self.lib.alias
        # an array whose elements are the indices themselves (`np.asarray(labels)`, `t[:n]`) is
        # one of ints: an object array of ints indexes one element at a time in the loop, and
        # not at all as `np.add.at`'s indices (IndexError); a float one raises in both
        direct = set()
        for part in (idx.elts if isinstance(idx, gast.Tuple) else [idx]):
            while isinstance(part, gast.Subscript) or isinstance(part, gast.Call) and len(part.args) == 1 \
                    and not part.keywords and self.ctx.imports.resolve(part.func) == "numpy.asarray":
                part = part.value if isinstance(part, gast.Subscript) else part.args[0]
            if isinstance(part, gast.Name):
                direct.add(part.id)
        for name in sorted(_loads(idx) - bound - {np_}):
            check = templates.expr(f"{np_}.asarray(N).dtype.kind in 'iu'" if name in direct else
                                   f"{np_}.asarray(N).dtype != {np_}.bool_", N=templates.name(name))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)

    def _presum_check(self, name: str, value_node) -> None:
        """The run-time check under which terms summed along loop axes before one update
        (``G[t[i]] += X[i, j]`` over ``j``) give what the loop's update of each term gives:
        the loop casts the element back to ``name``'s dtype after every term, so an int
        element beside float terms truncates each time (``0 + 0.5`` stays 0 three times, where
        the terms' sum 1.5 adds 1). It holds where ``name`` is floating (a sum in the wider
        dtype only rounds less), or where the value computes only ints from arrays read before
        the loop (`+ - * // %` of array elements and int literals) whose dtype with
        ``name``'s is ``name``'s (a sum that wraps, wraps as the loop's updates do)."""
        np_ = self.lib.alias
        base = next((original for (original, _), view in self.moved_views.items() if view == name), name)
        if self._made_float(base):
            return  # (`totals = np.zeros((k, n))` before the loop: float64)
        stored = {n.id for n in gast.walk(self.info.node) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Store)}
        arrays = _int_closed_arrays(value_node, stored) if value_node is not None else None
        text = f"{np_}.asarray(A).dtype.kind in 'fc'"
        if arrays:
            dtypes = ", ".join(f"{np_}.asarray({a}).dtype" for a in sorted(arrays))
            text += f" or {np_}.result_type({np_}.asarray(A).dtype, {dtypes}) == {np_}.asarray(A).dtype"
        check = templates.expr(text, A=templates.name(base))
        if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
            self.checks.append(check)

    def _listed_row(self, name: str, items, stmt) -> Val | None:
        """``out[i] = [a, b, c]`` of per-iteration values: their stack after the loop axes,
        each item cast to ``out``'s dtype on its own (``np.stack(..., dtype=out.dtype,
        casting='unsafe')``), as assigning the list converts item by item (an int64 item past
        2**53 beside a float one stays exact); None when no item varies per iteration."""
        vals = [self.ev(e) for e in items.elts]
        if not any(v.stacked for v in vals):
            return None
        item_ranks = {v.rank for v in vals}
        if None in item_ranks or len(item_ranks) != 1:
            # (a starred item's rank is unknown; items of two ranks make a ragged list, which raises)
            raise Unsupported(f"line {stmt.lineno}: a list of items of unknown or different per-iteration ranks")
        depth = max(v.depth for v in vals)
        lifted = [lift(self.lib, v, depth) for v in vals]
        spread = self.lib.call("broadcast_arrays", *[v.node for v in lifted])
        full = tuple(any(v.full[k] for v in lifted if v.stacked) for k in range(depth))
        node = self.lib.call("stack", spread, axis=const(depth),
                             dtype=templates.expr("A.dtype", A=templates.name(name)), casting=const("unsafe"))
        return Val(node, full, item_ranks.pop() + 1)

    def _cast_arms(self, node, name: str):
        """A stored ``np.where`` of values of two kinds (``x[i] if c else 0.0`` of an int64
        ``x``), each arm cast to ``name``'s dtype first, as the loop stores each iteration's own
        value: the ``where`` of an int64 and a float arm is float64, which rounds past 2**53."""
        if not getattr(node, "pforge_merge", False):
            return self._as_element(Val(node, (), None), name).node
        test, a, b = node.args
        return self.lib.call("where", test, self._cast_arms(a, name), self._cast_arms(b, name))

    def _as_element(self, value: Val, name: str | None) -> Val:
        """``np.asarray(v).astype(out.dtype)``: the value cast as the loop's element writes cast
        it, before ``np.where`` merges it with ``out``'s old elements, which would otherwise be
        promoted with it (an int64 ``out`` beside float values rounds every element through
        float64, a uint64 one beside int64 values too). Left as it is: a bool, or a Python int
        in ``[0, 127]``, which every dtype holds and NumPy's weak rule keeps in ``out``'s."""
        node = value.node
        if isinstance(node, gast.Constant) and (type(node.value) is bool or type(node.value) is int
                                                and 0 <= node.value <= 127) or name is None:
            return value
        cast = templates.expr(f"{self.lib.alias}.asarray(V).astype(A.dtype)", V=node, A=templates.name(name))
        return value.with_node(cast, python=False, pytype=None, mixed=False)

    def _through_moved_view(self, name, comps, shape, stmt):
        """``G[:, t]`` as ``G_moved[t]``, where ``G_moved = np.moveaxis(G, 1, 0)`` is a view of
        ``G`` with the indexed axis first: the same elements, in the same order, so a write
        through it is the write into ``G``, and the leading-axis writes (scatters, updates
        under a test, nests) apply to it. None unless every index before the first other one
        is a full slice ``:``."""
        position = next((k for k, c in enumerate(comps) if not _full_slice(c)), None)
        if not position or shape is None or shape.rank is None or len(comps) > shape.rank \
                or any(_is_ellipsis(c) or _is_newaxis(c, self.ctx) for c in comps):
            return None
        view = self.moved_views.get((name, position))
        if view is None:
            view = self.namer.new(f"{name}_moved")
            self.out += templates.replace(f"{view} = {self.lib.alias}.moveaxis({name}, {position}, 0)")
            self.params[view] = ranks.Shape(shape.rank)
            self.moved_views[(name, position)] = view
        rest = comps[position + 1:]
        parts = [comps[position]] + comps[:position] + rest if rest else [comps[position]]
        index = parts[0] if len(parts) == 1 else gast.Tuple(elts=[copy.deepcopy(c) for c in parts], ctx=gast.Load())
        return gast.copy_location(gast.Subscript(value=templates.name(view), slice=copy.deepcopy(index),
                                                 ctx=gast.Store()), stmt)

    def _moved_write(self, node, position, elem_rank, value, op, stmt):
        """``x[:, i] = v``: the value's loop axis goes where the loop index is in the target."""
        if len(self.levels) != 1 or (self.mask is not None and op is not None):
            raise Unsupported(f"line {stmt.lineno}: a write `x[:, i]` inside a nest or an update of it "
                              "under an `if`")
        if elem_rank is None or value.rank is None or value.rank > elem_rank:
            raise Unsupported(f"line {stmt.lineno}: the rank of the written element is unknown")
        if self.mask is not None:
            # Under a mask: the old elements, read with the loop axis first, where it is false.
            old = Val(self.lib.call("moveaxis", copy.deepcopy(node), position, 0), (True,), elem_rank)
            value = self._as_element(value, node.value.id if isinstance(node.value, gast.Name) else None)
            (m, v, o), full, rank = align(self.lib, [self.mask, value, old], "a conditional write")
            value = Val(self.lib.call("where", m.node, v.node, o.node), full, rank)
        if value.stacked:
            if value.rank < elem_rank:
                value = Val(core.insert_axes(self.lib, value, 1, elem_rank - value.rank), value.full, elem_rank)
            new = self.lib.call("moveaxis", value.node, 0, position)
        elif value.rank == elem_rank:
            if isinstance(value.node, gast.Name):
                self.sliced.add(value.node.id)  # (a list, of arrays too, has no `[:, np.newaxis]`)
            new = core.insert_axes(self.lib, value, position, 1)
        elif value.rank <= elem_rank - position:
            new = value.node  # broadcasts against the axes after the loop axis only
        else:
            raise Unsupported(f"line {stmt.lineno}: an element of lower rank written across the loop axis")
        if op is not None and type(op) not in _OP_SYMBOL:
            raise Unsupported(f"line {stmt.lineno}: augmented `{type(op).__name__}` write")
        self.out += _in_place(node, op, new, views=self.lib.kind == "np" and bool(elem_rank))

    def _bound_to_list(self, name) -> bool:
        """Whether the function binds ``name`` to a Python list (``seen = [0.0] * n``), which
        has no ``x[idx] = v`` of a batch."""
        fdef = self.info.function
        if fdef is None:
            return False
        for node in gast.walk(fdef):
            if isinstance(node, gast.Assign) and any(isinstance(t, gast.Name) and t.id == name for t in node.targets):
                value = node.value
                while isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Mult, gast.Add)):
                    value = value.left if isinstance(value.left, (gast.List, gast.ListComp, gast.BinOp)) else value.right
                if isinstance(value, (gast.List, gast.ListComp)) or isinstance(value, gast.Call) and \
                        self.ctx.imports.resolve(value.func) in ("builtins.list", "builtins.sorted"):
                    return True
        return False

    def _data_index(self, c) -> bool:
        """Whether the index component ``c`` is chosen by the data: no slice, no loop index,
        not the same on every iteration."""
        return not (isinstance(c, gast.Slice) or isinstance(self.env.get(getattr(c, "id", None)), Ind)
                    or not self.ev(c).stacked)

    def _integer_indices(self, comps, stmt, strict=True):
        """One constant scattered at data-chosen positions (``seen[idx[i]] = True``): each index
        is an element of an array the loop reads (``idx[i]``), checked at run time to hold
        integers; a bool array's elements would index as NumPy bools (``seen[np.True_]`` is
        every element) where the batch would be a mask."""
        for c in comps:
            if not self._data_index(c):
                continue
            if isinstance(c, gast.BinOp) and isinstance(c.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)):
                continue  # arithmetic never gives a bool
            base = c.value if isinstance(c, gast.Subscript) else None
            if isinstance(c, gast.Name):  # `for row, pos in enumerate(positions)`: rows of `positions`
                base = next((seq for level in self.levels if level.info.space is not None
                             for target, seq in level.info.space.items
                             if isinstance(target, gast.Name) and target.id == c.id), None)
            if not (isinstance(base, gast.Name) and base.id not in self.loop_stores and not self._is_stacked_name(base.id)):
                if not strict:
                    continue  # (a gather: the index is what the code computed, bool only by design)
                raise Unsupported(f"line {stmt.lineno}: an index per iteration that is not an element of an "
                                  "array the loop reads (it may be a bool, which NumPy takes as a mask)")
            self.checks.append(templates.expr(f"{self.lib.alias}.asarray(B).dtype.kind in 'iu'", B=base))

    def _boolean_mask(self, index) -> bool:
        """Whether ``index`` is a boolean array the code shows: a comparison, ``~``/``&``/``|``/``^``
        of ones, or a name bound to one in this iteration."""
        if isinstance(index, gast.Name):
            return index.id in self.boolean_vectors
        if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
            return self._boolean_mask(index.left) and self._boolean_mask(index.right)
        if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.Invert):
            return self._boolean_mask(index.operand)
        return _is_boolean(index, self.ctx) and not isinstance(index, (gast.BoolOp, gast.UnaryOp))

    def _private_masked_write(self, name, current, index, value, op, stmt):
        """``a[m] = v`` into an array ``a`` this iteration allocated (``a = np.fft.rfft(x)``), with
        ``m`` a per-iteration boolean array of ``a``'s rank, or of fewer axes (rows of ``a``:
        AdaBoost's ``p[neg] = -1`` into a column), and ``v`` a number per iteration.

        Batched, every iteration gets its own copy of ``a`` (``np.array`` of the stacked value,
        or of the invariant one broadcast along the loop axis), and the same boolean assignment
        runs on the stack: ``A[M] = v``, or ``A[M] = np.broadcast_to(V, M.shape)[M]`` for a
        per-iteration ``v``. Casting into ``a``'s dtype, and the ``IndexError`` of a mask of
        another shape, are NumPy's own, as in the loop.
        """
        where = f"line {stmt.lineno}: a masked write into the per-iteration array `{name}`"
        if self.in_branch or self.mask is not None or op is not None or len(self.levels) != 1:
            raise Unsupported(f"{where} under a per-iteration `if`, in a nest, or as an update")
        mask = self.ev(index)
        if not (mask.stacked and all(mask.full)) or mask.rank is None or current.rank is None \
                or mask.rank > current.rank or mask.rank < 1 or (current.stacked and not all(current.full)):
            raise Unsupported(f"{where}: the mask has more axes than the array, or it is the same on "
                              "every iteration")
        if value.rank != 0 or (value.stacked and not all(value.full)):
            # an array `fill` would be spread over every iteration's selection at once
            raise Unsupported(f"{where}: a value other than one number per iteration")
        if value.stacked and (value.python or value.witness is not None):
            # a Python number per iteration: NumPy raises for NaN into an int array or 300 into
            # uint8, where the batched values, an array, would be cast without a word
            raise Unsupported(f"{where}: a Python number per iteration, which the array's dtype "
                              "may refuse where an array of them would be cast")
        np_ = self.lib.alias
        selected = self.namer.new(f"{name}_mask")
        self.out += templates.replace(f"{selected} = M", M=mask.node)
        if current.stacked:
            stack = self.lib.call("array", current.node)
        else:
            shape = templates.expr(f"{np_}.shape({selected})[:1] + {np_}.shape(A)", A=current.node)
            stack = self.lib.call("array", self.lib.call("broadcast_to", current.node, shape))
        self.out += templates.replace(f"{name} = S", S=stack)
        if value.stacked:
            spread = self.lib.call("broadcast_to", core.insert_axes(self.lib, value, 1, mask.rank),
                                   templates.expr(f"{np_}.shape({selected})"))
            written = templates.expr(f"S[{selected}]", S=spread)
            if mask.rank < current.rank:  # one number per selected row: broadcast along the row
                axes = ", ".join([f"{np_}.newaxis"] * (current.rank - mask.rank))
                written = templates.expr(f"W[:, {axes}]", W=written)
        else:
            written = value.node
        self.out += templates.replace(f"{name}[{selected}] = V", V=written)
        self.env[name] = Val(templates.name(name), (True,), current.rank)

    def _private_write(self, name, current, target, value, op, stmt):
        if self.in_branch or self.mask is not None:
            raise Unsupported(f"line {stmt.lineno}: a write into `{name}` under a per-iteration `if`")
        if current.depth != 1 or not all(current.full) or op is not None:
            raise Unsupported(f"line {stmt.lineno}: a write into the per-iteration array `{name}`")
        comps = _components(target.slice)
        vals = [self.ev(c) if not isinstance(c, gast.Slice) else None for c in comps]
        if any(isinstance(self.env.get(getattr(c, "id", None)), Ind) for c in comps):
            raise Unsupported(f"line {stmt.lineno}: a loop index into the per-iteration array `{name}`")
        if any(v is not None and v.stacked and v.rank != 0 for v in vals):
            raise Unsupported(f"line {stmt.lineno}: an array index into `{name}`")
        if any(v is not None and v.stacked for v in vals):
            if len(comps) != 1:
                raise Unsupported(f"line {stmt.lineno}: a multi-axis per-iteration index into `{name}`")
            self._integer_indices(comps, stmt)  # `a[m[i]]` with a bool `m[i]` selects all of `a`
            rows = self.lib.call("arange", templates.expr(f"len({name})"))
            parts = [rows, vals[0].node]
            elem_rank = None if current.rank is None else current.rank - 1
        else:
            parts = [gast.Slice(lower=None, upper=None, step=None)] + [copy.deepcopy(c) for c in comps]
            simple = all(isinstance(c, gast.Slice) or (isinstance(c, gast.Constant) and type(c.value) is int)
                         or isinstance(c, gast.UnaryOp) for c in comps)
            elem_rank = None if current.rank is None or not simple else \
                current.rank - sum(1 for c in comps if not isinstance(c, gast.Slice))
        if value.stacked:
            if elem_rank is None or value.rank is None or value.rank > elem_rank:
                raise Unsupported(f"line {stmt.lineno}: the rank of the value written into `{name}`")
            if value.rank < elem_rank:  # the loop axis leads; the element's own axes follow
                value = Val(core.insert_axes(self.lib, value, 1, elem_rank - value.rank), value.full, elem_rank)
        self.out += templates.replace("T = V", T=core.subscript(templates.name(name), parts), V=value.node)


def _int_closed_arrays(node, stored: set[str]) -> set[str] | None:
    """The arrays whose elements ``node`` reads, where it computes ints from them alone (`+`,
    `-`, `*`, `//`, `%` of their elements and int literals; indices may be anything), or None
    (a call, a float literal, a true division, a name the loop binds)."""
    arrays: set[str] = set()

    def walk(n) -> bool:
        if isinstance(n, gast.Subscript):
            if not isinstance(n.value, gast.Name) or n.value.id in stored:
                return False
            arrays.add(n.value.id)
            return True
        if isinstance(n, gast.BinOp):
            return isinstance(n.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)) \
                and walk(n.left) and walk(n.right)
        if isinstance(n, gast.UnaryOp):
            return isinstance(n.op, (gast.USub, gast.UAdd)) and walk(n.operand)
        return isinstance(n, gast.Constant) and type(n.value) is int

    return arrays if walk(node) else None


def _full_slice(c) -> bool:
    return isinstance(c, gast.Slice) and c.lower is None and c.upper is None and c.step is None
