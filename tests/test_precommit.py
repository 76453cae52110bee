"""Drives the real pre-commit hooks of ``.pre-commit-hooks.yaml`` with ``pre-commit try-repo``.

``try-repo`` snapshots this working tree (uncommitted changes included), builds the hook
environment from PyPI the way users get it, and runs the hook on the staged files of a
temporary git repository. Needs ``pre-commit`` (the ``dev`` extra) and PyPI access, as CI
has; skipped only when pre-commit cannot be imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DENSE

pytest.importorskip("pre_commit")

REPO = Path(__file__).resolve().parents[1]


def _git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def _try_repo(project, home, hook):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CI")}
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), hook,
                           "--color", "never"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)


def test_pre_commit_hooks_flag_then_fix_a_staged_loop(tmp_path):
    project, home = tmp_path / "project", tmp_path / "cache"
    project.mkdir()
    _git(project, "init", "-q")
    (project / "model.py").write_text(DENSE)
    (project / "notes.txt").write_text("for i in range(3): pass\n")
    _git(project, "add", "model.py", "notes.txt")

    flagged = _try_repo(project, home, "pforge")
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert "model.py:6:5: PF101 loop can be vectorized (map)" in flagged.stdout
    assert "notes.txt" not in flagged.stdout  # types: [python]
    assert (project / "model.py").read_text() == DENSE

    fixed = _try_repo(project, home, "pforge-fix")
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # pre-commit fails on a change
    assert "Rewriting model.py" in fixed.stdout
    new = (project / "model.py").read_text()
    assert "tf.vectorized_map" in new and "outs.append" not in new

    _git(project, "add", "model.py")
    clean = _try_repo(project, home, "pforge")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout

    # try-repo builds its hook environment in a temporary store it deletes, so ask pip what
    # the hook's `pip install .` installs: pforge and its plain dependencies, no TensorFlow.
    plan = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet",
                           "--ignore-installed", "--report", "-", str(REPO)],
                          capture_output=True, text=True, timeout=600)
    assert plan.returncode == 0, plan.stderr
    names = {item["metadata"]["name"].lower() for item in json.loads(plan.stdout)["install"]}
    assert {"pforge", "gast", "beniget", "typer", "rich", "pathspec"} <= names
    assert not {n for n in names if n.startswith("tensorflow") or n in ("keras", "numpy")}, names
