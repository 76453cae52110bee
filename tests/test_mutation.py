"""The budgeted mutation run CI does: every mutant of the dependence test between two accesses
(``dependence.test_pair``, the verdict that decides whether a loop is rewritten) must fail a
test or be listed as equivalent. ``make mutate`` runs every semantic module (see
``tests/mutation/__main__.py``); this runs in CI only, because it takes about five minutes."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.mutation.__main__ import ROOT, SEMANTIC, equivalents

BUDGET = "pforge.transpile.dependence.x_test_pair__mutmut_*"


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
                              "--min-score", "1", "--work", str(Path(work) / "mutation")],
                             cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert run.returncode == 0, run.stdout + run.stderr
    table = run.stdout.splitlines()
    assert table[1].split()[0] == "dependence" and int(table[1].split()[2]) >= 40, run.stdout
