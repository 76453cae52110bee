"""Tests of pforge.runtime (loader, inputs, compare, timing, verify) and `pforge verify`."""

import inspect
import json
import math
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import pforge.transpile
from pforge.runtime import compare, inputs, loader, targets, timing, verify
from pforge.runtime.inputs import ArgSpec, parse_arg_spec

from conftest import ROWS_BATCHED, ROWS_LOOP_BODY

# --------------------------------------------------------------------------- arg specs


@pytest.mark.parametrize("text, want", [
    pytest.param("x=float32[64,32]", ArgSpec("x", "float32", (64, 32)), id="matrix"),
    pytest.param("x = int64[ 3 ]", ArgSpec("x", "int64", (3,)), id="spaces"),
    pytest.param("t=float16[]", ArgSpec("t", "float16", ()), id="scalar-tensor"),
    pytest.param("m=bool[2,0]", ArgSpec("m", "bool", (2, 0)), id="bool-empty"),
    pytest.param("n=int:5", ArgSpec("n", "int", value=5), id="typed-int"),
    pytest.param("n=5", ArgSpec("n", "int", value=5), id="bare-int"),
    pytest.param("lr=0.1", ArgSpec("lr", "float", value=0.1), id="bare-float"),
    pytest.param("lr=float:2", ArgSpec("lr", "float", value=2.0), id="typed-float"),
])
def test_parse_arg_spec(text, want):
    got = parse_arg_spec(text)
    assert got == want
    assert type(got.value) is type(want.value)


@pytest.mark.parametrize("text", [
    "x", "=float32[3]", "1x=float32[3]", "x=float32[3", "x=complex64[3]", "x=float32[a,b]",
    "x=float32[-1]", "x=int:0.5", "x=hello", "x=float32",
])
def test_parse_arg_spec_rejects(text):
    with pytest.raises(ValueError, match="bad --arg") as info:
        parse_arg_spec(text)
    assert repr(text) in str(info.value)


def test_spec_inputs_numpy_deterministic():
    specs = [parse_arg_spec(s) for s in ("x=float32[4,3]", "k=int32[50]", "m=bool[5]", "n=7")]
    args, kwargs = inputs.spec_inputs(specs, seed=3, as_tensor=False)
    assert args == ()
    assert kwargs["x"].shape == (4, 3) and kwargs["x"].dtype == np.float32
    assert kwargs["k"].dtype == np.int32 and 0 <= kwargs["k"].min() and kwargs["k"].max() < 10
    assert kwargs["m"].dtype == np.bool_
    assert kwargs["n"] == 7
    again = inputs.spec_inputs(specs, seed=3, as_tensor=False)[1]
    np.testing.assert_array_equal(kwargs["x"], again["x"])
    other = inputs.spec_inputs(specs, seed=4, as_tensor=False)[1]
    assert not np.array_equal(kwargs["x"], other["x"])


@pytest.mark.parametrize("value, want", [
    ((1, 2), ((1, 2), {})), ({"a": 1}, ((), {"a": 1})), ([1, 2], (([1, 2],), {})),
])
def test_as_call_args(value, want):
    assert inputs.as_call_args(value) == want


def test_input_maker_conventions():
    calls = []

    def example_inputs(seed=0):
        calls.append(seed)
        return {"f": (np.ones(2) * seed,), "g": {"y": seed}}

    module = types.SimpleNamespace(example_inputs=example_inputs)
    make = inputs.input_maker(module, "f", seed=2)
    args, _ = make()
    args[0][:] = -1  # a mutation must not leak into the next call
    np.testing.assert_array_equal(make()[0][0], [2.0, 2.0])
    assert inputs.input_maker(module, "g", seed=1)() == ((), {"y": 1})
    with pytest.raises(LookupError, match="no inputs for 'h'"):
        inputs.input_maker(module, "h")

    case = types.SimpleNamespace(original=lambda a: a, make_inputs=lambda: 5)
    assert inputs.input_maker(case, "original")() == ((5,), {})
    specs = (parse_arg_spec("n=3"),)
    assert inputs.input_maker(case, "original", specs)() == ((), {"n": 3})


# --------------------------------------------------------------------------- compare


def test_compare_equal_nested():
    a = {"x": (np.arange(3.0), [1, 2.5]), "y": np.float32(1)}
    b = {"x": [np.arange(3.0), (1, 2.5)], "y": 1.0}
    got = compare.compare(a, b)
    assert got == compare.Comparison(True, 0.0, 0.0, "")


def test_compare_errors_and_tolerance():
    a, b = np.array([1.0, -2.0, 0.0]), np.array([1.0, -2.002, 1e-6])
    loose = compare.compare(a, b, rtol=1e-2, atol=1e-5)
    assert loose.ok and loose.message == ""
    assert loose.max_abs_err == pytest.approx(2e-3)
    assert loose.max_rel_err == pytest.approx(1e-3)  # the element with a == 0 is skipped
    tight = compare.compare(a, b, rtol=1e-4, atol=1e-5)
    assert not tight.ok and "1 of 3 elements differ" in tight.message and "[1]" in tight.message


@pytest.mark.parametrize("a, b, fragment", [
    pytest.param(np.zeros(3), np.zeros(4), "shape (3,) vs (4,)", id="shape"),
    pytest.param((1, 2), (1, 2, 3), "2 vs 3 items", id="length"),
    pytest.param({"a": 1}, {"b": 1}, "keys", id="keys"),
    pytest.param([1.0], 1.0, "list vs float", id="structure"),
    pytest.param(np.array([True]), np.array([1.0]), "dtype bool (bool) vs float64", id="kind"),
    pytest.param(np.array([1]), np.array([1.0]), "(int) vs float64 (float)", id="int-float"),
    pytest.param("a", "b", "'a' vs 'b'", id="object"),
])
def test_compare_mismatch(a, b, fragment):
    got = compare.compare(a, b)
    assert not got.ok
    assert fragment in got.message
    assert got.max_abs_err == math.inf


def test_compare_nan_inf_bool():
    assert compare.compare(np.array([np.nan, np.inf]), np.array([np.nan, np.inf])).ok
    one_nan = compare.compare(np.array([np.nan]), np.array([1.0]))
    assert not one_nan.ok and one_nan.max_abs_err == math.inf
    assert not compare.compare(np.array([True, False]), np.array([True, True])).ok
    assert compare.compare(None, None).ok
    assert compare.compare(np.zeros((0, 3)), np.zeros((0, 3))).ok


def test_compare_location_message():
    got = compare.compare({"k": [np.zeros(2), np.zeros(2)]}, {"k": [np.zeros(2), np.ones(2)]})
    assert got.message.startswith("out['k'][1]: 2 of 2 elements differ")


def test_compare_tensorflow_values():
    tf = pytest.importorskip("tensorflow")
    a = (tf.constant([1.0, 2.0]), tf.Variable([[1, 2]]), tf.ragged.constant([[1], [2, 3]]))
    b = [np.array([1.0, 2.0], np.float32), np.array([[1, 2]]), [[1], [2, 3]]]
    assert compare.compare(a, b).ok
    assert not compare.compare(tf.constant([1.0]), tf.constant([1.5])).ok


# --------------------------------------------------------------------------- loader


def _write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_load_module_fresh_and_restores_state(tmp_path):
    _write(tmp_path, "helper_mod_xyz.py", "VALUE = 41\n")
    path = _write(tmp_path, "user.py", """\
        import dataclasses
        import helper_mod_xyz

        @dataclasses.dataclass
        class Point:
            x: int

        def f():
            return helper_mod_xyz.VALUE + 1
        """)
    modules, sys_path = set(sys.modules), list(sys.path)
    first, second = loader.load_module(path), loader.load_module(path)
    assert first is not second and first.__name__ != second.__name__
    assert first.f() == 42 and first.Point(1).x == 1
    assert set(sys.modules) == modules  # own entry and the sibling helper are gone
    assert sys.path == sys_path
    assert not (tmp_path / "__pycache__").exists()
    assert loader.load_module(path, name="chosen").__name__ == "chosen"


def test_load_module_source_override(tmp_path):
    path = _write(tmp_path, "user.py", "def f():\n    return 1\n")
    module = loader.load_module(path, source="def f():\n    return 2\n")
    assert module.f() == 2
    assert loader.load_module(path).f() == 1
    # The generated text is what inspect (and AutoGraph) sees, not the file on disk.
    assert "return 2" in inspect.getsource(module.f)
    assert module.__file__ == loader.generated_filename(path) != str(path)


@pytest.mark.parametrize("body, error", [
    ("raise ValueError('boom')\n", "ValueError: boom"),
    ("def f(:\n", "SyntaxError"),
    ("import sys\nsys.exit(3)\n", "SystemExit"),
])
def test_load_module_errors_name_the_file(tmp_path, body, error):
    path = _write(tmp_path, "broken.py", body)
    modules = set(sys.modules)
    with pytest.raises(loader.RuntimeLoadError) as info:
        loader.load_module(path)
    assert str(path) in str(info.value) and error in str(info.value)
    assert set(sys.modules) == modules


def test_importing_runtime_does_not_import_tensorflow():
    code = ("import sys, pforge.runtime, pforge.cli.verify; "
            "sys.exit('tensorflow' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# --------------------------------------------------------------------------- timing


def test_time_call_counts_and_fresh_args():
    made = []

    def make_args():
        made.append(1)
        return ([0],), {}

    def fn(box):
        box[0] += 1  # mutates its input; fresh args keep every call identical
        return box[0]

    got = timing.time_call(fn, make_args, repeats=5, warmup=2)
    assert got.repeats == 5 and len(made) == 1 + 2 + 5
    assert got.median_s >= 0 and got.first_s >= 0


def test_time_interleaved_budget():
    got = timing.time_interleaved([lambda: None, lambda: None], lambda: ((), {}),
                                  repeats=1000, warmup=1, budget_s=0.0)
    assert [t.repeats for t in got] == [3, 3]


def test_pick_device():
    pytest.importorskip("tensorflow")
    device, label = timing.pick_device()
    assert device in ("/GPU:0", "/CPU:0")
    assert label.startswith("GPU: ") if device == "/GPU:0" else label == "CPU (no GPU visible)"


# --------------------------------------------------------------------------- verify

LOOP_SOURCE = f'''\
import numpy as np
import tensorflow as tf


def scale_rows(x, w):
{ROWS_LOOP_BODY}


def helper(x):
    return [v for v in x]


def example_inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal((8, 3)), tf.float32)
    w = tf.constant(rng.standard_normal(3), tf.float32)
    return {{"scale_rows": (x, w)}}
'''

VECTORIZED = LOOP_SOURCE.replace(ROWS_LOOP_BODY, ROWS_BATCHED)


def _fake_transpiler(monkeypatch, code, plans=None, seen=None):
    if plans is None:
        plans = (types.SimpleNamespace(function="scale_rows", rewritten=True),
                 types.SimpleNamespace(function="helper", rewritten=False))

    def transpile_source(source, filename="<string>", *, backend="pfor", shapes=None):
        if seen is not None:
            seen.append((filename, backend))
        return types.SimpleNamespace(code=code, changed=code != source, plans=plans)

    monkeypatch.setattr(pforge.transpile, "transpile_source", transpile_source, raising=False)


@pytest.fixture
def tf():
    return pytest.importorskip("tensorflow")


def test_verify_function_ok(tmp_path, monkeypatch, tf):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    seen = []
    _fake_transpiler(monkeypatch, VECTORIZED, seen=seen)
    got = verify.verify_function(path, "scale_rows", repeats=3, warmup=1, backend="direct")
    assert seen == [(str(path), "direct")]
    assert got.ok and got.note == ""
    assert (got.loops_found, got.loops_vectorized) == (1, 1)
    assert got.max_abs_err < 1e-5
    assert got.time_original_s > 0 and got.time_generated_s > 0 and got.speedup > 0
    assert got.first_generated_s > 0 and got.device


def test_verify_function_arg_specs(tmp_path, monkeypatch, tf):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    _fake_transpiler(monkeypatch, VECTORIZED)
    got = verify.verify_function(path, "scale_rows", arg_specs=["x=float32[5,4]", "w=float32[4]"],
                                 repeats=3, warmup=0)
    assert got.ok


def test_verify_function_detects_wrong_rewrite(tmp_path, monkeypatch, tf):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    _fake_transpiler(monkeypatch, VECTORIZED.replace("axis=1", "axis=0"))
    got = verify.verify_function(path, "scale_rows", repeats=3, warmup=0)
    assert not got.ok and "shape (8,) vs (3,)" in got.note


def test_verify_function_generated_raises(tmp_path, monkeypatch, tf):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    _fake_transpiler(monkeypatch, VECTORIZED.replace("x * w", "x * undefined_name"))
    got = verify.verify_function(path, "scale_rows", repeats=3, warmup=0)
    assert not got.ok and "generated code raised NameError" in got.note
    assert got.max_abs_err == math.inf


def test_verify_function_bad_input(tmp_path, monkeypatch, tf):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    _fake_transpiler(monkeypatch, VECTORIZED)
    with pytest.raises(verify.VerifyInputError, match="no inputs for 'helper'"):
        verify.verify_function(path, "helper")
    with pytest.raises(verify.VerifyInputError, match="no function 'nope'"):
        verify.verify_function(path, "nope")
    with pytest.raises(verify.VerifyInputError, match="the original raised"):
        verify.verify_function(path, "scale_rows", arg_specs=["x=float32[5,4]", "w=float32[3]"])
    with pytest.raises(verify.VerifyInputError, match="no such file"):
        verify.verify_function(tmp_path / "missing.py", "f")


def test_verify_path_directory(tmp_path, monkeypatch, tf):
    _write(tmp_path, "a_rows.py", LOOP_SOURCE)
    _write(tmp_path, "b_case.py", """\
        import numpy as np

        def original(v):
            total = 0.0
            for x in v:
                total += x
            return total

        def make_inputs(seed=0):
            return (np.arange(5.0) + seed,)
        """)
    _write(tmp_path, "c_plain.py", "raise RuntimeError('never executed')\n")

    def transpile_source(source, filename="<string>", *, backend="pfor", shapes=None):
        code = VECTORIZED if "scale_rows" in source else source.replace(
            "    total = 0.0\n    for x in v:\n        total += x\n", "    total = np.sum(v)\n")
        plans = (types.SimpleNamespace(function="original.<locals>.inner", rewritten=True),
                 types.SimpleNamespace(function="original", rewritten=True))
        return types.SimpleNamespace(code=code, changed=True, plans=plans)

    monkeypatch.setattr(pforge.transpile, "transpile_source", transpile_source, raising=False)
    got = verify.verify_path(tmp_path, repeats=3, warmup=0)
    assert [(os.path.basename(r.file), r.function) for r in got] == [
        ("a_rows.py", "scale_rows"), ("b_case.py", "original")]
    assert all(r.ok for r in got)
    assert got[1].loops_found == 2
    assert verify.functions_in(tmp_path / "c_plain.py") == []


@pytest.mark.parametrize("qualname, func, want", [
    ("f", "f", True), ("f.<locals>.g", "f", True), ("C.f", "f", True), ("C.f", "C.f", True),
    ("g", "f", False), ("ff", "f", False), ("C.g", "C.f", False),
])
def test_plan_belongs_to_function(qualname, func, want):
    assert targets.belongs(qualname, func) is want


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def cli():
    import typer
    from typer.testing import CliRunner

    from pforge.cli.verify import verify as verify_command

    app = typer.Typer()
    app.command("verify")(verify_command)

    @app.callback()
    def main():
        """Keeps ``verify`` a subcommand, as under ``pforge``."""

    runner = CliRunner()
    return lambda *args: runner.invoke(app, ["verify", *map(str, args)])


def test_cli_bad_arg(cli, tmp_path):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    got = cli(f"{path}::scale_rows", "--arg", "x=float32[3")
    assert got.exit_code == 2
    assert "bad --arg 'x=float32[3'" in got.output and "Traceback" not in got.output


def test_cli_missing_file(cli, tmp_path):
    got = cli(tmp_path / "missing.py")
    assert got.exit_code == 2
    assert "missing.py: no such file or directory" in got.output


def test_cli_file_without_inputs(cli, tmp_path):
    path = _write(tmp_path, "plain.py", "def f():\n    return 1\n")
    got = cli(path)
    assert got.exit_code == 2 and "plain.py: no inputs" in got.output


def test_cli_arg_needs_function(cli, tmp_path):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    got = cli(path, "--arg", "n=3")
    assert got.exit_code == 2 and "--arg needs a single function" in got.output


def test_cli_ok_table(cli, tmp_path, monkeypatch, tf):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    _fake_transpiler(monkeypatch, VECTORIZED)
    got = cli(path, "--repeats", "3")
    assert got.exit_code == 0, got.output
    assert "scale_rows" in got.output and "ok" in got.output and "Ran on " in got.output


def test_cli_mismatch_json(cli, tmp_path, monkeypatch, tf):
    path = _write(tmp_path, "rows.py", LOOP_SOURCE)
    _fake_transpiler(monkeypatch, VECTORIZED.replace("x * w", "x * w + 1.0"))
    got = cli(f"{path}::scale_rows", "--repeats", "3", "--json")
    assert got.exit_code == 1
    report = json.loads(got.stdout)
    (row,) = report["results"]
    assert row["function"] == "scale_rows" and row["ok"] is False
    assert row["loops_found"] == 1 and report["device"] == row["device"]
