"""The shared real-world cases: verdicts, per-level verdicts, equivalence and refusals.

A transpiler is right on a case when the transpiled ``original`` returns the same numbers as
the untouched one, and a loop marked not vectorizable is left byte-identical.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from conftest import assert_same_numbers, markers, shared_cases
from pforge.runtime.targets import instrument_rank_checks
from pforge.transpile import transpile_source

#: generated code in the file's style, as users get it (tests/conftest.py)
pytestmark = pytest.mark.file_style

#: every test here needs ../shared/cases: skipped without it (saying so), failed in CI
CASE_FILES = shared_cases(module=True)


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


def _rewritten(backend, why=""):
    """Outcome: every loop of ``original`` rewritten by ``backend``, its note containing ``why``."""
    return ("rewritten", backend, why)


def _left(code, why):
    """Outcome: ``original`` left as it is, with a ``code`` remark containing ``why``."""
    return ("left", code, why)


#: pfor writes TensorFlow: it leaves NumPy loops to the direct backend and says so.
_NEEDS_DIRECT = _left("PF301", "it needs the direct backend")
#: Without declared ranks the direct backend batches a NumPy loop with the ranks the code
#: proves (`_FROM_CODE`), or with those it suggests, checked at run time in front of the
#: batched code (`_CHECKED`); with probed ranks it needs neither.
_FROM_CODE = _rewritten("direct", "ranks from the code")
_CHECKED = _rewritten("direct", "checked at run time")
_NUMPY = {"pfor": _NEEDS_DIRECT, "auto": _FROM_CODE, "auto-probe": _rewritten("direct")}
_NUMPY_CHECKED = {**_NUMPY, "auto": _CHECKED}
#: Per-example gradients: the direct backend would differentiate the whole batch once per row.
_PER_EXAMPLE = _rewritten("pfor", "per-example gradients")

#: What ``original`` of each vectorizable case becomes in each configuration of
#: ``test_transpiled_original_matches``: ``pfor`` (--backend pfor), ``auto`` (the ranks the
#: source declares: none) and ``auto-probe`` (ranks probed from ``make_inputs``). A rewrite is
#: run against the loop; a loop left as it is is checked for the remark that says why (running
#: it would compare the loop with itself).
OUTCOMES = {
    "001": _NUMPY_CHECKED, "002": _NUMPY, "003": _NUMPY, "005": _NUMPY_CHECKED, "006": _NUMPY_CHECKED,
    "007": _NUMPY, "009": _NUMPY_CHECKED, "010": _NUMPY, "012": _NUMPY, "014": _NUMPY_CHECKED,
    "015": _NUMPY_CHECKED, "017": _NUMPY, "028": _NUMPY,
    "018": {"pfor": _rewritten("pfor", "--backend pfor"), "auto": _PER_EXAMPLE,
            "auto-probe": _PER_EXAMPLE},
    # Jacobian of a Gram matrix: one tape once the ranks say each entry is a scalar
    "019": {"pfor": _rewritten("pfor", "--backend pfor"), "auto": _rewritten("pfor", "not a scalar"),
            "auto-probe": _rewritten("direct", "every op has a batching rule")},
    "020": {"pfor": _rewritten("pfor", "--backend pfor"),
            "auto": _rewritten("pfor", "the rank of an operand is unknown"), "auto-probe": _PER_EXAMPLE},
    "022": {"pfor": _rewritten("pfor", "--backend pfor"),
            "auto": _rewritten("pfor", "rank of an operand is unknown"),
            "auto-probe": _rewritten("direct", "every op has a batching rule")},
    # a ragged prefix: the trip count is `int()` of a tensor, which only pfor's while_loop runs
    "023": {"pfor": _rewritten("pfor", "--backend pfor"), "auto": _rewritten("pfor", "`int()` of a tensor"),
            "auto-probe": _rewritten("pfor", "`int()` of a tensor")},
}
CONFIGS = ["pfor", "auto", "auto-probe"]


def test_every_vectorizable_case_has_its_outcomes():
    assert sorted(OUTCOMES) == sorted(p.stem[:3] for p in VECTORIZABLE)
    assert all(sorted(o) == sorted(CONFIGS) for o in OUTCOMES.values())


def _configs(kind):
    return [pytest.param(path, config, id=f"{path.stem}-{config}") for path in VECTORIZABLE
            for config in CONFIGS if OUTCOMES.get(path.stem[:3], {}).get(config, ("?",))[0] == kind]


def _transpile(path, config):
    shapes = _probed(path) if config == "auto-probe" else None
    return _original_plans(path, backend=config.split("-")[0], shapes=shapes)


@pytest.mark.parametrize("path, config", _configs("rewritten"))
def test_transpiled_original_matches(path, config, tf):
    """Transpiled ``original`` is rewritten as OUTCOMES says and returns the untouched one's
    numbers on seeds 0 and 1 (NumPy loops are rewritten with NumPy)."""
    from pforge.runtime.loader import load_module

    _, backend, why = OUTCOMES[path.stem[:3]][config]
    result, plans = _transpile(path, config)
    assert result.changed and plans, result.remarks
    for plan in plans:
        assert plan.rewritten and plan.backend == backend, (plan.backend, plan.backend_note, plan.remarks)
        assert why in plan.backend_note, plan.backend_note
    before = _load(path)
    guarded = "np.ndim(" in result.code
    after = load_module(str(path), source=instrument_rank_checks(result.code) if guarded else result.code)
    for seed in (0, 1):
        want = before.original(*before.make_inputs(seed))
        got = after.original(*after.make_inputs(seed))
        assert_same_numbers(want, got, getattr(before, "TOL", None), where=f"seed {seed}: ")
    if guarded:  # the batched code is what ran: the ranks it checks are the inputs' ranks
        assert after._PFORGE_CHECKS_HELD and all(after._PFORGE_CHECKS_HELD), result.code
    if hasattr(after.original, "experimental_get_tracing_count"):
        assert after.original.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("path, config", _configs("left"))
def test_left_as_a_loop_says_why(path, config):
    """Where OUTCOMES says ``original`` stays a loop, it is left byte-identical with the remark
    that says why (pfor: NumPy needs the direct backend; auto without ranks: a rank is unknown)."""
    _, code, why = OUTCOMES[path.stem[:3]][config]
    result, plans = _transpile(path, config)
    assert not result.changed and plans
    assert not any(p.rewritten for p in plans)
    remarks = [r.message for p in plans for r in p.remarks if r.code == code]
    assert remarks and why in remarks[0], [r.message for p in plans for r in p.remarks]


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
    assert all(m.endswith(("with batched ops", "where its run-time checks hold")) and "with batched ops" in m
               for m in markers(result.code)) and markers(result.code), result.code


#: What decides each case, where: (code, line, words the remark or a note must contain). The
#: traps of EXPECT["trap"] that are about dependences are pinned here: recurrences through an
#: earlier element, colliding writes (a scatter-add), the triangular and ragged inner bounds,
#: the argument updated in place, the data-dependent output length (a filter).
DECISIVE = {
    "001": ("PF101", 20, "indexed output grid"),
    "002": ("PF101", 21, "indexed output totals"),
    "003": ("PF101", 22, "pos in range(start_b, stop)"),
    "005": ("PF101", 18, "indexed output out"),
    "006": ("PF101", 21, "indexed output mat"),
    "007": ("PF103", 20, "filter"),
    "009": ("PF101", 20, "indexed output out"),
    "010": ("PF101", 21, "triangular iteration space: the bound `i` depends on `i`"),
    "012": ("PF104", 22, "scatter-add"),
    "014": ("PF101", 18, "map over positions, indexed output enc"),
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


def test_jacobian_case_gets_one_tape_with_probed_ranks(tf):
    """Case 019 differentiates each entry of a Gram matrix in a nest: with ranks, one tape
    and ``tape.jacobian`` of the whole matrix, sliced to the two loops' ranges."""
    path = next(p for p in TF_CASES if p.stem.startswith("019"))
    result, plans = _original_plans(path, shapes=_probed(path))
    assert [p.backend for p in plans] == ["direct"], plans
    assert "= tape.jacobian(gram, x)[:n, :n]" in result.code
    assert "vectorized_map" not in result.code
