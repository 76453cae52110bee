"""State and helpers the lowering mixins of :mod:`.emitter` share: loop indices, levels of the
nest, appends waiting for their ``if`` to merge, and the reduction tables and small AST helpers
several constructs use."""

from __future__ import annotations

from dataclasses import dataclass

import gast

from pforge.transpile.analysis import LoopInfo
from pforge.transpile.analysis.reductions import NEW_ARRAYS
from pforge.transpile.backends.direct.core import Val
from pforge.transpile.operators import OPERATORS

#: the library reduction of each operator, by library (one table: :mod:`pforge.transpile.operators`)
_REDUCE_FN = {"tf": {name: op.tf_reduce for name, op in OPERATORS.items()},
              "np": {name: op.np_reduce for name, op in OPERATORS.items()}}


@dataclass
class ObjectRows:
    """The item of ``for st in learners``, a list of objects, where the loop reads only their
    attributes (``st.alpha``): each attribute read is gathered into a list before the batched
    code (``st_alpha = [st.alpha for st in learners]``) and batched as its elements."""

    seq: gast.expr
    target: str


#: attributes of an array, which an object's rows do not stand for
ARRAY_ATTRIBUTES = frozenset({"T", "shape", "dtype", "real", "imag", "ndim", "size", "flat", "mT"})


@dataclass
class Ind:
    """A loop index used as a subscript: ``start + step*k`` for the loop axis of ``level``."""

    level: int  # 1-based depth of the loop that defines it
    name: str
    start: gast.expr | None
    stop: gast.expr
    step: gast.expr | None
    length_of: str | None = None  # the index runs over every row of this array
    widest: gast.expr | None = None  # the largest stop of a ragged range, as the source spells it


@dataclass
class Shifted(Ind):
    """``i + k`` (``k`` an int) as a subscript: the loop index moved by ``k``, a slice that
    starts ``k`` later (``x[i - 1]`` over ``range(1, n)`` reads ``x[0:n - 1]``); ``source`` is
    the expression, which is what a value of it is (``i`` itself keeps its own range)."""

    source: gast.expr | None = None


@dataclass
class _Pending:
    mask: Val | None
    value: Val


@dataclass
class _Level:
    info: LoopInfo
    depth: int
    out_start: int
    ind: Ind | None = None
    bound: bool = False
    entry_mask: object = None  # the mask of the enclosing levels where this one starts (a Val)
    triangle: tuple | None = None  # ("tril" or "triu", k, mask): a triangular space's mask is np.tri's


def _loads(node) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _components(index):
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


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


#: NumPy calls whose result may be a view of their first argument
_VIEW_CALLS = frozenset("asarray reshape ravel moveaxis swapaxes transpose squeeze expand_dims broadcast_to "
                        "atleast_1d atleast_2d atleast_3d diagonal real imag".split())


def may_be_view(node) -> bool:
    """Whether the batched value ``node`` may share memory with an array it reads (``x``,
    ``x[:n]``, ``np.asarray(x)``, ``x.T``), where arithmetic makes a new array."""
    while True:
        if isinstance(node, gast.Name):
            return True
        if isinstance(node, gast.Subscript):
            node = node.value
        elif isinstance(node, gast.Attribute) and node.attr in ("T", "real", "imag"):
            node = node.value
        elif isinstance(node, gast.Call) and node.args and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _VIEW_CALLS:
            node = node.args[0] if isinstance(node.func.value, gast.Name) and node.func.value.id in ("np", "numpy") \
                else node.func.value
        else:
            return False

def _new_array(ctx, value) -> bool:
    """``np.zeros(...)`` and the like: a new NumPy array, whose shape ``+=`` keeps."""
    return isinstance(value, gast.Call) and ctx.imports.resolve(value.func) in NEW_ARRAYS



def _bound_spelled(bound, array: str, end: bool) -> str | None:
    """A slice bound of ``array``'s first axis, normalized: ``"0"`` for None or ``0`` at the
    start, ``"end"`` for None, ``len(array)`` or ``array.shape[0]`` at the end, else its text."""
    if bound is None:
        return "end" if end else "0"
    text = gast.unparse(bound).strip()
    if end and text in (f"len({array})", f"{array}.shape[0]"):
        return "end"
    return text


def same_rows(a, b) -> bool:
    """``a`` and ``b`` are the same rows of one array by name, spelled alike or not:
    ``x[1:len(x)]`` and ``x[1:]``, ``x[0:x.shape[0]]`` and ``x[:]`` (one slice of the first
    axis, step 1): a store of one into the other changes nothing."""
    if not all(isinstance(s, gast.Subscript) and isinstance(s.value, gast.Name) and isinstance(s.slice, gast.Slice)
               and (s.slice.step is None or gast.unparse(s.slice.step).strip() == "1") for s in (a, b)) \
            or a.value.id != b.value.id:
        return False
    name = a.value.id
    return all(_bound_spelled(getattr(a.slice, part), name, part == "upper")
               == _bound_spelled(getattr(b.slice, part), name, part == "upper") for part in ("lower", "upper"))


def whole_rows(node) -> bool:
    """``node`` is all of an array by name: ``x[0:len(x)]``, ``x[:]`` (:func:`same_rows`)."""
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and same_rows(
        node, gast.Subscript(value=node.value, slice=gast.Slice(lower=None, upper=None, step=None), ctx=gast.Load()))
