"""``python -m tests.fuzz``: generate, transpile, run and compare loop programs; report by kind.

Usage: ``python -m tests.fuzz --count 1000 --seed 0 [--jobs 2] [--library numpy]
[--failures DIR] [--json FILE]``. Program ``k`` of a run is ``generate(seed + k)``, so a run is
reproducible and any program can be rerun alone with ``--seed K --count 1``. Exits 1 when a
program fails (wrong result, wrong verdict, or a crash), after printing each failure reduced
to its smallest form. Each NumPy program is also written with ``tf.experimental.numpy``
(``--target tensorflow``) and, where that rewrites it, judged so too.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import sys
import time
from concurrent.futures import ProcessPoolExecutor

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def run_one(seed: int, library: str | None = None):
    """Judges program ``seed`` under its configuration; a failure comes back reduced."""
    from tests.fuzz.generate import generate
    from tests.fuzz.oracle import config_of, judge
    from tests.fuzz.reduce import reduce

    program = generate(seed)
    if library is not None and program.library != library:
        return None
    backend, ranks = config_of(seed)
    outcome, target = judge(program, backend, ranks), "auto"
    moved = None  # a NumPy program's outcome written with tf.experimental.numpy (`--target tensorflow`)
    if program.library == "numpy":
        moved = judge(program, "direct", ranks, target="tensorflow")
        if moved.failed and not outcome.failed:
            outcome, backend, target = moved, "direct", "tensorflow"
    record = {"seed": seed, "library": program.library, "backend": backend, "ranks": ranks,
              "expect": program.expect, "kinds": list(program.kinds), "outcome": outcome.outcome,
              "detail": outcome.detail, "target": target, "moved": None if moved is None else moved.outcome}
    if outcome.failed:
        small, small_outcome = reduce(program, backend, ranks, outcome, target)
        record.update(reduced=small.source(), reduced_detail=small_outcome.detail,
                      rewrite=small_outcome.code)
    return record


def run(seeds, jobs: int = 1, library: str | None = None, progress=None):
    """Judges every seed; returns the records of the programs of ``library`` (all by default)."""
    records = []
    if jobs <= 1:
        for seed in seeds:
            if (rec := run_one(seed, library)) is not None:
                records.append(rec)
                if progress:
                    progress(rec)
        return records
    with ProcessPoolExecutor(jobs) as pool:
        for rec in pool.map(run_one, seeds, [library] * len(seeds), chunksize=8):
            if rec is not None:
                records.append(rec)
                if progress:
                    progress(rec)
    return records


def summary(records) -> str:
    """A table of outcomes by configuration, and by fragment kind."""
    lines = []
    by_config = collections.Counter((r["library"], r["backend"], "ranks" if r["ranks"] else "no ranks",
                                     r["outcome"]) for r in records)
    lines.append("outcomes by configuration:")
    for key in sorted({k[:3] for k in by_config}):
        counts = {k[3]: v for k, v in by_config.items() if k[:3] == key}
        lines.append(f"  {' / '.join(key):34} " + ", ".join(f"{o}: {n}" for o, n in sorted(counts.items())))
    by_kind = collections.defaultdict(collections.Counter)
    for r in records:
        for kind in set(r["kinds"]):
            by_kind[kind][r["outcome"]] += 1
    lines.append("outcomes by fragment kind (a program counts once under each kind it holds):")
    for kind in sorted(by_kind):
        lines.append(f"  {kind:34} " + ", ".join(f"{o}: {n}" for o, n in sorted(by_kind[kind].items())))
    moved = collections.Counter(r["moved"] for r in records if r.get("moved") is not None)
    if moved:
        lines.append("NumPy programs also written with tf.experimental.numpy (--target tensorflow): "
                     + ", ".join(f"{o}: {n}" for o, n in sorted(moved.items())))
    total = collections.Counter(r["outcome"] for r in records)
    lines.append("total: " + ", ".join(f"{o}: {n}" for o, n in sorted(total.items())) + f" ({len(records)} programs)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0, help="first program number")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--library", choices=("numpy", "tensorflow"))
    parser.add_argument("--failures", type=pathlib.Path, help="write each reduced failure here")
    parser.add_argument("--json", type=pathlib.Path, help="write every record here")
    args = parser.parse_args(argv)
    from tests.fuzz.oracle import FAILURES

    start = time.perf_counter()
    seeds = list(range(args.seed, args.seed + args.count))

    done = []

    def progress(rec):
        done.append(rec["outcome"] in FAILURES)
        if len(done) % 500 == 0:
            print(f"... {len(done)} programs judged, {sum(done)} failed ({time.perf_counter() - start:.0f} s)",
                  file=sys.stderr, flush=True)
        if rec["outcome"] in FAILURES:
            print(f"seed {rec['seed']} ({rec['library']}, {rec['backend']}, "
                  f"{'--target tensorflow, ' if rec.get('target') == 'tensorflow' else ''}"
                  f"{'ranks' if rec['ranks'] else 'no ranks'}): {rec['outcome']}: {rec['reduced_detail']}\n"
                  f"{rec['reduced']}", flush=True)

    records = run(seeds, args.jobs, args.library, progress)
    print(summary(records))
    print(f"seeds {args.seed}..{args.seed + args.count - 1}, {time.perf_counter() - start:.0f} s")
    failed = [r for r in records if r["outcome"] in FAILURES]
    if args.failures:
        args.failures.mkdir(parents=True, exist_ok=True)
        for r in failed:
            (args.failures / f"seed_{r['seed']}.py").write_text(
                f"# {r['outcome']} ({r['library']}, {r['backend']}, ranks={r['ranks']}, target={r.get('target')}): "
                f"{r['reduced_detail']}\n"
                + r["reduced"] + "\n# rewrite:\n" + "".join(f"# {line}\n" for line in r["rewrite"].splitlines()))
    if args.json:
        args.json.write_text(json.dumps(records, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
