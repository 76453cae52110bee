"""Every sample: golden generated code, numerical equivalence, one trace, idempotence."""

from __future__ import annotations

import os

import pytest

from conftest import GOLDEN, sample_files
from pforge.transpile import transpile_source

SAMPLES = sample_files()
IDS = [p.stem for p in SAMPLES]


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_golden(path):
    """The generated code is byte-identical to the reviewed golden file.

    Regenerate with PFORGE_UPDATE_GOLDEN=1 after reading the diff.
    """
    code = transpile_source(path.read_text(), str(path.relative_to(path.parent.parent))).code
    golden = GOLDEN / path.name
    if os.environ.get("PFORGE_UPDATE_GOLDEN"):
        golden.write_text(code)
    assert code == golden.read_text()


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_idempotent_and_deterministic(path):
    first = transpile_source(path.read_text(), str(path)).code
    assert transpile_source(path.read_text(), str(path)).code == first
    assert transpile_source(first, str(path)).code == first


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_equivalent_to_original(path, tf):
    """Generated code returns the original's numbers (rtol 1e-4) on the sample's inputs."""
    from pforge.runtime.verify import functions_in, verify_function

    names = functions_in(str(path))
    assert names
    for name in names:
        result = verify_function(str(path), name, repeats=1, seed=1)
        assert result.ok, f"{name}: {result.note}"
        refused = "refused" in path.stem
        assert result.loops_vectorized == (0 if refused else result.loops_found), name


@pytest.mark.parametrize("path", [p for p in SAMPLES if "refused" not in p.stem],
                         ids=[p.stem for p in SAMPLES if "refused" not in p.stem])
def test_traces_once(path, tf, tmp_path):
    """Two calls with same-shaped inputs trace the staged function once."""
    from pforge.runtime.loader import load_module

    result = transpile_source(path.read_text(), str(path))
    module = load_module(str(path), source=result.code)
    for name, args in module.example_inputs().items():
        fn = getattr(module, name)
        fn(*args)
        fn(*module.example_inputs(seed=1)[name])
        assert fn.experimental_get_tracing_count() == 1, name
