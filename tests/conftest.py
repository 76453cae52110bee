"""Shared fixtures: paths to the samples and the shared real-world cases."""

from __future__ import annotations

import os
import pathlib
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GOLDEN = ROOT / "tests" / "golden"
CASES = ROOT.parent / "shared" / "cases"

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def sample_files():
    return sorted(p for p in SAMPLES.glob("*.py"))


def case_files():
    return sorted(CASES.glob("[0-9][0-9][0-9]_*.py")) if CASES.is_dir() else []


#: why a test that needs the shared cases does not run
CASES_MISSING = f"needs the shared cases in ../shared/cases ({CASES}), which are not there"


def shared_cases(*, module=False):
    """The shared case files, for a test (or, with ``module``, a test module) that needs them.

    Without them the test is skipped, saying so; when the environment variable ``CI`` is set
    it fails instead, because CI must run every test (the cases are only required in CI).
    """
    files = case_files()
    if not files:
        if os.environ.get("CI"):
            pytest.fail(f"{CASES_MISSING}; they are required in CI", pytrace=False)
        pytest.skip(f"{CASES_MISSING} (only required in CI)", allow_module_level=module)
    return files


def _low_precision(value):
    """Whether any leaf of ``value`` is a float32/float16 array or tensor."""
    if isinstance(value, dict):
        return any(_low_precision(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_low_precision(v) for v in value)
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "name", str(dtype)) in ("float16", "bfloat16", "float32", "complex64")


def assert_same_numbers(want, got, tol=None, where=""):
    """The tests' oracle for a loop against its rewrite: ``pforge.runtime.compare`` (the one
    ``pforge verify`` uses: same structure, shapes and dtype kinds, NaN equals NaN, then
    ``|want - got| <= atol + rtol * |want|``). Tolerances: ``tol`` (``{"rtol", "atol"}``, a
    case's ``TOL``), else rtol 1e-4 and atol 1e-5 when float32 or float16 appears on either
    side, and rtol 1e-7 and atol 1e-9 otherwise.
    """
    from pforge.runtime.compare import compare

    if tol:
        rtol, atol = tol["rtol"], tol["atol"]
    elif _low_precision(want) or _low_precision(got):
        rtol, atol = 1e-4, 1e-5
    else:
        rtol, atol = 1e-7, 1e-9
    match = compare(want, got, rtol=rtol, atol=atol)
    assert match.ok, f"{where}{match.message} (rtol={rtol}, atol={atol})"


@pytest.fixture(autouse=True, scope="session")
def _own_cache(tmp_path_factory):
    """``pforge check`` keeps its cache in a temporary folder, not in the repository."""
    previous = os.environ.get("PFORGE_CACHE_DIR")
    os.environ["PFORGE_CACHE_DIR"] = str(tmp_path_factory.mktemp("pforge-cache"))
    yield
    if previous is None:
        os.environ.pop("PFORGE_CACHE_DIR", None)
    else:
        os.environ["PFORGE_CACHE_DIR"] = previous


@pytest.fixture(autouse=True, scope="module")
def _generated_code_as_unparsed(request):
    """Tests that read the text of generated code spell what they expect as ``ast.unparse``
    writes it: one line per statement, its quotes. So, unless its module is marked
    ``file_style`` (``pytestmark``), a test gets generated code in that form (``Style()``: no
    quote and no line length), not in the style of its source (``pforge.transpile.style``).
    The file's style is what users get, and is tested where marked: ``test_style.py``, the
    golden files and the samples (``test_samples.py``), the shared cases, ``verify``'s rank
    checks; and the fuzzer (``python -m tests.fuzz``) runs styled code on every program it
    makes. (Module-scoped, so that it comes before a module's own fixtures that transpile.)"""
    if request.node.get_closest_marker("file_style") is not None:
        yield
        return
    from pforge.transpile import splice
    from pforge.transpile.style import Style

    patch = pytest.MonkeyPatch()
    patch.setattr(splice, "file_style", lambda text: Style())
    yield
    patch.undo()


@pytest.fixture
def tf():
    return pytest.importorskip("tensorflow")


# -- CLI helpers shared by the command tests ---------------------------------------------------


def invoke(*args, env=None):
    """Runs ``pforge ARGS`` through typer's CliRunner (stdout and stderr kept apart)."""
    from typer.testing import CliRunner

    from pforge.cli.main import app

    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def assert_exit(result, code):
    """Exit code as expected, and no Python exception escaped (no traceback)."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output


def write(folder, name, text):
    """Writes ``text`` (str or bytes) to ``folder/name``, creating folders; returns the path."""
    path = pathlib.Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


#: A small TensorFlow loop pforge flags (PF101) and rewrites; the CLI, engine and hook tests use it.
DENSE = textwrap.dedent("""\
    import tensorflow as tf


    def dense(x, w):
        outs = []
        for i in range(x.shape[0]):
            outs.append(tf.nn.relu(x[i] @ w))
        return tf.stack(outs)
    """)


#: The body of ``scale_rows(x, w)`` as a loop, and batched: the tests of ``verify`` and
#: ``bench`` write a file with the loop and fake the transpiler's output with the batched body.
ROWS_LOOP_BODY = """\
    outs = []
    for i in range(x.shape[0]):
        outs.append(tf.reduce_sum(x[i] * w))
    return tf.stack(outs)"""
ROWS_BATCHED = "    return tf.reduce_sum(x * w, axis=1)"


def markers(code: str) -> list[str]:
    """The marker comments of transpiled ``code``, each joined into one line where the line
    length wrapped it (``frontend.marker_above``)."""
    from pforge.transpile.frontend import marker_above, source_lines

    lines = source_lines(code)
    return [marker_above(lines, k + 2) for k, line in enumerate(lines)
            if line.lstrip().startswith("#") and marker_above(lines, k + 2)
            and not lines[k + 1].lstrip().startswith("#   ")]
