"""Strip-mining: a NumPy rewrite whose largest batched value outgrows every array the loop
reads or writes (``X[i] - Y[j]`` batched is ``n × m × dim`` values) runs its outermost level in
strips of rows that keep that value within ``memory_bound``.

Each case asserts the strips were written (their exact spelling, or the strip loop) before
comparing with the loop, at bounds that make one row a strip, a few rows a strip, and the whole
range one strip; each trap asserts the rewrite stays whole where strips would not hold less or
would not be the loop over its rows."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from pforge.cli.main import app
from pforge.transpile import transpile_source
from tests.loops import run_module

KNN = """import numpy as np

def distances(X, Y):
    n = X.shape[0]
    m = Y.shape[0]
    D = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            D[i, j] = np.sqrt(np.sum(np.square(X[i] - Y[j])))
    return D
"""
ONE_ROW = 2.0 ** -20  # MiB: one byte, so every strip is one row


def _rewrite(source, **options):
    result = transpile_source(source, "m.py", **options)
    assert result.plans and result.plans[0].rewritten, result.plans[0].remarks if result.plans else "no plan"
    return result.code


def _same(source, code, name, *args):
    want = run_module(source)[name](*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    got = run_module(code)[name](*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_pairwise_distances_run_in_strips_of_rows_sized_by_the_bound():
    code = _rewrite(KNN)
    assert "i_strip = max(1, 262144 // max(1, m * max(np.shape(X)[-1], np.shape(Y)[-1])))" in code
    assert "for i_lo in range(0, n, i_strip):\n            i_hi = min(i_lo + i_strip, n)" in code
    assert "D[i_lo:i_hi, :] = np.sqrt(np.sum(np.square(X[i_lo:i_hi, np.newaxis] - Y), axis=-1))" \
        in code
    assert "in strips of rows (262,144 values at most at once)" in code  # (the marker comment says so)


@pytest.mark.parametrize("bound", [ONE_ROW, 3 * 4 * 8 / 2 ** 20, 2.0])  # one row, three rows, all rows
@pytest.mark.parametrize("n,m,d", [(1, 1, 1), (7, 4, 4), (10, 3, 2), (5, 6, 0)])
def test_strips_compute_what_the_loop_computes(bound, n, m, d):
    code = _rewrite(KNN, memory_bound=bound)
    assert "i_strip" in code
    rng = np.random.default_rng(n * 100 + m * 10 + d)
    _same(KNN, code, "distances", rng.standard_normal((n, d)), rng.standard_normal((m, d)))


def test_the_checks_in_front_are_the_unstripped_rewrites():
    stripped, whole = _rewrite(KNN), _rewrite(KNN, memory_bound=0)
    guard = [line for line in whole.splitlines() if line.strip().startswith("if ")]
    assert "i_strip" not in whole and "X[:, np.newaxis] - Y" in whole
    assert guard and all(line in stripped.splitlines() for line in guard)


def test_a_bound_of_none_or_zero_leaves_the_batched_code_whole():
    assert _rewrite(KNN, memory_bound=None) == _rewrite(KNN, memory_bound=0)
    assert "i_strip" not in _rewrite(KNN, memory_bound=None)


def test_stripped_code_transpiles_to_itself():
    code = _rewrite(KNN)
    assert transpile_source(code, "m.py").code == code


OUTER = """import numpy as np

def spreads(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.max(x[i][:, np.newaxis] * x[i][np.newaxis, :])
    return out
"""


def test_an_outer_product_per_row_is_stripped_by_the_product_of_its_rows():
    code = _rewrite(OUTER, memory_bound=ONE_ROW)
    assert "max(1, np.shape(x)[-1] * np.shape(x)[-1])" in code
    assert "for i_lo in range(0, x.shape[0], i_strip)" in code
    rng = np.random.default_rng(1)
    _same(OUTER, code, "spreads", rng.standard_normal((6, 3)))


MATMUL = """import numpy as np

def products(a, b):
    out = np.empty((a.shape[0], a.shape[1], b.shape[2]))
    for k in range(a.shape[0]):
        out[k] = a[k] @ b[k]
    return out
"""
TOTAL = """import numpy as np

def total(X, Y):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            s += np.sum(np.abs(X[i] - Y[j]))
    return s
"""
FROM_K = """import numpy as np

def distances(X, Y, k):
    D = np.zeros((X.shape[0], Y.shape[0]))
    for i in range(k, X.shape[0]):
        for j in range(Y.shape[0]):
            D[i, j] = np.sum(np.abs(X[i] - Y[j]))
    return D
"""
LISTS = """import numpy as np

def distances(X, Y):
    D = np.zeros((len(X), len(Y)))
    for i in range(len(X)):
        for j in range(len(Y)):
            D[i, j] = np.sum(np.abs(X[i] - Y[j]))
    return D
"""


FIRST = """import numpy as np

def first(X, Y):
    for i in range(X.shape[0]):
        if i == 0:
            s = np.sum(np.outer(X[i], Y[i]))
        else:
            s += np.sum(np.outer(X[i], Y[i]))
    return s
"""


@pytest.mark.parametrize("source", [MATMUL, FROM_K, LISTS, FIRST], ids=["no-larger", "start", "lists", "first"])
def test_no_strips_where_they_would_hold_no_less_or_not_be_the_loop_over_rows(source):
    """A batched matrix product is no larger than its output; a range from an unknown start
    may start below 0; a list the checks admit would be converted again for every strip; a
    sum whose first iteration assigns is batched as an assignment of all the terms, which
    each strip would repeat over its own."""
    code = _rewrite(source, memory_bound=ONE_ROW, shapes={"X": 2, "Y": 2} if source is FIRST else None)
    assert "_strip" not in code and "_lo" not in code


def test_explain_says_the_strips_and_the_cli_takes_a_bound(tmp_path):
    path = tmp_path / "knn.py"
    path.write_text(KNN)
    runner = CliRunner()
    explained = runner.invoke(app, ["explain", str(path)])
    assert explained.exit_code == 0, explained.output
    assert "n × m values of rank 1, in strips of `i_strip` rows, 262,144 values at most at once" in explained.output
    whole = runner.invoke(app, ["transpile", str(path), "--memory-bound", "0"])
    assert whole.exit_code == 0 and "i_strip" not in whole.output and "pforge: vectorized loop" in whole.output
    small = runner.invoke(app, ["transpile", str(path), "--memory-bound", "0.5"])
    assert small.exit_code == 0 and "65536 // max(1, m * " in small.output
    for value in ("-1", "inf", "nan"):
        bad = runner.invoke(app, ["transpile", str(path), "--memory-bound", value])
        assert bad.exit_code == 2 and "--memory-bound must be a number of MiB >= 0" in bad.output, value
    with pytest.raises(ValueError, match="memory_bound must be a number of MiB >= 0"):
        transpile_source(KNN, "m.py", memory_bound=-1.0)


def _pairs(header_i, header_j, value="np.sum(np.abs(X[i] - Y[j]))"):
    return f"""import numpy as np

def distances(X, Y):
    D = np.zeros((X.shape[0], Y.shape[0]))
    for i in range({header_i}):
        for j in range({header_j}):
            D[i, j] = {value}
    return D
"""


@pytest.mark.parametrize("header_j,rows", [
    ("1, Y.shape[0], 2", "len(range(1, Y.shape[0], 2)) * max(np.shape(X)[-1], np.shape(Y)[-1])"),
    ("2, Y.shape[0]", "(Y.shape[0] - 2) * max(np.shape(X)[-1], np.shape(Y)[-1])"),
    ("Y.shape[0]", "Y.shape[0] * max(np.shape(X)[-1], np.shape(Y)[-1])"),
])
def test_the_rows_of_a_strip_count_the_inner_trips_from_their_start_and_step(header_j, rows):
    source = _pairs("X.shape[0]", header_j)
    code = _rewrite(source, memory_bound=ONE_ROW)
    assert f"i_strip = max(1, 0 // max(1, {rows}))" in code
    rng = np.random.default_rng(3)
    _same(source, code, "distances", rng.standard_normal((5, 3)), rng.standard_normal((7, 3)))


def test_a_strip_loop_starts_where_the_range_does_and_a_stepped_range_is_whole():
    source = _pairs("1, X.shape[0]", "Y.shape[0]")
    code = _rewrite(source, memory_bound=ONE_ROW)
    assert "for i_lo in range(1, X.shape[0], i_strip):" in code
    rng = np.random.default_rng(4)
    _same(source, code, "distances", rng.standard_normal((5, 3)), rng.standard_normal((4, 3)))
    stepped = _rewrite(_pairs("0, X.shape[0], 2", "Y.shape[0]"), memory_bound=ONE_ROW)
    assert "_strip" not in stepped and "X[::2, np.newaxis]" in stepped


COLLECTED = """import numpy as np

def rows(X, Y):
    out = []
    for i in range(X.shape[0]):
        out.append(np.sum(np.abs(X[i] - Y), axis=1))
    return np.array(out)
"""
DIFFERENCES = """import numpy as np

def differences(X, Y):
    D = np.zeros((X.shape[0], Y.shape[0], X.shape[1]))
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            D[i, j] = np.abs(X[i] - Y[j])
    return D
"""


def test_no_strips_for_a_collector_or_an_output_as_large_as_the_value():
    """A list the loop appends to is not an array written by rows; an output of `n × m × dim`
    values is as large as the batched differences, which strips would not shrink."""
    assert "_strip" not in _rewrite(COLLECTED, memory_bound=ONE_ROW)
    code = _rewrite(DIFFERENCES, memory_bound=ONE_ROW, shapes={"X": 2, "Y": 2})
    assert "_strip" not in code and "X[:, np.newaxis] - Y" in code


def test_a_reduction_over_both_loops_adds_strip_by_strip():
    """`s += np.sum(|X[i] - Y[j]|)` over both loops holds n × m × dim values batched; in strips
    each strip's sum is added to the running value, as the loop adds row after row."""
    code = _rewrite(TOTAL, memory_bound=ONE_ROW)
    assert "for i_lo in range(0, X.shape[0], i_strip):" in code
    assert "s += np.sum(np.abs(X[i_lo:i_hi, np.newaxis] - Y))" in code
    rng = np.random.default_rng(3)
    for n, m, d in [(1, 1, 1), (7, 4, 3), (5, 6, 2)]:
        X, Y = rng.standard_normal((n, d)), rng.standard_normal((m, d))
        want, got = run_module(TOTAL)["total"](X, Y), run_module(code)["total"](X, Y)
        assert type(got) is type(want)
        np.testing.assert_allclose(got, want, rtol=1e-12)


PRODUCT = """import numpy as np

def product(X, Y):
    p = 1.0
    best = -np.inf
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            p *= np.prod(1.0 + 0.01 * X[i] * Y[j])
            best = np.maximum(best, np.max(X[i] * Y[j]))
    return p, best
"""


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8])
def test_products_and_maxima_in_strips_keep_the_loops_values_and_kinds(dtype):
    """Each strip multiplies its product into the running value (rounded otherwise than the
    loop's order, as the whole product is: an unsafe fix); a maximum strip by strip is exact;
    int8 and float32 values keep their kinds through the strips."""
    code = _rewrite(PRODUCT, memory_bound=ONE_ROW)
    assert "p *= np.prod(1.0 + (0.01 * X[i_lo:i_hi])[:, np.newaxis] * Y)" in code
    assert "best = np.maximum(best, np.max(X[i_lo:i_hi, np.newaxis] * Y))" in code
    assert "for i_lo in range(0, X.shape[0], i_strip):" in code
    rng = np.random.default_rng(4)
    X, Y = (rng.standard_normal((6, 3)) * 3).astype(dtype), (rng.standard_normal((5, 3)) * 3).astype(dtype)
    want, got = run_module(PRODUCT)["product"](X, Y), run_module(code)["product"](X, Y)
    for w, g in zip(want, got):
        assert type(g) is type(w)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6 if dtype == np.float32 else 1e-12)
    assert got[1] == want[1]
