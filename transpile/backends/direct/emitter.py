"""Lowers a vectorizable loop nest to batched ops, statement by statement, with the rule registry.

Each level of the nest adds one loop axis in front of the values computed in it (axis 0 for
the outermost level). Names keep their user's spelling: ``h = f(x[i])`` becomes ``h = F(x)``
where ``F`` is ``f``'s batching rule. An ``if`` on a stacked test is executed for every
iteration with its effects masked (predication): names merge with ``where``, appends under
one branch become a filter, reduction terms get the identity where the test is false.
Anything without a rule, or a rank that decides broadcasting but is unknown, raises
:class:`Unsupported` naming it; the pipeline then falls back (pfor for TensorFlow, the loop for
NumPy).

The class is assembled from one mixin per construct (:mod:`.levels`, :mod:`.statements`,
:mod:`.lower_reductions`, :mod:`.tapes`, :mod:`.collectors`, :mod:`.conditionals`, :mod:`.writes`,
:mod:`.expressions`, :mod:`.indexing`); :mod:`.shared` holds what several of them use.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import gast

from pforge.transpile.spaces import constant_int

from pforge.transpile import analysis, ranks, specialize, templates
from pforge.transpile.analysis import COMPREHENSION, LoopInfo, ModuleContext
from pforge.transpile.backends.common import _LIST_RETURNING, rank_test
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.collectors import CollectorsMixin
from pforge.transpile.backends.direct.conditionals import ConditionalsMixin
from pforge.transpile.backends.direct.contractions import ContractionsMixin
from pforge.transpile.backends.direct.dtypes import DtypesMixin
from pforge.transpile.backends.direct.core import LOOSE, Lib, Unsupported, Val, const
from pforge.transpile.backends.direct.expressions import ExpressionsMixin
from pforge.transpile.backends.direct.indexing import IndexingMixin
from pforge.transpile.backends.direct.levels import LevelsMixin
from pforge.transpile.backends.direct.lower_reductions import ReductionsMixin
from pforge.transpile.backends.direct.shared import Ind, _Level, _new_array, _Pending
from pforge.transpile.backends.direct.statements import StatementsMixin
from pforge.transpile.backends.direct.tapes import TapesMixin, _Tape
from pforge.transpile.backends.direct.writes import WritesMixin
from pforge.transpile.backends.pfor import LoopRewrite, _evidently_array, _stores
from pforge.transpile.rank_inference import module_rank, module_value
from pforge.transpile.analysis.nodes import reversed_operand
from pforge.transpile.analysis.reductions import counted_under_a_test
from pforge.transpile.backends.common import COUNTED_UNDER_A_TEST
from pforge.transpile.naming import Namer


@dataclass
class DirectRewriter(LevelsMixin, StatementsMixin, ReductionsMixin, TapesMixin, CollectorsMixin,
                     ConditionalsMixin, WritesMixin, ExpressionsMixin, DtypesMixin, IndexingMixin, ContractionsMixin):
    """Builds the batched replacement of one vectorizable loop nest (the outermost level)."""

    ctx: ModuleContext
    info: LoopInfo
    namer: Namer
    lib: Lib
    shapes: dict
    to_tf: bool = False  # a NumPy loop written with tf.experimental.numpy (--target tensorflow)
    #: ``id`` of an ``if`` with an invariant test -> the outcome this rewrite is for (unswitching)
    assume: dict = field(default_factory=dict)
    out: list = field(default_factory=list)
    #: strip-mining: the names of one strip's first row and the row after its last (``i_lo``,
    #: ``i_hi``), which the outermost level's index covers instead of its whole range
    strip: tuple[str, str] | None = None

    def __post_init__(self):
        self.params = ranks.parameter_shapes(self.ctx, self.info.function, self.shapes)
        # what the function reads without binding it (`k`, `self.w`), as pforge.vectorize saw it
        self.free = ranks.free_shapes(self.info.function, self.shapes)
        self.env: dict[str, Val | Ind] = {}
        self.snapshot_reads: dict[int, str] = {}  # read node -> the copy it reads (node splitting)
        self.snapshot_used: set[int] = set()
        self.locals: dict[str, Val] = {}
        self.aliases: dict[str, gast.expr] = {}
        self.levels: list[_Level] = []
        self.trips: dict[int, object] = {}  # depth -> the first level's index there (an Ind), for explain
        self.mask: Val | None = None
        self.previous_starts: set[str] = set()  # wrap-around variables that start as `E` before the first iteration
        self.partial = 0  # operands after an invariant `and`/`or` operand: reached only where it lets them
        self.in_branch = False
        self.pending: dict[str, list[_Pending]] = {}
        self.consumers: dict[int, str] = {}  # inner collector consumers -> collector name
        self.inner_values: dict[str, Val] = {}
        self.derived_steps: dict[str, tuple] = {}
        self.exclusive_firsts: dict[int, str] = {}  # `out[i] = s` before `s`'s update -> `s`
        self.snapshot_of: dict[str, str] = {}  # a copy made before the loop -> the array it copies
        self.nonnegative: set[str] = set()  # names the batched code binds to a bound >= 0 (`j_stop`)
        self.index_bindings: list[gast.stmt] = []  # `j = np.arange(...)`: a loop index as a value
        self.replaced_privates: set[str] = set()  # privates an idiom read through their value (`d` of `d * d`)
        # TensorFlow privates whose value could not be batched (a rank not known), each with why:
        # a scan's step may read them through forward substitution; any other read raises that
        self.deferred: dict[str, core.Unsupported] = {}
        self.scan_steps: dict[str, tuple[str, str]] = {}  # scan -> its running values and last value (text)
        self.scan_ranks: dict[str, int] = {}  # scan -> the rank of one running value
        self.scan_exclusive: dict[str, str] = {}  # a TensorFlow scan -> its running values before each iteration
        self.unreversed: set[str] = set()  # collectors read reversed, bound to their rows in that order
        self.last_values: dict[str, bool] = {}  # names used after the loop (lastprivate) -> a Python number
        self.last_targets: dict[str, gast.expr] = {}  # the loop's variables used after it -> their last value
        self.last_statements: list[gast.stmt] = []  # those names bound to their last values: the batched code's end
        self.conditional_lasts: dict[str, tuple] = {}  # `if c: j = i`, j read after the loop -> (mask, value)
        self.ta_drop: list = []
        self.selections: dict[str, tuple[Val, Val, bool, int]] = {}
        self.inferred_locals: set[str] = set()  # locals whose rank rank_inference gave
        self.declared_locals: set[str] = set()  # locals whose rank the user gave (`--shapes h=1`)
        #: name -> (its rank check, the rank) for each rank the user gave that the batched code rests on
        self.declared_ranks: dict[str, tuple[gast.expr, int]] = {}
        self.derived_ranks: set[str] = set()  # those of locals computed from a rebound declared parameter
        #: how a declared rank is checked (:func:`~pforge.transpile.backends.common.rank_test`):
        #: NumPy's type and ``ndim`` tests in front, or ``tf.debugging.assert_rank`` statements
        self.rank_spelling = (self.lib.alias.removesuffix(".experimental.numpy"), "assert") if self.to_tf \
            else (self.lib.alias, "array" if self.lib.kind == "np" else "assert")
        self.element_masks: dict[str, tuple] = {}  # `sel = np.where(cond)`: (mask, cond, arrays)
        self.boolean_vectors: dict[str, gast.expr] = {}  # `sel = grid < c` per iteration: its condition
        self.tests: dict[int, Val] = {}  # elif tests evaluated before the chain's first branch
        self.ta_replace: dict = {}
        self.labels: list[str] = []
        self.tapes: dict[str, _Tape] = {}
        self.row_selections: dict[str, Val] = {}  # `y_i = y[i]` in the body -> the rows before binding
        self.outer_gradients: dict[tuple, Val] = {}  # rows of a Jacobian from a tape opened before the loop
        self.checks: list[gast.expr] = []  # run-time conditions the batched code needs (window bounds)
        self.listed: set[str] = set()  # collectors that get Python lists appended
        self.listed_items: dict[str, tuple] = {}  # such a collector -> (List or Tuple, the items, their values, the invariant arrays they index)
        self.inlining: set[str] = set()  # helpers being inlined (never into themselves)
        self.consulted: set[str] = set()  # names whose rank or type decided an inlined helper's `if`
        self.sliced: set[str] = set()  # names read through a slice (`RewriteResult.sliced`)
        # takes a fractional power of a per-iteration number, complex for a negative Python
        # float where float64 gives nan (`versioning`: no list of numbers is converted)
        self.scalar_raising = False
        self.arrays: set[str] = set()  # names that must be arrays (`RewriteResult.arrays`)
        self.not_inlined: dict[str, str] = {}  # module function -> why it was not inlined
        self.mixed_arithmetic = 0  # computes with a value of two kinds: core.STRICT or LOOSE (:meth:`_default_dtypes`)
        self.unlisted: set[str] = set()  # names declared by a docstring, taken as arrays (:meth:`_declared`)
        self.unknown_kinds: set[str] = set()  # names of no known kind read through asarray (:meth:`_known_kinds`)
        self.unknown_attributes: dict[str, gast.expr] = {}  # `self.q`, likewise, by its text
        self.unsafe: str | None = None  # why the rewrite may change results (`LoopRewrite.unsafe`)
        self.float_operands: set[str] = set()  # arrays a contraction reads (:meth:`_float_checks`)
        self.finite_operands: set[str] = set()  # arrays of a masked contraction's terms: finite
        self.expanded = False  # a squared distance expanded (--fast-math): float outputs only
        #: the forms weighed for an idiom and what each costs, one line each (``pforge explain``)
        self.choices: list[str] = []
        self.python_sums: set[str] = set()  # inner sums of Python numbers, a Python number each (:meth:`_reduce`)
        self.same_dtype: list[tuple[str, ...]] = []  # arrays of one product, of one dtype (same)
        self.prelude: list[gast.stmt] = []  # before the checks (`LoopRewrite.prelude`)
        self.gathered: dict[tuple[str, str], str] = {}  # (item, attribute) -> the list gathered
        self.object_seqs: dict[str, gast.Name] = {}  # items of lists of objects -> the lists (:class:`ObjectRows`)
        self.moved_views: dict[tuple, str] = {}  # (array, axis) -> its view with that axis first
        self.seen_vals: dict[int, tuple] = {}  # id(node) -> (node, its Val), for :meth:`_kinds`
        self._declined: str | None = None  # why the last partial evaluation gave no expression
        self.nonempty = False  # a list NumPy reads as an array: right only where the loop runs
        self.needs_trip = False  # an element at a fixed index: read only where the loop runs
        self.trip_levels = 0  # an element at a fixed index written in the body of this many levels
        self._outside: set[int] | None = None  # ids of the function's nodes outside the loop
        self.loop_stores = _stores([self.info.node])
        self._local_shapes()
        # A parameter bound again in the function no longer has its declared shape: the one
        # rebinding before the loop (`x = tf.reshape(x, [-1])`) gives it, else nothing does.
        # An inferred rank holds for every binding (rank inference makes each rebinding keep
        # it, and checks at run time one that only the data decide: `x = _is_1d(x)`).
        stored = _stores([self.info.function]) if self.info.function is not None else set()
        self.given_params = dict(self.params)  # (as declared, the rebound ones too: :meth:`_declared_ranks`)
        self.params = {k: v for k, v in self.params.items() if k not in stored or v.inferred}

    # -- entry ---------------------------------------------------------------------------------
    def run(self) -> LoopRewrite:
        info = self.info
        if info.library == "mixed":
            raise Unsupported("the loop mixes NumPy and TensorFlow")
        if self._np and (errstate := self._raising_errstate()) is not None:
            raise Unsupported(f"line {errstate.lineno}: NumPy may raise on floating-point errors here, and the "
                              "batched code computes on the elements a test skips (`np.log(x[i])` under "
                              "`if x[i] > 0`), where the loop never does")
        counted = counted_under_a_test(self.ctx, info) if self.lib.kind == "tf" or self.to_tf else None
        if counted is not None:
            raise Unsupported(COUNTED_UNDER_A_TEST.format(name=counted))
        self._snapshots()
        self._level(info, later=set())
        if set(self.snapshot_reads) - self.snapshot_used:
            raise Unsupported("internal: a read to take from a copy before the loop was not lowered. "
                              "This is a bug.")
        drop, replace = [], {}
        if COMPREHENSION in info.collectors:
            if self.last_statements:
                raise Unsupported("a comprehension whose values are read after it")
            return self._comprehension(info.collectors[COMPREHENSION])
        for name, col in info.collectors.items():
            entries = self.pending.get(name, [])
            if self.to_tf and (col.kind != "stack" or len(entries) != 1 or entries[0].mask is not None
                               or entries[0].value.depth != 1 or col.consumer.keywords):
                raise Unsupported(f"`{name}` is a filter, nested or typed collector; only plain maps "
                                  "move to TensorFlow")
            if col.kind not in ("stack", "concat") and (self.lib.kind == "tf" or self.to_tf):
                raise Unsupported(f"`{name}` is used as a Python list after the loop, not stacked")
            self._emit_collector(name, col, entries)
            if self.lib.kind == "tf" or self.to_tf:
                if any(k.arg not in ("axis", "name") for k in col.consumer.keywords):
                    raise Unsupported(f"`{name}` is consumed with `{col.consumer.keywords[0].arg}=`, "
                                      "which the batched value would lose")
                replace[id(col.consumer)] = self._tf_consumer(col)
            names = {n.id for n in gast.walk(col.init) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            if names and all(n in info.collectors for n in names) and col.kind != "extend":
                drop.append(col.init)
        for name in info.derived:
            if self._used_outside(name):
                self._final_derived(name)
        self.out += self.last_statements  # (after every batched value that reads what they rebind)
        drop += self.ta_drop
        replace.update(self.ta_replace)
        self._parameters_apart()
        self._element_reads_apart()
        # the distances the analysis could only check at run time (`k >= n` for `a[i + k]`)
        self.checks += [copy.deepcopy(c) for c in self.info.runtime_checks
                        if gast.dump(c) not in {gast.dump(t) for t in self.checks}]
        self._gather_attributes()
        self._default_dtypes()
        self._no_lists()
        self._declared_ranks()
        self._tensors_of_lists()
        self._known_kinds()
        self._float_checks()
        self._views_in_front()
        self._drop_unread_indices()
        if self.to_tf:
            bound = _stores(self.out)
            numbers = {name for name in self.rank_reads(self.out) if name not in bound and "." not in name
                       and not isinstance(self.env.get(name), Ind)
                       and (shape := self._shape_of(name)) is not None and shape.rank == 0}
            ints = {name for name, value in self.env.items() if isinstance(value, Ind)} | {
                node.targets[0].id for st in self.out for node in gast.walk(st)
                if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name)
                and isinstance(node.value, gast.Call) and isinstance(node.value.func, gast.Attribute)
                and node.value.func.attr == "arange"}  # (the loop's indices, `i = np.arange(n)`)
            for _ in range(3):  # (names bound from an index may hold ints too: `j = i * 2`)
                ints |= {node.targets[0].id for st in self.out for node in gast.walk(st)
                         if isinstance(node, gast.Assign) and len(node.targets) == 1
                         and isinstance(node.targets[0], gast.Name) and any(
                             isinstance(n, gast.Name) and n.id in ints for n in gast.walk(node.value))}
            self.out = [_ToTensorFlow(self.ctx, self.lib.alias, numbers, ints).visit(stmt) for stmt in self.out]
        result = LoopRewrite(self.out, drop, replace, self._pattern(), checks=list(self.checks))
        result.prelude = list(self.prelude)
        result.objects = self._object_lists()  # (no numbers to check, see versioning)
        result.unsafe = self.unsafe
        result.footprint = self._footprint()
        result.choices = tuple(dict.fromkeys(self.choices))
        result.declared_ranks = dict(self.declared_ranks)
        result.rank_spelling = self.rank_spelling
        result.derived_ranks = set(self.derived_ranks)
        return result

    def _trip_text(self, depth: int) -> str | None:
        """The trip count of loop level ``depth`` as the source spells it (``n_q``,
        ``len(range(1, n))``), or None where the level is not a range."""
        ind = self.trips.get(depth)
        if ind is None and depth <= len(self.levels):  # (a level being batched: its own index)
            ind = getattr(self.levels[depth - 1], "ind", None)
        if not isinstance(ind, Ind):
            return None
        stop = gast.unparse(ind.stop).strip()
        if (ind.start is None or constant_int(ind.start) == 0) and ind.step is None:
            return stop
        return f"len(range({gast.unparse(ind.start).strip() if ind.start is not None else '0'}, {stop}" + (
            f", {gast.unparse(ind.step).strip()}" if ind.step is not None else "") + "))"

    def _largest(self):
        """The per-iteration value of the highest rank (then the most loop axes) that the
        batched code computes for many iterations at a time, as ``(source node, Val)``; None
        where every such value is a number per iteration."""
        printed = "\n".join(gast.unparse(st) for st in self.out)
        best = None
        for node, val in self.seen_vals.values():
            # (a value the code prints, and computes: a view of an array, `x[:n, np.newaxis]`, is none)
            if val.stacked and val.rank and any(val.full) and not _view(val.node) \
                    and gast.unparse(val.node).strip() in printed:
                key = (val.rank, sum(val.full))
                if best is None or key > best[0]:
                    best = (key, node, val)
        return None if best is None else best[1:]

    def strip_rows(self) -> gast.expr | None:
        """How many values one iteration of the outermost level adds to the largest batched
        value (:meth:`_largest`), as an expression to evaluate in front of the batched code,
        where strip-mining that level bounds the memory the rewrite needs; else None.

        Strip-mining applies where that value outgrows every array the loop reads and writes:
        its loop axes and its own axes together are more than any such array's rank
        (:meth:`_widest_array`; ``X[i] - Y[j]`` is ``n × m`` rows of ``dim``, three axes beside
        matrices; an outer product per row, ``n × dim × dim``); to a NumPy nest whose outermost level is a ``range`` from a constant ``>= 0`` in
        steps of 1 that writes elements of arrays or reduces into a running value (no scan,
        collector, arg-reduction or carried name, and no sum whose first iteration assigns:
        a strip is then the loop over its rows, each strip's reduction combined into the
        running value as the loop's rows are). The count is the trip counts of
        the inner levels the value spans, times the size of one per-iteration value: the
        largest trailing ``rank`` axes of an array it reads (their product, for a value of a
        higher rank than any of them, an outer product). An estimate, from shapes only: the
        batched code would hold ``rows × count`` values at once.
        """
        info, space = self.info, self.info.space
        if self.lib.kind != "np" or self.to_tf or self.assume or self.strip is not None or info.form != "loop" \
                or space is None or space.kind != "range" or self.tapes \
                or any((info.collectors, info.scans, info.arg_reductions, info.tensorarrays,
                        info.derived, info.wraparound, info.live_out, info.runtime_checks, info.packs)) \
                or (0 if space.start is None else constant_int(space.start)) is None \
                or (constant_int(space.start) or 0) < 0 or not (space.step is None or constant_int(space.step) == 1):
            return None
        if set(info.reductions) & set(getattr(info.node, "pforge_first_assign", ())):
            return None  # (`s = t` in the first iteration: the batched code assigns the sum)
        largest = self._largest()
        if largest is None:
            return None
        node, val = largest
        if not val.full[0] or sum(val.full) + val.rank <= self._widest_array():
            return None  # (no more axes than an array the loop reads or writes: no larger)
        function = info.function if info.function is not None else self.ctx.tree
        in_source = {n.id for n in gast.walk(function) if isinstance(n, gast.Name)}
        np_ = self.lib.alias
        factors = []
        for depth, full in enumerate(val.full, 1):
            if depth == 1 or not full:
                continue
            ind = self.trips.get(depth)
            if not isinstance(ind, Ind) or any(isinstance(n, gast.Name) and (n.id not in in_source or n.id in self.loop_stores)
                                               for b in (ind.start, ind.stop, ind.step) if b is not None
                                               for n in gast.walk(b)):
                return None  # (a ragged level's bound, which only the batched code computes)
            if ind.step is not None:
                factors.append(templates.expr("len(range(A, B, C))", A=copy.deepcopy(ind.start or const(0)),
                                              B=copy.deepcopy(ind.stop), C=copy.deepcopy(ind.step)))
            elif ind.start is None or constant_int(ind.start) == 0:
                factors.append(copy.deepcopy(ind.stop))
            else:  # (a count below 1 makes no strip longer: `max(1, ...)` below)
                factors.append(gast.BinOp(left=copy.deepcopy(ind.stop), op=gast.Sub(), right=copy.deepcopy(ind.start)))
        sizes, ranks, every = [], [], []
        for leaf in gast.walk(node):
            if not (isinstance(leaf, gast.Subscript) and isinstance(leaf.value, gast.Name)):
                continue
            seen = self._seen(leaf)
            name = leaf.value.id
            if seen is None or not seen.rank or name in self.loop_stores or name not in in_source \
                    or self.ctx.imports.resolve(leaf.value) is not None:
                continue
            shape = templates.expr(f"{np_}.shape(A)", A=templates.name(name))
            if seen.rank == 1:
                size = core.subscript(shape, [gast.Constant(value=-1, kind=None)])
            else:
                size = templates.expr(f"int({np_}.prod(S[-{seen.rank}:]))", S=shape)
            every.append(size)
            if gast.dump(size) not in {gast.dump(s) for s in sizes}:
                sizes.append(size)
                ranks.append(seen.rank)
        if not sizes:
            return None
        if val.rank > max(ranks):  # an outer product of what it reads (`x[i][:, None] * x[i]`)
            per_iteration = every[0]
            for size in every[1:]:
                per_iteration = gast.BinOp(left=per_iteration, op=gast.Mult(), right=copy.deepcopy(size))
        else:
            per_iteration = sizes[0] if len(sizes) == 1 else gast.Call(
                func=gast.Name(id="max", ctx=gast.Load(), annotation=None, type_comment=None), args=sizes, keywords=[])
        count = per_iteration
        for factor in reversed(factors):
            count = gast.BinOp(left=factor, op=gast.Mult(), right=count)
        return count

    def _widest_array(self) -> int:
        """The most axes an array the loop reads or writes has (its rank); unknown ranks count
        as many as the rewrite's largest value has, so that such a loop is left unstripped."""
        widest = 0
        for node in gast.walk(self.info.node):
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
                seen = self._seen(node)
                if seen is not None and seen.rank is not None:
                    widest = max(widest, seen.rank + sum(seen.full))
                elif not (isinstance(node.ctx, gast.Store) and node.value.id not in self.loop_stores):
                    continue
                target = self.env.get(node.value.id) or self.locals.get(node.value.id)
                rank = getattr(target, "rank", None)
                shape = self.params.get(node.value.id)
                rank = rank if rank is not None else getattr(shape, "rank", None)
                widest = max(widest, rank if rank is not None else 99)
        return widest

    def _footprint(self) -> str:
        """What the batched code holds at once against the loop: the per-iteration value of
        the highest rank (then the most loop axes) that it computes for many iterations at a
        time, as ``"`X[:, np.newaxis] - Y[np.newaxis]`: n × m values of rank 1 at once, where
        the loop holds one"``; "" where every such value is a number per iteration (or in
        TensorFlow code, whose values pforge does not record). An estimate for ``pforge
        explain``: its memory is the product of those trip counts times one value's size."""
        largest = self._largest()
        if largest is None:
            return ""
        val = largest[1]
        rank = val.rank
        trips = [trip for depth, full in enumerate(val.full, 1) if full and isinstance(self.trips.get(depth), Ind)
                 and (trip := self._trip_text(depth)) is not None]
        text = gast.unparse(val.node).strip()
        text = text if len(text) <= 90 else text[:87] + "..."
        return (f"`{text}`: {' × '.join(trips)} values of rank {rank} at once, where the loop holds one "
                "at a time")

    def _raising_errstate(self):
        """A setting anywhere in the module's text that may make a floating-point error raise,
        as a node with a ``lineno``, else None: ``np.errstate(...)`` or ``np.seterr(...)``
        (``seterrcall`` too) with a setting other than ignored or warned about (``divide=
        'raise'``, ``all='call'``; a setting by name, not a literal, may be any), wherever it is:
        around the loop, as a decorator, bound to a name, entered through an ``ExitStack``, in
        any function or class body; those functions named other than in a call (``es =
        np.errstate``, ``functools.partial(np.errstate, ...)``) or as a string
        (``getattr(np, 'seterr')``); or a warnings filter that turns warnings into errors
        (``warnings.simplefilter("error")``), or one that records them
        (``warnings.catch_warnings(record=True)``: the batched code warns for the elements a test
        skips). The whole text is read (the analysis stubs the
        bodies of functions without loops). A setting made outside the module (a caller's
        ``np.errstate``, ``python -W error``) is not seen."""
        if self.ctx.raising_setting is not False:
            return self.ctx.raising_setting
        import ast  # (the stdlib tree of the whole text; gast's is the analysed one)

        settings = {"seterr", "errstate", "seterrcall"}

        def named(func):
            return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None

        def raising(call):
            return bool(call.args) or any(
                not (isinstance(k.value, ast.Constant) and k.value.value in ("ignore", "warn")) for k in call.keywords)

        def erring(call):  # `warnings.simplefilter("error")`, `filterwarnings(action="error")`
            actions = call.args[:1] + [k.value for k in call.keywords if k.arg == "action"]
            return any(not (isinstance(a, ast.Constant) and a.value in ("ignore", "default", "always", "module", "once"))
                       for a in actions)

        found = None
        try:
            tree = ast.parse(self.ctx.source.text)
        except (SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and named(node.func) in settings and raising(node) \
                    or isinstance(node, ast.Call) and named(node.func) in ("simplefilter", "filterwarnings") \
                    and erring(node) \
                    or isinstance(node, (ast.Name, ast.Attribute)) and named(node) in settings and id(node) not in called \
                    or isinstance(node, ast.Constant) and node.value in settings \
                    or isinstance(node, ast.Call) and named(node.func) == "catch_warnings" \
                    and any(k.arg == "record" for k in node.keywords):
                found = node
                break
        self.ctx.raising_setting = found
        return found

    def _drop_unread_indices(self) -> None:
        """Drops ``j = np.arange(...)`` where nothing reads ``j`` (a ragged level's mask that a
        ``np.tril`` replaced): its loop index is private to the loop, so nothing after it reads
        the binding either; and so the binding of a private an idiom no longer reads
        (:attr:`replaced_privates`, ``d`` of ``np.sum(d * d)`` expanded)."""
        expanded = [s for s in self.out if isinstance(s, gast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], gast.Name) and s.targets[0].id in self.replaced_privates]
        for binding in self.index_bindings + expanded:
            name = binding.targets[0].id
            rest = [s for s in self.out if s is not binding] + self.checks + list(self.prelude)
            if not any(isinstance(n, gast.Name) and n.id == name for s in rest for n in gast.walk(s)):
                self.out = [s for s in self.out if s is not binding]

    def _object_lists(self) -> set[str]:
        """The lists of objects whose attributes the batched code gathers."""
        return {seq.id for seq in self.object_seqs.values()}

    def _no_lists(self) -> None:
        """``not isinstance(x, (list, tuple))`` for each name a docstring declared that the
        batched code takes as an array (:meth:`_declared`)."""
        written = {gast.unparse(c).strip() for c in self.checks}
        for name in sorted(self.unlisted):
            if any(f"type({name}) is {self.lib.alias}.ndarray" in text for text in written):
                continue  # (checked to be an array already)
            check = templates.expr("not isinstance(N, (list, tuple))", N=templates.name(name))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)

    def _declared_ranks(self, extra: tuple | list = ()) -> None:
        """``type(x) is np.ndarray and x.ndim == 2`` (``np.ndim(c) == 0`` for a number) for each
        name the batched code rests on (:meth:`rank_reads`) whose rank only the user gave (a
        docstring, an annotation, ``--shapes``, ``--probe``), or a local computed from such a
        parameter the function binds again (:meth:`_from_rebound_declaration`, checked itself,
        never widened: ``derived_ranks``): the loop runs on a value of
        any rank, and the batched code computes the loop's result only for the rank it was
        printed for (``np.sum(x, axis=-1)`` of the rows ``x[i]`` sums one axis of three where the
        loop sums both). A docstring may be wrong or out of date, and an example input is one
        example; so the rank is checked, never trusted (DESIGN: an assumption the code does
        not prove shows in the code).

        A rank the code proves (:attr:`ranks.Shape.proven`) needs no check. Under the staged
        decorator every rank is the call signature's (``ctx.kinds`` is set): a parameter whose
        kind :mod:`pforge.transpile.specialize` trusts, and a global or attribute, whose rank is
        part of the signature's key, need none.

        TensorFlow's batched code starts with ``tf.debugging.assert_rank(x, 2)`` instead
        (:func:`~pforge.transpile.backends.common.rank_test` says why), and so does NumPy code
        written with ``tf.experimental.numpy`` (``--target tensorflow``), which is never versioned.
        """
        staged = getattr(self.ctx, "kinds", None) is not None
        signature = specialize.parameter_kinds(self.ctx, self.info.function, self.ctx.kinds) if staged else {}
        read = self.rank_reads([*self.out, *extra])  # (`extra`: a comprehension's statement)
        known = {gast.dump(c) for c in self.checks}
        asserts = []  # (TensorFlow's, in front of its batched code)
        fdef = self.info.function
        for name in sorted(read):
            if name in signature or staged and self.lib.kind == "tf" and fdef is not None \
                    and f"{fdef.name}.{name}" in self.shapes:
                # (its check would be worked out, and leave the trip counts' tests behind; a
                # tensor's rank is the signature's, as it is `tf.function`'s: not a variable's,
                # a NumPy array's or a list's, `runtime.signatures._rank_fact`)
                continue
            if name in self.params:
                shape = self.params[name]
            elif name in self.free and not staged:
                shape = self.free[name]
            elif name in self.locals and name in self.declared_locals:
                shape = ranks.Shape(self.locals[name].rank)
            elif name in self.locals and self.locals[name].rank is not None and name not in self.inferred_locals \
                    and self._from_rebound_declaration(name):
                shape = ranks.Shape(self.locals[name].rank)
                self.derived_ranks.add(name)
            else:
                continue
            if shape.sequence or shape.inferred or shape.proven or name in self.snapshot_of:
                continue
            check = templates.expr(rank_test(self.rank_spelling, "N", [shape.rank]),
                                   N=templates.expr(name) if "." in name else templates.name(name))
            if gast.dump(check) not in known:
                if self.rank_spelling[1] == "assert":
                    asserts.append(gast.Expr(value=check))
                else:
                    self.checks.append(check)
                known.add(gast.dump(check))
                self.declared_ranks[name] = (check, shape.rank)
        self.out[:0] = asserts

    def _tensors_of_lists(self) -> None:
        """``x = tf.convert_to_tensor(x)`` in front of TensorFlow's batched code (after its rank
        assertions) for each parameter of one axis that the code computes with as a list would
        not: a Python list passes every declaration pforge takes a rank from (a
        docstring, an annotation, ``--shapes``, ``--probe``), and the loop computes with its
        items, which ``tf.stack`` converts. In the batched code ``x + y`` of two lists
        concatenates them, ``x * 2`` repeats one, ``x == y`` compares them whole, and ``x +
        1.5``, ``-x``, ``x[:, None]`` and ``x.dtype`` raise (:meth:`_list_unsafe`). A list
        as an argument of a TensorFlow op, or beside a tensor in an operator (``x * w``, which
        ``w.__rmul__`` computes), is converted by TensorFlow, so it is left as written.
        A parameter of two axes or more gives the loop rows, which are lists where it is one:
        where the batched code computes with it beside no tensor (``x * 2``), the loop computes
        with those lists (``row * 2`` repeats one) or raises, and converting would compute
        otherwise, so for a list the batched code raises a ``TypeError`` (:data:`_LIST_OF_ROWS`);
        beside a tensor (``a[:, None] - b[None]``), the loop's rows meet tensors too, and it is
        converted.
        NumPy's batched code checks for a list instead and keeps the loop for it
        (:meth:`_no_lists`); TensorFlow's cannot keep the loop
        (:func:`~pforge.transpile.backends.common.rank_test`). Code written with
        ``tf.experimental.numpy`` (``--target tensorflow``) converts with its ``asarray``.

        A tensor the staged decorator's signature gives, and a name the function shows to be an
        array or tensor (:func:`~pforge.transpile.backends.common._evidently_array`), is
        left. Where the parameter is bound in the function, read after the loop, or the loop
        runs inside another, its reads are converted where they are, so the name keeps its
        value.
        """
        if not (self.lib.kind == "tf" or self.to_tf) or self.info.function is None:
            return
        fdef = self.info.function
        staged = getattr(self.ctx, "kinds", None) is not None
        convert = (lambda n: self.lib.call("asarray", n)) if self.to_tf else \
            (lambda n: self.lib.call("convert_to_tensor", n))
        candidates = set()
        for name in sorted({n.id for st in self.out for n in gast.walk(st)
                            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in self.params}):
            shape = self.params[name]
            if shape.rank in (None, 0) or shape.sequence or shape.proven \
                    or staged and f"{fdef.name}.{name}" in self.shapes \
                    or _evidently_array(self.ctx, fdef, templates.name(name), at=self.info.node):
                continue
            candidates.add(name)
        start = next((k for k, st in enumerate(self.out) if not _own_assertion(st)), len(self.out))
        nested = any(isinstance(n, (gast.For, gast.While, gast.AsyncFor)) and self.info.node in gast.walk(n)
                     and n is not self.info.node for n in gast.walk(fdef))
        rebound: list[str] = []
        rows: list[str] = []
        while unsafe := self._list_unsafe(self.out[start:], candidates, {*rebound, *rows}):
            name = min(unsafe, key=lambda n: (-self.params[n].rank, n))  # (the rows first: `x * w` of rows `x`)
            candidates.discard(name)
            if self.params[name].rank > 1 and unsafe[name][1]:
                rows.append(name)
            elif nested or self._bound_or_read_after(name):
                ids = {id(n) for n in unsafe[name][0]}

                class Convert(gast.NodeTransformer):
                    def visit_Name(inner, node):
                        return convert(node) if id(node) in ids else node

                self.out[start:] = [Convert().visit(st) for st in self.out[start:]]
            else:
                rebound.append(name)
        self.out[start:start] = [st for name in sorted(rows) for st in templates.replace(
            f"if isinstance(N, (list, tuple)):\n    raise TypeError({_LIST_OF_ROWS.format(name=name)!r})",
            N=templates.name(name))] + [st for name in sorted(rebound) for st in templates.replace(
            "N = V", N=templates.name(name), V=convert(templates.name(name)))]

    def _list_unsafe(self, stmts, candidates: set[str], tensors: set[str]) -> dict[str, tuple[list[gast.Name], bool]]:
        """The reads of each name of ``candidates`` in ``stmts`` that compute otherwise, or
        raise, where the name holds a Python list (:meth:`_tensors_of_lists`), and whether one
        of them meets no tensor in an operator (``x * 2``, ``x + y``, ``-x``), as the loop's
        items then do: numbers for a list of one axis, lists for one of rows. A read is
        safe as an argument of a call, an operand of ``is``, and an operand of an operator or
        comparison whose other operand is a tensor; a basic slice of the name (``y[:n]``, a
        list too) is safe where the name is, another subscript (``b[None]``) only in an
        operator beside a tensor, and one whose bounds call anything but ``len`` (a tensor
        there is no list's bound) not even then. ``tensors``: names known to hold tensors
        (converted ones)."""
        parents = {id(child): node for st in stmts for node in gast.walk(st) for child in gast.iter_child_nodes(node)}
        tensors = set(tensors)
        for _ in range(2):  # (names the statements bind to TensorFlow's values, and those bound from them)
            for st in stmts:
                for node in gast.walk(st):
                    if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                            and isinstance(node.targets[0], gast.Name) and self._evidently_tensor(node.value, tensors):
                        tensors.add(node.targets[0].id)
        unsafe: dict[str, tuple[list[gast.Name], bool]] = {}
        for st in stmts:
            for node in gast.walk(st):
                if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in candidates):
                    continue
                here, up, basic = node, parents.get(id(node)), True
                while isinstance(up, gast.Subscript) and up.value is here:
                    # (a list takes Python ints as bounds, not `tf.maximum(n - 2, 0)`)
                    basic = basic and isinstance(up.slice, gast.Slice) and not any(
                        isinstance(n, gast.Call) for n in gast.walk(up.slice) if not _length(n))
                    here, up = up, parents.get(id(up))
                if isinstance(up, gast.Compare) and all(isinstance(op, (gast.Is, gast.IsNot)) for op in up.ops) \
                        or isinstance(up, gast.Call) and here is not up.func and basic:
                    continue
                other = up.right if isinstance(up, gast.BinOp) and here is up.left else \
                    up.left if isinstance(up, gast.BinOp) else \
                    None if not isinstance(up, gast.Compare) or len(up.ops) != 1 else \
                    up.comparators[0] if here is up.left else up.left
                if other is not None and self._evidently_tensor(other, tensors) and basic:
                    continue
                reads, items = unsafe.get(node.id, ([], False))
                reads.append(node)
                operator = other is not None and not self._evidently_tensor(other, tensors) \
                    or isinstance(up, gast.UnaryOp)
                unsafe[node.id] = (reads, items or operator)
        return unsafe

    def _evidently_tensor(self, node: gast.expr, tensors: set[str]) -> bool:
        """Whether ``node`` evidently computes a tensor: a TensorFlow op's value (one that returns
        a tensor), an operator or a slice of one, a name of ``tensors``, or a name of one axis or
        more the function shows to be an array or tensor (``_evidently_array``)."""
        if isinstance(node, gast.Call):
            callee = self.ctx.imports.resolve(node.func) or ""
            if self.to_tf and (callee.startswith("numpy.") or gast.unparse(node.func).strip().startswith(
                    f"{self.lib.alias}.")):
                callee = "tensorflow.experimental." + callee  # (NumPy's calls become tf.experimental.numpy's)
            return callee.startswith("tensorflow.") and callee not in _LIST_RETURNING
        if isinstance(node, gast.Name):  # (a rank-0 parameter may be a Python number)
            return node.id in tensors or self._shape_of(node.id) is not None and self._shape_of(node.id).rank != 0 \
                and _evidently_array(self.ctx, self.info.function, templates.name(node.id), at=self.info.node)
        if isinstance(node, gast.BinOp):
            return self._evidently_tensor(node.left, tensors) or self._evidently_tensor(node.right, tensors)
        if isinstance(node, gast.UnaryOp):
            return self._evidently_tensor(node.operand, tensors)
        if isinstance(node, gast.Subscript):
            return self._evidently_tensor(node.value, tensors)
        return False

    def _bound_or_read_after(self, name: str) -> bool:
        """Whether the function binds ``name`` anywhere (a nested function too), or reads it
        outside the loop other than before it."""
        fdef, loop = self.info.function, self.info.node
        inside = {id(n) for n in gast.walk(loop)}
        for node in gast.walk(fdef):
            if isinstance(node, gast.Name) and node.id == name and id(node) not in inside:
                if isinstance(node.ctx, (gast.Store, gast.Del)) or isinstance(node.ctx, gast.Load) \
                        and node.lineno >= loop.lineno:
                    return True
            elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)) and node is not fdef \
                    and any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(node)):
                return True
        return False

    def _from_rebound_declaration(self, name: str) -> bool:
        """Whether the local ``name`` was computed (through locals bound before the loop) from a
        parameter whose rank the user declared and which the function binds again (``w =
        np.asarray(w)``, or ``h = w`` then ``w = None``): its rank is the declaration's word,
        and only the local itself is there to check where the loop starts."""
        rebound = {p for p, shape in self.given_params.items() if p not in self.params
                   and not (shape.sequence or shape.inferred or shape.proven)}
        seen, pending = {name}, [name]
        while pending:
            value = self.aliases.get(pending.pop())
            for node in gast.walk(value) if value is not None else ():
                if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Store):
                    if node.id in rebound:
                        return True
                    if node.id not in seen:
                        seen.add(node.id)
                        pending.append(node.id)
        return False

    def rank_reads(self, stmts) -> set[str]:
        """The names (and ``name.attr`` texts) whose ranks the batched ``stmts`` rest on: those
        they read, those whose rank decided an inlined helper's ``if``, and what each local
        bound before the loop was computed from (``h = w``: its rank is ``w``'s)."""
        read = set(self.consulted)
        for stmt in stmts:
            for node in gast.walk(stmt):
                if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Store):
                    read.add(node.id)
                elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
                    read.add(f"{node.value.id}.{node.attr}")
        pending = [name for name in read if name in self.aliases]
        while pending:
            for node in gast.walk(self.aliases[pending.pop()]):
                if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Store) and node.id not in read:
                    read.add(node.id)
                    if node.id in self.aliases:
                        pending.append(node.id)
        return read

    def _known_kinds(self) -> None:
        """``type(x) is np.ndarray`` for each name of no known rank or kind that the batched code
        reads through ``np.asarray`` (a reduction over its rows, ``s += x[i]``, batches for any
        rank): a list of Python ints would become int64 and wrap where the loop's ints grow, a
        list of Python floats sum to a NumPy float where the loop's is a Python float, and a
        masked array lose its mask. Only a plain array computes as the loop does. So too for
        an attribute read so, checked after the loop's trip count."""
        written = {gast.unparse(c).strip() for c in self.checks}
        numpy = self.lib.alias if not self.to_tf else self.ctx.imports.alias_for("numpy")  # (NumPy's arrays)
        if self.unknown_kinds and numpy is None:
            raise Unsupported(f"`{min(self.unknown_kinds)}` may be a list, which a check of NumPy's arrays would "
                              "rule out, and the module does not import numpy under a name")
        for name in sorted(self.unknown_kinds):
            if any(f"type({name}) is {numpy}.ndarray" in text for text in written):
                continue  # (checked to be an array already)
            self.checks.append(templates.expr(f"type(N) is {numpy}.ndarray", N=templates.name(name)))
        self._known_attribute_kinds()

    def _known_attribute_kinds(self) -> None:
        """``type(self.q) is np.ndarray`` for each attribute the batched code reads through
        ``np.asarray`` (:meth:`_known_kinds`), in a list comprehension's rewrite too: a dict
        keyed by pairs (a tabular agent's ``self.q[s, a]``) is one object to ``np.asarray``."""
        written = {gast.unparse(c).strip() for c in self.checks}
        for text, node in sorted(self.unknown_attributes.items()):
            if any(f"type({text}) is {self.lib.alias}.ndarray" in line for line in written):
                continue
            check = templates.expr(f"type(N) is {self.lib.alias}.ndarray", N=copy.deepcopy(node))
            # (read where the loop runs: a loop of no iteration never reads the attribute)
            check.pforge_after_trips = True
            self.checks.append(check)

    def _views_in_front(self) -> None:
        """The checks in front run before the batched code binds its views (``G_moved =
        np.moveaxis(G, 1, 0)``, :meth:`WritesMixin._through_moved_view`): there each is
        spelled out, and a label names the array itself."""
        spelled = {view: (name, position) for (name, position), view in self.moved_views.items()}
        if not spelled:
            return

        class Spell(gast.NodeTransformer):
            def visit_Name(inner, node):
                if node.id not in spelled:
                    return node
                name, position = spelled[node.id]
                return templates.expr(f"{self.lib.alias}.moveaxis({name}, {position}, 0)")

        self.checks[:] = [Spell().visit(copy.deepcopy(c)) for c in self.checks]
        for view, (name, _) in spelled.items():
            self.labels[:] = [label.replace(view, name) for label in self.labels]

    def _default_dtypes(self) -> None:
        """``np.asarray(x).dtype == np.float64`` (or a Python number) for each value the loop
        reads, where it computes with a value that is a Python number on some iterations and a NumPy value on
        others (``np.mean(lo) if len(lo) else 0.0``): with NumPy values of that dtype only,
        Python's floats compute as the batched ``float64`` arrays do, where a uint8 or float32
        value would wrap or round otherwise, a bool add as a bool, and an int64 one beside a
        Python float round past 2**53 (a Python int that may compute otherwise, :data:`INT_ARM`,
        is refused before). Where every NumPy value of two kinds is float64 for int and bool
        arrays too (a mean, a true division: :data:`core.LOOSE`) and computes only with such
        values, an int or bool dtype passes as well (``np.mean(grey[grey < t])`` of a uint8
        image is float64)."""
        if not self.mixed_arithmetic:
            return
        for check in self._float64_reads(loose=self.mixed_arithmetic == LOOSE):
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)

    def _float64_reads(self, loose: bool = False) -> list[gast.expr]:
        """``type(N) in (int, float, bool) or np.asarray(N).dtype == np.float64`` for each value
        the loop reads that is no name it binds (:meth:`_default_dtypes`); ``loose`` lets int
        and bool dtypes pass too."""
        np_ = self.lib.alias
        stored = {n.id for n in gast.walk(self.info.node) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Store)}
        # (not a function's or module's name, nor an array only written into)
        bases = {id(n.func) for n in gast.walk(self.info.node) if isinstance(n, gast.Call)} | {
            id(n.value) for n in gast.walk(self.info.node) if isinstance(n, gast.Attribute)} | {
            id(n.value) for n in gast.walk(self.info.node) if isinstance(n, gast.Subscript)
            and isinstance(n.ctx, (gast.Store, gast.Del))}
        # (nor one read only as an index, `v[idx[i]]`, whose values meet no arithmetic)
        in_index = {id(m) for n in gast.walk(self.info.node) if isinstance(n, gast.Subscript)
                    for m in gast.walk(n.slice)}
        loads = [n for n in gast.walk(self.info.node) if isinstance(n, gast.Name)
                 and isinstance(n.ctx, gast.Load) and id(n) not in bases]
        read = {n.id for n in loads if id(n) not in in_index} \
            | {name for level in self.info.walk() for name in level.helper_reads}
        checks = []
        for name in sorted(read - stored - self._object_lists()):
            if self._shape_of(name) is None:
                continue
            either = f" or {np_}.asarray(N).dtype.kind in 'biu'" if loose else ""
            checks.append(templates.expr(f"type(N) in (int, float, bool) or {np_}.asarray(N).dtype == {np_}.float64{either}",
                                         N=templates.name(name)))
        return checks

    def _parameters_apart(self) -> None:
        """``not np.may_share_memory(w, r)`` for each parameter ``w`` the loop writes elements
        of (by its name, or through a view of it, ``w = x[:, ::2]``) and each other parameter
        ``r`` it reads, by its name or another (``v = r``,
        ``v = r[1:]``, ``r = np.asarray(r)``): two arguments may be one array, or views of
        one (``f(x[1:], x[:-1])``), and the batched code reads all of ``r`` before it writes
        ``w``, where the loop reads what earlier iterations wrote. Also for each name the loop
        reads whole that a binding pforge cannot follow made (``w = helper(x)``, a global;
        :attr:`~pforge.transpile.analysis.facts.LoopInfo.untraced_reads`), against every
        array the loop writes, unless its rank is 0 (a number). NumPy's test compares the
        memory bounds only (it may see an overlap where none is, and run the loop)."""
        fdef = self.info.function
        if self.lib.kind != "np" or self.to_tf or fdef is None:
            return
        from pforge.transpile.analysis.aliasing import _reached
        from pforge.transpile.rank_inference import _parameters
        arguments, stored = set(_parameters(fdef)), _stores(fdef.body)
        params = arguments - stored
        if isinstance(fdef.args.vararg, gast.Name) and fdef.args.vararg.id not in stored:
            params.add(fdef.args.vararg.id)  # (`*ys`: a tuple, whose items the check compares)
        levels = list(self.info.walk())
        arrays = {name for level in levels for name in level.arrays}
        loop_nodes = list(gast.walk(self.info.node))
        firsts = {n.id: n for n in reversed(loop_nodes) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        read = set(firsts) | {name for level in levels for name in level.helper_reads}
        read |= {root for level in levels for root, names in level.aliases.items() if names & read}
        # a parameter bound again before the loop to a view of itself (`y = np.asarray(y)`)
        loop_ids = {id(n) for n in loop_nodes}
        rebound = {name for name in (arguments - params) & read - self.loop_stores if name in firsts
                   and any(root == name for _, root, _ in _reached(self.ctx, firsts[name], loop_ids, fdef))}
        untraced = {name for level in levels for name in level.untraced_reads} - self.loop_stores
        # (a local the loop writes that is a view of a parameter, `view = mat[:, ::2]`, is that
        # argument's memory too: helper-71)
        views = {w for w in arrays - params - self.loop_stores for level in levels
                 for root, names in level.aliases.items() if root in params and w in names}
        pairs = [(w, r) for w in sorted((arrays & params) | views) for r in sorted(((read & params) | rebound) - {w})]
        pairs += [(w, r) for w in sorted(arrays - self.loop_stores) for r in sorted(untraced - {w})
                  if getattr(self._shape_of(r), "rank", None) != 0]
        np_ = self.lib.alias
        for w, r in pairs:
            shape = self._shape_of(r)
            if shape is not None and shape.rank == 0 and r in params:
                # a number has no memory of its own to share, but a 0-d array may be a view
                # of an element the loop writes (`X[0, 0, ...]`, read by later iterations)
                check = templates.expr(f"not (isinstance({r}, {np_}.ndarray) and {np_}.may_share_memory({w}, {r}))")
            else:
                check = templates.expr(templates.apart(np_, w, r))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)

    def _element_reads_apart(self) -> None:
        """Refuses a name the loop reads whole that was bound before it to ``x[...]`` of an
        array ``x`` the loop writes, with integer-like indices
        (:attr:`~pforge.transpile.analysis.facts.LoopInfo.element_reads`), unless its rank is
        0: then the indices select one element, a copy (``x0 = x[0]`` of a vector); else it is
        a view of a row, which the loop's writes change as it runs and the batched code reads
        once.

        Raises:
          Unsupported: such a name's rank is not 0, or not known.
        """
        for level in self.info.walk():
            for name, array in sorted(level.element_reads.items()):
                shape = self._shape_of(name)
                if shape is None or shape.rank != 0:
                    raise Unsupported(f"`{name}` may be a view of `{array}`, which the loop writes while it "
                                      f"reads `{name}` (make a copy with `.copy()`)")

    def _comprehension(self, col) -> LoopRewrite:
        """A NumPy list comprehension read as an array (``np.array([...])``, ``np.sum([...])``, or
        bound to a name that only such calls read): the statement holding it runs after the
        batched code, the comprehension replaced by the batched value, whose rows are the
        items the list held.

        Only where that keeps the statement's meaning: the consumer is the statement's whole
        value (nothing else runs before the comprehension), its other arguments are names and
        constants, and the comprehension's own names (which the batched code binds) are used
        nowhere else in the function.
        """
        info = self.info
        if self.lib.kind != "np" or self.to_tf or info.form != "list comprehension":
            raise Unsupported(f"a {info.form} is rewritten with tf.vectorized_map")
        if col.consumer is None:
            raise Unsupported("the list comprehension is not read as an array (np.array, np.sum, ...), "
                              "so its result stays a Python list")
        assigned = isinstance(col.consumer, gast.Assign)  # `rows = [...]`, read only as an array later
        anchor = col.consumer if assigned else analysis._statement_of(self.ctx, col.consumer)
        if not assigned:
            if not isinstance(anchor, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)) \
                    or getattr(anchor, "value", None) is not col.consumer:
                raise Unsupported("the comprehension's consumer is part of a larger expression; assign it "
                                  "to a name first")
            others = col.consumer.args[1:] + [k.value for k in col.consumer.keywords]
            if not all(isinstance(n, (gast.Name, gast.Constant, gast.UnaryOp, gast.USub, gast.Load))
                       for a in others for n in gast.walk(a)):
                raise Unsupported("the comprehension's consumer takes computed arguments, which would run "
                                  "after the comprehension")
        own = {n.id for n in gast.walk(info.node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        scope = info.function if info.function is not None else self.ctx.tree
        inside = {id(n) for n in gast.walk(info.node)}
        for other in gast.walk(scope):  # another comprehension's own `x` is not the function's
            if isinstance(other, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)):
                bound = {n.id for g in other.generators for n in gast.walk(g.target) if isinstance(n, gast.Name)}
                inside |= {id(n) for n in gast.walk(other) if isinstance(n, gast.Name) and n.id in bound}
        clash = sorted({n.id for n in gast.walk(scope) if isinstance(n, gast.Name) and n.id in own
                        and id(n) not in inside})
        if clash:
            raise Unsupported(f"`{clash[0]}` names the comprehension's variable and a value of the "
                              "function too; the batched code would bind it")
        entries = self.pending.get(COMPREHENSION, [])
        if COMPREHENSION in self.listed:
            self.listed.add("items")
        self._emit_collector("items", col, entries, label="the list comprehension")
        batched = self.out.pop().value  # `items = V`: V goes where the list was
        numbers = len(entries) == 1 and entries[0].value.python and entries[0].value.rank == 0
        stmt = copy.deepcopy(anchor)
        if assigned:
            # the list itself, of Python numbers; else a new array, as the list was (the batched
            # value may be an argument itself)
            stmt.value = templates.expr("V.tolist()", V=batched) if numbers else self.lib.call("array", batched)
        else:
            callee = self.ctx.imports.resolve(col.consumer.func) or ""
            if numbers and callee.startswith("builtins."):
                batched = templates.expr("V.tolist()", V=batched)  # Python's numbers, as the list held
            stmt.value.args[0] = batched
            if callee == "numpy.asarray":  # the batched value may be an argument itself (`[r for r in x]`)
                stmt.value.func = self.lib.fn("array")
        self._default_dtypes()
        self._no_lists()
        self._declared_ranks([stmt])
        self._known_kinds()
        self._float_checks()
        result = LoopRewrite(self.out + [stmt], [], {}, self._pattern(), anchor=anchor, checks=list(self.checks),
                             unsafe=self.unsafe)
        result.declared_ranks = dict(self.declared_ranks)
        result.rank_spelling = self.rank_spelling
        result.derived_ranks = set(self.derived_ranks)
        return result

    def _snapshots(self):
        """Node splitting, as the analysis decided it (``LoopInfo.snapshots``): one copy of each
        such array before the loop, which the marked reads take their elements from."""
        copies: dict[str, str] = {}
        for level in self.info.walk():
            for node_id, name in sorted(level.snapshots.items(), key=lambda item: item[1]):
                if name not in copies:
                    if self.lib.kind != "np" or self.to_tf:
                        raise Unsupported(f"a read of `{name}` needs a copy made before the loop")
                    copies[name] = self.namer.new(f"{name}_before")
                    self.snapshot_of[copies[name]] = name
                    self.out += templates.replace(f"{copies[name]} = {self.lib.alias}.copy({name})")
                    shape = self._shape_of(name)
                    if shape is not None:
                        self.params[copies[name]] = shape
                self.snapshot_reads[node_id] = copies[name]

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
        in_place = {id(n.target) for n in gast.walk(fdef) if isinstance(n, gast.AugAssign)}
        # a binding after the loop is no other value at the loop, unless a loop around it runs it before
        enclosed = any(isinstance(n, (gast.For, gast.While)) and n is not self.info.node
                       and n.lineno <= self.info.lineno <= n.end_lineno for n in gast.walk(fdef))
        for node in gast.walk(fdef):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                if not enclosed and node.lineno > self.info.node.end_lineno:
                    continue
                if id(node) in in_place and _new_array(self.ctx, self.aliases.get(node.id)):
                    continue  # `s += t` of a new NumPy array (`s = np.zeros((n, 1))`) keeps its shape
                counts[node.id] = counts.get(node.id, 0) + 1
        for name, found in seen.items():
            if len(found) == 1 and None not in found and counts.get(name) == 1:
                self.locals[name] = Val(templates.name(name), (), found.pop())
                if isinstance(self.aliases.get(name), (gast.List, gast.ListComp, gast.Tuple)):
                    # a Python list (`rewards = [0]`, then `rewards.append(r)`): read through
                    # asarray, never written, as a list the rank inference found (helper-56)
                    self.inferred_locals.add(name)
        # A rank the user gives (`--shapes h=1`) to a local bound once before the loop whose
        # right-hand side did not tell it.
        # Inferred ranks cover every binding of the name (rank_inference.local_ranks).
        in_loop = {n.id for n in gast.walk(self.info.node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        for name, shape in ranks.local_shapes(fdef, self.shapes).items():
            if seen.get(name, {None}) <= {None, shape.rank} and name not in self.locals and name not in in_loop:
                self.locals[name] = Val(templates.name(name), (), shape.rank)
                if shape.inferred:  # may be a Python list: read through asarray, never written
                    self.inferred_locals.add(name)
                else:  # the user's word, checked where the loop starts (:meth:`_declared_ranks`)
                    self.declared_locals.add(name)
        self.aliases = {k: v for k, v in self.aliases.items() if counts.get(k) == 1}

    def _shape_of(self, name: str) -> ranks.Shape | None:
        if name in self.params:
            return self.params[name]
        if name in self.locals and self.locals[name].rank is not None:
            return ranks.Shape(self.locals[name].rank, inferred=name in self.inferred_locals)
        fdef = self.info.function
        if fdef is not None and any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
                                    for n in gast.walk(fdef)):
            return None  # a local of the function, not the module's name
        if name in self.free:  # a closure cell or global, as called
            return self.free[name]
        value = module_value(self.ctx, name)  # bound once, never rebound nor changed in place
        rank = None if value is None else ranks.literal_rank(value)
        if rank is not None:  # a module-level literal (OFFSETS = [(-1, 0), ...])
            return ranks.Shape(rank, None, sequence=True)
        rank = module_rank(self.ctx, name)  # `size = N + 2`, `SCALE = np.pi / 4`
        if rank is not None:
            return ranks.Shape(rank, None, inferred=rank > 0)
        return None

    def _declared(self, name: str) -> bool:
        """Whether the user declared ``name``'s shape (not inferred by pforge, not a Python
        sequence), so the batched code takes it as an array; a docstring's declaration does not
        say it is no list (:attr:`ranks.Shape.may_be_list`), and the check in front then does
        (``x * 2`` of a list repeats it)."""
        shape = self._shape_of(name)
        if shape is None or shape.sequence or shape.inferred:
            return False
        if shape.may_be_list and self.lib.kind == "np" and not self.to_tf:
            self.unlisted.add(name)  # (TensorFlow's ops take a list as a tensor of it)
        return True

    def _module_float(self, name: str) -> bool:
        """Whether ``name`` is a module-level float literal (``force = 5.0``), bound once and
        never rebound, and no parameter, local or free name of the function."""
        fdef = self.info.function
        if name in self.params or name in self.locals or name in self.free or fdef is not None and any(
                isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store) for n in gast.walk(fdef)):
            return False
        value = module_value(self.ctx, name)
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, (gast.USub, gast.UAdd)):
            value = value.operand
        return isinstance(value, gast.Constant) and type(value.value) is float

    def _as_array(self, node):
        """``node`` when it is evidently an array, else ``np.asarray(node)``/``tf.convert_to_tensor``.

        A Python list indexed by the loop index must not be batched as a list: ``xs * 2`` would
        repeat it. Evidence: a declared shape (docstring, annotation, signature, ``--shapes``,
        a probed array), or the analysis' evidence that the name is an array.
        """
        if isinstance(node, gast.Subscript) and isinstance(reversed_operand(node), gast.Name):
            # (`x[::-1]`, `reversed(x)`: the rows of `x`, whose kind decides as `x`'s would)
            base = reversed_operand(node)
            if self.lib.kind == "np" and base.id not in self.env and self._shape_of(base.id) is None \
                    and not _evidently_array(self.ctx, self.info.function, base, at=self.info.node):
                self.unknown_kinds.add(base.id)
        elif isinstance(node, gast.Subscript) and self.lib.kind == "np" and not self.to_tf:
            self._root_kind(node)
        if isinstance(node, gast.Name):
            shape = self._shape_of(node.id)
            if (node.id in self.params or node.id in self.locals) and self._declared(node.id):
                return node
            if shape is None and self.lib.kind == "np" and node.id not in self.env:
                # (`m.shape` shows an array, not that it is no subclass: a masked array's mask,
                # a matrix's rows would be lost; written with tf.experimental.numpy, a list of
                # Python ints would wrap where they grow)
                self.unknown_kinds.add(node.id)
            if (shape is None or not shape.sequence) and _evidently_array(self.ctx, self.info.function, node, at=self.info.node):
                return node
        elif isinstance(node, gast.Call) and _evidently_array(self.ctx, self.info.function, node, at=self.info.node):
            return node
        elif isinstance(node, gast.Attribute) and self.lib.kind == "np" and not self.to_tf:
            # (`self.q[s, a]`: an attribute may hold a dict keyed by tuples, which the loop indexes
            # and `np.asarray` makes one object)
            self._attribute_kind(node)
        if self.lib.kind == "np":
            return self.lib.call("asarray", node)
        return self.lib.call("convert_to_tensor", node)

    def _root_kind(self, node) -> None:
        """The kind check for ``q[s]``, a subscript read through ``np.asarray`` (the rows of
        ``q[s][a]``, ``self.q[s][a]``): its kind is that of the chain's root, checked as a name
        or an attribute read so is (:meth:`_known_kinds`). A dict of dicts is one object to
        ``np.asarray``, and a list of lists gives rows of Python floats that sum to a NumPy
        float; the rows of an array compute as the loop's do. (A known Python sequence is
        converted as one read whole is.)"""
        root = node
        while isinstance(root, gast.Subscript):
            root = root.value
        if isinstance(root, gast.Attribute):
            self._attribute_kind(root)
        elif isinstance(root, gast.Name) and root.id not in self.env and root.id not in self.loop_stores:
            if (root.id in self.params or root.id in self.locals) and self._declared(root.id):
                return
            shape = self._shape_of(root.id)
            if shape is None or not shape.sequence:
                self.unknown_kinds.add(root.id)

    def _attribute_kind(self, node) -> None:
        """``type(node) is np.ndarray``, after the loop's trip count (:meth:`_known_attribute_kinds`),
        for an attribute read through ``np.asarray``: of a name (``self.q``, ``env.model.p``) or
        of a subscript of one by values bound before the loop (``objs[s].vals``); one the check
        in front cannot read is refused. (An attribute of a call's value is taken as the call's
        value read whole is.)"""
        if self.ctx.imports.resolve(node):
            return  # (a module's attribute: `math.pi`, `np.newaxis`)
        if not _attribute_path(node):
            base = node
            while isinstance(base, (gast.Attribute, gast.Subscript)):
                base = base.value
            if not isinstance(base, gast.Name):
                return
            bound = set(self.env) | self.loop_stores
            if any(isinstance(n, gast.Call) or isinstance(n, gast.Name) and n.id in bound for n in gast.walk(node)):
                raise Unsupported(f"`{gast.unparse(node).strip()}` is of no known kind, read as an array")
        self.unknown_attributes.setdefault(gast.unparse(node).strip(), copy.deepcopy(node))

    def _used_outside(self, name):
        inside = {id(n) for n in gast.walk(self.info.node)}
        scope = self.info.function or self.ctx.tree
        return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
                   and id(n) not in inside for n in gast.walk(scope))

    # -- description ---------------------------------------------------------------------------------
    def _pattern(self):
        info = self.info
        parts = [f"map over {', '.join(self.labels) if self.labels else info.space.describe()}"]
        for name, col in info.collectors.items():
            if name == COMPREHENSION:
                parts.append("list comprehension")
                continue
            entries = self.pending.get(name, [])
            parts.append(f"{'filter' if entries and entries[0].mask is not None else 'collector'} {name}")
        for name, red in info.reductions.items():
            parts.append(f"{red.op} reduction {name}")
        for name, arg in info.arg_reductions.items():
            if arg.name is not None:
                parts.append(f"arg{arg.op} {name} of {arg.value}")
        for name, scan in info.scans.items():
            parts.append(f"{scan.op} scan {scan.array or name}")
        packed = {p.array: p.counter for p in info.packs.values()}
        for name in info.arrays:
            parts.append(f"pack {name} at {packed[name]}" if name in packed else
                         f"{'scatter-add' if info.scatter_add else 'indexed output'} {name}")
        for name in info.tensorarrays:
            parts.append(f"TensorArray {name}")
        for name in info.wraparound:
            parts.append(f"wrap-around {name}")
        if self.tapes:
            parts.append("GradientTape rows as tape.jacobian")
        nested = len(list(info.walk())) - 1
        if nested:
            parts.append(f"{nested} inner loop{'s' if nested > 1 else ''}")
        return ", ".join(parts)


# -- helpers ---------------------------------------------------------------------------------------------


def _length(node) -> bool:
    """Whether ``node`` is a call of ``len``, whose value is a Python int."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "len"


#: why TensorFlow's batched code raises for a list of rows (:meth:`DirectRewriter._tensors_of_lists`)
_LIST_OF_ROWS = "{name}: a list of rows, which the loop would compute with as lists; pass a tensor"


def _own_assertion(stmt: gast.stmt) -> bool:
    """Whether ``stmt`` is a ``tf.debugging.assert_*`` call statement, as batched code starts."""
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
        and isinstance(stmt.value.func, gast.Attribute) and stmt.value.func.attr.startswith("assert_") \
        and isinstance(stmt.value.func.value, gast.Attribute) and stmt.value.func.value.attr == "debugging"


#: Python's operators as ``tf.experimental.numpy``'s functions, which promote as NumPy does
_TNP_OPERATORS = {gast.Add: "add", gast.Sub: "subtract", gast.Mult: "multiply", gast.Div: "true_divide",
                  gast.FloorDiv: "floor_divide", gast.Mod: "mod", gast.Pow: "power", gast.MatMult: "matmul",
                  gast.Lt: "less", gast.LtE: "less_equal", gast.Gt: "greater", gast.GtE: "greater_equal",
                  gast.Eq: "equal", gast.NotEq: "not_equal"}


#: what tf.experimental.numpy lacks of NumPy: a ufunc's methods (``np.logaddexp.reduce``),
#: and modules and functions it has no counterpart of (helper-73's F5)
_UFUNC_METHODS = frozenset({"reduce", "accumulate", "reduceat", "outer", "at"})
_NOT_IN_TNP = ("numpy.linalg", "numpy.median", "numpy.nanmedian", "numpy.percentile", "numpy.quantile",
               "numpy.nanpercentile", "numpy.nanquantile", "numpy.ma", "numpy.errstate")


#: NumPy's float functions, which in tf.experimental.numpy raise for an int tensor
_FLOAT_MATH = frozenset({
    "tanh", "exp", "sin", "cos", "tan", "sqrt", "log", "log2", "log10", "log1p", "expm1", "exp2", "floor", "ceil",
    "trunc", "round", "around", "arctan", "arcsin", "arccos", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
    "cbrt", "reciprocal", "logaddexp", "logaddexp2", "hypot", "arctan2", "deg2rad", "rad2deg", "degrees",
    "radians", "sinc", "i0", "fix"})


class _ToTensorFlow(gast.NodeTransformer):
    """``np.X`` -> ``tf.experimental.numpy.X`` in generated code (``--target tensorflow``), and
    an operator with an operand that may be a tensor as ``tf.experimental.numpy``'s function
    (``i - 0.5`` as ``tnp.subtract(i, 0.5)``): TensorFlow's operators convert the other operand
    to the tensor's dtype, and raise for ``0.5`` beside an int64 index or a float32 tensor beside
    a float64 one, where NumPy's promote (``numbers``: names the code reads as Python numbers,
    which, as constants, ``len(...)`` and their sums, stay operators)."""

    def __init__(self, ctx, tnp, numbers=frozenset(), ints=frozenset()):
        self.ctx, self.tnp, self.numbers, self.ints = ctx, tnp, numbers, ints

    def _number(self, node) -> bool:
        if isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.Name):
            return node.id in self.numbers
        if isinstance(node, gast.Call):
            return isinstance(node.func, gast.Name) and node.func.id == "len"
        if isinstance(node, gast.BinOp):
            return self._number(node.left) and self._number(node.right)
        if isinstance(node, gast.UnaryOp):
            return self._number(node.operand)
        return False

    def visit_BinOp(self, node):
        number = self._number(node)
        node = self.generic_visit(node)
        if number or type(node.op) not in _TNP_OPERATORS:
            return node
        return templates.expr(f"{self.tnp}.{_TNP_OPERATORS[type(node.op)]}(A, B)", A=node.left, B=node.right)

    def visit_Compare(self, node):
        number = self._number(node.left) and all(map(self._number, node.comparators))
        node = self.generic_visit(node)
        if number or len(node.ops) != 1 or type(node.ops[0]) not in _TNP_OPERATORS:
            return node
        return templates.expr(f"{self.tnp}.{_TNP_OPERATORS[type(node.ops[0])]}(A, B)", A=node.left,
                              B=node.comparators[0])

    def visit_Subscript(self, node):
        node.value = self.visit(node.value)
        return node  # (an index's arithmetic is Python's: `x[:n - 1]`)

    def _numpy_name(self, node) -> str | None:
        """``numpy.X`` for NumPy's ``X`` as the code spells it, as the module's or as TensorFlow's
        (``tf.experimental.numpy.X``, the batched code's own), else None."""
        name = self.ctx.imports.resolve(node) or ""
        text = gast.unparse(node).strip()
        if text.startswith(f"{self.tnp}."):
            name = "numpy." + text[len(self.tnp) + 1:]
        return name if name.startswith("numpy.") else None

    def visit_Attribute(self, node):
        name = self._numpy_name(node) or ""
        if name.startswith("numpy."):
            if name.count(".") > 1 and name.rsplit(".", 1)[-1] in _UFUNC_METHODS \
                    or any(name == lacking or name.startswith(f"{lacking}.") for lacking in _NOT_IN_TNP):
                raise Unsupported(f"`{name.replace('numpy', 'np', 1)}` has no counterpart in tf.experimental.numpy")
            return templates.expr(f"{self.tnp}.{name[len('numpy.'):]}")
        return self.generic_visit(node)

    def visit_Call(self, node):
        """``v.astype(t)`` as ``tnp.asarray(v, dtype=t)``: a tensor has no ``astype``."""
        name = self._numpy_name(node.func)
        if name is not None and name[len("numpy."):] in _FLOAT_MATH and any(
                isinstance(n, gast.Name) and n.id in self.ints for a in node.args for n in gast.walk(a)):
            # (TensorFlow 2.x's `tnp.tanh` of an int tensor raises AttributeError: no `astype`)
            raise Unsupported(f"`{name.replace('numpy', 'np', 1)}` of the loop index: tf.experimental.numpy's "
                              "float functions raise for an int tensor")
        if any(k.arg in ("initial", "where") for k in node.keywords):
            raise Unsupported(f"`{gast.unparse(node.func).strip()}(..., {node.keywords[0].arg}=)`: "
                              "tf.experimental.numpy's reductions take no initial value or mask")
        node = self.generic_visit(node)
        if isinstance(node.func, gast.Attribute) and node.func.attr == "astype" and len(node.args) == 1 \
                and not node.keywords:
            return templates.expr(f"{self.tnp}.asarray(V, dtype=T)", V=node.func.value, T=node.args[0])
        return node


def _view(node) -> bool:
    """Whether ``node`` is a name or a basic slice of one (``x[:n, np.newaxis]``): a view,
    which holds no values of its own."""
    while isinstance(node, gast.Subscript):
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if not all(isinstance(p, gast.Slice) or (isinstance(p, gast.Constant) and p.value is None)
                   or (isinstance(p, gast.Attribute) and p.attr == "newaxis") for p in parts):
            return False
        node = node.value
    return isinstance(node, gast.Name)


def _attribute_path(node: gast.expr) -> bool:
    """Whether ``node`` is an attribute of a name, or of one in turn (``self.q``, ``env.model.p``)."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)
