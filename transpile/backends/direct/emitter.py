"""Lowers a vectorizable loop nest to batched ops, statement by statement, with the rule registry.

Each level of the nest adds one loop axis in front of the values computed in it (axis 0 for
the outermost level). Names keep their user's spelling: ``h = f(x[i])`` becomes ``h = F(x)``
where ``F`` is ``f``'s batching rule. An ``if`` on a stacked test is executed for every
iteration with its effects masked (predication): names merge with ``where``, appends under
one branch become a filter, reduction terms get the identity where the test is false.
Anything without a rule, or a rank that decides broadcasting but is unknown, raises
:class:`Unsupported` naming it; the pipeline then falls back (pfor for TensorFlow, the loop for
NumPy).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import gast

from pforge.transpile import templates
from pforge.transpile.analysis import (LoopInfo, ModuleContext, branch_locals, reduction_term,
                                       spelled_out_update)
from pforge.transpile.backends.direct import core, ranks
from pforge.transpile.backends.direct.core import Args, Lib, Unsupported, Val, align, const, lift
from pforge.transpile.backends.direct.linalg import convert_matmul_operator
from pforge.transpile.backends.pfor import (LoopRewrite, _evidently_array, _nonnegative, _stores,
                                            bound_to_sequence, persistent_tape)
from pforge.transpile.naming import Namer
from pforge.transpile.spaces import constant_int

_LIST_ARG_RULES = {"tensorflow.stack", "numpy.stack", "tensorflow.concat", "numpy.concatenate"}
_BINOPS = {gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow,
           gast.BitAnd, gast.BitOr, gast.BitXor, gast.LShift, gast.RShift}
_REDUCE_FN = {"tf": {"add": "reduce_sum", "mul": "reduce_prod", "max": "reduce_max",
                     "min": "reduce_min", "or": "reduce_any", "and": "reduce_all"},
              "np": {"add": "sum", "mul": "prod", "max": "max", "min": "min", "or": "any",
                     "and": "all"}}
_OP_SYMBOL = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.BitOr: "|", gast.BitAnd: "&"}
_IDENTITY = {"add": 0, "mul": 1, "or": False, "and": True}


@dataclass
class Ind:
    """A loop index used as a subscript: ``start + step*k`` for the loop axis of ``level``."""

    level: int  # 1-based depth of the loop that defines it
    name: str
    start: gast.expr | None
    stop: gast.expr
    step: gast.expr | None
    length_of: str | None = None  # the index runs over every row of this array


@dataclass
class _Pending:
    mask: Val | None
    value: Val


@dataclass
class _Tape:
    """A ``tf.GradientTape`` opened in the loop body, and the names selected under it by the
    loop index (``y_i = y[i]``)."""

    name: str
    persistent: bool = False
    recorded: set = field(default_factory=set)  # names assigned under the tape
    selected: dict = field(default_factory=dict)  # name -> (the array it selects from, its Val)
    results: dict = field(default_factory=dict)  # (target, source) -> the Val bound to the result
    open: bool = True


@dataclass
class _Level:
    info: LoopInfo
    depth: int
    out_start: int
    ind: Ind | None = None
    bound: bool = False


def _in_place(target, op, value) -> list:
    """``out[...] = v`` (never ``out = v``: the array may be the caller's, and assignment casts
    to its dtype as the loop's element writes do); ``out[s] = out[s] + v`` for ``+=``, which
    truncates into an integer array as the loop does instead of raising."""
    if isinstance(target, gast.Name):
        target = gast.Subscript(value=target, slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
    if op is None:
        return templates.replace("T = V", T=target, V=value)
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


@dataclass
class DirectRewriter:
    """Builds the batched replacement of one vectorizable loop nest (the outermost level)."""

    ctx: ModuleContext
    info: LoopInfo
    namer: Namer
    lib: Lib
    shapes: dict
    to_tf: bool = False  # a NumPy loop written with tf.experimental.numpy (--target tensorflow)
    out: list = field(default_factory=list)

    def __post_init__(self):
        self.params = ranks.parameter_shapes(self.ctx, self.info.function, self.shapes)
        self.env: dict[str, Val | Ind] = {}
        self.locals: dict[str, Val] = {}
        self.aliases: dict[str, gast.expr] = {}
        self.levels: list[_Level] = []
        self.mask: Val | None = None
        self.in_branch = False
        self.pending: dict[str, list[_Pending]] = {}
        self.consumers: dict[int, str] = {}  # inner collector consumers -> collector name
        self.inner_values: dict[str, Val] = {}
        self.derived_steps: dict[str, tuple] = {}
        self.ta_drop: list = []
        self.selections: dict[str, tuple[Val, Val]] = {}
        self.tests: dict[int, Val] = {}  # elif tests evaluated before the chain's first branch
        self.ta_replace: dict = {}
        self.labels: list[str] = []
        self.tapes: dict[str, _Tape] = {}
        self._local_shapes()
        # A parameter bound again in the function no longer has its declared shape: the one
        # rebinding before the loop (`x = tf.reshape(x, [-1])`) gives it, else nothing does.
        stored = _stores([self.info.function]) if self.info.function is not None else set()
        self.params = {k: v for k, v in self.params.items() if k not in stored}
        self.loop_stores = _stores([self.info.node])

    # -- entry ---------------------------------------------------------------------------------

    def run(self) -> LoopRewrite:
        info = self.info
        if info.library == "mixed":
            raise Unsupported("the loop mixes NumPy and TensorFlow")
        self._level(info, later=set())
        drop, replace = [], {}
        for name, col in info.collectors.items():
            entries = self.pending.get(name, [])
            if self.to_tf and (col.kind != "stack" or len(entries) != 1 or entries[0].mask is not None
                               or entries[0].value.depth != 1 or col.consumer.keywords):
                raise Unsupported(f"`{name}` is a filter, nested or typed collector; only plain maps "
                                  "move to TensorFlow")
            self._emit_collector(name, col, entries)
            if self.lib.kind == "tf" or self.to_tf:
                if any(k.arg not in ("axis", "name") for k in col.consumer.keywords):
                    raise Unsupported(f"`{name}` is consumed with `{col.consumer.keywords[0].arg}=`, "
                                      "which the batched value would lose")
                replace[id(col.consumer)] = self._tf_consumer(col)
            names = {n.id for n in gast.walk(col.init) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            if names and all(n in info.collectors for n in names):
                drop.append(col.init)
        for name in info.derived:
            if self._used_outside(name):
                self._final_derived(name)
        drop += self.ta_drop
        replace.update(self.ta_replace)
        if self.to_tf:
            self.out = [_ToTensorFlow(self.ctx, self.lib.alias).visit(stmt) for stmt in self.out]
        return LoopRewrite(self.out, drop, replace, self._pattern())

    # -- function-level facts --------------------------------------------------------------------

    def _local_shapes(self):
        """Ranks of names bound before the loop, by evaluating their right-hand sides unstacked."""
        fdef = self.info.function
        if fdef is None:
            return
        seen: dict[str, set] = {}
        for node in gast.walk(fdef):
            if isinstance(node, gast.Assign) and node.lineno < self.info.lineno and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                name = node.targets[0].id
                try:
                    val = self.ev(node.value)
                except Unsupported:
                    val = Val(node.value, (), None)
                seen.setdefault(name, set()).add(val.rank)
                self.aliases.setdefault(name, node.value)
        counts: dict[str, int] = {}
        for node in gast.walk(fdef):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                counts[node.id] = counts.get(node.id, 0) + 1
        for name, found in seen.items():
            if len(found) == 1 and None not in found and counts.get(name) == 1:
                self.locals[name] = Val(templates.name(name), (), found.pop())
        self.aliases = {k: v for k, v in self.aliases.items() if counts.get(k) == 1}

    def _shape_of(self, name: str) -> ranks.Shape | None:
        if name in self.params:
            return self.params[name]
        if name in self.locals and self.locals[name].rank is not None:
            return ranks.Shape(self.locals[name].rank)
        for stmt in self.ctx.tree.body:  # a module-level literal (OFFSETS = [(-1, 0), ...])
            if isinstance(stmt, gast.Assign) and any(isinstance(t, gast.Name) and t.id == name for t in stmt.targets):
                rank = ranks.literal_rank(stmt.value)
                if rank is not None:
                    return ranks.Shape(rank, None, sequence=True)
        return None

    def _as_array(self, node):
        """``node`` when it is evidently an array, else ``np.asarray(node)``/``tf.convert_to_tensor``.

        A Python list indexed by the loop index must not be batched as a list: ``xs * 2`` would
        repeat it. Evidence: a declared shape (docstring, annotation, signature, ``--shapes``,
        a probed array), or the analysis' evidence that the name is an array.
        """
        if isinstance(node, gast.Name):
            shape = self._shape_of(node.id)
            if shape is not None and not shape.sequence and (
                    node.id in self.params or node.id in self.locals):
                return node
            if (shape is None or not shape.sequence) and _evidently_array(self.ctx, self.info.function, node):
                return node
        elif isinstance(node, gast.Call) and _evidently_array(self.ctx, self.info.function, node):
            return node
        if self.lib.kind == "np":
            return self.lib.call("asarray", node)
        return self.lib.call("convert_to_tensor", node)

    def _used_outside(self, name):
        inside = {id(n) for n in gast.walk(self.info.node)}
        scope = self.info.function or self.ctx.tree
        return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
                   and id(n) not in inside for n in gast.walk(scope))

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
        level = _Level(info, depth, len(self.out))
        self.levels.append(level)
        saved = dict(self.env)
        saved_mask = self.mask
        if space.kind == "range":
            rebound = sorted(set().union(*(_loads(b) for b in (space.start, space.stop, space.step)
                                           if b is not None)) & self.loop_stores)
            if rebound and depth == 1:  # evaluated once before the loop; the slices would read it later
                raise Unsupported(f"the bounds of the loop at line {info.lineno} read `{rebound[0]}`, "
                                  "which the body binds again")
            for bound in (space.start, space.step):
                if bound is not None and self.ev(bound).stacked:
                    raise Unsupported(f"the start or step of the loop at line {info.lineno} differs "
                                      "per iteration")
            stop = self.ev(space.stop)
            if stop.stacked:
                self._ragged_range(level, space, stop)
            else:
                level.ind = Ind(depth, space.induction, space.start, space.stop, space.step,
                                self._length_of(space.stop))
                self.env[space.induction] = level.ind
        else:
            self._row_streams(level, space)
        for name, stmt in info.derived.items():
            self._start_derived(level, name, stmt)
        self._block(info.body, later, depth)
        self.mask = saved_mask
        self.levels.pop()
        # Names bound only in this level are private to it (the analysis proved they are not
        # read after it); names of outer levels keep their updated values.
        self.env = {**saved, **{k: v for k, v in self.env.items() if k in saved}}

    def _ragged_range(self, level, space, stop: Val):
        """``for j in range(i)``: the inner space is padded to the largest bound and masked.

        Iterations past an outer iteration's own bound still compute (pure code) but every
        effect is masked, exactly as under an ``if j < i`` (the triangular trap of case 010).
        """
        if self.lib.kind != "np" or stop.rank != 0:
            raise Unsupported(f"the loop at line {level.info.lineno} has a per-iteration trip count")
        if space.step is not None and constant_int(space.step) != 1:
            raise Unsupported(f"the loop at line {level.info.lineno} has a per-iteration bound and a step")
        bound = self.namer.new(f"{space.induction}_stop")
        self.out += templates.replace(f"{bound} = {self.lib.alias}.max(S, initial=0)", S=stop.node)
        level.out_start = len(self.out)
        level.ind = Ind(level.depth, space.induction, space.start, templates.name(bound), None)
        self.env[space.induction] = level.ind
        (j, s), full, rank = align(self.lib, [self._ind_val(level.ind), stop], "the loop bound")
        inside = Val(gast.Compare(left=j.node, ops=[gast.Lt()], comparators=[s.node]), full, rank)
        self.mask = inside if self.mask is None else self._and(self.mask, inside)

    def _length_of(self, stop):
        """The array whose every row ``range(stop)`` visits (``x.shape[0]``, ``len(x)``, ``n = len(x)``)."""
        if isinstance(stop, gast.Name) and stop.id in self.aliases:
            stop = self.aliases[stop.id]
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

    def _same_length(self, a: str | None, b: str | None) -> bool:
        """True when arrays ``a`` and ``b`` provably have the same number of rows."""
        if a is None or b is None or a in self.loop_stores or b in self.loop_stores:
            return False  # `range(len(y))` measures y before the loop binds it again
        if a == b:
            return True
        sa, sb = self._shape_of(a), self._shape_of(b)
        return sa is not None and sb is not None and sa.dim(0) is not None and sa.dim(0) == sb.dim(0)

    def _row_streams(self, level: _Level, space):
        depth = level.depth
        seqs = []
        for target, seq in space.items:
            val = self.ev(seq)
            if val.stacked:
                raise Unsupported("an inner loop over rows of a per-iteration value")
            if isinstance(seq, gast.Name) and self._shape_of(seq.id) is not None:
                rank = self._shape_of(seq.id).rank
            else:
                rank = val.rank
            if rank is None:
                raise Unsupported(f"the rank of `{gast.unparse(seq).strip()}` is unknown")
            node = self._as_array(copy.deepcopy(seq))
            if rank == 0:
                raise Unsupported("iterating over a scalar")
            row = Val(node, (True,), rank - 1)
            if depth > 1:
                row = Val(core.insert_axes(self.lib, Val(node), 0, depth - 1), (False,) * (depth - 1) + (True,),
                          rank - 1)
            seqs.append(seq)
            if isinstance(target, gast.Name):
                self.env[target.id] = row
            else:
                if row.rank is None or row.rank < 1:
                    raise Unsupported("unpacking rows of unknown rank")
                for k, elt in enumerate(target.elts):
                    part = core.subscript(row.node, [gast.Slice(lower=None, upper=None, step=None)] * depth
                                          + [const(k)])
                    self.env[elt.id] = Val(part, row.full, row.rank - 1)
            if depth == 1:
                self.labels.append(gast.unparse(seq).strip())
        names = [s.id if isinstance(s, gast.Name) else None for s in seqs]
        if len(seqs) > 1 and not all(self._same_length(names[0], n) for n in names[1:]):
            raise Unsupported("`zip` over sequences pforge cannot prove to have the same length")
        if space.kind == "enumerate":
            seq = seqs[0]
            length = templates.expr(f"{self.lib.alias}.shape(S)[0]" if self.lib.kind == "tf" else "len(S)", S=seq)
            start = space.enumerate_start
            stop = length if start is None else gast.BinOp(left=copy.deepcopy(start), op=gast.Add(), right=length)
            level.ind = Ind(depth, space.induction, start, stop, None,
                            seq.id if isinstance(seq, gast.Name) and start is None else None)
            self.env[space.induction] = level.ind

    # -- derived induction variables -------------------------------------------------------------

    def _start_derived(self, level, name, stmt):
        if self.lib.kind == "tf" or level.ind is None:
            raise Unsupported(f"derived induction variable `{name}`")
        step = stmt.value if isinstance(stmt, gast.AugAssign) else stmt.value.right
        if isinstance(stmt.op if isinstance(stmt, gast.AugAssign) else stmt.value.op, gast.Sub):
            step = gast.UnaryOp(op=gast.USub(), operand=copy.deepcopy(step))
        if self.ev(step).stacked:
            raise Unsupported(f"`{name}` steps by a per-iteration amount")
        count = self._iteration_number(level)
        term = count if constant_int(step) == 1 else gast.BinOp(left=count, op=gast.Mult(), right=copy.deepcopy(step))
        self.env[name] = Val(gast.BinOp(left=templates.name(name), op=gast.Add(), right=term),
                             self._ind_val(level.ind).full, 0)
        self.derived_steps[name] = (step, stmt)

    def _iteration_number(self, level) -> gast.expr:
        """``k`` of the current iteration as an array: ``(i - start) // step``."""
        ind = level.ind
        i = self._ind_val(ind).node
        node = i if ind.start is None else gast.BinOp(left=copy.deepcopy(i), op=gast.Sub(), right=copy.deepcopy(ind.start))
        if ind.step is not None and constant_int(ind.step) != 1:
            node = gast.BinOp(left=node, op=gast.FloorDiv(), right=copy.deepcopy(ind.step))
        return node

    def _final_derived(self, name):
        step, _ = self.derived_steps[name]
        space = self.info.space
        args = [copy.deepcopy(a) for a in (space.start, space.stop, space.step) if a is not None]
        trips = gast.Call(func=templates.name("range"), args=args, keywords=[])
        self.out += templates.replace(f"{name} = {name} + len(TRIPS) * STEP", TRIPS=trips, STEP=step)

    # -- statements --------------------------------------------------------------------------------

    def _block(self, stmts, later, depth):
        for k, stmt in enumerate(stmts):
            rest = _stores(stmts[k + 1:]) | later
            self._stmt(stmt, rest, depth)

    def _stmt(self, stmt, later, depth):
        info_here = self.levels[-1].info
        if id(stmt) in self._inner_inits():
            return
        if any(stmt is s for s in info_here.derived.values()):
            name = next(n for n, s in info_here.derived.items() if s is stmt)
            step, _ = self.derived_steps[name]
            current = self.env[name]
            self.env[name] = Val(gast.BinOp(left=current.node, op=gast.Add(), right=copy.deepcopy(step)),
                                 current.full, 0)
            return
        if isinstance(stmt, gast.Assign):
            return self._assign(stmt, later)
        if isinstance(stmt, gast.AugAssign):
            return self._aug_assign(stmt, later)
        if isinstance(stmt, gast.Expr):
            if isinstance(stmt.value, gast.Constant):
                return
            call = stmt.value
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "append" \
                    and isinstance(call.func.value, gast.Name):
                return self._append(call.func.value.id, call.args[0], later)
            raise Unsupported(f"line {stmt.lineno}: an expression statement (a call for its effect)")
        if isinstance(stmt, gast.If):
            return self._if(stmt, later, depth)
        if isinstance(stmt, gast.For):
            child = next((c for c in self.levels[-1].info.children if c.node is stmt), None)
            if child is None:
                raise Unsupported(f"line {stmt.lineno}: an inner loop pforge did not analyse")
            return self._level(child, later)
        if isinstance(stmt, gast.Pass):
            return
        if isinstance(stmt, gast.With):
            return self._tape(stmt, later)
        raise Unsupported(f"line {stmt.lineno}: a `{type(stmt).__name__}` statement")

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
            if self._selection(name, stmt.value):
                return
            val = self.ev(stmt.value)
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
            self.out.append(copy.deepcopy(stmt))  # invariant: computed once, as written
            self.env[name] = Val(templates.name(name), (), val.rank, val.python)
            return
        if isinstance(target, gast.Tuple) and isinstance(stmt.value, gast.Tuple) \
                and len(target.elts) == len(stmt.value.elts) and all(isinstance(e, gast.Name) for e in target.elts):
            vals = [self.ev(v) for v in stmt.value.elts]
            for elt, val in zip(target.elts, vals):
                if not val.stacked:
                    raise Unsupported(f"line {stmt.lineno}: tuple assignment of an invariant")
                self._bind(elt.id, val, later)
            return
        if isinstance(target, gast.Subscript):
            update = spelled_out_update(stmt)  # `h[k] = h[k] + v` is `h[k] += v`
            if update is not None:
                return self._write(target, update[1], update[0], stmt)
            return self._write(target, stmt.value, None, stmt)
        raise Unsupported(f"line {stmt.lineno}: assignment to `{gast.unparse(target).strip()}`")

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

    # -- reductions ------------------------------------------------------------------------------------

    def _reduction_of(self, name, stmt):
        for k, level in enumerate(self.levels):
            red = level.info.reductions.get(name)
            if red is not None and stmt in red.updates:
                return red, k
        return None

    def _reduce(self, found, stmt):
        red, k = found
        term_node = reduction_term(stmt, red.name)
        if red.op in ("or", "and") and not _is_boolean(term_node, self.ctx):
            raise Unsupported(f"`{red.name}`: an `{red.op}` of values that may not be booleans "
                              "(Python returns an operand, `any`/`all` a bool)")
        term = self.ev(term_node)
        if red.op == "mul" and term.python:
            raise Unsupported(f"`{red.name}`: a product of Python integers, which NumPy could overflow")
        depth = len(self.levels)
        if not term.stacked and self.mask is None:
            raise Unsupported(f"`{red.name}`: a reduction term that does not depend on the loop")
        term = lift(self.lib, term, depth)
        if self.mask is not None:
            if red.op in _IDENTITY:
                identity = Val(const(_IDENTITY[red.op]), (), 0, True)
            elif k == 0 and term.rank == 0:
                # max/min: where the test is false, the running value itself changes nothing
                identity = Val(templates.name(red.name), (), 0)
            else:
                raise Unsupported(f"a conditional `{red.op}` reduction of `{red.name}`")
            (m, t, z), full, rank = align(self.lib, [self.mask, term, identity], "a conditional reduction")
            term = Val(self.lib.call("where", m.node, t.node, z.node), full, rank)
        axes = list(range(k, depth))
        if not all(term.full[a] for a in axes):
            raise Unsupported(f"`{red.name}`: a term that does not vary along every loop it is summed over")
        if self.lib.kind == "tf" and red.op in ("max", "min") and k == 0:
            # Grappler hoists a monotonic op out of reduce_max/min (min(tanh(t)) -> tanh(min(t))),
            # which over zero iterations gives tanh(inf) = 1 instead of the running value; a
            # binary op in between keeps it.
            (t, s), full, rank = align(self.lib, [term, Val(templates.name(red.name), (), term.rank)],
                                       f"`{red.name}`")
            term = Val(self.lib.call("maximum" if red.op == "max" else "minimum", t.node, s.node), full, rank)
        fn = _REDUCE_FN[self.lib.kind][red.op]
        fused = term.fused
        if fused is not None and fused[0] == fn and k == 0:
            reduced = fused[1]
        else:
            reduced = self.lib.call(fn, term.node, axis=const(axes[0] if len(axes) == 1 else axes))
            if self.lib.kind == "np" and len(axes) > 1:
                reduced.keywords[0].value = gast.Tuple(elts=[const(a) for a in axes], ctx=gast.Load())
            if self.lib.kind == "np" and red.op in ("max", "min") and k == 0 and term.rank == 0:
                # an empty loop leaves the running value; NumPy's max of nothing would raise
                reduced.keywords.append(gast.keyword(arg="initial", value=templates.name(red.name)))
        new = _replace_term(copy.deepcopy(stmt), red.name, reduced)
        if k == 0:
            if self.in_branch and self.mask is None:
                raise Unsupported("internal: a branch without a mask. This is a bug.")
            self.out.append(new)
            return
        current = self.env.get(red.name)
        if not isinstance(current, Val) or (current.stacked and current.depth != k) or (
                not current.stacked and red.name not in _stores(self.levels[k - 1].info.body)):
            raise Unsupported(f"`{red.name}`: an inner reduction of a value not private to the outer loop")
        if not current.stacked:  # initialised with an invariant in each outer iteration
            current = Val(current.node, (False,) * k, current.rank, current.python)
        value = gast.BinOp(left=current.node, op=stmt.op, right=reduced) if isinstance(stmt, gast.AugAssign) \
            else _replace_name(new.value, red.name, current.node)
        if current.rank is None or term.rank is None or current.rank > term.rank or (
                current.stacked and current.rank != term.rank):
            raise Unsupported(f"`{red.name}`: an inner reduction whose ranks do not line up")
        full = tuple(a or b for a, b in zip(current.full, term.full[:k]))
        rank = term.rank
        self._bind(red.name, Val(value, full, rank), set())

    # -- gradient tapes ----------------------------------------------------------------------------------

    def _tape(self, stmt, later):
        """``with tf.GradientTape() as tape:`` in the body: the batching rule of ``tape.gradient``.

        Rows of a Jacobian: when everything the tape records is loop-invariant except the
        selection of the differentiated value by the loop index (``y_i = y[i]``; ``g[i, j]`` by
        the indices of a nest, in order), iteration ``i`` computes ``d y[i] / d x``, and all of
        them together are ``tape.jacobian(y, x)``:
        one forward pass instead of one per iteration, and the backward pass batched by
        TensorFlow's own pfor. Any other per-iteration value under the tape is a per-example
        gradient, which stays with the pfor backend: ``tape.jacobian`` of a batched loss would
        differentiate the whole batch once per row (n times the work).
        """
        where = f"line {stmt.lineno}: "
        item = stmt.items[0] if len(stmt.items) == 1 else None
        call = item.context_expr if item is not None else None
        if self.lib.kind != "tf" or not (
                isinstance(call, gast.Call) and self.ctx.imports.resolve(call.func) == "tensorflow.GradientTape"
                and isinstance(item.optional_vars, gast.Name)):
            raise Unsupported(where + "a `with` block other than `with tf.GradientTape() as tape`")
        if call.args or any(k.arg not in ("persistent", "watch_accessed_variables")
                            or not isinstance(k.value, gast.Constant) for k in call.keywords):
            raise Unsupported(where + "a GradientTape with arguments other than constant "
                              "`persistent=`/`watch_accessed_variables=`")
        if self.mask is not None or self.in_branch:
            raise Unsupported(where + "a GradientTape under a per-iteration `if`")
        name = item.optional_vars.id
        if name in later:
            raise Unsupported(where + f"the tape `{name}` is used after the loop")
        tape = _Tape(name, persistent_tape(call))
        self.tapes[name] = tape
        self.env.pop(name, None)
        outer, self.out = self.out, []
        try:
            for k, inner in enumerate(stmt.body):
                self._tape_stmt(tape, inner, _stores(stmt.body[k + 1:]) | later)
        finally:
            body, self.out = self.out, outer
        tape.open = False
        block = copy.copy(stmt)
        block.items, block.body = [copy.deepcopy(item)], body or [gast.Pass()]
        self.out.append(block)

    def _tape_stmt(self, tape, stmt, later):
        where = f"line {stmt.lineno}: "
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and _is_tape_method(stmt.value, tape, "watch"):
            if any(self.ev(a).stacked for a in stmt.value.args) or stmt.value.keywords:
                raise Unsupported(where + "the tape watches a per-iteration value (per-example gradients)")
            self.out.append(copy.deepcopy(stmt))
            return
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            raise Unsupported(where + f"a `{type(stmt).__name__}` statement under a GradientTape")
        name, node = stmt.targets[0].id, stmt.value
        value = self.ev(node)
        if not value.stacked:
            self._assign(stmt, later)
            tape.recorded.add(name)
            return
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                and all(isinstance(c, gast.Name) and isinstance(self.env.get(c.id), Ind)
                        for c in _components(node.slice))):
            raise Unsupported(where + "per-example gradients (a per-iteration value under the "
                              "GradientTape) need the pfor backend: tape.jacobian of the batch would "
                              "differentiate the whole batch once per row")
        base = node.value.id
        if base not in tape.recorded or base in later:
            raise Unsupported(where + f"`{gast.unparse(node).strip()}` selects from a value not "
                              "computed under the tape, or rebound after it")
        # No statement: `y[:n]` is taken from the Jacobian of `y` instead (a slice of the result
        # is cheaper than a slice differentiated once per row).
        tape.selected[name] = (base, value)
        self.env[name] = value

    def _tape_gradient(self, node, tape):
        """``tape.gradient(y_i, x)`` of a selected scalar ``y_i = y[i]`` -> ``tape.jacobian(y, x)``.

        The result is bound once to a name (``dy_dx``): rules and ``if`` predication may use a
        value twice, and a tape that is not persistent gives one set of gradients.
        """
        what = f"`{gast.unparse(node).strip()}`"
        if node.func.attr != "gradient":
            raise Unsupported(f"{what}: no batching rule for the tape method `.{node.func.attr}()`")
        if tape.open:
            raise Unsupported(f"{what}: a gradient taken inside the tape's own block")
        if len(node.args) != 2 or node.keywords or not isinstance(node.args[0], gast.Name) \
                or not isinstance(node.args[1], (gast.Name, gast.Attribute)):
            raise Unsupported(f"{what}: only `tape.gradient(target, source)` with a named target, "
                              "one named source and no keywords has a batching rule")
        target, source = self.ev(node.args[0]), self.ev(node.args[1])
        if source.stacked:
            raise Unsupported(f"{what}: a gradient with respect to a per-iteration value")
        if isinstance(node.args[1], gast.Name) and bound_to_sequence(self.ctx, node.args[1]):
            raise Unsupported(f"{what}: the source is a list or tuple of tensors")
        key = (node.args[0].id, gast.dump(node.args[1]))
        if key in tape.results:
            return tape.results[key]
        if tape.results and not tape.persistent:
            raise Unsupported(f"{what}: a second gradient from the tape `{tape.name}`, which is not "
                              "persistent (the loop takes one per iteration, the batch would take both)")
        if not target.stacked:
            value = Val(node, (), source.rank)
        else:
            base, selected = tape.selected.get(node.args[0].id, (None, None))
            if selected is None or target is not selected:
                raise Unsupported(f"{what}: the target is not selected under the tape by the loop index")
            if target.rank != 0:
                raise Unsupported(f"{what}: the gradient of a per-iteration value that is not a scalar "
                                  "(its rank is unknown or above 0)")
            if target.depth != len(self.levels) or not all(target.full):
                raise Unsupported(f"{what}: the target is not selected by the index of every loop "
                                  "around the tape, in order")
            jacobian = gast.Call(func=gast.Attribute(value=templates.name(tape.name), attr="jacobian", ctx=gast.Load()),
                                 args=[templates.name(base), copy.deepcopy(node.args[1])], keywords=[])
            if isinstance(target.node, gast.Subscript):  # `y[:n]`, `g[:n, :n]`: the same rows of the Jacobian
                jacobian = gast.Subscript(value=jacobian, slice=copy.deepcopy(target.node.slice), ctx=gast.Load())
            value = Val(jacobian, target.full, source.rank)
        source_name = node.args[1].id if isinstance(node.args[1], gast.Name) else node.args[1].attr
        base_name = tape.selected.get(node.args[0].id, (node.args[0].id,))[0]
        name = self.namer.new(f"d{base_name}_d{source_name}")
        self.out += templates.replace(f"{name} = V", V=value.node)
        tape.results[key] = value.with_node(templates.name(name))
        return tape.results[key]

    # -- collectors, TensorArrays -------------------------------------------------------------------

    def _append(self, name, value_node, later):
        col_level = next((lv for lv in self.levels if name in lv.info.collectors), None)
        if col_level is None:
            raise Unsupported(f"appends to `{name}`, which is not a collector")
        if isinstance(value_node, (gast.List, gast.Tuple)):
            value_node = gast.Call(func=self.lib.fn("stack"), args=[gast.List(elts=list(value_node.elts), ctx=gast.Load())],
                                   keywords=[])
            self._listed_stack = True
        value = self.ev(value_node)
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
            tmp = self.namer.new(f"{name}_item")
            self.out += templates.replace(f"{tmp} = V", V=value.node)
            value = value.with_node(templates.name(tmp))
        if col_level.info is not self.info:
            if self.mask is not None:
                raise Unsupported(f"a conditional append to the inner collector `{name}`")
            col = col_level.info.collectors[name]
            if col.kind != "stack":
                raise Unsupported(f"`{name}` is consumed by concatenation inside the loop")
            if name in self.inner_values:
                raise Unsupported(f"`{name}` gets more than one value per iteration")
            self.inner_values[name] = value
            self.consumers[id(col.consumer)] = name
            return
        self.pending.setdefault(name, []).append(_Pending(self.mask, value))

    def _emit_collector(self, name, col, entries):
        if len(entries) != 1:
            raise Unsupported(f"`{name}` gets {'no' if not entries else 'more than one'} value per iteration")
        entry = entries[0]
        value = entry.value
        if not value.stacked or not all(value.full):
            raise Unsupported(f"appends to `{name}` a value that does not vary along every loop axis")
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
        elif depth == 1 and col.kind == "stack":
            node = value.node
        else:
            # NumPy consumers stay (np.concatenate(rows) concatenates the rows); TensorFlow's are
            # replaced by the result, so a concatenation merges the loop axis here.
            flat = depth if col.kind == "stack" or lib.kind == "np" else depth + 1
            if lib.kind == "tf":
                node = templates.expr(f"{lib.alias}.reshape(V, {lib.alias}.concat([[-1], {lib.alias}.shape(V)[{flat}:]], 0))",
                                      V=value.node)
            else:
                node = templates.expr(f"V.reshape((-1,) + V.shape[{flat}:])", V=value.node)
        if col.kind == "concat" and entry.mask is not None:
            raise Unsupported(f"a filtered collector `{name}` consumed by concatenation")
        self.out += templates.replace(f"{name} = V", V=node)

    def _tf_consumer(self, col):
        return templates.name(col.name)

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

    # -- per-iteration row selections (NumPy) ----------------------------------------------------------

    def _selection(self, name, value) -> bool:
        """``rows = np.compress(mask, data, axis=0)`` with a per-iteration mask: a ragged value.

        It is kept as (mask, data) and only a later ``rows.sum(axis=0)``, ``rows.mean(axis=0)``
        or ``len(rows)`` may read it, as a masked reduction (case 015: a segment mean).
        """
        if self.lib.kind != "np" or not isinstance(value, gast.Call) or self.in_branch:
            return False
        if self.ctx.imports.resolve(value.func) != "numpy.compress" or len(value.args) != 2:
            return False
        axis = next((k.value for k in value.keywords if k.arg == "axis"), None)
        if constant_int(axis) != 0 or len(value.keywords) != 1:
            return False
        mask, data = self.ev(value.args[0]), self.ev(value.args[1])
        if not mask.stacked or mask.rank != 1 or data.stacked or data.rank is None or data.rank < 1:
            return False
        self.selections[name] = (mask, data)
        return True

    def _selection_reduction(self, node):
        """``rows.sum(axis=0)`` / ``rows.mean(axis=0)`` / ``np.sum(rows, axis=0)`` / ``len(rows)``."""
        if not self.selections:
            return None
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id in self.selections:
            name, how, args = func.value.id, func.attr, node.args
        else:
            callee = self.ctx.imports.resolve(func) or ""
            if not (node.args and isinstance(node.args[0], gast.Name) and node.args[0].id in self.selections):
                return None
            name, how, args = node.args[0].id, callee.rsplit(".", 1)[-1], node.args[1:]
            if callee not in ("numpy.sum", "numpy.mean", "builtins.len"):
                return None
        mask, data = self.selections[name]
        lib = self.lib
        count = lib.call("sum", mask.node, axis=-1)
        if how == "len" and not args and not node.keywords:
            return Val(count, mask.full, 0)
        axis = node.keywords[0].value if len(node.keywords) == 1 and node.keywords[0].arg == "axis" else (
            args[0] if len(args) == 1 and not node.keywords else None)
        if how not in ("sum", "mean") or constant_int(axis) != 0:
            raise Unsupported(f"`{name}.{how}(...)` of rows selected per iteration (only sum and mean "
                              "over axis 0 are batched)")
        depth = mask.depth
        wide = core.insert_axes(lib, mask, depth + 1, data.rank - 1)
        total = lib.call("sum", lib.call("where", wide, data.node, 0), axis=depth)
        if how == "mean":
            count = core.insert_axes(lib, Val(count, mask.full, 0), depth, data.rank - 1)
            total = gast.BinOp(left=total, op=gast.Div(), right=count)
        return Val(total, mask.full, data.rank - 1)

    # -- subscripted writes (NumPy) -----------------------------------------------------------------

    def _write(self, target, value_node, op, stmt):
        if self.lib.kind != "np" or self.to_tf:
            raise Unsupported("item assignment into a TensorFlow tensor")
        base = target.value
        if not isinstance(base, gast.Name):
            raise Unsupported(f"line {stmt.lineno}: a write into `{gast.unparse(base).strip()}`")
        name = base.id
        value = self.ev(value_node)
        current = self.env.get(name)
        depth = len(self.levels)
        if isinstance(current, Val) and current.stacked:
            return self._private_write(name, current, target, value, op, stmt)
        comps = _components(target.slice)
        index = self._index(templates.name(name), comps, self._shape_of(name), store=True)
        if index is None:
            raise Unsupported(f"line {stmt.lineno}: a write whose index does not depend on the loop")
        node, idx_full, elem_rank, kind = index
        fancy = kind is True
        full = tuple(idx_full) + (False,) * (depth - len(idx_full))
        if type(kind) is int:
            return self._moved_write(node, kind, elem_rank, value, op, stmt)
        value = lift(self.lib, value, depth) if value.stacked else value
        red = {gast.Add: "add", gast.Mult: "mul", gast.BitOr: "or", gast.BitAnd: "and"}.get(type(op)) if op else None
        if op is not None and red is None and not isinstance(op, gast.Sub):
            raise Unsupported(f"line {stmt.lineno}: augmented `{type(op).__name__}` write")
        if isinstance(op, gast.Sub):
            red = "add"
        if self.mask is not None:
            mask = self.mask
            if op is None:
                old = Val(copy.deepcopy(node), full, elem_rank)
                (m, v, o), vfull, rank = align(self.lib, [mask, value, old], "a conditional write")
                value = Val(self.lib.call("where", m.node, v.node, o.node), vfull, rank)
            else:
                if red not in _IDENTITY:
                    raise Unsupported("a conditional augmented write")
                (m, v, z), vfull, rank = align(self.lib, [mask, value, Val(const(_IDENTITY[red]), (), 0, True)],
                                               "a conditional write")
                value = Val(self.lib.call("where", m.node, v.node, z.node), vfull, rank)
        if value.stacked:
            if value.rank is None or (elem_rank is None and value.rank != 0):
                raise Unsupported(f"line {stmt.lineno}: the rank of the written element is unknown")
            value = lift(self.lib, value, depth)
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
                axes = missing[0] if len(missing) == 1 else gast.Tuple(elts=[const(a) for a in missing], ctx=gast.Load())
                kws = {"axis": axes if isinstance(axes, gast.AST) else const(axes)}
                if fancy:
                    kws["keepdims"] = const(True)
                value = Val(self.lib.call(fn, value.node, **kws), value.full, value.rank)
        if not value.stacked and op is not None and not all(full):
            raise Unsupported(f"line {stmt.lineno}: an update repeated along a loop it does not depend on")
        scatter = fancy and op is not None  # ufunc.at is += that also adds colliding indices
        if scatter:
            ufunc = {"add": "add", "mul": "multiply", "or": "bitwise_or", "and": "bitwise_and"}[red]
            idx = _slices_as_calls(node.slice)
            right = value.node if not isinstance(op, gast.Sub) else gast.UnaryOp(op=gast.USub(), operand=value.node)
            self.out += templates.replace(f"{self.lib.alias}.{ufunc}.at(A, I, V)", A=templates.name(name), I=idx, V=right)
            return
        self.out += _in_place(node, op, value.node)

    def _moved_write(self, node, position, elem_rank, value, op, stmt):
        """``x[:, i] = v``: the value's loop axis goes where the loop index is in the target."""
        if self.mask is not None or len(self.levels) != 1:
            raise Unsupported(f"line {stmt.lineno}: a write `x[:, i]` inside a nest or under an `if`")
        if elem_rank is None or value.rank is None or value.rank > elem_rank:
            raise Unsupported(f"line {stmt.lineno}: the rank of the written element is unknown")
        if value.stacked:
            if value.rank < elem_rank:
                value = Val(core.insert_axes(self.lib, value, 1, elem_rank - value.rank), value.full, elem_rank)
            new = self.lib.call("moveaxis", value.node, 0, position)
        elif value.rank == elem_rank:
            new = core.insert_axes(self.lib, value, position, 1)
        elif value.rank <= elem_rank - position:
            new = value.node  # broadcasts against the axes after the loop axis only
        else:
            raise Unsupported(f"line {stmt.lineno}: an element of lower rank written across the loop axis")
        if op is not None and type(op) not in _OP_SYMBOL:
            raise Unsupported(f"line {stmt.lineno}: augmented `{type(op).__name__}` write")
        self.out += _in_place(node, op, new)

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

    # -- expressions -----------------------------------------------------------------------------------

    def ev(self, node) -> Val:
        """The batched form of an expression of the loop body."""
        method = getattr(self, f"_ev_{type(node).__name__}", None)
        if method is None:
            if any(isinstance(n, gast.Name) and self._is_stacked_name(n.id) for n in gast.walk(node)):
                raise Unsupported(f"`{gast.unparse(node).strip()}`: a `{type(node).__name__}` on "
                                  "per-iteration values")
            return Val(node, (), None)
        result = method(node)
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
        return isinstance(value, Ind) or (isinstance(value, Val) and value.stacked)

    def _ev_Constant(self, node):
        if isinstance(node.value, (int, float, bool, complex)):
            return Val(node, (), 0, True)
        return Val(node, (), None, True)

    def _ev_Name(self, node):
        if node.id in self.selections:
            raise Unsupported(f"`{node.id}` (rows selected per iteration, of varying length) is used "
                              "other than by a sum, mean or len")
        value = self.env.get(node.id)
        if isinstance(value, Ind):
            return self._ind_val(value)
        if isinstance(value, Val):
            return value
        if node.id in self.consumers.values():
            raise Unsupported(f"the inner collector `{node.id}` is read other than by its consumer")
        shape = self._shape_of(node.id)
        if shape is not None:
            return Val(node, (), shape.rank)
        return Val(node, (), None)

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
            at = level.out_start
            self.out[at:at] = stmts
            level.out_start += len(stmts)  # later bindings of this level go after
            for inner in self.levels[ind.level:]:  # inner levels that started here shift too
                if inner.out_start >= at:
                    inner.out_start += len(stmts)
            level.bound = True
        return Val(templates.name(ind.name), full, 0, python=True)

    def _ev_Attribute(self, node):
        base = self.ev(node.value)
        if not base.stacked:
            return Val(node, (), None)
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
        raise Unsupported(f"the attribute `.{node.attr}` of a per-iteration value")

    def _ev_BinOp(self, node):
        left, right = self.ev(node.left), self.ev(node.right)
        if not left.stacked and not right.stacked:
            rank = None if left.rank is None or right.rank is None else max(left.rank, right.rank)
            if isinstance(node.op, gast.MatMult):
                rank = None
            return Val(node, (), rank, left.python and right.python)
        if isinstance(node.op, gast.MatMult):
            return convert_matmul_operator(self.lib, left, right, node)
        if type(node.op) not in _BINOPS:
            raise Unsupported(f"the operator `{type(node.op).__name__}`")
        if isinstance(node.op, gast.Pow) and any(
                isinstance(n, gast.Name) and isinstance(self.env.get(n.id), Ind) for n in gast.walk(node.right)):
            # Python's `2 ** i` never overflows and gives a float for i < 0; int64 arrays do neither.
            raise Unsupported(f"`{gast.unparse(node).strip()}`: a power with the loop index as exponent")
        (a, b), full, rank = align(self.lib, [left, right], f"`{gast.unparse(node).strip()}`")
        return Val(gast.BinOp(left=a.node, op=copy.deepcopy(node.op), right=b.node), full, rank,
                   left.python and right.python)

    def _ev_UnaryOp(self, node):
        operand = self.ev(node.operand)
        if not operand.stacked:
            return Val(node, (), operand.rank, operand.python)
        if isinstance(node.op, gast.Not):
            return self._not(self._test(node.operand))
        return Val(gast.UnaryOp(op=copy.deepcopy(node.op), operand=operand.node), operand.full, operand.rank)

    def _ev_Compare(self, node):
        if len(node.ops) > 1:
            return self._test(node)
        left, right = self.ev(node.left), self.ev(node.comparators[0])
        if not left.stacked and not right.stacked:
            rank = None if left.rank is None or right.rank is None else max(left.rank, right.rank)
            return Val(node, (), rank)
        if isinstance(node.ops[0], (gast.Is, gast.IsNot, gast.In, gast.NotIn)):
            raise Unsupported("`is`/`in` on a per-iteration value")
        (a, b), full, rank = align(self.lib, [left, right], f"`{gast.unparse(node).strip()}`")
        return Val(gast.Compare(left=a.node, ops=[copy.deepcopy(node.ops[0])], comparators=[b.node]), full, rank)

    def _ev_BoolOp(self, node):
        vals = [self.ev(v) for v in node.values]
        if not any(v.stacked for v in vals):
            return Val(node, (), None)
        return self._test(node)

    def _ev_IfExp(self, node):
        test = self.ev(node.test)
        body, orelse = self.ev(node.body), self.ev(node.orelse)
        if not (test.stacked or body.stacked or orelse.stacked):
            return Val(node, (), None)
        if not test.stacked:
            raise Unsupported("a conditional expression with an invariant test and per-iteration branches")
        test = self._test(node.test)
        (c, a, b), full, rank = align(self.lib, [test, body, orelse], "a conditional expression")
        return Val(self.lib.call("where", c.node, a.node, b.node), full, rank)

    def _ev_List(self, node):
        vals = [self.ev(e) for e in node.elts]
        if any(v.stacked for v in vals):
            raise Unsupported("a list of per-iteration values outside `stack`/`concat`")
        return Val(node, (), ranks.literal_rank(node), True)

    _ev_Tuple = _ev_List

    def _ev_Subscript(self, node):
        comps = _components(node.slice)
        base = self.ev(node.value)
        if base.stacked:
            return self._stacked_subscript(node, base, comps)
        shape = self._shape_of(node.value.id) if isinstance(node.value, gast.Name) else None
        if shape is None and base.rank is not None:  # also a name bound in the loop body
            shape = ranks.Shape(base.rank)
        index = self._index(node.value, comps, shape, store=False)
        if index is None:
            rank = _index_rank(base.rank, [self.ev(c) if not isinstance(c, gast.Slice) else c for c in comps])
            if base.node is not node.value:  # an invariant the batched code spells otherwise: `tf.shape(m)[1:]`
                return Val(gast.Subscript(value=base.node, slice=copy.deepcopy(node.slice), ctx=gast.Load()),
                           (), rank)
            return Val(node, (), rank)
        sub, full, rank, _ = index
        return Val(sub, tuple(full), rank)

    def _stacked_subscript(self, node, base, comps):
        vals = [c if isinstance(c, gast.Slice) else self.ev(c) for c in comps]
        if any(isinstance(self.env.get(getattr(c, "id", None)), Ind) for c in comps):
            raise Unsupported(f"`{gast.unparse(node).strip()}`: a loop index into a per-iteration value")
        stacked = [v for v in vals if isinstance(v, Val) and v.stacked]
        if not stacked:
            for c in comps:
                if not isinstance(c, gast.Slice) and self.ev(c).rank not in (0,) \
                        and not (isinstance(c, gast.Constant) and c.value in (None, Ellipsis)):
                    if not _is_newaxis(c, self.ctx):
                        raise Unsupported(f"`{gast.unparse(node).strip()}`: an index of unknown rank")
            parts = [gast.Slice(lower=None, upper=None, step=None)] * base.depth + [copy.deepcopy(c) for c in comps]
            return Val(core.subscript(base.node, parts), base.full, _index_rank(base.rank, vals))
        if len(comps) != 1 or base.depth != 1 or stacked[0].rank != 0 or not all(base.full):
            raise Unsupported(f"`{gast.unparse(node).strip()}`: a per-iteration index into a per-iteration value")
        idx = lift(self.lib, stacked[0], 1)
        rank = None if base.rank is None else base.rank - 1
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
                for bound in (c.lower, c.upper, c.step):
                    if bound is not None and self.ev(bound).stacked:
                        raise Unsupported("a slice whose bounds differ per iteration")
                kinds.append(("slice", c))
            elif isinstance(c, gast.Name) and isinstance(self.env.get(c.id), Ind):
                kinds.append(("ind", self.env[c.id]))
            else:
                v = self.ev(c)
                kinds.append(("val", v) if v.stacked else ("fixed", v))
        if not any(k in ("ind", "val") for k, _ in kinds):
            return None
        base_rank = shape.rank if shape is not None else None
        base_name = base_node.id if isinstance(base_node, gast.Name) else None
        if not store:
            base_node = self._as_array(base_node)
        # Slice path: loop indices first, levels increasing, safe bounds, then invariant parts.
        lead = 0
        while lead < len(kinds) and kinds[lead][0] == "ind":
            lead += 1
        levels = [kinds[k][1].level for k in range(lead)]
        rest_ok = all(k in ("slice", "fixed") for k, _ in kinds[lead:]) and \
            all(v.rank == 0 or _is_newaxis(v.node, self.ctx) for k, v in kinds[lead:] if k == "fixed")
        if lead and levels == sorted(set(levels)) and rest_ok and all(self._safe(kinds[k][1]) for k in range(lead)):
            depth = max(levels)
            parts = []
            for level in range(1, depth + 1):
                if level in levels:
                    position = levels.index(level)
                    parts.append(self._slice(kinds[position][1], base_name if position == 0 else None,
                                             label=not store))
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
                arrays.append(self._ind_val(v))
            elif k in ("val", "fixed"):
                if k == "fixed" and _is_newaxis(v.node, self.ctx):
                    raise Unsupported("`newaxis` mixed with advanced indexing")
                arrays.append(v)
        aligned, full, idx_rank = align(self.lib, arrays, "an advanced index")
        if idx_rank != 0:
            raise Unsupported("an array-valued index per iteration")
        it = iter(aligned)
        parts = [next(it).node if k != "slice" else copy.deepcopy(v) for k, v in kinds]
        consumed = sum(1 for k, _ in kinds if k != "slice")
        rank = None if base_rank is None else base_rank - consumed
        return core.subscript(base_node, parts), full, rank, True

    def _moved_axis(self, base_node, kinds, base_rank, store):
        """``x[:, i]``: one loop index after full slices; NumPy moves that axis to the front.

        Returns the index tuple of :meth:`_index` with the axis position as its last item (a
        write must move the value's loop axis there), or None when the pattern does not apply.
        """
        varying = [k for k, (kind, _) in enumerate(kinds) if kind in ("ind", "val")]
        if self.lib.kind != "np" or len(varying) != 1 or kinds[varying[0]][0] != "ind":
            return None
        p = varying[0]
        ind = kinds[p][1]
        if p == 0 or not all(kind == "slice" and _is_colon(v) for kind, v in kinds[:p]) or not self._safe(ind):
            return None
        if not all(kind == "slice" or (kind == "fixed" and v.rank == 0 and not _is_newaxis(v.node, self.ctx))
                   for kind, v in kinds[p + 1:]):
            return None
        parts = [copy.deepcopy(v) if kind == "slice" else
                 (self._slice(v, None, label=False) if kind == "ind" else copy.deepcopy(v.node)) for kind, v in kinds]
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

    def _safe(self, ind: Ind) -> bool:
        start_ok = ind.start is None or (constant_int(ind.start) is not None and constant_int(ind.start) >= 0)
        step_ok = ind.step is None or (constant_int(ind.step) is not None and constant_int(ind.step) > 0)
        return start_ok and step_ok

    def _slice(self, ind: Ind, base_name, label=True):
        """The slice a loop index stands for; ``:`` when it visits every row of ``base_name``
        (only ever asked for axis 0, the axis the loop bound measures)."""
        start = None if ind.start is None or constant_int(ind.start) == 0 else copy.deepcopy(ind.start)
        step = None if ind.step is None or constant_int(ind.step) == 1 else copy.deepcopy(ind.step)
        if start is None and self._same_length(ind.length_of, base_name):
            stop = None
        else:
            stop = copy.deepcopy(ind.stop)
            if not _nonnegative(ind.stop, self.ctx):
                # range(-1) is empty, but x[:-1] is all rows but one: clamp the bound at zero.
                stop = self.lib.call("maximum", stop, const(0))
        if label and ind.level == 1 and base_name and base_name not in self.labels:
            self.labels.append(base_name)
        return gast.Slice(lower=start, upper=stop, step=step)

    def _ev_Call(self, node):
        if isinstance(node.func, gast.Attribute) and isinstance(node.func.value, gast.Name) \
                and node.func.value.id in self.tapes:
            return self._tape_gradient(node, self.tapes[node.func.value.id])
        selected = self._selection_reduction(node)
        if selected is not None:
            return selected
        if id(node) in self.consumers:
            # The inner loop's axis becomes the first per-iteration axis of the outer level.
            value = self.inner_values[self.consumers[id(node)]]
            depth = len(self.levels)
            if value.rank is None:
                raise Unsupported("an inner collector of unknown rank")
            return Val(value.node, value.full[:depth], value.rank + value.depth - depth)
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            if any(self._is_stacked_name(n.id) for n in gast.walk(node) if isinstance(n, gast.Name)):
                raise Unsupported("`*args`/`**kwargs` in a call on per-iteration values")
            return Val(node, (), None)
        name = self.ctx.imports.resolve(node.func)
        is_method = False
        receiver = None
        if name is None and isinstance(node.func, gast.Attribute):
            receiver = self.ev(node.func.value)
            if receiver.stacked:
                name, is_method = f"method.{node.func.attr}", True
        if name in ("builtins.min", "builtins.max", "builtins.abs", "builtins.len", "builtins.int",
                    "builtins.float", "builtins.bool", "builtins.round"):
            return self._builtin(node, name)
        if name in _LIST_ARG_RULES:
            pos = [Val(node.args[0], (), None)] + [self.ev(a) for a in node.args[1:]]
        else:
            pos = [self.ev(a) for a in node.args]
        if is_method:
            if self.to_tf:
                raise Unsupported(f"the method `.{node.func.attr}()`, which TensorFlow tensors lack")
            pos = [receiver] + pos
        kw = {k.arg: self.ev(k.value) for k in node.keywords}
        rule = core.lookup(name) if name else None
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
            raise Unsupported(f"no batching rule for `{what}`")
        result = rule.convert(self._args(node, name, pos, kw, is_method))
        return result

    def _args(self, node, name, pos, kw, is_method):
        args = Args(node, self.lib, name, pos, kw, method=is_method)
        args.evaluate = self.ev
        return args

    def _builtin(self, node, name):
        vals = [self.ev(a) for a in node.args]
        if node.keywords or not any(v.stacked for v in vals):
            if any(v.stacked for v in vals):
                raise Unsupported(f"`{name[9:]}` with keywords on per-iteration values")
            rank = 0 if name in ("builtins.len", "builtins.int", "builtins.float", "builtins.bool") else (
                max((v.rank for v in vals), default=None) if all(v.rank is not None for v in vals) else None)
            return Val(node, (), rank, True)
        short = name[9:]
        if short in ("min", "max"):
            if len(vals) != 2:
                raise Unsupported(f"`{short}` of other than two per-iteration values")
            (a, b), full, rank = align(self.lib, vals, f"`{short}`")
            # Python's max(a, b) is `b if b > a else a`: with a NaN the comparison is false and
            # `a` is kept, where np.maximum would give NaN. `where` keeps Python's meaning.
            test = gast.Compare(left=copy.deepcopy(b.node), ops=[gast.Gt() if short == "max" else gast.Lt()],
                                comparators=[copy.deepcopy(a.node)])
            return Val(self.lib.call("where", test, b.node, a.node), full, rank)
        if short == "abs":
            return Val(gast.Call(func=copy.deepcopy(node.func), args=[vals[0].node], keywords=[]), vals[0].full, vals[0].rank)
        if short == "len":
            v = vals[0]
            return Val(templates.expr(f"V.shape[{v.depth}]", V=v.node), (), 0, True)  # an int, as len()
        if self.lib.kind == "tf" or self.to_tf:
            raise Unsupported(f"`{short}()` of a tensor")
        if vals[0].rank != 0:
            raise Unsupported(f"`{short}()` of a per-iteration array")
        if short == "round":
            raise Unsupported("`round()` (Python rounds halves to even like NumPy, but returns an int)")
        return Val(templates.expr(f"V.astype({short})", V=vals[0].node), vals[0].full, 0)

    # -- description ---------------------------------------------------------------------------------

    def _pattern(self):
        info = self.info
        parts = [f"map over {', '.join(self.labels) if self.labels else info.space.describe()}"]
        for name, col in info.collectors.items():
            entries = self.pending.get(name, [])
            parts.append(f"{'filter' if entries and entries[0].mask is not None else 'collector'} {name}")
        for name, red in info.reductions.items():
            parts.append(f"{red.op} reduction {name}")
        for name in info.arrays:
            parts.append(f"{'scatter-add' if info.scatter_add else 'indexed output'} {name}")
        for name in info.tensorarrays:
            parts.append(f"TensorArray {name}")
        if self.tapes:
            parts.append("GradientTape rows as tape.jacobian")
        nested = len(list(info.walk())) - 1
        if nested:
            parts.append(f"{nested} inner loop{'s' if nested > 1 else ''}")
        return ", ".join(parts)


# -- helpers ---------------------------------------------------------------------------------------------


def _is_tape_method(call, tape, method):
    func = call.func
    return isinstance(func, gast.Attribute) and func.attr == method and isinstance(func.value, gast.Name) \
        and func.value.id == tape.name


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


def _loads(node) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _components(index):
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def _is_colon(part):
    return isinstance(part, gast.Slice) and part.lower is None and part.upper is None and part.step is None


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


def _constructor_rank(rw, node, name):
    """Ranks of invariant constructors: ``zeros((n, m))`` -> 2, ``zeros_like(x)`` -> rank of x."""
    if name in ("numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "tensorflow.zeros",
                "tensorflow.ones", "tensorflow.fill") and node.args:
        shape = node.args[0]
        if isinstance(shape, (gast.List, gast.Tuple)):
            return len(shape.elts)
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
            return ranks.literal_rank(arg)
        return rw.ev(arg).rank
    if name == "tensorflow.eye":
        return 2
    return None


def _is_boolean(node, ctx) -> bool:
    if isinstance(node, (gast.Compare, gast.BoolOp)):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return True
    if isinstance(node, gast.Call):
        name = ctx.imports.resolve(node.func) or ""
        short = name.rsplit(".", 1)[-1]
        return short.startswith(("logical_", "is", "equal", "not_equal", "less", "greater",
                                 "reduce_any", "reduce_all", "any", "all", "signbit"))
    return False


def _replace_term(stmt, name, new):
    """The update statement with its term replaced by ``new`` (``s += e`` -> ``s += R``)."""
    if isinstance(stmt, gast.AugAssign):
        stmt.value = new
        return stmt
    value = stmt.value
    if isinstance(value, gast.BinOp):
        if isinstance(value.left, gast.Name) and value.left.id == name:
            value.right = new
        else:
            value.left = new
    elif isinstance(value, gast.BoolOp):
        value.values[1] = new
    else:
        first = value.args[0]
        if isinstance(first, gast.Name) and first.id == name:
            value.args[1] = new
        else:
            value.args[0] = new
    return stmt


def _replace_name(node, name, new):
    class _Sub(gast.NodeTransformer):
        def visit_Name(self, n):
            return copy.deepcopy(new) if n.id == name and isinstance(n.ctx, gast.Load) else n

    return _Sub().visit(copy.deepcopy(node))


class _ToTensorFlow(gast.NodeTransformer):
    """``np.X`` -> ``tf.experimental.numpy.X`` in generated code (``--target tensorflow``)."""

    def __init__(self, ctx, tnp):
        self.ctx, self.tnp = ctx, tnp

    def visit_Attribute(self, node):
        name = self.ctx.imports.resolve(node) or ""
        if name.startswith("numpy."):
            return templates.expr(f"{self.tnp}.{name[len('numpy.'):]}")
        return self.generic_visit(node)
