"""Reduction operators: one row per operator, read by the analyses and by both printers.

A reduction ``s ⊕= t`` is recognised from the spellings of its row (``aug``, ``binop``,
``boolop``, ``calls``), masked with its ``identity`` under a per-iteration ``if``, and printed
with its library reductions (``np_reduce``/``tf_reduce``) and its fold into the running value.
Adding an operator is one row here and one case in ``tests/test_vplan.py::OPERATOR_CASES``
(docs/architecture.md walks through it).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast


@dataclass(frozen=True)
class ReductionOp:
    """One reduction operator.

    Attributes:
        name: ``add``, ``mul``, ``max``, ``min``, ``logaddexp``, ``or``, ``and``.
        aug: augmented-assignment operators that spell it (``s += t``, ``s -= t``).
        binop: binary operators of the spelled-out form (``s = s + t``, ``s = s - t``).
        boolop: the boolean operator of ``s = s or t`` (None when it has none).
        calls: qualified callees of ``s = f(s, t)``.
        identity: the term that changes nothing (a masked-off iteration contributes it), or
            None when there is none (``max``/``min``: the running value stands in for it).
        np_reduce, tf_reduce: the batched reduction over the loop axis (``np.sum``,
            ``tf.reduce_sum``).
        tf_fold: how the pfor printer folds the reduced terms ``{r}`` into the running value
            ``{s}``; ``{tf}`` is TensorFlow's local name.
        tf_guard: the pfor printer's term, with the running value inside the reduction
            (``tf.maximum(t, s)``): Grappler hoists a monotonic op out of ``reduce_max``,
            which over zero iterations gives ``tanh(-inf)`` instead of the running value.
        np_scatter: the NumPy ufunc whose ``.at`` combines colliding indices (``np.add.at``).
        exact: a batched reduction gives the loop's bits (reassociation changes nothing).
        boolean: the terms must be booleans (Python's ``or`` returns an operand).
    """

    name: str
    aug: tuple[type, ...]
    binop: tuple[type, ...]
    boolop: type | None
    calls: tuple[str, ...]
    identity: object | None
    np_reduce: str
    tf_reduce: str
    tf_fold: str
    tf_guard: str | None
    np_scatter: str | None
    exact: bool
    boolean: bool = False

    @property
    def identity_text(self) -> str:
        """The identity as source text (``0``, ``False``, ``float('-inf')``)."""
        if isinstance(self.identity, float) and self.identity in (float("inf"), float("-inf")):
            return f"float({str(self.identity)!r})"
        return repr(self.identity)


OPERATORS: dict[str, ReductionOp] = {op.name: op for op in (
    ReductionOp("add", (gast.Add, gast.Sub), (gast.Add, gast.Sub), None, (), 0, "sum", "reduce_sum",
                "{s} + {r}", None, "add", exact=False),
    ReductionOp("mul", (gast.Mult,), (gast.Mult,), None, (), 1, "prod", "reduce_prod",
                "{s} * {r}", None, "multiply", exact=False),
    ReductionOp("max", (), (), None,
                ("builtins.max", "tensorflow.maximum", "tensorflow.math.maximum", "numpy.maximum",
                 "numpy.fmax"),
                None, "max", "reduce_max", "{tf}.maximum({s}, {r})", "{tf}.maximum({t}, {s})", None,
                exact=True),
    ReductionOp("min", (), (), None,
                ("builtins.min", "tensorflow.minimum", "tensorflow.math.minimum", "numpy.minimum",
                 "numpy.fmin"),
                None, "min", "reduce_min", "{tf}.minimum({s}, {r})", "{tf}.minimum({t}, {s})", None,
                exact=True),
    # s = np.logaddexp(s, t): a log-space sum (log-likelihoods, log-partition functions).
    ReductionOp("logaddexp", (), (), None, ("numpy.logaddexp",), float("-inf"), "logaddexp.reduce",
                "reduce_logsumexp", "{tf}.reduce_logsumexp({tf}.stack([{s}, {r}]), axis=0)", None, None,
                exact=False),
    ReductionOp("or", (gast.BitOr,), (), gast.Or, (), False, "any", "reduce_any",
                "{tf}.logical_or({s}, {r})", None, "bitwise_or", exact=True, boolean=True),
    ReductionOp("and", (gast.BitAnd,), (), gast.And, (), True, "all", "reduce_all",
                "{tf}.logical_and({s}, {r})", None, "bitwise_and", exact=True, boolean=True),
)}

#: augmented (and spelled-out binary) operator type -> operator name
AUG_OPS: dict[type, str] = {t: op.name for op in OPERATORS.values() for t in op.aug}
BINOPS: dict[type, str] = {t: op.name for op in OPERATORS.values() for t in op.binop}
BOOLOPS: dict[type, str] = {op.boolop: op.name for op in OPERATORS.values() if op.boolop is not None}
#: qualified callee -> operator name (``s = np.maximum(s, t)``)
CALLS: dict[str, str] = {c: op.name for op in OPERATORS.values() for c in op.calls}


def pfor_formula(op: ReductionOp, running: str, terms: str, tf: str) -> str:
    """``running`` after folding in the stacked ``terms`` (axis 0), as the pfor printer writes it."""
    inner = op.tf_guard.format(t=terms, s=running, tf=tf) if op.tf_guard else terms
    reduced = f"{tf}.{op.tf_reduce}({inner}, axis=0)"
    if op.name in ("max", "min"):
        # (the loop's `tf.maximum(0, t)` converts the Python number to `t`'s dtype; in a graph,
        # `tf.maximum(0, r)` converts it first, to int32, and raises)
        running = f"{tf}.convert_to_tensor({running}, {terms}.dtype)"
    return op.tf_fold.format(s=running, r=reduced, tf=tf)


#: comparison operators on two known integers (a rank, a constant): ``if x.ndim == 1`` decided
INT_COMPARISONS = {gast.Eq: int.__eq__, gast.NotEq: int.__ne__, gast.Lt: int.__lt__, gast.LtE: int.__le__,
                   gast.Gt: int.__gt__, gast.GtE: int.__ge__}
