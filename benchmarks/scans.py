"""Times the scan samples at 10,000 steps, side by side in one run: the loop as written, the
code ``pforge transpile`` writes for it, and the same recurrence with ``tf.scan`` (staged with
``tf.function``, the sequential baseline TensorFlow offers).

    python benchmarks/scans.py [--steps 10000] [--repeats 15]

Each function of ``samples/smoothing_scan.py``, ``samples/drawdown_scan.py`` and
``samples/recurrence_arrays.py`` is transpiled with the unsafe fixes (a linear recurrence is
composed in another order, equal to rounding), checked against the loop, and timed with its
sample's inputs, fresh copies made outside the clock; the measurements are interleaved and
the table gives medians and the ratios. The loop and the rewrite are timed first, before
TensorFlow is imported: TensorFlow's thread pools keep spinning after an op and slow NumPy
code beside them on a small machine. ``tf.scan`` is then timed against the loop again, and
its column compares it with the rewrite's median from the first phase. ``tf.scan`` runs what
the loop computes, one step per element, with the running value as its state: ``s -> a * s
+ b`` for the linear recurrences, ``+``, ``max``, ``*`` for the others. Needs TensorFlow for
the ``tf.scan`` column.
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))

from pforge.transpile import transpile_source  # noqa: E402

SAMPLES = ("smoothing_scan", "drawdown_scan", "recurrence_arrays")


def _load(name, source, path):
    spec = importlib.util.spec_from_loader(name, loader=None, origin=str(path))
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def _tf_scans(tf):
    """``tf.scan`` versions of each sample function (what the loop computes, step by step)."""

    @tf.function
    def smooth(signal, alpha):
        x = tf.convert_to_tensor(signal)
        return tf.scan(lambda s, v: alpha * v + (1 - alpha) * s, x, initializer=x[0])

    @tf.function
    def discounted_returns(rewards, gamma):
        r = tf.convert_to_tensor(rewards)
        return tf.scan(lambda g, v: v + gamma * g, r, initializer=tf.zeros([], r.dtype), reverse=True)

    @tf.function
    def drawdown(returns, start):
        growth = 1.0 + tf.convert_to_tensor(returns)
        curve = tf.scan(lambda w, g: w * g, growth, initializer=tf.cast(start, growth.dtype))
        peak = tf.scan(tf.maximum, curve, initializer=tf.cast(start, growth.dtype))
        return (peak - curve) / peak, curve, curve[-1]

    @tf.function
    def cumulative_in_place(totals):
        return tf.scan(lambda s, v: s + v, tf.convert_to_tensor(totals))

    @tf.function
    def balance(start, rates, deposits):
        steps = tf.stack([1.0 + tf.convert_to_tensor(rates), tf.convert_to_tensor(deposits)], axis=1)
        tail = tf.scan(lambda s, rd: rd[0] * s + rd[1], steps, initializer=tf.cast(start, steps.dtype))
        return tf.concat([[tf.cast(start, steps.dtype)], tail], 0)

    @tf.function
    def high_water(levels):
        return tf.scan(tf.maximum, tf.convert_to_tensor(levels))

    return {"smooth": smooth, "discounted_returns": discounted_returns, "drawdown": drawdown,
            "cumulative_in_place": cumulative_in_place, "balance": balance, "high_water": high_water}


def _error(got, want) -> float:
    """The largest absolute difference, over the items of a tuple result too."""
    if isinstance(want, tuple):
        return max(_error(g, w) for g, w in zip(got, want))
    return float(np.max(np.abs(np.asarray(got) - np.asarray(want))))


def _time_ms(fn, args):
    """One call of ``fn`` on fresh copies of the arrays in ``args`` (copied before the clock
    starts: the in-place samples write into them), in milliseconds."""
    fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    start = time.perf_counter()
    fn(*fresh)
    return (time.perf_counter() - start) * 1e3


def _interleaved(timed: dict, args, repeats: int) -> dict:
    """Medians in milliseconds of ``repeats`` rounds that call each function once, in turn."""
    times = {k: [] for k in timed}
    for _ in range(repeats):
        for k, fn in timed.items():
            times[k].append(_time_ms(fn, args))
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=15)
    options = parser.parse_args(argv)
    cases = []
    for sample in SAMPLES:
        path = ROOT / "samples" / f"{sample}.py"
        source = path.read_text()
        result = transpile_source(source, str(path), unsafe=True)
        loop, rewrite = _load(f"{sample}_loop", source, path), _load(f"{sample}_rewrite", result.code, path)
        rewritten = {plan.function for plan in result.plans if plan.rewritten}
        for name, args in loop.example_inputs(steps=options.steps).items():
            if name not in rewritten:
                print(f"{sample}.{name}: not rewritten", file=sys.stderr)
                return 1
            want = getattr(loop, name)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
            got = getattr(rewrite, name)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
            medians = _interleaved({"loop": getattr(loop, name), "rewrite": getattr(rewrite, name)}, args,
                                   options.repeats)
            cases.append((f"{sample}.{name}", name, getattr(loop, name), args, want, medians, _error(got, want)))
    try:  # the second phase: tf.scan beside the loop
        import tensorflow as tf
        scans = _tf_scans(tf)
    except ImportError:
        tf, scans = None, {}
    rows = []
    for label, name, loop_fn, args, want, medians, error in cases:
        scan = scan_error = None
        if name in scans:
            scan_error = _error(scans[name](*args), want)
            second = _interleaved({"loop": loop_fn, "tf.scan": scans[name]}, args, options.repeats)
            scan = second["tf.scan"]
        rows.append((label, medians, scan, error, scan_error))
    print(f"{'function':38} {'loop ms':>9} {'rewrite ms':>11} {'tf.scan ms':>11} {'rewrite x loop':>15} "
          f"{'rewrite x tf.scan':>18} {'max err':>9} {'scan err':>9}")
    for label, m, scan, error, scan_error in rows:
        cells = [f"{m['loop']:9.3f}", f"{m['rewrite']:11.3f}", f"{scan:11.3f}" if scan is not None else f"{'-':>11}",
                 f"{m['loop'] / m['rewrite']:15.1f}",
                 f"{scan / m['rewrite']:18.1f}" if scan is not None else f"{'-':>18}", f"{error:9.1e}",
                 f"{scan_error:9.1e}" if scan_error is not None else f"{'-':>9}"]
        print(f"{label:38} " + " ".join(cells))
    print(f"{options.steps} steps, medians of {options.repeats} interleaved runs on this machine "
          f"({'TensorFlow ' + tf.__version__ if tf else 'no TensorFlow'}); x: how many times faster the rewrite is. "
          "Loop and rewrite timed before TensorFlow was imported; tf.scan after, beside the loop.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
