"""Runs original and transpiled code on the same inputs, compares and times them."""

import dataclasses
import os

from pforge.runtime import targets
from pforge.runtime.compare import compare
from pforge.runtime.loader import load_module
from pforge.runtime.targets import TargetError, functions_in
from pforge.runtime.timing import time_interleaved, timed_call

#: The error ``verify`` raises for bad input; see ``targets.TargetError``.
VerifyInputError = TargetError


@dataclasses.dataclass(frozen=True)
class VerifyResult:
    """Outcome of verifying one function.

    Attributes:
      file: the source file.
      function: the function's name in the file.
      loops_found: loops the transpiler found in the function.
      loops_vectorized: of those, how many it rewrote.
      max_abs_err: see ``Comparison`` (``inf`` on a structure mismatch or
        when the generated code raised).
      max_rel_err: see ``Comparison``.
      ok: the generated function returned the original's result.
      time_original_s: median seconds per call of the original.
      time_generated_s: median seconds per call of the generated code.
      speedup: ``time_original_s / time_generated_s``.
      device: where it ran, e.g. ``"GPU: NVIDIA H200"``.
      note: why it failed, or remarks (e.g. nothing was rewritten).
      first_original_s: seconds of the original's first call.
      first_generated_s: seconds of the generated code's first call
        (includes ``tf.function`` tracing).
      loops_rank_unknown: loops the analysis proved independent that the
        transpiler left as loops because a rank is unknown (see
        ``targets.rank_unknown``): for those, nothing was tested.
      status: ``"ok"``; ``"mismatch"`` (the results differ); ``"error"``
        (the generated code raised); ``"unchanged: rank unknown"`` (some
        loop was left for lack of a rank, see ``note``); ``"unchanged"``
        (no loop rewritten, e.g. all refused).
    """

    file: str
    function: str
    loops_found: int
    loops_vectorized: int
    max_abs_err: float
    max_rel_err: float
    ok: bool
    time_original_s: float
    time_generated_s: float
    speedup: float
    device: str
    note: str = ""
    first_original_s: float = float("nan")
    first_generated_s: float = float("nan")
    loops_rank_unknown: int = 0
    status: str = "ok"


def verify_function(path, func, *, arg_specs=(), seed=0, rtol=1e-4, atol=1e-5, repeats=20,
                    warmup=2, time_budget_s=5.0, backend="auto", shapes=None, probe=None,
                    decorated=False):
    """Transpiles a file, then runs, compares and times one function both ways.

    Inputs come from ``arg_specs`` (keyword arguments) if given, else from the
    file's ``example_inputs(seed)[func]``, else ``make_inputs(seed)`` when
    ``func == "original"`` (the shared-cases convention); they are rebuilt for
    every call. Timed calls alternate between the two versions.

    The file is transpiled with the ranks ``pforge transpile`` would be given
    (``targets.ranks_for``): by default those of the inputs it runs on, so a
    file with ``example_inputs()`` is checked as ``pforge transpile --probe``
    rewrites it. A NumPy function (``targets.is_numpy``) runs on NumPy arrays,
    on the CPU, without TensorFlow.

    Args:
      path: the Python file.
      func: the name of a module-level function.
      arg_specs: ``ArgSpec``s or spec strings (``"x=float32[64,32]"``).
      seed: seed for the inputs.
      rtol: relative tolerance of the comparison.
      atol: absolute tolerance of the comparison.
      repeats: timed calls of each version.
      warmup: untimed calls of each version before timing.
      time_budget_s: timing takes about at most this many seconds (but at
        least 3 repeats): slow originals get fewer repeats.
      backend: passed to ``pforge.transpile.transpile_source``.
      shapes: ranks as ``--shapes`` gives them (``{"x": 2}``); they win over
        the others.
      probe: ``True``/``False``/``None`` (auto), see ``targets.ranks_for``.
      decorated: run the function under ``pforge.vectorize`` (rewritten at its first call
        with the ranks of that call) instead of the file's static rewrite; the note gives
        the first call's cost.

    Returns:
      A ``VerifyResult``. A generated version that fails to import or raises
      gives ``ok=False`` with the error in ``note``.

    Raises:
      VerifyInputError: see the class; also a failed ``probe``.
      ValueError: a spec string is malformed.
    """
    path = os.fspath(path)
    specs = targets.parse_specs(arg_specs)
    text = targets.read(path)
    tree = targets.parse(text, path)
    original = targets.load_original(path)
    fn_orig = targets.resolve(original, func, path)
    ranks = targets.ranks_for(original, func, path, specs, shapes, probe)
    result = targets.transpile(text, path, backend, ranks)
    plans = targets.plans_of(result, func)
    found, rewritten = len(plans), sum(bool(p.rewritten) for p in plans)
    unknown = [p for p in plans if targets.rank_unknown(p)]
    counts = dict(loops_found=found, loops_vectorized=rewritten, loops_rank_unknown=len(unknown))

    with targets.on_device(numpy=targets.is_numpy(plans, tree)) as (label, has_tf):
        make_args = targets.input_maker(original, func, specs, seed, path, as_tensor=has_tf)
        want, first_orig = targets.call_original(fn_orig, make_args, path, func)
        staged_note = ""
        try:
            if decorated:
                from pforge.runtime.staged import StagedFunction  # noqa: PLC0415

                fn_gen = StagedFunction(fn_orig, backend=backend)
                got, first_gen = timed_call(fn_gen, *make_args())
                entry = fn_gen.signatures[0]
                plans = entry.plans or plans
                unknown = [p for p in plans if targets.rank_unknown(p)]
                rewritten = len(entry.rewritten)
                counts = dict(loops_found=len(plans), loops_vectorized=rewritten, loops_rank_unknown=len(unknown))
                staged_note = (f"@pforge.vectorize, first call: transpile {entry.transpile_s * 1e3:.0f} ms"
                               if entry.rewritten else f"@pforge.vectorize ran it as written: {entry.reason}")
                checks = None
            else:
                generated = load_module(path, source=result.code)
                fn_gen = targets.resolve(generated, func, path)
                got, first_gen = timed_call(fn_gen, *make_args())
                checks = targets.rank_checks_held(path, result.code, func, make_args)
            match = compare(want, got, rtol, atol)
            t_orig, t_gen = time_interleaved([fn_orig, fn_gen], make_args, repeats, warmup,
                                             time_budget_s)
        except Exception as exc:  # noqa: BLE001 - a broken rewrite is a result, not a crash
            inf, nan = float("inf"), float("nan")
            return VerifyResult(
                file=path, function=func, max_abs_err=inf, max_rel_err=inf, ok=False,
                time_original_s=nan, time_generated_s=nan, speedup=nan, device=label,
                note=f"generated code raised {type(exc).__name__}: {exc}",
                first_original_s=first_orig, status="error", **counts)
    notes = [staged_note] if staged_note else []
    notes += [match.message] if match.message else []
    if not match.ok:
        status = "mismatch"
    elif unknown:
        status = "unchanged: rank unknown"
    elif not rewritten:
        status = "unchanged"
    elif checks is False:
        status = "unchanged: rank check failed"
        notes.append("the ranks the rewrite checks at run time (`np.ndim(...)`) do not hold for "
                     "these inputs, so the loop ran; declare them (--shapes, a docstring)")
    else:
        status = "ok"
    if not rewritten:
        notes.append("no loop rewritten")
    notes += targets.rank_unknown_notes(unknown)
    return VerifyResult(
        file=path, function=func,
        max_abs_err=match.max_abs_err, max_rel_err=match.max_rel_err, ok=match.ok,
        time_original_s=t_orig.median_s, time_generated_s=t_gen.median_s,
        speedup=t_orig.median_s / t_gen.median_s if t_gen.median_s > 0 else float("inf"),
        device=label, note="; ".join(notes),
        first_original_s=first_orig, first_generated_s=first_gen, status=status, **counts)


def verify_path(path, **options):
    """Verifies every function with inputs in a file, or in every file of a directory.

    Args:
      path: a ``.py`` file, or a directory (see ``targets.over_path``).
      **options: passed to ``verify_function``.

    Returns:
      A list of ``VerifyResult``.

    Raises:
      VerifyInputError: a missing path, or a file given by name that has no
        inputs; see also ``verify_function``.
    """
    return targets.over_path(verify_function, path, **options)


__all__ = ["VerifyInputError", "VerifyResult", "functions_in", "verify_function", "verify_path"]
