"""Levels of the loop nest: each adds one loop axis, a loop index, ragged ranges, streams of
rows (``for row in x``, ``zip``, ``enumerate``) and derived induction variables."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import templates
from pforge.transpile.analysis import LoopInfo
from pforge.transpile.analysis.aliasing import _FRESH_CALLS, unexposed_allocation
from pforge.transpile.analysis.nodes import _binding as analysis_binding
from pforge.transpile.analysis.nodes import _shape_of_name, bound_at_entry_to, quiet_between
from pforge.transpile.backends.common import _evidently_array
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import Unsupported, Val, align, const
from pforge.transpile.backends.direct.indexing import _plus, _substitute
from pforge.transpile.analysis.reductions import _fixed_shape
from pforge.transpile.backends.direct.shared import ARRAY_ATTRIBUTES, Ind, ObjectRows, Shifted, _Level, _loads
from pforge.transpile.backends.pfor import _stores
from pforge.transpile.spaces import constant_int


#: NumPy's constructors of a new array of a given shape, and of another array's shape
#: (:meth:`LevelsMixin._made_as_long`, :meth:`LevelsMixin._shaped_like`)
_MADE_OF_SHAPE = ("numpy.zeros", "numpy.empty", "numpy.ones", "numpy.full")
_MADE_LIKE = ("numpy.zeros_like", "numpy.empty_like", "numpy.ones_like", "numpy.full_like")


class LevelsMixin:
    """The levels of the nest, their indices and derived induction variables."""

    # -- levels ------------------------------------------------------------------------------------

    def _level(self, info: LoopInfo, later: set):
        space = info.space
        depth = len(self.levels) + 1
        if space is None or space.kind not in ("range", "rows", "enumerate"):
            raise Unsupported("a while loop")
        if not info.vectorizable:
            raise Unsupported(f"the inner loop at line {info.lineno} is not independent")
        if info.tensorarrays and depth > 1:
            raise Unsupported("a TensorArray written in an inner loop")
        level = _Level(info, depth, len(self.out), entry_mask=self.mask)
        self.levels.append(level)
        saved = dict(self.env)
        saved_mask = self.mask
        if space.kind == "range":
            rebound = sorted(set().union(*(_loads(b) for b in (space.start, space.stop, space.step)
                                           if b is not None)) & self.loop_stores)
            if rebound and depth == 1:  # evaluated once before the loop; the slices would read it later
                raise Unsupported(f"the bounds of the loop at line {info.lineno} read `{rebound[0]}`, "
                                  "which the body binds again")
            if space.step is not None and self.ev(space.step).stacked:
                raise Unsupported(f"the step of the loop at line {info.lineno} differs per iteration")
            start = None if space.start is None else self.ev(space.start)
            stop = self.ev(space.stop)
            if stop.stacked or start is not None and start.stacked:
                self._ragged_range(level, space, start, stop)
            elif depth == 1 and self.strip is not None:
                # one strip of the rows: `i_lo <= i < i_hi`, both >= 0, `i_hi` at most the stop
                # (which the checks in front measure, as the widest stop)
                lo, hi = self.strip
                level.ind = Ind(depth, space.induction, templates.name(lo), templates.name(hi), None,
                                self._length_of(space.stop), widest=copy.deepcopy(space.stop))
                self.nonnegative |= {lo, hi}
                self.env[space.induction] = level.ind
            else:
                level.ind = Ind(depth, space.induction, space.start, space.stop, space.step,
                                self._length_of(space.stop))
                self.env[space.induction] = level.ind
        else:
            self._row_streams(level, space)
        if info.live_targets:
            self._last_targets(info, depth)
        for name, updates in info.derived.items():
            self._start_derived(level, name, updates)
        self._start_wraparounds(level)
        self._refuse_exclusive_scans(info)
        self._start_exclusive_scans(info)
        self._block(info.body, later, depth)
        self._end_scans(info)
        if depth == 1:
            self._end_last_values()
        else:
            # a name the body of the loop around reads after this one holds this loop's last
            # value there (`w = A[i, j]` in the inner loop, `v[i] = w` after it), where the
            # batched value holds one per inner iteration (helper-54)
            stacked = sorted(name for name in info.live_last
                             if name in self.env and isinstance(self.env[name], Val) and self.env[name].stacked
                             and len(self.env[name].full) >= depth and self.env[name].full[depth - 1])
            if stacked:
                raise Unsupported(f"`{stacked[0]}`, bound in the inner loop at line {info.lineno}, is read after "
                                  "it, where it holds that loop's last value")
        self.mask = saved_mask
        self.trips.setdefault(depth, level.ind)  # (for :meth:`_footprint`)
        self.levels.pop()
        # Names bound only in this level are private to it (the analysis proved they are not
        # read after it); names of outer levels keep their updated values.
        self.env = {**saved, **{k: v for k, v in self.env.items() if k in saved}}

    def _last_targets(self, info: LoopInfo, depth: int) -> None:
        """The loop's variables used after it (:attr:`LoopInfo.live_targets`) as the loop leaves
        them, bound after the batched code where the loop runs (:meth:`_end_last_values`):
        the last index of ``range(start, stop, step)``, ``stop - 1`` where ``stop`` is a Python
        int and the step 1 (else ``range(start, stop, step)[-1]``, the same Python int); the
        last index of ``enumerate(x, start)``, ``len(x) - 1 + start``; the last row of a
        sequence, ``x[-1]`` (the same object: a list's element, a view of an array's row).

        Raises:
            Unsupported: in an inner level (the name would take one value per outer
                iteration); where the expression reads a name the loop binds or writes (it is
                evaluated after the batched code), or recomputes a call.
        """
        if depth > 1:
            raise Unsupported(f"`{min(info.live_targets)}`, the variable of the inner loop at line "
                              f"{info.lineno}, is used after it")
        space = info.space
        def root(node):
            while isinstance(node, (gast.Subscript, gast.Attribute)):
                node = node.value
            return node.id if isinstance(node, gast.Name) else None

        # (names whose elements or attributes the body writes, `x[i] = ...`, `self.v[i] = ...`,
        # or calls a method of, `out.append(...)`)
        written = set(self.loop_stores) | {
            root(n) for s in info.body for n in gast.walk(s)
            if isinstance(n, (gast.Subscript, gast.Attribute)) and not isinstance(n.ctx, gast.Load)} | {
            root(n.func) for s in info.body for n in gast.walk(s)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
            and self.ctx.imports.resolve(n.func) is None} - {None}

        def evaluated_after(node):
            pure = all(isinstance(n, (gast.Name, gast.Attribute, gast.Subscript, gast.Constant, gast.BinOp,
                                      gast.UnaryOp, gast.Slice, gast.Tuple, gast.expr_context, gast.operator,
                                      gast.unaryop))
                       or isinstance(n, gast.Call) and self.ctx.imports.resolve(n.func) == "builtins.len"
                       for n in gast.walk(node))
            read = _loads(node) & written
            if not pure or read:
                raise Unsupported(f"the loop variables used after the loop at line {info.lineno} would be "
                                  f"computed after the batched code{f', which writes `{min(read)}`' if read else ''}")
            return copy.deepcopy(node)

        for name in sorted(info.live_targets):
            if space.kind == "range" and name == space.induction:
                bounds = [b for b in (space.start, space.stop, space.step) if b is not None]
                for bound in bounds:
                    evaluated_after(bound)
                step = 1 if space.step is None else constant_int(space.step)
                if step in (1, -1) and self._python_int(space.stop):
                    node = _folded_plus(space.stop, -step)  # (`reversed(range(a, b))` stops at `a - 1`)
                else:
                    node = gast.Subscript(value=gast.Call(func=templates.name("range"), args=copy.deepcopy(bounds),
                                                          keywords=[]), slice=const(-1), ctx=gast.Load())
            elif name == space.induction:  # the index of `enumerate`
                seq = evaluated_after(self._unstacked(space.items[0][1]))
                node = _folded_plus(templates.expr("len(S)", S=seq), -1)
                if space.enumerate_start is not None:
                    node = gast.BinOp(left=node, op=gast.Add(), right=evaluated_after(space.enumerate_start))
            else:
                seq = next(s for t, s in space.items if isinstance(t, gast.Name) and t.id == name)
                node = templates.expr("S[-1]", S=evaluated_after(self._unstacked(seq)))
            self.last_targets[name] = node

    def _python_int(self, node) -> bool:
        """Whether ``node`` is a Python int where the loop starts: a literal, ``len()``, a shape's
        element, or a name bound once to one (``n = len(x)``, ``n, d = x.shape``)."""
        if isinstance(node, gast.Name) and node.id in self.aliases:
            return self._python_int(self.aliases[node.id])
        if isinstance(node, gast.Name) and any(node.id in dims for dims in self._unpacked_shapes().values()):
            return True
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
                and node.value.attr == "shape" and constant_int(node.slice) is not None:
            return True
        if isinstance(node, gast.BinOp):
            return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv)) \
                and self._python_int(node.left) and self._python_int(node.right)
        return constant_int(node) is not None or self.ev(node).pytype == "int"

    def _unstacked(self, seq):
        """``y`` for ``tf.unstack(y)`` (axis 0), or a name bound once to it and read only by the loop:
        the loop runs over the rows of ``y``."""
        if self.lib.kind != "tf" or not isinstance(seq, (gast.Name, gast.Call)):
            return seq
        if isinstance(seq, gast.Call):  # `for y_i in tf.unstack(y)`
            value, defs = seq, None
        else:
            defs = self.ctx.definitions_of(seq)
            if len(defs) != 1:
                return seq
            _, value = analysis_binding(self.ctx, defs[0].node)
        if isinstance(value, gast.Call) and self.ctx.imports.resolve(value.func) == "tensorflow.unstack" \
                and len(value.args) == 1 and isinstance(value.args[0], gast.Name) \
                and all(k.arg == "axis" and constant_int(k.value) == 0 or k.arg in ("num", "name")
                        for k in value.keywords) \
                and _bound_once(self.info.function, value.args[0].id) \
                and (defs is None or [id(u) for u in self.ctx.users_of(defs[0].node)] == [id(seq)]):
            # `y` bound once (so the loop reads the rows unstacked), `ys` read only by the loop
            return gast.copy_location(templates.name(value.args[0].id), seq)
        return seq

    def _ragged_range(self, level, space, start: Val | None, stop: Val):
        """``for j in range(i)``, ``for j in range(i + 1, n)``: the inner space is padded to the
        smallest start and the largest stop, and masked.

        Iterations outside an outer iteration's own bounds still compute (pure code) but every
        effect is masked, exactly as under an ``if start <= j < stop`` (the triangular trap of
        case 010).
        """
        np_ = self.lib.alias
        if self.lib.kind != "np" or stop.rank != 0 or start is not None and start.rank != 0:
            raise Unsupported(f"the loop at line {level.info.lineno} has a per-iteration trip count")
        if space.step is not None and constant_int(space.step) != 1:
            raise Unsupported(f"the loop at line {level.info.lineno} has a per-iteration bound and a step")
        upper = space.stop
        lower, triangle = space.start, self._triangle(level, space, start, stop)
        outer = self.levels[level.depth - 2].ind if level.depth > 1 else None
        if stop.stacked:
            upper = templates.name(self.namer.new(f"{space.induction}_stop"))
            if triangle is not None and triangle[0] == "tril" and triangle[1] <= 0 and outer.widest is None \
                    and not any(isinstance(n, gast.Name) and n.id in self.nonnegative for n in gast.walk(outer.stop)):
                # `range(i + c)` in `range(s, m)` with `k = s + c - 1 <= 0`: the stops' largest is
                # the last row's, `m - 1 + c`, or none below 0 (also where no row runs: then
                # `m - 1 + c <= 0`), with no array of the stops made for it
                last = _plus(copy.deepcopy(outer.stop), triangle[1] - (0 if outer.start is None else
                                                                       constant_int(outer.start)))
                self.out += templates.replace("U = max(L, 0)", U=upper, L=last)
            else:
                self.out += templates.replace(f"U = {np_}.max(S, initial=0)", U=upper, S=stop.node)
            self.nonnegative.add(upper.id)
        if start is not None and start.stacked:
            # (where no outer iteration runs, the range is empty)
            lower = templates.name(self.namer.new(f"{space.induction}_start"))
            self.out += templates.replace(f"L = {np_}.min(S, initial=U)", L=lower, S=start.node,
                                          U=copy.deepcopy(upper))
            if triangle is not None:  # `range(i + c, n)` from i >= 0: j_start = c >= 0
                self.nonnegative.add(lower.id)
        level.out_start = len(self.out)
        level.ind = Ind(level.depth, space.induction, lower, upper, None)
        widest = None if outer is None else outer.widest if outer.widest is not None else outer.stop
        if triangle is not None and triangle[0] == "tril" and widest is not None and not any(
                isinstance(n, gast.Name) and n.id in self.nonnegative for n in gast.walk(widest)):
            # `range(i + c)` in `range(s, m)`: the last row's `m - 1 + c` (in a deeper triangle,
            # `m` is the widest stop of the level around)
            first = 0 if outer.start is None else constant_int(outer.start)
            level.ind.widest = _plus(copy.deepcopy(widest), triangle[1] - first)
        self.env[space.induction] = level.ind
        inside = None
        for bound, op in ((start, gast.GtE()), (stop, gast.Lt())):
            if bound is not None and bound.stacked:
                (j, b), full, rank = align(self.lib, [self._ind_val(level.ind), bound], "the loop bound")
                test = Val(gast.Compare(left=j.node, ops=[op], comparators=[b.node]), full, rank)
                inside = test if inside is None else self._and(inside, test)
        if self.mask is None and triangle is not None:
            level.triangle = triangle + (inside,)
        self.mask = inside if self.mask is None else self._and(self.mask, inside)

    def _triangle(self, level, space, start: Val | None, stop: Val) -> tuple[str, int] | None:
        """``("tril", k)`` where ``for j in range(i + c)`` (also ``range(i)``, ``range(c + i)``,
        ``range(i - c)``) runs inside ``for i in range(s, n)`` (steps of 1): its iteration
        space is the cells ``j - (i - s) <= s + c - 1`` of the grid whose row ``i - s`` and column
        ``j`` it visits, those ``np.tril`` keeps with ``k = s + c - 1``. ``("triu", 0)`` where
        ``for j in range(i + c, m)``, ``m`` invariant: the grid's columns start at ``j = s + c``,
        so row ``i - s`` starts at its diagonal."""
        outer = self.levels[level.depth - 2].ind if level.depth > 1 else None
        if outer is None or isinstance(outer, Shifted) or outer.step is not None and constant_int(outer.step) != 1:
            return None
        first = 0 if outer.start is None else constant_int(outer.start)
        if first is None:
            return None

        def offset(node) -> int | None:  # `c` where node is `i + c`
            def is_outer(name):
                return isinstance(name, gast.Name) and name.id == outer.name and self.env.get(name.id) is outer
            if is_outer(node):
                return 0
            if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
                left, right = constant_int(node.left), constant_int(node.right)
                if is_outer(node.left) and right is not None:
                    return right if isinstance(node.op, gast.Add) else -right
                if is_outer(node.right) and left is not None and isinstance(node.op, gast.Add):
                    return left
            return None

        if stop.stacked and (start is None or constant_int(space.start) == 0):
            c = offset(space.stop)
            return None if c is None else ("tril", first + c - 1)
        if start is not None and start.stacked and not stop.stacked and first >= 0:
            c = offset(space.start)
            return None if c is None or c < 0 else ("triu", 0)
        return None

    def _length_of(self, stop):
        """The array whose every row ``range(stop)`` visits (``x.shape[0]``, ``len(x)``, ``n = len(x)``,
        ``n, d = x.shape``)."""
        if isinstance(stop, gast.Name) and stop.id in self.aliases:
            # `n = len(x)` measured `x` where `n` was bound: so it is where the loop starts only
            # if `x` keeps its length in between
            found = self._length_of(self.aliases[stop.id])
            return found if found is not None and self._shape_kept(found) else None
        if isinstance(stop, gast.Name):
            return next((array for array, dims in self._unpacked_shapes().items()
                         if dims and dims[0] == stop.id), None)
        if isinstance(stop, gast.Subscript) and constant_int(stop.slice) == 0:
            base = stop.value
            if isinstance(base, gast.Attribute) and base.attr == "shape" and isinstance(base.value, gast.Name):
                return base.value.id
            if isinstance(base, gast.Call) and self.ctx.imports.resolve(base.func) in (
                    "tensorflow.shape", "numpy.shape") and len(base.args) == 1 \
                    and isinstance(base.args[0], gast.Name):
                return base.args[0].id
        if isinstance(stop, gast.Call) and self.ctx.imports.resolve(stop.func) == "builtins.len" \
                and len(stop.args) == 1 and isinstance(stop.args[0], gast.Name):
            return stop.args[0].id
        return None

    def _unpacked_shapes(self) -> dict[str, list[str | None]]:
        """``{"x": ["n", "d"]}`` for ``n, d = x.shape`` (or ``np.shape(x)``), a statement of the
        function's body itself (no branch, no nested function) before the loop, where ``n`` and
        ``d`` are bound nowhere else in the function and ``x`` is bound once (a parameter
        never) and never reshaped in place (``x.shape = ...``, ``x.resize(...)``): the names of
        the lengths of ``x``'s axes wherever the loop runs. None in a function with a ``match``
        (its captures bind names no ``Name`` node shows)."""
        fdef = self.info.function
        if fdef is None or self.lib.kind != "np":
            return {}
        if getattr(self, "_shapes_unpacked", None) is None:
            counts = {}
            for n in gast.walk(fdef):
                if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
                    counts[n.id] = counts.get(n.id, 0) + 1
            found = {}
            for node in fdef.body:
                if not (isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Tuple)
                        and node.lineno < self.info.lineno):
                    continue
                array = _shape_of_name(self.ctx, node.value)
                if array is None or not self._shape_kept(array.id):
                    continue
                found[array.id] = [e.id if isinstance(e, gast.Name) and counts.get(e.id) == 1 else None
                                   for e in node.targets[0].elts]
            self._shapes_unpacked = found
        return self._shapes_unpacked

    def _shape_kept(self, name: str) -> bool:
        """``name`` has one shape (one length) throughout the function: it is bound once (a
        parameter never), the function has no ``match`` (whose captures no ``Name`` shows), and
        every other mention of it reads an element or a slice (``x[i]``), writes one element
        (``x[i] = v``, no slice: a list's slice assignment changes its length), reads
        ``x.shape``, ``x.ndim``, ``x.size`` or ``x.dtype``, or is measured (``len(x)``,
        ``np.shape(x)``). Passed anywhere else (``y = x``, ``f(x)``, ``x.append(v)``,
        ``setattr``), it could be reshaped or resized there. A name declared ``global`` or
        ``nonlocal`` never: any call may bind it again."""
        fdef = self.info.function
        if fdef is None or any(type(n).__name__ == "Match" for n in gast.walk(fdef)):
            return False
        if any(isinstance(n, (gast.Global, gast.Nonlocal)) and name in n.names for n in gast.walk(fdef)):
            return False  # (any call may bind it again: helper-71)
        # (what runs after the outermost loop around the loop cannot change it before the loop)
        loop = self.info.node
        last = max((n.end_lineno for n in gast.walk(fdef) if isinstance(n, (gast.For, gast.While))
                    and n.lineno <= loop.lineno <= n.end_lineno),  # (none around a comprehension)
                   default=getattr(loop, "end_lineno", None) or loop.lineno)
        for node in gast.walk(fdef):
            if not (isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load)) \
                    or node.lineno > last:
                continue  # (its bindings are counted below)
            parent = self.ctx.parents.get(id(node))
            if isinstance(parent, gast.Subscript) and parent.value is node and (
                    isinstance(parent.ctx, gast.Load) or isinstance(parent.ctx, gast.Store)
                    and not any(isinstance(p, gast.Slice) for p in gast.walk(parent.slice))):
                continue
            if isinstance(parent, gast.Attribute) and parent.attr in ("shape", "ndim", "size", "dtype") \
                    and isinstance(parent.ctx, gast.Load) \
                    and not isinstance(self.ctx.parents.get(id(parent)), gast.Attribute):
                continue
            if isinstance(parent, gast.Call) and parent.args == [node] and not parent.keywords \
                    and self.ctx.imports.resolve(parent.func) in ("builtins.len", "numpy.shape"):
                continue
            return False
        if not _bound_once(fdef, name):
            return False
        # a local bound to a new array (`np.zeros(...)`): no other name reaches it; a parameter:
        # another parameter may be the same list or array (`f(l, l)`), or hold it, and nothing
        # may resize what another name reaches
        value = self.aliases.get(name)
        if name in {a.id for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs}:
            return not self._resizes_others(fdef, name, last)
        return isinstance(value, gast.Call) and self.ctx.imports.resolve(value.func) in _FRESH_CALLS

    def _resizes_others(self, fdef, name: str, last: int) -> bool:
        """Whether code of ``fdef`` up to line ``last`` may resize or reshape an array or list
        that a name other than ``name`` reaches, which may be ``name``'s own (the same list
        passed twice, ``f(l, l)``, a global list the caller passed, or one an object holds).

        It may, unless every such name is a local bound only by plain assignments of new values
        (a literal of constants, arithmetic, a NumPy or builtin call that does not return its
        argument: ``np.zeros(n)``, not ``np.asarray(y)``), and none of these runs before the
        loop: a method call on another name other than one that only reads (``ys.append(v)``,
        ``y.resize(...)``, ``holder.grow()``); a call of a function that is neither NumPy's
        (``np.ndarray.resize`` is), a builtin (``setattr`` and ``exec`` are), ``math``'s nor
        TensorFlow's, whatever its arguments (a function of the module may mutate a global);
        a ``with`` other than ``np.errstate`` (its ``__enter__`` runs code); an attribute stored
        (``y.shape = ...``), a slice stored, ``+=`` or ``del`` on another name. A generator or
        coroutine may be resumed after its caller changed anything: it may, always. The loop's
        own calls are proven pure by the analysis."""
        def root(node):
            while isinstance(node, (gast.Attribute, gast.Subscript)):
                node = node.value
            return node

        if any(isinstance(n, (gast.Yield, gast.YieldFrom, gast.Await)) for n in gast.walk(fdef)):
            return True
        arguments = fdef.args
        params = {a.id for a in arguments.args + arguments.kwonlyargs + arguments.posonlyargs}
        params |= {a.id for a in (arguments.vararg, arguments.kwarg) if a is not None}
        declared = {n for g in gast.walk(fdef) if isinstance(g, (gast.Global, gast.Nonlocal)) for n in g.names}

        def new_value(value, local):  # an object no other name reaches
            if isinstance(value, (gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare)):
                return True
            if isinstance(value, (gast.List, gast.Tuple, gast.Set, gast.Dict)):
                return all(isinstance(n, (gast.Constant, gast.List, gast.Tuple, gast.Set, gast.Dict, gast.expr_context))
                           for n in gast.walk(value))
            if isinstance(value, gast.Call):
                callee = self.ctx.imports.resolve(value.func) or ""
                if isinstance(value.func, gast.Attribute) and isinstance(root(value.func), gast.Name) \
                        and root(value.func).id == local:
                    return True  # `ta = ta.write(i, v)`: a method of its own value
                return callee.startswith(("numpy.", "tensorflow.", "builtins.", "math.")) \
                    and callee not in _RETURNING_ARGUMENT and not any(k.arg == "copy" for k in value.keywords)
            return False

        def fresh(local):  # bound only by `local = <new value>`
            if local in params or local in declared:
                return False
            bound = False
            for n in gast.walk(fdef):
                if isinstance(n, gast.Name) and n.id == local and isinstance(n.ctx, (gast.Store, gast.Del)):
                    parent = self.ctx.parents.get(id(n))
                    if not (isinstance(parent, gast.Assign) and len(parent.targets) == 1
                            and parent.targets[0] is n and new_value(parent.value, local)):
                        return False  # (a `for` target, `with ... as`, `:=`, unpacking, `except ... as`)
                    bound = True
            return bound  # (never bound here: a global or a closure's)

        def slice_object(index):  # `s = slice(n, n)`, then `ys[s] = v`
            return isinstance(index, gast.Name) and any(
                isinstance(st, gast.Assign) and isinstance(st.value, gast.Call)
                and self.ctx.imports.resolve(st.value.func) == "builtins.slice"
                and any(isinstance(t, gast.Name) and t.id == index.id for t in st.targets) for st in gast.walk(fdef))

        def other(node):  # reaches what another name may reach
            r = root(node)
            return isinstance(r, gast.Name) and r.id != name and self.ctx.imports.resolve(r) is None \
                and not fresh(r.id)

        inside = {id(n) for n in gast.walk(self.info.node)}  # (the loop's own calls are proven pure)
        for node in gast.walk(fdef):
            if getattr(node, "lineno", 0) > last or id(node) in inside:
                continue
            if isinstance(node, gast.Attribute) and other(node.value) and not self.ctx.imports.resolve(node) \
                    and node.attr not in _READING_METHODS and node.attr not in _DATA_ATTRIBUTES:
                return True  # (`ys.append(v)`, and `map(ys.append, vals)`: a method as a value)
            if isinstance(node, gast.Call):
                callee = self.ctx.imports.resolve(node.func) or ""
                if isinstance(node.func, gast.Attribute) and not callee:
                    if not isinstance(root(node.func.value), gast.Name) and node.func.attr not in _READING_METHODS:
                        return True  # (`type(ys).append(ys, v)`: a method of what a call gives)
                    continue
                if callee in _ESCAPING_BUILTINS or callee.startswith("numpy.ndarray.") \
                        or not callee.startswith(("numpy.", "builtins.", "math.", "tensorflow.")):
                    return True
                if callee.startswith("builtins.") and callee.count(".") >= 2 \
                        and callee.rsplit(".", 1)[1] not in _READING_METHODS:
                    return True  # (`list.extend(ys, v)`: a method of a builtin type, unbound)
                if callee in _ITERATING_BUILTINS and any(
                        other(a.value if isinstance(a, gast.Starred) else a) for a in node.args):
                    return True  # (iterating a generator runs its code)
            elif isinstance(node, (gast.For, gast.comprehension)):
                iterated = node.iter
                if not (isinstance(iterated, gast.Call) and self.ctx.imports.resolve(iterated.func) == "builtins.range") \
                        and any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and other(n)
                                for n in gast.walk(iterated)):
                    return True  # (`for it in items`: a generator's code runs)
            elif isinstance(node, gast.With):
                if any(not (isinstance(item.context_expr, gast.Call)
                            and self.ctx.imports.resolve(item.context_expr.func) == "numpy.errstate")
                       for item in node.items):
                    return True
            elif isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Delete)):
                targets = node.targets if isinstance(node, (gast.Assign, gast.Delete)) else [node.target]
                for t in targets:
                    for n in gast.walk(t):
                        if isinstance(n, gast.Attribute) and isinstance(n.ctx, (gast.Store, gast.Del)) and other(n):
                            return True
                        # (a list's slice assignment resizes it; an array's index of a tuple, `c[k, :]`, never)
                        if isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del)) and other(n) and (
                                isinstance(node, gast.Delete) or isinstance(n.slice, gast.Slice) or slice_object(n.slice)):
                            return True
                    if isinstance(node, (gast.AugAssign, gast.Delete)) and isinstance(t, gast.Name) and other(t):
                        return True
        return False

    def _same_length(self, a: str | None, b: str | None) -> bool:
        """True when arrays ``a`` and ``b`` provably have the same number of rows: one name. One
        dimension's name in their declarations (``x: [n]``, ``w: [n]``) is the user's word, and
        the lengths are checked (helper-72 for NumPy; TensorFlow's too since session 43)."""
        if a is None or b is None or a in self.loop_stores or b in self.loop_stores:
            return False  # `range(len(y))` measures y before the loop binds it again
        return a == b

    def _declared_as_long(self, names: list, depth: int) -> bool:
        """Whether the sequences ``zip`` reads at the outermost level are all parameters the
        user declared with one name for their first dimension (``x: [n, d]``, ``y: [n]``), never
        bound in the loop: their lengths are the declaration's word, to be asserted."""
        if depth != 1 or None in names or any(n in self.loop_stores for n in names):
            return False
        shapes = [self.params.get(n) for n in names]
        return all(s is not None and not (s.inferred or s.sequence) and s.dim(0) is not None
                   and s.dim(0) == shapes[0].dim(0) for s in shapes)

    def _made_as_long(self, made: str, other: str, axis: int = 0) -> bool:
        """``made`` is bound once, before the loop, to a new array with as many rows as
        ``other`` along ``axis``, a name the function never binds: ``np.zeros(len(other))``
        (``empty``, ``ones``, ``full``; the length also as ``other.shape[0]``, or the entry
        ``axis`` of a tuple) or, along axis 0, ``np.zeros_like(other)``; in the loop's block,
        with nothing in between that could resize either (:func:`~pforge.transpile.analysis.nodes.quiet_between`)."""
        value = self.aliases.get(made) if made is not None and other is not None else None
        if not isinstance(value, gast.Call) or not value.args or self.lib.kind != "np":
            return False
        made_at = self.ctx.parents.get(id(value))
        if not isinstance(made_at, gast.Assign) or not quiet_between(self.ctx, made_at, self.info.node, {made, other}):
            return False  # (`x.pop()` or `out.resize(...)` before the loop: lengths apart)
        if self.info.function is None or other in _stores([self.info.function]):
            return False  # `other` bound in the function could be another array than the one measured
        callee = self.ctx.imports.resolve(value.func) or ""
        first = value.args[0]
        if callee in _MADE_LIKE:
            return axis == 0 and isinstance(first, gast.Name) and first.id == other \
                and not any(k.arg == "shape" for k in value.keywords)
        if callee in _MADE_OF_SHAPE:
            if isinstance(first, (gast.Tuple, gast.List)):
                if axis >= len(first.elts) or any(isinstance(e, gast.Starred) for e in first.elts):
                    return False
                first = first.elts[axis]
            elif axis != 0:
                return False
            return self._length_of(first) == other
        return False

    def _bound_just_before(self, name: str) -> bool:
        """``name`` (a key of :attr:`aliases`) is bound once, to the value held there, by a statement in the
        loop's block with nothing between it and the loop that could rebind, resize or write
        what that value reads (:func:`~pforge.transpile.analysis.nodes.quiet_between`): the
        value's names hold at the loop what they held there (``n_cols = mat.shape[1]``)."""
        value = self.aliases[name]  # (the value of `name = value`, its one binding)
        read = {n.id for n in gast.walk(value) if isinstance(n, gast.Name)}
        return quiet_between(self.ctx, self.ctx.parents.get(id(value)), self.info.node, read | {name})

    def _shaped_like(self, made: str) -> str | None:
        """The array ``other`` whose shape ``made`` has where the loop starts: ``made`` is bound
        once to ``np.zeros(other.shape)`` (``np.shape(other)``; ``ones``, ``empty``, ``full``)
        or ``np.zeros_like(other)`` (no ``shape=``), in the loop's block with nothing in
        between that could rebind or resize either
        (:func:`~pforge.transpile.analysis.nodes.quiet_between`); else None."""
        value = self.aliases.get(made)
        if not isinstance(value, gast.Call) or not value.args or isinstance(value.args[0], gast.Starred):
            return None
        callee, first = self.ctx.imports.resolve(value.func) or "", value.args[0]
        if callee in _MADE_LIKE:
            other = first if not any(k.arg == "shape" for k in value.keywords) else None
        elif callee in _MADE_OF_SHAPE \
                and not any(k.arg == "shape" for k in value.keywords):
            other = first.value if isinstance(first, gast.Attribute) and first.attr == "shape" else \
                first.args[0] if isinstance(first, gast.Call) and self.ctx.imports.resolve(first.func) == "numpy.shape" \
                and len(first.args) == 1 and not first.keywords else None
        else:
            return None
        if not isinstance(other, gast.Name) or other.id == made or self.ctx.imports.resolve(other) is not None:
            return None
        made_at = self.ctx.parents.get(id(value))
        if not isinstance(made_at, gast.Assign) or not quiet_between(self.ctx, made_at, self.info.node, {made, other.id}):
            return None
        return other.id

    def _made_float(self, made: str) -> bool:
        """``made`` is bound once, before the loop, to ``np.zeros(shape)`` (``empty``, ``ones``)
        with no dtype, so float64, in the loop's block with nothing in between that could rebind
        it (:func:`~pforge.transpile.analysis.nodes.quiet_between`): a check that it is a
        float array would always pass."""
        value = self.aliases.get(made)
        if not isinstance(value, gast.Call) or len(value.args) != 1 or value.keywords or self.lib.kind != "np" \
                or isinstance(value.args[0], gast.Starred) \
                or self.ctx.imports.resolve(value.func) not in ("numpy.zeros", "numpy.empty", "numpy.ones"):
            return False
        made_at = self.ctx.parents.get(id(value))
        return isinstance(made_at, gast.Assign) and quiet_between(self.ctx, made_at, self.info.node, {made})

    def _row_streams(self, level: _Level, space):
        depth = level.depth
        seqs = []
        for target, seq in space.items:
            combinations = self._combinations(seq, target, space.kind)
            kinds = {"floaty": 0, "wide": 0}  # (rows of an array are float64 where it is, :attr:`Val.floaty`)
            if combinations is not None:
                node, rank = combinations
            elif self._object_rows(level, target, seq):
                self.env[target.id] = ObjectRows(seq, target.id)
                self.object_seqs[target.id] = seq
                seqs.append(seq)
                if depth == 1:
                    self.labels.append(gast.unparse(seq).strip())
                continue
            else:
                seq = self._unstacked(seq)
                val = self.ev(seq)
                if val.stacked:
                    raise Unsupported("an inner loop over rows of a per-iteration value")
                if isinstance(seq, gast.Name) and self._shape_of(seq.id) is not None:
                    rank = self._shape_of(seq.id).rank
                else:
                    rank = val.rank
                if rank is None and not (depth == 1 and isinstance(target, gast.Name)):
                    raise Unsupported(f"the rank of `{gast.unparse(seq).strip()}` is unknown")
                if rank is None and self.lib.kind == "np" and not self.to_tf and isinstance(seq, gast.Name) \
                        and not _evidently_array(self.ctx, self.info.function, seq, at=self.info.node):
                    # rows of a value of no known rank, taken through `np.asarray`: only an
                    # array's rows are what the loop iterates over (a list of tuples
                    # `(1, 2.5)` converts to float64 rows, ragged ones raise; helper-56)
                    check = templates.expr(f"type(S) is {self.lib.alias}.ndarray", S=seq)
                    if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                        self.checks.append(check)
                node = self._as_array(copy.deepcopy(seq))
                kinds = {"floaty": val.floaty, "wide": val.wide}
            if rank == 0:
                raise Unsupported("iterating over a scalar")
            # rows of unknown rank: each rule that needs it says so (a row differentiated whole,
            # `tape.gradient(row, x)`, does not)
            row = Val(node, (True,), None if rank is None else rank - 1, **kinds)
            if depth > 1:
                row = Val(core.insert_axes(self.lib, Val(node), 0, depth - 1), (False,) * (depth - 1) + (True,),
                          rank - 1, **kinds)
            seqs.append(seq)
            if isinstance(target, gast.Name):
                self.env[target.id] = row
            else:
                if row.rank is None or row.rank < 1:
                    raise Unsupported("unpacking rows of unknown rank")
                if combinations is not None:
                    pass  # rows of `r` items, as many as the targets (`_combinations`)
                elif self.lib.kind == "np" and not self.to_tf:
                    # `a, b = row` raises for a row of another length; `row[..., 1]` would not
                    if not all(isinstance(n, (gast.Name, gast.Attribute, gast.Load)) for n in gast.walk(seq)):
                        raise Unsupported("unpacking the rows of a computed sequence")
                    self.checks.append(templates.expr(f"{self.lib.alias}.shape(S)[1] == {len(target.elts)}", S=seq))
                for k, elt in enumerate(target.elts):
                    part = core.subscript(row.node, [gast.Slice(lower=None, upper=None, step=None)] * depth
                                          + [const(k)])
                    self.env[elt.id] = Val(part, row.full, row.rank - 1, **kinds)
            if depth == 1:
                self.labels.append(gast.unparse(seq).strip())
        names = [s.id if isinstance(s, gast.Name) else None for s in seqs]
        if len(seqs) > 1 and not all(self._same_length(names[0], n) for n in names[1:]):
            # `len()` of an iterator raises, a dict has one: the check needs arrays, or values of
            # an inferred rank, which it first checks to be arrays or lists (`isinstance`).
            inferred = [s for s in seqs if isinstance(s, gast.Name) and self._shape_of(s.id) is not None
                        and self._shape_of(s.id).inferred and not _evidently_array(self.ctx, self.info.function, s, at=self.info.node)]
            known = all(isinstance(s, gast.Name) and (
                self._declared(s.id) or _evidently_array(self.ctx, self.info.function, s, at=self.info.node))
                or any(s is t for t in inferred) for s in seqs)
            if (self.lib.kind != "np" or self.to_tf) and self._declared_as_long(names, depth):
                # TensorFlow keeps no loop beside its batched code: the declaration that the rows
                # are as many (`x: [n, d]`, `y: [n, d]`) is asserted, as a declared rank is
                tf_ = self.lib.alias.removesuffix(".experimental.numpy")
                for other in names[1:]:
                    self.out += templates.replace(
                        f"{tf_}.debugging.assert_equal({tf_}.shape(A)[0], {tf_}.shape(B)[0], "
                        f"message='zip stops at the shortest: {names[0]} and {other} are declared as long')",
                        A=templates.name(names[0]), B=templates.name(other))
            elif self.lib.kind != "np" or self.to_tf or depth != 1 or not known or any(
                    isinstance(n, gast.Name) and n.id in self.loop_stores for s in seqs for n in gast.walk(s)):
                raise Unsupported("`zip` over sequences pforge cannot prove to have the same length")
            else:
                # zip stops at the shortest: the batched rows are right where the lengths agree,
                # which the code cannot prove, so it is checked at run time.
                for s in inferred:
                    self.checks.append(templates.expr(f"type(S) in ({self.lib.alias}.ndarray, list, tuple)", S=s))
                lengths = [gast.Call(func=templates.name("len"), args=[copy.deepcopy(s)], keywords=[]) for s in seqs]
                self.checks.append(gast.Compare(left=lengths[0], ops=[gast.Eq()] * (len(lengths) - 1),
                                                comparators=lengths[1:]))
        if space.kind == "enumerate":
            seq = seqs[0]
            length = templates.expr(f"{self.lib.alias}.shape(S)[0]" if self.lib.kind == "tf" else "len(S)", S=seq)
            start = space.enumerate_start
            stop = length if start is None else gast.BinOp(left=copy.deepcopy(start), op=gast.Add(), right=length)
            level.ind = Ind(depth, space.induction, start, stop, None,
                            seq.id if isinstance(seq, gast.Name) and start is None else None)
            self.env[space.induction] = level.ind

    def _object_rows(self, level, target, seq) -> bool:
        """Whether the loop reads the items of ``seq`` (a name, at the outer level of NumPy code)
        only through their attributes (``st.alpha``, not ``st.shape`` nor ``st.fit()``): then
        they need be no array (:class:`ObjectRows`). The loop's results must all be arrays
        (written into, stacked, or sums into a new array updated in place), since a gathered
        list is batched as a NumPy array, whose numbers are NumPy values where the loop's were
        Python numbers: they compute alike with arrays of float64 values only, which
        the check in front asks."""
        if not (isinstance(target, gast.Name) and isinstance(seq, gast.Name) and level.depth == 1
                and self.lib.kind == "np" and not self.to_tf and seq.id not in self.loop_stores):
            return False
        if _evidently_array(self.ctx, self.info.function, seq, at=self.info.node) or self._declared(seq.id):
            return False
        uses = [n for n in gast.walk(self.info.node) if isinstance(n, gast.Name) and n.id == target.id
                and isinstance(n.ctx, gast.Load)]
        for use in uses:
            parent = self.ctx.parents.get(id(use))
            call = self.ctx.parents.get(id(parent))
            if not (isinstance(parent, gast.Attribute) and parent.value is use and isinstance(parent.ctx, gast.Load)
                    and parent.attr not in ARRAY_ATTRIBUTES
                    and not (isinstance(call, gast.Call) and call.func is parent)):
                return False
        info = self.info
        outputs_are_arrays = not info.arg_reductions and all(
            col.kind in ("stack", "concat") for col in info.collectors.values()) and all(
            _fixed_shape(self.ctx, info, name, red.updates) for name, red in info.reductions.items())
        return bool(uses) and outputs_are_arrays

    def _gathered(self, node: gast.Attribute) -> Val:
        """``st.alpha`` of an :class:`ObjectRows` item: the list of every item's ``alpha``,
        gathered before the checks (:meth:`_gather_attributes`), as an array."""
        rows = self.env[node.value.id]
        key = (rows.target, node.attr)
        if key not in self.gathered:
            self.gathered[key] = self.namer.new(f"{rows.target}_{node.attr}")
        return Val(self.lib.call("asarray", templates.name(self.gathered[key])), (True,), 0)

    def _gather_attributes(self) -> None:
        """The lists the batched code reads (:meth:`_gathered`), built before the checks, which
        ask that each holds Python floats, or Python ints float64 holds exactly (no bools, which
        add as ints in Python and not in NumPy), that the arrays the loop reads hold float64 values,
        with which Python's numbers compute as NumPy's do, and that the loop runs
        (no items: ``np.asarray([])`` holds floats, whatever the attribute is)."""
        read = {n.id for st in self.out for n in gast.walk(st) if isinstance(n, gast.Name)}
        for (target, attr), name in sorted(self.gathered.items()):
            if name not in read:
                continue
            seq = self.object_seqs[target]
            # (a list or tuple only: gathering an iterator's items would leave none to the loop)
            self.prelude += templates.replace(
                f"{name} = [{target}.{attr} for {target} in S] if type(S) in (list, tuple) else []", S=seq)
            listed = templates.expr("type(S) in (list, tuple)", S=copy.deepcopy(seq))
            if gast.dump(listed) not in {gast.dump(c) for c in self.checks}:
                self.checks.insert(0, listed)
            self.checks.append(templates.expr(
                "all(type(v) is float for v in N) or all(type(v) is int and -2 ** 53 <= v <= 2 ** 53 for v in N)",
                N=templates.name(name)))
            # Python's numbers compute with float64 arrays as float64 arrays do; with int8 or
            # float32 ones they take the array's dtype, where an int64 or float64 array does not
            self._check_float64(core.STRICT)
            self.nonempty = True

    def _combinations(self, seq, target, kind="rows"):
        """``for a, b in itertools.combinations(xs, 2)``: the rows are the items of ``xs`` at
        the index tuples ``combinations(range(len(xs)), r)`` yields, in its order (Python's
        own function makes the index array, so the order is the loop's by construction):
        ``np.asarray(xs)[np.array(list(combinations(range(len(xs)), r)), dtype=np.intp).reshape(-1, r)]``.

        Returns ``(node, rank)`` of the array of rows, or None when ``seq`` is no such call.
        Needs ``xs`` the same on every iteration, of known rank, and ``len(xs) >= r`` (checked
        at run time: no pair, no trip).
        """
        if not (isinstance(seq, gast.Call) and self.ctx.imports.resolve(seq.func) == "itertools.combinations"):
            return None
        r = constant_int(seq.args[1]) if len(seq.args) == 2 and not seq.keywords else None
        if self.lib.kind != "np" or self.to_tf or r is None or r < 1 or kind != "rows":
            # (`enumerate(combinations(...))` would count with `len()` of an iterator)
            raise Unsupported("`itertools.combinations` batched only in NumPy code, with a constant length, "
                              "not enumerated or zipped")
        if isinstance(target, gast.Tuple) and len(target.elts) != r:
            raise Unsupported(f"rows of {r} items unpacked into {len(target.elts)} names")
        items = self.ev(seq.args[0])
        rank = self._shape_of(seq.args[0].id).rank if isinstance(seq.args[0], gast.Name) and \
            self._shape_of(seq.args[0].id) is not None else items.rank
        if items.stacked or rank is None or rank < 1 or any(
                isinstance(n, gast.Name) and n.id in self.loop_stores for n in gast.walk(seq.args[0])):
            raise Unsupported("`itertools.combinations` of a sequence of unknown rank, or one the loop changes")
        if rank >= 2:  # rows that are lists would add as lists (`a - b` raises): arrays only
            if not isinstance(seq.args[0], gast.Name):
                raise Unsupported("`itertools.combinations` of rows of a computed value")
            self._require_arrays([seq.args[0].id])
        base = copy.deepcopy(seq.args[0])
        indices = templates.expr(f"{self.lib.alias}.array(list(F(range(len(X)), {r})), "
                                 f"dtype={self.lib.alias}.intp).reshape(-1, {r})",
                                 F=copy.deepcopy(seq.func), X=base)
        self.checks.append(templates.expr(f"len(X) >= {r}", X=copy.deepcopy(base)))
        pairs = gast.Subscript(value=self._as_array(copy.deepcopy(base)), slice=indices, ctx=gast.Load())
        return self._hoist(pairs, "combined"), rank + 1

    # -- derived induction variables -------------------------------------------------------------

    def _start_derived(self, level, name, updates):
        """``j`` where an iteration starts: its start plus the iteration count times the sum of
        its steps (each update then adds its own, :meth:`StatementsMixin._stmt`)."""
        from pforge.transpile.analysis.classes import signed_step
        if self.lib.kind == "tf" or level.ind is None:
            raise Unsupported(f"derived induction variable `{name}`")
        steps = []
        for stmt in updates:
            step = signed_step(stmt, name)
            if self.ev(step).stacked:
                raise Unsupported(f"`{name}` steps by a per-iteration amount")
            steps.append(step)
        total = steps[0]
        for step in steps[1:]:
            total = gast.BinOp(left=total, op=gast.Add(), right=copy.deepcopy(step))
        if all(constant_int(step) is not None for step in steps):
            total = const(sum(constant_int(step) for step in steps))
        count = self._iteration_number(level)
        term = count if constant_int(total) == 1 else gast.BinOp(left=count, op=gast.Mult(), right=copy.deepcopy(total))
        # evaluated as the loop computes it, `j + (i + 1)`: the kinds of the start and the
        # index decide the dtype (a Python int start is weak beside an int8 `x[i]`, NEP 50)
        self.env[name] = self._derived_start(level, name)
        if not self.env[name].python and self.lib.kind == "np":
            # a start of unknown kind: a Python int past int64 would raise or wrap in the
            # batched int64 `j + i * c` where the loop's ints grow; a float16 or float32 start
            # rounds at every step of the loop (2048 + 1 is 2048 in float16), where the closed
            # form rounds once (a float64 one only in the last bits, as the plan's remark says)
            np_ = self.lib.alias
            check = templates.expr(f"isinstance(N, (float, {np_}.integer)) or isinstance(N, int) and "
                                   f"-2 ** 62 <= N <= 2 ** 62", N=templates.name(name))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)
        self.env[name] = self.ev(gast.BinOp(left=templates.name(name), op=gast.Add(), right=term))
        self.derived_steps[name] = (total, dict(zip(map(id, updates), steps)))

    def _derived_start(self, level, name) -> Val:
        """The value of the derived induction variable ``name`` where the loop starts: a Python
        number where the function binds it to a literal before the loop (``j = 0``), else an
        invariant scalar of unknown kind (a Python number or a NumPy scalar, which the batched
        arithmetic casts by, as for ``i + c``)."""
        from pforge.transpile.analysis.constants import _constant_on_entry
        entry = _constant_on_entry(level.info, name) if level.info.function is not None else None
        if type(entry) in (int, float):
            return Val(templates.name(name), (), 0, True, pytype=type(entry).__name__)
        return Val(templates.name(name), (), 0)

    def _wrapped(self, level, name, stmt) -> gast.expr:
        """``w if i == start else E(i - step)``, each wrap-around variable ``E`` reads replaced
        by its own such expression first (the analysis lets ``E`` read only those bound after
        ``w`` in the body, so the substitution ends)."""
        ind = level.ind
        first = copy.deepcopy(ind.start) if ind.start is not None else const(0)
        step = copy.deepcopy(ind.step) if ind.step is not None else const(1)
        if name in self.previous_starts:  # (`prev = x[-1]`: `x[i - 1]` on every iteration, the first too)
            return _substitute(stmt.value, {ind.name: templates.expr(f"{ind.name} - S", S=step)})
        others = {n.id for n in gast.walk(stmt.value) if isinstance(n, gast.Name) and n.id in level.info.wraparound}
        value = _substitute(stmt.value, {o: self._wrapped(level, o, level.info.wraparound[o]) for o in others})
        choice = gast.IfExp(test=templates.expr(f"{ind.name} == F", F=first), body=templates.name(name),
                            orelse=_substitute(value, {ind.name: templates.expr(f"{ind.name} - S", S=step)}))
        choice.pforge_one_type = True  # (checked in front: the start is of the type of `E`)
        return choice

    def _start_is_previous(self, level, name, stmt) -> bool:
        """Whether the wrap-around variable ``name`` (``w = E`` last in the body) starts as ``E``
        of the iteration before the first (``prev = x[-1]`` before ``prev = x[i]`` over
        ``range(len(x))``, a circular difference): then every iteration, the first too, reads
        ``E(i - step)``, of one type, and no check of the start is needed. ``E`` may read no
        other wrap-around variable, and the range starts and steps by literals (the index before
        ``range(a, n)`` is ``a - 1`` computed in ``a``'s type, which wraps for a NumPy uint8)."""
        ind = level.ind
        if any(isinstance(n, gast.Name) and n.id in level.info.wraparound for n in gast.walk(stmt.value)):
            return False
        f = constant_int(ind.start) if ind.start is not None else 0
        s = constant_int(ind.step) if ind.step is not None else 1
        if f is None or s is None:
            return False  # (`x[a - 1]` of `a = np.uint8(0)` is `x[255]`, where `i - 1` of an int64 `i` is -1)
        return bound_at_entry_to(self.ctx, level.info.node, name, _substitute(stmt.value, {ind.name: const(f - s)}))

    def _start_wraparounds(self, level):
        """The wrap-around variables ``w`` of a level (``w = E`` last in the body,
        :attr:`LoopInfo.wraparound`) as the body reads them: ``E`` of the iteration before, and
        ``w``'s value before the loop on the first, ``np.where(i == start, w, E(i - step))``
        (:meth:`_wrapped`). ``E`` reads only the loop index, invariants and wrap-around
        variables, so shifting the index is all it takes; its reads are made where the loop
        makes them (not on the first iteration: ``b[i - 1]`` there would be ``b[-1]``).

        Raises:
            Unsupported: TensorFlow code, a loop without a plain index, under an ``if``, or a
                value before the loop of unknown rank.
        """
        wraps = level.info.wraparound
        if not wraps:
            return
        ind = level.ind
        if self.lib.kind == "tf" or self.to_tf or ind is None or self.mask is not None:
            raise Unsupported(f"the wrap-around variable `{next(iter(wraps))}` (TensorFlow code, an "
                              "unusual loop, or under an `if`)")
        np_ = self.lib.alias
        self.previous_starts |= {name for name, stmt in wraps.items() if self._start_is_previous(level, name, stmt)}
        before = templates.expr(f"{ind.name} - S", S=copy.deepcopy(ind.step) if ind.step is not None else const(1))
        # each value before the loop, of a known rank: a name bound to a value of no known rank
        # (`prev = first`) must be a number or an array of the rank `E` has, checked in front
        starts = {name: self.ev(templates.name(name)) for name in wraps}
        bound = sorted(name for name, v in starts.items() if v.stacked)
        if bound:
            # (bound per iteration of a loop around this one, batched with it: no single value
            # before this loop for a check in front to read)
            raise Unsupported(f"the wrap-around variable `{bound[0]}` is bound by the loop around its loop")
        shifted: dict[str, Val] = {}
        for _ in range(len(wraps)):
            for name, stmt in wraps.items():
                if name in shifted:
                    continue
                saved = dict(self.env)
                self.env.update({n: v for n, v in starts.items() if v.rank is not None})
                try:
                    with self._discarded():
                        shifted[name] = self.ev(_substitute(stmt.value, {ind.name: before}))
                except Unsupported:
                    pass
                finally:
                    self.env = saved
                if name in shifted and name in self.previous_starts:
                    starts[name] = Val(templates.name(name), (), shifted[name].rank)  # (never read)
                elif name in shifted and starts[name].rank is None and shifted[name].rank is not None:
                    self.checks.append(templates.expr(
                        f"isinstance(W, (int, float, complex, {np_}.number, {np_}.bool_, {np_}.ndarray)) "
                        f"and {np_}.ndim(W) == {shifted[name].rank}", W=templates.name(name)))
                    starts[name] = Val(templates.name(name), (), shifted[name].rank)
        unknown = sorted(name for name, v in starts.items() if v.rank is None or name not in shifted)
        if unknown:
            raise Unsupported(f"the wrap-around variable `{unknown[0]}` is of unknown rank")
        # `E` of Python numbers (`im1 = i`) keeps the start a Python number of its type, which
        # NumPy's weak rule then covers (`im2 = im1` is one once `im1` is: to a fixed point)
        for _ in range(len(wraps)):
            for name, stmt in wraps.items():
                if shifted[name].python and not starts[name].python:
                    starts[name] = starts[name].with_node(starts[name].node, python=True,
                                                          pytype=shifted[name].pytype)
            saved = dict(self.env)
            self.env.update(starts)
            try:
                with self._discarded():
                    shifted = {name: self.ev(_substitute(stmt.value, {ind.name: before}))
                               for name, stmt in wraps.items()}
            finally:
                self.env = saved
        first = copy.deepcopy(ind.start) if ind.start is not None else const(0)
        bounds = [ind.stop] if ind.start is None and ind.step is None else [first, ind.stop] + (
            [ind.step] if ind.step is not None else [])
        trips = gast.Call(func=templates.name("range"), args=[copy.deepcopy(a) for a in bounds], keywords=[])
        written = sorted({w for level_info in self.info.walk() for w in level_info.arrays})
        for name, stmt in wraps.items():
            # The first iteration reads the value before the loop, the others `E`; batched, one
            # array holds both. They must be of one type (a Python float start beside float32
            # data computes weakly on the first iteration, in float32, and a float64 array
            # strongly; 1000 beside int8 data would wrap): `E` of the first iteration, computed
            # as the loop computes it, shows the type; where they differ the loop runs.
            e0 = _substitute(stmt.value, {ind.name: first})
            one_type = templates.expr(
                f"len(T) == 0 or type(W) is type(E) and (not isinstance(W, {np_}.ndarray) or "
                "(W.dtype == E.dtype and W.shape == E.shape))", T=trips, W=templates.name(name), E=e0)
            if self._stored_only():
                # (or a Python float start, `prev = 0.0`, or an int within 2**53, before float64
                # values, where every value the loop reads is float64 or a Python number:
                # Python's numbers compute as float64, and what the loop computes is stored into
                # arrays only, where the first iteration's Python number leaves no trace)
                number_start = templates.expr(
                    f"(type(W) is float or type(W) is int and -2 ** 53 <= W <= 2 ** 53) and type(E) is {np_}.float64",
                    W=templates.name(name), E=e0)
                # (one flat `or`, its first operand the empty-range test `_fold_empty_ranges` drops)
                one_type = gast.BoolOp(op=gast.Or(), values=[*one_type.values, gast.BoolOp(
                    op=gast.And(), values=[number_start, *self._float64_reads()])])
            if name not in self.previous_starts:  # (else the batched code reads `E` alone)
                self.checks.append(one_type)
            # `E` reads arrays the loop must not write (the analysis saw no name of them
            # written), nor may the start be a view of one: an alias (`y = out`) or an argument
            # passed twice would read what the loop writes
            bases = {id(n.value) for n in gast.walk(stmt.value) if isinstance(n, gast.Attribute)}
            read = sorted({n.id for n in gast.walk(stmt.value) if isinstance(n, gast.Name) and id(n) not in bases
                           and n.id != ind.name and n.id not in wraps
                           and (self._shape_of(n.id) or Val(None, (), None)).rank != 0}
                          | ({name} - self.previous_starts))
            for w in written:
                for r in read:
                    if r == w:  # (`out = x` before the loop, `out[i] = ...` and `w = x[i]`)
                        raise Unsupported(f"the wrap-around variable `{name}` reads `{r}`, which the loop writes "
                                          "through another name")
                    # (an array allocated before the loop and seen by nothing else is no view of
                    # a value bound before the loop: the start, or a name the loop does not bind)
                    if r != w and not ((r == name or r not in self.loop_stores) and unexposed_allocation(
                            self.ctx, self.info.function, self.info.node, w)):
                        check = templates.expr(templates.apart(np_, w, r))
                        if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                            self.checks.append(check)
        self.env.update(starts)
        # (each is stacked: its test, `i == start`, is)
        values = {name: self.ev(self._wrapped(level, name, stmt)) for name, stmt in wraps.items()}
        for name, value in values.items():
            self.env[name] = value.with_node(self._hoist(value.node, f"{name}_before"))

    def _stored_only(self) -> bool:
        """Whether the loop's values leave it only as elements stored into arrays: no collector,
        reduction, scan, arg-reduction, TensorArray or name read after the loop, whose values
        keep the Python or NumPy type they were computed in."""
        return not any(lv.collectors or lv.reductions or lv.scans or lv.arg_reductions or lv.tensorarrays
                       or lv.live_out for lv in self.info.walk())

    def _iteration_number(self, level) -> gast.expr:
        """``k`` of the current iteration as an array: ``(i - start) // step``."""
        ind = level.ind
        i = self._ind_val(ind).node
        node = i if ind.start is None else gast.BinOp(left=copy.deepcopy(i), op=gast.Sub(), right=copy.deepcopy(ind.start))
        if ind.step is not None and constant_int(ind.step) != 1:
            node = gast.BinOp(left=node, op=gast.FloorDiv(), right=copy.deepcopy(ind.step))
        return node

    def _final_derived(self, name):
        step, _ = self.derived_steps[name]  # (the sum of its steps)
        space = self.info.space
        args = [copy.deepcopy(a) for a in (space.start, space.stop, space.step) if a is not None]
        trips = gast.Call(func=templates.name("range"), args=args, keywords=[])
        # (guarded: with no trips the loop leaves the start as it was, an int stays an int)
        self.out += templates.replace(f"if len(TRIPS) > 0:\n    {name} = {name} + len(TRIPS) * STEP",
                                      TRIPS=trips, STEP=step)


#: methods that read an array or list and change neither its length nor its shape
#: NumPy and builtin functions that may return their argument itself, or an item of it
_RETURNING_ARGUMENT = {"numpy.asarray", "numpy.asanyarray", "numpy.asarray_chkfinite", "numpy.ascontiguousarray",
                       "numpy.asfortranarray", "numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d",
                       "numpy.require", "builtins.min", "builtins.max", "builtins.next", "builtins.getattr",
                       "builtins.iter", "builtins.vars", "builtins.globals", "builtins.locals", "builtins.reversed",
                       "builtins.enumerate", "builtins.zip", "builtins.map", "builtins.filter"}
#: builtins that may change what a name reaches, or run code that does
_ESCAPING_BUILTINS = {"builtins.setattr", "builtins.delattr", "builtins.exec", "builtins.eval", "builtins.__import__",
                      "builtins.globals", "builtins.vars", "builtins.locals", "builtins.getattr", "builtins.compile",
                      "builtins.next"}
#: builtins that iterate an argument (a generator's code runs)
_ITERATING_BUILTINS = {"builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset", "builtins.dict",
                       "builtins.sorted", "builtins.sum", "builtins.min", "builtins.max", "builtins.any",
                       "builtins.all", "builtins.enumerate", "builtins.zip", "builtins.map", "builtins.filter",
                       "builtins.iter"}
#: attributes of an array that only read it
_DATA_ATTRIBUTES = {"shape", "ndim", "size", "dtype", "T", "real", "imag", "itemsize", "nbytes", "flags", "strides"}
_READING_METHODS = {"copy", "sum", "mean", "prod", "max", "min", "argmax", "argmin", "any", "all", "astype",
                    "reshape", "ravel", "flatten", "tolist", "item", "dot", "transpose", "conj", "count", "index",
                    "std", "var", "cumsum", "cumprod", "round", "clip", "nonzero", "get", "keys", "values", "items"}


def _bound_once(function, name) -> bool:
    """``name`` is bound once in ``function``: by one assignment, or as a parameter never rebound."""
    if function is None:
        return False
    parameter = name in {a.id for a in function.args.args + function.args.kwonlyargs
                         + function.args.posonlyargs if isinstance(a, gast.Name)}
    return sum(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, (gast.Store, gast.Del))
               for n in gast.walk(function)) == (0 if parameter else 1)


def _folded_plus(node, k: int):
    """``node + k``, a constant folded (``-1 + 1`` is ``0``, ``n - 1 + 1`` is ``n``)."""
    value = constant_int(node)
    if value is not None:
        return const(value + k) if value + k >= 0 else gast.UnaryOp(op=gast.USub(), operand=const(-value - k))
    return _plus(node, k)
