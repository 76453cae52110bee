"""Every sample: golden generated code (pfor and direct), numerical equivalence, one trace, idempotence."""

from __future__ import annotations

import pytest

from conftest import sample_files
from pforge.transpile import transpile_source
from update_golden import FOLDERS, generated

#: generated code in the file's style, as users get it (tests/conftest.py)
pytestmark = pytest.mark.file_style

SAMPLES = sample_files()
IDS = [p.stem for p in SAMPLES]


BACKENDS = ["pfor", "direct"]
#: samples the direct backend leaves to pfor, with the reason its plan gives: per-example
#: gradients (so their direct golden file is their pfor one)
PFOR_ONLY = {"per_example_grads": ("per-example gradients (a per-iteration value under the "
                                   "GradientTape) need the pfor backend",
                                   # (a list of variables: no rank to batch `matvec` with)
                                   "the rank of an operand is unknown"),
             "per_sample_hessians": "a `With` statement under a GradientTape",
             "microbatch_grads": "the loop index `m` used as a value"}
#: samples the pfor backend leaves as loops (rows of a Jacobian from a tape recorded before the
#: loop: tf.vectorized_map's rows would not be on it), with what its remarks say: their pfor
#: golden file is the sample
DIRECT_ONLY = {"jacobian_outer_tape": ("recorded on the tape `tape` before the loop",
                                       "takes the loop index as a Python number"),
               # (scans: each iteration of tf.vectorized_map would need the ones before it)
               "returns_tf": "every iteration of tf.vectorized_map would need the ones before it"}
#: samples nothing may rewrite, with the code of the remark that refuses their loop: their
#: golden files (both backends) equal the sample
UNCHANGED = {"logging_refused": "PF205", "rnn_refused": "PF201"}
#: NumPy samples: the pfor backend (tf.vectorized_map) leaves their loops, so their pfor golden
#: file is the sample, and the direct backend's NumPy output is not staged
NUMPY = {p.stem for p in SAMPLES if "import tensorflow" not in p.read_text()}
def _says(note, reasons) -> bool:
    """``note`` gives one of ``reasons`` (a phrase, or a tuple of them)."""
    return any(why in note for why in ((reasons,) if isinstance(reasons, str) else reasons))


UPDATE = "if the new code is right, run `.venv/bin/python -m tests.update_golden` and read the diff"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_golden(path, backend):
    """The generated code is byte-identical to the reviewed golden file of that backend.

    The test only compares; ``tests/update_golden.py`` writes the files.
    """
    golden = FOLDERS[backend] / path.name
    assert golden.is_file(), f"{golden} is missing: {UPDATE}"
    assert generated(path, backend) == golden.read_text(), f"{golden} differs: {UPDATE}"


def test_golden_tests_never_write(tmp_path, monkeypatch):
    """A wrong golden file fails, whatever the environment says (PFORGE_UPDATE_GOLDEN used to
    make the test write it), and stays as it was."""
    path = next(p for p in SAMPLES if p.stem not in UNCHANGED)
    monkeypatch.setitem(FOLDERS, "pfor", tmp_path)
    monkeypatch.setenv("PFORGE_UPDATE_GOLDEN", "1")
    wrong = tmp_path / path.name
    wrong.write_text("stale\n")
    with pytest.raises(AssertionError, match="update_golden"):
        test_golden(path, "pfor")
    assert wrong.read_text() == "stale\n"
    wrong.unlink()
    with pytest.raises(AssertionError, match="is missing"):
        test_golden(path, "pfor")
    assert not wrong.exists()


def test_refused_samples_are_the_unchanged_ones():
    assert sorted(UNCHANGED) == sorted(p.stem for p in SAMPLES if "refused" in p.stem)
    assert set(PFOR_ONLY) <= set(IDS) and set(DIRECT_ONLY) <= set(IDS)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_golden_differs_from_its_sample_unless_refused(path, backend):
    """A golden file equal to its sample passes with a transpiler that does nothing: only the
    refused samples may have one, and for them nothing is rewritten, with the refusing remark."""
    golden = (FOLDERS[backend] / path.name).read_text()
    if path.stem in DIRECT_ONLY and backend == "pfor":
        assert golden == path.read_text()
        plans = [p for p in transpile_source(path.read_text(), str(path), backend=backend).plans
                 if not p.function.startswith("reference_")]
        assert plans and all(p.vectorizable and not p.rewritten for p in plans), plans
        assert all(any(why in r.message for r in p.remarks for why in DIRECT_ONLY[path.stem])
                   for p in plans), plans
        return
    if path.stem in NUMPY and backend == "pfor":
        assert golden == path.read_text()
        plans = [p for p in transpile_source(path.read_text(), str(path), backend=backend).plans
                 if not p.function.startswith("reference_")]  # a hand reference may compose in a loop
        kept = [p for p in plans if not p.vectorizable]  # (a distributed loop's piece kept by design)
        assert all(sum(k.function == name for k in kept) <= KEPT_PIECES.get(name, 0) for name in {k.function for k in kept})
        plans = [p for p in plans if p.vectorizable]
        assert plans and all(not p.rewritten for p in plans)
        assert all("needs the direct backend" in p.remarks[-1].message for p in plans), plans
        return
    if path.stem not in UNCHANGED:
        assert golden != path.read_text(), f"{path.name}: the {backend} golden file is the sample"
        return
    assert golden == path.read_text()
    result = transpile_source(path.read_text(), str(path), backend=backend)
    assert result.plans and not result.changed and not any(p.rewritten for p in result.plans)
    assert {r.code for r in result.remarks} == {UNCHANGED[path.stem]}, result.remarks


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_direct_golden_differs_from_pfor_unless_it_falls_back(path):
    """The direct golden file equals the pfor one only where the direct backend leaves every
    loop to pfor (per-example gradients, its plans say why) or nothing is rewritten."""
    pfor, direct = ((FOLDERS[backend] / path.name).read_text() for backend in BACKENDS)
    if path.stem in UNCHANGED:
        assert direct == pfor == path.read_text()
    elif path.stem in NUMPY or path.stem in DIRECT_ONLY:
        assert direct != pfor == path.read_text()
    elif path.stem in PFOR_ONLY:
        assert direct == pfor
        plans = transpile_source(path.read_text(), str(path), backend="direct").plans
        assert plans and all(p.rewritten and p.backend == "pfor" for p in plans), plans
        assert all(_says(p.backend_note, PFOR_ONLY[path.stem]) for p in plans), plans
    else:
        assert direct != pfor, f"{path.name}: the direct golden file is the pfor one"


@pytest.mark.parametrize("path", [p for p in SAMPLES if "refused" not in p.stem],
                         ids=[p.stem for p in SAMPLES if "refused" not in p.stem])
def test_auto_picks_direct_unless_a_rule_is_missing(path):
    """``auto`` uses direct for every sample but per-example gradients, and says why."""
    plans = [p for p in transpile_source(path.read_text(), str(path)).plans if p.rewritten]
    assert plans
    for plan in plans:
        if path.stem in PFOR_ONLY:
            assert plan.backend == "pfor" and _says(plan.backend_note, PFOR_ONLY[path.stem]), plan
        else:
            assert plan.backend == "direct", plan
            assert "tf.vectorized_map(" not in transpile_source(path.read_text(), str(path)).code


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_idempotent_and_deterministic(path, backend):
    first = transpile_source(path.read_text(), str(path), backend=backend).code
    assert transpile_source(path.read_text(), str(path), backend=backend).code == first
    assert transpile_source(first, str(path), backend=backend).code == first


#: loops split by loop distribution whose recurrence's piece stays a loop, by design: name -> pieces kept
KEPT_PIECES = {"logistic_features": 1}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_equivalent_to_original(path, backend, tf):
    """Generated code returns the original's numbers (rtol 1e-4) on the sample's inputs."""
    from pforge.runtime.verify import functions_in, verify_function

    names = functions_in(str(path))
    assert names
    for name in names:
        result = verify_function(str(path), name, repeats=1, seed=1, backend=backend)
        assert result.ok, f"{name}: {result.note}"
        refused = "refused" in path.stem or (path.stem in NUMPY | set(DIRECT_ONLY) and backend == "pfor")
        kept = KEPT_PIECES.get(name, 0) if not refused else 0
        assert result.loops_vectorized == (0 if refused else result.loops_found - kept), name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", [p for p in SAMPLES if "refused" not in p.stem],
                         ids=[p.stem for p in SAMPLES if "refused" not in p.stem])
def test_traces_once(path, backend, tf, tmp_path):
    """Two calls with same-shaped inputs trace the staged function once (NumPy output is not
    staged)."""
    from pforge.runtime.loader import load_module

    result = transpile_source(path.read_text(), str(path), backend=backend)
    if path.stem in NUMPY:
        assert "tf.function" not in result.code and "import tensorflow" not in result.code
        return
    if path.stem in DIRECT_ONLY and backend == "pfor":
        assert not result.changed  # (the loops stay, unstaged: nothing to trace)
        return
    module = load_module(str(path), source=result.code)
    for name, args in module.example_inputs().items():
        fn = getattr(module, name)
        fn(*args)
        fn(*module.example_inputs(seed=1)[name])
        assert fn.experimental_get_tracing_count() == 1, name
