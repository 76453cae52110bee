"""The rewrite rate on real code: ``python -m tests.realcode [--verbose] [PROJECT ...]``.

Each case under ``tests/realcode/<project>/`` is a loop from a public project, rewritten in our
own words (its docstring cites the source), with ``EXPECT["vectorizable"]`` (decided by reading
it) and ``make_inputs(seed)``. Every case is transpiled as a user would, with no flags, and the
transpiled ``original`` is run against the untouched one on seeds 0, 1 and 2.

Outcomes:

- ``rewritten``: a loop of ``original`` was rewritten, the batched code ran (a run-time rank
  check, where there is one, held) and the numbers match;
- ``check failed``: rewritten, but the rank check failed on these inputs, so the loop ran;
- ``left``: no loop rewritten (the reason is pforge's note);
- ``wrong``: the rewrite returned other numbers or raised where the loop did not;
- ``verdict``: a loop marked not vectorizable was rewritten (numbers equal on these inputs:
  to be read by hand);
- ``scan``: a loop marked not vectorizable, for a running value, was rewritten as a scan (a
  prefix sum or product, a linear recurrence: exact parallel forms of that dependence) and
  the numbers match. It counts in neither the rate nor the verdicts.
- ``inner``: a loop marked not vectorizable stays a loop, and only loops nested in it (an
  independent inner loop or comprehension of a carried nest) were rewritten, with the numbers
  matching. The mark is the outer loop's; it counts in neither the rate nor the verdicts.

The rate is ``rewritten`` over the loops marked vectorizable. Exit status 1 when any case is
``wrong`` or ``verdict``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import io
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEEDS = (0, 1, 2)


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case: ``project``, ``name``, ``vectorizable`` (as marked),
    ``outcome`` (see the module docstring) and ``detail`` (pforge's note, or what differed)."""

    project: str
    name: str
    vectorizable: bool
    outcome: str
    detail: str = ""


def case_files(projects=()) -> list[Path]:
    """Every case file, by project then name; only those of ``projects`` when given."""
    return sorted(p for p in HERE.glob("*/[0-9][0-9][0-9]_*.py")
                  if not projects or p.parent.name in projects)


def _expect(path: Path) -> dict:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "EXPECT":
            return ast.literal_eval(node.value)
    raise ValueError(f"{path}: no EXPECT")


def _quiet_call(fn, args):
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*copy.deepcopy(args))


def judge(path: Path) -> CaseResult:
    """Transpiles one case with no flags and runs it against its loop."""
    from pforge.runtime.compare import compare
    from pforge.runtime.loader import load_module
    from pforge.runtime.targets import instrument_rank_checks
    from pforge.transpile import transpile_source

    expect = _expect(path)
    marked = bool(expect["vectorizable"])
    project, name = path.parent.name, path.stem
    result = transpile_source(path.read_text(), str(path))
    plans = [p for p in result.plans if p.function == "original" or p.function.startswith("original.")]
    rewritten = [p for p in plans if p.rewritten]
    if not rewritten:
        notes = [r.message for p in plans for r in p.remarks if r.code.startswith(("PF3", "PF1", "PF2"))]
        return CaseResult(project, name, marked, "left", notes[0] if notes else "no loop found")
    before = load_module(str(path), variant="loop")
    after = load_module(str(path), source=instrument_rank_checks(result.code), variant="rewrite")
    tol = getattr(before, "TOL", None) or {}
    held = []
    for seed in SEEDS:
        args = before.make_inputs(seed)
        args = args if isinstance(args, tuple) else (args,)
        try:
            want = _quiet_call(before.original, args)
            again = _quiet_call(before.original, args)
        except Exception:  # noqa: BLE001 - the loop itself fails on these inputs: nothing to compare
            continue
        if not compare(want, again, **tol).ok:  # unseeded random draws: not comparable
            continue
        try:
            got = _quiet_call(after.original, args)
        except Exception as exc:  # noqa: BLE001 - a rewrite that raises is a wrong rewrite
            return CaseResult(project, name, marked, "wrong", f"seed {seed}: raised {type(exc).__name__}: {exc}")
        match = compare(want, got, **tol)
        if not match.ok:
            return CaseResult(project, name, marked, "wrong", f"seed {seed}: {match.message}")
        held += after._PFORGE_CHECKS_HELD
        after._PFORGE_CHECKS_HELD.clear()
    if not marked:
        scans = any(r.code == "PF106" for p in rewritten for r in p.remarks)  # (loop can be vectorized (scan))
        kept = [p for p in plans if not p.rewritten]
        inner = all(any(k.lineno < p.lineno and p.end_lineno <= k.end_lineno for k in kept) for p in rewritten)
        outcome = "scan" if scans else "inner" if inner else "verdict"
        return CaseResult(project, name, marked, outcome, rewritten[0].backend_note)
    if held and not all(held):
        return CaseResult(project, name, marked, "check failed", rewritten[0].backend_note)
    return CaseResult(project, name, marked, "rewritten", rewritten[0].backend_note)


def table(results: list[CaseResult]) -> str:
    """Per project: loops, marked vectorizable, rewritten, the rate, wrong results."""
    rows = [("project", "loops", "vectorizable", "rewritten", "rate", "check failed", "wrong", "verdict", "scan", "inner")]
    projects = sorted({r.project for r in results})
    for project in [*projects, "total"]:
        mine = [r for r in results if project in ("total", r.project)]
        vec = [r for r in mine if r.vectorizable]
        done = sum(r.outcome == "rewritten" for r in vec)
        rows.append((project, str(len(mine)), str(len(vec)), str(done),
                     f"{100 * done / len(vec):.0f}%" if vec else "-",
                     str(sum(r.outcome == "check failed" for r in mine)),
                     str(sum(r.outcome == "wrong" for r in mine)),
                     str(sum(r.outcome == "verdict" for r in mine)),
                     str(sum(r.outcome == "scan" for r in mine)),
                     str(sum(r.outcome == "inner" for r in mine))))
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if k == 0 else cell.rjust(w) for k, (cell, w) in enumerate(zip(row, widths)))
             for row in rows]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:-1], "-" * len(lines[0]), lines[-1]])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.realcode", description=__doc__.splitlines()[0])
    parser.add_argument("projects", nargs="*", help="only these project folders")
    parser.add_argument("--verbose", "-v", action="store_true", help="one line per case")
    options = parser.parse_args(argv)
    results = [judge(path) for path in case_files(options.projects)]
    if options.verbose:
        for r in results:
            print(f"{r.project}/{r.name}: {r.outcome}" + (f": {r.detail}" if r.detail else ""))
        print()
    print(table(results))
    left = [r for r in results if r.vectorizable and r.outcome != "rewritten"]
    if left:
        print("\nvectorizable, not rewritten:")
        for r in left:
            print(f"  {r.project}/{r.name}: {r.outcome}: {r.detail}")
    bad = [r for r in results if r.outcome in ("wrong", "verdict")]
    for r in bad:
        print(f"{r.outcome.upper()}: {r.project}/{r.name}: {r.detail}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
