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
memory runs the function as written. A TensorFlow rewrite runs under ``tf.function`` when the
static rewrite would stage it and every argument and free value is a tensor, variable or
number (``signatures._traceable``); NumPy code stays NumPy, and this module never imports
TensorFlow itself. The keys live in ``signatures.py``, the source and compiling in
``stage_source.py``.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import sys
import threading
import time
import types
import warnings

from pforge.runtime.signatures import (_MISSING, _comparable, _describe, _FreeNames, _Helper, _mixed_dtypes,
                                       _kind_fact, _mutable_arguments, _rank_fact, _reads_static_shape, _signature_key,
                                       _traceable)
from pforge.runtime.stage_source import PARSE_LOCK, _AsWritten, _Source

__all__ = ["MismatchError", "PforgeWarning", "SignatureEntry", "StageStats", "StagedFunction", "vectorize"]

#: ``verify=`` values: never compare, compare at the first call of each signature, or at every call
VERIFY_MODES = (None, "first", "always")
#: ``on_mismatch=`` values
ON_MISMATCH = ("raise", "fallback")
#: distinct signatures after which a function is said to be re-staged too often (as TensorFlow
#: warns after five retraces)
RESTAGE_WARNING = 5


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
        restage, identity, captured, retraced: for a staged rewrite, what makes another
            ``tf.function`` of it, the identity of the free values its trace captured (and the
            values, kept alive), and the entries traced for other values of them (see
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
    restage: object = None
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
    closure, put under ``tf.function`` where that keeps its meaning, see ``_staged_function``),
    and calls what is cached. Staging is thread-safe: two threads never stage one signature twice.

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
            return self._verified(entry, names, args, kwargs)
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
                other = dataclasses.replace(entry, fn=entry.restage(), identity=identity, retraced={},
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
        kinds = {f"{fn.__name__}.{n}": f for n, k in zip(names, key[0]) if (f := _kind_fact(k, tf)) is not None}
        from pforge.transpile.pipeline import transpile_source  # noqa: PLC0415

        with PARSE_LOCK:  # (it parses the file: one AST at a time, see PARSE_LOCK)
            result = transpile_source(source.text, source.filename, shapes=shapes, kinds=kinds,
                                      loops=source.lines, **self._options)
        plans = tuple(p for p in result.plans if source.first <= p.lineno <= source.last)
        rewritten = tuple(p.lineno for p in plans if p.rewritten)
        if not rewritten:
            why = "no loop of the function was rewritten" if plans else "the function has no loop"
            entry = self._as_written(key, description, why, source, plans)
            entry.transpiled = True
            return entry
        compiled, code, staged = source.compile(result.code, fn, len(self._cache))
        staged = staged and _traceable(key)  # else the rewrite runs eagerly: a trace would freeze a value
        entry = SignatureEntry(key, description, compiled, code, plans, rewritten, staged, transpiled=True)
        if staged:
            entry.restage = functools.partial(_staged_function, compiled, _reads_static_shape(code))
            entry.fn = entry.restage()
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

    def _verified(self, entry, names, args, kwargs):
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
