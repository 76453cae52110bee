"""Tests of the ``pforge`` command line: transpile, check, explain, rule, and bad input.

Each test writes its own small input under ``tmp_path`` and asserts the exit code and the
text printed. None of these tests needs TensorFlow: transpile and check never import it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from conftest import DENSE, assert_exit, invoke, write


RNN = textwrap.dedent("""\
    import tensorflow as tf


    def rnn(x, h):
        for t in range(x.shape[0]):
            h = tf.tanh(h + x[t])
        return h
    """)

CLEAN = textwrap.dedent("""\
    import tensorflow as tf


    def scale(x, w):
        return tf.nn.relu(x @ w)
    """)

TWO_FUNCS = DENSE + textwrap.dedent("""\


    def total(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += tf.reduce_sum(x[i])
        return s
    """)


# --------------------------------------------------------------------------- transpile


def test_transpile_prints_vectorized_code_to_stdout(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("transpile", path)
    assert_exit(result, 0)
    assert "tf.vectorized_map" in result.stdout
    assert "@tf.function" in result.stdout
    assert "outs.append" not in result.stdout
    assert path.read_text() == DENSE


def test_transpile_stdout_output_is_valid_python(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("transpile", path)
    assert_exit(result, 0)
    compile(result.stdout, "out.py", "exec")


def test_transpile_output_option_writes_file(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    out = tmp_path / "out.py"
    result = invoke("transpile", path, "-o", out)
    assert_exit(result, 0)
    assert "tf.vectorized_map" in out.read_text()
    assert path.read_text() == DENSE
    assert result.stdout == ""


def test_transpile_output_option_writes_even_when_unchanged(tmp_path):
    path = write(tmp_path, "clean.py", CLEAN)
    out = tmp_path / "out.py"
    result = invoke("transpile", path, "-o", out)
    assert_exit(result, 0)
    assert out.read_text() == CLEAN


def test_transpile_in_place_rewrites_changed_file(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("transpile", path, "--in-place")
    assert_exit(result, 0)
    assert "tf.vectorized_map" in path.read_text()
    assert "Rewriting" in result.stderr


def test_transpile_in_place_keeps_file_mode(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    os.chmod(path, 0o640)
    assert_exit(invoke("transpile", path, "--in-place"), 0)
    assert "tf.vectorized_map" in path.read_text()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_transpile_in_place_keeps_crlf_line_endings(tmp_path):
    path = write(tmp_path, "dense.py", DENSE.replace("\n", "\r\n").encode())
    assert_exit(invoke("transpile", path, "--in-place"), 0)
    data = path.read_bytes()
    assert b"tf.vectorized_map" in data
    assert b"\r\n" in data
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_transpile_in_place_leaves_unchanged_file_untouched(tmp_path):
    path = write(tmp_path, "clean.py", CLEAN)
    before = os.stat(path)
    result = invoke("transpile", path, "--in-place")
    assert_exit(result, 0)
    after = os.stat(path)
    assert path.read_text() == CLEAN
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert "Rewriting" not in result.output


def test_transpile_in_place_leaves_no_temporary_files(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    assert_exit(invoke("transpile", path, "--in-place"), 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dense.py"]


def test_transpile_diff_prints_unified_diff(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("transpile", path, "--diff")
    assert_exit(result, 0)
    assert result.stdout.startswith(f"--- a/{path}\n+++ b/{path}\n")
    assert "\n+@tf.function\n" in result.stdout
    assert "\n-        outs.append(tf.nn.relu(x[i] @ w))\n" in result.stdout
    assert path.read_text() == DENSE


def test_transpile_diff_is_empty_when_unchanged(tmp_path):
    path = write(tmp_path, "clean.py", CLEAN)
    result = invoke("transpile", path, "--diff")
    assert_exit(result, 0)
    assert result.stdout == ""


def test_transpile_check_exits_1_when_file_would_change(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("transpile", path, "--check")
    assert_exit(result, 1)
    assert f"would rewrite {path}" in result.stderr
    assert path.read_text() == DENSE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dense.py"]


def test_transpile_check_exits_0_when_unchanged(tmp_path):
    path = write(tmp_path, "clean.py", CLEAN)
    result = invoke("transpile", path, "--check")
    assert_exit(result, 0)
    assert "would rewrite" not in result.output
    assert path.read_text() == CLEAN


def test_transpile_check_with_output_writes_nothing(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    out = tmp_path / "out.py"
    assert_exit(invoke("transpile", path, "--check", "-o", out), 1)
    assert not out.exists()


def test_transpile_rejects_two_output_modes(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    out = tmp_path / "out.py"
    result = invoke("transpile", path, "-o", out, "--in-place")
    assert_exit(result, 2)
    assert "only one of" in result.stderr
    assert not out.exists()
    assert path.read_text() == DENSE


def test_transpile_unknown_backend_exits_2(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("transpile", path, "--backend", "nope")
    assert_exit(result, 2)
    assert "unknown backend" in result.stderr


def test_transpile_backend_direct_says_when_a_loop_needs_pfor():
    result = invoke("transpile", "samples/per_example_grads.py", "--backend", "direct")
    assert_exit(result, 0)
    assert "note: written with tf.vectorized_map" in result.stderr
    assert "per-example gradients (a per-iteration value under the GradientTape) need the pfor backend" \
        in result.stderr


def test_transpile_is_idempotent(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    first = invoke("transpile", path)
    assert_exit(first, 0)
    again = write(tmp_path, "again.py", first.stdout)
    second = invoke("transpile", again)
    assert_exit(second, 0)
    assert second.stdout == first.stdout
    assert_exit(invoke("transpile", again, "--check"), 0)


def test_transpile_is_deterministic(tmp_path):
    path = write(tmp_path, "two.py", TWO_FUNCS)
    first, second = invoke("transpile", path), invoke("transpile", path)
    assert_exit(first, 0)
    assert first.stdout == second.stdout
    assert "tf.vectorized_map" in first.stdout


def test_transpile_is_deterministic_across_processes(tmp_path):
    path = write(tmp_path, "two.py", TWO_FUNCS)
    runs = [subprocess.run([sys.executable, "-m", "pforge.cli.main", "transpile", str(path)],
                           capture_output=True, env={**os.environ, "PYTHONHASHSEED": seed})
            for seed in ("1", "2")]
    assert [r.returncode for r in runs] == [0, 0]
    assert runs[0].stdout == runs[1].stdout


def test_transpile_leaves_refused_loop_unchanged_on_stdout(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("transpile", path)
    assert_exit(result, 0)
    assert result.stdout == RNN


def test_transpile_in_place_leaves_refused_loop_byte_identical(tmp_path):
    path = write(tmp_path, "rnn.py", RNN.encode())
    assert_exit(invoke("transpile", path, "--in-place"), 0)
    assert path.read_bytes() == RNN.encode()
    assert_exit(invoke("transpile", path, "--check"), 0)


# --------------------------------------------------------------------------- check


def test_check_flags_vectorizable_loop(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", path)
    assert_exit(result, 1)
    assert f"{path}:6:5: PF1" in result.stdout
    assert path.read_text() == DENSE


def test_check_clean_file_exits_0(tmp_path):
    path = write(tmp_path, "clean.py", CLEAN)
    result = invoke("check", path)
    assert_exit(result, 0)
    assert result.output == ""


def test_check_refused_loop_alone_exits_0(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("check", path)
    assert_exit(result, 0)
    assert "PF2" not in result.output


def test_check_refused_option_prints_pf201(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("check", "--refused", path)
    assert_exit(result, 0)
    assert f"{path}:6:" in result.stdout
    assert "PF201" in result.stdout
    assert "tf.scan" in result.stdout


def test_check_walks_directories(tmp_path):
    pkg = tmp_path / "pkg" / "sub"
    pkg.mkdir(parents=True)
    deep = write(pkg, "dense.py", DENSE)
    write(tmp_path / "pkg", "clean.py", CLEAN)
    write(tmp_path / "pkg", "notes.txt", DENSE)
    result = invoke("check", tmp_path / "pkg")
    assert_exit(result, 1)
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{deep}:6:5: PF1")


def test_check_skips_hidden_and_venv_directories(tmp_path):
    for skipped in (".venv", ".git", "__pycache__"):
        (tmp_path / skipped).mkdir()
        write(tmp_path / skipped, "dense.py", DENSE)
    result = invoke("check", tmp_path)
    assert_exit(result, 0)
    assert result.output == ""


def test_check_bad_file_exits_2_but_reports_good_file(tmp_path):
    good = write(tmp_path, "a_good.py", DENSE)
    bad = write(tmp_path, "b_bad.py", "def f(:\n    for i in x: pass\n")
    good2 = write(tmp_path, "c_good.py", DENSE)
    result = invoke("check", tmp_path)
    assert_exit(result, 2)
    assert f"{good}:6:5: PF1" in result.stdout
    assert f"{good2}:6:5: PF1" in result.stdout
    assert f"{bad}:1" in result.stderr


def test_check_several_paths(tmp_path):
    dense = write(tmp_path, "dense.py", DENSE)
    clean = write(tmp_path, "clean.py", CLEAN)
    result = invoke("check", clean, dense)
    assert_exit(result, 1)
    assert result.stdout.count("PF1") == 1


def test_check_does_not_import_tensorflow(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    code = ("import sys; from pforge.cli.main import app; from typer.testing import CliRunner; "
            f"r = CliRunner().invoke(app, ['check', {str(path)!r}]); "
            "print(r.exit_code, 'tensorflow' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", "False"]


def test_transpile_does_not_import_tensorflow(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    code = ("import sys; from pforge.cli.main import app; from typer.testing import CliRunner; "
            f"r = CliRunner().invoke(app, ['transpile', {str(path)!r}]); "
            "print(r.exit_code, 'tensorflow' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "False"]


# --------------------------------------------------------------------------- never runs input


MARKER_SOURCE = """\
import tensorflow as tf

open({marker!r}, "w").write("ran")


def dense(x, w):
    outs = []
    for i in range(x.shape[0]):
        outs.append(tf.nn.relu(x[i] @ w))
    return tf.stack(outs)


for _i in range(3):
    open({marker!r}, "w").write("ran")
"""


@pytest.mark.parametrize("command", [
    ["check"], ["check", "--refused"], ["transpile"], ["transpile", "--diff"],
    ["transpile", "--check"], ["explain"],
])
def test_input_is_never_executed(tmp_path, command):
    marker = tmp_path / "marker"
    path = write(tmp_path, "evil.py", MARKER_SOURCE.format(marker=str(marker)))
    result = invoke(*command, path)
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    assert not marker.exists()


# --------------------------------------------------------------------------- explain


WIDE = {"COLUMNS": "200"}


def test_explain_text_names_space_and_classes(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("explain", path, env=WIDE)
    assert_exit(result, 0)
    assert f"{path}:6 in dense" in result.stdout
    assert "vectorizable" in result.stdout
    assert "i in range(x.shape[0])" in result.stdout
    assert "i: induction" in result.stdout
    assert "outs: collector" in result.stdout
    assert "PF101" in result.stdout


def test_explain_text_does_not_wrap_classes_at_default_width(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("explain", path)
    assert_exit(result, 0)
    assert "outs: collector" in result.stdout


def test_explain_refused_loop_names_carried_variable(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("explain", path, env=WIDE)
    assert_exit(result, 0)
    assert "refused" in result.stdout
    assert "left as a loop" in result.stdout
    assert "PF201" in result.stdout


def test_explain_json_has_plan_fields(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("explain", path, "--format", "json")
    assert_exit(result, 0)
    plans = json.loads(result.stdout)
    assert len(plans) == 1
    plan = plans[0]
    assert {"lineno", "vectorizable", "levels", "remarks"} <= set(plan)
    assert plan["lineno"] == 6
    assert plan["vectorizable"] is True
    assert plan["levels"][0]["space"] == "i in range(x.shape[0])"
    assert ["outs", "collector"] in plan["levels"][0]["classes"]
    assert plan["remarks"][0]["code"] == "PF101"


def test_explain_function_filter(tmp_path):
    path = write(tmp_path, "two.py", TWO_FUNCS)
    both = json.loads(invoke("explain", path, "--format", "json").stdout)
    assert [p["function"] for p in both] == ["dense", "total"]
    result = invoke("explain", f"{path}::total", "--format", "json")
    assert_exit(result, 0)
    plans = json.loads(result.stdout)
    assert [p["function"] for p in plans] == ["total"]


def test_explain_function_filter_text(tmp_path):
    path = write(tmp_path, "two.py", TWO_FUNCS)
    result = invoke("explain", f"{path}::dense", env=WIDE)
    assert_exit(result, 0)
    assert "in dense" in result.stdout
    assert "in total" not in result.stdout


def test_explain_unknown_function_exits_2(tmp_path):
    path = write(tmp_path, "two.py", TWO_FUNCS)
    result = invoke("explain", f"{path}::nope")
    assert_exit(result, 2)
    assert "nope" in result.stderr


def test_explain_file_without_loops(tmp_path):
    path = write(tmp_path, "clean.py", CLEAN)
    result = invoke("explain", path)
    assert_exit(result, 0)
    assert "no loops" in result.stdout
    assert json.loads(invoke("explain", path, "--format", "json").stdout) == []


def test_explain_bad_format_exits_2(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("explain", path, "--format", "yaml")
    assert_exit(result, 2)
    assert "--format" in result.stderr


# --------------------------------------------------------------------------- rule


def test_rule_prints_name_and_examples():
    result = invoke("rule", "PF201")
    assert_exit(result, 0)
    assert result.stdout.startswith("PF201 ")
    assert "loop-carried" in result.stdout
    assert "Flagged:" in result.stdout and "Accepted:" in result.stdout
    assert "tf.scan" in result.stdout


def test_rule_is_case_insensitive():
    result = invoke("rule", "pf201")
    assert_exit(result, 0)
    assert result.stdout.startswith("PF201 ")


def test_rule_unknown_code_exits_2():
    result = invoke("rule", "PF999")
    assert_exit(result, 2)
    assert "unknown rule" in result.stderr
    assert "PF201" in result.stderr


# --------------------------------------------------------------------------- bad input


LOOP = "for i in range(3):\n    pass\n"

# name, file bytes (None: a directory; absent: no file at all), text the message must contain
BAD_INPUTS = [
    pytest.param("syntax.py", b"import tensorflow as tf\n\n\ndef f(x:\n" + LOOP.encode(),
                 ["syntax.py:4", "syntax error"], id="syntax-error"),
    pytest.param("undecodable.py", b"x = '\xff'\n" + LOOP.encode(),
                 ["undecodable.py:1", "decode"], id="undecodable"),
    pytest.param("nul.py", b"x = 1\n\0\n" + LOOP.encode(), ["nul.py:2", "NUL"], id="nul-byte"),
    pytest.param("py2.py", b'print "hi"\n' + LOOP.encode(), ["py2.py:1", "syntax error"],
                 id="python2"),
    pytest.param("missing.py", "absent", ["missing.py", "no such file"], id="missing"),
]


def _make(tmp_path, name, content):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    return path


def _snapshot(path):
    return path.read_bytes() if path.is_file() else None


@pytest.mark.parametrize("name, content, expected", BAD_INPUTS)
@pytest.mark.parametrize("command", [["transpile"], ["transpile", "--diff"],
                                     ["transpile", "--check"], ["check"], ["explain"]])
def test_bad_input_exits_2_with_one_line_message(tmp_path, command, name, content, expected):
    path = _make(tmp_path, name, content)
    result = invoke(*command, path)
    assert_exit(result, 2)
    for text in expected:
        assert text in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("name, content, expected", BAD_INPUTS)
def test_bad_input_with_output_creates_no_file(tmp_path, name, content, expected):
    path = _make(tmp_path, name, content)
    out = tmp_path / "out.py"
    assert_exit(invoke("transpile", path, "-o", out), 2)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in [path]
                                                                if p.exists())


@pytest.mark.parametrize("name, content, expected", BAD_INPUTS)
def test_bad_input_in_place_leaves_file_unchanged(tmp_path, name, content, expected):
    path = _make(tmp_path, name, content)
    before = _snapshot(path)
    assert_exit(invoke("transpile", path, "--in-place"), 2)
    assert _snapshot(path) == before
    assert path.exists() == (before is not None)


def test_transpile_directory_exits_2(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    write(folder, "dense.py", DENSE)
    result = invoke("transpile", folder)
    assert_exit(result, 2)
    assert "pkg" in result.stderr and "directory" in result.stderr
    assert result.stdout == ""


def test_transpile_directory_with_output_creates_no_file(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    out = tmp_path / "out.py"
    assert_exit(invoke("transpile", folder, "-o", out), 2)
    assert not out.exists()


def test_transpile_directory_in_place_leaves_it_alone(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    inner = write(folder, "dense.py", DENSE)
    assert_exit(invoke("transpile", folder, "--in-place"), 2)
    assert folder.is_dir()
    assert inner.read_text() == DENSE
    assert [p.name for p in folder.iterdir()] == ["dense.py"]


def test_check_missing_file_among_good_ones(tmp_path):
    good = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", tmp_path / "missing.py", good)
    assert_exit(result, 2)
    assert f"{good}:6:5: PF1" in result.stdout
    assert "missing.py" in result.stderr


def test_bad_output_folder_exits_2(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("transpile", path, "-o", tmp_path / "no" / "such" / "out.py")
    assert_exit(result, 2)
    assert "cannot write" in result.stderr


def test_utf8_bom_and_coding_cookie_are_accepted(tmp_path):
    bom = write(tmp_path, "bom.py", b"\xef\xbb\xbf" + DENSE.encode())
    latin = write(tmp_path, "latin.py", b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + DENSE.encode())
    assert_exit(invoke("check", bom), 1)
    result = invoke("transpile", latin, "--in-place")
    assert_exit(result, 0)
    data = latin.read_bytes()
    assert b"caf\xe9" in data and b"tf.vectorized_map" in data


@pytest.mark.parametrize("command", [["transpile"], ["check"], ["explain"]])
@pytest.mark.parametrize("text", ['print "hi"\n', "x = (\n"], ids=["python2", "unclosed"])
def test_syntax_error_without_loop_exits_2(tmp_path, command, text):
    path = write(tmp_path, "noloop.py", text)
    result = invoke(*command, path)
    assert_exit(result, 2)
    assert "noloop.py:1" in result.stderr


def test_syntax_error_without_loop_creates_no_output(tmp_path):
    path = write(tmp_path, "noloop.py", 'print "hi"\n')
    out = tmp_path / "out.py"
    invoke("transpile", path, "-o", out)
    assert not out.exists()


# --------------------------------------------------------------------------- known bugs


def test_check_finding_at_line_100_prints_line_number(tmp_path):
    path = write(tmp_path, "late.py", DENSE.replace("def dense", "\n" * 94 + "def dense"))
    result = invoke("check", path)
    assert_exit(result, 1)
    assert f"{path}:100:5: PF101" in result.stdout


def test_syntax_error_at_line_100_prints_line_number(tmp_path):
    path = write(tmp_path, "late.py", "\n" * 99 + "def f(:\n    for i in x: pass\n")
    result = invoke("check", path)
    assert_exit(result, 2)
    assert f"{path}:100:7: syntax error" in result.stderr


def test_check_finds_loop_written_with_tab_after_for(tmp_path):
    path = write(tmp_path, "tab.py", DENSE.replace("for i in", "for\ti in"))
    result = invoke("check", path)
    assert_exit(result, 1)
    assert f"{path}:6:5: PF101" in result.stdout


def test_version_and_rule_listing():
    result = invoke("--version")
    assert_exit(result, 0)
    assert result.stdout.startswith("pforge ")
    listing = invoke("rule")
    assert_exit(listing, 0)
    assert [line.split()[0] for line in listing.stdout.splitlines()][:2] == ["PF101", "PF102"]
    assert len(listing.stdout.splitlines()) == 20


DEAD_LOOPS = textwrap.dedent("""\
    import numpy as np


    def under_a_test(a, flag):
        if flag:
            for j in range(a.shape[0]):
                w = a[j] * 2
        return a


    def whole_body(a):
        for j in range(a.shape[0]):
            w = a[j] * 2
    """)


def test_a_loop_whose_values_nothing_reads_leaves_a_block_that_parses(tmp_path):
    """helper-54: the loop is the only statement of its block and its rewrite has none (``w``
    is read nowhere): the block keeps ``pass``, where it was left empty (an IndentationError
    written by ``--in-place`` with exit status 0)."""
    path = write(tmp_path, "dead.py", DEAD_LOOPS)
    result = invoke("transpile", path, "--in-place", "--backend", "direct", "--shapes", "a=1")
    assert_exit(result, 0)
    code = path.read_text()
    assert code.count("# pforge: vectorized loop") == 2 and "for j in" not in code, code
    namespace = {}
    exec(compile(code, str(path), "exec"), namespace)
    import numpy as np
    a = np.arange(3.0)
    assert namespace["under_a_test"](a, True) is a and namespace["whole_body"](a) is None


def test_rewritten_code_that_does_not_parse_is_an_internal_error_and_writes_nothing(tmp_path, monkeypatch):
    """The last guard of the output contract: a splice that breaks the file (a bug) writes
    nothing and exits 2 with one line naming the file, never a traceback."""
    from pforge.transpile import pipeline

    monkeypatch.setattr(pipeline, "_splice", lambda *args, **kwargs: "def f(:\n")
    path = write(tmp_path, "dead.py", DEAD_LOOPS)
    result = invoke("transpile", path, "--in-place", "--backend", "direct", "--shapes", "a=1")
    assert_exit(result, 2)
    assert "does not parse" in result.stderr and "dead.py" in result.stderr and "This is a bug" in result.stderr
    assert path.read_text() == DEAD_LOOPS


def test_a_global_statement_at_the_top_level_is_read_without_a_crash(tmp_path):
    """helper-56: `global h` at a module's top level (legal, and a no-op) made beniget fail its
    own count of the module's names: a traceback from `pforge transpile`."""
    path = write(tmp_path, "g.py", "import numpy as np\nglobal h\nh = np.zeros(4)\nfor i in range(4):\n"
                                   "    h[i] = i * 2.0\n")
    assert_exit(invoke("transpile", path), 0)


def test_a_bug_met_while_transpiling_is_one_line_and_exit_status_2(tmp_path, monkeypatch):
    from pforge.transpile import pipeline

    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(pipeline, "discover", broken)
    path = write(tmp_path, "dead.py", DEAD_LOOPS)
    result = invoke("transpile", path, "--in-place")
    assert_exit(result, 2)
    assert "internal error (KeyError" in result.stderr and "dead.py" in result.stderr
    assert path.read_text() == DEAD_LOOPS
