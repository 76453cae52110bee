"""The ``_Vectorizer``: the body function and the ``tf.vectorized_map`` call for one loop level,
with the streams it maps over, the outputs it collects and what they become after the loop."""

from __future__ import annotations

import copy

import gast

from pforge.transpile import analysis, templates
from pforge.transpile.analysis.blocks import block_reads
from pforge.transpile.analysis.reductions import counted_under_a_test
from pforge.transpile.backends.common import COUNTED_UNDER_A_TEST
from pforge.transpile.backends.common import (LoopRewrite, Unsupported, _evidently_array, _in_order,
                                              _loads, _nonnegative, _stores)
from pforge.transpile.backends.pfor.branches import BranchesMixin
from pforge.transpile.backends.pfor.checks import ChecksMixin
from pforge.transpile.backends.pfor.expressions import _ExprRewriter
from pforge.transpile.backends.pfor.inner import InnerLoopsMixin
from pforge.transpile.operators import OPERATORS, pfor_formula
from pforge.transpile.spaces import Space, constant_int


def _simple_anchor(ctx, node):
    """The statement holding ``node``, when the marker comment and hoisted code can go before it."""
    stmt = analysis._statement_of(ctx, node)
    if not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return, gast.Expr)):
        raise Unsupported("the expression is part of a compound statement's header")
    return stmt


#: Built-in max/min reductions: a term replaces the accumulator only when it compares
#: greater (less), so NaN terms are skipped as the loop skips them.
_REDUCE_PY = {"max": "{tf}.maximum({s}, {tf}.reduce_max({tf}.where({t} > {s}, {t}, {s}), axis=0))",
              "min": "{tf}.minimum({s}, {tf}.reduce_min({tf}.where({t} < {s}, {t}, {s}), axis=0))"}


class _Vectorizer(ChecksMixin, BranchesMixin, InnerLoopsMixin):
    """Generates the body function and the ``tf.vectorized_map`` call for one level."""

    def __init__(self, ctx, info, namer, tf, stacked_outside, inner=False):
        self.ctx, self.info, self.namer, self.tf = ctx, info, namer, tf
        self.inner = inner  # a level nested in a vectorized loop (its batched lists are items of the outer one's)
        self.prefix = (info.qualname.split(".")[-1] if info.qualname else "loop").lstrip("_")
        self.stacked_outside = stacked_outside
        self.outputs: dict[str, gast.expr] = {}
        self.masks: dict[str, gast.expr] = {}
        self.order: list[str] = []
        self.drop: list[gast.stmt] = []
        self.inner_replace: dict[int, gast.expr] = {}
        self.inner_drop: set[int] = set()
        self.gathers: dict[str, str] = {}
        # arrays read by whole blocks of the index (`x[m * size:(m + 1) * size]`) -> their rows'
        # parameter; the reads they cover (ids of the Subscripts) and why blocks were refused
        self.blocks, self.block_reason = block_reads(ctx, info) if not inner else ({}, None)
        self.block_params: dict[str, str] = {}
        self.block_bindings: list[gast.stmt] = []  # `x_blocks = tf.reshape(...)`, before the body function
        self.block_reads = {id(r) for b in self.blocks.values() for r in b.reads}
        self._labels: dict[str, str] = {}  # stream parameter -> what the comment calls it

    # -- entry -----------------------------------------------------------------------------

    def run(self) -> LoopRewrite:
        info = self.info
        space = info.space
        self._check_supported()
        self._check_counts()
        body_name = self.namer.new(f"_{self.prefix}_body")  # outer levels get the plain name
        streams = self._streams(space)
        params = [p for p, _ in streams]
        self.stacked = set(params) | self.stacked_outside | space.target_names()
        for child in info.children:
            for col in child.collectors.values():
                if col.name not in info.collectors and _stores([col.init]) <= set(child.collectors):
                    self.inner_drop.add(id(col.init))
        body = self._lower_block(info.body, later=set())
        counted = self._counted()
        outputs = [k for k in self.order if k not in counted]
        if not self.order:
            raise Unsupported("the loop produces no value pforge can collect")
        if not outputs:
            return LoopRewrite(self._count_updates(counted, space), [], {}, self._pattern(streams))
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
                # `row = []; for j: row.append(v); rows.append(row)` inside a vectorized level:
                # the row is the inner level's batched value, an item of the outer collector,
                # which stacks it as it stacks the list
                if col.kind not in ("stack", "concat", "unzip") and not (col.kind == "nested" and self.inner):
                    raise Unsupported(f"`{name}` is used as a Python list after the loop, not stacked")
                if col.kind == "unzip" and key in self.masks:
                    raise Unsupported(f"`{name}` is unzipped after the loop and appended to under a test "
                                      "(a filter of lists has no batched form here)")
                if isinstance(col.consumer, gast.Call) and any(k.arg not in ("axis", "name") for k in col.consumer.keywords):
                    raise Unsupported(f"`{name}` is consumed with `{col.consumer.keywords[0].arg}=`, which the "
                                      "batched value would lose")
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
                if self._python_compare(red):
                    # max(s, v) keeps s unless v > s: a NaN term never wins, as in the loop.
                    formula = _REDUCE_PY[red.op].format(s=name, t=terms, tf=self.tf)
                else:
                    formula = pfor_formula(OPERATORS[red.op], name, terms, self.tf)
                post += templates.replace(f"{name} = " + formula)
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
        stmts = self.block_bindings + [fdef] + call + post + self._count_updates(counted, space)
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

    # -- iteration space -----------------------------------------------------------------------

    def _streams(self, space: Space):
        """(parameter, elements) pairs fed to ``tf.vectorized_map``."""
        if space.kind == "range":
            i = space.induction
            streams = []
            for base, blocks in self.blocks.items():
                param = self.namer.new(f"{base}_{i}")
                self.block_params[base] = param
                self._labels[param] = f"blocks of {base}"
                rows = self.namer.new(f"{base}_blocks")
                self.block_bindings += templates.replace(f"{rows} = V", V=self._blocked(blocks, space))
                streams.append((param, templates.name(rows)))
            for base in self._gather_bases(i):
                param = self.namer.new(f"{base}_{i}")
                self.gathers[base] = param
                self._labels[param] = base
                streams.append((param, self._sliced(base, space)))
            if self._induction_used_elsewhere(i) or not streams:
                streams.append((i, self._range_expr(space)))
            sliced = [s for _, s in streams if isinstance(s, gast.Subscript)]
            if self.stacked_outside and sliced and len(streams) > 1:
                # Rows `x[:3]` beside `tf.range(3)` (or other rows) differ in length where `x` is
                # shorter, and `tf.vectorized_map` raises even where the outer loop runs no
                # iteration, and the loop does not.
                raise Unsupported(f"the inner loop reads `{gast.unparse(sliced[0]).strip()}` beside other rows, "
                                  "which may be shorter (TensorFlow would raise even where the outer loop "
                                  "runs no iteration)")
            return streams
        streams = []
        length = self._shortest(space)
        if space.kind == "enumerate":
            seq = space.items[0][1]
            count = templates.expr(f"{self.tf}.shape(SEQ)[0]", SEQ=seq) if length is None else templates.name(length)
            if space.enumerate_start is None:
                rng = templates.expr(f"{self.tf}.range(N)", N=count)
            else:
                rng = templates.expr(f"{self.tf}.range(S, S + N)", S=space.enumerate_start, N=count)
            streams.append((space.induction, rng))
        for target, seq in space.items:
            if isinstance(target, gast.Name):
                rows = self._as_tensor(copy.deepcopy(seq))
                if length is not None:
                    rows = gast.Subscript(value=rows, slice=gast.Slice(lower=None, upper=templates.name(length), step=None),
                                          ctx=gast.Load())
                streams.append((target.id, rows))
                self._labels[target.id] = gast.unparse(seq).strip()
            else:
                raise Unsupported("unpacking each row into several names is not rewritten yet")
        return streams

    def _shortest(self, space):
        """``zip`` stops at its shortest sequence, where ``tf.vectorized_map`` raises for elems
        of unequal lengths, or broadcasts one of length 1 (fuzz finding F4): sequences that are
        not one name are cut to the shortest length, bound before the body function. Returns
        that name, or None where every sequence is the same name (or there is one)."""
        seqs = [seq for _, seq in space.items]
        texts = {gast.unparse(seq).strip() for seq in seqs}
        if len(texts) < 2:
            return None
        length = self.namer.new("shortest")
        self._labels[length] = "the shortest sequence's length"
        lengths = gast.List(elts=[templates.expr(f"{self.tf}.shape(S)[0]", S=copy.deepcopy(seq)) for seq in seqs],
                            ctx=gast.Load())
        self.block_bindings += templates.replace(f"{length} = {self.tf}.reduce_min(LENGTHS)", LENGTHS=lengths)
        return length

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
        for node in analysis._scope_nodes(self.info.body):
            if id(node) in self.block_reads:  # `x[m * size:(m + 1) * size]`: a row of the blocks
                gathered |= {id(n) for n in gast.walk(node.slice)}
        for arg in self.info.arg_reductions.values():
            gathered.add(id(arg.index))  # recorded after the loop from the positions, not streamed
        return any(isinstance(n, gast.Name) and n.id == i and isinstance(n.ctx, gast.Load)
                   and id(n) not in gathered for n in analysis._scope_nodes(self.info.body))

    def _as_tensor(self, seq):
        """``seq`` itself when it is evidently an array, else ``tf.convert_to_tensor(seq)``.

        ``tf.vectorized_map`` treats a Python list as a structure of separate inputs, so a list
        of tensors must be packed first or the result comes out transposed.
        """
        if _evidently_array(self.ctx, self.info.function, seq, at=self.info.node):
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

    def _blocked(self, blocks, space):
        """The rows of ``x`` cut into blocks: ``tf.reshape(x[:n * size], [n, size, ...])``.

        ``analysis.blocks`` proved ``n * size <= len(x)``. A trip count or size that may be
        negative (the loop then runs no iteration) is clamped at zero, as a reshape needs.
        """
        n, size = copy.deepcopy(space.stop), copy.deepcopy(blocks.size)
        if not _nonnegative(space.stop, self.ctx):  # (the originals: their definitions decide)
            n = templates.expr(f"{self.tf}.maximum(N, 0)", N=n)
        if not _nonnegative(blocks.size, self.ctx):
            size = templates.expr(f"{self.tf}.maximum(S, 0)", S=size)
        base = self._as_tensor(templates.name(blocks.base))  # (a list cannot be sliced by a tensor)
        return templates.expr(f"{self.tf}.reshape(X[:N * S], {self.tf}.concat([[N, S], {self.tf}.shape(B)[1:]], 0))",
                              X=base, N=n, S=size, B=templates.name(blocks.base))

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
            if analysis.appended_item(call) is not None and call.func.value.id in info.collectors:
                return f"collector:{call.func.value.id}", analysis.appended_item(call)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], gast.Name):
            name = stmt.targets[0].id
            if name in info.tensorarrays and stmt in info.tensorarrays[name]:
                return f"ta:{name}", stmt.value.args[1]
        for arg in info.arg_reductions.values():
            if stmt is arg.stmt:
                if sum(a.stmt is stmt for a in info.arg_reductions.values()) > 1:
                    raise Unsupported(f"`{arg.value}` is tracked with more than one value, which pfor's "
                                      "arg-reduction lowering does not take")
                if arg.name is None:
                    raise Unsupported(f"`if v > {arg.value}: {arg.value} = v` (a {arg.op} that NaN terms never "
                                      "reach) has no pfor lowering")
                return f"arg:{arg.name}", arg.term
        for red in info.reductions.values():
            if stmt in red.updates:
                return f"reduction:{red.name}", analysis.contribution(stmt, red.name)
        return None

    # -- after the loop ------------------------------------------------------------------------

    def _check_counts(self):
        name = counted_under_a_test(self.ctx, self.info) if not self.inner else None
        if name is not None:
            raise Unsupported(COUNTED_UNDER_A_TEST.format(name=name))

    def _counted(self) -> dict[str, int]:
        """Sums whose every term is one integer literal (``count += 1``), by output key.

        The loop adds Python ints, so the count stays a Python int (``total / count`` divides a
        float tensor by it); a sum of the batched terms would be an int32 tensor, which TensorFlow
        does not divide a float by. The count is the literal times the trip count instead, exact
        for integers.
        """
        counted = {}
        if self.inner:  # an inner level's trip count may differ per outer iteration
            return counted
        for key in self.order:
            kind, name = key.split(":", 1)
            value = self.outputs[key]
            sign = 1
            if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub):
                value, sign = value.operand, -1
            if kind == "reduction" and key not in self.masks and self.info.reductions[name].op == "add" \
                    and isinstance(value, gast.Constant) and type(value.value) is int:
                counted[key] = sign * value.value
        return counted

    def _count_updates(self, counted, space):
        """``count = count + c * n`` for each sum of :meth:`_counted`, ``n`` the trip count as a
        Python int (``len(range(...))``, ``x.shape[0]``, ``len(rows)``)."""
        if not counted:
            return []
        if space.kind == "range":
            if any(b is not None and not _python_int(b, self.ctx, self.info.function) for b in (space.start, space.stop, space.step)):
                name = next(iter(counted)).split(":", 1)[1]
                raise Unsupported(f"`{name}` counts Python ints over a range whose bounds may be tensors "
                                  "(a tensor trip count would make the count an int32 tensor, which does not mix "
                                  "with float tensors as the loop's int does)")
            if space.start is None and space.step is None and _nonnegative(space.stop, self.ctx):
                trip = copy.deepcopy(space.stop)
            else:
                bounds = [b for b in (space.start, space.stop, space.step) if b is not None]
                if space.start is None and space.step is not None:
                    bounds = [gast.Constant(value=0, kind=None)] + bounds
                trip = templates.expr("len(R)", R=gast.Call(func=templates.name("range"),
                                                          args=[copy.deepcopy(b) for b in bounds], keywords=[]))
        else:
            trip = templates.expr("len(S)", S=copy.deepcopy(space.items[0][1]))
        stmts = []
        for key, c in counted.items():
            name = key.split(":", 1)[1]
            term = trip if c == 1 else templates.expr(f"{c} * N", N=copy.deepcopy(trip))
            stmts += templates.replace(f"{name} = {name} + T", T=copy.deepcopy(term))
        return stmts

    def _consumer_value(self, col):
        if col.kind == "unzip":
            # a body returning a list gives one stacked tensor per item: the lists unzipped; one
            # returning a tensor gives the stacked rows, which `zip(*rows)` reads by columns
            return templates.expr(f"list(C) if isinstance(C, (list, tuple)) else {self.tf}.unstack(C, axis=1)",
                                  C=templates.name(col.name))
        if col.kind == "concat":
            return templates.expr(f"{self.tf}.reshape(C, {self.tf}.concat([[-1], {self.tf}.shape(C)[2:]], 0))",
                                  C=templates.name(col.name))
        return templates.expr(f"{col.name}[::-1]") if col.backwards or col.prepends else templates.name(col.name)

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


def _is_comprehension(info, name) -> bool:
    return name == analysis.COMPREHENSION and info.collectors[name].init is None


def _python_int(node, ctx, function, depth=0) -> bool:
    """``node`` is a Python int however the function is called: an int literal, ``len(x)``,
    ``x.shape[k]`` (static under ``tf.function``), a parameter annotated ``int``, a name bound
    only to such values, or integer arithmetic on them; ``tf.shape(x)[0]`` and an unannotated
    parameter may be tensors."""
    if depth > 8:
        return False
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)):
        return _python_int(node.left, ctx, function, depth + 1) and _python_int(node.right, ctx, function, depth + 1)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _python_int(node.operand, ctx, function, depth + 1)
    if isinstance(node, gast.Call):
        return ctx.imports.resolve(node.func) == "builtins.len" and len(node.args) == 1
    if isinstance(node, gast.Subscript):
        return isinstance(node.value, gast.Attribute) and node.value.attr == "shape" and isinstance(node.slice, gast.Constant)
    if isinstance(node, gast.Name):
        defs = ctx.definitions_of(node)
        if not defs:
            return False
        for d in defs:
            if function is not None and any(d.node is a for a in function.args.args + function.args.kwonlyargs):
                if not (isinstance(d.node.annotation, gast.Name) and d.node.annotation.id == "int"):
                    return False
                continue
            _, value = analysis._binding(ctx, d.node)
            if value is None or not _python_int(value, ctx, function, depth + 1):
                return False
        return True
    return False
