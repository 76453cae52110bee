"""Mutation testing of the transpiler: ``python -m tests.mutation [MODULE ...] [--jobs N]``.

mutmut (https://github.com/boxed/mutmut) changes one small thing at a time in the modules that
decide semantics (a ``+`` becomes ``-``, ``<`` becomes ``<=``, a constant, a keyword argument or
a returned value changes) and runs the tests that reach the changed function; a mutant that no
test fails *survived*. The score of a module is ``killed / (mutants - equivalent)``, where an
equivalent mutant is one listed in ``tests/mutation/equivalent.txt`` with the one-line reason it
cannot change what pforge does (a remark's wording is not equivalent: users read remarks).

The repository installs ``transpile/`` as ``pforge.transpile``, a layout mutmut cannot map, so
the run happens in ``build/mutation/``: a copy laid out as ``pforge/transpile``, ``pforge/cli``,
``pforge/runtime``, with the tests and the samples. Tests that run TensorFlow are left out (the
plugin ``no_tensorflow`` makes them skip), as are the pre-commit tests (they need a git
repository); the rest of the suite is what kills mutants. The tests each mutant reaches run
shortest first (the plugin ``fastest_first``), so a killed mutant stops at its quickest
killer. A full run of one 300-line module takes about an hour on two cores; ``--only
PATTERN`` runs the mutants whose names match.

Prints one line per module (mutants, killed, equivalent, survived, score) and every survivor
not listed as equivalent; exit status 1 when a module scores below ``--min-score`` or a mutant
listed as equivalent was killed (a stale entry: its number now names another mutant).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
EQUIVALENT = HERE / "equivalent.txt"

#: the modules that decide semantics: the analyses, the plan and the printers' lowering
SEMANTIC = (
    "dependence", "spaces", "effects", "plan", "versioning", "specialize", "ranks",
    "analysis/aliasing", "analysis/chains", "analysis/classes", "analysis/collectors", "analysis/discovery",
    "analysis/facts", "analysis/packs",
    "analysis/constants", "analysis/distribution", "analysis/linearized", "analysis/nodes", "analysis/recurrences",
    "analysis/reductions", "analysis/subscripts",
    "vplan/build", "vplan/conditionals", "vplan/recipes",
    "backends/common", "backends/common_subexpressions",
    "backends/direct/__init__", "backends/direct/core", "backends/direct/writes", "backends/direct/reductions",
    "backends/direct/lower_reductions", "backends/direct/indexing", "backends/direct/shape",
    "backends/direct/collectors", "backends/direct/levels", "backends/direct/dtypes",
    "backends/direct/contractions", "backends/direct/conditionals", "backends/direct/emitter",
)

#: the tests a mutant need not fail: the command-line, runtime, staging and pre-commit tests
#: reach the analyses only through ``pforge check`` and ``transpile``, which the other tests
#: exercise directly, and they take most of the time (pre-commit needs a git repository);
#: every other ``tests/test_*.py`` is run, the real-code set included
NOT_KILLERS = {
    "test_bench.py", "test_benchmarks.py", "test_check.py", "test_cli.py", "test_doc.py", "test_mutation.py",
    "test_precommit.py", "test_robustness.py", "test_runtime.py", "test_staged.py",
    "test_verify_ranks.py",
}

#: mutmut's exit codes per mutant (mutmut/stats.py, status_by_exit_code): a failed test, a
#: timeout (a mutant that loops forever is caught) or an internal pytest error kill; no test
#: failing, or no test reaching the mutant, is survival
KILLED, SURVIVED = {1, 3, 24, -24, 152, 255, 36, 37}, {0, 5, 33}


def _workspace(work: Path, modules: list[str], tests: list[str] | None = None) -> None:
    """Lays out ``work`` as mutmut expects it (see the module docstring); a previous run's
    ``mutants/`` is kept when the sources are unchanged, so mutmut resumes where it stopped.
    ``tests`` (file names under ``tests/``) narrows the tests mutmut runs; None runs every test
    file but the ``NOT_KILLERS``."""
    work.mkdir(parents=True, exist_ok=True)
    package = work / "pforge"
    if package.exists():
        shutil.rmtree(package)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "pforge", package, ignore=ignore)
    for folder, name in (("transpile", "transpile"), ("cli", "cli"), ("runtime", "runtime")):
        shutil.copytree(ROOT / folder, package / name, ignore=ignore)
    # mutmut rewrites a file of mutants only where it is older than its source, and the copies
    # keep the sources' times: a module an earlier run copied without mutating (it was not
    # asked for) would never be mutated, so such a copy goes, with any results of a run before
    # that (a mutated one, with its results in ``.meta``, stays for mutmut to resume)
    # and the tests that reach each function are found again: stale statistics name tests that
    # are gone (pytest stops with a usage error) and no test for a new function (its mutants
    # "have no tests", and would count as survivors)
    (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
    for module in modules:
        mutated = work / "mutants" / "pforge" / "transpile" / f"{module}.py"
        meta = mutated.with_name(mutated.name + ".meta")
        if mutated.exists() and (not meta.exists() or "__mutmut_" not in mutated.read_text(encoding="utf-8")):
            mutated.unlink()
            meta.unlink(missing_ok=True)
        elif meta.exists():
            # mutmut lets a result stand: a survivor runs again, as a test added since may kill it
            data = json.loads(meta.read_text())
            codes = data.get("exit_code_by_key", {})
            for name, code in codes.items():
                if code in SURVIVED:
                    codes[name] = None
            meta.write_text(json.dumps(data))
    for folder in ("tests", "samples"):
        if (work / folder).exists():
            shutil.rmtree(work / folder)
        shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("__pycache__", "golden"))
    shutil.copytree(ROOT / "tests" / "golden", work / "tests" / "golden")
    only = ", ".join(f'"pforge/transpile/{m}.py"' for m in modules)
    chosen = sorted(t.name for t in (ROOT / "tests").glob("test_*.py") if t.name not in NOT_KILLERS)
    if tests is not None:
        missing = sorted(set(tests) - set(chosen))
        if missing:
            raise ValueError(f"no test file tests/{missing[0]} (or it is one of NOT_KILLERS)")
        chosen = sorted(tests)
    selection = ", ".join(f'"tests/{name}"' for name in chosen)
    (work / "pyproject.toml").write_text(f"""\
[tool.mutmut]
source_paths = ["pforge"]
only_mutate = [{only}]
also_copy = ["samples/"]
pytest_add_cli_args = ["-p", "no_tensorflow", "-p", "fastest_first", "-q", "-p", "no:cacheprovider"]
pytest_add_cli_args_test_selection = [{selection}]
use_git_change_detection = false

[tool.pytest.ini_options]
testpaths = ["tests"]
markers = ["tf: runs TensorFlow", "gpu: needs a GPU", "file_style: generated code in its file's style"]
""")


def equivalents() -> dict[str, str]:
    """``tests/mutation/equivalent.txt``: mutant name, two spaces or more, the reason."""
    listed = {}
    for line in EQUIVALENT.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, reason = line.partition("  ")
            if not reason.strip():
                raise ValueError(f"{EQUIVALENT}: {name} has no reason")
            listed[name.strip()] = reason.strip()
    return listed


@dataclass
class Score:
    """One module's outcome: mutant names by status."""

    module: str
    killed: list[str] = field(default_factory=list)
    equivalent: list[str] = field(default_factory=list)
    survived: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # not run, no tests, timeout
    #: listed as equivalent, yet a test killed them: mutmut numbers a function's mutants in
    #: order, so a change to the function renumbers them and the entry now names another one
    stale: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        counted = len(self.killed) + len(self.survived) + len(self.other)
        return len(self.killed) / counted if counted else 1.0


def scores(work: Path, modules: list[str], patterns: list[str] | None) -> list[Score]:
    """Reads mutmut's per-file results (``mutants/<path>.meta``) for ``modules``, of the
    mutants whose names match one of ``patterns`` (all where None)."""
    listed = equivalents()
    out = []
    for module in modules:
        meta = work / "mutants" / "pforge" / "transpile" / f"{module}.py.meta"
        score = Score(module)
        if not meta.exists():
            out.append(score)
            continue
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            if patterns and not any(fnmatch.fnmatch(name, p) for p in patterns):
                continue
            if code in KILLED:
                score.killed.append(name)
                if name in listed:
                    score.stale.append(name)
            elif name in listed:
                score.equivalent.append(name)
            elif code in SURVIVED:
                score.survived.append(name)
            else:
                score.other.append(f"{name} (exit code {code})")
        out.append(score)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="modules under transpile/, e.g. dependence or "
                        "analysis/reductions (default: every semantic module)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once")
    parser.add_argument("--only", action="append", help="run only the mutants whose names match this glob "
                        "(given again: any of the globs)")
    parser.add_argument("--tests", action="append", metavar="FILE", help="run only this test file of "
                        "tests/ against the mutants (given again: these files; default: every test file "
                        "but the command-line, runtime and pre-commit ones). mutmut first runs the whole "
                        "selection once to learn which tests reach each function: about 30 minutes on two "
                        "cores for the default selection")
    parser.add_argument("--min-score", type=float, default=0.9)
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "mutation")
    parser.add_argument("--report", action="store_true", help="print the last run's scores only")
    args = parser.parse_args(argv)
    modules = args.modules or list(SEMANTIC)
    unknown = [m for m in modules if not (ROOT / "transpile" / f"{m}.py").exists()]
    if unknown:
        parser.error(f"no module transpile/{unknown[0]}.py")
    mutmut = Path(sys.executable).with_name("mutmut")
    if not args.report:
        try:
            _workspace(args.work, modules, args.tests)
        except ValueError as error:
            parser.error(str(error))
        # the copy has no shared cases, so their tests skip there; with CI set they would fail
        # (and its tests' temporary folders lie in the copy: pytest keeps only the newest three
        # base folders under its root, so they would remove those of a test run that started this)
        (args.work / "tmp").mkdir(exist_ok=True)
        # (nor a pytest run's own variables, where a test starts this)
        env = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("PYTEST_")} | {
            "PYTHONPATH": str(HERE / "plugins"), "PYTEST_DEBUG_TEMPROOT": str(args.work / "tmp")}
        command = [str(mutmut), "run", "--max-children", str(args.jobs)]
        command += args.only or []
        run = subprocess.run(command, cwd=args.work, env=env,
                             stdout=None if sys.stdout.isatty() else subprocess.DEVNULL)
        if run.returncode:
            print(f"mutmut stopped with exit status {run.returncode}; see `mutmut run` in {args.work}")
            return 2
    results = scores(args.work, modules, args.only)
    print(f"{'module':36} {'mutants':>7} {'killed':>7} {'equiv.':>7} {'survived':>8} {'other':>6} {'score':>6}")
    for s in results:
        total = len(s.killed) + len(s.equivalent) + len(s.survived) + len(s.other)
        print(f"{s.module:36} {total:7} {len(s.killed):7} {len(s.equivalent):7} "
              f"{len(s.survived):8} {len(s.other):6} {s.score:6.1%}")
    for s in results:
        for name in s.survived + s.other:
            print(f"survived: {name}")
    for s in results:
        for name in s.stale:
            print(f"stale: {name} is listed as equivalent, but a test killed it (its number now "
                  "names another mutant: check the entries of its function)")
    if any(s.survived or s.other or s.stale for s in results):
        print(f"(cd {args.work} && {mutmut} show NAME) prints a mutant's diff")
    return int(any(s.score < args.min_score or s.stale for s in results))


if __name__ == "__main__":
    sys.exit(main())
