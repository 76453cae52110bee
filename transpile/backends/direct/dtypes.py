"""The dtypes of values of two kinds: a value that is a Python number on some iterations and a
NumPy value on others computes in two dtypes in the loop and in one batched (the float64 of a
``where``). Each value carries what the arrays the loop reads must hold for it to be float64
(:attr:`Val.floaty`) or of a dtype that computes with float64 in float64 (:attr:`Val.wide`),
and arithmetic on a value of two kinds records which the check in front must ask
(``emitter._default_dtypes``), or keeps the loop. NumPy's promotion rules (NEP 50) decide:
float64 beside an int or a bool is float64, a Python float beside a float32 is float32."""

from __future__ import annotations

import gast

from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import LOOSE, STRICT, Unsupported, Val
from pforge.transpile.backends.direct.shared import Ind
from pforge.transpile.spaces import constant_int

#: functions whose result is float64 for float64 arguments (an int8's square root is float16)
FLOAT_VALUED = {f"numpy.{f}" for f in ("sqrt exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos "
                                       "arctan sinh cosh tanh arcsinh arccosh arctanh").split()}
#: functions whose result is float64 for float64, int and bool arguments (:meth:`DtypesMixin._kinds`)
_FLOAT_RESULT = {f"numpy.{f}" for f in "mean average std var true_divide divide linspace nanmean".split()}
#: functions whose result is float64 where an argument is (NumPy's promotion to the widest)
_FLOAT_KEEPING = {f"numpy.{f}" for f in (
    "sum prod max min amax amin nansum nanmax nanmin abs absolute fabs maximum minimum fmax fmin dot matmul "
    "clip cumsum cumprod square negative round around floor ceil trunc rint sign transpose reshape ravel "
    "asarray array squeeze expand_dims concatenate stack hstack vstack where einsum outer inner tensordot "
    "sort take power add subtract multiply diff flip roll copy median percentile quantile").split()} | {
    "builtins.abs", "builtins.min", "builtins.max", "builtins.sum"}
_FLOAT_KEEPING_METHODS = frozenset("sum prod max min mean std var cumsum cumprod dot transpose reshape ravel "
                                   "squeeze copy flatten round clip".split())



class DtypesMixin:
    """:attr:`Val.floaty` and :attr:`Val.wide` of the values :meth:`ExpressionsMixin.ev`
    computes, and the checks arithmetic on values of two kinds needs."""

    def _seen(self, child) -> Val | None:
        """The Val :meth:`ev` gave ``child``, a node of the loop body, if it evaluated it."""
        entry = self.seen_vals.get(id(child))
        return entry[1] if entry is not None and entry[0] is child else None

    def _kinds(self, node, result: Val) -> tuple[int, int]:
        """:attr:`Val.floaty` and :attr:`Val.wide` of ``node`` (of the loop body, batched as
        ``result``), from the kinds of its operands, which :meth:`ev` saw before it (NumPy's
        promotion: float64 beside an int or a bool is float64, ints beside ints an int, a
        comparison a bool; a mean or a true division of ints float64, a square root of an
        int8 float16). Unknown is 0."""
        def floaty(child) -> int:
            v = child if isinstance(child, Val) else self._seen(child)
            return 0 if v is None else (LOOSE if v.pytype == "float" else 0) if v.python else v.floaty

        def wide(child) -> int:
            v = child if isinstance(child, Val) else self._seen(child)
            return 0 if v is None else LOOSE if v.python else v.wide

        if result.python:
            return floaty(result), LOOSE
        if isinstance(node, gast.Name):  # an array the loop reads (a loop local's Val says)
            shape = self._shape_of(node.id) if node.id not in self.env else None
            if shape is None or shape.rank is None:
                return 0, 0
            # (checked in front: float64 or, at rank 0, a Python number; :meth:`_default_dtypes`)
            if shape.rank == 0 and self._module_float(node.id):
                return LOOSE, LOOSE  # `force = 5.0` at module level
            return (STRICT, LOOSE) if shape.rank >= 1 else (0, LOOSE)
        if isinstance(node, gast.Subscript):
            return floaty(node.value), wide(node.value)
        if isinstance(node, gast.Attribute):
            return (floaty(node.value), wide(node.value)) if node.attr in ("T", "real", "flat") else (0, 0)
        if isinstance(node, gast.Compare):
            return 0, LOOSE
        if isinstance(node, gast.BinOp):
            both = min(wide(node.left), wide(node.right))
            if isinstance(node.op, gast.Div):
                return both, both
            if isinstance(node.op, (gast.BitAnd, gast.BitOr, gast.BitXor, gast.LShift, gast.RShift, gast.MatMult)):
                return 0, both
            return min(both, max(floaty(node.left), floaty(node.right))), both
        if isinstance(node, gast.UnaryOp):
            if isinstance(node.op, gast.Not):
                return 0, LOOSE
            return (floaty(node.operand) if not isinstance(node.op, gast.Invert) else 0), wide(node.operand)
        if isinstance(node, gast.Call):
            if any(k.arg == "dtype" for k in node.keywords) or any(isinstance(a, gast.Starred) for a in node.args):
                return 0, 0
            name = self.ctx.imports.resolve(node.func)
            method = node.func.attr if name is None and isinstance(node.func, gast.Attribute) else None
            args = [node.func.value] if method else list(node.args)
            if not args:
                return 0, 0
            first = args[0]
            if isinstance(first, gast.Name) and first.id in self.selections:
                first = self.selections[first.id][1]  # the array a selection takes its rows from
            if name in _FLOAT_RESULT or method in ("mean", "std", "var"):
                return wide(first), wide(first)
            if name in FLOAT_VALUED:  # (of an int8 or a bool, float16)
                level = LOOSE if self._python_real(first) else floaty(first)
                return level, level
            if name in ("builtins.min", "builtins.max"):
                # Python's min and max return one operand as it is, not promoted with the other
                # (`max(x[i], -2.5)` of an int array is an int wherever `x[i]` wins): a float64
                # value on every iteration only where each operand is
                both = min((wide(a) for a in args), default=0)
                return min([both] + [floaty(a) for a in args]), both
            if name in _FLOAT_KEEPING or method in _FLOAT_KEEPING_METHODS:
                values = [first, *args[1:]][(name == "numpy.where"):]  # (`where`'s test is no value of it)
                both = min((wide(a) for a in values), default=0)
                return min(both, max((floaty(a) for a in values), default=0)), both
        return 0, 0

    def _merged(self, node, full, rank, a: Val, b: Val, one_type: bool = False) -> Val:
        """:func:`core.merged` of ``a`` and ``b`` (``node``, their ``where``), where NumPy
        values whose dtypes may differ are of two kinds too: ``(x[i] if c else y[i]) * 2`` of
        a uint8 ``x`` wraps in the loop on the iterations that take ``x[i]``, where the batched
        ``where`` of uint8 and int64 is int64 (a float32 arm rounds as float32, a number ``k``
        of a kind the code does not show computes as whatever it is). Of one dtype: arms read
        from one array (``x[i] if c else x[i - 1]``), or comparisons. Where both would be
        float64 if the arrays read are, the value is :data:`core.FLOAT_ARMS` (computing with it
        checks that in front), else :data:`core.INT_ARM`. ``one_type``: the two are of one type
        whatever they are (a wrap-around variable's start, checked in front to be of the type
        of its later values)."""
        if self._np and not one_type and not (a.python or b.python or a.mixed or b.mixed) and not _one_dtype(a.node, b.node):
            kind = (core.FLOAT_ARMS_LOOSE if a.floaty == b.floaty == LOOSE else core.FLOAT_ARMS) \
                if a.floaty and b.floaty else core.INT_ARM
            a = a.with_node(a.node, mixed=kind)
        return core.merged(node, full, rank, a, b)

    def _python_real(self, node) -> bool:
        """Whether ``node`` is a Python int or float, or a float64 scalar, on every iteration,
        never a bool or a complex (NumPy's functions take those to float64): a number of that
        type, the loop index, or arithmetic on Python numbers, among them the invariant
        scalars checked in front to be ints, floats, bools or float64 (:meth:`_default_dtypes`;
        ``True - True`` is the int 0). ``i - ox`` batched is an array, and these are its
        iterations' values."""
        v = self._seen(node)
        if v is not None and v.python and v.pytype in ("int", "float"):
            return True
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float)
        if isinstance(node, gast.Name):
            return isinstance(self.env.get(node.id), Ind)
        if isinstance(node, gast.BinOp) and (
                isinstance(node.op, (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod))
                or isinstance(node.op, gast.Pow) and (constant_int(node.right) or -1) >= 0):
            return all(self._python_number(c) for c in (node.left, node.right))
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return self._python_number(node.operand)
        return False

    def _python_number(self, node) -> bool:
        """A Python int, float or bool, or a float64 scalar, on every iteration (see
        :meth:`_python_real`)."""
        v = self._seen(node)
        if v is not None and v.python and v.pytype == "bool":
            return True
        if isinstance(node, gast.Name) and node.id not in self.env:
            shape = self._shape_of(node.id)
            return shape is not None and shape.rank == 0  # (checked in front)
        return self._python_real(node)

    def _mixed_operands(self, node, kind, operands) -> None:
        """Records what the arrays the loop reads must hold (:meth:`_default_dtypes`) for
        ``node``, which computes with a value of two kinds (``kind``, its :attr:`Val.mixed`)
        and with ``operands``, to compute as the batched float64 ``where`` does; raises
        Unsupported where nothing makes it so (a float32 operand: a Python float beside it
        computes in float32, a float64 one in float64)."""
        level = LOOSE if kind == core.FLOAT_ARMS_LOOSE else STRICT
        for operand in operands:
            v = self._seen(operand)
            if v is None:
                raise Unsupported(f"`{gast.unparse(node).strip()}` computes with a value that is a Python number "
                                  "on some iterations and a NumPy value on others, and with an operand of "
                                  "unknown dtype")
            if v.mixed or v.python or level == LOOSE and (v.floaty == LOOSE or v.wide == LOOSE):
                continue
            if v.floaty or v.wide and (kind in (core.FLOAT_ARMS, core.FLOAT_ARMS_LOOSE) or isinstance(
                    node, gast.BinOp) and isinstance(node.op, gast.Div)):
                # (an int or bool beside a Python int arm computes as an int: `0 * -1` is 0, the
                # batched `0.0 * -1.0` -0.0; a true division is a float division either way)
                level = STRICT
                continue
            raise Unsupported(f"`{gast.unparse(node).strip()}` computes with a value that is a Python number "
                              f"on some iterations and a NumPy value on others, and with `"
                              f"{gast.unparse(operand).strip()}`, which may not be float64: a Python float "
                              "beside a float32 value computes in float32")
        self._check_float64(level)

    def _check_float64(self, level: int) -> None:
        """Asks the check in front (:meth:`_default_dtypes`) that the arrays the loop reads hold
        float64 values (:data:`core.STRICT`), or also ints and bools (:data:`core.LOOSE`): the
        stricter of what is asked so far."""
        self.mixed_arithmetic = level if not self.mixed_arithmetic else min(self.mixed_arithmetic, level)


def _array_read(node) -> str | None:
    """The array ``node`` reads elements of as they are (``x[i]``, ``np.asarray(x)[:n]``,
    ``-x[i]``), keeping its dtype, or None."""
    while True:
        if isinstance(node, gast.Subscript):
            node = node.value
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            node = node.operand
        elif isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords \
                and isinstance(node.func, gast.Attribute) and node.func.attr in ("asarray", "abs", "absolute"):
            node = node.args[0]
        else:
            return node.id if isinstance(node, gast.Name) else None


def _one_dtype(a, b) -> bool:
    """Whether the batched values ``a`` and ``b`` (nodes) hold one dtype on every iteration:
    elements of one array, or two comparisons (bools)."""
    if isinstance(a, gast.Compare) and isinstance(b, gast.Compare):
        return True
    base = _array_read(a)
    return base is not None and base == _array_read(b)
