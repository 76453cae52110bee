"""Ranks a careful reader infers from the code itself, for NumPy functions with no declared shapes.

The direct backend needs the per-iteration rank of each value it batches (a rank decides
broadcasting). When neither ``--shapes``, a docstring nor an annotation gives it, the code
usually shows it: ``weights[r, c]`` indexes at least two axes, a value tested by a Python
``if`` is a scalar, ``grid = np.zeros((n, m))`` has rank 2 so the value stored into
``grid[r, c]`` is a scalar, ``np.sum(xs[a] * ys[b])`` sums something that is not a scalar.

Each parameter of unknown rank is a variable, and so is a buffer made from what the code does
not size (``kept = np.zeros(shape)`` then ``kept[r, c] = v``), once the parameters' ranks leave
its own unknown. A candidate assignment of ranks is evaluated
over the function body, statement by statement (a small abstract interpretation over the
lattice "rank or unknown"), against two kinds of constraints:

- **hard**: what the code could not run without (``x[i, j]`` needs rank >= 2, ``len(x)``
  rank >= 1, an ``if`` test, ``range()``, ``float()``, ``math.*`` and ``min(a, b)`` need
  scalars, a value stored into a buffer element has at most that element's rank, ``axis=k``
  needs rank > k);
- **soft**: what the code suggests (a stored value has the element's rank rather than being
  broadcast; a full reduction or ``np.dot`` is not applied to a scalar; ``axis=k`` is not
  given for a vector; ``x.size`` is taken of something with elements).

Assignments are tried in order of total rank, then largest rank, then the rank given to
names the code never indexes (Occam: the fewest axes that explain the code); the first that
breaks no hard and no soft constraint is the guess. A rank is *proven* when no other rank
from 0 to :data:`_MAX_RANK` keeps the hard constraints (the others fixed); every other rank is
*assumed*, and the rewrite that relies on it checks it at run time (``np.ndim(x) == 1``),
running the loop as it was when it does not hold. This is loop versioning, as LLVM's
LoopAccessAnalysis versions a loop on run-time alias checks.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import gast

from pforge.transpile import ranks
from pforge.transpile.analysis.nodes import reversed_operand
from pforge.transpile.operators import INT_COMPARISONS

#: ranks above this are not considered
_MAX_RANK = 6
#: candidate assignments evaluated at most per function
_BUDGET = 400
#: each variable ranges over [lower bound, lower bound + _SPREAD]
_SPREAD = 2
#: neighbouring assignments tried at most (each costs one trial rewrite)
_NEIGHBOURS = 81

_ELEMENTWISE = {
    "abs", "absolute", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "floor", "ceil", "round", "rint", "sign",
    "square", "negative", "reciprocal", "isnan", "isinf", "isfinite", "logical_not", "clip", "conj",
    "real", "imag", "radians", "degrees", "fabs", "trunc", "cbrt", "exp2", "sinc", "heaviside",
    "maximum", "minimum", "fmax", "fmin", "add", "subtract", "multiply", "divide", "true_divide",
    "floor_divide", "power", "mod", "remainder", "hypot", "arctan2", "logaddexp", "logical_and",
    "logical_or", "logical_xor", "greater", "less", "equal", "not_equal", "greater_equal", "less_equal",
    "where", "copysign", "nan_to_num",
}
#: NumPy's scalar types, called as conversions
_SCALAR_TYPES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "complex64", "complex128", "bool_", "intp", "longdouble"}
_REDUCTIONS = {"sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "amax", "amin", "median",
               "nansum", "nanmean", "nanmax", "nanmin", "argmax", "argmin", "average", "ptp"}
_LIKE = {"zeros_like", "ones_like", "empty_like", "full_like", "copy", "array", "asarray", "pad",
         "ascontiguousarray", "asfarray", "negative"}
_MAKERS = {"zeros", "ones", "empty", "full"}
_CONSTANTS = {f"{module}.{name}" for module in ("numpy", "math") for name in ("pi", "e", "inf", "nan", "tau", "euler_gamma")}
_SAME_RANK_METHODS = {"copy", "astype", "conj", "clip", "round", "cumsum", "cumprod"}


@dataclass(frozen=True)
class RankGuess:
    """The ranks inferred for a function's parameters.

    Attributes:
        ranks: every parameter the inference gave a rank, ``{"vec": 1, "weights": 2}``.
        assumed: the subset the code does not pin (only suggests); a rewrite relying on them
            must check them at run time.
        evidence: for each name, the line of code that decided its rank (``"line 20:
            `vec[r]`"``), for remarks and ``explain``.
        neighbours: other assignments near ``ranks`` the code could also run with; where the
            rewrite for one is the same text, the run-time check accepts it too.
    """

    ranks: dict[str, int]
    assumed: dict[str, int]
    evidence: dict[str, str] = field(default_factory=dict)
    neighbours: tuple[dict[str, int], ...] = ()


_UNBOUND = object()


class _Conflict(Exception):
    """A hard constraint does not hold."""


class _BranchConflict(_Conflict):
    """A hard constraint does not hold in a branch of a helper that a call may not take."""


@dataclass
class _Eval:
    """One evaluation of the function body under an assignment of ranks."""

    ctx: object
    env: dict
    params: set
    soft: int = 0
    lower: dict = field(default_factory=dict)  # param -> (rank it needs at least, node)
    decided: dict = field(default_factory=dict)  # param -> node that constrained it first
    bound: dict = field(default_factory=dict)  # name -> ranks of the values bound to it
    sites: dict = field(default_factory=dict)  # name -> ids of the Name nodes that bound it
    flow: bool = False  # loop bodies run until the ranks they bind settle (local_ranks)
    returns: list = field(default_factory=list)  # ranks of the returned values
    busy: set = field(default_factory=set)  # module names being evaluated (no recursion)
    unsure: set = field(default_factory=set)  # parameters rebound to a value of unknown rank
    items: dict = field(default_factory=dict)  # name -> "row" (`m = means[c, :]`) or "item" (`x = X[i]`)
    loose: frozenset = frozenset()  # variables that are locals: a binding of unknown rank keeps theirs
    static: dict | None = None  # a helper's parameters passed as constants: its `if`s on them are decided

    # -- constraints -------------------------------------------------------------------------
    def hard(self, ok: bool):
        if not ok:
            raise _Conflict()

    def need_at_least(self, node, rank: int | None, least: int, hard: bool):
        """``node`` (rank ``rank``) needs rank >= ``least``."""
        self._mark(node)
        if isinstance(node, gast.Name) and node.id in self.params:
            if rank is not None and rank < least:
                known = self.lower.get(node.id, (0, None))[0]
                if least > known:
                    self.lower[node.id] = (least, node)
        if rank is None:
            return
        if rank < least:
            if hard:
                raise _Conflict()
            self.soft += 1

    def suggest_arrays(self, node):
        """A reduction (or ``np.dot``) of ``node``: it, and each indexed factor of an elementwise
        product or sum in it (``xs[a] * ys[b]``), is suggested to be an array, not a scalar."""
        rank = self.rank(node)
        self.need_at_least(node, rank, 1, hard=False)
        if isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
            parts = [node.left, node.right]
        elif isinstance(node, gast.Call) and self._elementwise(node):
            parts = node.args
        else:
            parts = []
        for part in parts:
            if isinstance(part, (gast.Subscript, gast.BinOp)) or \
                    isinstance(part, gast.Call) and self._elementwise(part):
                self.suggest_arrays(part)

    def _elementwise(self, node) -> bool:
        callee = self.ctx.imports.resolve(node.func) or ""
        return callee.startswith("numpy.") and callee[6:] in _ELEMENTWISE

    def need_scalar(self, node):
        rank = self.rank(node)
        self._mark(node)
        if rank is not None and rank != 0:
            raise _Conflict()

    def _mark(self, node):
        for n in gast.walk(node):
            if isinstance(n, gast.Name) and n.id in self.params:
                self.decided.setdefault(n.id, node)

    # -- statements ----------------------------------------------------------------------------
    def run(self, stmts):
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node):
        if isinstance(node, gast.Assign):
            value = self.rank(node.value)
            for target in node.targets:
                self.store(target, value, node.value)
        elif isinstance(node, gast.AugAssign):
            value = self.rank(node.value)
            if isinstance(node.target, gast.Name):
                old = self.env.get(node.target.id)
                self._bind(node.target, None if old is None or value is None else max(old, value))
            else:
                self.store(node.target, value, node.value)
        elif isinstance(node, gast.AnnAssign) and node.value is not None:
            self.store(node.target, self.rank(node.value), node.value)
        elif isinstance(node, gast.If):
            decided = self._decide(node.test) if self.static is not None else None
            if decided is not None:  # a helper's `if ff:` with `ff=False` passed: one branch runs
                self.run(node.body if decided else node.orelse)
                return
            try:
                self.need_scalar(node.test)
                self.run(node.body)
                self.run(node.orelse)
            except _Conflict as exc:
                if self.static is not None and not isinstance(exc, _BranchConflict):
                    raise _BranchConflict() from exc  # the call may take the other branch
                raise
        elif isinstance(node, gast.While):
            self.need_scalar(node.test)
            self._loop_body(node.body)
            self.run(node.orelse)
        elif isinstance(node, gast.For):
            self.bind_iteration(node.target, node.iter)
            self._loop_body(node.body)
            self.run(node.orelse)
        elif isinstance(node, gast.Return):
            self.returns.append(None if node.value is None else self.rank(node.value))
        elif isinstance(node, gast.Expr):
            self.rank(node.value)
        elif isinstance(node, (gast.With, gast.Try)):
            self.run(node.body)
            for handler in getattr(node, "handlers", []):
                self.run(handler.body)
            self.run(getattr(node, "orelse", []))
            self.run(getattr(node, "finalbody", []))

    def _decide(self, test) -> bool | None:
        """The truth of a helper's ``if`` test for this call, when the ranks and constants
        decide it: a flag passed as a constant, ``x.ndim == 1`` of a value of known rank,
        ``type(x) is int`` of an array, and ``not``/``and``/``or`` of those; else None."""
        if isinstance(test, gast.Constant):
            return bool(test.value)
        if isinstance(test, gast.Name) and test.id in self.static:
            return bool(self.static[test.id])
        if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
            inner = self._decide(test.operand)
            return None if inner is None else not inner
        if isinstance(test, gast.BoolOp):
            parts = [self._decide(v) for v in test.values]
            decisive = False if isinstance(test.op, gast.And) else True
            if decisive in parts and None not in parts[:parts.index(decisive)]:
                return decisive
            return None if None in parts else not decisive
        if isinstance(test, gast.Compare) and len(test.ops) == 1:
            left, op, right = test.left, test.ops[0], test.comparators[0]
            if isinstance(op, (gast.Is, gast.IsNot)) and isinstance(left, gast.Call) and len(left.args) == 1 \
                    and self.ctx.imports.resolve(left.func) == "builtins.type" and isinstance(right, gast.Name) \
                    and self.ctx.imports.resolve(right) in ("builtins.int", "builtins.float", "builtins.bool"):
                rank = self.env.get(left.args[0].id) if isinstance(left.args[0], gast.Name) else None
                if rank is None or rank < 1:
                    return None  # a number could be either
                return isinstance(op, gast.IsNot)  # an array is never exactly a Python number
            if isinstance(left, gast.Attribute) and left.attr == "ndim" and isinstance(left.value, gast.Name) \
                    and isinstance(right, gast.Constant) and type(right.value) is int:
                rank = self.env.get(left.value.id)
                compare = INT_COMPARISONS.get(type(op))
                if rank is None or compare is None:
                    return None
                return compare(rank, right.value)
        return None

    def _loop_body(self, body):
        """One run of a loop body; in ``flow`` mode, runs until no binding takes a new rank, so
        a value that flows around the loop (``b = a; a = row``) has every rank it takes."""
        self.run(body)
        for _ in range(_PASSES if self.flow else 0):
            before = self._bindings()
            self.run(body)
            if self._bindings() == before:
                return
        if self.flow:
            raise _Conflict()  # not settled: no local rank is trusted

    def _bindings(self):
        return {(name, rank) for name, found in self.bound.items() for rank in found}

    def _bind(self, target, value, kind=None):
        name = target.id
        if kind is None:
            self.items.pop(name, None)
        else:
            self.items[name] = kind
        if name in self.params:  # a rebound parameter keeps the rank it was given
            if value is None and name in self.loose:
                value = self.env.get(name)  # `kept = np.zeros(shape)`: the rank is the variable's
            elif value is None:
                # `x = _is_1d(x)`, a helper whose rank only the data decide: the variable is
                # the new value's rank, never proven (checked at run time where the loop is)
                value = self.env.get(name)
                self.unsure.add(name)
            self.hard(value is not None and value == self.env.get(name))
        self.env[name] = value
        self.bound.setdefault(name, []).append(value)
        self.sites.setdefault(name, set()).add(id(target))

    def store(self, target, value, value_node, kind=None):
        if isinstance(target, gast.Name):
            self._bind(target, value, kind if value_node is None else self._item_kind(value_node))
        elif isinstance(target, (gast.Tuple, gast.List)):
            shape_of = self._shape_source(value_node)
            if shape_of is not None:  # `h, w, c = x.shape`: x has exactly that many axes
                rank = self.rank(shape_of)
                self.need_at_least(shape_of, rank, len(target.elts), hard=True)
                self.hard(rank is None or rank == len(target.elts))
                for t in target.elts:
                    self.store(t, 0, None)
            elif isinstance(value_node, gast.Call) and self.ctx.imports.resolve(value_node.func) == "numpy.meshgrid" \
                    and len(value_node.args) == len(target.elts) and not value_node.keywords:
                found = [self.rank(a) for a in value_node.args]  # grids of 1-D coordinates
                for t in target.elts:
                    self.store(t, len(found) if all(r == 1 for r in found) else None, None)
            elif isinstance(value_node, (gast.Tuple, gast.List)) and len(value_node.elts) == len(target.elts):
                for t, v in zip(target.elts, value_node.elts):
                    self.store(t, self.rank(v), v)
            else:
                for t in target.elts:
                    self.store(t, None, None)
        elif isinstance(target, gast.Subscript):
            element = self.rank(target)
            if element is not None and value is not None:
                self._mark(value_node)
                self.hard(value <= element)  # broadcasting only adds axes on the left
                masked = isinstance(target.slice, (gast.Compare, gast.BinOp, gast.UnaryOp)) and \
                    not isinstance(getattr(target.slice, "op", None), (gast.Add, gast.Sub, gast.Mult))
                if value != element and not (masked and value == 0):
                    self.soft += 1  # (`a[a > t] = fill`: one number at every selected position)

    def _shape_source(self, node):
        """``x`` when ``node`` is ``x.shape`` or ``np.shape(x)``, else None."""
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            return node.value
        if isinstance(node, gast.Call) and self.ctx.imports.resolve(node.func) == "numpy.shape" and len(node.args) == 1:
            return node.args[0]
        return None

    def bind_iteration(self, target, iterable):
        callee = self.ctx.imports.resolve(iterable.func) if isinstance(iterable, gast.Call) else None
        if callee in ("builtins.range", "numpy.arange"):
            for arg in iterable.args:
                self.need_scalar(arg)
            self.store(target, 0, None)
        elif callee == "builtins.enumerate" and iterable.args and isinstance(target, gast.Tuple) \
                and len(target.elts) == 2:
            self.store(target.elts[0], 0, None)
            self.bind_iteration(target.elts[1], iterable.args[0])
        elif callee == "builtins.reversed" and len(iterable.args) == 1:  # the same items, backwards
            self.bind_iteration(target, iterable.args[0])
        elif reversed_operand(iterable) is not None:  # `x[::-1]`: the same items, backwards
            self.bind_iteration(target, reversed_operand(iterable))
        elif callee == "builtins.zip" and isinstance(target, gast.Tuple) and len(target.elts) == len(iterable.args):
            for t, arg in zip(target.elts, iterable.args):
                self.bind_iteration(t, arg)
        elif callee in ("itertools.combinations", "itertools.permutations", "itertools.combinations_with_replacement") \
                and iterable.args:
            # tuples of items of the sequence: each name one item, of one axis less
            rank = self.rank(iterable.args[0])
            for arg in iterable.args[1:]:
                self.need_scalar(arg)
            self.need_at_least(iterable.args[0], rank, 1, hard=True)
            for t in (target.elts if isinstance(target, gast.Tuple) else [target]):
                item = None if rank is None or not isinstance(target, gast.Tuple) else rank - 1
                self.store(t, item, None, kind="item" if item is not None else None)
        else:
            rank = self.rank(iterable)
            # `for a, b in rows`: each row is unpacked, so it has at least one axis
            self.need_at_least(iterable, rank, 2 if isinstance(target, gast.Tuple) else 1, hard=True)
            if isinstance(target, gast.Tuple) and rank == 2:
                for t in target.elts:
                    self.store(t, 0, None)
            else:
                self.store(target, None if rank is None else rank - 1, None, kind="item")

    # -- expressions ---------------------------------------------------------------------------
    def rank(self, node) -> int | None:
        method = getattr(self, f"rank_{type(node).__name__}", None)
        if method is None:
            for child in gast.iter_child_nodes(node):
                if isinstance(child, gast.expr):
                    self.rank(child)
            return None
        return method(node)

    def rank_Constant(self, node):
        return 0 if isinstance(node.value, (int, float, complex, bool)) else None

    def rank_Name(self, node):
        if node.id in self.params:  # every parameter the code reads gets a rank
            self.decided.setdefault(node.id, node)
        if node.id in self.env:
            return self.env[node.id]
        return self._global_rank(node.id)

    def _global_rank(self, name):
        """The rank of a module-level name bound once (``size = N + 2``), else None."""
        value = module_value(self.ctx, name)
        if value is None or name in self.busy:
            return None
        return self._aside({}, lambda ev: ev.rank(value), name)

    def _aside(self, env, compute, name, binding: bool = False, static: dict | None = None):
        """``compute`` run on a separate evaluation (module code, a helper's body): its
        constraints are not this function's, and one it breaks gives no rank; with ``binding``
        (a helper whose body runs whole: no loop, and only the branches its constant
        arguments and ranks decide) a broken hard constraint means the call would raise, so
        it is this function's too. ``static``: the helper's parameters passed as constants."""
        ev = _Eval(self.ctx, env, set(), busy=self.busy | {name}, static=static)
        try:
            return compute(ev)
        except _BranchConflict:
            return None  # in a branch the call may not take
        except _Conflict:
            if binding:
                raise
            return None

    def _helper_rank(self, node):
        """The rank a module-level helper returns for these arguments (``from_mel(b)`` with
        ``b`` 1-D returns 1-D), when every ``return`` agrees; else None."""
        found = [self.rank(a) for a in node.args]
        keywords = {k.arg: self.rank(k.value) for k in node.keywords}
        helper = _module_function(self.ctx, node.func.id)
        if helper is None or node.func.id in self.busy or None in keywords or any(
                isinstance(a, gast.Starred) for a in node.args):
            return None
        params = _parameters(helper)
        if len(node.args) > len(params) or helper.args.vararg or helper.args.kwonlyargs \
                or helper.args.kwarg and keywords.keys() - set(params) or set(keywords) - set(params) \
                or set(keywords) & set(params[:len(node.args)]):
            return None
        env = dict(zip(params, found)) | keywords
        nodes = dict(zip(params, node.args)) | {k.arg: k.value for k in node.keywords}
        defaults = helper.args.defaults
        for p, d in zip(params[len(params) - len(defaults):], defaults):
            env.setdefault(p, ranks.literal_rank(d))
            nodes.setdefault(p, d)
        static = {p: v.value for p, v in nodes.items() if isinstance(v, gast.Constant)}

        kinds = {p: self._item_kind(a) for p, a in nodes.items()}

        def returned(ev):
            ev.items.update({p: k for p, k in kinds.items() if k is not None})
            ev.run(helper.body)
            self.soft += ev.soft  # what the helper's body suggests of its arguments, the call does
            found = set(ev.returns)
            return found.pop() if len(found) == 1 else None
        straight = all(isinstance(st, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr, gast.If))
                       for st in gast.walk(helper) if isinstance(st, gast.stmt) and st is not helper) \
            and not any(isinstance(n, (gast.IfExp, gast.Lambda, gast.ListComp, gast.GeneratorExp))
                        for n in gast.walk(helper)) \
            and not any(isinstance(n, gast.BoolOp) for st in gast.walk(helper) if not isinstance(st, gast.If)
                        for n in gast.iter_child_nodes(st))  # every part of it runs, but undecided branches
        known = all(r is not None for r in env.values())
        return self._aside(env, returned, node.func.id, binding=straight and known, static=static)

    def rank_BinOp(self, node):
        left, right = self.rank(node.left), self.rank(node.right)
        if isinstance(node.op, gast.MatMult):
            return self._matmul(node.left, left, node.right, right)
        if isinstance(node.op, (gast.Add, gast.Sub)) and left is not None and right is not None:
            # `x - mean` with `mean = means[c, :]`: a row the code spells as a row, met by an
            # item of another array (`x = X[i]`), suggests that item is a row too (a point
            # minus a point), rather than a number broadcast along it
            kinds = (self._item_kind(node.left), self._item_kind(node.right))
            for (mine, kind), (other, other_kind) in (((left, kinds[0]), (right, kinds[1])),
                                                      ((right, kinds[1]), (left, kinds[0]))):
                if kind == "row" and other_kind in ("item", "row") and other < mine:
                    self.soft += 1
        return self._broadcast(node.left, left, node.right, right)

    def _item_kind(self, node) -> str | None:
        """``"row"`` for ``a[c, :]`` (an element index, then only full slices), ``"item"`` for
        ``a[i]`` or ``a[i, j]``, or a name bound to one; else None."""
        if isinstance(node, gast.Name):
            return self.items.get(node.id)
        if not isinstance(node, gast.Subscript):
            return None
        entries = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if not entries or isinstance(entries[0], gast.Slice):
            return None
        full = [isinstance(e, gast.Slice) and e.lower is None and e.upper is None and e.step is None
                for e in entries]
        if any(full):
            first = full.index(True)
            return "row" if all(full[first:]) and not any(isinstance(e, gast.Slice) for e in entries[:first]) else None
        return "item" if not any(isinstance(e, gast.Slice) for e in entries) else None

    def _broadcast(self, left_node, left, right_node, right):
        """The rank of an elementwise op of two operands (``a * b``, ``np.multiply(a, b)``)."""
        if left is None or right is None:
            return None
        for side, mine, other in ((left_node, left, right), (right_node, right, left)):
            # `kern * window`: an array named on its own meets a value of its own shape more
            # often than it is broadcast against one
            if isinstance(side, gast.Name) and side.id in self.params and mine < other and mine > 0:
                self.soft += 1
            if isinstance(side, gast.Name) and side.id in self.params and mine == 0 and other > 1:
                self.soft += 1
        return max(left, right)

    def rank_UnaryOp(self, node):
        rank = self.rank(node.operand)
        if isinstance(node.op, gast.Not):
            self.need_scalar(node.operand)
            return 0
        return rank

    def rank_BoolOp(self, node):
        for value in node.values:  # `and`/`or` take the truth of their operands
            self.need_scalar(value)
        return 0

    def rank_Compare(self, node):
        if any(isinstance(op, (gast.Is, gast.IsNot, gast.In, gast.NotIn)) for op in node.ops):
            for value in [node.left, *node.comparators]:
                self.rank(value)
            return 0
        found = [self.rank(v) for v in [node.left, *node.comparators]]
        if len(found) > 2:  # a chain takes the truth of each link
            self.need_scalar(node.left)
        return None if None in found else max(found)

    def rank_IfExp(self, node):
        self.need_scalar(node.test)
        body, orelse = self.rank(node.body), self.rank(node.orelse)
        return body if body == orelse else None

    def rank_Tuple(self, node):
        found = [self.rank(e) for e in node.elts]
        return found[0] + 1 if found and None not in found and len(set(found)) == 1 else None

    rank_List = rank_Tuple

    def rank_ListComp(self, node):
        """``[f(c) for c in range(k)]``: a list of values of one rank (the targets are the
        comprehension's own, restored after it)."""
        saved = {n.id: self.env.get(n.id, _UNBOUND) for gen in node.generators
                 for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
        try:
            for gen in node.generators:
                self._bind_comprehension(gen.target, gen.iter)
                for test in gen.ifs:
                    self.need_scalar(test)
            element = self.rank(node.elt)
        finally:
            for name, value in saved.items():
                if value is _UNBOUND:
                    self.env.pop(name, None)
                else:
                    self.env[name] = value
        return None if element is None or len(node.generators) != 1 else element + 1

    def _bind_comprehension(self, target, iterable):
        """As :meth:`bind_iteration` (rows need an axis, ``enumerate`` and ``zip`` unpacked),
        binding the comprehension's own names only, never a local of the function."""
        callee = self.ctx.imports.resolve(iterable.func) if isinstance(iterable, gast.Call) else None
        if callee in ("builtins.range", "numpy.arange") and isinstance(target, gast.Name):
            for arg in iterable.args:
                self.need_scalar(arg)
            self.env[target.id] = 0
        elif callee == "builtins.enumerate" and len(iterable.args) == 1 and isinstance(target, gast.Tuple) \
                and len(target.elts) == 2 and isinstance(target.elts[0], gast.Name):
            self.env[target.elts[0].id] = 0
            self._bind_comprehension(target.elts[1], iterable.args[0])
        elif callee == "builtins.reversed" and len(iterable.args) == 1:  # the same items, backwards
            self._bind_comprehension(target, iterable.args[0])
        elif callee == "builtins.zip" and isinstance(target, gast.Tuple) and len(target.elts) == len(iterable.args):
            for t, arg in zip(target.elts, iterable.args):
                self._bind_comprehension(t, arg)
        else:
            rank = self.rank(iterable)
            self.need_at_least(iterable, rank, 2 if isinstance(target, gast.Tuple) else 1, hard=True)
            for n in gast.walk(target):
                if isinstance(n, gast.Name):
                    if isinstance(target, gast.Name):
                        self.env[n.id] = rank - 1 if rank else None
                    else:
                        self.env[n.id] = 0 if rank == 2 else None

    def rank_Attribute(self, node):
        if node.attr == "shape":  # a tuple: `x.shape != (4, 3)` is one bool
            self.rank(node.value)
            return None
        limits = isinstance(node.value, gast.Call) and \
            (self.ctx.imports.resolve(node.value.func) or "") in ("numpy.finfo", "numpy.iinfo")
        if node.attr in ("ndim", "size") or limits:  # np.finfo(float).eps is a number
            rank = self.rank(node.value)
            if node.attr == "size":  # the number of elements of what has elements: not a scalar
                self.need_at_least(node.value, rank, 1, hard=False)
            return 0
        if node.attr in ("T", "real", "imag"):
            return self.rank(node.value)
        if (self.ctx.imports.resolve(node) or "") in _CONSTANTS:
            return 0
        if self.ctx.imports.resolve(node) is None:
            self.rank(node.value)
        return None

    def rank_Subscript(self, node):
        base = node.value
        shape_of = self._shape_source(base)
        if shape_of is not None:
            rank = self.rank(shape_of)
            k = node.slice.value if isinstance(node.slice, gast.Constant) else None
            if isinstance(k, int):
                self.need_at_least(shape_of, rank, k + 1 if k >= 0 else -k, hard=True)
                return 0
            return None
        rank = self.rank(base)
        entries = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        used, added = 0, 0
        for entry in entries:
            if isinstance(entry, gast.Slice):
                for part in (entry.lower, entry.upper, entry.step):
                    if part is not None:
                        self.need_scalar(part)
                used, added = used + 1, None if added is None else added + 1
            elif isinstance(entry, gast.Constant) and entry.value is None or \
                    self.ctx.imports.resolve(entry) == "numpy.newaxis":
                added = None if added is None else added + 1
            elif isinstance(entry, gast.Constant) and entry.value is Ellipsis:
                continue  # the axes no other entry takes, kept: `x[i, ..., 0]` needs two
            else:
                index = self.rank(entry)
                used += 1
                added = None if index is None or added is None else added + index
        self.need_at_least(base, rank, used, hard=True)
        if rank is None or added is None:
            return None
        return rank - used + added

    def rank_Call(self, node):
        func = node.func
        for arg in node.args:
            if isinstance(arg, gast.Starred):  # `f(*v)` iterates `v`: a 0-d array raises
                self.need_at_least(arg.value, self.rank(arg.value), 1, hard=True)
        callee = self.ctx.imports.resolve(func) or ""
        module, _, name = callee.rpartition(".")
        if callee.startswith("numpy.") and "." not in callee[6:] or callee.startswith("numpy.linalg."):
            return self._numpy(name, node, callee)
        if callee.startswith("numpy.fft.") and node.args:  # along the last axis: at least a vector
            found = self.rank(node.args[0])
            for arg in node.args[1:] + [k.value for k in node.keywords]:
                self.rank(arg)
            if name in ("fftfreq", "rfftfreq"):
                return 1
            if name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftshift", "ifftshift"):
                self.need_at_least(node.args[0], found, 1, hard=name not in ("fftshift", "ifftshift"))
                return found
            return None
        if module == "builtins":
            return self._builtin(name, node)
        if module == "math":
            for arg in node.args:
                self.need_scalar(arg)
            return 0
        if isinstance(func, gast.Attribute) and not callee:
            return self._method(func, node)
        if isinstance(func, gast.Name) and func.id not in self.env and not callee:
            return self._helper_rank(node)
        for arg in node.args + [k.value for k in node.keywords]:
            self.rank(arg)
        return None

    def _axis(self, node, position: int | None):
        """The ``axis`` argument: an int, None (not given), or "?" (given, not a literal)."""
        value = next((k.value for k in node.keywords if k.arg == "axis"), None)
        if value is None and position is not None and len(node.args) > position:
            value = node.args[position]
        if value is None:
            return None
        if isinstance(value, gast.Constant) and isinstance(value.value, int):
            return value.value
        if isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.USub) \
                and isinstance(value.operand, gast.Constant) and isinstance(value.operand.value, int):
            return -value.operand.value
        return "?"

    def _reduce(self, operand, rank, node, position):
        axis = self._axis(node, position)
        keep = any(k.arg == "keepdims" for k in node.keywords)
        if axis is None:
            self.suggest_arrays(operand)  # a full reduction of a scalar is not written
            return rank if keep else 0
        if axis == "?":
            return None
        # NumPy takes axis 0 or -1 of a 0-d value too (np.sum(np.float64(1), axis=-1) is 1.0)
        least = axis + 1 if axis >= 0 else -axis
        self.need_at_least(operand, rank, least, hard=axis not in (0, -1))
        self.need_at_least(operand, rank, 2, hard=False)  # axis= is not given for a vector
        self.suggest_arrays(operand)
        if rank == 0:
            return 0
        return None if rank is None else rank if keep else rank - 1

    def _numpy(self, name, node, callee):
        args = node.args
        found = [self.rank(a) for a in args]
        for k in node.keywords:
            self.rank(k.value)
        if name in _ELEMENTWISE:
            if len(args) == 2 and not node.keywords:
                return self._broadcast(args[0], found[0], args[1], found[1])
            return None if None in found or not found else max(found)
        if name in _SCALAR_TYPES and callee.count(".") == 1 and len(args) <= 1 and not node.keywords:
            return found[0] if args else 0  # np.float32(0.5) is a scalar, np.float32(x) has x's rank
        if name in _REDUCTIONS and args and callee.count(".") == 1:
            return self._reduce(args[0], found[0], node, 1)
        if callee == "numpy.linalg.norm" and args:
            return self._reduce(args[0], found[0], node, 2)
        if callee.startswith("numpy.linalg.") and args:  # matrices: inv, det, solve, eig, ...
            self.need_at_least(args[0], found[0], 2, hard=True)
            if name in ("solve", "lstsq") and len(args) == 2:  # the right-hand side: a vector or more
                self.need_at_least(args[1], found[1], 1, hard=True)
            if found[0] is None:
                return None
            if name in ("inv", "pinv", "cholesky", "matrix_power"):
                return found[0]
            if name == "det":
                return found[0] - 2
            if name == "solve" and len(args) == 2:
                return found[1]
            return None
        shape_kw = next((k.value for k in node.keywords if k.arg == "shape"), None)
        if name in _MAKERS and (args or shape_kw is not None):
            shape = args[0] if args else shape_kw  # `np.zeros(shape=(n, 1))`
            if not args:
                found = [self.rank(shape)]
            if isinstance(shape, (gast.Tuple, gast.List)):
                for e in shape.elts:
                    self.need_scalar(e)
                return len(shape.elts)
            if isinstance(shape, gast.Attribute) and shape.attr == "shape":
                return self.rank(shape.value)
            if found[0] == 0:
                return 1
            return None
        if name in _LIKE and args:
            return found[0]
        if name in ("arange", "linspace"):
            for arg in args:
                self.need_scalar(arg)
            return 1
        if name in ("dot", "matmul", "inner") and len(args) == 2:
            if name == "matmul":
                return self._matmul(args[0], found[0], args[1], found[1])
            return self._dot(args[0], found[0], args[1], found[1], inner=name == "inner")
        if name in ("unique", "nonzero", "flatnonzero", "argwhere") and args and not node.keywords:
            self.need_at_least(args[0], found[0], 1, hard=False)  # not written for a scalar
            return 1 if name != "argwhere" else 2
        if name == "outer" and len(args) == 2:
            return 2
        if name in ("eye", "identity"):
            return 2
        if name == "diag" and args and found[0] in (1, 2):
            return 3 - found[0]
        if name in ("ravel", "flatnonzero") and args:
            return 1
        if name in ("transpose", "flip", "fliplr", "flipud", "roll", "sort", "cumsum", "cumprod") and args \
                and found[0] is not None and (found[0] >= 1 or name == "transpose"):
            return found[0] if name not in ("cumsum", "cumprod") or self._axis(node, 1) is not None else 1
        if name == "expand_dims" and args and found[0] is not None:
            return found[0] + 1
        if name == "reshape" and len(args) == 2 and isinstance(args[1], (gast.Tuple, gast.List)) \
                and not any(isinstance(e, gast.Starred) for e in args[1].elts):
            return len(args[1].elts)
        if name in ("concatenate", "stack", "vstack", "hstack") and args \
                and isinstance(args[0], (gast.Tuple, gast.List)) and found[0] is not None:
            element = found[0] - 1
            if name == "stack":
                return element + 1
            if name == "vstack":
                return max(element, 2)
            return element if element >= 1 else None
        if name == "compress" and len(args) >= 2:
            self.need_at_least(args[0], found[0], 1, hard=True)
            self.hard(found[0] is None or found[0] == 1)
            axis = self._axis(node, 2)
            if axis is None:
                return 1
            if axis == "?":
                return None
            self.need_at_least(args[1], found[1], axis + 1 if axis >= 0 else -axis, hard=True)
            self.need_at_least(args[1], found[1], 2, hard=False)
            return found[1]
        return None

    def _dot(self, left, a, right, b, inner=False):
        """``np.dot`` (or ``x.dot(y)``): the last axis of ``a`` with the second to last of ``b``."""
        self.suggest_arrays(left)
        self.suggest_arrays(right)
        if a is None or b is None:
            return None
        if a == 0 or b == 0:
            return max(a, b)
        if inner:
            return a + b - 2
        return a - 1 if b == 1 else a + b - 2

    def _matmul(self, left, a, right, b):
        self.need_at_least(left, a, 1, hard=True)
        self.need_at_least(right, b, 1, hard=True)
        if a is None or b is None:
            return None
        if a == 1 and b == 1:
            return 0
        if b == 1:
            return a - 1
        if a == 1:
            return b - 1
        return max(a, b)

    def _builtin(self, name, node):
        args = node.args
        if name == "len" and len(args) == 1:
            self.need_at_least(args[0], self.rank(args[0]), 1, hard=True)
            return 0
        if name in ("float", "int", "bool", "complex") and len(args) == 1:
            self.need_scalar(args[0])
            return 0
        if name in ("min", "max") and len(args) >= 2 and not node.keywords:
            for arg in args:  # Python compares its arguments: arrays of size > 1 raise
                self.need_scalar(arg)
            return 0
        if name == "abs" and len(args) == 1:
            return self.rank(args[0])
        if name == "range":
            for arg in args:
                self.need_scalar(arg)
            return 1
        for arg in args:
            self.rank(arg)
        return None

    def _method(self, func, node):
        rank = self.rank(func.value)
        for arg in node.args:
            self.rank(arg)
        name = func.attr
        if name in _SAME_RANK_METHODS and not (name in ("cumsum", "cumprod") and not node.args and not node.keywords):
            return rank
        if name in _REDUCTIONS:
            return self._reduce(func.value, rank, node, 0)
        if name in ("item",):
            return 0
        if name == "dot" and len(node.args) == 1:
            return self._dot(func.value, rank, node.args[0], self.rank(node.args[0]))
        if name in ("flatten", "ravel"):
            return 1
        if name == "reshape":
            if any(isinstance(a, gast.Starred) for n in node.args for a in gast.walk(n)):
                return None  # `x.reshape(*shape)`: as many axes as `shape` has
            if len(node.args) == 1 and isinstance(node.args[0], (gast.Tuple, gast.List)):
                return len(node.args[0].elts)
            if len(node.args) == 1 and self.rank(node.args[0]) != 0:
                return None  # `x.reshape(shape)` with a tuple of unknown length
            return len(node.args) if node.args else None
        return None


def module_value(ctx, name):
    """The value of the one module-level ``name = value`` that binds ``name``; None when it is
    bound otherwise or more than once (a ``global`` statement anywhere in the module, also in
    a function the outline left out, a loop, an import)."""
    tree = ctx.tree
    if name in getattr(ctx, "global_names", ()) or _mutated(ctx, name):
        return None
    found = [stmt for stmt in tree.body if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
             and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name]
    stores = sum(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
                 for stmt in tree.body if not isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef))
                 for n in gast.walk(stmt))
    if len(found) != 1 or stores != 1 or any(isinstance(n, gast.Global) and name in n.names for n in gast.walk(tree)):
        return None
    return found[0].value


#: methods that change a list, dict, set or array in place
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
             "setdefault", "popitem", "add", "discard", "fill", "resize", "put", "itemset", "partition",
             "__setitem__", "__delitem__", "__iadd__", "__imul__"}


def _mutated(ctx, name: str) -> bool:
    """``name`` changed in place anywhere in the module (``W.append(v)``, ``W[0] = v``,
    ``W += v``, ``out=W``), also in functions the outline left out."""
    cache = ctx.__dict__.setdefault("_mutated_names", {})
    if name not in cache:
        cache[name] = _mutated_anywhere(ctx, name)
    return cache[name]


def _mutated_anywhere(ctx, name: str) -> bool:
    functions = getattr(ctx, "functions", {})
    trees = [ctx.tree, *[functions[f] for f in list(functions)]]
    for tree in trees:
        for node in gast.walk(tree):
            if isinstance(node, gast.Call):
                func = node.func
                if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                        and func.value.id == name and func.attr in _MUTATORS:
                    return True
                if any(k.arg == "out" and isinstance(k.value, gast.Name) and k.value.id == name
                       for k in node.keywords):
                    return True
            elif isinstance(node, gast.Subscript) and isinstance(node.ctx, (gast.Store, gast.Del)):
                base = node.value
                while isinstance(base, gast.Subscript):
                    base = base.value
                if isinstance(base, gast.Name) and base.id == name:
                    return True
            elif isinstance(node, gast.AugAssign):
                base = node.target
                while isinstance(base, gast.Subscript):
                    base = base.value
                if isinstance(base, gast.Name) and base.id == name:
                    return True
    return False


def module_rank(ctx, name: str) -> int | None:
    """The rank of the module-level name ``name`` when one plain assignment binds it and the
    rank of its value is known (``size = N + 2`` with ``N = 12``: 0); else None."""
    return _Eval(ctx, {}, set())._global_rank(name)


def rebound_in_module(tree, name: str) -> bool:
    """``name`` bound at module level other than by its one ``def`` (``_f = np.negative``, an
    import, a ``global`` rebinding)."""
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Store):
            return True
        if isinstance(node, (gast.Import, gast.ImportFrom)) and any(
                (a.asname or a.name).split(".")[0] == name for a in node.names):
            return True
        if isinstance(node, gast.Global) and name in node.names:
            return True
    return False


def _module_function(ctx, name):
    """The module-level ``def name`` when nothing else binds ``name`` and no decorator wraps it."""
    fdef = getattr(ctx, "functions", {}).get(name)
    if fdef is None or fdef.col_offset != 0 or fdef.decorator_list or rebound_in_module(ctx.tree, name):
        return None
    return fdef


def _parameters(fdef) -> list[str]:
    args = fdef.args
    return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs if isinstance(a, gast.Name)]


def _loose(fdef, names) -> frozenset:
    return frozenset(names) - set(_parameters(fdef))


def _buffers(fdef, known) -> list[str]:
    """Locals that are inference variables like parameters: bound once, by a call at the top
    of the function body (``kept = np.zeros(shape)``, the rank of ``shape`` unknown), and
    written through a subscript (``kept[r, c] = ...``). The writes bound their rank as a
    parameter's uses do; where the binding itself gives a rank, it must agree."""
    counts = _stores(fdef)
    params = set(_parameters(fdef))
    written = {t.value.id for n in gast.walk(fdef) if isinstance(n, (gast.Assign, gast.AugAssign))
               for t in (n.targets if isinstance(n, gast.Assign) else [n.target])
               if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)}
    return [st.targets[0].id for st in fdef.body
            if isinstance(st, gast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], gast.Name)
            and isinstance(st.value, gast.Call) and st.targets[0].id in written
            and st.targets[0].id not in params and st.targets[0].id not in known
            and counts.get(st.targets[0].id) == 1]


def _stores(fdef) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in gast.walk(fdef):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    return counts


def _evaluate(ctx, fdef, known: dict[str, int], assignment: dict[str, int]) -> _Eval | None:
    """The evaluation of ``fdef`` under ``assignment``; None when a hard constraint fails, or a
    parameter given a rank is rebound where the evaluation does not see it (a comprehension)."""
    env = {**known, **assignment}
    ev = _Eval(ctx, dict(env), set(assignment), loose=_loose(fdef, assignment))
    try:
        ev.run(fdef.body)
    except _Conflict:
        return None
    counts = _stores(fdef)
    if any(counts.get(p, 0) != len(ev.sites.get(p, ())) for p in assignment):
        return None
    return ev


#: runs of a loop body at most, for the ranks that flow around the loop
_PASSES = 6


def local_ranks(ctx, fdef, known: dict[str, ranks.Shape], assignment: dict[str, int]) -> dict[str, int]:
    """The ranks of ``fdef``'s locals that every binding gives the same rank, under the
    parameter ranks ``known`` and ``assignment`` (what :func:`infer_ranks` chose, or a
    neighbour of it): what the direct backend cannot trace itself
    (``P = E / np.sum(E, axis=1, keepdims=True)``, ``kern = np.diag(v); kern /= n``).

    Loop bodies are evaluated again until no binding records a new rank: a value bound in a
    loop from one rebound later in it (``b = a; a = row``) takes both.
    """
    fixed = {name: shape.rank for name, shape in known.items()}
    if _evaluate(ctx, fdef, fixed, assignment) is None:
        return {}
    ev = _Eval(ctx, {**fixed, **assignment}, set(assignment), flow=True, loose=_loose(fdef, assignment))
    try:
        ev.run(fdef.body)
    except _Conflict:
        return {}
    counts = _stores(fdef)
    params = set(_parameters(fdef))
    # Every binding of the name must be one the evaluation saw.
    return {name: found[0] for name, found in ev.bound.items()
            if len(set(found)) == 1 and found[0] is not None and name not in params
            and counts.get(name) == len(ev.sites[name])}


def _indexed_names(fdef) -> set[str]:
    return {n.value.id for n in gast.walk(fdef) if isinstance(n, (gast.Subscript, gast.Attribute))
            and isinstance(n.value, gast.Name)}


def infer_ranks(ctx, fdef, known: dict[str, ranks.Shape]) -> RankGuess | None:
    """Ranks for ``fdef``'s parameters that no declaration gives, inferred from their use.

    Args:
        ctx: the module context (imports, the module's literals).
        fdef: the function (gast).
        known: the ranks already known (``ranks.parameter_shapes``); they are not changed.
    Returns:
        The guess, or None when no parameter lacks a rank, none is rebound-free, or no
        assignment within the search budget keeps every constraint.
    """
    fixed = {name: shape.rank for name, shape in known.items()}
    # A rebound parameter is a variable too, when each binding keeps its rank (`_Eval._bind`);
    # when none can, the others are inferred without it.
    unknown = [p for p in _parameters(fdef) if p not in fixed and p != "self"]
    stored = _stores(fdef)
    guess = _infer(ctx, fdef, fixed, unknown)
    if guess is None and any(p in stored for p in unknown):
        guess = _infer(ctx, fdef, fixed, [p for p in unknown if p not in stored])
    if guess is not None:
        buffers = [b for b in _buffers(fdef, fixed) if _unranked(ctx, fdef, {**fixed, **guess.ranks}, b)]
        if buffers:
            widened = _infer(ctx, fdef, fixed, [p for p in unknown if p in guess.ranks] + buffers)
            if widened is not None and all(widened.ranks.get(p) == r for p, r in guess.ranks.items()):
                guess = widened
    return guess


def _unranked(ctx, fdef, fixed, name) -> bool:
    """Whether the binding of the local ``name`` has no rank under ``fixed`` (the known ranks
    and those inferred for the parameters): its rank does not follow from theirs
    (``np.zeros(shape)``), so only such locals become variables."""
    ev = _Eval(ctx, dict(fixed), set())
    try:
        ev.run(fdef.body)
    except _Conflict:
        return False
    return bool(ev.bound.get(name)) and all(r is None for r in ev.bound[name])


def _infer(ctx, fdef, fixed, unknown) -> RankGuess | None:
    if not unknown:
        return None
    lower = {p: 0 for p in unknown}
    indexed = _indexed_names(fdef)
    # Raise lower bounds until the hard "at least" constraints hold (a fixpoint: bounds only rise).
    for _ in range(_MAX_RANK * len(unknown) + 1):
        ev = _Eval(ctx, {**fixed, **lower}, set(unknown), loose=_loose(fdef, unknown))
        try:
            ev.run(fdef.body)
        except _Conflict:
            pass
        raised = {p: least for p, (least, _) in ev.lower.items() if least > lower[p]}
        if not raised:
            break
        lower.update(raised)
    if any(r > _MAX_RANK for r in lower.values()):
        return None

    def order(candidate):
        values = [candidate[p] for p in unknown]
        plain = sum(candidate[p] for p in unknown if p not in indexed)
        return (sum(values), max(values), plain)

    spans = [range(lower[p], min(lower[p] + _SPREAD, _MAX_RANK) + 1) for p in unknown]
    candidates = sorted((dict(zip(unknown, combo)) for combo in itertools.product(*spans)), key=order)
    best, best_soft = None, None
    for candidate in candidates[:_BUDGET]:
        ev = _evaluate(ctx, fdef, fixed, candidate)
        if ev is None:
            continue
        if ev.soft == 0:
            best, best_soft = (candidate, ev), 0
            break
        if best_soft is None or ev.soft < best_soft:
            best, best_soft = (candidate, ev), ev.soft
    if best is None:
        return None
    chosen, ev = best
    used = {p for p in unknown if p in ev.decided}
    chosen = {p: r for p, r in chosen.items() if p in used}
    assumed = {p: r for p, r in chosen.items() if p in ev.unsure}
    for p, r in chosen.items():
        others = [k for k in range(_MAX_RANK + 1) if k != r
                  and _evaluate(ctx, fdef, fixed, {**chosen, p: k}) is not None]
        if others:
            assumed[p] = r
    neighbours = _neighbours(ctx, fdef, fixed, chosen, assumed, lower)
    # Pinned one at a time is not pinned together: `np.dot(x[i], w)` into a scalar keeps its
    # constraints with rows and vectors, and with scalars and scalars.
    for other in neighbours:
        assumed.update({p: chosen[p] for p in chosen if other[p] != chosen[p]})
    evidence = {p: _where(ev.decided[p]) for p in chosen}
    return RankGuess(chosen, assumed, evidence, neighbours)


def _neighbours(ctx, fdef, fixed, chosen, assumed, lower) -> tuple[dict[str, int], ...]:
    """The assignments next to ``chosen`` (each rank one less, the same or one more; proven
    ranks kept when the box would be large) that keep every hard constraint."""
    names = sorted(chosen)
    spans = {p: range(max(0, r - 1), min(r + 1, _MAX_RANK) + 1) for p, r in chosen.items()}
    if 3 ** len(names) > _NEIGHBOURS:
        spans.update({p: (r,) for p, r in chosen.items() if p not in assumed})
    if 3 ** sum(len(spans[p]) > 1 for p in names) > _NEIGHBOURS:
        return ()
    found = []
    for combo in itertools.product(*(spans[p] for p in names)):
        candidate = dict(zip(names, combo))
        if candidate != chosen and _evaluate(ctx, fdef, fixed, candidate) is not None:
            found.append(candidate)
    return tuple(found)


def _where(node) -> str:
    text = gast.unparse(node).strip()
    if len(text) > 60:
        text = text[:57] + "..."
    return f"line {getattr(node, 'lineno', '?')}: `{text}`"
