"""The staged decorator ``@pforge.vectorize``: one rewrite per input signature, at its first call.

Multi-stage programming after TensorFlow Eager (Agrawal et al., "TensorFlow Eager: A
Multi-Stage, Python-Embedded DSL for Machine Learning", arXiv:1903.01855), whose
``tf.function`` stages a function once per input signature. At the first call for a
signature this module knows every fact that the static rewrite has to infer or be told: the
rank, dtype and kind (array, tensor, Python list, number) of each argument, and which
arguments share memory. It transpiles the function's own source with those ranks
(``transpile_source(..., shapes=...)``), compiles the result in the function's own globals and
closure, and caches it. The signature key is relaxed the way ``tf.function(reduce_retracing=True)``
relaxes it: dimensions are not in it, so a new batch size reuses the rewrite, while a new
rank, dtype or kind stages again.

Loops the analysis cannot prove independent stay loops; a signature whose arguments share
memory runs the function as written. TensorFlow code runs under ``tf.function`` when the
static rewrite would stage it; NumPy code stays NumPy, and this module never imports
TensorFlow itself.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import inspect
import itertools
import linecache
import sys
import textwrap
import threading
import time
import types
import warnings

__all__ = ["MismatchError", "PforgeWarning", "SignatureEntry", "StageStats", "StagedFunction", "vectorize"]

#: ``verify=`` values: never compare, compare at the first call of each signature, or at every call
VERIFY_MODES = (None, "first", "always")
#: ``on_mismatch=`` values
ON_MISMATCH = ("raise", "fallback")
#: distinct signatures after which a function is said to be re-staged too often (as TensorFlow
#: warns after five retraces)
RESTAGE_WARNING = 5

_FACTORY = "__pforge_stage__"
_counter = itertools.count(1)


class PforgeWarning(UserWarning):
    """A function decorated with ``pforge.vectorize`` runs as written, or is staged too often."""


class MismatchError(AssertionError):
    """``verify=`` found that a rewrite returns or writes something other than the loop does."""


@dataclasses.dataclass
class SignatureEntry:
    """What was staged for one input signature.

    Attributes:
        key: the relaxed signature: per argument its kind, dtype and rank (no dimensions), and
            the pairs of arguments that share memory.
        description: ``key`` for people, e.g. ``x: float64 ndarray rank 2, n: int``.
        fn: what runs: the compiled rewrite, the same under ``tf.function``, or the original
            function when nothing was rewritten.
        code: the rewritten function's source as pforge generated it (the original source when
            nothing was rewritten).
        plans: the transpiler's ``LoopPlan`` for each loop of the function.
        rewritten: the first lines of the loops that run rewritten.
        staged: the rewrite runs under ``tf.function``.
        reason: why the function runs as written, or "".
        transpile_s: seconds spent transpiling and compiling.
        transpiled: the source was transpiled for this signature (False when it cannot be read,
            or the arguments share memory).
        first_call_s: seconds of the first call (the ``tf.function`` trace included, when
            staged).
        calls: calls so far.
        verified: a ``verify=`` comparison passed for this signature.
        compiled, identity, captured, retraced: for a staged rewrite, the compiled function
            before ``tf.function``, the identity of the free values its trace captured (and
            the values, kept alive), and the entries traced for other values of them (see
            ``StagedFunction._traced_for``).
    """

    key: tuple
    description: str
    fn: object
    code: str
    plans: tuple = ()
    rewritten: tuple[int, ...] = ()
    staged: bool = False
    reason: str = ""
    transpile_s: float = 0.0
    transpiled: bool = False
    first_call_s: float | None = None
    calls: int = 0
    verified: bool = False
    compiled: object = None
    identity: tuple | None = None
    captured: tuple = ()
    retraced: dict = dataclasses.field(default_factory=dict)

    @property
    def remarks(self) -> tuple:
        """The remarks of every loop of the function for this signature (``Remark`` objects)."""
        return tuple(r for p in self.plans for r in p.remarks)

    @property
    def traces(self) -> int:
        """How many times ``tf.function`` traced the rewrite (0 when not staged)."""
        count = getattr(self.fn, "experimental_get_tracing_count", None)
        own = int(count()) if self.staged and count is not None else 0
        return own + sum(e.traces for e in self.retraced.values())


@dataclasses.dataclass(frozen=True)
class StageStats:
    """Costs of a decorated function so far.

    Attributes:
        signatures: distinct input signatures staged.
        transpiles: times the function's source was transpiled (one per signature).
        transpile_s: seconds spent transpiling and compiling, all signatures.
        traces: ``tf.function`` traces of the rewrites, all signatures.
        first_call_s: seconds of the first call of each signature, summed (traces included).
        calls: calls, all signatures.
    """

    signatures: int
    transpiles: int
    transpile_s: float
    traces: int
    first_call_s: float
    calls: int


def vectorize(fn=None, *, backend: str = "auto", target: str = "auto", verify: str | None = None,
              on_mismatch: str = "raise", rtol: float = 1e-4, atol: float = 1e-5):
    """Rewrites ``fn``'s independent loops at its first call for each input signature.

    Use it as ``@pforge.vectorize``, ``@pforge.vectorize(verify="first")`` or
    ``pforge.vectorize(fn, backend="direct")``. The decorated function keeps ``fn``'s
    signature and meaning; see :class:`StagedFunction` for what it exposes.

    Args:
        fn: the function (a plain function, method or nested function whose source file is
            readable).
        backend: ``auto``, ``direct`` or ``pfor``, as ``pforge transpile --backend``.
        target: ``auto`` (each loop stays in its library) or ``tensorflow``.
        verify: None; ``"first"`` runs the original on copies of the inputs at the first call
            of each signature and compares; ``"always"`` compares at every call (for tests).
        on_mismatch: ``"raise"`` raises :class:`MismatchError`; ``"fallback"`` warns and runs
            the original for that signature from then on.
        rtol, atol: the tolerances of the comparison (unitless, and in the values' units).
    Returns:
        A :class:`StagedFunction`, or a decorator making one when ``fn`` is None.
    Raises:
        ValueError: an unknown ``backend``, ``target``, ``verify`` or ``on_mismatch``.
        TypeError: ``fn`` is not callable.
    """
    from pforge.transpile.pipeline import BACKENDS, TARGETS  # noqa: PLC0415 - no TF either way

    if backend not in BACKENDS:
        raise ValueError(f"pforge.vectorize: unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    if target not in TARGETS:
        raise ValueError(f"pforge.vectorize: unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    if verify not in VERIFY_MODES:
        raise ValueError(f"pforge.vectorize: unknown verify {verify!r}; expected None, 'first' or 'always'")
    if on_mismatch not in ON_MISMATCH:
        raise ValueError(f"pforge.vectorize: unknown on_mismatch {on_mismatch!r}; expected 'raise' or 'fallback'")
    options = dict(backend=backend, target=target, verify=verify, on_mismatch=on_mismatch, rtol=rtol, atol=atol)
    if fn is None:
        return lambda f: _staged(f, options)
    return _staged(fn, options)


class _Helper:
    """A module function a decorated function calls: its key is its identity."""

    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function


def _staged(fn, options):
    """``StagedFunction(fn)``; a ``staticmethod`` or ``classmethod`` under the decorator stays
    one around it (its function is what is staged)."""
    if isinstance(fn, (staticmethod, classmethod)):
        return type(fn)(StagedFunction(fn.__func__, **options))
    return StagedFunction(fn, **options)


class StagedFunction:
    """A function rewritten at its first call for each input signature (``pforge.vectorize``).

    Calling it computes the call's relaxed signature (``SignatureEntry.key``), stages the
    function for a new one (transpile with the call's ranks, compile in ``fn``'s globals and
    closure, wrap in ``tf.function(reduce_retracing=True)`` when the rewrite is staged), and
    calls what is cached. Staging is thread-safe: two threads never stage one signature twice.

    Attributes:
        python_function: the decorated function, as written.

    Inspection: ``code(*args, **kwargs)`` and ``remarks(*args, **kwargs)`` stage for those
    arguments without calling; ``signatures`` lists the entries staged so far; ``stats`` sums
    their costs. Works on methods (``obj.method.code(x)``).
    """

    def __init__(self, fn, *, backend="auto", target="auto", verify=None, on_mismatch="raise",
                 rtol=1e-4, atol=1e-5):
        if not callable(fn):
            raise TypeError(f"pforge.vectorize expects a function, got {type(fn).__name__}")
        self.python_function = fn
        self._options = dict(backend=backend, target=target)
        self._verify, self._on_mismatch, self._rtol, self._atol = verify, on_mismatch, rtol, atol
        self._cache: dict[tuple, SignatureEntry] = {}
        self._lock = threading.RLock()
        self._source = None  # _Source, read at the first call
        self._signature = inspect.signature(fn)
        params = list(self._signature.parameters.values())
        self._positional = [p.name for p in params]
        self._simple = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        self._defaults = {p.name: p.default for p in params if p.default is not p.empty}
        self._warned = self._warned_source = self._warned_verify = False
        self._free: _FreeNames | None = None  # found at the first call
        functools.update_wrapper(self, fn)
        # Called from a tf.function, AutoGraph would convert this dispatcher: it marks what it
        # must call as it is (api.is_autograph_artifact); the rewrite it calls is staged itself.
        self.autograph_info__ = {}

    # -- calling --------------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        bound = self._bind(args, kwargs)
        if bound is None:  # arguments the function does not take: it raises, as written
            return self.python_function(*args, **kwargs)
        names, values = bound
        free = self._free_values(names, values)
        key = _signature_key(names, values, free)
        entry = self._cache.get(key)
        if entry is None:
            entry = self._stage(key, names, values)
        entry.calls += 1
        if entry.staged and key[2]:
            entry = self._traced_for(entry, free)
        if self._verify == "always" or (self._verify == "first" and not entry.verified):
            return self._verified(entry, names, values, args, kwargs)
        if entry.first_call_s is None:
            start = time.perf_counter()
            result = entry.fn(*args, **kwargs)
            entry.first_call_s = time.perf_counter() - start
            return result
        return entry.fn(*args, **kwargs)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _BoundStaged(self, instance)

    def __repr__(self):
        return f"<pforge.vectorize {self.python_function.__qualname__}: {len(self._cache)} signature(s)>"

    # -- inspection -----------------------------------------------------------------------------

    def entry(self, *args, **kwargs) -> SignatureEntry:
        """The ``SignatureEntry`` for these arguments, staged now when new (nothing is called).

        Raises:
            TypeError: the function does not take these arguments.
        """
        bound = self._bind(args, kwargs)
        if bound is None:
            self._signature.bind(*args, **kwargs)  # raises the TypeError that says why
        names, values = bound
        key = _signature_key(names, values, self._free_values(names, values))
        return self._cache.get(key) or self._stage(key, names, values)

    def code(self, *args, **kwargs) -> str:
        """The source that runs for these arguments: the rewrite, or the function as written."""
        return self.entry(*args, **kwargs).code

    def remarks(self, *args, **kwargs) -> tuple:
        """The remarks (``Remark``) of every loop of the function for these arguments."""
        return self.entry(*args, **kwargs).remarks

    @property
    def signatures(self) -> list[SignatureEntry]:
        """The entries staged so far, oldest first."""
        with self._lock:
            return list(self._cache.values())

    @property
    def stats(self) -> StageStats:
        """The costs so far: see :class:`StageStats`."""
        entries = self.signatures
        return StageStats(
            signatures=len(entries),
            transpiles=sum(1 for e in entries if e.transpiled),
            transpile_s=sum(e.transpile_s for e in entries),
            traces=sum(e.traces for e in entries),
            first_call_s=sum(e.first_call_s or 0.0 for e in entries),
            calls=sum(e.calls for e in entries))

    # -- staging --------------------------------------------------------------------------------

    def _bind(self, args, kwargs):
        """``(names, values)`` of every parameter, defaults applied (``*args`` as ``"*args"``
        with a tuple), or None when the function does not take these arguments."""
        if not kwargs and self._simple and len(args) <= len(self._positional):
            names = self._positional
            values = list(args) + [self._defaults.get(n, _MISSING) for n in names[len(args):]]
            if not any(v is _MISSING for v in values):
                return names, values
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        names, values = [], []
        for name, value in bound.arguments.items():
            kind = self._signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                names += [f"*{name}"]
                values += [tuple(value)]
            elif kind is inspect.Parameter.VAR_KEYWORD:
                names += [f"**{name}"]
                values += [dict(value)]
            else:
                names.append(name)
                values.append(value)
        return names, values

    def _traced_for(self, entry, free) -> SignatureEntry:
        """The staged entry whose trace captured these free values: ``tf.function`` freezes a
        closure cell, global or attribute at its trace, so a new value (a number's value, any
        other value's identity) gets a trace of its own, as a new Python argument would."""
        identity = tuple((label, (type(v), v) if type(v) in (bool, int, float, complex) else
                          id(v.function) if type(v) is _Helper else id(v)) for label, v in free)
        if entry.identity is None:
            entry.identity = identity
            entry.captured = tuple(v for _, v in free)  # alive: no other object takes their ids
        if entry.identity == identity:
            return entry
        with self._lock:
            other = entry.retraced.get(identity)
            if other is None:
                function = _staged_function(entry.compiled, _reads_static_shape(entry.code))
                other = dataclasses.replace(entry, fn=function, identity=identity, retraced={},
                                            calls=0, first_call_s=None,
                                            captured=tuple(v for _, v in free))
                entry.retraced[identity] = other
                if len(entry.retraced) == RESTAGE_WARNING:
                    warnings.warn(
                        f"pforge.vectorize: {self.python_function.__qualname__} was traced for "
                        f"{RESTAGE_WARNING + 1} values of what it reads from outside "
                        f"({', '.join(label for label, _ in free)}); each new value traces it again",
                        PforgeWarning, stacklevel=4)
            return other

    def _free_values(self, names, values) -> list:
        """``(label, value)`` for what the function reads without binding it, as it is now:
        closure cells and module globals that hold data (``k``, ``W``), and the attributes
        of its first argument that it reads (``self.w``, from the instance's ``__dict__``, so
        no property runs)."""
        free = self._free
        if free is None:
            free = self._free = _FreeNames.of(self.python_function, self._source_or_none())
        fn = self.python_function
        found = []
        if not isinstance(fn, types.FunctionType):
            return found
        if free.closure:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
                if name in free.closure:
                    try:
                        found.append((name, cell.cell_contents))
                    except ValueError:  # not bound yet
                        pass
        module = fn.__globals__
        if free.globals:
            found += [(name, module[name]) for name in free.globals if name in module]
        if free.helpers:  # a helper patched since (mock.patch): another signature
            found += [(name, _Helper(module.get(name))) for name in free.helpers]
        if free.attributes and names and names[0] == free.owner and values:
            held = getattr(values[0], "__dict__", None)
            if isinstance(held, dict):
                found += [(label, held[stored]) for label, stored in free.attributes if stored in held]
        return found

    def _source_or_none(self):
        try:
            return self._read_source()
        except _AsWritten:
            return None

    def _stage(self, key, names, values) -> SignatureEntry:
        with self._lock:
            entry = self._cache.get(key)
            if entry is not None:
                return entry
            start = time.perf_counter()
            entry = self._build(key, names, values)
            entry.transpile_s = time.perf_counter() - start
            self._cache[key] = entry
            if len(self._cache) > RESTAGE_WARNING and not self._warned:
                self._warned = True
                warnings.warn(
                    f"pforge.vectorize: {self.python_function.__qualname__} was staged for "
                    f"{len(self._cache)} input signatures; the ranks, dtypes or argument kinds of its "
                    "calls keep changing, and each new one transpiles it again", PforgeWarning, stacklevel=4)
            return entry

    def _build(self, key, names, values) -> SignatureEntry:
        fn = self.python_function
        description = _describe(names, key)
        try:
            source = self._read_source()
        except _AsWritten as exc:
            return self._as_written(key, description, str(exc))
        shared = key[1]
        if shared:
            labels = list(names) + [label for label, _ in key[2]]
            pairs = ", ".join(f"`{labels[a]}` and `{labels[b]}`" for a, b in shared)
            return self._as_written(key, description, f"{pairs} share memory", source)
        composite = [f"`{n}` is a {k[1]}" for n, k in zip(names, key[0]) if k[0] == "composite"]
        if composite:
            return self._as_written(key, description, ", ".join(composite), source)
        patched = source.patched_helpers(fn, self._free)
        if patched:
            return self._as_written(key, description, patched, source)
        tf = source.tensorflow
        mixed = _mixed_dtypes(names, key) if tf else ""
        if mixed:
            return self._as_written(key, description, mixed, source)
        shapes = {f"{fn.__name__}.{n}": r for n, k in zip(names, key[0]) if (r := _rank_fact(k, tf)) is not None}
        shapes.update((f"{fn.__name__}.{label}", r) for label, k in key[2] if (r := _rank_fact(k, tf)) is not None)
        from pforge.transpile.pipeline import transpile_source  # noqa: PLC0415

        result = transpile_source(source.text, source.filename, shapes=shapes, loops=source.lines,
                                  **self._options)
        plans = tuple(p for p in result.plans if source.first <= p.lineno <= source.last)
        transpiled = dict(transpiled=True)
        rewritten = tuple(p.lineno for p in plans if p.rewritten)
        if not rewritten:
            why = "no loop of the function was rewritten" if plans else "the function has no loop"
            return dataclasses.replace(self._as_written(key, description, why, source, plans), **transpiled)
        compiled, code, staged = source.compile(result.code, fn, len(self._cache))
        entry = SignatureEntry(key, description, compiled, code, plans, rewritten, staged, **transpiled)
        if staged and not _traceable(key):
            entry.staged = False  # the compiled rewrite runs eagerly: tracing would freeze a value
        if entry.staged:
            entry.compiled = compiled
            entry.fn = _staged_function(compiled, _reads_static_shape(code))
        return entry

    def _as_written(self, key, description, reason, source=None, plans=()):
        fn = self.python_function
        if source is None and not self._warned_source:
            self._warned_source = True
            warnings.warn(f"pforge.vectorize: {fn.__qualname__} runs as written: {reason}", PforgeWarning,
                          stacklevel=5)
        code = source.original if source is not None else ""
        return SignatureEntry(key, description, fn, code, plans, (), False, reason)

    def _read_source(self):
        if self._source is None:
            self._source = _Source.read(self.python_function)
        return self._source

    # -- verification ---------------------------------------------------------------------------

    def _verified(self, entry, names, values, args, kwargs):
        fn = self.python_function
        if entry.fn is fn:
            entry.verified = True
            return fn(*args, **kwargs)
        try:
            copied_args, copied_kwargs = copy.deepcopy((args, kwargs))
        except Exception as exc:  # noqa: BLE001 - an argument that cannot be copied
            warnings.warn(f"pforge.vectorize: cannot verify {fn.__qualname__}: its arguments cannot be "
                          f"copied ({type(exc).__name__}: {exc}); the rewrite runs unverified",
                          PforgeWarning, stacklevel=3)
            return entry.fn(*args, **kwargs)
        try:
            got, failure = entry.fn(*copied_args, **copied_kwargs), None
        except Exception as exc:  # noqa: BLE001 - compared with what the loop does below
            got, failure = None, exc
        expected = fn(*args, **kwargs)  # the loop, on the caller's objects; its exceptions propagate
        from pforge.runtime.compare import compare  # noqa: PLC0415

        message = ""
        if failure is None and not _comparable(expected):
            if not self._warned_verify:
                self._warned_verify = True
                warnings.warn(f"pforge.vectorize: cannot verify {fn.__qualname__}: it returns a "
                              f"{type(expected).__name__}, which is not data to compare; the rewrite runs "
                              "unverified", PforgeWarning, stacklevel=3)
            entry.verified = True
            return expected
        if failure is not None:
            message = f"the rewrite raised {type(failure).__name__}: {failure}"
        else:
            found = compare(expected, got, self._rtol, self._atol)
            message = "" if found.ok else f"result: {found.message}"
            if not message:
                after = _mutable_arguments(names, entry.key, args, kwargs)
                copied = _mutable_arguments(names, entry.key, copied_args, copied_kwargs)
                found = compare(after, copied, self._rtol, self._atol)
                message = "" if found.ok else f"arguments written in place: {found.message}"
        if not message:
            entry.verified = True
            return expected
        lines = ", ".join(str(n) for n in entry.rewritten)
        text = (f"pforge.vectorize: {fn.__qualname__} ({entry.description}): the rewrite of the loop(s) "
                f"at line(s) {lines} differs from the loop: {message}")
        if self._on_mismatch == "raise":
            raise MismatchError(text)
        warnings.warn(text + "; this signature runs as written from now on", PforgeWarning, stacklevel=3)
        entry.fn, entry.staged, entry.reason = fn, False, message
        entry.verified = True
        return expected


class _BoundStaged:
    """``obj.method`` of a decorated method: calls and inspection with ``obj`` first."""

    def __init__(self, staged, instance):
        self._staged, self._instance = staged, instance
        self.__wrapped__ = staged.python_function.__get__(instance)
        self.autograph_info__ = {}

    def __call__(self, *args, **kwargs):
        return self._staged(self._instance, *args, **kwargs)

    def code(self, *args, **kwargs):
        return self._staged.code(self._instance, *args, **kwargs)

    def remarks(self, *args, **kwargs):
        return self._staged.remarks(self._instance, *args, **kwargs)

    def entry(self, *args, **kwargs):
        return self._staged.entry(self._instance, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._staged, name)


_MISSING = object()


class _AsWritten(Exception):
    """The function cannot be staged at all (its source is unreadable, or it is not a plain def)."""


# -- signature keys --------------------------------------------------------------------------------


def _arg_key(value) -> tuple:
    """The relaxed key of one argument: kind, dtype and rank, never a dimension."""
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
        keyer = lambda value: ("ndarray", value.dtype.str, value.ndim)  # noqa: E731
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
    """A list or tuple: its rank and dtype as NumPy would convert it, when it holds numbers."""
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
_DATA = ("number", "ndarray", "npscalar", "tensor", "variable", "sequence", "helper")


@dataclasses.dataclass(frozen=True)
class _FreeNames:
    """What a function reads without binding it, found once.

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
        owner, attributes = None, ()
        params = list(inspect.signature(fn).parameters)
        if source is not None and params:
            owner = params[0]
            node = _nth_def(ast.parse(source.text, source.filename), fn.__name__, source.index)
            reads = sorted({n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
                            and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
                            and n.value.id == owner})
            mangle = _Mangler(source.mangle)._mangled if source.mangle else (lambda a: a)
            attributes = tuple((f"{owner}.{a}", mangle(a)) for a in reads)
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
    return [named[n] for n, k in zip(names, key[0]) if k[0] in ("ndarray", "sequence", "variable")
            and named.get(n, _MISSING) is not _MISSING]


# -- source and compilation ------------------------------------------------------------------------


@dataclasses.dataclass
class _Source:
    """The module text a decorated function is transpiled in, its decorators blanked out.

    Attributes:
        filename: the file the function was defined in.
        text: the module's text with the lines of the function's decorators left blank, so
            that the transpiler sees a plain function (and may stage it) at the same lines.
        first, last: the function's lines (``def`` to its end).
        lines: ``range(first, last + 1)``: the loops to rewrite.
        index: which of the module's functions of that name it is, in ``ast.walk`` order.
        original: the function's source as written, dedented.
        mangle: the class whose private names (``self.__x``) the method mangles, or None.
        tensorflow: the module imports TensorFlow.
        defined: the first line of each module-level ``def`` (decorators included), by name.
    """

    filename: str
    text: str
    first: int
    last: int
    lines: range
    index: int
    original: str
    mangle: str | None
    tensorflow: bool = False
    defined: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def read(cls, fn) -> _Source:
        if not isinstance(fn, types.FunctionType):
            raise _AsWritten(f"it is a {type(fn).__name__}, not a function (another decorator under "
                             "pforge.vectorize?); pforge.vectorize must be the innermost decorator")
        if fn.__name__ == "<lambda>":
            raise _AsWritten("a lambda has no statements to rewrite")
        if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
            raise _AsWritten("generators and coroutines are not rewritten")
        if hasattr(fn, "__wrapped__"):  # functools.wraps: another decorator's wrapper
            raise _AsWritten(f"it is a wrapper of {fn.__wrapped__.__qualname__} made by another decorator; "
                             "pforge.vectorize must be the innermost decorator")
        filename = fn.__code__.co_filename
        lines = linecache.getlines(filename, fn.__globals__)
        if not lines:
            raise _AsWritten(f"its source cannot be read (defined in {filename})")
        text = "".join(lines)
        try:
            tree = ast.parse(text, filename)
        except SyntaxError as exc:
            raise _AsWritten(f"its file {filename} does not parse (line {exc.lineno})") from None
        found = _find_def(tree, fn)
        if found is None:
            raise _AsWritten(f"its `def` was not found in {filename} (the file changed since it was imported?)")
        node, index, owner = found
        decorators = node.decorator_list
        below = decorators[:]
        while below and not _is_vectorize(below[-1]) and _is_method_kind(below[-1]):
            below.pop()  # @staticmethod/@classmethod under pforge.vectorize: it staged the function
        if decorators and (not below or not _is_vectorize(below[-1])):
            raise _AsWritten(f"`@{ast.unparse(decorators[-1])}` is applied before pforge.vectorize; "
                             "pforge.vectorize must be the innermost decorator")
        blanked = list(lines)
        for dec in decorators:  # `@` and its expression: the decorator's lines, blank
            for ln in range(dec.lineno - 1, dec.end_lineno):
                blanked[ln] = "\n"
        original = textwrap.dedent("".join(lines[node.lineno - 1:node.end_lineno]))
        mangle = owner.lstrip("_") if owner and owner.lstrip("_") else None
        tensorflow = any(isinstance(n, ast.Import) and any(a.name.split(".")[0] == "tensorflow" for a in n.names)
                         or isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "tensorflow"
                         for n in ast.walk(tree))
        defined = {n.name: min([n.lineno] + [d.lineno for d in n.decorator_list]) for n in tree.body
                   if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        return cls(filename, "".join(blanked), node.lineno, node.end_lineno,
                   range(node.lineno, node.end_lineno + 1), index, original, mangle, tensorflow, defined)

    def patched_helpers(self, fn, free) -> str:
        """Why the module's functions that ``fn`` calls are not the ``def``s of this source
        (replaced since, as ``mock.patch`` does), or "" when they are: the transpiler reads
        helpers from the source."""
        module = fn.__globals__
        for name in free.helpers if free is not None else ():
            value = module.get(name)
            code = getattr(value, "__code__", None)
            if code is None or code.co_filename != self.filename or self.defined.get(name) != code.co_firstlineno:
                return f"`{name}` is not the function its module's source defines (replaced since it was imported)"
        return ""

    def compile(self, code: str, fn, serial: int):
        """``(function, its source, staged)``: the rewritten ``fn`` from the transpiled module
        ``code``, compiled in ``fn``'s globals with ``fn``'s closure cells, defaults and
        annotations (evaluated once, when ``fn`` was defined, never again). ``staged``: the
        transpiler decorated it with ``tf.function`` (left to ``_staged_function``)."""
        tree = ast.parse(code, self.filename)
        found = _nth_def(tree, fn.__name__, self.index)
        if found is None:  # the transpiler keeps every def; this would be a bug
            raise RuntimeError(f"pforge.vectorize: {fn.__qualname__} is missing from its rewrite. This is a bug.")
        original_tree = ast.parse(self.text, self.filename)
        known = {ast.dump(st) for st in original_tree.body}
        added = [st for st in tree.body if ast.dump(st) not in known
                 and isinstance(st, (ast.Import, ast.ImportFrom))]
        lines = code.splitlines(keepends=True)
        first = min([found.lineno] + [d.lineno for d in found.decorator_list])
        source = textwrap.dedent("".join(lines[first - 1:found.end_lineno]))
        staged = bool(found.decorator_list)
        found.decorator_list = []
        _drop_evaluated_parts(found.args)
        found.returns = None
        if self.mangle:
            _Mangler(self.mangle).visit(found)
        freevars = fn.__code__.co_freevars
        factory = ast.FunctionDef(
            name=_FACTORY,
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in freevars], vararg=None,
                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=added + [found, ast.Return(value=ast.Name(id=fn.__name__, ctx=ast.Load()))],
            decorator_list=[], returns=None, type_params=[])
        module = ast.Module(body=[factory], type_ignores=[])
        ast.fix_missing_locations(module)
        filename = f"<pforge.vectorize {fn.__qualname__} #{serial + 1} from {self.filename}>"
        linecache.cache[filename] = (len(code), None, lines, filename)  # tracebacks show the rewrite
        namespace: dict = {}
        exec(compile(module, filename, "exec"), fn.__globals__, namespace)  # noqa: S102 - pforge's own output
        cells = dict(zip(freevars, fn.__closure__ or ()))
        made = namespace[_FACTORY](*(_contents(cells[v]) for v in freevars))
        mine = dict(zip(made.__code__.co_freevars, made.__closure__ or ()))
        closure = tuple(cells.get(v, mine.get(v)) for v in made.__code__.co_freevars)
        rewritten = types.FunctionType(made.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                       closure or None)
        rewritten.__kwdefaults__ = fn.__kwdefaults__
        functools.update_wrapper(rewritten, fn)
        del rewritten.__wrapped__
        return rewritten, source, staged


def _staged_function(fn, static_shapes: bool):
    """``fn`` under ``tf.function``, traced per shape or once more for every other batch size.

    Code that reads a static shape (``x.shape[0]``, ``len(x)``, ``x.ndim``) is traced per
    shape, as ``tf.function`` does by default: with a dimension unknown it would compute
    something else (``y[:x.shape[0]]`` would be all of ``y``). Other code gets
    ``reduce_retracing=True``: traced for the first call's shapes (a trace with static shapes
    runs fastest), and at most once more, with unknown dimensions, for all other batch sizes.
    """
    tf = sys.modules.get("tensorflow")
    if tf is None:  # a staged rewrite calls TensorFlow, which its module imports
        import tensorflow as tf  # noqa: PLC0415
    return tf.function(fn) if static_shapes else tf.function(fn, reduce_retracing=True)


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

    Every argument must be a tensor, a ``tf.Variable``, a Python number or None: a NumPy array
    would become a tensor (``x.mean()`` fails, and it would be returned as one), a NumPy scalar
    a tensor of its own dtype beside float32 ones, and any other object would be hashed, so a
    change to its attributes (``model.W *= 3``, a counter it keeps) would be missed or happen
    once. What the function reads from outside must be tensors, variables or numbers too:
    ``StagedFunction._traced_for`` traces again when one is rebound, but an array changed in
    place would keep the values of the trace.
    """
    allowed = ("tensor", "variable", "number", "none")
    return all(k[0] in allowed for k in key[0]) and all(k[0] in allowed + ("helper",) for _, k in key[2])


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # not bound yet: the real cell replaces it below
        return None


def _drop_evaluated_parts(args: ast.arguments) -> None:
    """Removes defaults and annotations: the compiled function takes ``fn``'s, as evaluated once."""
    args.defaults = []
    args.kw_defaults = [None] * len(args.kwonlyargs)
    for a in args.posonlyargs + args.args + args.kwonlyargs + [x for x in (args.vararg, args.kwarg) if x]:
        a.annotation = None


class _Mangler(ast.NodeTransformer):
    """Python's private-name mangling (``self.__x`` -> ``self._C__x`` in class ``C``), which the
    compiler applies only inside a class body."""

    def __init__(self, owner: str):
        self.prefix = f"_{owner}"

    def _mangled(self, name: str) -> str:
        if name.startswith("__") and not name.endswith("__") and "." not in name:
            return self.prefix + name
        return name

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = self._mangled(node.attr)
        return node

    def visit_Name(self, node):
        node.id = self._mangled(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self._mangled(node.arg)
        return node


def _is_vectorize(dec: ast.expr) -> bool:
    """``@pforge.vectorize``, ``@vectorize``, ``@pf.vectorize(...)`` and the like."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    return (isinstance(target, ast.Attribute) and target.attr == "vectorize") or (
        isinstance(target, ast.Name) and target.id == "vectorize")


def _is_method_kind(dec: ast.expr) -> bool:
    return isinstance(dec, ast.Name) and dec.id in ("staticmethod", "classmethod")


def _find_def(tree: ast.Module, fn):
    """``(node, index among defs of that name, enclosing class name or None)`` for ``fn``."""
    first = fn.__code__.co_firstlineno
    index = 0
    for node, owner in _defs(tree):
        if node.name != fn.__name__:
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        if start == first or node.lineno == first:
            return node, index, owner
        index += 1
    return None


def _nth_def(tree: ast.Module, name: str, index: int):
    matches = [node for node, _ in _defs(tree) if node.name == name]
    return matches[index] if index < len(matches) else None


def _defs(tree):
    """Every ``def`` with the innermost class around it (or None), in breadth-first order."""
    queue = [(tree, None)]
    while queue:
        node, owner = queue.pop(0)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield child, owner
            # private names are mangled in everything a class body holds, nested defs included
            queue.append((child, child.name if isinstance(child, ast.ClassDef) else owner))
