"""Subscripts in the loop body: loop indices as slices, per-iteration indices as advanced
indexing or ``gather``, and a loop index behind full slices as a moved axis."""

from __future__ import annotations

import copy
import dataclasses
from typing import NamedTuple

import gast

from pforge.transpile import ranks, templates
from pforge.transpile.analysis.nodes import quiet_between
from pforge.transpile.analysis.nodes import substituted as _substitute
from pforge.transpile.naming import global_names
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import Unsupported, Val, align, const, lift
from pforge.transpile.backends.direct.linalg import TUPLE_RESULTS
from pforge.transpile.backends.common import _evidently_array
from pforge.transpile.backends.direct.shared import Ind, Shifted, _components, _is_boolean
from pforge.transpile.backends.pfor import _nonnegative
from pforge.transpile.spaces import constant_int


class _Window(NamedTuple):
    """A sliding window ``x[lower:upper]``: its start batched, its invariant width, and the
    start as an affine form of the loop indices (``IndexingMixin._affine``)."""

    start: Val
    width: gast.expr
    lower: gast.expr
    upper: gast.expr
    terms: dict


class IndexingMixin:
    """Subscripts of arrays and of per-iteration values by the loop indices."""

    def _merged_chain(self, node):
        """``x[i][j]`` as ``x[i, j]`` when ``x`` is an array (then ``x[i]`` is a view and the two
        are the same element) and every index is one scalar per iteration; else ``node``."""
        indices, base, levels = [], node, 0
        while isinstance(base, gast.Subscript):
            levels += 1
            part = base.slice
            last = base is node  # only the last part may slice: `x[i][j:k]` is `x[i, j:k]`
            if (not last and isinstance(part, (gast.Slice, gast.Tuple))) or (
                    isinstance(part, gast.Constant) and (part.value is None or part.value is Ellipsis)):
                return node
            indices[:0] = list(part.elts) if isinstance(part, gast.Tuple) else [part]
            base = base.value
        if any(isinstance(p, gast.Constant) and (p.value is None or p.value is Ellipsis) for p in indices):
            return node
        if levels < 2 or not isinstance(base, gast.Name) or self._is_stacked_name(base.id):
            return node
        declared = self._declared(base.id)
        if not (declared or _evidently_array(self.ctx, self.info.function, base, at=self.info.node)):
            return node
        for part in indices:
            if isinstance(part, gast.Slice) or (isinstance(part, gast.Name) and isinstance(self.env.get(part.id), Ind)):
                continue
            if self.ev(part).rank != 0:
                return node
        merged = gast.Subscript(value=base, slice=gast.Tuple(elts=indices, ctx=gast.Load()), ctx=node.ctx)
        return gast.copy_location(merged, node)

    def _ev_Subscript(self, node):
        merged = self._merged_chain(node)
        if merged is not node:
            return self.ev(merged)
        listed = self._without_one_item_list(node)
        if listed is not node:
            return self.ev(listed)
        expanded = self._without_ellipsis(node)
        if expanded is not node:
            return self.ev(expanded)
        solved = self._lstsq_solution(node)
        if solved is not None:
            return solved
        position = constant_int(node.slice)
        items = self._tuple_items(node.value) if position is not None else None
        if items is not None and -len(items) <= position < len(items):
            return items[position]
        if position in (0, -1) and isinstance(node.value, gast.Name) and node.value.id in self.selections:
            return self._selection_end(node.value.id, position)
        comps = _components(node.slice)
        base = self.ev(node.value)
        if self._in_batched_code(node) and not _is_shape(self.ctx, node.value):
            self._integer_fixed(comps)
        if isinstance(node.value, gast.Name) and any(isinstance(c, gast.Slice) for c in comps) and \
                self._in_batched_code(node):
            # a list's slice is a list: `*` repeats it and `+` concatenates, where the batched
            # code's arrays multiply and add (only an array computes as the batch does)
            self.sliced.add(node.value.id)
        if not self.needs_trip and self._np and self._in_batched_code(node) and not _is_shape(self.ctx, node.value) \
                and self._fixed_index(comps):
            # `w[0]`, `m[i, 0]`: an element at a fixed index raises where that axis is empty, and
            # the loop reads it only when it runs, so the batched code runs only then (NumPy
            # code; TensorFlow's, whose consumers outside the loop are replaced, is not guarded)
            self.needs_trip = True
        if base.stacked:
            return self._stacked_subscript(node, base, comps)
        shape = self._shape_of(node.value.id) if isinstance(node.value, gast.Name) else None
        if shape is None and base.rank is not None:  # also a name bound in the loop body
            shape = ranks.Shape(base.rank)
        index = self._index(node.value, comps, shape, store=False)
        if index is None:
            if self._in_batched_code(node):
                self._fixed_reads(node.value, comps)
            rank = _index_rank(base.rank, [self.ev(c) if not isinstance(c, gast.Slice) else c for c in comps])
            if base.node is not node.value:  # an invariant the batched code spells otherwise: `tf.shape(m)[1:]`
                return Val(gast.Subscript(value=base.node, slice=copy.deepcopy(node.slice), ctx=gast.Load()),
                           (), rank)
            return Val(node, (), rank)
        sub, full, rank, _ = index
        return Val(sub, tuple(full), rank)

    def _in_batched_code(self, node) -> bool:
        """Whether ``node`` is code the batched loop runs: in the loop, or in a helper inlined
        there (a copy), not a binding before the loop read for its rank."""
        if self._outside is None:
            fdef = self.info.function
            inside = {id(n) for n in gast.walk(self.info.node)}
            self._outside = set() if fdef is None else {id(n) for n in gast.walk(fdef) if id(n) not in inside}
        return id(node) not in self._outside

    def _fixed_index(self, comps) -> bool:
        """Whether an index of ``comps`` is one number the same on every iteration."""
        for c in comps:
            if isinstance(c, gast.Slice) or _is_ellipsis(c) or _is_newaxis(c, self.ctx) \
                    or isinstance(self.env.get(getattr(c, "id", None)), Ind):
                continue
            value = self._aside(c)
            if value is not None and not value.stacked and value.rank == 0:
                return True
        return False

    def _without_one_item_list(self, node):
        """``x[..., [b]]`` as ``x[..., b, None]`` when ``b`` is a Python int and every other
        index is a slice, ``...`` or ``None``: a one-item list is an array index that keeps
        its axis (of length 1) in place, which NumPy puts where an int index and ``None`` put
        it (advanced indices beside int indices move their axes first, so none may be there);
        else ``node``."""
        comps = _components(node.slice)
        lists = [k for k, c in enumerate(comps) if isinstance(c, gast.List)]
        if not isinstance(node.ctx, gast.Load) or len(lists) != 1 or len(comps[lists[0]].elts) != 1 \
                or not all(k in lists or isinstance(c, gast.Slice) or _is_ellipsis(c) or _is_newaxis(c, self.ctx)
                           for k, c in enumerate(comps)):
            return node
        item = comps[lists[0]].elts[0]
        value = self._aside(item)
        if value is None or not value.python or value.pytype != "int" or value.rank != 0:
            return node  # (a bool in a list is a mask)
        parts = comps[:lists[0]] + [item, gast.Constant(value=None, kind=None)] + comps[lists[0] + 1:]
        return gast.copy_location(gast.Subscript(value=node.value, slice=gast.Tuple(elts=parts, ctx=gast.Load()),
                                                 ctx=node.ctx), node)

    def _without_ellipsis(self, node):
        """``x[..., i]`` as ``x[:, i]`` when the rank of ``x`` (per iteration, for a value of the
        loop) is known and every other index takes one axis or adds one (``None``): the same
        view, in the form the printer batches; else ``node``."""
        comps = _components(node.slice)
        if sum(map(_is_ellipsis, comps)) != 1:
            return node
        base = self._aside(node.value)
        if base is None or base.rank is None:
            return node
        taken = 0
        for c in comps:
            if _is_ellipsis(c) or _is_newaxis(c, self.ctx):
                continue
            if not isinstance(c, gast.Slice):
                value = self._aside(c)
                if value is None or value.rank != 0:
                    return node  # an array index (a mask takes several axes)
            taken += 1
        fill = base.rank - taken
        if fill < 0:
            return node
        parts = []
        for c in comps:
            if _is_ellipsis(c):
                parts += [gast.Slice(lower=None, upper=None, step=None) for _ in range(fill)]
            else:
                parts.append(c)
        if not parts:
            return node.value
        index = parts[0] if len(parts) == 1 and not isinstance(parts[0], gast.Slice) else \
            gast.Tuple(elts=parts, ctx=gast.Load())
        return gast.copy_location(gast.Subscript(value=node.value, slice=index, ctx=node.ctx), node)

    def _tuple_items(self, call) -> list[Val] | None:
        """The items of a call that returns a tuple of arrays (``np.linalg.slogdet(c)``,
        :data:`linalg.TUPLE_RESULTS`) on a per-iteration operand: the batched call is made once
        (a gufunc: the loop axes are batch axes, each matrix taken by the same LAPACK routine
        as in the loop) and each item is its element. None when ``call`` is not one, or its
        operand is the same on every iteration (the call then stays as written)."""
        if not (isinstance(call, gast.Call) and self.lib.kind == "np" and not self.to_tf):
            return None
        name = self.ctx.imports.resolve(call.func) or ""
        deltas = TUPLE_RESULTS.get(name)
        if deltas is None:
            return None
        if len(call.args) != 1 or call.keywords:
            raise Unsupported(f"`{name}`: batched only with one operand and no keywords")
        x = self.ev(call.args[0])
        if not x.stacked:
            return None
        if x.rank is None or x.rank < 2:
            raise Unsupported(f"`{name}`: needs a per-iteration matrix of known rank")
        whole = self._hoist(gast.Call(func=copy.deepcopy(call.func), args=[x.node], keywords=[]),
                            name.rsplit(".", 1)[-1])
        return [Val(gast.Subscript(value=copy.deepcopy(whole), slice=const(k), ctx=gast.Load()), x.full,
                    x.rank + delta) for k, delta in enumerate(deltas)]

    def _lstsq_solution(self, node):
        """``np.linalg.lstsq(A, b)[0]`` with ``A`` the same matrix on every iteration and ``b``
        one vector per iteration: ``pinv(A) @ B.T``, the pseudo-inverse computed once with
        lstsq's cutoff (singular values below ``rcond`` times the largest are zero; with
        ``rcond=None``, machine precision times the larger dimension), so each iteration's
        solution is the minimum-norm least-squares one, and a non-finite ``b`` spoils only its
        own. None when ``node`` is not that."""
        call = node.value
        if not (isinstance(call, gast.Call) and self.ctx.imports.resolve(call.func) == "numpy.linalg.lstsq"
                and constant_int(node.slice) == 0 and len(call.args) == 2
                and all(k.arg == "rcond" for k in call.keywords)) or self.lib.kind != "np" or self.to_tf:
            return None
        a, b = self.ev(call.args[0]), self.ev(call.args[1])
        if not b.stacked:
            return None
        rcond = call.keywords[0].value if call.keywords else None
        fixed = rcond is None or isinstance(rcond, gast.Constant) and rcond.value is None or \
            isinstance(rcond, gast.Constant) and type(rcond.value) in (int, float) and rcond.value >= 0
        if a.stacked or a.rank not in (2, None) or b.rank != 1 or b.depth != 1 or not all(b.full) or not fixed:
            raise Unsupported("`np.linalg.lstsq`: batched only for one matrix, a vector per iteration and "
                              "`rcond=None` or a non-negative number")
        np_ = self.lib.alias
        matrix = self._hoist(a.node, "lstsq_matrix")
        if rcond is None or rcond.value is None:  # lstsq's default cutoff
            cutoff = templates.expr(f"{np_}.finfo({np_}.result_type(A, float)).eps * max({np_}.shape(A))", A=matrix)
        else:
            cutoff = copy.deepcopy(rcond)
        inverse = self.lib.call("pinv", matrix, rcond=cutoff)
        inverse.func = templates.expr(f"{np_}.linalg.pinv")
        columns = gast.Attribute(value=b.node, attr="T", ctx=gast.Load())
        solved = gast.BinOp(left=inverse, op=gast.MatMult(), right=columns)
        return Val(gast.Attribute(value=solved, attr="T", ctx=gast.Load()), b.full, 1)

    def _stacked_subscript(self, node, base, comps):
        for c in comps:
            if isinstance(c, gast.Slice) and any(
                    isinstance(n, gast.Name) and self._is_stacked_name(n.id)
                    for bound in (c.lower, c.upper, c.step) if bound is not None for n in gast.walk(bound)):
                raise Unsupported(f"`{gast.unparse(node).strip()}`: a slice whose bounds differ per "
                                  "iteration, of a per-iteration value")
        if any(isinstance(self.env.get(getattr(c, "id", None)), Ind) for c in comps) and (
                self.lib.kind != "np" or self.to_tf):
            raise Unsupported(f"`{gast.unparse(node).strip()}`: a loop index into a per-iteration value")
        vals = [c if isinstance(c, gast.Slice) else self.ev(c) for c in comps]  # an index: its arange
        stacked = [v for v in vals if isinstance(v, Val) and v.stacked]
        if not stacked:
            for c in comps:
                if not isinstance(c, gast.Slice) and self.ev(c).rank not in (0,) \
                        and not (isinstance(c, gast.Constant) and c.value in (None, Ellipsis)):
                    if not _is_newaxis(c, self.ctx):
                        raise Unsupported(f"`{gast.unparse(node).strip()}`: an index of unknown rank")
            if self.mask is not None or self.partial:
                # `row[k]` of `row = x[i]`: an element of `x`'s rows
                root = base.node
                if isinstance(root, gast.Subscript) and all(isinstance(p, gast.Slice) for p in _components(root.slice)) \
                        and len(_components(root.slice)) <= base.depth:
                    root = root.value
                self._fixed_reads(root, comps, base.depth)
            parts = [gast.Slice(lower=None, upper=None, step=None)] * base.depth + [copy.deepcopy(c) for c in comps]
            return Val(core.subscript(base.node, parts), base.full, _index_rank(base.rank, vals))
        if len(comps) != 1 or base.depth != 1 or stacked[0].rank != 0 or not all(base.full) or (
                stacked[0].depth != 1 and (self.lib.kind != "np" or self.to_tf)):
            raise Unsupported(f"`{gast.unparse(node).strip()}`: a per-iteration index into a per-iteration value")
        rank = None if base.rank is None else base.rank - 1
        if stacked[0].depth > 1:
            # `s[j]` with `s` a row per outer iteration and `j` an inner index (or a value of
            # it): the outer axis pairs with `arange` along the outer axis, broadcast inward.
            idx = stacked[0]
            depth = idx.depth
            rows = core.insert_axes(self.lib, Val(self.lib.call("arange", templates.expr("len(V)", V=base.node))),
                                    1, depth - 1)
            full = (True,) + tuple(idx.full[1:])
            return Val(core.subscript(base.node, [rows, idx.node]), full, rank)
        idx = lift(self.lib, stacked[0], 1)
        if self.lib.kind == "tf" or self.to_tf:
            if self.to_tf:
                raise Unsupported("a per-iteration index into a per-iteration value")
            index = templates.wrapped_index(self.lib.alias, idx.node, base.node, 1)
            return Val(self.lib.call("gather", base.node, index, batch_dims=1), base.full, rank)
        rows = self.lib.call("arange", templates.expr("len(V)", V=base.node))
        return Val(core.subscript(base.node, [rows, idx.node]), base.full, rank)

    def _index(self, base_node, comps, shape, store):
        """The batched subscript of an invariant array by loop indices or per-iteration values.

        Returns ``(node, loop_axis_flags, element_rank, fancy)`` or None when nothing in the
        index depends on the loop. Slices are used when the loop indices lead in loop order
        (``x[i]`` -> ``x``, ``x[i, j]`` -> ``x[a:b, c:d]``); otherwise NumPy gets advanced
        indexing (``x[idx[i]]`` -> ``x[idx]``, ``t[r, p[r]]`` -> ``t[r, p]`` with ``r`` an
        ``arange``) and TensorFlow ``gather``.
        """
        kinds = []
        for c in comps:
            if isinstance(c, gast.Slice):
                if any(bound is not None and self.ev(bound).stacked for bound in (c.lower, c.upper, c.step)):
                    window = self._window(c)  # a store: disjoint blocks, as the analysis proved
                    if window is None:
                        raise Unsupported("a slice whose bounds differ per iteration")
                    kinds.append(("window", window))
                    continue
                kinds.append(("slice", c))
            elif isinstance(c, gast.Name) and isinstance(self.env.get(c.id), Ind):
                kinds.append(("ind", self.env[c.id]))
            elif (shifted := self._shifted(c)) is not None:
                kinds.append(("ind", shifted))
            else:
                v = self.ev(c)
                kinds.append(("val", v) if v.stacked else ("fixed", v))
        if not any(k in ("ind", "val", "window") for k, _ in kinds):
            return None
        self._fixed_reads(base_node, comps, 0, kinds)
        base_rank = shape.rank if shape is not None else None
        if base_rank is not None and base_rank < sum(1 for k, v in kinds if k != "slice" and not (
                k == "fixed" and (_is_newaxis(v.node, self.ctx) or (
                    isinstance(v.node, gast.Constant) and v.node.value is Ellipsis)))):
            # `x[i]` of a 0-d array raises in the loop; a batched `x[...]` would not
            raise Unsupported("more indices than the array has axes")
        base_name = base_node.id if isinstance(base_node, gast.Name) else None
        if any(k == "window" for k, _ in kinds):
            return self._windowed(base_node, kinds, base_rank, store)
        if not store:
            base_node = self._as_array(base_node)
        # Slice path: loop indices first, levels increasing, safe bounds, then invariant parts.
        lead = 0
        while lead < len(kinds) and kinds[lead][0] == "ind":
            lead += 1
        levels = [kinds[k][1].level for k in range(lead)]
        rest_ok = all(k in ("slice", "fixed") for k, _ in kinds[lead:]) and \
            all(v.rank == 0 or _is_newaxis(v.node, self.ctx) for k, v in kinds[lead:] if k == "fixed")
        # (TensorFlow: `y[t]` counted down over another array's rows reads `y[:n][::-1]`)
        down = lead and not store and self.lib.kind == "tf" and self._counted_down(kinds[0][1]) is not None \
            and not self._reversal(kinds[0][1], base_name)
        if lead and levels == sorted(set(levels)) and rest_ok and all(
                self._safe(kinds[k][1]) or (k == 0 and (down or self._reversal(kinds[0][1], base_name)))
                for k in range(lead)):
            depth = max(levels)
            if down:
                # the rows the loop reads, as a range from 0 over them bounds them, then last first
                ind = kinds[0][1]
                rows = dataclasses.replace(ind, start=None, stop=self._counted_down(ind), step=None, widest=None)
                base_node = core.subscript(base_node, [self._slice(rows, None, label=False, bounded=(base_node, 0))])
            parts = []
            for level in range(1, depth + 1):
                if level in levels:
                    position = levels.index(level)
                    parts.append(gast.Slice(lower=None, upper=None, step=const(-1)) if down and position == 0 else
                                 self._slice(kinds[position][1], base_name if position == 0 else None,
                                             label=not store, bounded=(base_node, position)))
                elif store:
                    parts = None
                    break
                else:
                    parts.append(self.lib.newaxis)
            if parts is not None:
                parts += [copy.deepcopy(v) if k == "slice" else copy.deepcopy(v.node) for k, v in kinds[lead:]]
                while parts and not store and _is_colon(parts[-1]) and len(parts) > 1:
                    parts.pop()
                node = core.subscript(base_node, parts) if not all(_is_colon(p) for p in parts) else copy.deepcopy(base_node)
                full = tuple(level in levels for level in range(1, depth + 1))
                rank = _index_rank(base_rank, [None] * lead + [v if k == "fixed" else v for k, v in kinds[lead:]],
                                   consumed=lead)
                if store:
                    rank = _index_rank(base_rank, [None] * lead + [v for _, v in kinds[lead:]], consumed=lead)
                return node, full, rank, False
        if self.lib.kind == "tf":
            if store or len(kinds) != 1 or kinds[0][0] != "val":
                raise Unsupported("a per-iteration index TensorFlow cannot express as a slice or gather")
            idx = kinds[0][1]
            rank = None if base_rank is None or idx.rank is None else base_rank - 1 + idx.rank
            index = templates.wrapped_index(self.lib.alias, idx.node, base_node)
            return self.lib.call("gather", base_node, index), idx.full, rank, True
        moved = self._moved_axis(base_node, kinds, base_rank, store)
        if moved is not None:
            return moved
        if self.to_tf:
            raise Unsupported("advanced indexing, which TensorFlow tensors do not support")
        # NumPy advanced indexing: every array index broadcasts to the loop axes.
        if kinds[0][0] not in ("ind", "val", "fixed"):
            raise Unsupported("a loop index after a slice (the loop axis would not come first)")
        arrays = []
        for k, v in kinds:
            if k == "ind":
                arrays.append(self.ev(v.source) if isinstance(v, Shifted) else self._ind_val(v))
            elif k in ("val", "fixed"):
                if k == "fixed" and _is_newaxis(v.node, self.ctx):
                    raise Unsupported("`newaxis` mixed with advanced indexing")
                arrays.append(v)
        aligned, full, idx_rank = align(self.lib, arrays, "an advanced index")
        if idx_rank != 0:
            raise Unsupported("an array-valued index per iteration")
        for c, (k, _) in zip(comps, kinds):
            if k == "val" and self._boolean_index(c):
                # `y[x[i] > 0]`: a NumPy bool indexes as a new axis (`y[np.True_]` is all of `y`,
                # one more axis), where the batch of them would be a mask along `y`'s first axis
                raise Unsupported(f"`{gast.unparse(c).strip()}`: a bool per iteration as an index")
        if len(comps) == len(kinds) and not store:
            # `x[idx[i]]` with a bool `idx`: the loop indexes with a NumPy bool (`x[np.True_]`
            # adds an axis), the batch would be a mask; integer indices are checked at run time
            self._integer_indices([c for c, (k, _) in zip(comps, kinds) if k == "val"], None, strict=False)
        if self.mask is not None and not store:
            aligned, full = self._masked_indices(base_node, kinds, aligned, comps)
        it = iter(aligned)
        parts = [next(it).node if k != "slice" else copy.deepcopy(v) for k, v in kinds]
        consumed = sum(1 for k, _ in kinds if k != "slice")
        rank = None if base_rank is None else base_rank - consumed
        return core.subscript(base_node, parts), full, rank, True

    def _selection_end(self, name: str, position: int) -> Val:
        """``nz[0]`` or ``nz[-1]`` of ``nz = x[mask]`` (a 1-D ``x``, a mask per iteration): the
        first or last selected element, ``x`` at ``np.argmax`` of the mask (of the reversed mask
        for the last), which is the first true position. Where some iteration selects nothing
        the loop raises ``IndexError`` at that iteration; the batched code raises it too, before
        it reads (the first edges of a band's nonzero response bins, of a run in a signal).

        Raises:
            Unsupported: a selection of rows, or of elements of an array of more axes.
        """
        mask, data, whole, along = self.selections[name]
        if not whole or along != 0 or data.rank != 1 or mask.rank != 1:
            raise Unsupported(f"`{name}[{position}]` of rows selected per iteration (only the first or last "
                              "element of a 1-D selection)")
        np_ = self.lib.alias
        picked = self._hoist(mask.node, f"{name}_mask")
        empty = templates.replace(
            f"if not {np_}.all({np_}.any(M, axis=-1)):\n"
            f"    raise IndexError('an iteration selects nothing: index out of bounds for axis 0 with size 0')",
            M=picked)
        if gast.dump(empty[0]) not in {gast.dump(s) for s in self.out}:
            self.out += empty
        at = templates.expr(f"{np_}.argmax(M, axis=-1)" if position == 0 else
                            f"{np_}.shape(M)[-1] - 1 - {np_}.argmax(M[..., ::-1], axis=-1)", M=picked)
        return Val(core.subscript(self._as_array(copy.deepcopy(data.node)), [at]), mask.full, 0)

    def _shifted(self, node) -> Shifted | None:
        """``i + k`` or ``i - k`` (``k`` an int) of a NumPy loop index counting up from a
        constant start ``s`` by a constant step, with ``s + k >= 0``: the index moved by ``k``,
        a slice from ``s + k`` (``x[i - 1]`` over ``range(1, n)`` is ``x[0:n - 1]``, no gather).
        A start below zero would wrap to the end, which a slice does not; the slice's end is
        checked to lie inside the array as for ``x[i]``."""
        if self.lib.kind != "np" or self.to_tf or not (
                isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub))):
            return None
        ind, shift = None, None
        if isinstance(node.left, gast.Name) and isinstance(self.env.get(node.left.id), Ind):
            ind, shift = self.env[node.left.id], constant_int(node.right)
            if shift is not None and isinstance(node.op, gast.Sub):
                shift = -shift
        elif isinstance(node.op, gast.Add) and isinstance(node.right, gast.Name) and \
                isinstance(self.env.get(node.right.id), Ind):
            ind, shift = self.env[node.right.id], constant_int(node.left)
        if ind is None or shift is None or isinstance(ind, Shifted) or not self._safe(ind):
            return None
        start = constant_int(ind.start) if ind.start is not None else 0
        if start is None or start + shift < 0:  # (a strip's first row, `i_lo`: no slice moved)
            return None
        stop = _plus(ind.stop, shift)
        return Shifted(ind.level, ind.name, const(start + shift) if start + shift else None, stop,
                       copy.deepcopy(ind.step), None, source=node,
                       widest=None if ind.widest is None else _plus(ind.widest, shift))

    def _masked_indices(self, base_node, kinds, aligned, comps):
        """The indices of a gather under a per-iteration test, index 0 where the test fails:
        the loop never reads there (``if idx[i] < len(t): out[i] = t[idx[i]]``, ``if 0 <= y + dy
        < h: out[y] = img[y + dy]``), and a batched read of every index would raise
        ``IndexError`` where it does not. Index 0 exists where the axis is not empty, which a
        run-time check requires (an empty one raises in the loop at its first read, if any).

        Returns:
            The indices and the loop-axis flags of the result (the test's, where it has more).
        Raises:
            Unsupported: an ``...`` among the indices, or an array that is no name.
        """
        base = base_node.args[0] if isinstance(base_node, gast.Call) and len(base_node.args) == 1 and \
            (self.ctx.imports.resolve(base_node.func) or "") in _CONVERSIONS else base_node
        if not isinstance(base, gast.Name) or any(
                k == "fixed" and isinstance(v.node, gast.Constant) and v.node.value is Ellipsis for k, v in kinds):
            raise Unsupported("a gather under a per-iteration test, from an array pforge cannot check")
        base = templates.name(self.snapshot_of.get(base.id, base.id))  # a copy is as long as its array
        for c, (k, _) in zip(comps, kinds):
            if k == "val":
                self._integer_operands(c)
        (mask, *indices), full, _ = align(self.lib, [self.mask, *aligned], "a gather under a per-iteration test")
        mask = mask.with_node(self._hoist(mask.node, "reached"))
        picked = []
        axes = [position for position, (k, _) in enumerate(kinds) if k != "slice"]
        for axis, index in zip(axes, indices):
            picked.append(Val(self.lib.call("where", mask.node, index.node, const(0)), full, 0))
            check = templates.expr(f"{self.lib.alias}.shape(A)[{axis}] > 0", A=copy.deepcopy(base))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)
        return picked, full

    def _fixed_reads(self, base, comps, offset: int = 0, kinds=None) -> None:
        """Checks that each index of ``base[comps]`` the same on every iteration (``w[k]``,
        ``x[i, 0]``) lies within its axis, where the loop reads it only when a per-iteration
        test lets it (:meth:`_reached_only`): ``np.shape(w)[0] > 0`` for ``w[0]``,
        ``np.asarray(k).dtype.kind in 'iu'`` and ``-np.shape(w)[0] <= k < np.shape(w)[0]`` for
        ``w[k]``. ``offset`` counts the loop axes in front of ``base``'s own (of a row ``x[i]``
        read as ``x``); ``kinds`` are :meth:`_index`'s, where only ``"fixed"`` ones are checked.

        Raises:
            Unsupported: such an index of an array no check in front of the loop can measure
                (one the body binds, an attribute, a call's result), or one mixed with
                ``None`` or ``...``, or not one int.
        """
        if not (self._np and (self.mask is not None or self.partial)):
            return
        what = f"`{gast.unparse(base).strip()}[{', '.join(gast.unparse(c).strip() for c in comps)}]`"
        for p, c in enumerate(comps):
            if not isinstance(c, gast.Slice) or (kinds is not None and kinds[p][0] != "slice"):
                continue
            # `w[:k]`, `w[::k]`: a bound must be an int, a step an int other than 0
            if c.step is not None and not constant_int(c.step) or any(
                    bound is not None and constant_int(bound) is None and not self._in_front(bound)
                    for bound in (c.lower, c.upper)):
                raise Unsupported(f"{what} under a per-iteration test: a slice whose step may be 0 or whose "
                                  "bounds may not be ints, which the loop may never take")
            for bound in (c.lower, c.upper):
                if bound is not None and constant_int(bound) is None:
                    self._integer_names(bound)
        fixed = [p for p, c in enumerate(comps) if not isinstance(c, gast.Slice)
                 and (kinds is None or kinds[p][0] == "fixed")]
        if not fixed:
            return
        if isinstance(base, gast.Call) and len(base.args) == 1 and not base.keywords and \
                (self.ctx.imports.resolve(base.func) or "") in _CONVERSIONS:
            base = base.args[0]
        if isinstance(base, gast.Attribute) and base.attr == "shape" and isinstance(base.value, gast.Name) \
                and len(comps) == 1 and (c := constant_int(comps[0])) is not None \
                and (shape := self._shape_of(base.value.id)) is not None and -shape.rank <= c < shape.rank:
            return  # `x.shape[1]` of an `x` checked to have two axes
        if any(_is_newaxis(comps[p], self.ctx) or _is_ellipsis(comps[p]) for p in range(len(comps))
               if not isinstance(comps[p], gast.Slice)) or not isinstance(base, gast.Name) \
                or not self._in_front(base):
            raise Unsupported(f"{what} under a per-iteration test: an element the loop may never read, of "
                              "an array no check in front of the loop can measure")
        for p in fixed:
            index = comps[p]
            value = self._aside(index)
            if value is None or value.stacked or value.rank != 0 or not self._in_front(index) or (
                    isinstance(index, gast.Constant) and type(index.value) is not int):
                raise Unsupported(f"{what} under a per-iteration test: an index the loop may never use, which "
                                  "no check in front of the loop can tell lies within its axis")
            length = templates.expr(f"{self.lib.alias}.shape(B)[{offset + p}]", B=copy.deepcopy(base))
            c = constant_int(index)
            if c is None:
                self._integer_names(index)
                self._python_operands(index)
                self._check(gast.Compare(left=gast.UnaryOp(op=gast.USub(), operand=length), ops=[gast.LtE(), gast.Lt()],
                                         comparators=[copy.deepcopy(index), copy.deepcopy(length)]))
            else:
                self._check(gast.Compare(left=length, ops=[gast.Gt() if c >= 0 else gast.GtE()],
                                         comparators=[gast.Constant(value=c if c >= 0 else -c, kind=None)]))

    def _integer_names(self, index) -> None:
        """``np.asarray(k).dtype.kind in 'iu'`` for each name ``index`` computes from (a length,
        ``len(w)`` or ``w.shape[0]``, is an int already)."""
        measured = {id(m) for n in gast.walk(index) if isinstance(n, (gast.Call, gast.Attribute)) for m in gast.walk(n)}
        for name in sorted({n.id for n in gast.walk(index) if isinstance(n, gast.Name) and id(n) not in measured}):
            self._check(templates.expr(f"{self.lib.alias}.asarray(A).dtype.kind in 'iu'", A=templates.name(name)))

    def _integer_fixed(self, comps) -> None:
        """Each index of ``comps`` that is one number the same on every iteration (``s`` of
        ``Q[s, a]``, ``w[s]``, ``row[s]``) is an int: the batched code takes it to remove an
        axis, where a bool (Python's, NumPy's or a 0-d bool array) indexes an array as a new
        axis of length 1 (``w[True]`` is ``w[np.newaxis]``, ``w[False]`` empty) and, beside
        the batched index arrays, as a mask (``Q[True, np.arange(n)]`` is ``Q[:n]``, where the
        loop's ``Q[True, a]`` are rows of one more axis). An index the code shows is an int (a
        literal, ``len()``, ``int()``, an int's arithmetic) needs nothing; one it shows is a
        bool (``True``, a comparison) is refused; else each value a bool could come through
        is checked at run time, ``np.asarray(s).dtype.kind in 'iu'`` (``s - 1`` is an int
        whatever ``s`` is; ``s + t`` of two NumPy bools a bool).

        Raises:
            Unsupported: a bool the code shows, or a value no check in front of the loop sees
                (bound in the loop, other than once to what such a check sees).
        """
        for c in comps:
            if isinstance(c, gast.Slice) or _is_ellipsis(c) or _is_newaxis(c, self.ctx) \
                    or isinstance(self.env.get(getattr(c, "id", None)), Ind) or constant_int(c) is not None:
                continue
            value = self._aside(c)
            if value is None or value.stacked or value.rank != 0 or value.pytype == "int":
                continue  # (a per-iteration index is `_integer_indices`' and `_boolean_index`'s)
            if value.pytype == "bool" or isinstance(c, gast.Constant) or self._boolean_index(c):
                raise Unsupported(f"`{gast.unparse(c).strip()}`: a bool as an index (NumPy reads it as a new "
                                  "axis, or beside index arrays as a mask)")
            if self._np:
                for operand in self._bool_carriers(c):
                    self._check(templates.expr(f"{self.lib.alias}.asarray(A).dtype.kind in 'iu'", A=operand))

    def _bool_carriers(self, node, depth: int = 0) -> list:
        """The names (and attributes of names) whose bools would make ``node`` a bool: the
        value itself, the array an element is read from (``idx`` of ``idx[0]``), both operands
        of an arithmetic or bitwise operator (none where one is an int or float literal), both arms
        of a conditional expression; nothing through a call (``len(w)``, ``np.argmax(v)``) or a
        shape. A name bound once in the loop body stands for what it is bound to."""
        if isinstance(node, gast.Constant) or _is_shape(self.ctx, node) or isinstance(node, gast.Call):
            return []
        if isinstance(node, gast.Subscript):
            if isinstance(node.value, gast.Attribute) and node.value.attr == "shape":
                return []
            return self._bool_carriers(node.value, depth)
        if isinstance(node, gast.BinOp):
            if any(isinstance(side, gast.Constant) and type(side.value) in (int, float) for side in (node.left, node.right)):
                return []  # (`s | True` of a bool `s` is a bool)
            return self._bool_carriers(node.left, depth) + self._bool_carriers(node.right, depth)
        if isinstance(node, gast.UnaryOp):
            return [] if isinstance(node.op, gast.USub) else self._bool_carriers(node.operand, depth)
        if isinstance(node, gast.IfExp):
            return self._bool_carriers(node.body, depth) + self._bool_carriers(node.orelse, depth)
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        if isinstance(root, gast.Name) and isinstance(self.env.get(root.id), Ind):
            return []
        if isinstance(root, gast.Name) and not (root.id in self.loop_stores or self._is_stacked_name(root.id)
                                                or root.id in self.snapshot_of):
            if root is node or not any(isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store)
                                       and gast.unparse(n) == gast.unparse(node) for n in gast.walk(self.info.node)):
                return [copy.deepcopy(node)]
        if isinstance(node, gast.Name) and depth < 3:
            bindings = [s for level in self.levels for s in level.info.body if isinstance(s, gast.Assign)
                        and any(isinstance(n, gast.Name) and n.id == node.id for t in s.targets for n in gast.walk(t))]
            if len(bindings) == 1 and len(bindings[0].targets) == 1 and isinstance(bindings[0].targets[0], gast.Name):
                return self._bool_carriers(bindings[0].value, depth + 1)
        raise Unsupported(f"`{gast.unparse(node).strip()}` in an index the same on every iteration: it may be a "
                          "bool (NumPy reads it as a new axis), which no check in front of the loop sees")

    def _boolean_index(self, index, seen: frozenset = frozenset()) -> bool:
        """Whether the code shows ``index`` may be a bool: a comparison, ``not``, ``and``/``or``,
        a NumPy predicate, ``~`` of one, ``&``/``|``/``^`` of two (``b & k`` of an int ``k`` is an
        int), either arm of a conditional expression, or a name the body binds to one."""
        if _is_boolean(index, self.ctx):
            return True
        if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
            return self._boolean_index(index.left, seen) and self._boolean_index(index.right, seen)
        if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.Invert):
            return self._boolean_index(index.operand, seen)
        if isinstance(index, gast.IfExp):
            return self._boolean_index(index.body, seen) or self._boolean_index(index.orelse, seen)
        if isinstance(index, gast.Name) and index.id not in seen:
            bindings = [s for level in self.levels for s in level.info.body if isinstance(s, gast.Assign)
                        and any(isinstance(n, gast.Name) and n.id == index.id for t in s.targets for n in gast.walk(t))]
            return any(self._boolean_index(b.value, seen | {index.id}) for b in bindings)
        return False

    def _integer_operands(self, index, depth: int = 0) -> None:
        """The arrays and numbers a gather index under a test is computed from hold integers,
        checked at run time (``np.asarray(idx).dtype.kind in 'iu'``): where the test fails the
        loop computes no index, and a float, bool or object one would raise in the batched
        gather (``t[idx[i] - 1]`` of a float ``idx``, ``-idx[i]`` of a bool one).

        Raises:
            Unsupported: an index computed from a value the body binds, whose kind no check in
                front of the loop can see.
        """
        operands = []
        for node in gast.walk(index):
            if isinstance(node, (gast.Call, gast.Attribute, gast.Lambda, gast.IfExp, gast.Compare, gast.BoolOp)) \
                    or isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not) or (
                    isinstance(node, gast.Constant) and type(node.value) is not int):
                raise Unsupported(f"a gather under a per-iteration test at an index computed by "
                                  f"`{gast.unparse(node).strip()}`, whose kind no check in front of the loop sees")
            if isinstance(node, gast.Subscript):
                operands.append(node.value)
            elif isinstance(node, gast.BinOp):
                operands += [node.left, node.right]
            elif isinstance(node, gast.UnaryOp):
                operands.append(node.operand)
        if isinstance(index, gast.Name):
            operands.append(index)
        for node in operands:
            if not isinstance(node, gast.Name) or isinstance(self.env.get(node.id), Ind):
                continue
            if node.id in self.loop_stores or self._is_stacked_name(node.id):
                # a private bound once in the body from what the check can see (`level = picture[j, i]`)
                bindings = [s for level in self.levels for s in level.info.body if isinstance(s, gast.Assign)
                            and any(isinstance(n, gast.Name) and n.id == node.id for t in s.targets for n in gast.walk(t))]
                if depth < 3 and len(bindings) == 1 and len(bindings[0].targets) == 1 and \
                        isinstance(bindings[0].targets[0], gast.Name):
                    self._integer_operands(bindings[0].value, depth + 1)
                    continue
                raise Unsupported(f"a gather under a per-iteration test at an index computed from `{node.id}`, "
                                  "which the loop binds (its kind cannot be checked in front of the loop)")
            check = templates.expr(f"{self.lib.alias}.asarray(A).dtype.kind in 'iu'", A=templates.name(node.id))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)

    def _window(self, part: gast.Slice):
        """``x[lo:hi]`` with ``lo`` varying per iteration and ``hi - lo`` invariant (a sliding
        window, as in a stencil or a filter), else None.

        NumPy only: the window becomes the advanced index ``lo[..., None] + np.arange(width)``.
        """
        if self.lib.kind != "np" or self.to_tf or part.step is not None or part.lower is None or part.upper is None:
            return None
        lower = self.ev(part.lower)
        if lower.rank != 0 or self.ev(part.upper).rank != 0:
            return None
        lo, hi = self._affine(part.lower), self._affine(part.upper)
        if lo is None or hi is None:
            return None
        width = {key: hi.get(key, (0, None))[0] - lo.get(key, (0, None))[0] for key in set(lo) | set(hi)}
        if any(coef for key, coef in width.items() if isinstance(key, tuple)):
            return None  # the loop indices do not cancel: the width varies
        nodes = {key: (hi.get(key) or lo.get(key))[1] for key in width}
        terms = []
        for key, coef in sorted(width.items(), key=lambda item: str(item[0])):
            if coef == 0 or key == 1:
                continue
            node = copy.deepcopy(nodes[key])
            terms.append(node if coef == 1 else gast.BinOp(left=const(coef), op=gast.Mult(), right=node))
        total = width.get(1, 0)
        if total or not terms:
            terms.append(const(total))
        node = terms[0]
        for term in terms[1:]:
            node = gast.BinOp(left=node, op=gast.Add(), right=term)
        return _Window(lower, node, part.lower, part.upper, lo)

    def _affine(self, node):
        """``node`` as ``{key: (coefficient, node)}``: keys ``("ind", name)`` for loop indices,
        ``1`` for the constant, the source text for invariant terms; None if not affine in the
        loop indices with integer coefficients."""
        if isinstance(node, gast.Name) and isinstance(self.env.get(node.id), Ind):
            return {("ind", node.id): (1, node)}
        if isinstance(node, gast.Constant) and type(node.value) is int:
            return {1: (node.value, node)}
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            inner = self._affine(node.operand)
            return None if inner is None else {k: (-c, n) for k, (c, n) in inner.items()}
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
            left, right = self._affine(node.left), self._affine(node.right)
            if left is None or right is None:
                return None
            sign = 1 if isinstance(node.op, gast.Add) else -1
            out = dict(left)
            for key, (coef, n) in right.items():
                out[key] = (out.get(key, (0, n))[0] + sign * coef, n)
            return out
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
            for scale, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(scale, gast.Constant) and type(scale.value) is int:
                    inner = self._affine(other)
                    return None if inner is None else {k: (scale.value * c, n) for k, (c, n) in inner.items()}
            for scale, other in ((node.left, node.right), (node.right, node.left)):
                scaled = self._scaled(scale, other)
                if scaled is not None:
                    return scaled
        if self.ev(node).stacked or any(isinstance(n, gast.Name) and n.id in self.loop_stores
                                        for n in gast.walk(node)):
            return None
        return {gast.unparse(node).strip(): (1, node)}

    def _scaled(self, scale, other):
        """``b * (y + 1)`` with ``b`` an invariant number and the other factor affine in the
        loop indices: each index term keyed ``("ind", y, "b")`` (a stride ``b``; the window
        checks require ``b >= 0``), each invariant term multiplied by ``b``. None otherwise."""
        if any(isinstance(n, gast.Name) and (n.id in self.loop_stores or isinstance(self.env.get(n.id), Ind))
               for n in gast.walk(scale)):
            return None
        value = self.ev(scale)
        if value.stacked or value.rank != 0:
            return None
        inner = self._affine(other)
        if inner is None or any(isinstance(k, tuple) and len(k) == 3 for k in inner) or \
                not any(isinstance(k, tuple) for k in inner):
            return None
        text = gast.unparse(scale).strip()
        out = {}
        for key, (coef, n) in inner.items():
            if isinstance(key, tuple):
                out[("ind", key[1], text)] = (coef, n)
            elif key == 1:
                out[text] = (out.get(text, (0, None))[0] + coef, copy.deepcopy(scale))
            else:
                product = gast.BinOp(left=copy.deepcopy(scale), op=gast.Mult(), right=copy.deepcopy(n))
                out[f"{text}*{key}"] = (coef, product)
        return out

    def _windowed(self, base_node, kinds, base_rank, store=False):
        """A read through sliding windows (``src[y:y + k, x:x + k, c]``): every window, loop
        index and per-iteration index becomes an advanced index, the windows on trailing axes
        of their own, so the result has the loop axes, then the window axes, then any trailing
        slice. The windows must lie inside the array on every iteration: a run-time check
        (``self.checks``) runs the loop instead where one would not."""
        last = max(k for k, (kind, _) in enumerate(kinds) if kind != "slice")
        lead = 0  # `pts[:, i*c:(i + 1)*c]`: whole axes first, under one loop level
        while lead < last and kinds[lead][0] == "slice" and _is_colon(kinds[lead][1]) and len(self.levels) == 1:
            lead += 1
        if any(kind == "slice" for kind, _ in kinds[lead:last]) or not isinstance(base_node, gast.Name) \
                or base_node.id in self.loop_stores or base_node.id in self.snapshot_reads.values():
            raise Unsupported("a slice whose bounds differ per iteration")
        arrays = []
        for kind, v in kinds[lead:last + 1]:
            if kind == "ind":
                arrays.append(self.ev(v.source) if isinstance(v, Shifted) else self._ind_val(v))
            elif kind == "window":
                arrays.append(v.start)
            elif _is_newaxis(v.node, self.ctx):
                raise Unsupported("`newaxis` mixed with a sliding window")
            else:
                arrays.append(v)
        aligned, full, idx_rank = align(self.lib, arrays, "a sliding window's index")
        if idx_rank != 0:
            raise Unsupported("an array-valued index next to a sliding window")
        checks = self._window_checks(base_node, kinds)
        count = sum(kind == "window" for kind, _ in kinds)
        parts, seen = [copy.deepcopy(v) for _, v in kinds[:lead]], 0
        for (kind, v), val in zip(kinds[lead:last + 1], aligned):
            node = val.node
            if val.stacked:
                node = core.subscript(node, [gast.Constant(value=Ellipsis, kind=None)]
                                      + [self.lib.newaxis] * count)
            if kind == "window":
                steps = self.lib.call("arange", v.width)
                if count - 1 - seen:
                    steps = core.subscript(steps, [gast.Slice(lower=None, upper=None, step=None)]
                                           + [self.lib.newaxis] * (count - 1 - seen))
                node = gast.BinOp(left=node, op=gast.Add(), right=steps)
                seen += 1
            parts.append(node)
        parts += [copy.deepcopy(v) for _, v in kinds[last + 1:]]
        self.checks += checks
        consumed = sum(kind in ("ind", "val", "fixed") for kind, _ in kinds)
        rank = None if base_rank is None else base_rank - consumed
        node = core.subscript(base_node if store else self._as_array(base_node), parts)
        if lead:
            # NumPy puts the advanced indices' axes (the loop's, then the windows') after the
            # whole axes before them: a store moves the value's loop axis there, a read back
            if store:
                return node, full, rank, lead
            return self.lib.call("moveaxis", node, lead, 0), full, rank, "moved"
        return node, full, rank, True

    def _window_checks(self, base_node, kinds) -> list[gast.expr]:
        """``lo >= 0`` at the iteration where ``lo`` is least and ``hi <= len`` where ``hi`` is
        greatest, for each window: then no window wraps around or is cut short."""
        checks = []
        for axis, (kind, window) in enumerate(kinds):
            if kind != "window":
                continue
            extremes = {}
            for key, (coef, _) in window.terms.items():
                if not isinstance(key, tuple) or coef == 0:
                    continue
                if len(key) == 3:
                    # `b * y`: a Python int (a NumPy int8 wraps in the loop's own bounds, and in
                    # these checks; a float is no index), whose sign is the coefficient's only
                    # where `b >= 0`
                    checks.append(templates.expr(f"type({key[2]}) is int and ({key[2]}) >= 0"))
                ind = self.env[key[1]]
                step = 1 if ind.step is None else constant_int(ind.step)
                if step not in (1, -1):
                    raise Unsupported("a sliding window under a loop whose step is not 1 or -1")
                bounds = [b for b in (ind.start, ind.stop) if b is not None]
                if any(isinstance(n, gast.Name) and (n.id in self.loop_stores or isinstance(self.env.get(n.id), Ind))
                       for b in bounds for n in gast.walk(b)):
                    raise Unsupported("a sliding window under a loop whose bounds vary")
                first = copy.deepcopy(ind.start) if ind.start is not None else const(0)
                final = gast.BinOp(left=copy.deepcopy(ind.stop), op=gast.Sub() if step > 0 else gast.Add(),
                                   right=const(1))
                low, high = (first, final) if step > 0 else (final, first)
                extremes[key[1]] = (low, high) if coef > 0 else (high, low)
            if not _nonnegative_constant(window.width):
                # `x[i:i + k]` with k < 0 is no window (`x[0:-1]`), `arange(k)` empty
                checks.append(gast.Compare(left=copy.deepcopy(window.width), ops=[gast.GtE()], comparators=[const(0)]))
            least = _substitute(window.lower, {name: pair[0] for name, pair in extremes.items()})
            most = _substitute(window.upper, {name: pair[1] for name, pair in extremes.items()})
            length = core.subscript(self.lib.call("shape", base_node), [const(axis)])
            if not _nonnegative_constant(least):
                checks.append(gast.Compare(left=least, ops=[gast.GtE()], comparators=[const(0)]))
            checks.append(gast.Compare(left=most, ops=[gast.LtE()], comparators=[length]))
        return checks

    def _moved_axis(self, base_node, kinds, base_rank, store):
        """``x[:, i]``: one loop index after full slices; NumPy moves that axis to the front.

        Returns the index tuple of :meth:`_index` with the axis position as its last item (a
        write must move the value's loop axis there), or None when the pattern does not apply.
        """
        varying = [k for k, (kind, _) in enumerate(kinds) if kind in ("ind", "val")]
        if self.lib.kind != "np" or len(varying) != 1:
            return None
        p = varying[0]
        if kinds[p][0] == "val":
            return self._moved_data_axis(base_node, kinds, base_rank, store, p)
        ind = kinds[p][1]
        if p == 0 or not all(kind == "slice" and _is_colon(v) for kind, v in kinds[:p]) or not self._safe(ind):
            return None
        if not all(kind == "slice" or (kind == "fixed" and v.rank == 0 and not _is_newaxis(v.node, self.ctx))
                   for kind, v in kinds[p + 1:]):
            return None
        parts = [copy.deepcopy(v) if kind == "slice" else
                 (self._slice(v, None, label=False, bounded=(base_node, k)) if kind == "ind" else copy.deepcopy(v.node))
                 for k, (kind, v) in enumerate(kinds)]
        while len(parts) > 1 and _is_colon(parts[-1]):
            parts.pop()  # (`mat[:, :n_cols]` of all its columns is `mat[:]`)
        node = core.subscript(base_node, parts)
        consumed = sum(1 for kind, _ in kinds if kind != "slice")
        rank = None if base_rank is None else base_rank - consumed
        full = (False,) * (ind.level - 1) + (True,)
        if store:
            return node, full, rank, p
        moved = self.lib.call("moveaxis", node, p, 0)
        if ind.level > 1:
            moved = core.insert_axes(self.lib, Val(moved), 0, ind.level - 1)
        return moved, full, rank, "moved"

    def _moved_data_axis(self, base_node, kinds, base_rank, store, p):
        """``x[:, idx[i]]``: one per-iteration data index (an integer per iteration, at the outer
        level) after full slices, slices after it: NumPy puts the axis of the index array where
        the index stands (``x[:, v]`` is ``(n, k)``), which moves to the front. A negative index
        wraps as Python's does."""
        val = kinds[p][1]
        if store or p == 0 or val.rank != 0 or val.full != (True,) or self.to_tf:
            return None
        if not all(kind == "slice" and _is_colon(v) for kind, v in kinds[:p]) or not all(
                kind == "slice" for kind, _ in kinds[p + 1:]):
            return None
        parts = [copy.deepcopy(v) if kind == "slice" else copy.deepcopy(v.node) for kind, v in kinds]
        rank = None if base_rank is None else base_rank - 1
        return self.lib.call("moveaxis", core.subscript(base_node, parts), p, 0), (True,), rank, "moved"

    def _safe(self, ind: Ind) -> bool:
        start_ok = ind.start is None or (constant_int(ind.start) is not None and constant_int(ind.start) >= 0) \
            or isinstance(ind.start, gast.Name) and ind.start.id in self.nonnegative
        step_ok = ind.step is None or (constant_int(ind.step) is not None and constant_int(ind.step) > 0)
        return start_ok and step_ok

    def _reversal(self, ind: Ind, base_name) -> bool:
        """``range(len(x) - 1, -1, -1)`` (``reversed(range(len(x)))``) indexing ``x``, or an
        array of as many rows: every row, last first, which is the slice ``[::-1]``."""
        rows = self._counted_down(ind)
        if rows is None:
            return False
        measured = self._length_of(rows)
        return self._same_length(measured, base_name) or self._made_as_long(base_name, measured)

    @staticmethod
    def _counted_down(ind: Ind) -> gast.expr | None:
        """``n`` of an index counting down ``range(n - 1, -1, -1)`` (``reversed(range(n))``): it
        visits rows ``n - 1`` down to 0 of what it indexes; else None."""
        start = ind.start
        if ind.step is None or constant_int(ind.step) != -1 or constant_int(ind.stop) != -1 or not (
                isinstance(start, gast.BinOp) and isinstance(start.op, gast.Sub) and constant_int(start.right) == 1):
            return None
        return start.left

    def _slice(self, ind: Ind, base_name, label=True, bounded=None):
        """The slice a loop index stands for; ``:`` when it visits every row of ``base_name``
        (only ever given for axis 0, the axis the loop bound measures).

        A slice stops at the end of its array where the loop's index would run past it and
        raise ``IndexError``: for ``bounded = (array, axis)`` a run-time check that the bound
        lies inside the array (``n <= np.shape(x)[0]``) runs the loop instead where it does not.
        """
        if base_name is not None and self._reversal(ind, base_name):
            if label and ind.level == 1 and base_name not in self.labels:
                self.labels.append(base_name)
            return gast.Slice(lower=None, upper=None, step=const(-1))
        start = None if ind.start is None or constant_int(ind.start) == 0 else copy.deepcopy(ind.start)
        step = None if ind.step is None or constant_int(ind.step) == 1 else copy.deepcopy(ind.step)
        # (the rows of an array made as long along this axis, `np.zeros((len(x), len(y)))`: all of them)
        made, axis = (bounded[0].id, bounded[1]) if bounded is not None and isinstance(bounded[0], gast.Name) \
            else (base_name, 0)
        if start is None and (self._same_length(ind.length_of, base_name)
                              or self._made_as_long(made, ind.length_of, axis)
                              or step is None and bounded is not None and self._whole_axis(ind.stop, made, axis)):
            stop = None
        else:
            stop = copy.deepcopy(ind.stop)
            if bounded is not None:
                self._bound_check(ind, *bounded)
            if not _nonnegative(ind.stop, self.ctx) and not (isinstance(ind.stop, gast.Name)
                                                             and ind.stop.id in self.nonnegative):
                # range(-1) is empty, but x[:-1] is all rows but one: clamp the bound at zero.
                stop = self.lib.call("maximum", stop, const(0))
                # (from a start of at least 0 in steps up, a loop that runs makes the bound
                # positive: :func:`~pforge.transpile.versioning.guard` drops the clamp where
                # the batched code runs only then)
                stop.pforge_clamp = ind.level == 1 and (start is None or (constant_int(start) or 0) > 0) and \
                    (step is None or (constant_int(step) or 0) > 0)
        if label and ind.level == 1 and base_name and base_name not in self.labels:
            self.labels.append(base_name)
        return gast.Slice(lower=start, upper=stop, step=step)

    def _whole_axis(self, stop, name: str | None, axis: int) -> bool:
        """``stop`` is the length of axis ``axis`` of the array ``name`` where the loop starts:
        ``name.shape[axis]`` (``len(name)`` on axis 0), or a name bound once to it that still
        holds it there (``n_cols = mat.shape[1]`` just before the loop, or with ``mat`` never
        reshaped), so ``name[:, :stop]`` is ``name[:, :]``. Not where the loop binds ``name``."""
        if stop is None or name is None or name in self.loop_stores or name in self.snapshot_of:
            return False
        lengths = {gast.dump(templates.expr(f"{name}.shape[{axis}]"))} | (
            {gast.dump(templates.expr(f"len({name})"))} if axis == 0 else set())
        stops = [stop]
        if isinstance(stop, gast.Name) and stop.id in self.aliases and (
                self._bound_just_before(stop.id) or all(
                    self._shape_kept(n.id) for n in gast.walk(self.aliases[stop.id])
                    if isinstance(n, gast.Name) and self.ctx.imports.resolve(n) is None)):
            stops.append(self.aliases[stop.id])
        if any(gast.dump(s) in lengths for s in stops):
            return True
        # (`out = np.zeros((t.shape[0], t.shape[1]))` in the loop's block, nothing in between
        # that rebinds or resizes `out` or what its shape reads: `t.shape[1]` is its axis 1)
        made = self.aliases.get(name)
        if not isinstance(made, gast.Call) or not made.args or self.lib.kind != "np" \
                or (self.ctx.imports.resolve(made.func) or "") not in ("numpy.zeros", "numpy.empty", "numpy.ones",
                                                                       "numpy.full"):
            return False
        shape = made.args[0]
        dim = shape.elts[axis] if isinstance(shape, (gast.Tuple, gast.List)) and axis < len(shape.elts) \
            and not any(isinstance(e, gast.Starred) for e in shape.elts) else shape if axis == 0 \
            and not isinstance(shape, (gast.Tuple, gast.List)) else None
        if dim is None or gast.dump(dim) != gast.dump(stop) or any(
                isinstance(n, gast.Call) and self.ctx.imports.resolve(n.func) != "builtins.len" for n in gast.walk(dim)):
            return False  # (the same text, yet `next(it)` twice is two values: helper-71)
        read = {n.id for n in gast.walk(dim) if isinstance(n, gast.Name)}
        return quiet_between(self.ctx, self.ctx.parents.get(id(made)), self.info.node, read | {name})

    def _bound_check(self, ind: Ind, base_node, axis: int):
        """``stop <= np.shape(base)[axis]`` into ``self.checks``, unless the index visits every
        row of ``base`` (``range(len(x))``). In TensorFlow code, where the loop's read past the
        end raises ``InvalidArgumentError``, ``tf.debugging.assert_less_equal`` raises it too,
        where the range's last index passes the end (a range in steps down is not checked: the
        rewrite may return where the loop raises, never raise where it returns)."""
        if self.strip is not None and ind.level == 1 and isinstance(ind.stop, gast.Name) and ind.stop.id == self.strip[1]:
            # a strip's rows `i_lo:i_hi` lie within the range's: what bounds it bounds them
            ind = dataclasses.replace(ind, start=None, stop=ind.widest, widest=None)
        if isinstance(base_node, gast.Call) and len(base_node.args) == 1 and not base_node.keywords and \
                (self.ctx.imports.resolve(base_node.func) or "") in _CONVERSIONS:
            base_node = base_node.args[0]  # `np.asarray(x)[:n]`: as long as `x`
        if self.to_tf or not isinstance(base_node, gast.Name):
            return
        base_node = templates.name(self.snapshot_of.get(base_node.id, base_node.id))  # a copy is as long
        if axis == 0 and (ind.start is None or constant_int(ind.start) == 0) \
                and self._same_length(ind.length_of, base_node.id):
            return
        if any(isinstance(n, gast.Name) and (n.id in self.loop_stores or isinstance(self.env.get(n.id), Ind))
               for n in gast.walk(ind.stop)):
            raise Unsupported("a loop bound that varies per iteration, used as a slice")
        # `n = x.shape[0]`, where `x` keeps its shape from there to the loop
        # (or measured just before the loop: `n_cols = mat.shape[1]`, nothing in between)
        stops = [ind.stop] + ([self.aliases[ind.stop.id]] if isinstance(ind.stop, gast.Name) and ind.stop.id in self.aliases
                              and (all(self._shape_kept(n.id) for n in gast.walk(self.aliases[ind.stop.id])
                                       if isinstance(n, gast.Name) and self.ctx.imports.resolve(n) is None)
                                   or self._bound_just_before(ind.stop.id))
                              else [])
        if any(_at_most(stop, dim) for stop in stops for dim in self._known_dims(base_node.id, axis)):
            return  # `range(n)` over `np.zeros(n)`, `range(x.shape[1] - 1)` over axis 1 of `x`
        if self.lib.kind == "np" and (like := self._shaped_like(base_node.id)) is not None:
            # `grid = np.zeros(weights.shape)` just before the loop: as long as `weights`
            self._bound_check(ind, templates.name(like), axis)
            return
        function = self.info.function if self.info.function is not None else self.ctx.tree
        in_source = {n.id for n in gast.walk(function) if isinstance(n, gast.Name)} | global_names(self.ctx.tree)
        if any(isinstance(n, gast.Name) and n.id not in in_source for n in gast.walk(ind.stop)):
            # a bound the batched code computes itself (a triangular nest's row lengths): where
            # the source says its largest value (`n - 1 + c` of `range(i + c)` in `range(n)`),
            # that is checked
            widest = ind.widest
            if widest is not None and not any(_at_most(widest, dim) for dim in self._known_dims(base_node.id, axis)):
                check = gast.Compare(left=copy.deepcopy(widest), ops=[gast.LtE()],
                                     comparators=[core.subscript(self.lib.call("shape", copy.deepcopy(base_node)),
                                                                 [const(axis)])])
                if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                    self.checks.append(check)
            return
        length = core.subscript(self.lib.call("shape", copy.deepcopy(base_node)), [const(axis)])
        if self.lib.kind == "tf":
            if ind.level > 1 and not all(self._runs_when(level.ind, ind.stop) for level in self.levels[:ind.level - 1]):
                # (the loop reads past the end only where the loops around this one run)
                raise Unsupported(f"an inner loop's bound `{gast.unparse(ind.stop).strip()}` may pass the end of "
                                  f"`{base_node.id}`, which TensorFlow code would check even where the outer "
                                  "loop runs no iteration")
            step = 1 if ind.step is None else constant_int(ind.step)
            if step is None or step <= 0:
                return  # (the rewrite may return where the loop raises, never the other way)
            start = None if ind.start is None or constant_int(ind.start) == 0 else ind.start
            # the loop reads `start + (stop - start - 1) // step * step` last, where it runs at
            # all: past the end of `base` where that plus one passes `max(len, start)` (an empty
            # range, `stop <= start`, never does)
            first, stop = 0 if start is None else constant_int(start), constant_int(ind.stop)
            if step != 1 and first is not None and stop is not None:
                past = const((stop - first - 1) // step * step + first + 1)
            else:
                past = copy.deepcopy(ind.stop) if step == 1 else templates.expr(
                    f"(S - B - 1) // {step} * {step} + B + 1" if start is not None else f"(S - 1) // {step} * {step} + 1",
                    S=copy.deepcopy(ind.stop), B=copy.deepcopy(start))
            if start is not None:
                length = self.lib.call("maximum", length, copy.deepcopy(start))
            assertion = templates.replace(f"{self.lib.alias}.debugging.assert_less_equal(S, L, message=M)",
                                          S=past, L=length,
                                          M=gast.Constant(value=f"index out of range of {base_node.id}", kind=None))
            if gast.dump(assertion[0]) not in {gast.dump(st) for st in self.out}:
                self.out += assertion
            return
        check = gast.Compare(left=copy.deepcopy(ind.stop), ops=[gast.LtE()], comparators=[length])
        if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
            self.checks.append(check)

    @staticmethod
    def _runs_when(outer: Ind | None, stop: gast.expr) -> bool:
        """Whether the loop of index ``outer`` runs whenever ``range(stop)`` is not empty: it
        counts from 0 by 1 to ``stop`` itself, or to a positive constant."""
        if outer is None or (outer.start is not None and constant_int(outer.start) != 0) \
                or (outer.step is not None and constant_int(outer.step) != 1):
            return False
        bound = constant_int(outer.stop)
        return (bound is not None and bound >= 1) or gast.dump(outer.stop) == gast.dump(stop)

    def _known_dims(self, name: str, axis: int, depth: int = 0) -> list[gast.expr]:
        """Expressions equal to the length of axis ``axis`` of array ``name`` before the loop:
        ``name.shape[axis]``, ``len(name)`` for axis 0, and the constructor's dimension when
        ``name`` is bound once to ``np.zeros((n, m))``, ``np.empty(n)``, ``np.zeros_like(x)``."""
        dims = [templates.expr(f"{name}.shape[{axis}]")] + ([templates.expr(f"len({name})")] if axis == 0 else [])
        unpacked = self._unpacked_shapes().get(name, [])  # `n, d = x.shape`
        if axis < len(unpacked) and unpacked[axis] is not None:
            dims.append(templates.name(unpacked[axis]))
        value = self.aliases.get(name)
        if depth > 3 or name in self.loop_stores or not isinstance(value, gast.Call) or not value.args:
            return dims
        callee = self.ctx.imports.resolve(value.func) or ""
        first = value.args[0]
        if callee in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"):
            if isinstance(first, (gast.Tuple, gast.List)) and axis < len(first.elts) \
                    and not any(isinstance(e, gast.Starred) for e in first.elts):
                dims.append(first.elts[axis])
            elif axis == 0 and not isinstance(first, (gast.Tuple, gast.List)):
                dims.append(first)
        elif callee in ("numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like") \
                and isinstance(first, gast.Name) and not any(k.arg == "shape" for k in value.keywords):
            dims += self._known_dims(first.id, axis, depth + 1)
        return dims


# -- helpers ---------------------------------------------------------------------------------------------


def _plus(node, k: int):
    """``node + k`` folded where ``node`` is ``e ± c`` (``n - 1`` moved by 1 is ``n``)."""
    base, total = node, k
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)) and \
            (c := constant_int(node.right)) is not None:
        base, total = node.left, k + (c if isinstance(node.op, gast.Add) else -c)
    if total == 0:
        return copy.deepcopy(base)
    return gast.BinOp(left=copy.deepcopy(base), op=gast.Add() if total > 0 else gast.Sub(), right=const(abs(total)))


#: calls that make an array or tensor of their argument, as long as it
_CONVERSIONS = {"numpy.asarray", "numpy.asanyarray", "numpy.array", "tensorflow.convert_to_tensor"}


def _at_most(bound, length) -> bool:
    """``bound <= length`` for every length >= 0, read off the syntax: ``length`` itself,
    ``bound - c`` with ``c >= 0``, ``bound // c`` with ``c >= 1``."""
    if gast.dump(bound) == gast.dump(length):
        return True
    if isinstance(bound, gast.BinOp) and isinstance(bound.right, gast.Constant) and type(bound.right.value) is int:
        if isinstance(bound.op, gast.Sub) and bound.right.value >= 0 or \
                isinstance(bound.op, gast.FloorDiv) and bound.right.value >= 1:
            return _at_most(bound.left, length)
    return False


def _nonnegative_constant(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is int and node.value >= 0


def _is_colon(part):
    return isinstance(part, gast.Slice) and part.lower is None and part.upper is None and part.step is None


def _is_ellipsis(node) -> bool:
    return isinstance(node, gast.Constant) and node.value is Ellipsis


def _is_shape(ctx, node) -> bool:
    """``x.shape``, ``np.shape(x)``, ``tf.shape(x)``: a shape, one entry per axis."""
    if isinstance(node, gast.Attribute) and node.attr == "shape":
        return True
    return isinstance(node, gast.Call) and ctx.imports.resolve(node.func) in ("numpy.shape", "tensorflow.shape")


def _is_newaxis(node, ctx):
    if isinstance(node, gast.Constant) and node.value is None:
        return True
    return (ctx.imports.resolve(node) or "") in ("numpy.newaxis", "tensorflow.newaxis")


def _index_rank(base_rank, vals, consumed=0):
    """Rank left after indexing: ints remove an axis, slices keep one, ``None`` adds one."""
    if base_rank is None:
        return None
    rank = base_rank - consumed
    for v in vals[consumed:]:
        if isinstance(v, gast.Slice):
            continue
        if v is None or not isinstance(v, Val):
            return None
        if isinstance(v.node, gast.Constant) and v.node.value is None:
            rank += 1
        elif isinstance(v.node, gast.Constant) and v.node.value is Ellipsis:
            return None
        elif v.rank == 0:
            rank -= 1
        elif isinstance(v.node, gast.Attribute) and v.node.attr == "newaxis":
            rank += 1
        else:
            return None
    return rank if rank >= 0 else None
