"""Relaxed input signatures for ``pforge.vectorize``: what a call's arguments are.

Per argument its kind, dtype and rank (never a dimension: for a NumPy array, only which axes
are empty), the pairs of arguments that share memory, and the same for what the function
reads without binding it (closure cells, module globals, ``self`` attributes, the module
helpers the rewrite inlines). Also what those keys allow: the ranks the transpiler may be
given, and whether ``tf.function`` keeps the meaning.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import sys
import types
import warnings


class _Helper:
    """A module function a decorated function calls: its key is its identity."""

    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function


_MISSING = object()


def _arg_key(value) -> tuple:
    """The relaxed key of one argument: kind, dtype and rank, and for a NumPy array which axes
    have length 0; never a dimension otherwise."""
    keyer = _KEYERS.get(type(value))
    if keyer is None:
        keyer = _keyer(type(value))
    return keyer(value)


#: per argument type, the function computing its key (what it depends on is the type alone)
_KEYERS: dict[type, object] = {}


def _keyer(kind: type):
    """The key function of arguments of type ``kind``, remembered in ``_KEYERS``."""
    np, tf = sys.modules.get("numpy"), sys.modules.get("tensorflow")
    if kind in (bool, int, float, complex):
        key = ("number", kind.__name__)
        keyer = lambda value: key  # noqa: E731
    elif kind is type(None):
        keyer = lambda value: ("none",)  # noqa: E731
    elif np is not None and kind is np.ndarray:  # a subclass (np.matrix, masked) has its own rules
        _HOLDERS.add(np.ndarray)
        # (and the axes of length 0: a check that an axis is empty or not is then decided,
        # `transpile.specialize`; a new batch size of one or more is the same key)
        keyer = lambda value: ("ndarray", value.dtype.str, value.ndim,  # noqa: E731
                               tuple(k for k, d in enumerate(value.shape) if d == 0) if 0 in value.shape else ())
    elif np is not None and issubclass(kind, np.generic):
        keyer = lambda value: ("npscalar", value.dtype.str)  # noqa: E731
    elif tf is not None and issubclass(kind, tf.Variable):  # written in place: the object is the key
        keyer = lambda value: ("variable", value.dtype, value.shape.rank, id(value))  # noqa: E731
    elif tf is not None and issubclass(kind, tf.Tensor):
        keyer = lambda value: ("tensor", value.dtype, value.shape.rank)  # noqa: E731 - a tf.DType
    elif tf is not None and issubclass(kind, (tf.RaggedTensor, tf.SparseTensor)):
        key = ("composite", f"tf.{kind.__name__}")
        keyer = lambda value: key  # noqa: E731
    elif kind in (list, tuple):
        keyer = _sequence_key
    elif kind is _Helper:
        keyer = lambda value: ("helper", id(value.function))  # noqa: E731
    else:
        key = ("object", kind.__module__, kind.__qualname__)
        keyer = lambda value: key  # noqa: E731
    if np is not None and tf is not None:  # a later import of either could change the answer
        _KEYERS[kind] = keyer
    elif kind in (bool, int, float, complex, type(None), list, tuple):
        _KEYERS[kind] = keyer
    return keyer


def _sequence_key(value) -> tuple:
    """A list or tuple: the keys of its items where every one is a tensor or a ``tf.Variable``
    (``[w, b]``, a model's variables: ``tf.function`` takes the list as a structure of
    tensors), else its rank and dtype as NumPy would convert it, when it holds numbers."""
    tf = sys.modules.get("tensorflow")
    if tf is not None and value and len(value) <= 64 and all(isinstance(v, (tf.Tensor, tf.Variable)) for v in value):
        return ("tensors", type(value).__name__, tuple(_arg_key(v) for v in value))
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                array = np.asarray(value)
        except Exception:  # noqa: BLE001 - an element NumPy cannot convert: not numbers
            array = None
        if array is not None and array.dtype.kind in "biuf":
            return ("sequence", type(value).__name__, array.dtype.str, array.ndim)
    return ("sequence", type(value).__name__, None, None)


def _signature_key(names, values, free=()) -> tuple:
    """``(per-argument keys, pairs of positions that share memory, free data keys)``.

    ``free`` is ``StagedFunction._free_values``: only the values that hold data (numbers,
    arrays, tensors, lists of numbers) enter the key. Positions count the arguments first,
    then the free values kept.
    """
    keys = tuple([_arg_key(v) for v in values])
    if free:
        kept = [(label, v, k) for label, v in free if (k := _arg_key(v))[0] in _DATA]
        free_keys = tuple((label, k) for label, _, k in kept)
        everything = list(values) + [v for _, v, _ in kept]
    else:
        free_keys, everything = (), values
    np = sys.modules.get("numpy")
    parts = [(position, part) for position, value in enumerate(everything) if type(value) in _HOLDERS
             for part in _mutable_parts(value, np)]
    if len(parts) < 2:  # nothing a loop writes can be shared (tensors, numbers: the usual call)
        return keys, (), free_keys
    owners: dict[int, set] = {}
    for position, part in parts:
        owners.setdefault(id(_root(part, np)), set()).add(position)
    shared = tuple(sorted({pair for positions in owners.values() if len(positions) > 1
                           for pair in itertools.combinations(sorted(positions), 2)}))
    return keys, shared, free_keys


#: the types whose values can hold something a loop writes in place (checked for sharing)
_HOLDERS = {list, tuple, dict}


def _root(part, np):
    """The array that owns ``part``'s memory (``x`` for the view ``x[1:]``), or ``part``."""
    while np is not None and isinstance(part, np.ndarray) and isinstance(part.base, np.ndarray):
        part = part.base
    return part


def _mutable_parts(value, np, depth=0) -> list:
    """The objects a loop could write through ``value``: itself when it is an array, a list or
    a dict, and the same inside lists, tuples and dicts (``[a]`` holds ``a``), two levels deep
    and up to 4096 items each."""
    parts = []
    if isinstance(value, (list, dict)) or (np is not None and isinstance(value, np.ndarray)):
        parts.append(value)
    if depth < 2 and isinstance(value, (list, tuple, dict)) and len(value) <= 4096:
        for item in (value.values() if isinstance(value, dict) else value):
            if isinstance(item, (list, tuple, dict)) or (np is not None and isinstance(item, np.ndarray)):
                parts += _mutable_parts(item, np, depth + 1)
    return parts


#: key kinds of values that hold data, whose rank a rewrite may use
_DATA = ("number", "ndarray", "npscalar", "tensor", "variable", "sequence", "tensors", "helper")


@dataclasses.dataclass(frozen=True)
class _FreeNames:
    """What a function reads without binding it, found once (``of``: from its code objects,
    and from its source for the attributes of its first parameter).

    Attributes:
        closure: its closure variables.
        globals: module globals it names that held data when first seen (not modules,
            functions or classes).
        owner: its first parameter (``self``), or None.
        attributes: ``(label, key in __dict__)`` per attribute of ``owner`` it reads
            (``("self.__w", "_Model__w")``).
        helpers: the module's functions it calls, directly or through one another, which the
            transpiler may inline from their source; their globals are in ``globals``.
    """

    closure: frozenset = frozenset()
    globals: tuple = ()
    owner: str | None = None
    attributes: tuple = ()
    helpers: tuple = ()

    @classmethod
    def of(cls, fn, source) -> _FreeNames:
        if not isinstance(fn, types.FunctionType):
            return cls()
        module = fn.__globals__
        named, helpers, seen, stack = set(), set(), set(), [fn.__code__]
        while stack:  # nested code objects, and the module's functions it calls (the inliner's)
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            named |= set(current.co_names)
            stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]
            for name in current.co_names:
                value = module.get(name)
                if isinstance(value, types.FunctionType) and value.__globals__ is module:
                    helpers.add(name)
                    stack.append(value.__code__)
        held = tuple(sorted(n for n in named if n in module and not isinstance(module[n], types.ModuleType)
                            and not callable(module[n])))
        owner, attributes = (source.owner, source.owner_reads) if source is not None else (None, ())
        return cls(frozenset(fn.__code__.co_freevars), held, owner, attributes,
                   tuple(sorted(helpers - {fn.__name__})))


def _rank_fact(key, tensorflow: bool) -> int | None:
    """The ``shapes`` entry ``transpile_source`` takes for an argument with this key, or None.

    Only values whose batched form computes what the loop computes get one: numbers, NumPy
    arrays in NumPy code, tensors. A Python list does not (``row * 2`` repeats a list, and
    ``True + True`` is an int): the transpiler's own run-time checks decide for it, as they do
    without the decorator. Nor does an array in TensorFlow code, whose scalars TensorFlow
    would convert to the tensor's dtype one at a time.
    """
    if key[0] in ("number", "npscalar"):
        return 0
    if key[0] == "tensor" or (key[0] == "ndarray" and not tensorflow):
        return key[2]
    return None


def _kind_fact(key, tensorflow: bool) -> tuple | None:
    """The ``kinds`` entry ``transpile_source`` takes for an argument with this key, or None:
    the key itself for a Python number, a NumPy scalar, and a NumPy array in NumPy code (those
    :func:`_rank_fact` gives a rank), whose type and dtype decide some run-time checks
    (:mod:`pforge.transpile.specialize`)."""
    if key[0] in ("number", "npscalar") or (key[0] == "ndarray" and not tensorflow):
        return key
    return None


def _describe(names, key) -> str:
    parts = []
    for name, k in zip(names, key[0]):
        if k[0] == "number":
            what = k[1]
        elif k[0] in ("ndarray", "tensor", "variable"):
            what = f"{getattr(k[1], 'name', k[1])} {'tf.' + k[0].title() if k[0] != 'ndarray' else 'ndarray'} rank {k[2]}"
        elif k[0] == "npscalar":
            what = f"numpy scalar {k[1]}"
        elif k[0] == "sequence":
            what = f"{k[1]}" + (f" of rank {k[3]}" if k[3] is not None else "")
        elif k[0] == "tensors":
            what = f"{k[1]} of {len(k[2])} tensors or variables"
        elif k[0] == "none":
            what = "None"
        elif k[0] == "composite":
            what = k[1]
        else:
            what = k[2]
        parts.append(f"{name}: {what}")
    described = ", ".join(parts) or "no arguments"
    read = [(label, k) for label, k in key[2] if k[0] != "helper"]
    if read:
        described += "; reads " + _describe([label for label, _ in read], ([k for _, k in read], (), ()))
    return described


def _comparable(value, depth=0) -> bool:
    """Whether ``value`` is data ``compare`` can judge: numbers, strings, None, arrays,
    tensors, and lists, tuples and dicts of them."""
    if value is None or type(value) in (bool, int, float, complex, str, bytes):
        return True
    if isinstance(value, (list, tuple)) and depth < 8:
        return all(_comparable(v, depth + 1) for v in value)
    if isinstance(value, dict) and depth < 8:
        return all(_comparable(v, depth + 1) for v in value.values())
    np, tf = sys.modules.get("numpy"), sys.modules.get("tensorflow")
    if np is not None and isinstance(value, (np.ndarray, np.generic)):
        return True
    return tf is not None and isinstance(value, (tf.Tensor, tf.Variable))


def _mutable_arguments(names, key, args, kwargs):
    """The arguments a function can write in place (arrays, lists, dicts), for comparison."""
    named = dict(zip(names, itertools.chain(args, [kwargs.get(n, _MISSING) for n in names[len(args):]])))
    return [named[n] for n, k in zip(names, key[0]) if k[0] in ("ndarray", "sequence", "tensors", "variable")
            and named.get(n, _MISSING) is not _MISSING]


def _mixed_dtypes(names, key) -> str:
    """In TensorFlow code, why a NumPy array or Python list argument would change a result, or
    "": the loop combines a tensor with one element at a time, which TensorFlow converts to the
    tensor's dtype, while batched code would combine it with the whole array, of its own dtype
    (``float32`` against ``float64`` raises)."""
    np = sys.modules.get("numpy")
    tensors = {k[1].name for k in key[0] if k[0] in ("tensor", "variable")}
    if not tensors or np is None:
        return ""
    for name, k in zip(names, key[0]):
        dtype = k[1] if k[0] == "ndarray" else k[2] if k[0] == "sequence" else None
        if dtype is not None and np.dtype(dtype).name not in tensors:
            return (f"`{name}` is a {'NumPy array' if k[0] == 'ndarray' else k[1]} of {np.dtype(dtype).name} "
                    f"beside {', '.join(sorted(tensors))} tensors; pass it as a tensor of their dtype")
    return ""


def _reads_static_shape(code: str) -> bool:
    """Whether the function's code reads a shape while tracing: ``.shape``, ``.ndim``,
    ``.get_shape()``, ``len()``."""
    return any((isinstance(n, ast.Attribute) and n.attr in ("shape", "ndim", "get_shape", "rank"))
               or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len")
               for n in ast.walk(ast.parse(code)))


def _traceable(key) -> bool:
    """Whether ``tf.function`` keeps the rewrite's meaning for this signature.

    Every argument must be a tensor, a ``tf.Variable``, a list or tuple of those (traced as a
    structure), a Python number or None: a NumPy array
    would become a tensor (``x.mean()`` fails, and it would be returned as one), a NumPy scalar
    a tensor of its own dtype beside float32 ones, and any other object would be hashed, so a
    change to its attributes (``model.W *= 3``, a counter it keeps) would be missed or happen
    once. What the function reads from outside must be tensors, variables or numbers too:
    ``StagedFunction._traced_for`` traces again when one is rebound, but an array changed in
    place would keep the values of the trace.
    """
    allowed = ("tensor", "variable", "tensors", "number", "none")
    return all(k[0] in allowed for k in key[0]) and all(k[0] in allowed + ("helper",) for _, k in key[2])
