"""The budgeted mutation run CI does: every mutant of the dependence test between two accesses
(``dependence.test_pair``, the verdict that decides whether a loop is rewritten) must fail a
test or be listed as equivalent. ``make mutate`` runs every semantic module (see
``tests/mutation/__main__.py``); this runs in CI only, because it takes about five minutes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.mutation.__main__ import ROOT, SEMANTIC, equivalents

BUDGET = "pforge.transpile.dependence.x_test_pair__mutmut_*"
#: the tests that kill them: the dependence, block and space tests. The whole suite kills them
#: too, but mutmut first runs its selection once to learn which tests reach each function, and
#: for the whole suite that alone took more than this test's 30 minutes in CI
KILLERS = ("test_analysis.py", "test_blocks.py", "test_dependence.py", "test_output_dependences.py",
           "test_runtime_dependence_checks.py", "test_spaces.py", "test_statement_reordering.py",
           "test_symbolic_dependence.py", "test_weak_zero.py")


def test_equivalent_mutants_have_reasons_and_exist():
    """Every listed mutant names a semantic module and says why it changes nothing."""
    listed = equivalents()
    assert listed
    for name, reason in listed.items():
        module = name.removeprefix("pforge.transpile.").rsplit(".", 1)[0].replace(".", "/")
        assert module in SEMANTIC or f"{module}/__init__" in SEMANTIC, name  # (a package's own functions)
        assert len(reason.split()) >= 4, (name, reason)


@pytest.mark.skipif(not os.environ.get("CI"), reason="a five-minute mutation run; set CI=1 to run it")
def test_dependence_pair_mutants_are_killed():
    # not under pytest's `tmp_path`: the copy's own test runs make base temporary folders of
    # their own, and pytest keeps only the newest three (it removed this run's copy mid-run)
    with tempfile.TemporaryDirectory(prefix="pforge-mutation-") as work:
        run = subprocess.run([sys.executable, "-m", "tests.mutation", "dependence", "--only", BUDGET,
                              "--min-score", "1", "--work", str(Path(work) / "mutation"),
                              *(f"--tests={name}" for name in KILLERS)],
                             cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout + run.stderr
    table = run.stdout.splitlines()
    assert table[1].split()[0] == "dependence" and int(table[1].split()[2]) >= 40, run.stdout


def test_a_listed_mutant_that_a_test_kills_is_reported_stale(tmp_path, monkeypatch):
    """mutmut numbers mutants in order, so an entry of ``equivalent.txt`` may come to name
    another mutant; one that a test kills is reported, never silently counted."""
    from tests.mutation import __main__ as mutation

    meta = tmp_path / "mutants" / "pforge" / "transpile" / "dependence.py.meta"
    meta.parent.mkdir(parents=True)
    killed, survived = next(iter(mutation.KILLED)), next(iter(mutation.SURVIVED))
    meta.write_text(json.dumps({"exit_code_by_key": {"m.x_f__mutmut_1": killed, "m.x_f__mutmut_2": survived,
                                                     "m.x_f__mutmut_3": killed}}))
    monkeypatch.setattr(mutation, "equivalents", lambda: {"m.x_f__mutmut_1": "a listed reason",
                                                          "m.x_f__mutmut_2": "another listed reason"})
    (score,) = mutation.scores(tmp_path, ["dependence"], None)
    assert score.stale == ["m.x_f__mutmut_1"]
    assert score.equivalent == ["m.x_f__mutmut_2"]
    assert score.killed == ["m.x_f__mutmut_1", "m.x_f__mutmut_3"] and score.score == 1.0
