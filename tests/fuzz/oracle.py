"""Runs a generated program and its rewrite on the same fresh inputs and compares every observable.

Observables: the return value (shape and numbers), arrays written in place, module globals,
attributes of an argument object, printed output, and whether a call raised. A program is
judged under one *configuration*: a backend (``direct`` or ``pfor``) and whether the ranks
of the inputs are given (``--shapes``) or left for pforge to find; a NumPy program also
under ``--target tensorflow``.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import random
import types
from dataclasses import dataclass

import numpy as np

from pforge.runtime.targets import has_rank_checks, instrument_rank_checks
from tests.fuzz.generate import EITHER, INPUTS, REFUSE, VECTORIZE, Program

CONFIGS = (("direct", True), ("direct", False), ("pfor", True), ("pfor", False))

#: outcomes that are failures, and those that are not
WRONG_RESULT, WRONG_VERDICT, CRASH = "wrong result", "wrong verdict", "crash"
REWRITTEN, KEPT, REFUSED = "rewritten and equal", "vectorizable, kept as a loop", "refused"
#: the loop raised (``tf.stack([])`` of an empty collector, ``max()`` of nothing) where the
#: rewrite returned a value on the same input: the rewrite is more defined than the loop, as
#: the README says; counted apart, not a failure
MORE_DEFINED = "rewritten; the loop raised where the rewrite returned"
#: a rewrite guarded by a run-time check of the ranks pforge inferred (``np.ndim(x) == 1``),
#: whose check failed on every input: the loop ran, so the rewrite was not tested; counted
#: apart, not a failure (the inference guessed other ranks than the program's)
GUARDED_OUT = "rewritten; its run-time check failed, so the loop ran"
FAILURES = (WRONG_RESULT, WRONG_VERDICT, CRASH)



@dataclass(frozen=True)
class Outcome:
    """The judgement of one program under one configuration.

    Attributes:
        outcome: one of ``FAILURES`` or ``REWRITTEN``, ``KEPT``, ``REFUSED``.
        detail: what differed, or the reason a loop was kept.
        code: the rewritten source (equal to the program's when nothing changed).
    """

    outcome: str
    detail: str = ""
    code: str = ""

    @property
    def failed(self) -> bool:
        return self.outcome in FAILURES


def config_of(seed: int) -> tuple[str, bool]:
    """The configuration a program runs under: drawn from its seed, so all four are covered."""
    return CONFIGS[random.Random(seed * 7919 + 1).randrange(len(CONFIGS))]


def _inputs(program: Program, rng: np.random.Generator, n: int, as_lists: bool, wider: bool = False):
    """The arguments of one draw; ``wider``: each float array, and the scalar, with one axis
    more than declared (``x`` ``(n, 2)``, ``c`` ``(n,)``), as a caller whose docstring is out of
    date passes them."""
    args = {}
    for name in program.params:
        rank, kind = INPUTS[name]
        if kind == "float":
            shape = ((n,) if rank == 1 else (n, n)) + ((2,) if wider else ())
            value = np.round(rng.standard_normal(shape), 3)
        elif kind == "index":
            value = rng.integers(-n, n, n) if n else np.zeros(0, dtype=np.int64)  # negative: Python wraps
        elif kind == "grid":  # three columns of small ints or of floats
            value = rng.integers(-1, 3, (n, 3)) if rng.random() < 0.5 else np.round(rng.standard_normal((n, 3)), 3)
        elif kind == "shape":  # the length of `x`, spelled as a user may, or rows of two
            value = [n, (n,), [n], np.array([n]), np.int64(n), (n, 2), np.array([n, 2])][int(rng.integers(7))]
        elif kind == "scalar" and wider:
            value = np.round(rng.standard_normal(n), 3)
        elif kind == "scalar":
            value = float(np.round(rng.standard_normal(), 3))
        else:
            value = types.SimpleNamespace(total=0.0)
        args[name] = value
    if as_lists:
        # (an index list too: one only indexed with converts to the same indices)
        for name in ("x", "y", "g", "idx"):
            if name in args:
                args[name] = args[name].tolist()
    return args


def _to_library(args, library):
    if library == "numpy":
        return args
    import tensorflow as tf

    return {k: (tf.constant(v, dtype=tf.int32 if v.dtype.kind == "i" else tf.float32)
                if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def _execute(source: str, args: dict, library: str, variant: str):
    """Runs ``f(**args)`` in a fresh module; returns every observable.

    The module is loaded as the runtime loads user files, so AutoGraph finds the source of a
    function staged with ``tf.function``.
    """
    from pforge.runtime.loader import load_module

    namespace = vars(load_module(f"fuzz_{variant}.py", source=source, variant=variant))
    np.random.seed(0)
    if library == "tensorflow":
        import tensorflow as tf

        tf.random.set_seed(0)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            value, raised = namespace["f"](**args), None
    except Exception as exc:  # the loop's own exceptions are observables too
        value, raised, message = None, type(exc).__name__, str(exc)
    else:
        message = None
    box = args.get("box")
    return {"return": value, "raised": raised, "message": message, "stdout": out.getvalue(),
            "globals": {k: namespace.get(k) for k in ("COUNT",) if k in namespace},
            "box": getattr(box, "total", None), "guards": namespace.get("_PFORGE_CHECKS_HELD"),
            "arguments": {k: v for k, v in args.items() if isinstance(v, np.ndarray)}}


def _plain(value):
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def _equal(want, got) -> bool:
    """``want == got``, where either may be an array (then equal shapes and elements)."""
    try:
        return bool(np.all(np.asarray(want, dtype=object) == np.asarray(got, dtype=object))) and \
            np.shape(want) == np.shape(got)
    except (TypeError, ValueError):
        return False


def _differs(want, got, rtol, atol, dtypes=False) -> str | None:
    want, got = _plain(want), _plain(got)
    if dtypes and isinstance(want, (np.ndarray, np.generic)) and isinstance(got, (np.ndarray, np.generic)) \
            and want.dtype != got.dtype:
        return f"dtype {want.dtype} vs {got.dtype}"
    if isinstance(want, tuple) or isinstance(got, tuple):
        if not (isinstance(want, tuple) and isinstance(got, tuple) and len(want) == len(got)):
            return f"{type(want).__name__} vs {type(got).__name__}"
        for k, (a, b) in enumerate(zip(want, got)):
            if (why := _differs(a, b, rtol, atol, dtypes)) is not None:
                return f"[{k}] {why}"
        return None
    if want is None or got is None:
        return None if want is got else f"{want!r} vs {got!r}"
    if dtypes and type(want) is not type(got) and not (isinstance(want, np.ndarray) and isinstance(got, np.ndarray)):
        # a number returned as a number: a Python float, not a NumPy float64, as the loop's
        return f"{type(want).__name__} vs {type(got).__name__}"
    if dtypes and (isinstance(want, list) or isinstance(got, list)):
        # a list returned as a list: its items must be the loop's, of the loop's types
        if not (isinstance(want, list) and isinstance(got, list) and len(want) == len(got)):
            return f"{type(want).__name__} of {len(want)} vs {type(got).__name__} of {len(got)}" \
                if hasattr(want, "__len__") and hasattr(got, "__len__") else f"{want!r} vs {got!r}"
        for k, (a, b) in enumerate(zip(want, got)):
            if type(a) is not type(b):
                return f"item {k}: {type(a).__name__} vs {type(b).__name__}"
            if (why := _differs(a, b, rtol, atol, dtypes)) is not None:
                return f"item {k}: {why}"
        return None
    try:
        # (complex values compared as complex: as float, their imaginary parts were dropped)
        kind = complex if any(np.iscomplexobj(v) for v in (want, got)) else float
        a, b = np.asarray(want, dtype=kind), np.asarray(got, dtype=kind)
    except (TypeError, ValueError, OverflowError):  # (a Python int past a float's range: exact)
        return None if _equal(want, got) else f"{want!r} vs {got!r}"
    if a.shape != b.shape:
        return f"shape {a.shape} vs {b.shape}"
    if any(getattr(v, "dtype", None) in (np.float32, np.float16, np.complex64) for v in (want, got)):
        # a float32 sum of forty terms in another order differs past 1e-7 (seed 8203052)
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
    if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
        return f"{np.array2string(a, precision=4)} vs {np.array2string(b, precision=4)}"
    return None


def compare(want: dict, got: dict, library: str, single: bool = False, fast_math: bool = False) -> str | None:
    """The first observable that differs, described, or None. NumPy arrays and scalars must
    also have the same dtype; ``single``: the inputs were float32 (looser tolerances);
    ``fast_math``: the rewrite may expand a squared distance, exact to ``eps * |x|**2``
    absolute (about 1e-5 in float32 for the fuzzer's rows, 1e-13 in float64)."""
    rtol, atol = (1e-7, 1e-9) if library == "numpy" else (1e-4, 1e-4)
    if single:
        rtol, atol = 1e-5, 1e-4 if fast_math else 1e-6
    dtypes = library == "numpy"
    if (want["raised"] is None) != (got["raised"] is None):  # the type may differ: IndexError vs ValueError
        return f"raised: {want['raised']} vs {got['raised']}"
    if want["stdout"] != got["stdout"]:
        return f"printed {want['stdout'][:40]!r} vs {got['stdout'][:40]!r}"
    for key in ("globals", "box"):
        # (values, or dicts of them: arrays too, where a wider draw made a number an array)
        values = [(want[key], got[key])] if not isinstance(want[key], dict) or not isinstance(got[key], dict) \
            or want[key].keys() != got[key].keys() else [(want[key][k], got[key][k]) for k in want[key]]
        if any(isinstance(w, dict) or isinstance(g, dict) or (w is None) != (g is None)
               or w is not None and _differs(w, g, rtol, atol) for w, g in values):
            return f"{key}: {want[key]!r} vs {got[key]!r}"
    for name, arr in want["arguments"].items():
        if (why := _differs(arr, got["arguments"][name], rtol, atol, dtypes)) is not None:
            return f"argument {name} after the call: {why}"
    if want["raised"] is None and (why := _differs(want["return"], got["return"], rtol, atol, dtypes)) is not None:
        return f"return value: {why}"
    return None


def _rank_enforced(got: dict, code: str) -> bool:
    """The rewrite raised where ``tf.debugging.assert_rank`` (``_in``, ``_at_least``), which it
    puts in front of TensorFlow's batched code for a rank the user declared, found another: the
    wider draw passed what the declaration rules out."""
    return got["raised"] == "ValueError" and "debugging.assert_rank" in code \
        and " must have rank " in (got["message"] or "")


def _empty_stacks_only(want: dict, got: dict) -> bool:
    """The return values differ only where the loop's is a ``(0,)`` tensor (``tf.stack([])``
    of an empty list) and the rewrite's an empty tensor of higher rank."""
    def empty(t, rank):
        return hasattr(t, "shape") and len(t.shape) >= rank and t.shape[0] == 0 and int(np.prod(t.shape)) == 0

    ret_w, ret_g = want["return"], got["return"]
    pairs = list(zip(ret_w, ret_g)) if isinstance(ret_w, tuple) and isinstance(ret_g, tuple) else [(ret_w, ret_g)]
    fixed = []
    for w, g in pairs:
        fixed.append(g if empty(w, 1) and len(w.shape) == 1 and empty(g, 2) else w)
    patched = dict(want, **{"return": tuple(fixed) if isinstance(ret_w, tuple) else fixed[0]})
    return compare(patched, got, "tensorflow") is None


def _main_plan(result, source):
    """The plan of the program's loop; where loop distribution split it, the plans of its
    pieces summed up: vectorizable only where every piece is, rewritten where any piece is."""
    line = next(k for k, text in enumerate(source.splitlines(), 1) if text.startswith("    for i in "))
    plans = [p for p in result.plans if p.lineno == line]
    if len(plans) <= 1:
        return plans[0] if plans else None
    rewritten = [p for p in plans if p.rewritten]
    return dataclasses.replace(rewritten[0] if rewritten else plans[0], vectorizable=all(p.vectorizable for p in plans),
                               remarks=tuple(r for p in plans for r in p.remarks))


def _staged_differs(program, source, backend, base, want, single, staged) -> str | None:
    """What ``pforge.vectorize`` would run for these inputs differs from the loop: the program
    transpiled with the ranks and kinds of this draw's arguments, as the decorator keys them
    (``runtime.signatures``: its checks of types and dtypes worked out for them,
    ``transpile.specialize``); None where it agrees. ``staged`` keeps one rewrite per
    signature."""
    from pforge.runtime.signatures import _arg_key, _kind_fact, _rank_fact
    from pforge.transpile import transpile_source

    keys = {name: _arg_key(value) for name, value in base.items()}
    signature = tuple(sorted((name, repr(key)) for name, key in keys.items()))
    if signature not in staged:
        shapes = {f"f.{name}": r for name, key in keys.items() if (r := _rank_fact(key, False)) is not None}
        kinds = {f"f.{name}": k for name, key in keys.items() if (k := _kind_fact(key, False)) is not None}
        options = {} if program.memory_bound is None else {"memory_bound": program.memory_bound}
        try:
            staged[signature] = transpile_source(source, "fuzz.py", backend=backend, shapes=shapes, kinds=kinds,
                                                 fast_math=program.fast_math, **options).code
        except Exception as exc:  # noqa: BLE001 - any exception is a bug in pforge
            return f"staged transpile: {type(exc).__name__}: {exc}"
    got = _execute(staged[signature], copy.deepcopy(base), "numpy", "staged")
    why = compare(want, got, "numpy", single, program.fast_math)
    return None if why is None else f"staged for {dict(signature)}: {why}"


def judge(program: Program, backend: str, ranks_known: bool, draws: int = 4, target: str = "auto") -> Outcome:
    """Transpiles ``program`` under one configuration and compares it with the loop on ``draws``
    fresh inputs (trip counts from 0 to 40, Python lists where the program accepts them: a
    declared rank does not say a value is no list, and TensorFlow's ops take one).

    ``target="tensorflow"`` judges a NumPy program written with ``tf.experimental.numpy``
    (``--target tensorflow``): its values are tensors, compared as TensorFlow's are (dtypes
    aside, looser tolerances); a program it leaves as it is is not run."""
    from pforge.transpile import transpile_source
    from pforge.transpile.errors import SourceError

    source = program.source()
    shapes = {name: INPUTS[name][0] for name in program.params if INPUTS[name][0] is not None} \
        if ranks_known else None
    try:
        options = {} if program.memory_bound is None else {"memory_bound": program.memory_bound}
        result = transpile_source(source, "fuzz.py", backend=backend, shapes=shapes, vector_plans=True,
                                  fast_math=program.fast_math, target=target, **options)
    except SourceError as exc:
        return Outcome(CRASH, f"transpile: {exc}", source)
    except Exception as exc:  # any other exception is a bug in pforge
        return Outcome(CRASH, f"transpile: {type(exc).__name__}: {exc}", source)
    plan = _main_plan(result, source)
    if plan is None:
        return Outcome(CRASH, "no plan for the loop", result.code)
    if program.expect == REFUSE and plan.vectorizable:
        return Outcome(WRONG_VERDICT, f"planted {[f.kind for f in program.fragments if f.expect == REFUSE]} "
                                      f"but: {plan.remarks[0].message if plan.remarks else ''}", result.code)
    moved = target == "tensorflow"  # (NumPy's loop, TensorFlow's values)
    if moved and not plan.rewritten:
        return Outcome(KEPT if plan.vectorizable else REFUSED, "", result.code)
    compared_as = "tensorflow" if moved else program.library
    rng = np.random.default_rng(program.seed)
    more_defined = None
    staged: dict = {}  # the staged decorator's rewrite per signature (see _staged_differs)
    guarded = has_rank_checks(result.code)
    code = instrument_rank_checks(result.code) if guarded else result.code
    held = False
    # with ranks declared, one more draw passes arrays (tensors) of one axis more than declared:
    # a declared rank is the user's word, which the rewrite checks before it rests on it (the
    # pfor backend's `tf.vectorized_map` rests on none)
    wider = ranks_known and (program.library == "numpy" or plan.backend == "direct")
    for draw in range(draws + wider):
        # empty, one iteration, a short loop, and one longer than the rewrites' blocks (a blocked
        # scan carries from block to block only past 16 iterations)
        n = (0, 1)[draw] if draw < 2 else int(rng.integers(17, 41)) if draw == draws - 2 else int(rng.integers(2, 8))
        as_lists = program.lists_ok and draw % 2 == 1
        base = _inputs(program, rng, n, as_lists, wider=draw == draws)
        # the last draw of a NumPy program in float32 and int8: Python numbers in the loop take
        # an array's dtype (NEP 50), which the batched code must keep
        single = program.library == "numpy" and draw == draws - 1 and not as_lists
        if single:  # and the integer arrays int8: the loop's sums and products stay int8
            base = {k: v.astype({"f": np.float32, "i": np.int8}[v.dtype.kind])
                    if isinstance(v, np.ndarray) and v.dtype.kind in "fi" else v for k, v in base.items()}
        want_args = _to_library(copy.deepcopy(base), program.library)
        got_args = _to_library(copy.deepcopy(base), program.library)
        want = _execute(source, want_args, program.library, "loop")
        try:
            got = _execute(code, got_args, program.library, "rewrite")
        except Exception as exc:  # the rewrite does not even define f
            return Outcome(CRASH, f"rewritten module: {type(exc).__name__}: {exc}", result.code)
        held = held or any(got["guards"] or ())
        if draw == draws and want["raised"] is None and _rank_enforced(got, result.code):
            continue  # (TensorFlow's batched code enforces a declared rank: loudly, never a wrong value)
        if want["raised"] is not None and got["raised"] is None:
            more_defined = f"n={n}: the loop raised {want['raised']}"
            continue
        if want["raised"] is not None and "# pforge: loop distributed" in result.code:
            # a distributed loop raises too, but the pieces before the one that raises have run
            # every iteration (analysis/distribution.py): the arguments it leaves may differ
            more_defined = f"n={n}: the loop raised {want['raised']}; the distributed pieces raised {got['raised']}"
            continue
        why = compare(want, got, compared_as, single, program.fast_math)
        if why is None and want["raised"] is None and program.library == "numpy" and not moved:
            why = _staged_differs(program, source, backend, base, want, single, staged)
        if why is not None and program.library == "tensorflow" and _empty_stacks_only(want, got):
            # `tf.stack([])` is `(0,)` float32; the batched value keeps the items' shape, `(0, d)`
            # (the README's contract): more defined, as where the loop raises
            more_defined = f"n={n}: the loop's tf.stack([]) is (0,), the rewrite's {why}"
            continue
        if why is not None:
            lists = " (Python lists)" if as_lists else ""
            return Outcome(WRONG_RESULT, f"n={n}{lists}: {why}", result.code)
    if plan.rewritten:
        if guarded and not held:
            return Outcome(GUARDED_OUT, plan.backend_note, result.code)
        if more_defined is not None:
            return Outcome(MORE_DEFINED, more_defined, result.code)
        return Outcome(REWRITTEN, plan.backend or "", result.code)
    if plan.vectorizable:
        note = next((r.message for r in plan.remarks if r.code == "PF301"), "")
        return Outcome(KEPT, note, result.code)
    return Outcome(REFUSED, plan.remarks[0].code if plan.remarks else "", result.code)


__all__ = ["CONFIGS", "EITHER", "GUARDED_OUT", "VECTORIZE", "Outcome", "compare", "config_of", "judge"]
