"""Generated code in the file's style: its quotes and its line length (``transpile/style.py``).

Each end-to-end test first asserts that the loop was rewritten, then that the rewrite keeps
the file's style, then that it still computes what the loop computes."""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from pforge.transpile.style import LIMITS, Style, file_style, requoted
from tests.conftest import assert_same_numbers, markers

#: generated code in the file's style, as users get it (tests/conftest.py)
pytestmark = pytest.mark.file_style


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# -- what file_style reads --------------------------------------------------------------------

@pytest.mark.parametrize("text, quote", [
    ('a = "x"\nb = "y"\nc = \'z\'\n', '"'),
    ("a = 'x'\nb = 'y'\nc = \"z\"\n", "'"),
    ('a = "x"\nb = \'y\'\n', None),                      # a tie says nothing
    ('"""A docstring."""\nx = 1\n', None),              # docstrings do not count
    ("a = \"it's\"\nb = \"it's\"\nc = 'z'\n", "'"),      # a body with a quote had no choice
    ('a = "\\n"\nb = "\\t"\nc = \'z\'\n', "'"),          # nor does one with a backslash
    ('a = b"x"\nb = r"y"\nc = \'z\'\n', '"'),            # prefixes are read through
    ("x = 1\n", None),
])
def test_the_quote_most_literals_use(text, quote):
    assert file_style(text).quote == quote


@pytest.mark.parametrize("longest, limit", [
    (10, 79), (79, 79), (80, 88), (88, 88), (89, 99), (100, 100), (101, 119), (120, 120),
    (121, None),
])
def test_the_smallest_usual_limit_every_line_fits(longest, limit):
    text = "x = 1\n" + "y = " + "1" * (longest - 4) + "\n"
    assert file_style(text).line_length == limit


def test_comment_lines_do_not_set_the_limit():
    text = "x = 1\n# " + "c" * 200 + "\n    # " + "d" * 150 + "\n"
    assert file_style(text).line_length == LIMITS[0]


def test_source_that_does_not_tokenize_has_the_default_style():
    assert file_style("x = " + "'" * 3 + "\n") == Style()


# -- requoting -------------------------------------------------------------------------------

@pytest.mark.parametrize("code, want", [
    ("x.dtype.kind in 'biufc'", 'x.dtype.kind in "biufc"'),
    ("f(a='x', b=b'y', c=r'z')", 'f(a="x", b=b"y", c=r"z")'),
    ("s = 'it\"s'", "s = 'it\"s'"),                 # a quote inside: kept
    ("s = 'a\\nb'", "s = 'a\\nb'"),                 # a backslash: kept
    ("s = f'{x}'", "s = f'{x}'"),                   # an f-string: kept
    ("s = '''x'''", "s = '''x'''"),                 # triple-quoted: kept
    ("s = ''", 's = ""'),
    ("# 'a comment'\ns = 'x'", "# 'a comment'\ns = \"x\""),
])
def test_requoting_keeps_every_value(code, want):
    got = requoted(code, '"')
    assert got == want
    assert ast.dump(ast.parse(got)) == ast.dump(ast.parse(code))


def test_requoting_code_that_does_not_tokenize_returns_it():
    assert requoted("s = 'x", '"') == "s = 'x"


# -- wrapping --------------------------------------------------------------------------------

LONG = ("total = np.sum(np.square(first_array_of_points - second_array_of_points), axis=-1)"
        " + offsets_of_rows")


def test_a_long_statement_is_wrapped_to_the_limit_less_its_indentation():
    style = Style(None, 79)
    lines = style.lines(["x = 1", LONG, "y = x ** 2"], indent=8)
    assert lines[0] == "x = 1" and lines[-1] == "y = x ** 2"  # (lines that fit stay as written)
    assert len(lines) > 3
    assert all(8 + len(line) <= 79 for line in lines), lines
    assert ast.dump(ast.parse("\n".join(lines))) == ast.dump(ast.parse(f"x = 1\n{LONG}\ny = x ** 2"))


def test_lines_that_fit_are_never_reformatted():
    lines = ["y = x ** 2", "z = a[i + 1:]", "w = {'a': 1}"]
    assert Style(None, 79).lines(lines) == lines


def test_comments_between_statements_stay():
    lines = Style(None, 60).lines(["# pforge: a marker comment longer than sixty characters, kept", LONG])
    assert lines[0].startswith("# pforge: a marker")
    assert all(len(line) <= 60 for line in lines[1:])


def test_a_long_if_header_is_wrapped_as_black_wraps_it():
    test = " and ".join(f"type(x{k}) is np.ndarray" for k in range(6))
    header = Style('"', 79).header("if", test, indent=4)
    assert header[0] == "if (" and header[-1] == "):"
    assert all(4 + len(line) <= 79 for line in header)
    assert Style('"', 79).header("if", "x > 0") == ["if x > 0:"]


def test_no_limit_means_no_wrapping():
    assert Style(None, None).lines([LONG]) == [LONG]


def test_nested_defs_get_no_blank_lines():
    body = ["def _body(a_row_of_the_input, another_row_of_the_input):",
            f"    return {LONG[8:]}", "out = _body(x, y)"]
    lines = Style(None, 60).lines(body)
    assert all(line.strip() for line in lines)
    assert ast.dump(ast.parse("\n".join(lines))) == ast.dump(ast.parse("\n".join(body)))


# -- end to end: a rewrite in the file's style -----------------------------------------------

BLACK_FILE = _code('''
    import numpy as np


    def scaled_counts(weights, kinds, scale, off):
        """Sums of weights by kind."""
        label = "weights"
        out = np.zeros(weights.shape[0])
        for i in range(weights.shape[0]):
            out[i] = np.sum(np.square(weights[i] - scale[i])) * off[i] + np.max(kinds[i])
        return out, label
''')


def test_a_rewrite_takes_the_files_quotes_and_line_length():
    result = transpile_source(BLACK_FILE, "m.py", backend="direct")
    assert "# pforge: vectorized loop" in result.code
    style = file_style(BLACK_FILE)
    assert style == Style('"', 88)
    lines = result.code.splitlines()
    # (the loop as written under `else:` is the user's text, one level deeper: kept as it is)
    code_lines = [line for line in lines[:lines.index("    else:")] if not line.lstrip().startswith("#")]
    assert all(len(line) <= 88 for line in code_lines), result.code
    assert "'" not in "".join(line for line in code_lines if '"""' not in line), result.code
    assert any(line.strip() == "if (" for line in code_lines), result.code  # (a wrapped guard)
    assert transpile_source(result.code, "m.py", backend="direct").code == result.code  # idempotent
    rng = np.random.default_rng(0)
    args = (rng.standard_normal((5, 3)), rng.integers(0, 4, (5, 2)), rng.standard_normal((5, 3)),
            rng.standard_normal(5))
    want, got = {}, {}
    exec(compile(BLACK_FILE, "m.py", "exec"), want)
    exec(compile(result.code, "m.py", "exec"), got)
    assert_same_numbers(want["scaled_counts"](*args), got["scaled_counts"](*args))


def test_a_file_with_lines_over_120_keeps_long_generated_lines():
    wide = BLACK_FILE.replace('"""Sums of weights by kind."""', '"""Sums of weights by kind."""\n    x = '
                              + "1" * 130)
    result = transpile_source(wide, "m.py", backend="direct")
    assert "# pforge: vectorized loop" in result.code
    assert not any(line.strip() == "if (" for line in result.code.splitlines()), result.code


def test_a_file_indented_by_two_spaces_keeps_its_unit_in_wrapped_lines():
    two = "".join(" " * ((len(line) - len(line.lstrip(" "))) // 2) + line.lstrip(" ")
                  for line in BLACK_FILE.splitlines(keepends=True))
    result = transpile_source(two, "m.py", backend="direct")
    assert "# pforge: vectorized loop" in result.code
    wrapped = result.code.splitlines()
    start = next(k for k, line in enumerate(wrapped) if line.strip() == "if (")
    assert wrapped[start + 1].startswith(wrapped[start][:-4] + "  ") and \
        not wrapped[start + 1].startswith(wrapped[start][:-4] + "    "), result.code
    compile(result.code, "m.py", "exec")


DISTRIBUTED = _code("""
    import numpy as np


    def two_writes(a, b):
        for i in range(len(a) - 1):
            a[i] = b[i] * 2
            b[i] = a[i + 1] + 1
            a[i] = a[i] + b[i]
        return a, b
""")


def test_a_piece_of_a_distributed_loop_is_wrapped_for_the_check_it_goes_under():
    result = transpile_source(DISTRIBUTED, "m.py")
    assert markers(result.code)[0].startswith("# pforge: loop distributed") and \
        markers(result.code)[0].endswith("where its run-time checks hold"), result.code
    assert [line for line in result.code.splitlines()
            if len(line) > 79 and not line.lstrip().startswith("#")] == [], result.code
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(7), rng.standard_normal(7)
    want, got = {}, {}
    exec(compile(DISTRIBUTED, "m.py", "exec"), want)
    exec(compile(result.code, "m.py", "exec"), got)
    assert_same_numbers(want["two_writes"](a.copy(), b.copy()), got["two_writes"](a.copy(), b.copy()))


@pytest.mark.parametrize("separator", ["\x0c", "\x1c", "\u2028"])
def test_a_line_break_python_does_not_count_keeps_the_lines_in_place(separator):
    # (str.splitlines splits there and ast does not: every line after it was off by one)
    source = ("import numpy as np\n# a note" + separator + "on two lines\n\ndef f(x, w):\n    out = np.zeros(x.shape[0])\n"
              "    for i in range(x.shape[0]):\n        out[i] = np.sum(x[i] * w) + 1.0\n    return out\n")
    result = transpile_source(source, "m.py")
    assert "# pforge: vectorized loop" in result.code
    assert result.code.startswith("import numpy as np\n# a note" + separator + "on two lines\n\ndef f(x, w):\n")
    x, w = np.arange(6.0).reshape(3, 2), np.array([0.5, -1.0])
    got = {}
    exec(compile(result.code, "m.py", "exec"), got)
    assert_same_numbers(np.array([np.sum(row * w) + 1.0 for row in x]), got["f"](x, w))


TERNARY = "(list(per_example) if isinstance(per_example, (list, tuple)) else tf.unstack(per_example, axis=1))"


def test_an_expression_put_in_a_users_statement_is_wrapped_inside_its_parentheses():
    style = Style(None, 79)
    assert style.expression(TERNARY, 11, 4, 0) != [TERNARY]
    lines = style.expression(TERNARY, 11, 4, 0)
    assert lines[0] == "(" and lines[-1] == ")" and len(lines) > 3
    assert all(4 + len(line) <= 79 for line in lines[1:])
    # (in any context: `x * (a if b else c)` keeps its parentheses, so its meaning)
    text = "y = x * " + "\n".join(lines) + " + 1"
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(f"y = x * {TERNARY} + 1"))


@pytest.mark.parametrize("style, text, column", [
    (Style(None, 120), TERNARY, 11),              # the line fits
    (Style(None, None), TERNARY, 11),             # no limit
    (Style(None, 79), TERNARY[1:-1], 11),         # not parenthesized: nothing to wrap inside
])
def test_an_expression_that_fits_or_has_no_parentheses_stays_on_its_line(style, text, column):
    assert style.expression(text, column, 4, 0) == [text]


def _generated(code: str) -> list[str]:
    """The lines of the batched code of ``code``'s first rewritten loop: from the marker
    comment to the ``else:`` over the loop as written (the user's own lines are kept)."""
    lines = code.splitlines()
    start = next(k for k, line in enumerate(lines) if line.lstrip().startswith("# pforge: vectorized loop"))
    end = next(k for k in range(start, len(lines)) if lines[k].strip() == "else:")
    return lines[start + 1:end]


@pytest.mark.parametrize("limit", [60, 100, 120])
def test_a_given_line_length_wins_over_the_files(limit):
    """`line_length` is the formatter's limit, taken over the one the file's lines suggest
    (88 here): every generated line fits in it, and a statement that fits is one line."""
    result = transpile_source(BLACK_FILE, "m.py", backend="direct", line_length=limit)
    generated = _generated(result.code)
    assert generated and all(len(line) <= limit for line in generated), result.code
    assert any(len(line) > 88 for line in generated) == (limit > 88), result.code
    own = _generated(transpile_source(BLACK_FILE, "m.py", backend="direct").code)  # (at 88)
    assert len(generated) > len(own) if limit < 88 else len(generated) < len(own), result.code
    assert transpile_source(result.code, "m.py", backend="direct", line_length=limit).code == result.code


@pytest.mark.parametrize("bad", [0, -1, 10_001, 1.5, "88", True])
def test_a_line_length_that_is_no_whole_number_from_1_to_10000_is_refused(bad):
    with pytest.raises(ValueError, match="line_length must be a whole number from 1 to 10000"):
        transpile_source(BLACK_FILE, "m.py", line_length=bad)


# -- the formatter's configured line length, through the command line --------------------------

def _project(tmp_path, files: dict[str, str]):
    """A repository (``.git``) holding ``m.py`` (``BLACK_FILE``, whose own lines fit in 88) in
    ``pkg/`` and ``files`` (configuration), so the walk up stops at its root."""
    from tests.conftest import write

    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        write(tmp_path, name, text)
    return write(tmp_path, "pkg/m.py", BLACK_FILE)


@pytest.mark.parametrize("files, limit", [
    ({}, None),
    ({"pyproject.toml": "[tool.black]\nline-length = 120\n"}, 120),
    ({"pyproject.toml": "[tool.black]\nline-length = 120\n[tool.ruff]\nline-length = 60\n"}, 60),
    ({"pyproject.toml": "[tool.pforge]\nline-length = 100\n[tool.ruff]\nline-length = 60\n"}, 100),
    ({"pyproject.toml": "[tool.black]\nline-length = 120\n", "pkg/ruff.toml": "line-length = 70\n"}, 70),
    ({"pkg/.ruff.toml": "line-length = 66\n", "pkg/ruff.toml": "line-length = 70\n"}, 66),
    ({"pkg/pyproject.toml": "[tool.isort]\nprofile = 'black'\n", "pyproject.toml": "[tool.black]\nline-length = 120\n"}, 120),
    # a nearer formatter configuration at its default stops the search: the file's own
    ({"pkg/pyproject.toml": "[tool.ruff]\nselect = ['E']\n", "pyproject.toml": "[tool.black]\nline-length = 120\n"}, None),
    ({"pkg/ruff.toml": "[lint]\nselect = ['E']\n", "pyproject.toml": "[tool.black]\nline-length = 120\n"}, None),
    ({"pyproject.toml": "[tool.black]\nline-length = 400\n"}, 400),  # (black takes any)
])
def test_transpile_takes_the_formatters_line_length(tmp_path, files, limit):
    """The nearest folder that sets a line length (ruff's files first, then pyproject.toml's
    [tool.pforge], [tool.ruff], [tool.black]) gives it; with none, the file's own (88)."""
    from tests.conftest import assert_exit, invoke

    path = _project(tmp_path, files)
    result = invoke("transpile", path)
    assert_exit(result, 0)
    assert result.stdout == transpile_source(BLACK_FILE, str(path), line_length=limit).code
    assert all(len(line) <= (limit or 88) for line in _generated(result.stdout))


def test_the_line_length_option_wins_over_the_configuration(tmp_path):
    from tests.conftest import assert_exit, invoke

    path = _project(tmp_path, {"pyproject.toml": "[tool.black]\nline-length = 120\n"})
    result = invoke("transpile", path, "--line-length", "60")
    assert_exit(result, 0)
    assert result.stdout == transpile_source(BLACK_FILE, str(path), line_length=60).code


@pytest.mark.parametrize("files, args, message", [
    ({"pyproject.toml": "[tool.black]\nline-length = 'x'\n"}, (),
     "pyproject.toml: [tool.black] line-length: expected a whole number from 1 to 10000, got 'x'"),
    ({"pkg/ruff.toml": "line-length = 0\n"}, (), "ruff.toml: line-length: expected a whole number"),
    ({"pyproject.toml": "[tool.black\n"}, (), "pyproject.toml: not valid TOML"),
    ({}, ("--line-length", "0"), "--line-length: expected a whole number from 1 to 10000, got 0"),
    ({"pkg/ruff.toml": b"line-length = 70 # \xff\xfe\n"}, (), "ruff.toml: not valid TOML: not UTF-8"),
    ({"pyproject.toml": "tool = 5\n"}, (), "pyproject.toml: tool must be a table, got 5"),
])
def test_a_bad_line_length_is_one_message_and_exit_2(tmp_path, files, args, message):
    from tests.conftest import assert_exit, invoke

    path = _project(tmp_path, files)
    result = invoke("transpile", path, "-i", *args)
    assert_exit(result, 2)
    assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert path.read_text() == BLACK_FILE  # (nothing written)


def test_check_fix_writes_at_the_configured_line_length(tmp_path):
    """`check --fix` writes its rewrites at `[tool.pforge] line-length` (or the formatter's),
    `--line-length` over it; `--isolated` reads no configuration: the file's own."""
    from tests.conftest import assert_exit, invoke

    for config, args, limit in [("[tool.pforge]\nline-length = 60\n", (), 60),
                                ("[tool.pforge]\nline-length = 60\n", ("--line-length", "120"), 120),
                                ("[tool.ruff]\nline-length = 100\n", (), 100),
                                ("[tool.pforge]\nline-length = 60\n", ("--isolated",), None)]:
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        path = _project(folder, {"pyproject.toml": config})
        result = invoke("check", path, "--fix", "--select", "PF1", *args)
        assert_exit(result, 0)
        assert path.read_text() == transpile_source(BLACK_FILE, str(path), line_length=limit).code, (config, args)


@pytest.mark.parametrize("config, message", [
    ("tool = 5\n", "pyproject.toml: tool must be a table, got 5"),
    (b"[tool.pforge]\nselect = ['PF1'] # \xff\n", "pyproject.toml: not valid TOML: not UTF-8"),
])
def test_check_names_a_configuration_it_cannot_read(tmp_path, config, message):
    """A `pyproject.toml` whose `tool` is no table, or that is not UTF-8: one line naming it,
    exit 2, never a traceback (both raised before)."""
    from tests.conftest import assert_exit, invoke

    path = _project(tmp_path, {"pyproject.toml": config})
    for args in (("check", path), ("check", "--fix", path)):
        result = invoke(*args)
        assert_exit(result, 2)
        assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert path.read_text() == BLACK_FILE


# -- the marker comment at the line length ---------------------------------------------------

PER_EXAMPLE = _code("""
    import tensorflow as tf


    def relu_rows(x):
        outs = []
        for i in range(x.shape[0]):
            outs.append(tf.nn.relu(x[i]) * 2.0)
        return tf.stack(outs)
""")


@pytest.mark.parametrize("source, backend", [(BLACK_FILE, "direct"), (DISTRIBUTED, "direct"),
                                             (PER_EXAMPLE, "pfor")])
@pytest.mark.parametrize("limit", [50, 72])
def test_the_marker_comment_is_wrapped_at_the_line_length(source, backend, limit):
    """Every line pforge writes fits, the marker too: its words wrap onto lines that begin
    ``#   `` (a ruff E501 on every rewrite otherwise). Read back, each wrapped marker is the
    one-line marker, so the output is still pforge's own: transpiling it again changes
    nothing, and the run-time check recorder finds the tests under it."""
    from pforge.runtime.targets import has_rank_checks, instrument_rank_checks
    from pforge.transpile.frontend import marker_above

    wide = transpile_source(source, "m.py", backend=backend, line_length=10_000).code
    result = transpile_source(source, "m.py", backend=backend, line_length=limit)
    assert result.code != source and any(plan.rewritten for plan in result.plans), result.code
    ones = [line.strip() for line in wide.splitlines() if line.lstrip().startswith("# pforge:")]
    lines = result.code.splitlines()
    joined = []
    for first, line in enumerate(lines):
        if line.lstrip().startswith("# pforge:"):
            last = first
            while lines[last + 1].lstrip().startswith("#   "):
                last += 1
            assert last > first, result.code  # (wrapped: every marker here is longer than the limit)
            assert all(len(line) <= limit for line in lines[first:last + 1]), result.code
            assert marker_above(lines, first + 1) == ""  # (the line above a marker ends none)
            joined.append(marker_above(lines, last + 2))
    assert joined == ones and ones, result.code
    assert transpile_source(result.code, "m.py", backend=backend, line_length=limit).code == result.code
    checked = ["where its run-time checks hold" in one for one in ones]
    assert instrument_rank_checks(result.code).count("_pforge_check(") - 1 == sum(checked)
    assert has_rank_checks(result.code) == any(checked)
