"""Every sample: golden generated code (pfor and direct), numerical equivalence, one trace, idempotence."""

from __future__ import annotations

import os

import pytest

from conftest import GOLDEN, sample_files
from pforge.transpile import transpile_source

SAMPLES = sample_files()
IDS = [p.stem for p in SAMPLES]


BACKENDS = ["pfor", "direct"]
#: golden folders: tests/golden/*.py (pfor), tests/golden/direct/*.py (direct)
FOLDERS = {"pfor": GOLDEN, "direct": GOLDEN / "direct"}
#: samples the direct backend leaves to pfor (GradientTape in the body), with the reason
PFOR_ONLY = {"per_example_grads"}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_golden(path, backend):
    """The generated code is byte-identical to the reviewed golden file of that backend.

    Regenerate with PFORGE_UPDATE_GOLDEN=1 after reading the diff.
    """
    code = transpile_source(path.read_text(), str(path.relative_to(path.parent.parent)), backend=backend).code
    golden = FOLDERS[backend] / path.name
    if os.environ.get("PFORGE_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(code)
    assert code == golden.read_text()


@pytest.mark.parametrize("path", [p for p in SAMPLES if "refused" not in p.stem],
                         ids=[p.stem for p in SAMPLES if "refused" not in p.stem])
def test_auto_picks_direct_unless_a_rule_is_missing(path):
    """``auto`` uses direct for every sample but per-example gradients, and says why."""
    plans = [p for p in transpile_source(path.read_text(), str(path)).plans if p.rewritten]
    assert plans
    for plan in plans:
        if path.stem in PFOR_ONLY:
            assert plan.backend == "pfor" and "GradientTape" in plan.backend_note, plan
        else:
            assert plan.backend == "direct", plan
            assert "tf.vectorized_map(" not in transpile_source(path.read_text(), str(path)).code


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_idempotent_and_deterministic(path, backend):
    first = transpile_source(path.read_text(), str(path), backend=backend).code
    assert transpile_source(path.read_text(), str(path), backend=backend).code == first
    assert transpile_source(first, str(path), backend=backend).code == first


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
        refused = "refused" in path.stem
        assert result.loops_vectorized == (0 if refused else result.loops_found), name


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", [p for p in SAMPLES if "refused" not in p.stem],
                         ids=[p.stem for p in SAMPLES if "refused" not in p.stem])
def test_traces_once(path, backend, tf, tmp_path):
    """Two calls with same-shaped inputs trace the staged function once."""
    from pforge.runtime.loader import load_module

    result = transpile_source(path.read_text(), str(path), backend=backend)
    module = load_module(str(path), source=result.code)
    for name, args in module.example_inputs().items():
        fn = getattr(module, name)
        fn(*args)
        fn(*module.example_inputs(seed=1)[name])
        assert fn.experimental_get_tracing_count() == 1, name
