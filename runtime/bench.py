"""Times a loop function against its staged, pfor, direct and hand-written versions, side by side.

For one function of a user file, ``bench_function`` runs in one process, on one device and on
the same fresh inputs: the original loop eagerly, the original under ``tf.function``, the
output of the pfor and of the direct backend, the function under ``@pforge.vectorize``
(rewritten at its first call), and the file's ``reference_<func>`` (under ``tf.function``)
when there is one. Calls are interleaved (``timing.time_interleaved``), so the
medians are comparable; each variant's first call (trace + run) is timed on its own, and each
result is compared with the eager loop's.
"""

import dataclasses
import os
import re

from pforge.runtime import targets
from pforge.runtime.compare import compare
from pforge.runtime.loader import load_module
from pforge.runtime.targets import TargetError
from pforge.runtime.timing import time_interleaved, timed_call

#: Variant keys, in column order, and how tables label them.
VARIANTS = {
    "loop": "loop (eager)",
    "loop_tf_function": "loop (tf.function)",
    "pfor": "pfor output",
    "direct": "direct output",
    "decorated": "@pforge.vectorize",
    "reference": "reference (tf.function)",
}
#: Variants the static transpiler writes, one per backend.
GENERATED = ("pfor", "direct")
#: Variants whose code pforge wrote: a mismatch or an error there is a failure.
CHECKED = GENERATED + ("decorated",)
#: ``status`` values of a ``VariantTiming``.
STATUSES = ("ok", "unchanged", "mismatch", "error", "n/a")

_NAN = float("nan")


@dataclasses.dataclass(frozen=True)
class VariantTiming:
    """One variant of a benchmarked function.

    Attributes:
      name: a key of ``VARIANTS``.
      status: ``ok``; ``unchanged`` (pfor or direct output that ran and
        matched, but where the transpiler left a loop it proved independent
        as a loop because a rank is unknown: that loop was not tested, see
        ``note``); ``mismatch`` (ran, result differs from the eager loop's);
        ``error`` (raised); ``n/a`` (not run: no such backend, no reference,
        the original does not trace under ``tf.function``, NumPy code).
      median_s: median seconds per call in steady state (NaN unless run).
      first_s: seconds of the first call, including ``tf.function`` tracing.
      repeats: timed calls the median is over (0 unless run).
      vs_loop: speedup over the eager loop, ``loop median / this median``.
      vs_pfor: speedup over the pfor output, ``pfor median / this median``.
      max_abs_err: max ``|loop - this|`` over all elements (``inf`` on a
        structure mismatch).
      note: why it was not run or failed, or what the transpiler did (a loop
        that fell back to another backend or was left as a loop).
    """

    name: str
    status: str
    median_s: float = _NAN
    first_s: float = _NAN
    repeats: int = 0
    vs_loop: float = _NAN
    vs_pfor: float = _NAN
    max_abs_err: float = _NAN
    note: str = ""

    @property
    def ran(self):
        """The variant was called and timed."""
        return self.status in ("ok", "unchanged", "mismatch")


@dataclasses.dataclass(frozen=True)
class BenchResult:
    """The benchmark of one function.

    Attributes:
      file: the source file.
      function: the function's name in the file.
      device: where it ran, e.g. ``"CPU"`` or ``"GPU: NVIDIA H200"``.
      loops_found: loops the transpiler found in the function.
      variants: one ``VariantTiming`` per key of ``VARIANTS``, in that order.
      call_floor_s: median seconds of an empty ``tf.function`` called with the
        same arguments, timed in the same rounds (NaN without TensorFlow).
        Every staged variant's median includes this dispatch cost, which no
        rewrite can remove, so ratios between fast variants are compressed
        towards 1 when their medians are close to it.
    """

    file: str
    function: str
    device: str
    loops_found: int
    variants: tuple[VariantTiming, ...]
    call_floor_s: float = _NAN

    def variant(self, name):
        """Returns the ``VariantTiming`` called ``name``. Raises ``KeyError``."""
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def ok(self):
        """No generated variant mismatched or raised."""
        return not any(v.status in ("mismatch", "error") for v in self.variants
                       if v.name in CHECKED)


@dataclasses.dataclass
class _Candidate:
    name: str
    fn: object = None
    note: str = ""
    na: str = ""  # why it cannot run (status n/a)
    error: str = ""  # why it failed before its first call (status error)
    unchanged: bool = False  # a loop was left for lack of a rank (status unchanged when it matches)
    code: str = ""  # the transpiled text, for its run-time rank checks


def bench_function(path, func, *, arg_specs=(), seed=0, repeats=30, warmup=3, device="auto",
                   rtol=1e-4, atol=1e-5, time_budget_s=3.0, shapes=None, probe=None):
    """Benchmarks one function: eager loop, ``tf.function`` loop, pfor, direct, reference.

    Inputs are built as for ``pforge verify`` (``--arg`` specs, else the file's
    ``example_inputs(seed)[func]``, else ``make_inputs(seed)``), fresh for
    every call. Every variant's first call is timed alone and its result
    compared with the eager loop's; then ``warmup`` untimed rounds and up to
    ``repeats`` timed rounds call all variants that ran, interleaved.

    The file is transpiled with the ranks ``verify`` uses (``targets.ranks_for``).
    A NumPy function (``targets.is_numpy``) runs on NumPy arrays on the CPU
    without TensorFlow: its ``tf.function`` variant is ``n/a``, its reference
    runs eagerly and there is no call floor.

    Args:
      path: the Python file.
      func: the name of a module-level function.
      arg_specs: ``ArgSpec``s or spec strings (``"x=float32[64,32]"``).
      seed: seed for the inputs.
      repeats: timed calls per variant.
      warmup: untimed calls per variant after the first.
      device: ``"auto"``, ``"cpu"`` or ``"gpu"`` (see ``timing.pick_device``).
      rtol: relative tolerance of the comparison with the eager loop.
      atol: absolute tolerance of the comparison with the eager loop.
      time_budget_s: per variant, about at most this many seconds of timed
        calls (but at least 3): a slow eager loop gets fewer repeats, the
        fast variants keep ``repeats``.
      shapes: ranks as ``--shapes`` gives them (``{"x": 2}``); they win over
        the others.
      probe: ``True``/``False``/``None`` (auto), see ``targets.ranks_for``.

    Returns:
      A ``BenchResult``. A backend the transpiler does not have (``ValueError``
      "unknown backend") gives that variant status ``n/a``, note "backend not
      available".

    Raises:
      TargetError: missing file or function, no inputs, the original
        raised on the inputs, or probing failed.
      ValueError: a spec string is malformed.
    """
    path = os.fspath(path)
    specs = targets.parse_specs(arg_specs)
    text = targets.read(path)
    tree = targets.parse(text, path)
    original = targets.load_original(path)
    fn_loop = targets.resolve(original, func, path)
    ranks = targets.ranks_for(original, func, path, specs, shapes, probe)
    candidates = [_Candidate("loop", fn_loop)]
    generated, plans = [], []
    for backend in GENERATED:
        candidate, got = _generated(path, text, func, backend, ranks)
        generated.append(candidate)
        plans = plans if got is None or len(got) < len(plans) else got
    reference = getattr(original, f"reference_{func.rpartition('.')[2]}", None)
    numpy = targets.is_numpy(plans, tree)

    with targets.on_device(device, numpy=numpy) as (label, has_tf):
        if has_tf:
            from pforge.runtime._tf import tensorflow  # noqa: PLC0415 - lazy

            staged = tensorflow().function
            candidates.append(_Candidate("loop_tf_function", staged(fn_loop)))
        else:
            staged = None
            candidates.append(_Candidate("loop_tf_function", na="NumPy code" if numpy
                                         else "TensorFlow not installed"))
        candidates += generated
        candidates.append(_decorated(fn_loop))
        if callable(reference):
            candidates.append(_Candidate("reference", staged(reference) if staged else reference,
                                         note="" if staged else "eager"))
        else:
            candidates.append(_Candidate("reference", na=f"no reference_{func} in the file"))

        make_args = targets.input_maker(original, func, specs, seed, path, as_tensor=has_tf)
        want, first_loop = targets.call_original(fn_loop, make_args, path, func)
        firsts = {"loop": (first_loop, True, 0.0)}
        done = {}
        for c in candidates[1:]:
            if c.na or c.error:
                done[c.name] = VariantTiming(c.name, "n/a" if c.na else "error",
                                             note=_join(c.note, c.na or c.error))
                continue
            try:
                got, first = timed_call(c.fn, *make_args())
            except Exception as exc:  # noqa: BLE001 - a variant that fails is a result
                status = "n/a" if c.name == "loop_tf_function" else "error"
                verb = "does not trace: " if status == "n/a" else "raised "
                done[c.name] = VariantTiming(c.name, status, note=_join(c.note, verb + _brief(exc)))
                continue
            match = compare(want, got, rtol, atol)
            if c.code and targets.rank_checks_held(path, c.code, func, make_args) is False:
                c.unchanged = True
                c.note = _join(c.note, "its run-time rank check failed on these inputs: the loop ran")
            firsts[c.name] = (first, match.ok, match.max_abs_err)
            if not match.ok:
                c.note = _join(c.note, match.message)
        timed = [c for c in candidates if c.name in firsts]
        for c in timed:
            if c.name == "decorated":
                c.note = _join(c.note, _staging_note(c.fn))
        fns = [c.fn for c in timed] + ([staged(_empty)] if staged else [])
        timings = time_interleaved(fns, make_args, repeats, max(0, warmup - 1), time_budget_s, each=True)
        floor = timings.pop().median_s if staged else _NAN

    medians = {c.name: t.median_s for c, t in zip(timed, timings)}
    for c, t in zip(timed, timings):
        first, ok, err = firsts[c.name]
        status = "mismatch" if not ok else "unchanged" if c.unchanged else "ok"
        done[c.name] = VariantTiming(
            c.name, status, t.median_s, first,
            t.repeats, _ratio(medians["loop"], t.median_s),
            _ratio(medians.get("pfor", _NAN), t.median_s), err, c.note)
    variants = tuple(done[name] for name in VARIANTS)
    return BenchResult(path, func, label, len(plans), variants, floor)


def _decorated(fn):
    """The function under ``@pforge.vectorize``, which stages it at its first call (timed in
    the first-call column: transpile, compile, trace and run)."""
    from pforge.runtime.staged import StagedFunction  # noqa: PLC0415

    try:
        return _Candidate("decorated", StagedFunction(fn))
    except TypeError as exc:  # not a plain Python function
        return _Candidate("decorated", na=str(exc))


def _staging_note(decorated):
    """What the decorator did at its first call, and what that cost."""
    entries = decorated.signatures
    if not entries:
        return ""
    entry = entries[0]
    if not entry.rewritten:
        return f"ran as written: {entry.reason}"
    cost = f"first call: transpile {entry.transpile_s * 1e3:.0f} ms"
    if entry.first_call_s is not None:
        cost += f", then {'trace and ' if entry.staged else ''}run {entry.first_call_s * 1e3:.0f} ms"
    return cost + (f"; {len(entries)} signatures" if len(entries) > 1 else "")


def _empty(*args, **kwargs):
    """The call floor's function: takes the arguments, computes nothing."""
    del args, kwargs


def bench_path(path, **options):
    """Benchmarks every function with inputs in a file, or in every file of a directory.

    Args:
      path: a ``.py`` file or a directory (see ``targets.over_path``).
      **options: passed to ``bench_function``.

    Returns:
      A list of ``BenchResult``.

    Raises:
      TargetError: see ``targets.over_path`` and ``bench_function``.
    """
    return targets.over_path(bench_function, path, **options)


def _generated(path, text, func, backend, ranks):
    """Transpiles with ``backend`` and loads the result.

    Returns:
      ``(candidate, plans)``: the variant, and the function's plans (``None``
      when the transpiler has no such backend).
    """
    try:
        result = targets.transpile(text, path, backend, ranks)
    except TargetError:
        raise
    except ValueError as exc:
        if "unknown backend" in str(exc):
            return _Candidate(backend, na="backend not available"), None
        raise
    plans = targets.plans_of(result, func)
    note = _rewrite_note(plans, backend)
    unchanged = any(targets.rank_unknown(p) for p in plans)
    try:
        module = load_module(path, source=result.code, variant=backend)
        return _Candidate(backend, targets.resolve(module, func, path), note,
                          unchanged=unchanged, code=result.code), plans
    except Exception as exc:  # noqa: BLE001 - broken generated code is a result
        return _Candidate(backend, note=note, error="import raised " + _brief(exc)), plans


def _rewrite_note(plans, backend):
    """Says what the transpiler did with the function's loops, when it is not all ``backend``:
    a loop that fell back to another backend, or that stayed a loop (and why, from its PF301
    note; ``rank unknown`` first when a rank was missing)."""
    if not plans:
        return "no loop found"
    parts = []
    for plan in plans:
        why = [r.message for r in getattr(plan, "remarks", ()) if r.code.startswith("PF3")]
        if not plan.rewritten:
            rank = targets.rank_unknown(plan)
            reason = (rank or (why[0] if why else "")).removeprefix("left as a loop: ")
            parts.append(f"line {plan.lineno}: left as a loop"
                         + (", rank unknown" if rank else "")
                         + (f" ({_shorten(reason, 160)})" if reason else ""))
        elif plan.backend and plan.backend != backend:
            parts.append(f"line {plan.lineno}: fell back to {plan.backend}"
                         + (f" ({_shorten(why[0])})" if why else ""))
    if any(targets.rank_unknown(p) for p in plans):
        parts.append("give ranks with --shapes, --probe or --arg")
    return "; ".join(parts)


def _ratio(num, den):
    return num / den if den > 0 else _NAN


def _brief(exc):
    """``Type: first sentence``, shortened: tracing errors run to pages.

    A ``tf.function`` error reads ``in user code: File ..., line N, in f * ...
    SomeError: message``: it becomes ``SomeError at line N: message``.
    """
    text = str(exc).strip()
    name = type(exc).__name__
    if text.startswith("in user code:"):
        user_lines = _USER_FRAME.findall(text)
        raised = _RAISED.search(text)
        if raised:
            name, text = raised.groups()
        if user_lines:
            name += f" at line {user_lines[-1]}"
    first = _first_sentence(text)
    return _shorten(f"{name}: {first}" if first else name)


_USER_FRAME = re.compile(r'^\s*File "[^"]*", line (\d+), in .*\*\s*$', re.MULTILINE)
_RAISED = re.compile(r"^\s*(\w+(?:Error|Exception)): (.*)$", re.MULTILINE)


def _first_sentence(text):
    line = text.strip().split("\n", 1)[0] if text.strip() else ""
    end = line.find(". ")
    return line[:end + 1] if end > 0 else line


def _shorten(text, limit=100):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _join(*parts):
    return "; ".join(p for p in parts if p)
