"""Times the pairwise distances of ``samples/knn_distances.py`` rewritten at several
``memory_bound`` values (strip-mining), side by side in one run, with the hand reference.

    python benchmarks/strips.py [--points 400 800 128] [--bounds 0 1 2 4 8] [--repeats 3]

Each bound's rewrite is checked against the reference, then timed (best of ``--repeats``
calls, after one warm-up) and its peak allocation measured with ``tracemalloc`` (which NumPy
reports its arrays to). Bound 0 is the rewrite without strips: the whole ``(n, m, dim)``
differences at once. Prints one row per bound: milliseconds, MiB, and both over the
reference's. Exit status 0, or 1 when a rewrite's result differs from the reference's.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
import tracemalloc

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))

from pforge.transpile import transpile_source  # noqa: E402


def _module(code: str) -> dict:
    namespace: dict = {}
    exec(compile(code, "knn_distances.py", "exec"), namespace)  # noqa: S102 - the sample's own code
    return namespace


def _measure(function, args, repeats: int) -> tuple[float, float]:
    """(best seconds of ``repeats`` calls, peak bytes of one call)."""
    function(*args)
    tracemalloc.start()
    function(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function(*args)
        best = min(best, time.perf_counter() - start)
    return best, peak


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, nargs=3, default=[400, 800, 128], metavar=("N", "M", "DIM"))
    parser.add_argument("--bounds", type=float, nargs="+", default=[0, 1, 2, 4, 8], help="MiB; 0: no strips")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    source = (ROOT / "samples" / "knn_distances.py").read_text()
    rng = np.random.default_rng(0)
    n, m, dim = args.points
    inputs = (rng.standard_normal((n, dim)), rng.standard_normal((m, dim)))
    reference = _module(source)["reference_distances"]
    want = reference(*inputs)
    ref_time, ref_peak = _measure(reference, inputs, args.repeats)
    print(f"{'bound MiB':>10} {'ms':>9} {'MiB':>9} {'t/ref':>7} {'m/ref':>7}")
    failed = False
    for bound in args.bounds:
        code = transpile_source(source, "knn_distances.py", memory_bound=bound).code
        function = _module(code)["distances"]
        if not np.allclose(function(*inputs), want, rtol=1e-9, atol=1e-9):
            print(f"{bound:>10g}  result differs from the reference")
            failed = True
            continue
        seconds, peak = _measure(function, inputs, args.repeats)
        print(f"{bound:>10g} {seconds * 1e3:9.2f} {peak / 2 ** 20:9.2f} {seconds / ref_time:7.2f} "
              f"{peak / max(ref_peak, 1):7.2f}")
    print(f"{'reference':>10} {ref_time * 1e3:9.2f} {ref_peak / 2 ** 20:9.2f}")
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
