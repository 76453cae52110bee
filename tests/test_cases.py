"""The shared real-world cases: verdicts, per-level verdicts, equivalence and refusals.

A transpiler is right on a case when the transpiled ``original`` returns the same numbers as
the untouched one, and a loop marked not vectorizable is left byte-identical.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import CASES, case_files
from pforge.transpile import transpile_source

CASE_FILES = case_files()
pytestmark = pytest.mark.skipif(not CASE_FILES, reason="../shared/cases is not beside the repo")


def _load(path):
    spec = importlib.util.spec_from_file_location(f"_case_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


def _expect(path):
    """EXPECT without running the case (it imports TensorFlow): read the literal."""
    import ast

    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "EXPECT":
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path.name} has no EXPECT")


def _original_plans(path):
    result = transpile_source(path.read_text(), str(path))
    return result, [p for p in result.plans if p.function == "original"]


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_verdict(path):
    """The loop nest of ``original`` gets EXPECT["vectorizable"], with a PF1xx or PF2xx remark."""
    expect = _expect(path)
    _, plans = _original_plans(path)
    assert plans, "no loop found in original()"
    vectorizable = any(p.vectorizable for p in plans)
    assert vectorizable == expect["vectorizable"], [r.message for p in plans for r in p.remarks]
    codes = {r.code[:3] for p in plans for r in p.remarks}
    assert ("PF1" in codes) == expect["vectorizable"]
    if not expect["vectorizable"]:
        assert "PF2" in codes


@pytest.mark.parametrize("path", [p for p in CASE_FILES if "loops" in _expect(p)],
                         ids=[p.stem for p in CASE_FILES if "loops" in _expect(p)])
def test_level_verdicts(path):
    """Per-level verdicts in EXPECT["loops"]: True = independent, "reduction" = a reduction level."""
    expect = _expect(path)["loops"]
    _, plans = _original_plans(path)
    levels = [level for plan in plans for level in plan.levels]
    assert len(levels) == len(expect)
    for level, want in zip(levels, expect.values()):
        if want == "reduction":
            assert level.verdict == "reduction", level
        else:
            assert (level.verdict != "refused") == want, level


@pytest.mark.parametrize("path", [p for p in CASE_FILES if not _expect(p)["vectorizable"]],
                         ids=[p.stem for p in CASE_FILES if not _expect(p)["vectorizable"]])
def test_refused_case_left_byte_identical(path):
    result, plans = _original_plans(path)
    assert not any(p.rewritten for p in plans)
    original_lines = path.read_text().splitlines()
    new_lines = result.code.splitlines()
    for plan in plans:
        span = slice(plan.lineno - 1, plan.end_lineno)
        assert new_lines[span] == original_lines[span]


TF_CASES = [p for p in CASE_FILES if _expect(p)["vectorizable"] and "_tf_" in p.stem]


def test_every_vectorizable_tensorflow_case_is_rewritten():
    assert {p.stem[:3] for p in TF_CASES} >= {"018", "019", "020", "022", "023"}
    for path in TF_CASES:
        _, plans = _original_plans(path)
        assert all(p.rewritten for p in plans), path.name


@pytest.mark.parametrize("path", [p for p in CASE_FILES if _expect(p)["vectorizable"]],
                         ids=[p.stem for p in CASE_FILES if _expect(p)["vectorizable"]])
def test_transpiled_original_matches(path, tf):
    """Transpiled ``original`` returns the untouched one's numbers on seeds 0 and 1."""
    sys.path.insert(0, str(CASES))
    try:
        from check import compare, to_numpy
    finally:
        sys.path.remove(str(CASES))
    from pforge.runtime.loader import load_module

    result = transpile_source(path.read_text(), str(path))
    before = _load(path)
    after = load_module(str(path), source=result.code)
    for seed in (0, 1):
        want = to_numpy(before.original(*before.make_inputs(seed)))
        got = to_numpy(after.original(*after.make_inputs(seed)))
        compare(want, got, getattr(before, "TOL", None))
    if result.changed:
        assert after.original.experimental_get_tracing_count() == 1


def test_numpy_cases_are_flagged_but_not_rewritten():
    """NumPy loops are analysed and flagged; rewriting them needs the direct backend."""
    for path in CASE_FILES:
        if _expect(path)["vectorizable"] and "_tf_" not in path.stem:
            result, plans = _original_plans(path)
            assert not result.changed, path.name
            notes = [r for p in plans for r in p.remarks if r.code == "PF301"]
            assert notes and "direct backend" in notes[0].message, path.name
