"""`pforge verify` and `pforge bench` test what `pforge transpile` writes (issue 10, item 5).

They transpile with the ranks `transpile` would be given (`--shapes`, `--probe`, and by
default the ranks of the inputs they run on), run NumPy code on NumPy arrays without
TensorFlow, and say when a loop stayed a loop for lack of a rank instead of calling it "ok".
The NumPy sample is `tests/data/numpy_rows.py`: plain `transpile` leaves its four
independent loops as loops (PF301: a rank is unknown); `transpile --probe` rewrites them.
"""

import json
import math
import subprocess
import sys
import textwrap

import pytest

import pforge.transpile
from pforge.runtime import targets

from conftest import ROOT, assert_exit, invoke, write

#: generated code in the file's style, as users get it (tests/conftest.py)
pytestmark = pytest.mark.file_style

SAMPLE = ROOT / "tests" / "data" / "numpy_rows.py"
#: The sample's functions whose loop `transpile --probe` rewrites.
REWRITTEN = ("scale_rows", "row_norms", "pairwise_dots", "weighted_total")
MARKER = "# pforge: vectorized loop"


def _json(result):
    assert result.stdout.strip(), result.output
    return {r["function"]: r for r in json.loads(result.stdout)["results"]}


def _spy_transpiler(monkeypatch, edit=None):
    """Wraps the real transpiler: records each generated text (after ``edit``, if given)."""
    real = pforge.transpile.transpile_source
    seen = []

    def transpile_source(source, filename="<string>", **options):
        result = real(source, filename, **options)
        code = edit(result.code) if edit else result.code
        seen.append(code)
        return type(result)(result.filename, result.source, code, result.plans)

    monkeypatch.setattr(pforge.transpile, "transpile_source", transpile_source)
    return seen


def test_the_sample_without_ranks_is_checked_at_run_time():
    """What the other tests rely on: without ranks the four loops are rewritten for the ranks
    the code suggests, checked at run time; with --probe they are rewritten for the probed
    ranks, which are checked too (an example input is one example), each widened to every rank
    the batched code is the same for."""
    plain = invoke("transpile", SAMPLE)
    assert_exit(plain, 0)
    assert plain.stdout.count(MARKER) == len(REWRITTEN) and "PF301" not in plain.stderr
    assert plain.stdout.count("run-time checks hold\n    if ") == len(REWRITTEN)
    probed = invoke("transpile", SAMPLE, "--probe")
    assert_exit(probed, 0)
    assert probed.stdout.count(MARKER) == len(REWRITTEN)
    assert probed.stdout.count("    if np.ndim(w) <= 1 and type(x) is np.ndarray and x.ndim >= 2 and x.shape[0] > 0:\n") == 2
    assert "    if type(x) is np.ndarray and x.ndim == 2 and len(x) > 0:\n        norms = np.sqrt(np.sum(x * x, axis=-1))" in probed.stdout


def test_verify_checks_every_loop_transpile_probe_rewrites(monkeypatch):
    probed = invoke("transpile", SAMPLE, "--probe")
    assert_exit(probed, 0)
    seen = _spy_transpiler(monkeypatch)
    got = invoke("verify", SAMPLE, "--repeats", "3", "--json")
    assert_exit(got, 0)
    rows = _json(got)
    assert list(rows) == [*REWRITTEN, "running_max"]
    # the code verify ran is, byte for byte, what `transpile --probe` writes
    assert seen and all(code == probed.stdout for code in seen)
    # every rewritten loop was rewritten here too, then run and compared, with numbers
    assert sum(rows[f]["loops_vectorized"] for f in REWRITTEN) == probed.stdout.count(MARKER)
    for name in REWRITTEN:
        row = rows[name]
        assert row["loops_vectorized"] == row["loops_found"] == 1, row
        assert row["loops_rank_unknown"] == 0 and row["status"] == "ok" and row["ok"], row
        assert math.isfinite(row["max_abs_err"]) and row["max_abs_err"] < 1e-9, row
        assert row["time_generated_s"] > 0 and row["device"] == "CPU (NumPy)"
    refused = rows["running_max"]
    assert (refused["loops_found"], refused["loops_vectorized"]) == (1, 0)
    assert refused["status"] == "unchanged" and refused["loops_rank_unknown"] == 0


def test_verify_runs_the_rewritten_code(monkeypatch):
    """A wrong rewrite of the probed code is caught: the rewrite is what runs, not the loop."""
    probed = invoke("transpile", SAMPLE, "--probe").stdout
    assert "np.tanh(x * w) + 1.0" in probed
    _spy_transpiler(monkeypatch, lambda code: code.replace("np.tanh(x * w) + 1.0",
                                                           "np.tanh(x * w) + 1.001"))
    got = invoke("verify", f"{SAMPLE}::scale_rows", "--repeats", "3", "--json")
    assert_exit(got, 1)
    row = _json(got)["scale_rows"]
    assert row["loops_vectorized"] == 1 and row["status"] == "mismatch" and not row["ok"]
    assert row["max_abs_err"] == pytest.approx(0.001)


def test_verify_without_ranks_runs_the_checked_rewrite():
    got = invoke("verify", SAMPLE, "--no-probe", "--repeats", "3", "--json")
    assert_exit(got, 0)
    rows = _json(got)
    for name in REWRITTEN:
        row = rows[name]
        assert row["loops_vectorized"] == 1 and row["loops_rank_unknown"] == 0, row
        assert row["status"] == "ok", row


def test_verify_says_when_the_rank_check_failed_and_the_loop_ran():
    """Inputs of other ranks than the code suggests: the check fails, the loop runs, and verify
    does not call that a tested rewrite."""
    target = f"{SAMPLE}::scale_rows"
    got = invoke("verify", target, "--no-probe", "--arg", "x=float64[4,3,2]", "--arg", "w=float64[3,2]",
                 "--repeats", "3", "--json")
    assert_exit(got, 0)
    row = _json(got)["scale_rows"]
    assert row["loops_vectorized"] == 1 and row["status"] == "unchanged: rank check failed", row
    assert "so the loop ran" in row["note"]
    given = invoke("verify", target, "--no-probe", "--arg", "x=float64[4,3]", "--arg", "w=float64[3]",
                   "--repeats", "3", "--json")
    assert _json(given)["scale_rows"]["status"] == "ok"


def test_verify_file_whose_ranks_no_input_gives(tmp_path):
    """A loop over a module array: the inputs' ranks do not help, and verify says so."""
    path = write(tmp_path, "table.py", textwrap.dedent("""\
        import numpy as np

        SHAPE = (8, 3)
        TABLE = np.arange(24.0).reshape(*SHAPE)


        def lookup(idx):
            out = []
            for i in idx:
                out.append(TABLE[i] * 2.0)
            return np.stack(out)


        def example_inputs(seed=0):
            return {"lookup": (np.array([1, 3, 5]),)}
        """))
    got = invoke("verify", path, "--repeats", "3", "--json")
    assert_exit(got, 0)
    row = _json(got)["lookup"]
    assert row["status"] == "unchanged: rank unknown" and row["loops_rank_unknown"] == 1
    assert "`TABLE[i] * 2.0`" in row["note"]


def test_verify_shapes_option_gives_ranks():
    """--shapes (the parser of `transpile --shapes`) alone: x and w known, xs and ys not."""
    got = invoke("verify", SAMPLE, "--no-probe", "--shapes", "x=2,w=1", "--repeats", "3", "--json")
    assert_exit(got, 0)
    rows = _json(got)
    for name in REWRITTEN:  # pairwise_dots: with the ranks it checks at run time
        assert rows[name]["loops_vectorized"] == 1 and rows[name]["status"] == "ok", rows[name]
    one = invoke("verify", SAMPLE, "--no-probe", "--shapes", "pairwise_dots.xs=2,pairwise_dots.ys=2",
                 "--repeats", "3", "--json")
    assert _json(one)["pairwise_dots"]["status"] == "ok"


NUMPY_ONLY = textwrap.dedent("""\
    import numpy as np


    def halves(x):
        if type(x) is not np.ndarray or x.dtype != np.float32 or x.shape != (4, 3):
            raise TypeError(f"wanted a float32 [4, 3] NumPy array, got {type(x)!r}")
        out = np.zeros_like(x)
        for i in range(x.shape[0]):
            out[i] = x[i] * 0.5
        return out
    """)


def test_verify_arg_builds_numpy_arrays_without_tensorflow(tmp_path):
    """--arg gives a NumPy function NumPy arrays of that dtype and shape, and their ranks;
    TensorFlow is never imported (checked in a fresh interpreter)."""
    path = write(tmp_path, "halves.py", NUMPY_ONLY)
    code = textwrap.dedent(f"""\
        import json, sys
        from typer.testing import CliRunner
        from pforge.cli.main import app
        got = CliRunner().invoke(app, ["verify", {str(path) + "::halves"!r}, "--arg",
                                       "x=float32[4,3]", "--repeats", "3", "--json"])
        print(json.dumps({{"code": got.exit_code, "stdout": got.stdout,
                          "tf": "tensorflow" in sys.modules}}))
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, report
    assert report["tf"] is False
    (row,) = json.loads(report["stdout"])["results"]
    assert row["loops_vectorized"] == 1 and row["status"] == "ok" and row["device"] == "CPU (NumPy)"


def test_verify_arg_ranks_and_no_probe(tmp_path):
    """The --arg specs give their ranks; --no-probe checks what plain `transpile` writes."""
    path = write(tmp_path, "halves.py", NUMPY_ONLY)
    target = f"{path}::halves"
    got = invoke("verify", target, "--arg", "x=float32[4,3]", "--repeats", "3", "--json")
    assert_exit(got, 0)
    assert _json(got)["halves"]["status"] == "ok"
    bare = invoke("verify", target, "--arg", "x=float32[4,3]", "--no-probe", "--repeats", "3",
                  "--json")
    assert_exit(bare, 0)
    row = _json(bare)["halves"]  # rewritten for the ranks the code suggests, which hold
    assert row["status"] == "ok" and row["loops_vectorized"] == 1


@pytest.mark.parametrize("command", ["verify", "bench"])
@pytest.mark.parametrize("args, fragment", [
    pytest.param(["--shapes", "xs"], "error: --shapes: expected NAME=RANK, got 'xs'", id="no-rank"),
    pytest.param(["--shapes", "x=two"], "error: --shapes: expected NAME=RANK, got 'x=two'", id="word"),
])
def test_bad_shapes_exit_2_with_one_line(command, args, fragment):
    got = invoke(command, SAMPLE, *args)
    assert_exit(got, 2)
    assert got.stderr.strip().splitlines() == [fragment] and got.stdout == ""


@pytest.mark.parametrize("command", ["verify", "bench"])
def test_probe_without_input_builder_exits_2(tmp_path, command):
    path = write(tmp_path, "halves.py", NUMPY_ONLY)
    got = invoke(command, f"{path}::halves", "--arg", "x=float32[4,3]", "--probe")
    assert_exit(got, 2)
    (line,) = got.stderr.strip().splitlines()
    assert line.startswith("error: --probe: ") and "example_inputs() or make_inputs()" in line


def test_ranks_for_precedence(tmp_path):
    """Probed ranks, then the --arg specs' (for the function), then --shapes win."""
    from pforge.runtime.inputs import parse_arg_spec

    module = targets.load_original(SAMPLE)
    probed = targets.ranks_for(module, "scale_rows", str(SAMPLE))
    assert probed["scale_rows.x"] == 2 and probed["scale_rows.w"] == 1
    assert targets.ranks_for(module, "scale_rows", str(SAMPLE), probe=False) == {}
    specs = (parse_arg_spec("x=float32[4,3,2]"), parse_arg_spec("n=3"))
    assert targets.ranks_for(module, "scale_rows", str(SAMPLE), specs) == {
        "scale_rows.x": 3, "scale_rows.n": 0}  # inputs from --arg: the file is not probed
    assert targets.ranks_for(module, "scale_rows", str(SAMPLE), specs, probe=False) == {}
    both = targets.ranks_for(module, "scale_rows", str(SAMPLE), specs, {"scale_rows.x": 1},
                             probe=True)
    assert both["scale_rows.x"] == 1 and both["pairwise_dots.xs"] == 2


def test_bench_numpy_sample_with_and_without_ranks():
    got = invoke("bench", f"{SAMPLE}::scale_rows", "--repeats", "3", "--warmup", "0",
                 "--format", "json")
    assert_exit(got, 0)
    (row,) = json.loads(got.stdout)["results"]
    status = {v["name"]: (v["status"], v["note"]) for v in row["variants"]}
    assert row["device"] == "CPU (NumPy)" and row["call_floor_s"] is None
    assert status["direct"] == ("ok", "")  # rewritten with the probed ranks
    assert status["loop_tf_function"] == ("n/a", "NumPy code")
    direct = next(v for v in row["variants"] if v["name"] == "direct")
    assert direct["max_abs_err"] < 1e-9 and direct["median_s"] > 0

    bare = invoke("bench", f"{SAMPLE}::scale_rows", "--no-probe", "--repeats", "3",
                  "--warmup", "0", "--format", "json")
    assert_exit(bare, 0)
    (row,) = json.loads(bare.stdout)["results"]
    status, note = next((v["status"], v["note"]) for v in row["variants"] if v["name"] == "direct")
    assert status == "ok", note  # the ranks the code suggests hold for these inputs
    other = ["--arg", "x=float64[4,3,2]", "--arg", "w=float64[3,2]"]  # they do not hold for these
    bare = invoke("bench", f"{SAMPLE}::scale_rows", "--no-probe", *other, "--repeats", "3",
                  "--warmup", "0", "--format", "json")
    assert_exit(bare, 0)
    (row,) = json.loads(bare.stdout)["results"]
    status, note = next((v["status"], v["note"]) for v in row["variants"] if v["name"] == "direct")
    assert status == "unchanged" and "rank check failed on these inputs: the loop ran" in note
    table = invoke("bench", f"{SAMPLE}::scale_rows", "--no-probe", *other, "--repeats", "3",
                   "--warmup", "0")
    assert_exit(table, 0)
    (line,) = [x for x in table.stdout.splitlines() if "direct output" in x]
    assert "unchanged" in line and " ok " not in line
