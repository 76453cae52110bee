"""Tests of ``pforge check`` as a linter: formats, configuration, suppressions, fixes, bad input.

Each output format is checked against its consumer's rules (SARIF against the OASIS 2.1.0
schema in ``tests/data`` plus the fields GitHub code scanning reads; GitHub workflow commands
against the escaping of ``@actions/core``; diffs against ``git apply``). Every bad input
asserts the one-line message, exit code 2, that the other files are still checked and that
no file changed.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import shutil
import stat
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import DENSE, assert_exit, invoke, write
from pforge.cli import report
from pforge.transpile import analyze_source

DATA = Path(__file__).parent / "data"

#: the check that `w`, which the code does not show to be an array, is one or a flat list of numbers
FLAT_W = ("(type(w) is np.ndarray or isinstance(w, (int, float, complex, np.number)) or (isinstance(w, (list, tuple)) "
          "and all((type(v) is int or isinstance(v, float) for v in w)))) and ")


FLOAT_SUM = textwrap.dedent("""\
    import tensorflow as tf


    def total(x):
        s = tf.constant(0.0)
        for i in range(x.shape[0]):
            s += tf.reduce_sum(x[i])
        return s
    """)

RNN = textwrap.dedent("""\
    import tensorflow as tf


    def rnn(x, h):
        for t in range(x.shape[0]):
            h = tf.tanh(h + x[t])
        return h
    """)


def snapshot(folder):
    """Every file under ``folder`` with its bytes, mode, inode and mtime."""
    found = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            info = os.stat(path)
            with open(path, "rb") as fh:
                found[path] = (fh.read(), info.st_mode, info.st_ino, info.st_mtime_ns)
    return found


# --------------------------------------------------------------------------- output formats


def test_concise_is_one_unwrapped_line_per_finding(tmp_path):
    deep = tmp_path / ("a_very_long_folder_name_" * 4)
    path = write(deep, "dense.py", DENSE)
    result = invoke("check", path, env={"COLUMNS": "40"})
    assert_exit(result, 1)
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}:6:5: PF101 loop can be vectorized (map)")
    assert "\x1b[" not in result.stdout  # not a terminal: no colour


def test_full_shows_the_loop_line_marked(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", "--output-format", "full", path)
    assert_exit(result, 1)
    out = result.stdout.splitlines()
    assert out[0].startswith(f"{path}:6:5: PF101")
    assert "6 |>    for i in range(x.shape[0]):" in out
    caret = next(line for line in out if "^" in line)
    assert caret.index("^") == out[out.index("6 |>    for i in range(x.shape[0]):")].index("for")
    assert "5 |     outs = []" in out and "7 |         outs.append(tf.nn.relu(x[i] @ w))" in out


def test_json_lists_every_finding(tmp_path):
    dense, total = write(tmp_path, "a.py", DENSE), write(tmp_path, "b.py", FLOAT_SUM)
    result = invoke("check", "--output-format", "json", dense, total)
    assert_exit(result, 1)
    data = json.loads(result.stdout)
    assert [(d["filename"], d["line"], d["column"], d["code"]) for d in data] == [
        (str(dense), 6, 5, "PF101"), (str(total), 6, 5, "PF102")]
    assert data[0]["name"] == "vectorizable-map" and data[0]["counted"] is True


def test_json_empty_list_when_clean(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("check", "--output-format", "json", path)
    assert_exit(result, 0)
    assert json.loads(result.stdout) == []


def test_github_annotations_escape_percent_colon_comma_and_newlines(tmp_path):
    path = write(tmp_path, "we%ird:na,me\nx.py", DENSE)
    result = invoke("check", "--output-format", "github", path)
    assert_exit(result, 1)
    line, = result.stdout.splitlines()
    escaped = str(path).replace("%", "%25").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")
    assert line.startswith(f"::error file={escaped},line=6,col=5,title=pforge PF101::PF101 loop can")
    assert "\n" not in str(path).replace("\n", "%0A") and "%0A" in line


def test_github_escaping_of_messages_and_properties():
    assert report.escape_data("50% done:\r\nnext, then") == "50%25 done:%0D%0Anext, then"
    assert report.escape_property("a%b:c,d\ne") == "a%25b%3Ac%2Cd%0Ae"


def test_github_refused_remarks_are_notices(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("check", "--refused", "--output-format", "github", path)
    assert_exit(result, 0)
    assert result.stdout.startswith(f"::notice file={path},line=6,col=21,title=pforge PF201::PF201 ")


def _sarif(tmp_path, *files, args=()):
    (tmp_path / ".git").mkdir(exist_ok=True)  # the repository root URIs are relative to
    result = invoke("check", "--output-format", "sarif", *args, *files)
    return result, json.loads(result.stdout)


def test_sarif_validates_against_the_2_1_0_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    dense = write(tmp_path / "src" / "pkg", "dense.py", DENSE)
    total = write(tmp_path / "src", "total.py", FLOAT_SUM)
    rnn = write(tmp_path / "src", "rnn.py", RNN)
    result, log = _sarif(tmp_path, dense, total, rnn, args=["--refused"])
    assert_exit(result, 1)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    errors = list(jsonschema.Draft4Validator(schema).iter_errors(log))
    assert errors == []
    # A broken document must fail the same check, so the validation is real.
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(jsonschema.Draft4Validator(schema).iter_errors(broken))


def test_sarif_has_the_fields_github_code_scanning_reads(tmp_path):
    dense = write(tmp_path / "src" / "pkg", "dense.py", DENSE)
    dup = write(tmp_path / "src" / "pkg", "two.py", DENSE + "\n\n" + DENSE.split("\n\n\n")[1])
    result, log = _sarif(tmp_path, dense, dup)
    assert_exit(result, 1)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    run, = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pforge"
    rules = {r["id"]: r for r in driver["rules"]}
    assert {"PF101", "PF102", "PF201", "PF301"} <= set(rules)
    assert rules["PF101"]["shortDescription"]["text"].startswith("The loop's iterations")
    assert "Accepted:" in rules["PF101"]["help"]["text"]
    assert "```python" in rules["PF101"]["help"]["markdown"]
    results = run["results"]
    assert len(results) == 3
    for r in results:
        assert r["ruleId"] == "PF101" and driver["rules"][r["ruleIndex"]]["id"] == "PF101"
        assert r["message"]["text"].startswith("PF101 loop can be vectorized")
        location = r["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] in ("src/pkg/dense.py", "src/pkg/two.py")
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert location["region"]["startLine"] >= 6 and location["region"]["startColumn"] == 5
    prints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
    assert len(set(prints)) == 3  # same loop text twice in one file: the count tells them apart
    assert prints[1].split(":")[0] == prints[2].split(":")[0]
    assert [p.split(":")[1] for p in prints] == ["1", "1", "2"]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"


def test_sarif_records_bad_files_as_notifications(tmp_path):
    bad = write(tmp_path, "bad.py", "def f(:\n")
    result, log = _sarif(tmp_path, bad)
    assert_exit(result, 2)
    invocation, = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"].startswith(f"{bad}:1")


def test_output_file_receives_the_report(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    out = tmp_path / "report" / "pforge.sarif"
    out.parent.mkdir()
    result = invoke("check", "--output-format", "sarif", "--output-file", out, path)
    assert_exit(result, 1)
    assert result.stdout == ""
    assert json.loads(out.read_text())["runs"][0]["results"][0]["ruleId"] == "PF101"


def test_unknown_output_format_exits_2(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", "--output-format", "xml", path)
    assert_exit(result, 2)
    assert "--output-format must be one of concise, full, json, github, sarif" in result.stderr


# --------------------------------------------------------------------------- colour


def test_color_always_colours_and_never_does_not(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    coloured = invoke("check", "--color", "always", path)
    plain = invoke("check", "--color", "never", path)
    assert_exit(coloured, 1)
    assert "\x1b[" in coloured.stdout and "\x1b[" not in plain.stdout
    assert _strip_ansi(coloured.stdout) == plain.stdout


def _strip_ansi(text):
    import re
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


class _Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("variable", ["NO_COLOR", "CI", "PRE_COMMIT"])
def test_auto_colour_is_off_when_ci_no_color_or_pre_commit_is_set(monkeypatch, variable):
    for name in ("NO_COLOR", "CI", "PRE_COMMIT", "TERM"):
        monkeypatch.delenv(name, raising=False)
    assert report.use_color("auto", _Tty()) is True
    assert report.use_color("auto", io.StringIO()) is False
    monkeypatch.setenv(variable, "1")
    assert report.use_color("auto", _Tty()) is False
    assert report.use_color("always", io.StringIO()) is True


# --------------------------------------------------------------------------- suppressions


def test_noqa_with_the_code_suppresses_the_finding(tmp_path):
    path = write(tmp_path, "dense.py", DENSE.replace("range(x.shape[0]):", "range(x.shape[0]):  # noqa: PF101"))
    result = invoke("check", path)
    assert_exit(result, 0)
    assert result.stdout == ""


def test_noqa_with_a_prefix_or_bare_suppresses(tmp_path):
    prefix = write(tmp_path, "a.py", DENSE.replace("range(x.shape[0]):", "range(x.shape[0]):  # noqa:PF1"))
    bare = write(tmp_path, "b.py", DENSE.replace("range(x.shape[0]):", "range(x.shape[0]):  # NOQA"))
    assert_exit(invoke("check", prefix, bare), 0)


def test_noqa_with_another_code_does_not_suppress(tmp_path):
    path = write(tmp_path, "dense.py", DENSE.replace("range(x.shape[0]):", "range(x.shape[0]):  # noqa: PF201"))
    result = invoke("check", path)
    assert_exit(result, 1)
    assert f"{path}:6:5: PF101" in result.stdout


def test_noqa_on_another_line_does_not_suppress(tmp_path):
    path = write(tmp_path, "dense.py", DENSE.replace("outs = []", "outs = []  # noqa: PF101"))
    assert_exit(invoke("check", path), 1)


def test_file_level_noqa_suppresses_the_whole_file(tmp_path):
    quiet = write(tmp_path, "quiet.py", "# pforge: noqa\n" + DENSE + "\n" + FLOAT_SUM)
    loud = write(tmp_path, "loud.py", DENSE)
    result = invoke("check", quiet, loud)
    assert_exit(result, 1)
    assert str(quiet) not in result.stdout
    assert f"{loud}:6:5: PF101" in result.stdout


def test_file_level_noqa_with_codes(tmp_path):
    path = write(tmp_path, "mixed.py", "# pforge: noqa: PF102\n" + DENSE + "\n" + FLOAT_SUM.split("\n\n\n")[1])
    result = invoke("check", path)
    assert_exit(result, 1)
    assert "PF101" in result.stdout and "PF102" not in result.stdout


# --------------------------------------------------------------------------- configuration


def _project(tmp_path, config):
    root = tmp_path / "proj"
    write(root, "pyproject.toml", textwrap.dedent(config))
    write(root / "pkg", "dense.py", DENSE)
    write(root / "pkg", "total.py", FLOAT_SUM)
    return root


def test_config_is_found_in_a_parent_folder_like_black(tmp_path):
    root = _project(tmp_path, """\
        [tool.pforge]
        ignore = ["PF102"]
        """)
    result = invoke("check", root / "pkg")
    assert_exit(result, 1)
    assert "dense.py:6:5: PF101" in result.stdout
    assert "PF102" not in result.stdout


def test_config_search_stops_at_the_repository_root(tmp_path):
    root = _project(tmp_path, """\
        [tool.pforge]
        ignore = ["PF1"]
        """)
    (root / "pkg" / ".git").mkdir()  # pkg is its own repository: the outer file is not its config
    result = invoke("check", root / "pkg")
    assert_exit(result, 1)
    assert "PF101" in result.stdout and "PF102" in result.stdout


def test_isolated_ignores_the_configuration(tmp_path):
    root = _project(tmp_path, """\
        [tool.pforge]
        ignore = ["PF1"]
        """)
    assert_exit(invoke("check", root / "pkg"), 0)
    result = invoke("check", "--isolated", root / "pkg")
    assert_exit(result, 1)
    assert result.stdout.count("PF10") == 2


def test_config_option_names_another_file(tmp_path):
    root = _project(tmp_path, "")
    other = write(tmp_path, "pforge.toml", 'select = ["PF102"]\n')
    result = invoke("check", "--config", other, root / "pkg")
    assert_exit(result, 1)
    assert "PF102" in result.stdout and "PF101" not in result.stdout


def test_select_and_ignore_on_the_command_line(tmp_path):
    root = _project(tmp_path, "")
    result = invoke("check", "--select", "PF1", "--ignore", "PF101", root / "pkg")
    assert_exit(result, 1)
    assert "PF102" in result.stdout and "PF101" not in result.stdout


def test_select_of_refusals_counts_them(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("check", "--isolated", "--select", "PF2", path)
    assert_exit(result, 1)
    assert f"{path}:6:21: PF201" in result.stdout


def test_per_file_ignores(tmp_path):
    root = _project(tmp_path, """\
        [tool.pforge]
        per-file-ignores = { "pkg/dense.py" = ["PF101"], "total*.py" = ["PF1"] }
        """)
    write(root / "other", "dense.py", DENSE)
    result = invoke("check", root)
    assert_exit(result, 1)
    assert result.stdout.splitlines() == [
        f"{root / 'other' / 'dense.py'}:6:5: PF101 " + result.stdout.split(" PF101 ", 1)[1].splitlines()[0]]


def test_exclude_and_extend_exclude(tmp_path):
    root = _project(tmp_path, """\
        [tool.pforge]
        extend-exclude = ["total.py"]
        """)
    write(root / "build", "gen.py", DENSE)  # a default exclude
    result = invoke("check", root)
    assert_exit(result, 1)
    assert result.stdout.count("\n") == 1 and "pkg/dense.py" in result.stdout
    write(root, "pyproject.toml", '[tool.pforge]\nexclude = ["pkg/"]\n')  # replaces the defaults
    result = invoke("check", root)
    assert_exit(result, 1)
    assert result.stdout.count("\n") == 1 and "build/gen.py" in result.stdout


def test_explicit_files_are_checked_unless_force_exclude(tmp_path):
    root = _project(tmp_path, """\
        [tool.pforge]
        extend-exclude = ["pkg/dense.py"]
        """)
    path = root / "pkg" / "dense.py"
    assert_exit(invoke("check", path), 1)
    result = invoke("check", "--force-exclude", path)
    assert_exit(result, 0)
    assert result.stdout == ""


def test_gitignore_is_respected_when_walking(tmp_path):
    root = _project(tmp_path, "")
    write(root, ".gitignore", "generated/\n*_pb2.py\n")
    write(root / "pkg", ".gitignore", "total.py\n")
    write(root / "generated", "dense.py", DENSE)
    write(root / "pkg", "model_pb2.py", DENSE)
    result = invoke("check", root)
    assert_exit(result, 1)
    assert result.stdout.count("\n") == 1 and "pkg/dense.py" in result.stdout


def test_a_folder_named_explicitly_is_walked_even_when_ignored(tmp_path):
    """As in ruff: `pforge check .venv/lib/.../pkg` checks that package; --force-exclude skips it."""
    root = _project(tmp_path, "[tool.pforge]\n")
    write(root, ".gitignore", "vendor/\n")
    write(root / "vendor" / "lib" / "__pycache__", "stale.py", DENSE)
    write(root / "vendor" / "lib", "dense.py", DENSE)
    result = invoke("check", root / "vendor" / "lib")
    assert_exit(result, 1)
    assert result.stdout.count("\n") == 1 and "lib/dense.py" in result.stdout
    assert_exit(invoke("check", "--force-exclude", root / "vendor" / "lib"), 0)
    walked = invoke("check", root)  # walked from the root, vendor/ stays ignored
    assert "pkg/dense.py" in walked.stdout and "vendor" not in walked.stdout


@pytest.mark.parametrize("config, message", [
    ('[tool.pforge]\nselec = ["PF1"]\n', "unknown key 'selec'"),
    ('[tool.pforge]\nselect = ["PF9"]\n', "select: unknown code 'PF9'"),
    ('[tool.pforge]\nignore = "E501x"\n', "ignore: unknown code 'E501x'"),
    ('[tool.pforge]\nexclude = "build"\n', "exclude: expected a list of strings"),
    ('[tool.pforge]\nextend-exclude = [1]\n', "extend-exclude: expected a list of strings"),
    ('[tool.pforge]\nper-file-ignores = ["x"]\n', "per-file-ignores: expected a table"),
    ('[tool.pforge]\nper-file-ignores = {"a.py" = ["X1"]}\n', "per-file-ignores 'a.py': unknown code 'X1'"),
    ('[tool.pforge]\nbackend = "fast"\n', "backend: expected one of auto, pfor, direct, got 'fast'"),
    ('[tool.pforge]\ntarget = "jax"\n', "target: expected one of auto, tensorflow, got 'jax'"),
    ('[tool.pforge]\nshapes = {x = "two"}\n', "shapes: expected a table of NAME = RANK"),
    ('[tool.pforge]\nshapes = ["x=2"]\n', "shapes: expected a table of NAME = RANK"),
    ('[tool.pforge\n', "not valid TOML"),
])
def test_bad_configuration_exits_2_naming_the_key(tmp_path, config, message):
    root = tmp_path / "proj"
    write(root, "dense.py", DENSE)
    write(root, ".git/HEAD", "")  # the repository root: search stops here
    write(root, "pyproject.toml", config)
    before = snapshot(root)
    result = invoke("check", "--fix", root / "dense.py")
    assert_exit(result, 2)
    line, = result.stderr.splitlines()
    assert line.startswith(f"error: {root / 'pyproject.toml'}")
    assert message in line
    assert snapshot(root) == before


def test_bad_code_on_the_command_line_exits_2(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", "--select", "PF1,PX", path)
    assert_exit(result, 2)
    assert "--select: unknown code 'PX'" in result.stderr


def test_backend_pfor_in_config_is_used(tmp_path):
    root = _project(tmp_path, '[tool.pforge]\nbackend = "pfor"\ntarget = "tensorflow"\n')
    result = invoke("check", "--fix", root / "pkg" / "dense.py")
    assert_exit(result, 0)
    assert "tf.vectorized_map" in (root / "pkg" / "dense.py").read_text()


# --------------------------------------------------------------------------- fixes


NUMPY_SCALE = """import numpy as np


def scale_rows(x, w):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * w
    return out
"""


@pytest.mark.parametrize("how", ["config", "option"])
def test_fix_rewrites_a_numpy_loop_with_ranks_from_the_config_or_the_option(tmp_path, how):
    """The pre-commit fix hook runs `check --fix`: with ranks it rewrites NumPy loops too."""
    config = '[tool.pforge]\nshapes = { x = 2, "scale_rows.w" = 1 }\n' if how == "config" else "[tool.pforge]\n"
    root = _project(tmp_path, config)
    path = write(root / "pkg", "scale.py", NUMPY_SCALE)
    plain = invoke("check", "--fix", "--isolated", path)
    assert_exit(plain, 0)
    # no ranks: the ones the code suggests, checked at run time, the loop kept for the others
    guarded = path.read_text()
    assert "    if " + FLAT_W + "np.ndim(w) <= 1 and type(x) is np.ndarray and 1 <= x.ndim <= 6 and x.shape[0] > 0:\n        out[...] = x * w\n" \
           "    else:\n        for i in range(x.shape[0]):\n" in guarded
    path.write_text(NUMPY_SCALE)
    extra = ["--shapes", "x=2,scale_rows.w=1"] if how == "option" else []
    result = invoke("check", "--fix", *extra, path)
    assert_exit(result, 0)
    given = path.read_text()
    # declared: the user's word, checked where the batched code rests on it, widened to every
    # rank the batched code is the same for (w a scalar or a row; x of two axes or more)
    assert "    if np.ndim(w) <= 1 and type(x) is np.ndarray and x.ndim >= 2 and x.shape[0] > 0:\n        out[...] = x * w\n" in given
    want = {}
    exec(compile(NUMPY_SCALE, "<loop>", "exec"), want)
    for code in (guarded, given):
        got = {}
        exec(compile(code, "<rewrite>", "exec"), got)
        x, w = np.arange(6.0).reshape(3, 2), np.array([2.0, -1.0])
        np.testing.assert_array_equal(got["scale_rows"](x, w), want["scale_rows"](x, w))
    got = {}
    exec(compile(guarded, "<rewrite>", "exec"), got)
    for x, w in ((np.arange(3.0), 2.0), (np.ones((2, 2, 2)), np.arange(2.0))):  # the loop's ranks too
        np.testing.assert_array_equal(got["scale_rows"](x, w), want["scale_rows"](x, w))


def test_fix_rewrites_safe_loops_and_reports_nothing_left(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", "--fix", path)
    assert_exit(result, 0)
    assert f"Rewriting {path}" in result.stderr
    assert result.stdout == ""
    expected = invoke("transpile", write(tmp_path / "copy", "dense.py", DENSE)).stdout
    assert path.read_text() == expected  # the same code as `pforge transpile`


def test_fix_leaves_a_float_reduction_without_unsafe_fixes(tmp_path):
    path = write(tmp_path, "total.py", FLOAT_SUM)
    result = invoke("check", "--fix", path)
    assert_exit(result, 1)
    assert path.read_text() == FLOAT_SUM
    assert f"{path}:6:5: PF102" in result.stdout
    assert "1 loop left as it was: the rewrite may change floating-point results or random " \
           "draws; apply with --unsafe-fixes" in result.stderr
    assert f"{path}:6: left as it was: the rewrite reassociates the sum `s`" in result.stderr
    result = invoke("check", "--fix", "--unsafe-fixes", path)
    assert_exit(result, 0)
    assert "tf.vectorized_map" in path.read_text()


def test_unsafe_loop_that_no_backend_rewrites_is_not_counted_as_held_back(tmp_path):
    """A float sum of an op without a batching rule: --unsafe-fixes would not change it either."""
    source = textwrap.dedent("""\
        import numpy as np

        def f(x):
            total = 0.0
            for row in x:
                total += np.sum(np.gradient(row))
            return total
        """)
    path = write(tmp_path, "total.py", source)
    result = invoke("check", "--fix", path)
    assert_exit(result, 1)
    assert "left as it was" not in result.stderr
    assert "[not rewritten: the direct backend cannot batch it: no batching rule for `numpy.gradient`" in result.stdout
    assert_exit(invoke("check", "--fix", "--unsafe-fixes", path), 1)
    assert path.read_text() == source


def test_opted_in_random_draw_is_an_unsafe_fix(tmp_path):
    source = textwrap.dedent("""\
        import tensorflow as tf

        def f(x):
            outs = []
            for i in range(x.shape[0]):
                outs.append(x[i] + tf.random.normal([3]))  # pforge: random-ok
            return tf.stack(outs)
        """)
    (plan,) = analyze_source(source)
    assert plan.vectorizable and "random" in plan.unsafe
    path = write(tmp_path, "noise.py", source)
    assert_exit(invoke("check", "--fix", path), 1)
    assert path.read_text() == source
    assert_exit(invoke("check", "--fix", "--unsafe-fixes", path), 0)
    assert "tf.vectorized_map" in path.read_text()


def test_integer_count_is_a_safe_reduction_and_float_sum_is_not():
    count, = analyze_source(textwrap.dedent("""\
        def f(x):
            n = 0
            for i in range(len(x)):
                if x[i] > 0:
                    n += 1
            return n
        """))
    total, = analyze_source(FLOAT_SUM)
    dense, = analyze_source(DENSE)
    assert count.vectorizable and count.unsafe is None
    assert "reassociates the sum `s`" in total.unsafe
    assert dense.unsafe is None


def test_fix_skips_suppressed_and_ignored_loops(tmp_path):
    noqa = DENSE.replace("range(x.shape[0]):", "range(x.shape[0]):  # noqa: PF101")
    path = write(tmp_path, "dense.py", noqa)
    result = invoke("check", "--fix", path)
    assert_exit(result, 0)
    assert path.read_text() == noqa
    other = write(tmp_path, "other.py", DENSE)
    assert_exit(invoke("check", "--fix", "--ignore", "PF101", other), 0)
    assert other.read_text() == DENSE


def test_fix_keeps_mode_line_endings_and_leaves_no_temporary_file(tmp_path):
    path = write(tmp_path, "dense.py", DENSE.replace("\n", "\r\n").encode())
    os.chmod(path, 0o751)
    assert_exit(invoke("check", "--fix", path), 0)
    data = path.read_bytes()
    assert b"tf.vectorized_map" in data
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dense.py"]


def test_fix_leaves_unchanged_files_untouched(tmp_path):
    rnn, dense = write(tmp_path, "rnn.py", RNN), write(tmp_path, "dense.py", DENSE)
    before = snapshot(tmp_path)
    assert_exit(invoke("check", "--fix", rnn), 0)
    result = invoke("check", "--fix", "--diff", dense)
    assert_exit(result, 2)
    assert snapshot(tmp_path) == before


def test_exit_zero(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", "--exit-zero", path)
    assert_exit(result, 0)
    assert "PF101" in result.stdout
    bad = write(tmp_path, "bad.py", b"\xff\xfe\x00")
    assert_exit(invoke("check", "--exit-zero", path, bad), 2)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("text", [
    pytest.param(DENSE, id="newline-at-end"),
    pytest.param(DENSE.rstrip("\n"), id="no-newline-at-end"),
    pytest.param(DENSE.replace("\n", "\r\n"), id="crlf"),
])
def test_diff_is_accepted_by_git_apply(repo, text):
    write(repo, "pkg/dense.py", text.encode())
    result = invoke("check", "--diff", "--unsafe-fixes", "pkg/dense.py")
    assert_exit(result, 1)
    assert result.stdout.startswith("--- a/pkg/dense.py\n+++ b/pkg/dense.py\n")
    assert (repo / "pkg" / "dense.py").read_bytes() == text.encode()  # --diff writes nothing
    patch = repo / "fix.patch"
    patch.write_bytes(result.stdout_bytes)  # .stdout turns \r\n into \n
    applied = subprocess.run(["git", "apply", "--whitespace=nowarn", str(patch)], cwd=repo,
                             capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    patch.unlink()
    fixed = (repo / "pkg" / "dense.py").read_bytes()
    assert_exit(invoke("check", "--fix", write(repo / "copy", "dense.py", text.encode())), 0)
    assert fixed == (repo / "copy" / "dense.py").read_bytes()
    assert fixed.endswith(b"\n") == text.endswith("\n")


def test_diff_exits_0_when_nothing_to_change(tmp_path):
    path = write(tmp_path, "rnn.py", RNN)
    result = invoke("check", "--diff", path)
    assert_exit(result, 0)
    assert result.stdout == ""


def test_fix_and_diff_together_are_refused(tmp_path):
    path = write(tmp_path, "dense.py", DENSE)
    result = invoke("check", "--fix", "--diff", path)
    assert_exit(result, 2)
    assert "only one of --fix and --diff" in result.stderr
    assert path.read_text() == DENSE


# --------------------------------------------------------------------------- bad input


def _deep_expression():
    return "def f(x):\n    out = []\n    for i in range(3):\n        out.append(" + \
        "+".join(["x[i]"] * 5000) + ")\n    return out\n"


BAD_INPUTS = [
    pytest.param(b"def f(:\n    for i in x: pass\n", ":1:7: syntax error: invalid syntax", id="syntax-error"),
    pytest.param("x = 1\ny = 'é'\n".encode("latin-1"), ":2: cannot decode as utf-8: invalid byte 0xe9",
                 id="undecodable"),
    pytest.param(b"x = 1\ny = 2\x00\n", ":2: source contains a NUL byte", id="nul-byte"),
    pytest.param(b"import sys\nprint 'hello'\n", ":2:1: syntax error: Missing parentheses in call to 'print'",
                 id="python2"),
    pytest.param(b"x = 1\n" + b"y = [" + b"0, " * (5 * 2**20 // 3) + b"]\n", ": file is too large to analyse",
                 id="5MB"),
    pytest.param(_deep_expression().encode(), ": expression nested too deeply to analyse", id="deep-nesting"),
]


@pytest.mark.parametrize("data, message", BAD_INPUTS)
@pytest.mark.parametrize("command", [["check"], ["check", "--fix", "--unsafe-fixes"], ["check", "--diff"]])
def test_bad_input_is_one_line_exit_2_and_other_files_still_checked(tmp_path, data, message, command):
    good = write(tmp_path, "a_good.py", DENSE)
    bad = write(tmp_path, "b_bad.py", data)
    before = snapshot(tmp_path)
    result = invoke(*command, tmp_path)
    assert_exit(result, 2)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and errors[0].startswith(f"error: {bad}{message}")
    if command == ["check"]:
        assert f"{good}:6:5: PF101" in result.stdout
        assert snapshot(tmp_path) == before
    elif "--diff" in command:
        assert f"+++ b/{good}" in result.stdout
        assert snapshot(tmp_path) == before
    else:
        assert "tf.vectorized_map" in good.read_text()
        after = snapshot(tmp_path)
        assert after[str(bad)] == before[str(bad)]


@pytest.mark.parametrize("data, message", BAD_INPUTS)
def test_transpile_bad_input_is_one_line_exit_2(tmp_path, data, message):
    bad = write(tmp_path, "bad.py", data)
    before = snapshot(tmp_path)
    result = invoke("transpile", "--in-place", bad)
    assert_exit(result, 2)
    assert result.stderr.startswith(f"error: {bad}{message}")
    assert len(result.stderr.splitlines()) == 1
    assert snapshot(tmp_path) == before


def test_broken_symlink_is_named(tmp_path):
    good = write(tmp_path, "a_good.py", DENSE)
    link = tmp_path / "b_link.py"
    link.symlink_to(tmp_path / "gone.py")
    result = invoke("check", "--fix", tmp_path)
    assert_exit(result, 2)
    assert f"error: {link}: broken symbolic link (to {tmp_path / 'gone.py'})" in result.stderr
    assert "tf.vectorized_map" in good.read_text()
    assert link.is_symlink() and not link.exists()


def test_directory_given_to_transpile_is_named(tmp_path):
    folder = tmp_path / "pkg.py"
    folder.mkdir()
    result = invoke("transpile", folder)
    assert_exit(result, 2)
    assert result.stderr.strip() == f"error: {folder}: is a directory, not a Python file"


def test_fifo_is_not_read(tmp_path):
    good = write(tmp_path, "a_good.py", DENSE)
    fifo = tmp_path / "b_pipe.py"
    os.mkfifo(fifo)
    result = invoke("check", tmp_path)
    assert_exit(result, 2)
    assert f"error: {fifo}: not a regular file" in result.stderr
    assert f"{good}:6:5: PF101" in result.stdout


def test_unreadable_file_is_named(tmp_path, monkeypatch):
    good = write(tmp_path, "a_good.py", DENSE)
    secret = write(tmp_path, "b_secret.py", DENSE)
    os.chmod(secret, 0)
    if os.geteuid() == 0:  # root reads anything: make open() refuse as it would for a user
        real_open = builtins.open

        def guarded(file, *args, **kwargs):
            if os.fspath(file) == str(secret):
                raise PermissionError(13, "Permission denied", str(secret))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", guarded)
    result = invoke("check", "--fix", tmp_path)
    assert_exit(result, 2)
    assert f"error: {secret}: cannot read: Permission denied" in result.stderr
    assert "tf.vectorized_map" in good.read_text()
    os.chmod(secret, 0o644)
    assert secret.read_text() == DENSE


def test_input_is_never_executed_by_fix_diff_or_sarif(tmp_path):
    marker = tmp_path / "marker"
    evil = textwrap.dedent(f"""\
        import tensorflow as tf

        open({str(marker)!r}, "w").write("ran")


        def dense(x, w):
            outs = []
            for i in range(x.shape[0]):
                outs.append(tf.nn.relu(x[i] @ w))
            return tf.stack(outs)
        """)
    for args in (["--diff"], ["--output-format", "sarif"], ["--output-format", "full"], ["--fix"]):
        path = write(tmp_path, "evil.py", evil)
        result = invoke("check", *args, path)
        assert result.exit_code in (0, 1), result.output
        assert not marker.exists()
    assert "tf.vectorized_map" in path.read_text()


def test_github_annotates_files_that_cannot_be_analysed(tmp_path):
    good = write(tmp_path, "a.py", DENSE)
    bad = write(tmp_path, "b.py", b"x = 1\ndef f(:\n")
    link = tmp_path / "c.py"
    link.symlink_to(tmp_path / "gone.py")
    result = invoke("check", "--output-format", "github", tmp_path)
    assert_exit(result, 2)
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"::error file={good},line=6,col=5,title=pforge PF101::")
    assert lines[1] == f"::error file={bad},line=2,col=7,title=pforge%3A cannot analyse::syntax error: invalid syntax"
    assert lines[2] == (f"::error file={link},title=pforge%3A cannot analyse::broken symbolic link "
                        f"(to {tmp_path / 'gone.py'})")


def test_command_line_is_a_later_layer_than_the_file(tmp_path):
    """As in ruff: --select replaces the file's select and ignore; --ignore ALL silences all."""
    root = _project(tmp_path, '[tool.pforge]\nignore = ["PF101"]\n')
    assert "PF101" not in invoke("check", root).stdout
    assert "PF101" in invoke("check", root, "--select", "PF101").stdout
    result = invoke("check", root, "--ignore", "ALL")
    assert_exit(result, 0)
    assert result.stdout == ""


def test_refused_adds_nothing_when_the_selection_names_pf2_codes(tmp_path):
    path = write(tmp_path, "log.py", "import tensorflow as tf\ndef f(x):\n    outs = []\n"
                 "    for i in range(3):\n        print(i)\n        outs.append(x[i] + x[i - 1])\n"
                 "    return tf.stack(outs)\n")
    both = invoke("check", "--refused", "--isolated", path).stdout
    assert "PF205" in both
    assert "PF205" not in invoke("check", "--refused", "--isolated", "--select", "PF202", path).stdout


def test_noqa_inside_a_string_is_not_a_suppression(tmp_path):
    text = '"""Docs.\n\n# pforge: noqa\n"""\n' + DENSE
    path = write(tmp_path, "dense.py", text)
    assert "PF101" in invoke("check", "--isolated", path).stdout
