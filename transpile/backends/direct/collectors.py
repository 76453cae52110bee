"""Collectors (``outs.append(v)`` then ``stack``/``concat``), filters under a per-iteration
``if``, inner collectors, and TensorArrays written at the loop index."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import (FLOAT_ARMS, FLOAT_ARMS_LOOSE, LOOSE, STRICT, Unsupported, Val,
                                                   const, lift)
from pforge.transpile.analysis.nodes import reversed_operand
from pforge.transpile.backends.direct.shared import _Pending, _loads, may_be_view
from pforge.transpile.consumers import ARRAY_READERS


def lib_infers_dtype(lib, col) -> bool:
    """Whether the NumPy call that reads the list takes its dtype from the items (no
    ``dtype=``): ``np.array([0, 0])`` holds ints, ``np.array([0, 0.5])`` floats."""
    return lib.kind == "np" and not any(k.arg == "dtype" for k in getattr(col.consumer, "keywords", ()))


class CollectorsMixin:
    """Appends to collectors and writes to TensorArrays."""

    # -- collectors, TensorArrays -------------------------------------------------------------------

    def _append(self, name, value_node, later):
        col_level = next((lv for lv in self.levels if name in lv.info.collectors), None)
        if col_level is None:
            raise Unsupported(f"appends to `{name}`, which is not a collector")
        if isinstance(value_node, (gast.List, gast.Tuple)):
            with self._discarded():  # what each item is, for rebuilding the rows as the loop appended them
                items = [self.ev(e) for e in value_node.elts]
            bases = {e.value.id for e in value_node.elts if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name)
                     and not self._is_stacked_name(e.value.id) and e.value.id not in self.loop_stores}
            self.listed_items[name] = (type(value_node), list(value_node.elts), items, bases)
            value_node = gast.Call(func=self.lib.fn("stack"), args=[gast.List(elts=list(value_node.elts), ctx=gast.Load())],
                                   keywords=[])
            self._listed_stack = True
            self.listed.add(name)
        if id(value_node) in self.consumers:
            # `D.append(row)` of the list an inner loop built: its batched value, rows that are
            # Python lists in the loop (so `D` is no list to rebuild, only an array to read)
            inner = self.inner_values[self.consumers[id(value_node)]]
            value = Val(inner.node, inner.full[:len(self.levels)], None if inner.rank is None else
                        inner.rank + inner.depth - len(self.levels))
            self.listed.add(name)
        else:
            value = self.ev(value_node)
            unshared = self._unshared(value)
            if unshared is not value:  # (copied here: the collector's value is read after the loop's writes)
                tmp = self.namer.new(f"{name}_item")
                self.out += templates.replace(f"{tmp} = V", V=unshared.node)
                value = unshared.with_node(templates.name(tmp))
        depth = len(self.levels)
        if not value.stacked:
            if self.mask is None or col_level.info is not self.info:
                raise Unsupported(f"appends to `{name}` a value that does not depend on the loop")
            self.pending.setdefault(name, []).append(_Pending(self.mask, value))  # merged by the `if`
            return
        value = lift(self.lib, value, depth)
        if not all(value.full[col_level.depth - 1:]):
            raise Unsupported(f"appends to `{name}` a value that does not vary along every loop axis")
        if _loads(value.node) & later:
            # (bound before the names it reads are; in the order the rows come, so that a
            # collector read reversed still takes them as they are, :meth:`_emit_collector`)
            tmp = self.namer.new(f"{name}_item")
            forward = reversed_operand(value.node)
            self.out += templates.replace(f"{tmp} = V", V=forward if forward is not None else value.node)
            value = value.with_node(templates.expr(f"{tmp}[::-1]") if forward is not None else templates.name(tmp))
        if col_level.info is not self.info:
            if self.mask is not None and self.mask is not col_level.entry_mask:
                # (under an `if` of an outer level only, every inner iteration appends: the
                # outer level's append of the list is what that `if` filters)
                raise Unsupported(f"a conditional append to the inner collector `{name}`")
            col = col_level.info.collectors[name]
            if col.backwards or col.prepends:
                raise Unsupported(f"`{name}`, the list an inner loop builds, is read reversed")
            reader = col.kind == "array" and self.ctx.imports.resolve(col.consumer.func) in ARRAY_READERS
            if col.kind not in ("stack", "nested") and not reader:
                raise Unsupported({
                    "concat": f"`{name}` is consumed by concatenation inside the loop",
                    "extend": f"`{name}`, the list an inner loop builds, holds items before it or is read more "
                              "than once after it"}.get(col.kind, f"`{name}`, the list an inner loop builds, is read "
                                                                  "by a call that does not take it as one array"))
            if name in self.inner_values:
                raise Unsupported(f"`{name}` gets more than one value per iteration")
            writes = any(isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) for n in gast.walk(self.info.node))
            if writes or _loads(value.node) & later:
                # The list holds what the inner loop computed before the statements after it
                # run: bound here, a copy where it may be a view of an array the loop writes
                # (`lp = [x[j] for j in range(k)]` before `x[0] = 100.0`)
                node = self.lib.call("copy", value.node) if self.lib.kind == "np" and may_be_view(value.node) \
                    else value.node
                tmp = self.namer.new(f"{name}_items")
                self.out += templates.replace(f"{tmp} = V", V=node)
                value = value.with_node(templates.name(tmp))
            self.inner_values[name] = value
            # `np.argmax(lp)` reads the list as the array stacking its items: the inner value
            # stands for the list there (for `np.array(lp)`, for the whole call)
            self.consumers[id(col.consumer.args[0] if reader else col.consumer)] = name
            return
        self.pending.setdefault(name, []).append(_Pending(self.mask, value))

    def _emit_collector(self, name, col, entries, label=None):
        label = label or f"`{name}`"
        if col.kind == "nested":
            raise Unsupported(f"{label} is appended, as a list, to a list of the loop around this one, "
                              "which is not batched with it")
        if len(entries) != 1:
            raise Unsupported(f"{label} gets {'no' if not entries else 'more than one'} value per iteration")
        entry = entries[0]
        value = entry.value
        if not value.stacked or not all(value.full):
            raise Unsupported(f"appends to {label} a value that does not vary along every loop axis")
        if self.lib.kind == "np" and col.kind not in ("list", "extend"):
            self.nonempty = True  # no rows: `np.array([])` is `(0,)` floats, whatever the rows were
        if value.mixed in (FLOAT_ARMS, FLOAT_ARMS_LOOSE) and value.floaty and col.kind not in ("list", "extend"):
            # Python floats beside float64 NumPy values (checked in front: every array the
            # loop reads holds float64, or an int or bool dtype for a mean): the array holds
            # float64, as the batched one does
            level = LOOSE if value.floaty == LOOSE else STRICT
            self._check_float64(level)
        elif value.mixed and lib_infers_dtype(self.lib, col):
            raise Unsupported(f"{label} gets values of two types (a Python number on some iterations and a "
                              "NumPy value on others, or an int and a float), so the array it becomes has "
                              "a dtype that depends on which occur")
        depth = value.depth
        lib = self.lib
        if entry.mask is not None:
            mask = lift(lib, entry.mask, depth)
            if mask.rank != 0:
                raise Unsupported("a filter test that is not a scalar per iteration")
            if lib.kind == "tf":
                if not all(mask.full):
                    raise Unsupported("a filter test that does not vary along every loop axis")
                node = lib.call("boolean_mask", value.node, mask.node)
            else:
                m = mask.node if all(mask.full) else lib.call(
                    "broadcast_to", mask.node, templates.expr(f"V.shape[:{depth}]", V=value.node))
                node = core.subscript(value.node, [m])
                if col.kind not in ("list", "extend"):
                    # no item kept: the list is `[]`, which NumPy reads as `(0,)` floats, whatever
                    # the items' shape and dtype would have been
                    kept = self.namer.new(f"{name}_selected")
                    self.out += templates.replace(f"{kept} = V", V=node)
                    node = templates.expr(f"K if len(K) else {lib.alias}.array([])", K=templates.name(kept))
        elif depth == 1 and (col.kind in ("stack", "array", "list", "extend") or (col.kind == "concat" and lib.kind == "np")):
            node = value.node
        else:
            # NumPy consumers stay (np.concatenate(rows) concatenates the rows); TensorFlow's are
            # replaced by the result, so a concatenation merges the loop axis here.
            flat = depth if col.kind != "concat" or lib.kind == "np" else depth + 1
            if lib.kind == "tf":
                node = templates.expr(f"{lib.alias}.reshape(V, {lib.alias}.concat([[-1], {lib.alias}.shape(V)[{flat}:]], 0))",
                                      V=value.node)
            else:
                batched = value.node
                if not isinstance(batched, gast.Name):  # (read twice: computed once)
                    batched = templates.name(self.namer.new(f"{name}_stacked"))
                    self.out += templates.replace(f"{batched.id} = V", V=value.node)
                node = templates.expr(f"V.reshape((-1,) + V.shape[{flat}:])", V=batched)
        if col.kind == "concat" and entry.mask is not None:
            raise Unsupported(f"a filtered collector {label} consumed by concatenation")
        if col.kind in ("list", "extend"):
            # The list itself is used: rebuilt from the batched value, Python numbers as
            # Python numbers (`tolist`), NumPy scalars as NumPy scalars (`list`); a list that
            # held items before the loop, or is read again after it, is extended with them.
            rows = self._rows_of_one_kind(name, value)
            if rows is not None:
                node = templates.expr(rows, V=node)
            else:
                if name in self.listed or value.rank != 0 or not (value.python or value.scalar):
                    # Rows of a list of lists, arrays (the loop's are separate objects) and values
                    # that may be 0-d arrays would come back as other types.
                    raise Unsupported(f"{label} is used as a list after the loop, and its items would "
                                      "come back as NumPy values of another type (only numbers and "
                                      "NumPy scalars come back as they were appended)")
                if not value.python:
                    # NumPy scalars only when what they are computed from is no list of numbers
                    # (through the batched names they read: `s = b * 2.0`, then `list(s)`, is of
                    # `b`'s kind; helper-48)
                    self.arrays |= self._sources(node)
                node = templates.expr("V.tolist()" if value.python else "list(V)", V=node)
        if col.kind == "extend":
            self.out += templates.replace(f"{name}.extend(V)", V=node)
            return
        if lib.kind == "tf" and (col.backwards or col.prepends) and (forwards := reversed_operand(node)) is not None:
            # `tf.stack(rows[::-1])` of rows reversed: the rows as they were (the consumer takes
            # the name as it is, :meth:`_tf_consumer`)
            node = forwards
            self.unreversed.add(name)
        elif lib.kind == "np" and col.prepends:
            # the items put at the front: the list holds them last first, as the consumer reads it
            node = reversed_operand(node) or templates.expr("V[::-1]", V=node)
        if lib.kind == "np" and col.kind in ("stack", "array", "concat") and may_be_view(node):
            # the list held the values as they were when appended; a view of the array the
            # values came from would see later writes into it (`x[0] = 100.0` after the loop)
            node = lib.call("copy", node)
        self.out += templates.replace(f"{name} = V", V=node)

    def _sources(self, node) -> set[str]:
        """The names ``node`` reads, and through each name the batched code binds
        (``s = np.asarray(b) * 2.0``) the names its value reads, to the end of the chain."""
        bound = {}
        for st in self.out:
            if isinstance(st, gast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], gast.Name):
                bound.setdefault(st.targets[0].id, []).append(st.value)
        found, todo = set(), [n.id for n in gast.walk(node) if isinstance(n, gast.Name)]
        while todo:
            name = todo.pop()
            if name in found:
                continue
            found.add(name)
            todo += [n.id for value in bound.get(name, []) for n in gast.walk(value) if isinstance(n, gast.Name)]
        return found

    def _rows_of_one_kind(self, name, value) -> str | None:
        """How to rebuild appended rows ``[a, b]`` (``edges.append([lo[i], hi[i]])``) from their
        stack ``V``: ``V.tolist()`` where every item is a Python number of one type,
        ``[list(r) for r in V]`` where every item is an element of one array (NumPy scalars of
        its dtype, which the stack keeps); tuples as tuples. None for other rows, whose items'
        types the stack would change."""
        if name not in self.listed or name not in self.listed_items or value.rank != 1 or not all(value.full):
            return None
        kind, elts, items, invariant = self.listed_items[name]
        wrap = "tuple" if kind is gast.Tuple else "list"
        if all(v.python and v.pytype is not None and v.pytype == items[0].pytype and v.rank == 0 for v in items):
            return "V.tolist()" if wrap == "list" else "[tuple(r) for r in V.tolist()]"
        bases = {e.value.id for e in elts if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name)}
        # (an element of an array, all its axes indexed, is a NumPy scalar, also where a list
        # of 0-d arrays would have given 0-d arrays: the array, invariant, is checked to be one)
        if len(bases) == 1 and bases <= invariant and all(isinstance(e, gast.Subscript) for e in elts) and all(
                v.rank == 0 and not v.python for v in items):
            # an array's elements are NumPy scalars; a list's would be Python numbers, and a list
            # of 0-d arrays' 0-d arrays: one array itself (as a slice requires it)
            self.arrays |= bases
            self.sliced |= bases
            return f"[{wrap}(r) for r in V]"
        return None

    def _tf_consumer(self, col):
        return templates.expr(f"{col.name}[::-1]") if (col.backwards or col.prepends) and col.name not in self.unreversed \
            else templates.name(col.name)

    def _ta_write(self, name, stmt):
        if len(self.levels) != 1 or self.mask is not None:
            raise Unsupported(f"TensorArray `{name}` written in an inner loop or under an `if`")
        index, item = stmt.value.args
        ind = self.levels[0].ind
        if not (isinstance(index, gast.Name) and ind is not None and index.id == ind.name
                and self.info.space.kind == "range"):
            raise Unsupported(f"TensorArray `{name}` is written at an index other than the loop variable")
        value = self.ev(item)
        if not value.stacked or not all(value.full):
            raise Unsupported(f"TensorArray `{name}` gets a value that does not depend on the loop")
        whole = self._whole_tensorarray(name, ind)
        if whole is not None:  # `ta.stack()` is the only use: the values are the result
            init, stack_call = whole
            self.ta_drop.append(init)
            self.ta_replace[id(stack_call)] = templates.name(name)
            self.out += templates.replace(f"{name} = V", V=value.node)
            return
        args = [a for a in (ind.start, ind.stop, ind.step) if a is not None]
        if ind.start is None and ind.step is not None:
            args = [const(0)] + args
        rng = gast.Call(func=self.lib.fn("range"), args=[copy.deepcopy(a) for a in args], keywords=[])
        self.out += templates.replace(f"{name} = {name}.scatter(R, V)", R=rng, V=value.node)

    def _whole_tensorarray(self, name, ind):
        """``(init, stack call)`` when ``ta = tf.TensorArray(dtype, size=n)`` is written at every
        ``i in range(n)`` and read only by one ``ta.stack()`` after the loop; else None."""
        fdef = self.info.function
        if fdef is None or ind.start is not None or ind.step is not None:
            return None
        inside = {id(n) for n in gast.walk(self.info.node)}
        inits = [n for n in gast.walk(fdef) if isinstance(n, gast.Assign) and id(n) not in inside
                 and any(isinstance(t, gast.Name) and t.id == name for t in n.targets)]
        loads = [n for n in gast.walk(fdef) if isinstance(n, gast.Name) and n.id == name
                 and isinstance(n.ctx, gast.Load) and id(n) not in inside]
        if len(inits) != 1 or len(loads) != 1 or len(inits[0].targets) != 1:
            return None
        init = inits[0]
        call = init.value
        if not (isinstance(call, gast.Call) and self.ctx.imports.resolve(call.func) == "tensorflow.TensorArray"):
            return None
        size = next((k.value for k in call.keywords if k.arg == "size"), call.args[1] if len(call.args) > 1 else None)
        allowed = {"dtype", "size", "element_shape", "infer_shape"}
        if size is None or any(k.arg not in allowed for k in call.keywords) or len(call.args) > 2:
            return None
        if gast.unparse(size).strip() != gast.unparse(ind.stop).strip():
            return None
        attr = self.ctx.parents.get(id(loads[0]))
        stack_call = self.ctx.parents.get(id(attr))
        if not (isinstance(attr, gast.Attribute) and attr.attr == "stack" and isinstance(stack_call, gast.Call)
                and not stack_call.args and not stack_call.keywords):
            return None
        if init.lineno > self.info.lineno or stack_call.lineno < self.info.end_lineno:
            return None
        return init, stack_call
