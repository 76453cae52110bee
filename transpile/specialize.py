"""Run-time checks that a call signature decides: a rewrite specialized to its arguments' kinds.

``pforge.vectorize`` transpiles a function once per input signature: per argument its exact
type, and for a NumPy array or scalar its dtype and rank (``runtime.signatures``). For that
signature, a check such as ``type(x) is np.ndarray``, ``x.dtype.char in "fdFD"`` or
``y.dtype == x.dtype`` has one value on every call, so it is worked out once here instead of on
every call: true, it goes; false, the rewrite never runs for that signature and the loop stays
as written. A check that reads anything a signature leaves open (a size, an element, a list's
items, a local) stays as it is. This is specialization on argument kinds, as a JIT compiler
guards a trace on its arguments' types (TensorFlow's ``tf.function`` retraces per input
signature; JAX's ``jit`` per abstract value): the signature is the guard, checked by the
decorator before the call.

A parameter's kind is known where the loop starts only when nothing in the function binds it
again or sets one of its attributes (``x.shape = ...``, ``x.dtype = ...``).
"""

from __future__ import annotations

import builtins
import copy
import operator

import gast

#: a signature's kinds, as ``runtime.signatures`` keys them: ``("ndarray", dtype, ndim, empty)``
#: (an exact ``np.ndarray``, dtype as ``np.dtype.str``, and the axes of length 0, in order;
#: a kind of three items leaves every length open), ``("npscalar", dtype)`` (a NumPy scalar),
#: ``("number", "int" | "float" | "complex" | "bool")`` (a Python number of exactly that type)
Kind = tuple

#: builtins a check may call, and types it may name (pforge's checks never shadow them)
_BUILTIN_FUNCTIONS = frozenset(("type", "isinstance", "len"))
_BUILTIN_TYPES = frozenset(("int", "float", "complex", "bool", "str", "bytes", "list", "tuple", "dict", "set"))
#: NumPy attributes the checks name: types, and the functions of kinds alone they call
_NUMPY_TYPES = frozenset(("ndarray", "number", "bool_", "generic", "integer", "floating", "complexfloating",
                          "float64", "int64"))
_NUMPY_FUNCTIONS = frozenset(("asarray", "ndim", "result_type"))
#: attributes of a ``np.dtype`` a check may read, which its ``str`` (the signature's) decides;
#: ``char`` too where no other type code has that ``str`` (:func:`_char_decided`: ``'<i8'`` is
#: ``'l'`` and ``'q'`` on Linux, ``'<f8'`` is ``'d'`` and ``'g'`` where long double is double)
_DTYPE_ATTRIBUTES = frozenset(("char", "kind", "str", "name", "itemsize"))
_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_, gast.IsNot: operator.is_not,
            gast.In: lambda a, b: a in b, gast.NotIn: lambda a, b: a not in b, gast.Lt: operator.lt,
            gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge}


class _Open(Exception):
    """The signature leaves the value open."""


class _Argument:
    """A parameter whose kind the signature gives: its stand-in (an empty array of its dtype
    and rank, or a NumPy scalar of its type) answers only what the kind decides."""

    def __init__(self, kind: Kind, np):
        self.kind = kind
        if kind[0] == "ndarray":
            self.value = np.empty((0,) * kind[2], np.dtype(kind[1]))
        elif kind[0] == "npscalar":
            self.value = np.dtype(kind[1]).type(0)
        else:
            self.value = getattr(builtins, kind[1])(0)

    @property
    def array_like(self) -> bool:
        return self.kind[0] in ("ndarray", "npscalar")

    def extent(self, axis: int) -> "_Extent":
        """The length of ``axis`` (negative: from the end); raises :class:`_Open` where the kind
        gives no lengths, or the array has no such axis (the check raises as written)."""
        if self.kind[0] != "ndarray" or len(self.kind) < 4 or not -self.kind[2] <= axis < self.kind[2]:
            raise _Open
        return _Extent(axis % self.kind[2] in self.kind[3])


class _Shape:
    """``x.shape`` of an array argument: each entry is an :class:`_Extent`."""

    def __init__(self, argument: _Argument):
        self.argument = argument


class _Extent:
    """The length of one axis of an array argument, of which the signature says only whether
    it is 0: a comparison with a number decides where it holds for 0 alone, or for every
    length from 1 up (``x.shape[0] > 0``, ``len(x) == 0``), and is left open otherwise."""

    def __init__(self, empty: bool):
        self.empty = empty

    def compare(self, op, number, reflected: bool):
        """``self <op> number`` (``number <op> self`` where ``reflected``): a bool, or raises
        :class:`_Open` where lengths of 1 and more disagree."""
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise _Open
        ask = (lambda n: _COMPARE[op](number, n)) if reflected else (lambda n: _COMPARE[op](n, number))
        if self.empty:
            return bool(ask(0))
        # every length from 1 up: the answer at 1, and at a length past the number, agree, and
        # the answer is monotone between (a comparison of one number with another)
        past = max(int(number), 0) + 2
        if op in (gast.Eq, gast.NotEq) and number >= 1:
            raise _Open
        answers = {bool(ask(1)), bool(ask(past))}
        if len(answers) > 1:
            raise _Open
        return answers.pop()


class _Function:
    """A NumPy function or builtin a check calls, by its name."""

    def __init__(self, name: str):
        self.name = name


def parameter_kinds(ctx, fdef, kinds: dict[str, Kind] | None) -> dict[str, Kind]:
    """The kinds ``kinds`` (keyed ``"f.x"`` for parameter ``x`` of function ``f``) gives the
    parameters of ``fdef`` that hold their arguments wherever the function runs: never bound
    again (assigned, deleted, a loop, ``with`` or ``match`` target, declared ``global`` or
    ``nonlocal``, imported as, or defined as a function or class) and no attribute of them
    set. None at all where ``fdef`` lies in a function of its own name (whose kinds the key
    would name), or where the module sets a ``dtype`` or ``__class__`` attribute or calls
    ``setattr``: an array's dtype changes in place only so, through any name of it (helper-70).
    A kind whose dtype is not a number's (``datetime64``, strings, records) is not used.

    Args:
        ctx: the module's context (its tree and parents).
        fdef: the ``gast.FunctionDef`` holding the loop, or None.
        kinds: the signature's kinds, or None.
    Returns:
        Parameter name -> kind; empty without ``kinds``.
    """
    if not kinds or fdef is None:
        return {}
    from pforge.transpile.analysis.nodes import in_a_namesake  # noqa: PLC0415 - only with kinds

    if in_a_namesake(ctx, fdef):
        return {}
    for node in gast.walk(ctx.tree):
        if isinstance(node, gast.Attribute) and node.attr in ("dtype", "__class__") \
                and isinstance(node.ctx, (gast.Store, gast.Del)) \
                or isinstance(node, gast.Name) and node.id in ("setattr", "__setattr__") \
                or isinstance(node, gast.Attribute) and node.attr == "__setattr__":
            return {}
    arguments = fdef.args
    names = [a.id for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs) if isinstance(a, gast.Name)]
    found = {name: kinds[f"{fdef.name}.{name}"] for name in names if f"{fdef.name}.{name}" in kinds}
    if not found:
        return {}
    bound = set()
    for statement in fdef.body:
        for node in gast.walk(statement):
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                bound.add(node.id)
            elif isinstance(node, gast.Attribute) and isinstance(node.ctx, (gast.Store, gast.Del)) \
                    and isinstance(node.value, gast.Name):
                bound.add(node.value.id)
            elif isinstance(node, (gast.Global, gast.Nonlocal)):
                bound.update(node.names)
            elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, gast.alias):
                bound.add((node.asname or node.name).partition(".")[0])
            elif isinstance(node, (gast.MatchAs, gast.MatchStar)) and node.name:
                bound.add(node.name)
            elif isinstance(node, gast.MatchMapping) and node.rest:
                bound.add(node.rest)
    if any(isinstance(node, gast.Attribute) and node.attr == "resize" for node in gast.walk(ctx.tree)):
        # (`x.resize(...)` changes an array's lengths in place, through any name of it)
        found = {name: kind[:3] if kind[0] == "ndarray" else kind for name, kind in found.items()}
    return {name: kind for name, kind in found.items() if name not in bound and _numbers(kind)}


def _numbers(kind: Kind) -> bool:
    """A kind of numbers: a Python number (``"int"``, ``"float"``, ``"complex"``, ``"bool"``,
    each also NumPy's name of a dtype of that kind), or a NumPy array or scalar whose dtype is
    bool, int, uint, float or complex: those whose stand-ins :class:`_Argument` makes exactly."""
    import numpy as np  # noqa: PLC0415 - only the staged decorator gives kinds, and it has NumPy

    try:
        return np.dtype(kind[1]).kind in ("b", "i", "u", "f", "c")
    except TypeError:
        return False


def decided(tests: list[gast.expr], known: dict[str, Kind], np_alias: str | None) -> list[gast.expr] | None:
    """The conjuncts of a guard, each worked out where the arguments' kinds ``known`` decide it.

    A conjunct that holds for every argument of those kinds goes; an ``and``/``or`` in it loses
    the operands that are decided and cannot decide it, keeping every operand that runs before
    a deciding one (so what raises still raises). Nothing is decided that reads more than a
    kind: a size, an element, a value the signature does not give.

    Args:
        tests: the guard's conjuncts, in the order they run.
        known: parameter name -> kind (:func:`parameter_kinds`).
        np_alias: NumPy's name in the module (None: the checks do not name NumPy).
    Returns:
        The conjuncts left (maybe none: the rewrite needs no check), or None where one is false
        for every argument of those kinds: the rewrite never runs for this signature.
    """
    if not known:
        return tests
    import numpy as np  # noqa: PLC0415 - only the staged decorator gives kinds, and it has NumPy

    scope = {name: _Argument(kind, np) for name, kind in known.items()}
    kept = []
    for test in tests:
        folded = _fold(_respelled(test, scope, np_alias, np), scope, np_alias, np)
        if folded is False:
            return None
        if folded is not True:
            kept.append(folded)
    return kept


def _respelled(test: gast.expr, scope: dict, np_alias, np) -> gast.expr:
    """``test`` with each conditional expression whose test the kinds decide replaced by the
    branch it takes (``A if not isinstance(x, (list, tuple)) else B`` of an array: ``A``), and
    ``np.asarray(x)``, ``np.shape(x)`` and ``np.ndim(x)`` of an array ``x`` spelled ``x``,
    ``x.shape`` and ``x.ndim`` (``versioning._spelled_for_arrays``); a copy where anything
    changes."""
    from pforge.transpile.versioning import _spelled_for_arrays  # noqa: PLC0415 - it imports this module

    class Taken(gast.NodeTransformer):
        def visit_IfExp(self, node):
            self.generic_visit(node)
            try:
                taken = bool(_value(node.test, scope, np_alias, np))
            except _Open:
                return node
            return node.body if taken else node.orelse

    # (the guard's conjuncts are in their order already: a copy need not keep their marks)
    arrays = {name: np_alias for name, argument in scope.items() if argument.kind[0] == "ndarray"}
    return _spelled_for_arrays(Taken().visit(copy.deepcopy(test)), arrays)


def _fold(node: gast.expr, scope: dict, np_alias, np):
    """``node`` read for its truth: True or False where the kinds decide it, else the node with
    its decided operands gone (an operand of a ``not`` or an ``and``/``or`` that is left open
    is decided itself only as a whole, so a ``not`` of one is never a bare bool)."""
    try:
        return bool(_value(node, scope, np_alias, np))
    except _Open:
        pass
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return gast.UnaryOp(op=gast.Not(), operand=_fold(node.operand, scope, np_alias, np))
    if not isinstance(node, gast.BoolOp):
        return node
    absorbing = isinstance(node.op, gast.Or)  # (the truth that decides the whole)
    values: list[gast.expr] = []
    for value in node.values:
        folded = _fold(value, scope, np_alias, np)
        if folded is absorbing:
            if not values:
                return absorbing
            values.append(gast.Constant(value=absorbing, kind=None))
            break  # (no later operand runs)
        if folded is not (not absorbing):
            values.append(folded)
    if not values:
        return not absorbing
    return values[0] if len(values) == 1 else gast.BoolOp(op=node.op, values=values)


def _value(node: gast.expr, scope: dict, np_alias, np):
    """The value of ``node`` for every argument of the kinds in ``scope``; raises :class:`_Open`
    where the kinds leave it open, or where working it out raises (the check then runs, and
    raises, as written)."""
    try:
        found = _evaluate(node, scope, np_alias, np)
    except _Open:
        raise
    except Exception as exc:  # noqa: BLE001 - whatever a check raises, it raises at run time too
        raise _Open from exc
    if isinstance(found, (_Argument, _Function, _Shape, _Extent)):
        raise _Open
    return found


def _evaluate(node, scope, np_alias, np):
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.Tuple) and isinstance(node.ctx, gast.Load):
        return tuple(_value(e, scope, np_alias, np) for e in node.elts)
    if isinstance(node, gast.Name):
        if node.id in scope:
            return scope[node.id]
        if node.id == np_alias:
            return np
        if node.id in _BUILTIN_FUNCTIONS:
            return _Function(node.id)
        if node.id in _BUILTIN_TYPES:
            return getattr(builtins, node.id)
        raise _Open
    if isinstance(node, gast.Attribute):
        base = _evaluate(node.value, scope, np_alias, np)
        if isinstance(base, _Argument):
            if base.array_like and node.attr in ("dtype", "ndim"):
                return getattr(base.value, node.attr)
            if base.kind[0] == "ndarray" and node.attr == "shape":
                return _Shape(base)
            raise _Open
        if base is np:
            if node.attr in _NUMPY_TYPES:
                return getattr(np, node.attr)
            if node.attr in _NUMPY_FUNCTIONS:
                return _Function(node.attr)
            raise _Open
        if isinstance(base, np.dtype) and node.attr in _DTYPE_ATTRIBUTES \
                and (node.attr != "char" or _char_decided(base, np)):
            return getattr(base, node.attr)
        raise _Open
    if isinstance(node, gast.Call):
        function = _evaluate(node.func, scope, np_alias, np)
        if not isinstance(function, _Function) or node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
            raise _Open
        args = [_evaluate(a, scope, np_alias, np) for a in node.args]
        return _called(function, args, np)
    if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
        base = _evaluate(node.value, scope, np_alias, np)
        index = node.slice
        negative = isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub)  # (`x.shape[-1]`)
        index = _value(index.operand if negative else index, scope, np_alias, np)
        if isinstance(base, _Shape) and type(index) is int:
            index = -index if negative else index
            return base.argument.extent(index)
        raise _Open
    if isinstance(node, gast.Compare):
        left = _compared(node.left, scope, np_alias, np)
        for op, right_node in zip(node.ops, node.comparators):
            right = _compared(right_node, scope, np_alias, np)
            if isinstance(left, _Extent) and not isinstance(right, _Extent):
                holds = left.compare(type(op), right, reflected=False)
            elif isinstance(right, _Extent) and not isinstance(left, _Extent):
                holds = right.compare(type(op), left, reflected=True)
            elif isinstance(left, _Extent) or isinstance(right, _Extent):
                raise _Open  # (two lengths: the signature does not order them)
            else:
                holds = bool(_COMPARE[type(op)](left, right))
            if not holds:
                return False
            left = right
        return True
    if isinstance(node, gast.BoolOp):  # (Python's value of it: the deciding operand's, else the last's)
        *before, last = node.values
        for value in before:
            result = _value(value, scope, np_alias, np)
            if bool(result) is isinstance(node.op, gast.Or):
                return result
        return _value(last, scope, np_alias, np)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return not _value(node.operand, scope, np_alias, np)
    raise _Open


def _compared(node, scope, np_alias, np):
    """An operand of a comparison: its value, or the :class:`_Extent` of an array's axis
    (what else it raises, the whole check's :func:`_value` turns into :class:`_Open`)."""
    found = _evaluate(node, scope, np_alias, np)
    if isinstance(found, (_Argument, _Function, _Shape)):
        raise _Open
    return found


def _char_decided(dtype, np) -> bool:
    """Whether ``dtype.str`` decides ``dtype.char``: no other type code of this platform's
    NumPy gives a dtype of that ``str``."""
    return sum(1 for code in np.typecodes["All"] if np.dtype(code).str == dtype.str) == 1


def _called(function: _Function, args: list, np):
    """A call of a builtin or NumPy function a check makes, where its arguments' kinds decide
    its value: ``type(x)``, ``isinstance(x, T)``, ``np.ndim(x)`` of a number, and
    ``np.result_type`` of dtypes, types, constants and arrays (never of a Python number
    argument, whose dtype NumPy takes from its value). ``np.asarray(x)`` and ``np.ndim(x)`` of
    an array were spelled ``x`` and ``x.ndim`` before (:func:`_respelled`)."""
    name = function.name
    if name == "type" and len(args) == 1 and isinstance(args[0], _Argument):
        return type(args[0].value)
    if name == "isinstance" and len(args) == 2 and isinstance(args[0], _Argument):
        return isinstance(args[0].value, _value_of(args[1]))
    if name == "ndim" and len(args) == 1 and isinstance(args[0], _Argument):
        return np.ndim(args[0].value)
    if name == "len" and len(args) == 1 and isinstance(args[0], _Argument):
        return args[0].extent(0)
    if name == "result_type":
        values = []
        for arg in args:
            if isinstance(arg, _Argument):
                if not arg.array_like:
                    raise _Open
                arg = arg.value
            values.append(_value_of(arg))
        return np.result_type(*values)
    raise _Open


def _value_of(found):
    """``found`` as a plain value: never a stand-in or a function."""
    if isinstance(found, (_Argument, _Function, _Shape, _Extent)):
        raise _Open
    return found
