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


@pytest.fixture(autouse=True, scope="session")
def _own_cache(tmp_path_factory):
    """``pforge check`` keeps its cache in a temporary folder, not in the repository."""
    previous = os.environ.get("PFORGE_CACHE_DIR")
    os.environ["PFORGE_CACHE_DIR"] = str(tmp_path_factory.mktemp("pforge-cache"))
    yield
    if previous is None:
        os.environ.pop("PFORGE_CACHE_DIR", None)
    else:
        os.environ["PFORGE_CACHE_DIR"] = previous


@pytest.fixture
def tf():
    return pytest.importorskip("tensorflow")
