"""``--fast-math``: pairwise squared distances as ``|a|**2 + |b|**2 - 2 a.b``.

Each case asserts the expanded form was written (its exact spelling) before comparing it with
the loop; each trap asserts the loop runs, or the broadcast form stays, where the identity
would compute otherwise (rows of two lengths that the loop's ``-`` broadcasts, ints, two
dtypes, lists) or where the user did not ask to trade precision."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from pforge.cli.main import app
from pforge.transpile import transpile_source
from tests.loops import run_module

KNN = """import numpy as np

def distances(X, X_ref):
    n_q = X.shape[0]
    n_r = X_ref.shape[0]
    D = np.zeros((n_q, n_r))
    for i in range(n_q):
        for j in range(n_r):
            D[i, j] = np.sqrt(np.sum(np.square((X[i] - X_ref[j]))))
    return D
"""
PRIVATE = """import numpy as np

def squared(a, b):
    out = np.zeros((len(b), len(a)))
    for j in range(len(b)):
        for i in range(len(a)):
            d = a[i] - b[j]
            out[j, i] = np.sum(d * d)
    return out
"""
EXPANDED = ("np.maximum(np.einsum('ij,ij->i', X, X)[:, np.newaxis] + np.einsum('ij,ij->i', X_ref, X_ref) "
            "- 2 * (X @ X_ref.T), 0)")


def _fast(source, **options):
    result = transpile_source(source, "m.py", fast_math=True, **options)
    assert result.plans and result.plans[0].rewritten, result.plans[0].remarks if result.plans else "no plan"
    return result


def _run(source, code, name, *args):
    want = run_module(source)[name](*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    got = run_module(code)[name](*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    return want, got


def test_the_distances_become_two_row_norms_and_one_matrix_product_near_the_loop():
    code = _fast(KNN).code
    assert f"np.sqrt({EXPANDED})" in code
    assert "np.newaxis] - X_ref" not in code  # no (n, m, d) differences
    rng = np.random.default_rng(0)
    for n, m, d in ((6, 9, 5), (1, 1, 3), (40, 17, 64)):
        want, got = _run(KNN, code, "distances", rng.standard_normal((n, d)), rng.standard_normal((m, d)))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_close_points_lose_precision_but_never_become_nan():
    """The trade --fast-math makes: a point's distance to itself is 0 in the loop and a
    rounding error of its squared norm here, clamped at 0 where the error is negative (the
    square root of a negative number would be nan)."""
    code = _fast(KNN).code
    rng = np.random.default_rng(1)
    points = rng.standard_normal((50, 7)) * 1e3
    want, got = _run(KNN, code, "distances", points, points)
    assert np.all(np.diag(want) == 0)
    assert not np.isnan(got).any()
    assert np.all(np.diag(got) < 1e-4)  # eps * |x|**2 ~ 1e-16 * 1e7, square-rooted
    squared = transpile_source(KNN.replace("np.sqrt(", "(", 1), "m.py", fast_math=True).code
    raw = run_module(squared)["distances"](points, points)
    assert np.all(raw >= 0)  # where the expansion rounds below 0, the clamp gives 0
    unclamped = np.einsum("ij,ij->i", points, points)[:, None] + np.einsum("ij,ij->i", points, points) \
        - 2 * points @ points.T
    assert (unclamped < 0).any() and np.all(raw[unclamped < 0] == 0)


def test_a_private_difference_is_read_through_its_value_and_its_binding_dropped():
    code = _fast(PRIVATE, shapes={"a": 2, "b": 2}).code
    batched = code.split("else:")[0]
    assert ("out[...] = np.maximum(np.einsum('ij,ij->i', b, b)[:, np.newaxis] + "
            "np.einsum('ij,ij->i', a, a) - 2 * (b @ a.T), 0)") in batched
    assert "d = " not in batched  # the (m, n, d) differences are never built
    rng = np.random.default_rng(2)
    want, got = _run(PRIVATE, code, "squared", rng.standard_normal((5, 4)), rng.standard_normal((3, 4)))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_a_norm_of_the_difference_is_the_square_root_of_the_expansion():
    source = PRIVATE.replace("d = a[i] - b[j]", "pass").replace("np.sum(d * d)", "np.linalg.norm(a[i] - b[j])")
    result = _fast(source, shapes={"a": 2, "b": 2})
    assert ("np.sqrt(np.maximum(np.einsum('ij,ij->i', b, b)[:, np.newaxis] + np.einsum('ij,ij->i', a, a) "
            "- 2 * (b @ a.T), 0))") in result.code
    assert "sum((a[i] - b[j]) ** 2)" in result.plans[0].unsafe
    rng = np.random.default_rng(4)
    want, got = _run(source, result.code, "squared", rng.standard_normal((6, 3)), rng.standard_normal((2, 3)))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    ordered = source.replace("np.linalg.norm(a[i] - b[j])", "np.linalg.norm(a[i] - b[j], ord=1)")
    assert "@" not in transpile_source(ordered, "m.py", fast_math=True, shapes={"a": 2, "b": 2}).code


def test_the_checks_run_the_loop_where_the_identity_would_differ():
    """A row of length 1 broadcasts in the loop's `-` (the identity would sum one square),
    ints would wrap or stay exact, float32 beside float64 rounds the loop's difference in
    float64; lists have no dtype."""
    code = _fast(KNN).code
    rng = np.random.default_rng(3)
    cases = [(rng.standard_normal((4, 1)), rng.standard_normal((3, 5))),
             (rng.integers(-9, 9, (4, 5)), rng.integers(-9, 9, (3, 5))),
             (rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal((3, 5))),
             (rng.standard_normal((4, 5)), rng.standard_normal((3, 5)).astype(np.float32))]
    for x, y in cases:
        want, got = _run(KNN, code, "distances", x, y)
        np.testing.assert_array_equal(got, want)  # the loop ran: bit for bit
    module = run_module(code)
    assert module["distances"](rng.standard_normal((4, 5)), rng.standard_normal((3, 5))).shape == (4, 3)


def test_without_fast_math_the_differences_stay_and_safe_fixes_never_expand():
    default = transpile_source(KNN, "m.py")
    assert default.plans[0].rewritten and "@" not in default.code
    assert "X[i_lo:i_hi, np.newaxis] - X_ref" in default.code  # (in strips of rows)
    safe = transpile_source(KNN, "m.py", unsafe=False, fast_math=True)
    assert safe.plans[0].rewritten and "@" not in safe.code
    plan = _fast(KNN).plans[0]
    assert plan.unsafe and "loses precision where points are close" in plan.unsafe


def test_the_identity_needs_rows_of_two_arrays_along_two_loops():
    """`x[i] - x[i]` (one loop), a sum over one axis of a matrix row, a difference of a row and
    a number: no pair of row sets, nothing to expand."""
    same_loop = KNN.replace("X_ref[j]", "X_ref[i]").replace("n_r = X_ref.shape[0]", "n_r = X.shape[0]")
    code = transpile_source(same_loop, "m.py", fast_math=True).code
    assert "@" not in code
    scalar = KNN.replace("X_ref[j]", "X_ref[j, 0]")
    assert "@" not in transpile_source(scalar, "m.py", fast_math=True).code


def test_the_command_line_flag(tmp_path):
    source = tmp_path / "knn.py"
    source.write_text(KNN)
    result = CliRunner().invoke(app, ["transpile", str(source), "--fast-math"])
    assert result.exit_code == 0, result.output
    assert EXPANDED in result.output
    plain = CliRunner().invoke(app, ["transpile", str(source)])
    assert plain.exit_code == 0 and "@" not in plain.output


TF_PAIRS = '''import tensorflow as tf

def pairwise(a, b):
    """Args:
      a: float32 [n, dim].
      b: float32 [m, dim].
    """
    rows = []
    for i in range(a.shape[0]):
        row = []
        for j in range(b.shape[0]):
            row.append(tf.norm(a[i] - b[j]))
        rows.append(tf.stack(row))
    return tf.stack(rows)
'''


def test_tensorflow_norms_expand_where_the_docstring_gives_both_rows_one_length():
    """TensorFlow code runs no check in front: the rows must be declared of one length (`dim`
    in both docstring shapes); with two names (`[n, d]`, `[m, e]`) the differences stay."""
    code = _fast(TF_PAIRS, backend="direct").code
    assert ("rows = tf.sqrt(tf.maximum(tf.einsum('ij,ij->i', a, a)[:, tf.newaxis] + tf.einsum('ij,ij->i', b, b) "
            "- 2 * tf.matmul(a, b, transpose_b=True), 0))") in code
    other = TF_PAIRS.replace("b: float32 [m, dim]", "b: float32 [m, e]")
    assert "matmul" not in transpile_source(other, "m.py", fast_math=True, backend="direct").code


def test_tensorflow_norms_equal_the_loop_to_float32_rounding(tf):
    code = _fast(TF_PAIRS, backend="direct").code
    rng = np.random.default_rng(5)
    a = tf.constant(rng.standard_normal((7, 4)), tf.float32)
    b = tf.constant(rng.standard_normal((5, 4)), tf.float32)
    want = run_module(TF_PAIRS)["pairwise"](a, b).numpy()
    got = run_module(code)["pairwise"](a, b).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


FORMS = '''import numpy as np

def f(X, Y):
    out = np.zeros((len(X), len(Y)))
    s = 0.0
    for i in range(len(X)):
        for j in range(len(Y)):
            BODY
    return out, s
'''


@pytest.mark.parametrize("body, expanded", [
    ("out[i, j] = ((X[i] - Y[j]) ** 2).sum()", True),
    ("out[i, j] = np.sum((X[i] - Y[j]) ** 2, axis=0)", True),
    ("out[i, j] = np.sum((X[i] - Y[j]) ** 2, axis=-1)", True),
    ("s += np.sum((X[i] - Y[j]) ** 2)", True),  # (the sum of the expanded matrix)
    ("out[i, j] = np.sum((X[i] - Y[j]) ** 2, initial=-1)", False),  # another sum than the squares
    ("out[i, j] = np.sum((X[i] + Y[j]) ** 2)", False),  # a sum's square expands with + 2 a.b
    ("out[i, j] = np.sum((X[i] - 2.0 * Y[j]) ** 2)", False),  # a row times a number
    ("out[i, j] = np.sum((X[i, :2] - Y[j, :2]) ** 2)", False),  # part of a row
    ("out[i, j] = np.sum((X[i] - Y[j]) ** 3)", False),
])
def test_which_sums_expand_and_each_equals_the_loop(body, expanded):
    source = FORMS.replace("BODY", body)
    result = transpile_source(source, "m.py", fast_math=True, shapes={"X": 2, "Y": 2})
    assert (" @ " in result.code) == expanded, result.code
    if expanded:
        assert "np.einsum('ij,ij->i', X, X)[:, np.newaxis] + np.einsum('ij,ij->i', Y, Y)" in result.code
        if not body.startswith("s +="):  # (a reassociated sum names itself first)
            assert "the squared distance `sum((X[i] - Y[j]) ** 2)` as" in result.plans[0].unsafe
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal((5, 4)), rng.standard_normal((3, 4))
    want = run_module(source)["f"](x.copy(), y.copy())
    got = run_module(result.code)["f"](x.copy(), y.copy())
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
    assert abs(got[1] - want[1]) <= 1e-10 * max(1.0, abs(want[1]))


def test_rows_of_matrices_keep_the_differences():
    """Rows that are matrices (3-D arrays): the row norms as written are for vectors."""
    source = FORMS.replace("BODY", "out[i, j] = np.sum((X[i] - Y[j]) ** 2)")
    result = _fast(source, shapes={"X": 3, "Y": 3})
    assert " @ " not in result.code
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((4, 2, 3)), rng.standard_normal((3, 2, 3))
    np.testing.assert_allclose(run_module(result.code)["f"](x, y)[0], run_module(source)["f"](x, y)[0], rtol=1e-12)


def test_explain_says_what_each_form_holds_at_once(tmp_path):
    """The broadcast differences hold n_q x n_r rows at once; the expansion holds no row."""
    source = tmp_path / "knn.py"
    source.write_text(KNN)
    plain = CliRunner().invoke(app, ["explain", str(source), "--memory-bound", "0"])
    assert plain.exit_code == 0, plain.output
    assert ("memory: `X[:, np.newaxis] - X_ref`: n_q × n_r values of rank 1 at once, where the "
            "loop holds one at a time") in plain.output
    fast = CliRunner().invoke(app, ["explain", str(source), "--fast-math"])
    assert fast.exit_code == 0 and "rewritten by the direct backend" in fast.output
    assert "memory:" not in fast.output


def test_tensorflow_ranks_without_named_lengths_keep_the_differences():
    """Ranks from --shapes name no axis: nothing shows the two rows are of one length."""
    source = TF_PAIRS.replace("a: float32 [n, dim].", "a: float32.").replace("b: float32 [m, dim].", "b: float32.")
    result = transpile_source(source, "m.py", fast_math=True, backend="direct", shapes={"a": 2, "b": 2})
    assert result.plans[0].rewritten and "matmul" not in result.code and "tf.norm(" in result.code


def test_the_expansion_is_written_into_float_arrays_only():
    """An int output truncates the expansion's rounding into a unit (`2.9999999999999996`
    stored as 2 where the loop's 3.0 is 3: helper-44): the loop runs for it."""
    source = KNN.replace("np.sqrt(np.sum(np.square((X[i] - X_ref[j]))))", "np.sum(np.square(X[i] - X_ref[j]))") \
        .replace("D = np.zeros((n_q, n_r))", "D = np.zeros((n_q, n_r), dtype=int)")
    code = _fast(source).code
    assert "np.asarray(D).dtype.kind in 'fc'" in code and "@" in code
    X, Y = np.array([[0.1, 0.2, 0.3]]), np.array([[1.1, 1.2, 1.3], [0.1, 0.2, 0.3]])
    want, got = _run(source, code, "distances", X, Y)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, [[3, 0]])


def test_explain_weighs_the_identity_against_the_broadcast_differences(tmp_path):
    """`pforge explain` names both forms of the pairwise distances with what each holds at
    once and the multiply-adds they take, in the source's sizes, and which one is taken: the
    differences by default, the identity under --fast-math (JSON carries the same lines)."""
    source = tmp_path / "knn.py"
    source.write_text(KNN)
    sizes = "`n_q` × `n_r` × `X.shape[-1]`"
    plain = CliRunner().invoke(app, ["explain", str(source)])
    assert plain.exit_code == 0, plain.output
    choice = next(line for line in plain.output.splitlines() if line.startswith("  choice: "))
    assert choice == (f"  choice: `np.sum(np.square(X[i] - X_ref[j]))`: the broadcast differences hold {sizes} "
                      "values (in strips where that passes the memory bound); the identity |a|² + |b|² - 2 a·b "
                      f"holds `n_q` × `n_r` and runs the {sizes} multiply-adds through BLAS, but loses precision "
                      "where points are close: taken with --fast-math"), plain.output
    fast = CliRunner().invoke(app, ["explain", str(source), "--fast-math", "--format", "json"])
    assert fast.exit_code == 0, fast.output
    choices, = [p["choices"] for p in json.loads(fast.output) if p["rewritten"]]
    assert choices == [f"`np.sum(np.square(X[i] - X_ref[j]))`: the identity |a|² + |b|² - 2 a·b holds `n_q` × "
                       f"`n_r` and runs the {sizes} multiply-adds through BLAS, where the broadcast differences "
                       f"hold {sizes} values (in strips where that passes the memory bound); taken under "
                       "--fast-math (it loses precision where points are close)"]
    unsafe = CliRunner().invoke(app, ["explain", str(source), "--format", "json"])
    assert [p["choices"] for p in json.loads(unsafe.output) if p["rewritten"]] == [[choice[len("  choice: "):]]]


def test_explain_with_probe_gives_each_size_its_number(tmp_path):
    """``explain --probe``: each product of sizes a ``choice:`` line names comes to a number,
    in the function's frame where the loop starts with the file's example inputs (stopped
    there: the loop does not run); without ``--probe`` the lines are the source's alone."""
    source = tmp_path / "knn.py"
    source.write_text(KNN + "\n\ndef example_inputs(seed=0):\n    rng = np.random.default_rng(seed)\n"
                      "    return {'distances': (rng.normal(size=(7, 3)), rng.normal(size=(5, 3)))}\n")
    plain = CliRunner().invoke(app, ["explain", str(source)])
    assert plain.exit_code == 0 and "choice:" in plain.output and "(105)" not in plain.output, plain.output
    probed = CliRunner().invoke(app, ["explain", str(source), "--probe"])
    assert probed.exit_code == 0, probed.output
    line = next(line for line in probed.output.splitlines() if line.startswith("  choice:"))
    assert "`n_q` × `n_r` × `X.shape[-1]` (105) values" in line and "`n_q` × `n_r` (35)" in line, line
    records = json.loads(CliRunner().invoke(app, ["explain", str(source), "--probe", "--format", "json"]).stdout)
    assert records[0]["probed"]["choices"][0] == line[len("  choice: "):].strip()
    assert "probed" not in json.loads(CliRunner().invoke(app, ["explain", str(source), "--format", "json"]).stdout)[0]


@pytest.mark.parametrize("line, want", [
    ("holds `a.shape[0]` × `n` values", "holds `a.shape[0]` × `n` (12) values"),
    ("holds `len(range(1, n))` values", "holds `len(range(1, n))` (3) values"),
    ("holds `f(n)` values", "holds `f(n)` values"),  # (a call runs user code: no number)
    ("holds `later` × `n` values", "holds `later` × `n` values"),  # (bound after the loop starts)
    ("holds `a.dtype` values", "holds `a.dtype` values"),  # (no int)
    ("`np.sum(a[i])` as einsum", "`np.sum(a[i])` as einsum"),
])
def test_only_sizes_get_numbers(line, want):
    from pforge.runtime.probe import with_sizes

    calls = []
    names = {"a": np.zeros((3, 2)), "n": 4, "f": lambda n: calls.append(n) or n, "__globals__": {"np": np}}
    assert with_sizes(line, names) == want and not calls


def test_a_function_that_raises_before_its_loop_has_no_sizes(tmp_path):
    from pforge.runtime.loader import load_module
    from pforge.runtime.probe import loop_locals

    path = tmp_path / "m.py"
    path.write_text("import numpy as np\n\ndef f(x):\n    n = len(x) // 0\n    for i in range(n):\n        x[i] = 1\n"
                    "\ndef g(x):\n    n = len(x)\n    for i in range(n):\n        x[i] = 1\n    return x\n"
                    "\ndef example_inputs(seed=0):\n    return {'f': np.zeros(3), 'g': np.zeros(3)}\n")
    module = load_module(str(path))
    assert loop_locals(module, "f", 5) is None
    names = loop_locals(module, "g", 10)
    assert names["n"] == 3 and "i" not in names
    assert not names["x"].any()  # (the loop did not run: it would have written ones)
