"""Batched values, the batching-rule registry and the helpers rules share.

Vocabulary from pfor (Agarwal & Ganichev, arXiv:1903.04243; TensorFlow's
``tensorflow/python/ops/parallel_for/pfor.py``): a *stacked* value carries leading loop axes,
one per enclosing vectorized loop level (axis 0 is the outermost level); an *unstacked* value
is loop-invariant and keeps its own shape. A stacked value may have size 1 on a loop axis it
does not vary along (``vec[:, None]`` in a two-level nest), so broadcasting does the rest.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Callable

import gast

from pforge.transpile import templates


class Unsupported(Exception):
    """No batching rule (or no known rank) for an op: the loop falls back; the message names the op."""


class InvariantTest(Unsupported):
    """An ``if`` of the loop body whose test is the same on every iteration (``if normalize:``),
    which predication cannot batch (there is no mask per iteration): the loop is rewritten
    once for each outcome, under a Python ``if`` on the test (loop unswitching).

    Attributes:
        stmt: the ``if`` statement.
    """

    def __init__(self, message: str, stmt):
        super().__init__(message)
        self.stmt = stmt


@dataclass(frozen=True)
class Val:
    """One value of the loop body in batched form.

    Attributes:
        node: the batched expression.
        full: one flag per loop axis: True where the value varies along that loop level (the
            axis has the trip count), False where it has size 1. ``()`` means unstacked.
        rank: the per-iteration rank (the rank of the value in one iteration), None if unknown.
        python: the value is a Python scalar or other non-array value (rank 0, no dtype).
        mixed: on some iterations a Python number and on others a NumPy value (``x[i] if c
            else 0``), or Python numbers of two types (``1 if c else 0.5``), or computed from
            such a value: a list of them becomes an array whose dtype depends on which occur
            (``np.array([0, 0])`` holds ints), where the batched value has one dtype.
        pytype: the type of a Python number, when known (a literal, ``len()``, ``float()``).
        scalar: a NumPy scalar on every iteration, never a 0-d array: the result of an
            operator on a NumPy value of rank 0 (NumPy returns scalars from operators even on
            0-d arrays) or of a whole reduction. A list of them is ``list(batched)``.
        witness: for a value that is a Python number on every iteration when an invariant
            scalar is one, and a NumPy scalar when it is one (``i + c``): an expression of the
            batched code that is a number of that kind (``c * 0``). Where the value meets a
            NumPy array it is cast to ``np.result_type(array, witness)``, NumPy's own rule for
            either kind (NEP 50).
        floaty: where the value is a float64 NumPy value (or a Python float) on every
            iteration: :data:`STRICT` where every array the loop reads holds float64 values
            (an array read, a float-valued function of one), :data:`LOOSE` also where they
            hold ints or bools (a mean, a true division), 0 when not known
            (:meth:`ExpressionsMixin._kinds`). A comparison's bools or an ``argmax``'s ints
            are not float64, so a value that is such a NumPy value on some iterations and a
            Python number on others computes otherwise than the batched float64 ``where``
            (``True + True`` is ``True``).
        wide: where the value's dtype is float64, an int or bool one (or it is a Python
            number), in the same terms: such a value computes with a float64 one, or a
            Python float, in float64, where a float32 one computes with a Python float in
            float32.
    """

    node: gast.expr
    full: tuple[bool, ...] = ()
    rank: int | None = None
    python: bool = False
    fused: tuple | None = None  # (reduction, call over every axis) when this is a whole reduction
    mixed: bool = False
    pytype: str | None = None  # for a Python number: `int`, `float`, `bool` or `complex` when known
    scalar: bool = False
    witness: gast.expr | None = None
    floaty: int = 0
    wide: int = 0

    @property
    def depth(self) -> int:
        return len(self.full)

    @property
    def stacked(self) -> bool:
        return bool(self.full)

    def with_node(self, node, **changes) -> "Val":
        return replace(self, node=node, **changes)


@dataclass
class Lib:
    """Names of the library the generated code calls (``tf`` or ``np``) and its flavour."""

    kind: str  # "tf" or "np"
    alias: str

    def fn(self, name: str) -> gast.expr:
        return templates.expr(f"{self.alias}.{name}")

    def call(self, name: str, *args, **kwargs) -> gast.Call:
        return gast.Call(func=self.fn(name), args=[_as_node(a) for a in args],
                         keywords=[gast.keyword(arg=k, value=_as_node(v)) for k, v in kwargs.items()])

    @property
    def newaxis(self) -> gast.expr:
        return self.fn("newaxis")


def _as_node(value):
    if isinstance(value, gast.AST):
        return copy.deepcopy(value)
    if isinstance(value, (list, tuple)):
        return gast.List(elts=[_as_node(v) for v in value], ctx=gast.Load())
    return gast.Constant(value=value, kind=None)


def const(value) -> gast.expr:
    return _as_node(value)


def axis_const(lib: "Lib", axis) -> gast.expr:
    """An ``axis`` argument: a list for TensorFlow, a tuple for NumPy (which rejects lists)."""
    if isinstance(axis, (list, tuple)):
        elts = [const(a) for a in axis]
        return gast.Tuple(elts=elts, ctx=gast.Load()) if lib.kind == "np" else gast.List(elts=elts, ctx=gast.Load())
    return const(axis)


def _colon():
    return gast.Slice(lower=None, upper=None, step=None)


def subscript(node, parts) -> gast.expr:
    index = parts[0] if len(parts) == 1 else gast.Tuple(elts=list(parts), ctx=gast.Load())
    return gast.Subscript(value=copy.deepcopy(node), slice=index, ctx=gast.Load())


def insert_axes(lib: Lib, val: Val, position: int, count: int) -> gast.expr:
    """``X[:, ..., newaxis, ...]``: ``count`` new axes at ``position`` (rank need not be known)."""
    if count <= 0:
        return val.node
    node = val.node
    parts = node.slice.elts if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Tuple) else \
        [node.slice] if isinstance(node, gast.Subscript) else None
    if parts and all(isinstance(p, gast.Slice) for p in parts):
        # `x[a:b][:, np.newaxis]` is `x[a:b, np.newaxis]`: each slice keeps its axis where it stands
        parts = [copy.deepcopy(p) for p in parts] + [_colon() for _ in range(position - len(parts))]
        return subscript(node.value, parts[:position] + [lib.newaxis for _ in range(count)] + parts[position:])
    return subscript(node, [_colon() for _ in range(position)] + [lib.newaxis for _ in range(count)])


def leading_axes_dropped(lib: Lib, node: gast.expr) -> gast.expr:
    """``x[a:b]`` for ``x[np.newaxis, a:b]``, ``x`` for ``x[np.newaxis]``: the operand of a
    broadcasting operation without the size-1 axes in front, which broadcasting puts back
    wherever the other operand has at least as many axes (NumPy's broadcasting rules).
    Only where every other index is a slice: an array index after a new axis may move its
    axes to the front. Anything else comes back as it is."""
    if not isinstance(node, gast.Subscript):
        return node
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    newaxis = gast.dump(lib.newaxis)
    count = next((k for k, p in enumerate(parts) if gast.dump(p) != newaxis), len(parts))
    if count == 0 or not all(isinstance(p, gast.Slice) for p in parts[count:]):
        return node
    return subscript(node.value, parts[count:]) if parts[count:] else copy.deepcopy(node.value)


def lift(lib: Lib, val: Val, depth: int) -> Val:
    """A value of an outer level seen at a deeper level: size-1 axes for the inner loop levels."""
    if not val.stacked or val.depth >= depth:
        return val
    node = insert_axes(lib, val, val.depth, depth - val.depth)
    return Val(node, val.full + (False,) * (depth - val.depth), val.rank, val.python, mixed=val.mixed,
               pytype=val.pytype, scalar=val.scalar, witness=val.witness, floaty=val.floaty,
               wide=val.wide)


def mixes(a: Val, b: Val) -> bool:
    """Whether the value that is ``a`` on some iterations and ``b`` on others is
    :attr:`Val.mixed`: a Python number on some and a NumPy value on others, or Python
    numbers of two types (or of a type not known)."""
    both = a.python and b.python
    return a.python != b.python or both and (a.pytype is None or a.pytype != b.pytype) or a.mixed or b.mixed


def merged(node, full, rank, a: Val, b: Val) -> Val:
    """The value that is ``a`` on some iterations and ``b`` on others (``node``, a ``where``):
    a Python number of one type when both are that, else (a NumPy value) perhaps mixed."""
    same = a.python and b.python and a.pytype is not None and a.pytype == b.pytype
    if isinstance(node, gast.Call) and len(node.args) == 3:
        node.pforge_merge = True  # (a direct store casts each arm: `writes._cast_arms`)
    mixed = mixes(a, b)
    if mixed and not same:
        if any(v.mixed == INT_ARM or (not _float_like(v) if v.python else not v.floaty) for v in (a, b)):
            mixed = INT_ARM  # (a NumPy arm of bools or ints: `(x[i] > 0) if c else 0.5`)
        else:
            floats = all(v.pytype == "float" for v in (a, b) if v.python)
            own = (FLOAT_ARMS_LOOSE if all(v.floaty == LOOSE for v in (a, b) if not v.python) else FLOAT_ARMS) \
                if floats else True
            mixed = join_mixed(own, a.mixed, b.mixed)
    return Val(node, full, rank, same, mixed=mixed, pytype=a.pytype if same else None,
               scalar=a.scalar and b.scalar,
               floaty=min((LOOSE if v.pytype == "float" else 0) if v.python else v.floaty for v in (a, b)),
               wide=min(LOOSE if v.python else v.wide for v in (a, b)))


#: :attr:`Val.mixed` of a value one of whose kinds is a Python int that may compute otherwise
#: than a float64 would: 0 (``-0`` is 0, ``-0.0`` is not), one past 2**53, or one NumPy
#: converts to int64 (``np.square(2**40)`` wraps), or a NumPy value not float64
INT_ARM = "int"
#: what :meth:`ExpressionsMixin._int_bound` gives for a value that is no int (a float, a true
#: division): no int64 bound to check
NOT_INT = gast.Constant(value=None, kind="not an int")
#: :attr:`Val.mixed` of a value whose Python numbers are floats and whose NumPy values are
#: float64 where the arrays read are (:data:`STRICT`), or where they are float64, ints or bools
#: (:data:`LOOSE`): it may compute with an int or bool NumPy value too (``0.5 * k`` is
#: float64 as ``v * k`` is); ``True`` allows Python ints (nonzero, within 2**20) as well
FLOAT_ARMS = "floats"
FLOAT_ARMS_LOOSE = "floats, loose"
_MIXED_ORDER = {False: 0, FLOAT_ARMS_LOOSE: 1, FLOAT_ARMS: 2, True: 3, INT_ARM: 4}

#: levels of :attr:`Val.floaty` and :attr:`Val.wide`: what the arrays the loop reads must hold
#: for the value to be float64 (or float64, an int or a bool): float64 only, or float64, ints
#: and bools
STRICT, LOOSE = 1, 2


def join_mixed(*kinds):
    """The :attr:`Val.mixed` of a value computed from values of these kinds: the widest."""
    return max(kinds, key=lambda k: _MIXED_ORDER[k])


def _float_like(v: Val) -> bool:
    """A Python number that computes as the float64 the batched ``where`` holds: a float, or
    a nonzero int constant within 2**20."""
    node = v.node
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    if v.pytype == "float":
        return True
    return isinstance(node, gast.Constant) and type(node.value) is int and 0 < node.value <= 2 ** 20


def python_result(op, a: str | None, b: str | None, exponent: int | None = None) -> str | None:
    """The type of ``a op b`` for Python numbers of types ``a`` and ``b``, when known;
    ``exponent``: the right operand, when it is an integer literal (``i ** 2`` of an int is an
    int, ``i ** -1`` a float)."""
    if type(op).__name__ == "Pow" and exponent is not None and exponent >= 0 and a in ("bool", "int", "float"):
        return "float" if a == "float" else "int"
    if a is None or b is None or type(op).__name__ in ("BitAnd", "BitOr", "BitXor", "LShift", "RShift", "Pow"):
        return None
    if "complex" in (a, b):
        return "complex"
    if "float" in (a, b) or type(op).__name__ == "Div":
        return "float"
    return "int"


def align(lib: Lib, vals: list[Val], what: str) -> tuple[list[Val], tuple[bool, ...], int]:
    """Makes operands broadcast as they did in one iteration (pfor's ``_inputs_with_flattening``).

    Stacked operands are lifted to the deepest loop level; every stacked operand whose
    per-iteration rank is below the result's gets size-1 axes right after the loop axes, so an
    invariant ``[d]`` vector meets ``[n, d]`` rows and a per-row scalar ``[n]`` becomes ``[n, 1]``.

    Returns:
        The aligned operands, the loop-axis flags of the result, and its per-iteration rank.
    Raises:
        Unsupported: a rank that decides the alignment is unknown.
    """
    depth = max(v.depth for v in vals)
    ranks = [v.rank for v in vals]
    stacked_ranks = [v.rank for v in vals if v.stacked]
    if None in stacked_ranks:
        raise Unsupported(f"{what}: the per-iteration rank of an operand is unknown (declare it in the "
                          "docstring, `Args: x: [n, d].`, or pass `--shapes x=2`)")
    unknown = [v for v in vals if not v.stacked and v.rank is None]
    if unknown:
        raise Unsupported(f"{what}: the rank of `{gast.unparse(unknown[0].node).strip()}` is unknown")
    rank = max(ranks) if ranks else 0
    full = tuple(any(v.full[k] for v in vals if v.stacked and k < v.depth) for k in range(depth))
    out = []
    for v in vals:
        if v.stacked:
            v = lift(lib, v, depth)
            if v.rank < rank:
                v = Val(insert_axes(lib, v, depth, rank - v.rank), v.full, rank)
        out.append(v)
    return out, full, rank


@dataclass
class Rule:
    """A batching rule: turns a call on stacked operands into its batched form.

    Attributes:
        name: the API it handles (``tensorflow.nn.relu``).
        family: the module that registered it (elementwise, reductions, ...).
        convert: ``convert(b, call, name) -> Val``; ``b`` is the :class:`Args` of the call.
        sample: for the table-driven test: ``(shapes, kwargs)`` of a typical call (per-iteration
            shapes of the positional array operands) or None when the test cannot build one.
    """

    name: str
    family: str
    convert: Callable
    sample: tuple | None = None


REGISTRY: dict[str, Rule] = {}


def register(*names: str, family: str, sample=None):
    """Registers ``fn`` as the batching rule for each API name; registering twice is a bug."""

    def wrap(fn):
        for name in names:
            assert name not in REGISTRY, f"batching rule for {name} registered twice. This is a bug."
            REGISTRY[name] = Rule(name, family, fn, sample)
        return fn

    return wrap


def lookup(name: str) -> Rule | None:
    return REGISTRY.get(name)


@dataclass
class Args:
    """The operands of one call, evaluated: positional and keyword :class:`Val` s and raw nodes."""

    call: gast.Call
    lib: Lib
    name: str
    pos: list[Val]
    kw: dict[str, Val] = field(default_factory=dict)

    method: bool = False

    def emit(self, args, keywords: dict) -> gast.Call:
        """The call with batched operands; for a method call ``args[0]`` is the receiver."""
        if self.method:
            func = gast.Attribute(value=copy.deepcopy(args[0]), attr=self.call.func.attr, ctx=gast.Load())
            args = args[1:]
        else:
            func = copy.deepcopy(self.call.func)
        return gast.Call(func=func, args=[copy.deepcopy(a) for a in args],
                         keywords=[gast.keyword(arg=k, value=copy.deepcopy(v)) for k, v in keywords.items()])

    def get(self, index: int, key: str) -> Val | None:
        if index is not None and index < len(self.pos):
            return self.pos[index]
        return self.kw.get(key)

    def const(self, index: int | None, key: str, default=None):
        """A literal operand (``axis=1``, ``transpose_a=True``), or ``default`` when absent.

        Raises:
            Unsupported: the operand is present but not a literal.
        """
        val = self.get(index, key)
        if val is None:
            return default
        node = val.node
        try:
            import ast as _ast

            return _ast.literal_eval(gast.unparse(node).strip())
        except (ValueError, SyntaxError):
            raise Unsupported(f"`{self.name}`: `{key}` must be a literal") from None

    def unsupported(self, why: str) -> Unsupported:
        return Unsupported(f"`{self.name}`: {why}")


def batch_axis(axis: int, depth: int) -> int:
    """Shifts a per-iteration axis past the loop axes; negative axes count from the end and stay."""
    return axis + depth if axis >= 0 else axis
