"""Times ``pforge check`` against its nearest peers, side by side, in one run on one tree.

    python benchmarks/check_speed.py            # tensorflow/python/ops/*.py of the installed TF
    python benchmarks/check_speed.py --tree     # every .py file of the installed TF package
    python benchmarks/check_speed.py --paths DIR_OR_FILE ...

Each tool runs as a command, as a user would run it, on the same list of files (passed
explicitly, so no tool's exclusion rules change what is checked), with the same number of
processes, and the wall-clock time includes start-up:

- ``pforge check`` cold (an empty cache) and warm (the cache that run filled);
- ``ruff check --select PERF`` (perflint's rules, reimplemented), without and with its cache;
- ``pylint`` with the perflint plugin loaded and only perflint's messages enabled.

With ``--repeat N`` every measurement is taken N times, interleaved (cold, warm, ruff,
pylint, then again), and the table gives the median with the range: on a shared machine one
run can be off by a factor of two. Findings are the lines each tool reports. The pforge line
also counts its error lines and, among them, internal errors (crashes). Finally the start-up
time of ``pforge check`` on one small file is measured (it must not import TensorFlow). Needs the ``bench`` extra
(``pip install -e '.[bench]'``): ruff, pylint, perflint.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

BIN = os.path.dirname(sys.executable)


@dataclass
class Run:
    name: str
    seconds: float
    findings: int
    note: str = ""
    times: tuple[float, ...] = ()


def merged(rounds: list[list[Run]]) -> list[Run]:
    """One run per tool: the median time of the rounds (findings must agree)."""
    out = []
    for runs in zip(*rounds, strict=True):
        times = tuple(r.seconds for r in runs)
        if len({r.findings for r in runs}) != 1:
            sys.exit(f"error: {runs[0].name} reported different findings from one round to the next")
        out.append(Run(runs[0].name, statistics.median(times), runs[0].findings, runs[0].note, times))
    return out


def tensorflow_dir() -> str:
    spec = importlib.util.find_spec("tensorflow")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        sys.exit("error: TensorFlow is not installed; pass --paths")
    return list(spec.submodule_search_locations)[0]


def python_files(paths: list[str], recursive: bool) -> list[str]:
    found = []
    for path in paths:
        if os.path.isdir(path):
            if recursive:
                for root, dirs, files in os.walk(path):
                    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                    found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
            else:
                found += sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
        else:
            found.append(path)
    return found


def tool(name: str) -> str:
    path = os.path.join(BIN, name)
    return path if os.path.exists(path) else (shutil.which(name) or name)


def timed(argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None):
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    return time.perf_counter() - start, proc


def count(pattern: str, text: str) -> int:
    return len(re.findall(pattern, text, flags=re.MULTILINE))


def perflint_messages() -> list[str]:
    """The message ids of perflint's checkers (W8xxx, R8xxx), read from the plugin itself."""
    from pylint.lint import PyLinter

    linter = PyLinter()
    linter.load_plugin_modules(["perflint"])
    return sorted({m.msgid for c in linter.get_checkers() for m in c.messages
                   if type(c).__module__.startswith("perflint")})


def run_pforge(files, jobs, cache_dir, label, workdir) -> Run:
    env = dict(os.environ, PFORGE_CACHE_DIR=cache_dir, NO_COLOR="1")
    help_text = subprocess.run([tool("pforge"), "check", "--help"], capture_output=True,
                               text=True, env=env).stdout
    extra = ["--isolated"] if "--isolated" in help_text else []
    seconds, proc = timed([tool("pforge"), "check", "--jobs", str(jobs), *extra, *files],
                          env=env, cwd=workdir)
    errors = count(r"^error: ", proc.stderr)
    crashes = count(r"internal error", proc.stderr)
    if proc.returncode not in (0, 1, 2):
        sys.exit(f"error: pforge check failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return Run(label, seconds, count(r":\d+:\d+: PF1\d\d ", proc.stdout),
               f"{errors} error lines, {crashes} internal errors")


def run_ruff(files, cache_dir, label, workdir) -> Run:
    argv = [tool("ruff"), "check", "--isolated", "--select", "PERF", "--output-format", "concise",
            "--exit-zero"]
    argv += ["--cache-dir", cache_dir] if cache_dir else ["--no-cache"]
    seconds, proc = timed(argv + files, cwd=workdir)
    if proc.returncode != 0:
        sys.exit(f"error: ruff failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return Run(label, seconds, count(r":\d+:\d+: PERF\d+ ", proc.stdout))


def run_pylint(files, jobs, workdir) -> Run:
    rcfile = os.path.join(workdir, "pylintrc")
    with open(rcfile, "w") as fh:
        fh.write("[MAIN]\n")
    msgs = perflint_messages()
    argv = [tool("pylint"), f"--rcfile={rcfile}", "--load-plugins=perflint", "--disable=all",
            f"--enable={','.join(msgs)}", f"--jobs={jobs}", "--persistent=n", "--score=n",
            "--output-format=parseable", "--exit-zero"]
    seconds, proc = timed(argv + files, cwd=workdir)
    if proc.returncode != 0:
        sys.exit(f"error: pylint failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return Run("pylint + perflint", seconds, count(r":\d+: \[[A-Z]\d{4}", proc.stdout),
               f"messages {','.join(msgs)}")


def startup(workdir: str, repeat: int) -> tuple[float, float, bool]:
    """Median and best wall time of ``pforge check`` on one small file; TF imported?"""
    small = os.path.join(workdir, "small.py")
    with open(small, "w") as fh:
        fh.write("import tensorflow as tf\n\n\ndef scale(xs, w):\n    out = []\n"
                 "    for x in xs:\n        out.append(x * w)\n    return tf.stack(out)\n")
    env = dict(os.environ, NO_COLOR="1")
    times = [timed([tool("pforge"), "check", "--no-cache", small], env=env, cwd=workdir)[0]
             for _ in range(repeat)]
    probe = subprocess.run(
        [sys.executable, "-c", "import sys; from pforge.cli.main import app\n"
         "from typer.testing import CliRunner\n"
         f"CliRunner().invoke(app, ['check', '--no-cache', {small!r}])\n"
         "print('tensorflow' in sys.modules)"], capture_output=True, text=True, env=env)
    return statistics.median(times), min(times), probe.stdout.strip().endswith("True")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--tree", action="store_true",
                       help="every .py file of the installed TensorFlow package")
    where.add_argument("--paths", nargs="+", help="files or folders (folders are walked)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="processes for every tool (default: the CPUs available)")
    parser.add_argument("--skip-pylint", action="store_true", help="pylint is slow on big trees")
    parser.add_argument("--startup-runs", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1, help="rounds; the table gives medians")
    args = parser.parse_args(argv)

    if args.paths:
        files = python_files(args.paths, recursive=True)
        what = " ".join(args.paths)
    elif args.tree:
        files = python_files([tensorflow_dir()], recursive=True)
        what = "the installed TensorFlow package (recursive)"
    else:
        files = python_files([os.path.join(tensorflow_dir(), "python", "ops")], recursive=False)
        what = "tensorflow/python/ops/*.py"
    files = [os.path.abspath(f) for f in files]
    lines = 0
    for path in files:
        with open(path, "rb") as fh:
            lines += fh.read().count(b"\n")
    print(f"{len(files)} files, {lines:,} lines: {what}; {args.jobs} processes per tool, "
          f"{args.repeat} round(s), Python {sys.version.split()[0]}")

    rounds: list[list[Run]] = []
    with tempfile.TemporaryDirectory(prefix="pforge-bench-") as workdir:
        for k in range(args.repeat):
            runs = []
            pforge_cache = os.path.join(workdir, f"pforge-cache-{k}")
            ruff_cache = os.path.join(workdir, f"ruff-cache-{k}")
            runs.append(run_pforge(files, args.jobs, pforge_cache, "pforge check (cold)", workdir))
            runs.append(run_pforge(files, args.jobs, pforge_cache, "pforge check (warm)", workdir))
            runs.append(run_ruff(files, None, "ruff --select PERF (no cache)", workdir))
            run_ruff(files, ruff_cache, "", workdir)  # fills ruff's cache
            runs.append(run_ruff(files, ruff_cache, "ruff --select PERF (warm)", workdir))
            if not args.skip_pylint:
                runs.append(run_pylint(files, args.jobs, workdir))
            rounds.append(runs)
        median, best, tf_imported = startup(workdir, args.startup_runs)
    runs = merged(rounds)

    cold = runs[0].seconds
    print()
    print(f"| {'tool':32} | {'seconds':>8} | {'range':>13} | {'files/s':>8} | {'findings':>8} "
          f"| {'× pforge cold':>13} | notes")
    print(f"|{'-' * 34}|{'-' * 10}|{'-' * 15}|{'-' * 10}|{'-' * 10}|{'-' * 15}|------")
    for run in runs:
        spread = f"{min(run.times):.2f}-{max(run.times):.2f}"
        print(f"| {run.name:32} | {run.seconds:8.2f} | {spread:>13} | {len(files) / run.seconds:8.0f} | "
              f"{run.findings:8d} | {run.seconds / cold:13.2f} | {run.note}")
    print()
    by_name = {r.name: r.seconds for r in runs}
    warm = by_name["pforge check (warm)"]
    ruff = by_name["ruff --select PERF (no cache)"]
    print(f"warm pforge / ruff (no cache): {warm / ruff:.1f}x   (aim: at most 3x)")
    print(f"warm pforge / ruff (warm):     {warm / by_name['ruff --select PERF (warm)']:.1f}x")
    if "pylint + perflint" in by_name:
        print(f"pylint+perflint / cold pforge: {by_name['pylint + perflint'] / cold:.1f}x "
              "(aim: at least 10x)")
    print(f"start-up, pforge check on one small file: median {median:.3f} s, best {best:.3f} s "
          f"(aim: under 0.3 s); TensorFlow imported: {tf_imported}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
