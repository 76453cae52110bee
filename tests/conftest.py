"""Shared fixtures: paths to the samples and the shared real-world cases."""

from __future__ import annotations

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GOLDEN = ROOT / "tests" / "golden"
CASES = ROOT.parent / "shared" / "cases"

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def sample_files():
    return sorted(p for p in SAMPLES.glob("*.py"))


def case_files():
    return sorted(CASES.glob("[0-9][0-9][0-9]_*.py")) if CASES.is_dir() else []


@pytest.fixture
def tf():
    return pytest.importorskip("tensorflow")
