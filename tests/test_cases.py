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


def _original_plans(path, **options):
    result = transpile_source(path.read_text(), str(path), **options)
    return result, [p for p in result.plans if p.function == "original"]


def _probed(path):
    """Ranks of ``original``'s arguments, probed from ``make_inputs`` (what ``--probe`` does)."""
    from pforge.runtime.probe import probe_ranks

    return probe_ranks(str(path))


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


VECTORIZABLE = [p for p in CASE_FILES if _expect(p)["vectorizable"]]
#: vectorizable cases the direct backend does not batch yet, with the op it names
DIRECT_GAPS: dict[str, str] = {}


@pytest.mark.parametrize("backend", ["pfor", "auto", "auto-probe"])
@pytest.mark.parametrize("path", VECTORIZABLE, ids=[p.stem for p in VECTORIZABLE])
def test_transpiled_original_matches(path, backend, tf):
    """Transpiled ``original`` returns the untouched one's numbers on seeds 0 and 1.

    ``auto-probe`` gets the ranks probed from ``make_inputs``; ``auto`` only what the source
    says. NumPy loops are rewritten with NumPy.
    """
    sys.path.insert(0, str(CASES))
    try:
        from check import compare, to_numpy
    finally:
        sys.path.remove(str(CASES))
    from pforge.runtime.loader import load_module

    shapes = _probed(path) if backend == "auto-probe" else None
    result = transpile_source(path.read_text(), str(path), backend=backend.split("-")[0], shapes=shapes)
    before = _load(path)
    after = load_module(str(path), source=result.code)
    for seed in (0, 1):
        want = to_numpy(before.original(*before.make_inputs(seed)))
        got = to_numpy(after.original(*after.make_inputs(seed)))
        compare(want, got, getattr(before, "TOL", None))
    if result.changed and hasattr(after.original, "experimental_get_tracing_count"):
        assert after.original.experimental_get_tracing_count() == 1


NUMPY_CASES = [p for p in VECTORIZABLE if "_tf_" not in p.stem]


@pytest.mark.parametrize("path", NUMPY_CASES, ids=[p.stem for p in NUMPY_CASES])
def test_numpy_cases_are_rewritten_with_numpy(path):
    """With probed ranks, each vectorizable NumPy case is rewritten by the direct backend in
    NumPy (no TensorFlow, no tf.function); a gap is left as a loop with a PF301 naming the op."""
    result, plans = _original_plans(path, shapes=_probed(path))
    gap = DIRECT_GAPS.get(path.stem[:3])
    if gap:
        assert not result.changed
        notes = [r.message for p in plans for r in p.remarks if r.code == "PF301"]
        assert notes and gap in notes[0], notes
        return
    assert plans and all(p.rewritten and p.backend == "direct" for p in plans), plans
    assert "tensorflow" not in result.code and "tf.function" not in result.code
    assert "with batched ops" in result.code


def test_numpy_loops_need_the_direct_backend_under_pfor():
    """``--backend pfor`` leaves NumPy loops alone and says the direct backend is needed."""
    for path in NUMPY_CASES:
        result, plans = _original_plans(path, backend="pfor")
        assert not result.changed, path.name
        notes = [r for p in plans for r in p.remarks if r.code == "PF301"]
        assert notes and "direct backend" in notes[0].message, path.name


def test_numpy_case_without_ranks_stays_a_loop_and_says_why():
    """No probe, no annotation: an unknown rank decides broadcasting, so the loop stays."""
    path = next(p for p in NUMPY_CASES if p.stem.startswith("005"))
    result, plans = _original_plans(path)
    assert not result.changed
    assert any("rank" in r.message for p in plans for r in p.remarks if r.code == "PF301")


#: What decides each case, where: (code, line, words the remark or a note must contain). The
#: traps of EXPECT["trap"] that are about dependences are pinned here: recurrences through an
#: earlier element, colliding writes (a scatter-add), the triangular and ragged inner bounds,
#: the argument updated in place, the data-dependent output length (a filter).
DECISIVE = {
    "001": ("PF101", 20, "indexed output grid"),
    "002": ("PF101", 21, "indexed output totals"),
    "003": ("PF101", 22, "pos in range(start_b, stop)"),
    "005": ("PF101", 18, "indexed output out"),
    "006": ("PF101", 21, "indexed output mat (an argument, updated in place)"),
    "007": ("PF103", 20, "filter"),
    "009": ("PF101", 20, "indexed output out"),
    "010": ("PF101", 21, "triangular iteration space: the bound `i` depends on `i`"),
    "012": ("PF104", 22, "scatter-add"),
    "014": ("PF101", 18, "row = index, pos in rows of positions"),
    "015": ("PF101", 22, "collector centres"),
    "017": ("PF101", 19, "collector codes"),
    "018": ("PF105", 22, "per-example gradient"),
    "019": ("PF105", 22, "GradientTape"),
    "020": ("PF105", 18, "per-example gradient"),
    "022": ("PF101", 22, "collector picked"),
    "023": ("PF101", 23, "data-dependent trip count: the bound `limit`"),
    "028": ("PF101", 21, "indexed output got, indexed output patched"),
    "031": ("PF202", 22, "`smooth[i - 1]` reads the element written 1 iteration(s) earlier"),
    "032": ("PF202", 23, "`out[i - 1]` reads the element written 1 iteration(s) earlier"),
    "035": ("PF202", 24, "`v[i - 1]` reads the element written 1 iteration(s) earlier"),
    "036": ("PF207", 18, "while loop whose exit depends on values computed in the loop"),
    "039": ("PF202", 20, "`arr.read(i - 1)` reads the element written 1 iteration(s) earlier"),
    "040": ("PF205", 22, ".assign_add()"),
    "041": ("PF205", 23, ".assign_sub()"),
    "042": ("PF205", 27, "tf.print"),
}


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_decisive_remark_at_the_right_line(path):
    """What ``pforge explain`` shows for ``original``: the remark (or note) that decided it."""
    code, line, words = DECISIVE[path.stem[:3]]
    _, plans = _original_plans(path)
    remarks = [r for p in plans for r in p.remarks]
    texts = [r.message for r in remarks] + [n for p in plans for lv in p.levels for n in lv.notes]
    assert any(r.code == code and r.lineno == line for r in remarks), remarks
    assert any(words in t for t in texts), texts


def test_jacobian_case_gets_one_tape_with_probed_ranks():
    """Case 019 differentiates each entry of a Gram matrix in a nest: with ranks, one tape
    and ``tape.jacobian`` of the whole matrix, sliced to the two loops' ranges."""
    path = next(p for p in TF_CASES if p.stem.startswith("019"))
    result, plans = _original_plans(path, shapes=_probed(path))
    assert [p.backend for p in plans] == ["direct"], plans
    assert "dgram_dx = tape.jacobian(gram, x)[:n, :n]" in result.code
    assert "vectorized_map" not in result.code
