"""Lowers a vectorizable loop to ``tf.vectorized_map`` over a generated body function.

The body function computes one iteration; pfor (Agarwal & Ganichev, arXiv:1903.04243) batches
it at trace time with one converter per op. ``tf.vectorized_map`` does not run AutoGraph on
its function, so the body emitted here is already graph code: an ``if`` on a stacked value
becomes ``tf.where`` (both branches are pure, so both may run), ``and``/``or``/``not`` become
``tf.logical_*``, ``int(t)``/``float(t)`` become ``tf.cast``, a nested independent loop becomes
a nested ``tf.vectorized_map`` and a nested carried loop a ``tf.while_loop`` (pfor converts
while loops with per-iteration trip counts by masking).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import gast

from pforge.transpile import analysis, dependence, templates
from pforge.transpile.analysis import LoopInfo, ModuleContext
from pforge.transpile.naming import Namer
from pforge.transpile.spaces import Space, constant_int


class Unsupported(Exception):
    """The loop is vectorizable but this backend cannot express it; the message says why."""


@dataclass
class LoopRewrite:
    """What replaces one loop.

    Attributes:
        stmts: the statements that take the loop's place.
        drop: statements outside the loop to delete (collector initialisers).
        replace: ``id(node) -> new expression`` for consumers outside the loop
            (``tf.stack(outs)`` -> ``outs``).
        pattern: a short description for the marker comment and the remark.
        anchor: for a loop written as an expression (a comprehension, ``tf.map_fn``), the
            statement that ``stmts`` replace (None: they replace the loop statement itself).
    """

    stmts: list[gast.stmt]
    drop: list[gast.stmt] = field(default_factory=list)
    replace: dict[int, gast.expr] = field(default_factory=dict)
    pattern: str = ""
    anchor: gast.stmt | None = None


def rewrite_loop(ctx: ModuleContext, info: LoopInfo, namer: Namer, tf: str) -> LoopRewrite:
    """Builds the vectorized replacement of ``info``'s loop (the outermost level of a nest).

    Args:
        ctx: the module context (imports, parents, def-use chains).
        info: an analysed, vectorizable loop level.
        namer: the module's namer; generated names are prefixed by the function's name.
        tf: the local name bound to the ``tensorflow`` module.
    Returns:
        The replacement statements and the edits outside the loop.
    Raises:
        Unsupported: the loop needs a construct this backend does not emit.
    """
    if info.library != "tensorflow":
        raise Unsupported("a NumPy or plain-Python loop; tf.vectorized_map cannot run it, it needs "
                          "the direct backend (--backend auto or direct)")
    if info.form == "tf.map_fn":
        return _map_fn(ctx, info, tf)
    if info.form != "loop" and info.form != "list comprehension":
        raise Unsupported(f"a {info.form} builds a Python value; only a list comprehension "
                          "consumed by tf.stack is rewritten")
    return _Vectorizer(ctx, info, namer, tf, stacked_outside=set()).run()


#: Calls whose result's shape depends on the data (ragged across iterations).
_RAGGED_CALLS = {"tensorflow.boolean_mask", "tensorflow.where", "tensorflow.unique",
                 "tensorflow.math.bincount", "tensorflow.gather_nd", "tensorflow.ragged.boolean_mask"}


def _used_as_number(node, index) -> bool:
    """The loop index read in ``node`` other than inside a subscript (``x[i]`` is fine)."""
    stack = [node]
    while stack:
        part = stack.pop()
        if isinstance(part, gast.Subscript):
            stack.append(part.value)
            continue
        if isinstance(part, gast.Name) and part.id in index and isinstance(part.ctx, gast.Load):
            return True
        stack.extend(gast.iter_child_nodes(part))
    return False


def _int_expression(node, index) -> bool:
    """An integer expression of loop indices and int literals (``i + 1``, ``2 * i``, ``i // 2``):
    int32 in the body, as an index it is fine. Powers of the index can overflow; ``/`` is float."""
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    if isinstance(node, gast.Name):
        return node.id in index
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and _int_expression(node.operand, index)
    if isinstance(node, gast.BinOp):
        if isinstance(node.op, gast.Pow) and _loads(node.right) & index:
            return False
        return isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod, gast.Pow)) \
            and _int_expression(node.left, index) and _int_expression(node.right, index)
    return False


#: Calls whose first argument is a shape.
_SHAPE_CALLS = {f"tensorflow.{n}" for n in ("ones", "zeros", "fill", "range", "eye",
                                           "random.normal", "random.uniform")}

_MAP_FN_DROPPED = {"dtype", "fn_output_signature", "parallel_iterations", "back_prop",
                   "swap_memory", "infer_shape", "name"}


def _map_fn(ctx, info, tf):
    """``tf.map_fn(fn, elems)`` with a pure ``fn`` becomes ``tf.vectorized_map(fn, elems)``.

    The output structure and dtypes are inferred by pfor, so ``fn_output_signature`` /
    ``dtype`` and the while-loop tuning arguments are dropped.
    """
    call = info.node
    extra = [k.arg for k in call.keywords if k.arg not in _MAP_FN_DROPPED | {"fn", "elems"}]
    if extra or len(call.args) > 2:
        raise Unsupported(f"tf.map_fn argument `{extra[0] if extra else 'initializer'}` has no "
                          "tf.vectorized_map equivalent")
    fn = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "fn")
    elems = call.args[1] if len(call.args) > 1 else next(k.value for k in call.keywords if k.arg == "elems")
    anchor = _simple_anchor(ctx, call)
    new = templates.expr(f"{tf}.vectorized_map(FN, ELEMS)", FN=copy.deepcopy(fn), ELEMS=copy.deepcopy(elems))
    return LoopRewrite([], replace={id(call): new}, pattern="tf.map_fn with a pure function",
                       anchor=anchor)


def _simple_anchor(ctx, node):
    """The statement holding ``node``, when the marker comment and hoisted code can go before it."""
    stmt = analysis._statement_of(ctx, node)
    if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return, gast.Expr)):
        raise Unsupported("the expression is part of a compound statement's header")
    return stmt


def _loads(node) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _stores(stmts) -> set[str]:
    found = set()
    for stmt in stmts:
        for n in gast.walk(stmt):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                found.add(n.id)
    return found


_IDENTITY = {"add": "0", "mul": "1", "or": "False", "and": "True"}
#: Built-in max/min reductions: a term replaces the accumulator only when it compares
#: greater (less), so NaN terms are skipped as the loop skips them.
_REDUCE_PY = {"max": "{tf}.maximum({s}, {tf}.reduce_max({tf}.where({t} > {s}, {t}, {s}), axis=0))",
              "min": "{tf}.minimum({s}, {tf}.reduce_min({tf}.where({t} < {s}, {t}, {s}), axis=0))"}
_REDUCE = {"add": ("{s} + {tf}.reduce_sum({t}, axis=0)"), "mul": "{s} * {tf}.reduce_prod({t}, axis=0)",
           # The running value inside the reduction too: Grappler hoists a monotonic op out of
           # reduce_max/min (max(tanh(t)) -> tanh(max(t))), which over zero iterations gives
           # tanh(-inf) = -1 instead of the running value; a binary op in between keeps it.
           "max": "{tf}.maximum({s}, {tf}.reduce_max({tf}.maximum({t}, {s}), axis=0))",
           "min": "{tf}.minimum({s}, {tf}.reduce_min({tf}.minimum({t}, {s}), axis=0))",
           "or": "{tf}.logical_or({s}, {tf}.reduce_any({t}, axis=0))",
           "and": "{tf}.logical_and({s}, {tf}.reduce_all({t}, axis=0))"}


class _Vectorizer:
    """Generates the body function and the ``tf.vectorized_map`` call for one level."""

    def __init__(self, ctx, info, namer, tf, stacked_outside):
        self.ctx, self.info, self.namer, self.tf = ctx, info, namer, tf
        self.prefix = (info.qualname.split(".")[-1] if info.qualname else "loop").lstrip("_")
        self.stacked_outside = stacked_outside
        self.outputs: dict[str, gast.expr] = {}
        self.masks: dict[str, gast.expr] = {}
        self.order: list[str] = []
        self.drop: list[gast.stmt] = []
        self.inner_replace: dict[int, gast.expr] = {}
        self.inner_drop: set[int] = set()
        self.gathers: dict[str, str] = {}
        self._labels: dict[str, str] = {}  # stream parameter -> what the comment calls it

    # -- entry -----------------------------------------------------------------------------

    def run(self) -> LoopRewrite:
        info = self.info
        space = info.space
        self._check_supported()
        body_name = self.namer.new(f"_{self.prefix}_body")  # outer levels get the plain name
        streams = self._streams(space)
        params = [p for p, _ in streams]
        self.stacked = set(params) | self.stacked_outside | space.target_names()
        for child in info.children:
            for col in child.collectors.values():
                if col.name not in info.collectors and _stores([col.init]) <= set(child.collectors):
                    self.inner_drop.add(id(col.init))
        body = self._lower_block(info.body, later=set())
        outputs = self.order
        if not outputs:
            raise Unsupported("the loop produces no value pforge can collect")
        ret = [self.outputs[k] for k in outputs] + [self.masks[k] for k in outputs if k in self.masks]
        ret_node = ret[0] if len(ret) == 1 else gast.Tuple(elts=ret, ctx=gast.Load())
        body.append(gast.Return(value=ret_node))
        if len(streams) == 1:
            arg = params[0]
            elems = streams[0][1]
            fdef_body = body
        else:
            arg = self.namer.new("elems")
            unpack = templates.replace(f"{', '.join(params)} = {arg}")
            fdef_body = unpack + body
            elems = gast.Tuple(elts=[e for _, e in streams], ctx=gast.Load())
        fdef = templates.replace(f"def {body_name}({arg}):\n    pass")[0]
        fdef.body = fdef_body

        result_names, post = [], []
        replace, drop = {}, list(self.drop)
        anchor, results = None, {}
        for key in outputs:
            kind, name = key.split(":", 1)
            if kind == "collector" and _is_comprehension(info, name):
                anchor, results[name], tail = self._comprehension_result(info.collectors[name])
                result_names.append(results[name])
                post += tail
            elif kind == "collector":
                col = info.collectors[name]
                result_names.append(name)
                replace[id(col.consumer)] = self._consumer_value(col)
                if self._init_only_collectors(col.init):
                    drop.append(col.init)
            elif kind == "ta":
                values = self.namer.new(f"{name}_values")
                result_names.append(values)
                post += templates.replace(f"{name} = {name}.scatter(indices, {values})",
                                          indices=self._range_expr(space))
            elif kind == "arg":
                terms = self.namer.new(f"{info.arg_reductions[name].value}_terms")
                result_names.append(terms)
                post += self._arg_reduction(info.arg_reductions[name], terms)
            else:
                red = info.reductions[name]
                terms = self.namer.new(f"{name}_terms")
                result_names.append(terms)
                formula = _REDUCE[red.op]
                if self._python_compare(red):
                    # max(s, v) keeps s unless v > s: a NaN term never wins, as in the loop.
                    formula = _REDUCE_PY[red.op]
                post += templates.replace(f"{name} = " + formula.format(s=name, t=terms, tf=self.tf))
        for key in outputs:
            if key in self.masks:
                name = results.get(key.split(":", 1)[1], key.split(":", 1)[1])
                mask = self.namer.new(f"{name}_mask")
                result_names.append(mask)
                post += templates.replace(f"{name} = {self.tf}.boolean_mask({name}, {mask})")
        target = ", ".join(result_names)
        call = templates.replace(f"{target} = {self.tf}.vectorized_map({body_name}, ELEMS)", ELEMS=elems)
        if anchor is not None and isinstance(anchor, gast.Return):
            post += templates.replace(f"return {results[analysis.COMPREHENSION]}")
        stmts = [fdef] + call + post
        return LoopRewrite(stmts, drop, replace, self._pattern(streams), anchor)

    def _comprehension_result(self, col):
        """Where a list comprehension's stacked result goes: ``y = tf.stack([...])`` keeps the
        name ``y``; ``return tf.stack([...])`` returns a new name. Other uses stay as written."""
        if col.consumer is None or col.kind != "stack":
            raise Unsupported("the list comprehension is not consumed by tf.stack, so its result "
                              "stays a Python list")
        anchor = _simple_anchor(self.ctx, col.consumer)
        if isinstance(anchor, gast.Return) and anchor.value is col.consumer:
            return anchor, self.namer.new(f"{self.prefix}_stacked"), []
        if isinstance(anchor, gast.Assign) and anchor.value is col.consumer and \
                len(anchor.targets) == 1 and isinstance(anchor.targets[0], gast.Name):
            return anchor, anchor.targets[0].id, []
        raise Unsupported("the comprehension is part of a larger expression; assign its "
                          "tf.stack to a name first")

    def _python_compare(self, red) -> bool:
        """True for ``s = max(s, v)`` with the built-in ``max``/``min`` (Python's comparison
        semantics); raises for ``max(v, s)``, whose result with a NaN depends on the order."""
        stmt = red.updates[0]
        value = getattr(stmt, "value", None)
        if not (isinstance(value, gast.Call) and
                self.ctx.imports.resolve(value.func) in ("builtins.max", "builtins.min")):
            return False
        if not (isinstance(value.args[0], gast.Name) and value.args[0].id == red.name):
            raise Unsupported(f"`{gast.unparse(value).strip()}` puts the accumulator second; "
                              f"write `{value.func.id}({red.name}, ...)`")
        return True

    def _arg_reduction(self, arg, terms):
        """``best``/``idx`` after the loop from the stacked terms: the extreme term, and the
        first (``>``) or last (``>=``) iteration that reached it, taken only when it beats the
        value ``best`` had before the loop, as the loop's own comparison would."""
        space = self.info.space
        start, step = (constant_int(b) if b is not None else d for b, d in ((space.start, 0), (space.step, 1)))
        if not (isinstance(arg.index, gast.Name) and arg.index.id == space.induction
                and space.kind == "range" and start is not None and step is not None):
            raise Unsupported(f"`{arg.name}` records something other than the loop index")
        tf, best, idx = self.tf, arg.value, arg.name
        extreme, better = self.namer.new(f"{best}_{arg.op}"), self.namer.new(f"{best}_better")
        compare = {("max", True): ">", ("max", False): ">=", ("min", True): "<",
                   ("min", False): "<="}[(arg.op, arg.strict)]
        pick = "reduce_min" if arg.strict else "reduce_max"
        position = f"{tf}.{pick}({tf}.where({tf}.equal({terms}, {extreme}))[:, 0])"
        if step != 1:
            position = f"{step} * {position}"
        if start:
            position = f"{start} + {position}"
        # Only terms that beat the value before the loop compete, so NaN terms never win, as
        # in the loop's own comparison; with none, `best` and `idx` keep their values.
        return templates.replace(
            f"{better} = {tf}.reduce_any({terms} {compare} {best})\n"
            f"{extreme} = {tf}.reduce_{arg.op}({tf}.where({terms} {compare} {best}, {terms}, {best}), axis=0)\n"
            f"{idx} = {tf}.where({better}, {position}, {idx})\n"
            f"{best} = {tf}.where({better}, {extreme}, {best})")

    # -- checks and iteration space ------------------------------------------------------------

    def _check_supported(self):
        info = self.info
        if info.derived:
            raise Unsupported(f"derived induction variable `{next(iter(info.derived))}` is not "
                              "rewritten by the pfor backend yet")
        if info.arrays:
            raise Unsupported(f"writes elements of `{next(iter(info.arrays))}` in place, which "
                              "TensorFlow tensors do not support")
        if info.space.kind == "while":
            raise Unsupported("a counted while loop is vectorized only inside another loop")
        for name, writes in info.tensorarrays.items():
            for assign in writes:
                index = assign.value.args[0]
                if not (info.space.kind == "range" and isinstance(index, gast.Name)
                        and index.id == info.space.induction):
                    raise Unsupported(f"TensorArray `{name}` is written at an index other than "
                                      "the loop variable")
        for red in info.reductions.values():
            if len(red.updates) != 1:
                raise Unsupported(f"`{red.name}` is updated more than once per iteration")
        for name, col in info.collectors.items():
            if analysis._append_counts(info.body, {id(c) for c in col.appends})[1] > 1:
                raise Unsupported(f"`{name}` is appended to more than once in an iteration")
            for call in col.appends:
                value = call.args[0] if call.args else None
                if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                        and value.func.attr in ("gradient", "jacobian") and len(value.args) > 1 \
                        and isinstance(value.args[1], (gast.List, gast.Tuple)):
                    raise Unsupported(f"`{name}` collects lists of gradients (one per source): "
                                      "tf.vectorized_map returns a list where tf.stack makes one tensor")
        nodes = list(analysis._scope_nodes(info.body))
        for node in nodes:
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and \
                    isinstance(node.func.value, gast.Name) and node.func.value.id in info.tensorarrays \
                    and node.func.attr != "write":
                raise Unsupported(f"TensorArray `{node.func.value.id}` is read in the loop that "
                                  "writes it")
        self._check_index_uses(nodes)
        bound_in_body = _stores(info.body)
        for node in nodes:
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                    and node.func.attr in ("gradient", "jacobian", "batch_jacobian") \
                    and isinstance(node.func.value, gast.Name) and node.func.value.id not in bound_in_body \
                    and node.args and _loads(node.args[0]) & (info.space.target_names() | bound_in_body):
                # `for out_j in tf.unstack(out): tape.gradient(out_j, x)`: the loop's rows were
                # recorded on the tape; the rows tf.vectorized_map slices from a re-stacked
                # tensor were not, so every gradient would be None.
                raise Unsupported(f"`{gast.unparse(node).strip()}` differentiates a per-iteration value "
                                  f"recorded on the tape `{node.func.value.id}` before the loop; the "
                                  "batched rows would not be on the tape")
        for tape, calls in single_use_tapes(self.ctx, nodes).items():
            if len(calls) > 1:
                raise Unsupported(f"the tape `{tape}` is not persistent and {len(calls)} gradients are "
                                  "taken from it; the batched body would run all of them (both "
                                  "branches of an `if` run), and a tape gives one")

    def _check_index_uses(self, nodes):
        """The loop index becomes an int32 tensor: refuse uses that only a Python int supports.

        ``x[i] * i`` (int32 times float32), slice bounds and shapes that depend on ``i``
        (each iteration would produce a differently shaped value), comprehensions over a
        per-iteration value (graph code cannot iterate a symbolic tensor), and indexing a dict.
        """
        space = self.info.space
        index = {space.induction} if space.induction else set()
        for node in nodes:  # names computed from the index alone (`k = i + 1`) are indices too
            if isinstance(node, gast.Assign) and _loads(node.value) and _loads(node.value) <= index \
                    and not any(isinstance(n, (gast.Subscript, gast.Call)) for n in gast.walk(node.value)):
                index |= _stores([node])
        stacked = index | space.target_names()
        for node in nodes:
            if isinstance(node, gast.BinOp) and not self._in_subscript_index(node) and \
                    _used_as_number(node, index) and not _int_expression(node, index):
                raise Unsupported(f"the loop index is used as a number in "
                                  f"`{gast.unparse(node).strip()}`; as a tensor it is int32, which "
                                  "does not mix with float tensors and overflows where Python's "
                                  "int does not")
            elif isinstance(node, gast.Call) and not self._records_output(node) and \
                    any(_used_as_number(a, index) for a in node.args) and \
                    not (self.ctx.imports.resolve(node.func) or "").startswith(
                        ("tensorflow.", "builtins.int", "builtins.range")):
                raise Unsupported(f"`{gast.unparse(node).strip()}` takes the loop index as a "
                                  "Python number")
            elif isinstance(node, gast.Call) and (self.ctx.imports.resolve(node.func) or "") in _RAGGED_CALLS \
                    and not (node.func.attr == "where" and len(node.args) == 3 if isinstance(node.func, gast.Attribute) else False):
                raise Unsupported(f"`{gast.unparse(node).strip()}` has a data-dependent shape in "
                                  "each iteration")
            elif isinstance(node, gast.Slice) and any(
                    _loads(part) & index for part in (node.lower, node.upper, node.step) if part is not None):
                raise Unsupported("a slice bound depends on the loop index, so each iteration's "
                                  "value has another shape")
            elif isinstance(node, gast.comprehension) and not (
                    isinstance(node.iter, gast.Call) and isinstance(node.iter.func, gast.Name)
                    and node.iter.func.id == "range" and not _loads(node.iter) & stacked):
                raise Unsupported("a comprehension in the body iterates over a per-iteration value")
            elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    _loads(node.slice) & index and self._is_dict(node.value):
                raise Unsupported(f"`{node.value.id}` is a dict indexed by the loop index")
            elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    _loads(node.slice) & index and bound_to_sequence(self.ctx, node.value, self.info.node):
                raise Unsupported(f"`{node.value.id}` is a Python list built in the body and indexed "
                                  "by the loop index, which is a tensor under tf.vectorized_map")
            elif isinstance(node, gast.Call) and node.args and \
                    (self.ctx.imports.resolve(node.func) or "") in _SHAPE_CALLS and _loads(node.args[0]) & index:
                raise Unsupported(f"the shape in `{gast.unparse(node).strip()}` depends on the loop "
                                  "index, so each iteration's value has another shape")

    def _records_output(self, call):
        """``outs.append(e)`` / ``ta.write(i, e)``: the index there is an element or a position."""
        func = call.func
        return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and (
            func.attr == "append" and func.value.id in self.info.collectors
            or func.attr == "write" and func.value.id in self.info.tensorarrays)

    def _in_subscript_index(self, node):
        parent = self.ctx.parents.get(id(node))
        while parent is not None and not isinstance(parent, gast.stmt):
            if isinstance(parent, gast.Subscript):
                return True
            parent = self.ctx.parents.get(id(parent))
        return False

    def _is_dict(self, name_node):
        for definition in self.ctx.definitions_of(name_node):
            _, value = analysis._binding(self.ctx, definition.node)
            if isinstance(value, (gast.Dict, gast.DictComp)) or (
                    isinstance(value, gast.Call) and self.ctx.imports.resolve(value.func) == "builtins.dict"):
                return True
        return False

    def _streams(self, space: Space):
        """(parameter, elements) pairs fed to ``tf.vectorized_map``."""
        if space.kind == "range":
            i = space.induction
            streams = []
            for base in self._gather_bases(i):
                param = self.namer.new(f"{base}_{i}")
                self.gathers[base] = param
                self._labels[param] = base
                streams.append((param, self._sliced(base, space)))
            if self._induction_used_elsewhere(i) or not streams:
                streams.append((i, self._range_expr(space)))
            return streams
        streams = []
        if space.kind == "enumerate":
            seq = space.items[0][1]
            count = templates.expr(f"{self.tf}.shape(SEQ)[0]", SEQ=seq)
            if space.enumerate_start is None:
                rng = templates.expr(f"{self.tf}.range(N)", N=count)
            else:
                rng = templates.expr(f"{self.tf}.range(S, S + N)", S=space.enumerate_start, N=count)
            streams.append((space.induction, rng))
        for target, seq in space.items:
            if isinstance(target, gast.Name):
                streams.append((target.id, self._as_tensor(copy.deepcopy(seq))))
                self._labels[target.id] = gast.unparse(seq).strip()
            else:
                raise Unsupported("unpacking each row into several names is not rewritten yet")
        return streams

    def _range_expr(self, space):
        """``tf.range`` over the loop's indices; Python's ``range(1, 0)`` is empty where
        ``tf.range(1, 0)`` raises, so a stop that may be past the start is clamped to it."""
        start = space.start if space.start is not None else gast.Constant(value=0, kind=None)
        stop = copy.deepcopy(space.stop)
        sign = space.step_sign()
        if sign is not None and not _in_order(start, space.stop, sign, self.ctx):
            clamp = "maximum" if sign == 1 else "minimum"
            stop = templates.expr(f"{self.tf}.{clamp}(STOP, START)", STOP=stop, START=copy.deepcopy(start))
        if space.start is None and space.step is None:
            return templates.expr(f"{self.tf}.range(STOP)", STOP=stop)
        step = [copy.deepcopy(space.step)] if space.step is not None else []
        return gast.Call(func=templates.expr(f"{self.tf}.range"), args=[copy.deepcopy(start), stop] + step,
                         keywords=[])

    def _gather_bases(self, i):
        """Invariant names ``X`` read as ``X[i]`` or ``X[i, ...]`` (they become elems)."""
        space = self.info.space
        start = constant_int(space.start) if space.start is not None else 0
        step = constant_int(space.step) if space.step is not None else 1
        if start is None or start < 0 or step is None or step <= 0:
            return []
        bases = []
        nodes = list(analysis._scope_nodes(self.info.body))
        whole = {n.id for n in nodes if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                 and not (isinstance(self.ctx.parents.get(id(n)), gast.Subscript)
                          and self.ctx.parents[id(n)].value is n)}
        for node in nodes:
            if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load) \
                    and isinstance(node.value, gast.Name) and self._first_index_is(node, i):
                base = node.value.id
                # A base also used whole (`tape.watch(x)`) stays captured: its rows are
                # gathered inside the body, so gradients still flow to the whole array.
                if self.info.classes.get(base) == analysis.INVARIANT and base not in bases \
                        and base not in self.stacked_outside and base not in whole:
                    bases.append(base)
        return bases

    @staticmethod
    def _first_index_is(node, i):
        index = node.slice
        first = index.elts[0] if isinstance(index, gast.Tuple) and index.elts else index
        return isinstance(first, gast.Name) and first.id == i

    def _induction_used_elsewhere(self, i):
        """True when ``i`` is read other than as the first index of a gathered base."""
        gathered = set()
        for node in analysis._scope_nodes(self.info.body):
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                    and node.value.id in self.gathers and self._first_index_is(node, i):
                index = node.slice
                gathered.add(id(index.elts[0] if isinstance(index, gast.Tuple) else index))
        for arg in self.info.arg_reductions.values():
            gathered.add(id(arg.index))  # recorded after the loop from the positions, not streamed
        return any(isinstance(n, gast.Name) and n.id == i and isinstance(n.ctx, gast.Load)
                   and id(n) not in gathered for n in analysis._scope_nodes(self.info.body))

    def _as_tensor(self, seq):
        """``seq`` itself when it is evidently an array, else ``tf.convert_to_tensor(seq)``.

        ``tf.vectorized_map`` treats a Python list as a structure of separate inputs, so a list
        of tensors must be packed first or the result comes out transposed.
        """
        if _evidently_array(self.ctx, self.info.function, seq):
            return seq
        return templates.expr(f"{self.tf}.convert_to_tensor(S)", S=seq)

    def _sliced(self, base, space):
        stop = space.stop
        whole = self._as_tensor(templates.name(base))
        if space.start is None and space.step is None and self._is_length_of(stop, base):
            return whole
        lower = space.start if space.start is not None and constant_int(space.start) != 0 else None
        step = space.step if space.step is not None and constant_int(space.step) != 1 else None
        upper = copy.deepcopy(stop)
        if not _nonnegative(stop, self.ctx):
            # range(-1) is empty, but x[:-1] is all rows but one: clamp the bound at zero.
            upper = templates.expr(f"{self.tf}.maximum(STOP, 0)", STOP=upper)
        return gast.Subscript(value=whole, slice=gast.Slice(
            lower=copy.deepcopy(lower), upper=upper, step=copy.deepcopy(step)), ctx=gast.Load())

    def _is_length_of(self, stop, base):
        text = gast.unparse(stop).strip()
        return text in (f"{base}.shape[0]", f"len({base})", f"{self.tf}.shape({base})[0]")

    # -- body lowering -------------------------------------------------------------------------

    def _is_stacked(self, node) -> bool:
        return bool(_loads(node) & self.stacked)

    def _expr(self, node, env=None):
        """Copies an expression with gathers, casts, inner-consumer and renaming substitutions."""
        memo: dict = {}
        duplicate = copy.deepcopy(node, memo)
        back = {id(v): k for k, v in memo.items() if isinstance(v, gast.AST)}
        return _ExprRewriter(self, env or {}, back).visit(duplicate)

    def _record(self, key, value, later, out_stmts):
        """Records an output value; materialises it when later statements rebind its inputs."""
        if _loads(value) & later:
            tmp = self.namer.new(f"{key.split(':', 1)[1]}_item")
            out_stmts += templates.replace(f"{tmp} = VALUE", VALUE=value)
            value = templates.name(tmp)
        if key not in self.order:
            self.order.append(key)
        self.outputs[key] = value

    def _lower_block(self, stmts, later):
        """Lowers the top-level statements of the body."""
        out: list[gast.stmt] = []
        for k, stmt in enumerate(stmts):
            rest_stores = _stores(stmts[k + 1:]) | later
            if id(stmt) in self.inner_drop:
                continue
            kind = self._output_kind(stmt)
            if kind is not None:
                key, value = kind
                self._record(key, self._expr(value), rest_stores, out)
                continue
            if isinstance(stmt, gast.If):
                out += self._lower_if(stmt, rest_stores)
                continue
            if isinstance(stmt, (gast.For, gast.While)):
                out += self._lower_inner_loop(stmt)
                continue
            if isinstance(stmt, gast.With):
                new = copy.copy(stmt)
                new.items = [self._expr(item) for item in stmt.items]
                new.body = self._lower_block(stmt.body, rest_stores)
                out.append(new)
                continue
            if isinstance(stmt, gast.Pass):
                continue
            new = self._expr(stmt)
            self._mark_stacked(stmt)
            out.append(new)
        return out

    def _mark_stacked(self, stmt):
        if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            value = stmt.value
            if value is not None and (self._is_stacked(value) or isinstance(stmt, gast.AugAssign)):
                self.stacked |= _stores([stmt])
        elif isinstance(stmt, gast.With):
            for inner in stmt.body:
                self._mark_stacked(inner)

    def _output_kind(self, stmt):
        """``(key, value)`` when ``stmt`` records an output: an append, a TA write, a reduction."""
        info = self.info
        if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            call = stmt.value
            if isinstance(call.func, gast.Attribute) and call.func.attr == "append" and \
                    isinstance(call.func.value, gast.Name) and call.func.value.id in info.collectors:
                return f"collector:{call.func.value.id}", call.args[0]
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            name = stmt.targets[0].id
            if name in info.tensorarrays and stmt in info.tensorarrays[name]:
                return f"ta:{name}", stmt.value.args[1]
        for arg in info.arg_reductions.values():
            if stmt is arg.stmt:
                return f"arg:{arg.name}", arg.term
        for red in info.reductions.values():
            if stmt in red.updates:
                return f"reduction:{red.name}", analysis.contribution(stmt, red.name)
        return None

    def _lower_if(self, stmt, later):
        """An ``if`` in the body becomes ``tf.where`` merges (both branches run; both are pure)."""
        out: list[gast.stmt] = []
        cond_expr = self._test(stmt.test)
        if len(_loads(cond_expr)) and (self._count_merges(stmt) > 1):
            cond = self.namer.new("cond")
            out += templates.replace(f"{cond} = COND", COND=cond_expr)
            cond_expr = templates.name(cond)
        then = self._lower_branch(stmt.body)
        other = self._lower_branch(stmt.orelse)
        out += then.stmts + other.stmts
        local = analysis.branch_locals(self.info, stmt)
        for name in sorted(set(then.env) | set(other.env)):
            if name in local and (name not in then.env or name not in other.env):
                continue  # bound on one path and read only there: nothing to blend
            a = then.env.get(name, templates.name(name))
            b = other.env.get(name, templates.name(name))
            out += templates.replace(f"{name} = {self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            self.stacked.add(name)
        for key in [k for k in then.outputs] + [k for k in other.outputs if k not in then.outputs]:
            kind, name = key.split(":", 1)
            a, b = then.outputs.get(key), other.outputs.get(key)
            if key in self.outputs:
                raise Unsupported(f"`{name}` gets more than one value per iteration")
            if a is not None and b is not None:
                value = templates.expr(f"{self.tf}.where(C, A, B)", C=cond_expr, A=a, B=b)
            elif kind == "reduction":
                red = self.info.reductions[name]
                if red.op not in _IDENTITY:
                    raise Unsupported(f"a conditional `{red.op}` reduction of `{name}`")
                present = a if a is not None else b
                zero = templates.expr(f"{self.tf}.zeros_like(V)" if red.op == "add" else
                                      f"{self.tf}.ones_like(V)" if red.op == "mul" else _IDENTITY[red.op],
                                      V=present)
                value = templates.expr(f"{self.tf}.where(C, A, B)", C=cond_expr,
                                       A=a if a is not None else zero, B=b if b is not None else zero)
            else:  # appended in one branch only: a filter
                value = a if a is not None else b
                self.masks[key] = cond_expr if a is not None else templates.expr(
                    f"{self.tf}.logical_not(C)", C=cond_expr)
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
        cond_expr = self._test(stmt.test, scope)
        then = self._lower_branch(stmt.body, scope)
        other = self._lower_branch(stmt.orelse, scope)
        stmts = then.stmts + other.stmts
        local = analysis.branch_locals(self.info, stmt)
        for name in sorted(set(then.env) | set(other.env)):
            if name in local and (name not in then.env or name not in other.env):
                continue  # bound on one path and read only there: nothing to blend
            a = then.env.get(name, scope.get(name, templates.name(name)))
            b = other.env.get(name, scope.get(name, templates.name(name)))
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

    # -- inner loops -----------------------------------------------------------------------------

    def _lower_inner_loop(self, stmt):
        child = next((c for c in self.info.children if c.node is stmt), None)
        if child is None:
            raise Unsupported(f"line {stmt.lineno}: an inner loop pforge did not analyse")
        bounds = [b for b in (child.space.start, child.space.stop, child.space.step) if b is not None] \
            if child.space else []
        bounds += [seq for _, seq in (child.space.items if child.space else [])]
        ragged = any(self._is_stacked(b) for b in bounds)
        if child.vectorizable and not ragged and child.space.kind != "while":
            inner = _Vectorizer(self.ctx, child, self.namer, self.tf, stacked_outside=set(self.stacked))
            rewrite = inner.run()
            for col in rewrite.drop:
                self.inner_drop.add(id(col))
            self.inner_replace.update(rewrite.replace)
            for s in rewrite.stmts:
                self._mark_stacked(s)
            self.stacked |= _stores(rewrite.stmts)
            return [_ExprRewriter(self, {}).visit(s) for s in rewrite.stmts]
        return self._while_loop(child)

    def _while_loop(self, child):
        """A carried (or ragged) inner loop kept as a loop: ``tf.while_loop`` over its state."""
        space = child.space
        if space is None or space.kind not in ("range", "while"):
            raise Unsupported("an inner loop over rows with a per-iteration length")
        step = constant_int(space.step) if space.step is not None else 1
        if step != 1:
            raise Unsupported("an inner loop with a step other than 1")
        if child.collectors or child.tensorarrays or child.arrays:
            raise Unsupported("an inner loop kept as a loop may only update variables")
        blocking = [b for b in child.blockers if b.code != "PF201"]
        if blocking:
            raise Unsupported(f"inner loop at line {child.lineno}: {blocking[0].message}")
        counter = space.induction
        state = self._while_state(child, counter)
        loop_vars = state + [counter]
        out: list[gast.stmt] = []
        if space.kind == "range":
            start = space.start if space.start is not None else gast.Constant(value=0, kind=None)
            out += templates.replace(f"{counter} = START", START=self._expr(start))
        cond_name = self.namer.new(f"_{self.prefix}_cond")
        step_name = self.namer.new(f"_{self.prefix}_step")
        args = ", ".join(loop_vars)
        cond_def = templates.replace(f"def {cond_name}({args}):\n    return TEST",
                                     TEST=_to_graph_test(self._expr(_lt(counter, space.stop)), self.tf))
        saved_stacked = set(self.stacked)
        self.stacked |= set(loop_vars)
        step_body = []
        for s in child.body:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                raise Unsupported("control flow inside a loop kept as a loop is not rewritten yet")
            step_body.append(self._expr(s))
        self.stacked = saved_stacked | set(loop_vars)
        increment = child.node.body[-1] if space.kind == "while" else \
            templates.replace(f"{counter} += 1")[0]
        step_def = templates.replace(f"def {step_name}({args}):\n    pass\n")[0]
        step_def.body = step_body + [copy.deepcopy(increment) if space.kind == "while" else increment] + \
            templates.replace(f"return {args}" + ("," if len(loop_vars) == 1 else ""))
        call = templates.replace(f"{args}{',' if len(loop_vars) == 1 else ''} = "
                                 f"{self.tf}.while_loop({cond_name}, {step_name}, ({args},))")
        return out + cond_def + [step_def] + call

    def _while_state(self, child, counter) -> list[str]:
        """The names a ``tf.while_loop`` carries: those the inner loop updates from one
        iteration to the next, or that the outer body reads after it. A name private to each
        inner iteration and read nowhere else stays a local of the step function: as a loop
        variable it would need a value before the loop (``UnboundLocalError``)."""
        outer_reads = analysis.read_outside(self.info, child.node)
        bound_before = _stores(self.info.body[:next((k for k, s in enumerate(self.info.body)
                                                     if s is child.node), 0)])
        state = []
        for name in sorted(_stores(child.body) - {counter}):
            if child.classes.get(name) == analysis.PRIVATE:
                if name not in outer_reads:
                    continue
                if name not in bound_before:
                    raise Unsupported(f"`{name}` is bound only inside the inner loop at line {child.lineno} "
                                      "and read after it (the loop may not run)")
            state.append(name)
        return state

    # -- after the loop ------------------------------------------------------------------------

    def _consumer_value(self, col):
        if col.kind == "concat":
            return templates.expr(f"{self.tf}.reshape(C, {self.tf}.concat([[-1], {self.tf}.shape(C)[2:]], 0))",
                                  C=templates.name(col.name))
        return templates.name(col.name)

    def _init_only_collectors(self, init):
        names = _stores([init])
        return names and all(n in self.info.collectors for n in names)

    def _pattern(self, streams):
        info = self.info
        parts = []
        over = ", ".join(self._labels.get(p, gast.unparse(e).strip()) for p, e in streams)
        parts.append(f"map over {over}")
        for key in self.order:
            kind, name = key.split(":", 1)
            if kind == "collector" and _is_comprehension(info, name):
                parts.append("list comprehension" + (" with a filter" if key in self.masks else ""))
            elif kind == "collector":
                parts.append(f"{'filter' if key in self.masks else 'collector'} {name}")
            elif kind == "ta":
                parts.append(f"TensorArray {name}")
            elif kind == "arg":
                arg = info.arg_reductions[name]
                parts.append(f"{arg.op} reduction {arg.value} with arg{arg.op} {name}")
            else:
                parts.append(f"{info.reductions[name].op} reduction {name}")
        if info.has_tape:
            parts.append("GradientTape")
        if any(c is not None for c in info.children):
            nested = len(list(info.walk())) - 1
            if nested:
                parts.append(f"{nested} inner loop{'s' if nested > 1 else ''}")
        return ", ".join(parts)


@dataclass
class _Branch:
    stmts: list = field(default_factory=list)
    env: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)


_LIST_RETURNING = {"tensorflow.unstack", "tensorflow.split", "numpy.split", "numpy.array_split",
                   "tensorflow.nest.flatten", "tensorflow.dynamic_partition", "tensorflow.meshgrid"}


def bound_to_sequence(ctx, name_node, within=None) -> bool:
    """A reaching definition of ``name_node`` (under ``within``, if given) binds a Python list or
    tuple: a display, a list comprehension, ``list(...)``/``tuple(...)``/``sorted(...)``, or a
    library call that returns a list (``tf.unstack``). A symbolic index cannot select from it,
    and ``tape.gradient`` over it returns a list.
    """
    inside = {id(n) for n in gast.walk(within)} if within is not None else None
    for definition in ctx.definitions_of(name_node):
        if inside is not None and id(definition.node) not in inside:
            continue
        _, value = analysis._binding(ctx, definition.node)
        if isinstance(value, (gast.List, gast.Tuple, gast.ListComp)) or isinstance(value, gast.Call) and (
                ctx.imports.resolve(value.func) in _LIST_RETURNING | {"builtins.list", "builtins.tuple",
                                                                      "builtins.sorted"}):
            return True
    return False


def persistent_tape(call: gast.Call) -> bool:
    """``tf.GradientTape(persistent=True)``: a tape that gives more than one set of gradients."""
    return any(k.arg == "persistent" and isinstance(k.value, gast.Constant) and k.value.value is True
               for k in call.keywords)


def single_use_tapes(ctx, nodes) -> dict[str, list[gast.Call]]:
    """Each ``with tf.GradientTape() as tape`` among ``nodes`` that is not ``persistent=True``,
    with the ``tape.gradient``/``jacobian``/``batch_jacobian`` calls among ``nodes`` (such a tape
    computes one set of gradients; TensorFlow raises on the second)."""
    tapes = {}
    for node in nodes:
        if isinstance(node, gast.With):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, gast.Call) and (ctx.imports.resolve(call.func) or "").endswith("GradientTape") \
                        and isinstance(item.optional_vars, gast.Name) and not persistent_tape(call):
                    tapes[item.optional_vars.id] = []
    for node in nodes:
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in ("gradient", "jacobian", "batch_jacobian") \
                and isinstance(node.func.value, gast.Name) and node.func.value.id in tapes:
            tapes[node.func.value.id].append(node)
    return tapes


def _in_order(start, stop, sign, ctx) -> bool:
    """``range(start, stop)`` stepping by ``sign`` surely does not run backwards."""
    first, last = constant_int(start), constant_int(stop)
    if first is not None and last is not None:
        return (last - first) * sign >= 0
    return first == 0 and sign == 1 and _nonnegative(stop, ctx)


def _nonnegative(node, ctx) -> bool:
    """A bound that cannot be negative: a constant >= 0, ``len(...)``, ``x.shape[k]``,
    ``tf.shape(x)[k]``, or a name bound only to one of those."""
    if isinstance(node, gast.Name):
        defs = ctx.definitions_of(node)
        values = [analysis._binding(ctx, d.node)[1] for d in defs]
        return bool(values) and all(v is not None and _nonnegative(v, ctx) for v in values)
    value = constant_int(node)
    if value is not None:
        return value >= 0
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "len":
        return True
    if isinstance(node, gast.Subscript):
        base = node.value
        return (isinstance(base, gast.Attribute) and base.attr == "shape") or (
            isinstance(base, gast.Call) and isinstance(base.func, gast.Attribute) and base.func.attr == "shape")
    return False


def _is_comprehension(info, name) -> bool:
    return name == analysis.COMPREHENSION and info.collectors[name].init is None


def _evidently_array(ctx, function, seq) -> bool:
    """True when ``seq`` must be an array or tensor rather than a Python list.

    Evidence: it is made by a TensorFlow or NumPy call, or (for a name) the function reads its
    ``.shape``/``.dtype``/``.ndim`` or binds it from such a call.
    """
    if isinstance(seq, gast.Call):
        callee = ctx.imports.resolve(seq.func) or ""
        return callee.startswith(("tensorflow.", "numpy.")) and callee not in _LIST_RETURNING
    if not isinstance(seq, gast.Name) or function is None:
        return False
    for node in gast.walk(function):
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "dtype", "ndim") \
                and isinstance(node.value, gast.Name) and node.value.id == seq.id:
            return True
        if isinstance(node, gast.Assign) and any(isinstance(t, gast.Name) and t.id == seq.id
                                                 for t in node.targets):
            if _evidently_array(ctx, function, node.value):
                return True
    return False


def _lt(counter, stop):
    return gast.Compare(left=templates.name(counter), ops=[gast.Lt()], comparators=[copy.deepcopy(stop)])


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


class _ExprRewriter(gast.NodeTransformer):
    """Per-iteration substitutions inside the body: gathers, casts, renamings, consumers."""

    def __init__(self, vec: _Vectorizer, env, back=None):
        self.vec, self.env, self.back = vec, env, back or {}

    def visit(self, node):
        original = self.back.get(id(node))
        if original is not None and original in self.vec.inner_replace:
            return copy.deepcopy(self.vec.inner_replace[original])
        return super().visit(node)

    def visit_Subscript(self, node):
        vec = self.vec
        base = node.value
        if isinstance(base, gast.Name) and base.id in vec.gathers and isinstance(node.ctx, gast.Load) \
                and _Vectorizer._first_index_is(node, vec.info.space.induction):
            param = templates.name(vec.gathers[base.id])
            index = node.slice
            if isinstance(index, gast.Tuple) and len(index.elts) > 1:
                rest = [self.visit(e) for e in index.elts[1:]]
                node.value = param
                node.slice = rest[0] if len(rest) == 1 else gast.Tuple(elts=rest, ctx=gast.Load())
                return node
            return param
        index = node.slice
        if isinstance(base, gast.Name) and isinstance(node.ctx, gast.Load) and not vec._is_stacked(base) \
                and not isinstance(index, (gast.Tuple, gast.Slice)) and vec._is_stacked(index) \
                and not _loads(index) & set(vec.stacked_outside):
            return self._gather(base, index)
        return self.generic_visit(node)

    def _gather(self, base, index):
        """``x[e]`` with a per-iteration scalar ``e`` becomes ``tf.gather(x, e)``.

        TensorFlow's pfor has no converter for a slice at a stacked position and falls back
        to a ``tf.while_loop``, which is slow and, with zero iterations, fails to stack its
        empty result; ``Gather`` has a converter. An index computed from data may be negative
        and wraps around in the loop (Python indexing), so it is taken modulo the length;
        an affine index of the loop variable was proven not to wrap by the analysis.
        """
        vec = self.vec
        new_index = self.visit(index)
        form = dependence.Affine.of(index)
        induction = vec.info.space.induction if vec.info.space is not None else None
        if form is None or any(vec._is_stacked(templates.name(s)) for s in form.symbols() - {induction}):
            new_index = templates.wrapped_index(vec.tf, new_index, base)
        return templates.expr(f"{vec.tf}.gather(X, I)", X=copy.deepcopy(base), I=new_index)

    def visit_Call(self, node):
        vec = self.vec
        name = vec.ctx.imports.resolve(node.func) or ""
        if name in ("builtins.int", "builtins.float", "builtins.bool") and len(node.args) == 1 \
                and vec._is_stacked(node.args[0]):
            dtype = {"builtins.int": "int32", "builtins.float": "float32", "builtins.bool": "bool"}[name]
            return templates.expr(f"{vec.tf}.cast(X, {vec.tf}.{dtype})", X=self.visit(node.args[0]))
        return self.generic_visit(node)

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if self.vec._is_stacked(node.test):
            return templates.expr(f"{self.vec.tf}.where(C, A, B)", C=_to_graph_test(node.test, self.vec.tf),
                                  A=node.body, B=node.orelse)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.env:
            return copy.deepcopy(self.env[node.id])
        return node

