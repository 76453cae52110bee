"""Masked sums as contractions: ``if tags[c] == g: totals[g, r] += mat[r, c]`` batched as
``np.einsum("ac,bc->ab", tags == g, mat)`` (the one-hot matrix product), not as
``np.sum(np.where(test, terms, 0))`` over every axis of the test and the terms. Each rewrite
must be the einsum (asserted first), and compute what the loop computes on inputs that pass
the checks in front and on inputs that fail them (infinities, NaNs, ints, lists)."""

from __future__ import annotations

import textwrap
import warnings

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

GROUP_SUMS = """
import numpy as np

def group_sums(tags, mat, n_groups):
    n = mat.shape[0]
    totals = np.zeros((n_groups, n))
    for grp in range(n_groups):
        for row in range(n):
            for col in range(mat.shape[1]):
                if tags[col] == grp:
                    totals[grp, row] {op}= mat[row, col]
    return totals
"""

ROW_SUMS = """
import numpy as np

def row_sums(points, labels, k):
    out = np.zeros((k, points.shape[1]))
    for g in range(k):
        s = np.zeros(points.shape[1])
        for i in range(points.shape[0]):
            if labels[i] == g:
                s = s + points[i]
        out[g] = s
    return out
"""

def _grouped(name: str, params: str, test: str, term: str = "mat[row, col]") -> str:
    """A group sum over rows and columns: ``totals[grp, row] += term`` where ``test`` holds."""
    return textwrap.dedent(f"""
        import numpy as np

        def {name}({params}):
            totals = np.zeros((n_groups, mat.shape[0]))
            for grp in range(n_groups):
                for row in range(mat.shape[0]):
                    for col in range(mat.shape[1]):
                        if {test}:
                            totals[grp, row] += {term}
            return totals
        """)


BOTH_TESTS = _grouped("weighted_groups", "tags, w, mat, n_groups", "tags[col] == grp and w[col] > 0")

SCALED_TERMS = _grouped("scaled", "tags, mat, n_groups", "tags[col] == grp", "2.0 * mat[row, col]")


def _rewrite(source: str) -> str:
    result = transpile_source(textwrap.dedent(source), "masked.py", backend="direct")
    assert result.code != result.source, "the loop was not rewritten"
    return result.code


def _same(loop, rewrite, name, *args) -> None:
    """``name`` of the loop and of the rewrite give the same values (to the last bits a
    reassociated sum may change) or raise the same error, on copies of ``args``."""
    outs = []
    for module in (loop, rewrite):
        try:
            outs.append(module[name](*(a.copy() if isinstance(a, np.ndarray) else a for a in args)))
        except Exception as error:  # noqa: BLE001 - the kind of error is compared
            outs.append(type(error))
    if isinstance(outs[0], type) or isinstance(outs[1], type):
        assert outs[0] == outs[1]
        return
    assert outs[0].shape == outs[1].shape and outs[0].dtype == outs[1].dtype
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6 if outs[0].dtype == np.float32 else 1e-12,
                               atol=1e-12, equal_nan=True)


def _inputs(rng, n_groups, rows, cols, tagged=None):
    """Arrays of ``rows`` x ``cols`` values of each kind, and ``tagged`` tags (one per
    column by default) of each kind."""
    tagged = cols if tagged is None else tagged
    mats = {
        "float64": rng.standard_normal((rows, cols)),
        "float32": rng.standard_normal((rows, cols)).astype(np.float32),
        "complex": rng.standard_normal((rows, cols)) + 1j * rng.standard_normal((rows, cols)),
        "ints": rng.integers(-5, 5, (rows, cols)),
    }
    with_inf = rng.standard_normal((rows, cols))
    with_inf[0, -1] = np.inf
    with_nan = rng.standard_normal((rows, cols))
    with_nan[-1, 0] = np.nan
    # (finite values whose sum overflows fail the check too: the loop runs)
    mats.update({"inf": with_inf, "nan": with_nan, "huge": np.full((rows, cols), 1e308)})
    tags = {
        "ints": rng.integers(0, n_groups, tagged),
        "floats": rng.integers(0, n_groups, tagged).astype(float) + np.where(rng.random(tagged) < 0.2, 0.5, 0.0),
        "out of range": rng.integers(-2, n_groups + 2, tagged),
        "list": [int(t) for t in rng.integers(0, n_groups, tagged)],
    }
    return mats, tags


@pytest.mark.parametrize("op", ["+", "-"])
def test_group_sums_are_a_one_hot_product(op):
    source = GROUP_SUMS.format(op=op)
    code = _rewrite(source)
    assert 'np.einsum("ac,bc->ab"' in code or "np.einsum('ac,bc->ab'" in code, code
    assert "np.where" not in code and "np.isfinite(np.sum(mat))" in code
    loop, rewrite = run_module(textwrap.dedent(source)), run_module(code)
    rng = np.random.default_rng(0)
    for n_groups, cols in ((1, 1), (3, 7), (5, 12)):
        mats, tags = _inputs(rng, n_groups, cols, cols)
        for mat in mats.values():
            for tag in tags.values():
                _same(loop, rewrite, "group_sums", tag, mat, n_groups)
    # no group, and a tag array shorter than a row (the loop raises IndexError)
    _same(loop, rewrite, "group_sums", np.zeros(3), np.ones((3, 3)), 0)
    _same(loop, rewrite, "group_sums", np.zeros(2), np.ones((3, 3)), 2)


def test_rows_summed_by_group_are_a_one_hot_product():
    code = _rewrite(ROW_SUMS)
    assert "np.einsum" in code and "np.where" not in code, code
    loop, rewrite = run_module(textwrap.dedent(ROW_SUMS)), run_module(code)
    rng = np.random.default_rng(1)
    for k, n, d in ((1, 1, 1), (3, 10, 4), (4, 9, 2)):
        mats, tags = _inputs(rng, k, n, d, tagged=n)
        for points in mats.values():
            for labels in tags.values():
                _same(loop, rewrite, "row_sums", points, labels, k)


def test_a_conjunction_of_tests_is_one_mask_of_the_contraction():
    code = _rewrite(BOTH_TESTS)
    assert "np.einsum" in code and "np.where" not in code, code
    loop, rewrite = run_module(textwrap.dedent(BOTH_TESTS)), run_module(code)
    rng = np.random.default_rng(2)
    for n_groups, rows, cols in ((2, 3, 5), (4, 6, 11)):
        mats, tags = _inputs(rng, n_groups, rows, cols)
        w = rng.standard_normal(cols)
        for mat in mats.values():
            for tag in tags.values():
                _same(loop, rewrite, "weighted_groups", tag, w, mat, n_groups)


def test_terms_computed_in_the_loop_keep_the_where():
    # `2.0 * mat[r, c]` may overflow to inf where `mat` is finite: 0 * inf is nan, where the
    # loop skips the term, so only elements read as they are are contracted
    code = _rewrite(SCALED_TERMS)
    assert "np.einsum" not in code and "np.where" in code, code
    loop, rewrite = run_module(textwrap.dedent(SCALED_TERMS)), run_module(code)
    mat = np.array([[1e308, 1.0], [2.0, 3.0]])
    _same(loop, rewrite, "scaled", np.array([0, 1]), mat, 2)


SELECTED_ROWS = """
import numpy as np

def centres(points, labels, k):
    out = []
    for c in range(k):
        members = {select}
        out.append(members.{how}(axis=0))
    return np.stack(out)
"""


@pytest.mark.parametrize("select", ["np.compress(labels == c, points, axis=0)", "points[labels == c]"])
@pytest.mark.parametrize("how", ["mean", "sum"])
def test_rows_selected_per_iteration_are_a_one_hot_product(select, how):
    source = SELECTED_ROWS.format(select=select, how=how)
    code = _rewrite(source)
    assert "np.einsum" in code and "np.where" not in code and "np.isfinite(np.sum(points))" in code, code
    assert ("/ np.sum(selected, axis=-1, dtype=points.dtype)" in code) == (how == "mean"), code
    loop, rewrite = run_module(textwrap.dedent(source)), run_module(code)
    rng = np.random.default_rng(3)
    for k, n, d in ((1, 1, 1), (3, 10, 4), (5, 8, 2)):
        mats, tags = _inputs(rng, k, n, d, tagged=n)
        mats["rank 3"] = rng.standard_normal((n, d, 2))
        for points in mats.values():
            for labels in tags.values():
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # (the mean of an empty group warns, and is nan)
                    _same(loop, rewrite, "centres", points, labels, k)


# A summed loop axis that only one operand has: `np.einsum(..., optimize=True)` (NumPy 2's
# `bmm_einsum`) sums it out of that operand alone, in its own dtype, before `dtype` applies.
# A test's axis summed so is an `or`, not a count; float32 terms' axis is summed in float32.
COUNTED_TWICE = """
import numpy as np

def at_least(X, labels, k):
    s = np.zeros(X.shape[1])
    for g in range(k):
        for i in range(X.shape[0]):
            if labels[i] >= g:
                s = s + X[i]
    return s
"""

COUNTED_TWICE_WRITE = """
import numpy as np

def at_least(mat, tags, k):
    totals = np.zeros(mat.shape[0])
    for r in range(mat.shape[0]):
        for g in range(k):
            for c in range(mat.shape[1]):
                if tags[c] >= g:
                    totals[r] += mat[r, c]
    return totals
"""

TEST_OF_THE_GROUP = _grouped("kept", "w, mat, n_groups", "w[grp] > 0")

ROWS_OF_A_GROUP = """
import numpy as np

def row_groups(tags, mat, n_groups):
    totals = np.zeros(n_groups)
    for grp in range(n_groups):
        for row in range(mat.shape[0]):
            for col in range(mat.shape[1]):
                if tags[row] == grp:
                    totals[grp] += mat[row, col]
    return totals
"""


@pytest.mark.parametrize("source, name", [(COUNTED_TWICE, "at_least"), (COUNTED_TWICE_WRITE, "at_least")])
def test_a_test_summed_along_an_axis_the_terms_lack_counts_each_pass(source, name):
    # labels [5, 5] pass `>= g` for g in 0, 1, 2: each row is added three times, where the
    # einsum's `or` of the test along `g` added it once
    code = transpile_source(textwrap.dedent(source), "masked.py", backend="direct").code
    loop, rewrite = run_module(textwrap.dedent(source)), run_module(code)
    _same(loop, rewrite, name, np.ones((2, 3)), np.array([5, 5, 5]), 3)
    _same(loop, rewrite, name, np.ones((3, 3)), np.array([0, 1, 2]), 3)


@pytest.mark.parametrize("source, name, first", [(TEST_OF_THE_GROUP, "kept", np.array([1.0])),
                                                 (ROWS_OF_A_GROUP, "row_groups", np.array([0, 0]))])
def test_terms_summed_along_an_axis_the_test_lacks_keep_the_totals_dtype(source, name, first):
    # float32 terms into float64 totals: the loop sums 1e8 + 1 - 1e8 in float64 (1.0); the
    # einsum summed the terms' own axis in float32 first (0.0)
    code = transpile_source(textwrap.dedent(source), "masked.py", backend="direct").code
    loop, rewrite = run_module(textwrap.dedent(source)), run_module(code)
    mat = np.array([[1e8, 1.0, -1e8], [1e8, 1.0, -1e8]], dtype=np.float32)
    _same(loop, rewrite, name, first, mat, 1)
    assert np.all(rewrite[name](first, mat, 1) != 0.0)


def _group_sums(test: str, term: str = "mat[row, col]") -> str:
    return textwrap.dedent(GROUP_SUMS.format(op="+")).replace("if tags[col] == grp:", f"if {test}:").replace(
        "mat[row, col]", term)


@pytest.mark.parametrize("test, mask", [
    ("tags[col] == grp", "np.asarray(tags)[np.newaxis, :mat.shape[1]] == grp[:, np.newaxis]"),
    # the batched `and`, `or` and `not` are NumPy's logical functions: squeezed operand by
    # operand (a `-1` beside them is a number)
    ("tags[col] == grp and tags[col] > -1", "np.logical_and(tags_part == grp[:, np.newaxis], tags_part > -1)"),
    ("not tags[col] != grp", "np.logical_not(np.asarray(tags)[np.newaxis, :mat.shape[1]] != grp[:, np.newaxis])"),
    ("tags[col] == grp or tags[col] == grp + 1", "np.logical_or(tags_part == grp[:, np.newaxis], "
                                                "tags_part == (grp + 1)[:, np.newaxis])"),
    # nested: a `not` inside an `and`, a `not` compared, a sign on each side
    ("not tags[col] != grp and tags[col] > -1", "np.logical_and(np.logical_not(tags_part != grp[:, np.newaxis]), "
                                               "tags_part > -1)"),
    ("(tags[col] == grp) == (not tags[col] < 0)", "(tags_part == grp[:, np.newaxis]) == np.logical_not(tags_part < 0)"),
    ("-tags[col] == -grp", "-np.asarray(tags)[np.newaxis, :mat.shape[1]] == (-grp)[:, np.newaxis]"),
])
def test_the_test_is_squeezed_to_its_own_axes(test, mask):
    """Each operand of the test keeps only the loop axes it varies along, so the einsum reads
    a `[groups, n]` test beside `[rows, n]` terms (no size-1 axes for it to broadcast); every
    form sums through BLAS (`optimize=True`) in the running value's dtype."""
    source = _group_sums(test)
    code = _rewrite(source)
    # (`mat.shape[1]` bound once where it is read often enough)
    # (`mat.shape[1]` bound once where it is read often enough, and the test's operand read
    # twice: `tags_part = np.asarray(tags)[np.newaxis, :mat.shape[1]]`, with its two axes)
    assert f"np.einsum('ac,bc->ab', {mask}" in code.replace("mat_dim1 = mat.shape[1]", "").replace(
        "mat_dim1", "mat.shape[1]"), code
    assert "tags_part" not in code or "tags_part = np.asarray(tags)[np.newaxis, :" in code, code
    # (every column of `mat`: read whole)
    assert "mat, optimize=True, dtype=np.result_type(totals, mat))" in code, code
    loop, rewrite = run_module(source), run_module(code)
    rng = np.random.default_rng(4)
    mats, tags = _inputs(rng, 3, 5, 7)
    for tag in tags.values():
        _same(loop, rewrite, "group_sums", tag, mats["float64"], 3)


def test_a_test_of_an_outer_loop_is_lifted_to_the_terms_depth():
    # `if w[grp] > 0:` around the inner loops: the test has the group axis only
    source = textwrap.dedent("""
        import numpy as np

        def outer_test(w, mat, tags, n_groups):
            totals = np.zeros((n_groups, mat.shape[0]))
            for grp in range(n_groups):
                if w[grp] > 0:
                    for row in range(mat.shape[0]):
                        for col in range(mat.shape[1]):
                            if tags[col] == grp:
                                totals[grp, row] += mat[row, col]
            return totals
        """)
    code = _rewrite(source)
    assert "np.einsum('ac,bc->ab', np.logical_and(" in code, code
    loop, rewrite = run_module(source), run_module(code)
    rng = np.random.default_rng(5)
    mats, tags = _inputs(rng, 4, 3, 6)
    for w in (rng.standard_normal(4), np.ones(4), -np.ones(4)):
        for tag in tags.values():
            _same(loop, rewrite, "outer_test", w, mats["float64"], tag, 4)


def test_a_test_with_no_axis_the_terms_lack_keeps_the_where():
    # `if mat[0, col] > 0` varies along `col` only, which the terms have too: the `where` is no
    # larger than the terms, and the contraction would save nothing
    code = _rewrite(_group_sums("tags[col] > 0 and grp < 100").replace("totals = np.zeros((n_groups, n))",
                                                                     "totals = np.zeros((n_groups, n))"))
    assert "np.einsum" in code  # (the group axis: contracted)
    code = _rewrite(textwrap.dedent("""
        import numpy as np

        def no_group(tags, mat):
            totals = np.zeros(mat.shape[0])
            for row in range(mat.shape[0]):
                for col in range(mat.shape[1]):
                    if tags[col] > 0:
                        totals[row] += mat[row, col]
            return totals
        """))
    assert "np.einsum" not in code and "np.where" in code, code


COLLECTED_ROW_SUMS = """
import numpy as np

def row_sums(points, labels, k):
    out = []
    for g in range(k):
        s = np.zeros(points.shape[1])
        for i in range(points.shape[0]):
            if labels[i] == g:
                s = s + points[i]
        out.append(s)
    return np.stack(out)
"""


def test_only_numpy_code_that_may_be_reassociated_is_contracted():
    source = _group_sums("tags[col] == grp")
    kept = transpile_source(source, "m.py", backend="direct", unsafe=False).code
    assert "np.einsum" not in kept, kept
    # NumPy code moved to TensorFlow (`--target tensorflow`): tf.experimental.numpy's einsum
    # takes no `optimize` or `dtype`, and nothing is checked in front; the `where` stays
    shapes = {"points": 2, "labels": 1, "k": 0}
    assert "np.einsum('ab,bn->an'" in transpile_source(COLLECTED_ROW_SUMS, "m.py", shapes=shapes).code
    moved = transpile_source(COLLECTED_ROW_SUMS, "m.py", target="tensorflow", shapes=shapes)
    assert moved.code != moved.source and "einsum" not in moved.code, moved.code


def test_the_plan_says_the_selected_rows_are_summed_in_another_order():
    # (a masked reduction's plan says the sum is reassociated already: "reassociates the sum")
    result = transpile_source(textwrap.dedent(SELECTED_ROWS.format(select="points[labels == c]", how="sum")), "m.py")
    assert "sums the terms `rows of points` that pass the test" in result.plans[0].unsafe, result.plans[0].unsafe


@pytest.mark.parametrize("how", ["sum", "mean"])
def test_rows_of_four_axes_are_contracted(how):
    source = textwrap.dedent(SELECTED_ROWS.format(select="points[labels == c]", how=how))
    result = transpile_source(source, "m.py", shapes={"points": 4, "labels": 1, "k": 0})
    assert "np.einsum('ak,klmn->alm" in result.code.replace("'ak,klmn->almn'", "'ak,klmn->alm") \
        or "np.einsum('ak,klmn->almn'" in result.code, result.code
    loop, rewrite = run_module(source), run_module(result.code)
    rng = np.random.default_rng(8)
    points = rng.standard_normal((7, 2, 3, 2))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(loop, rewrite, "centres", points, rng.integers(0, 3, 7), 3)


def test_a_test_with_an_operand_that_cannot_be_squeezed_broadcasts_whole():
    # `mat[0, col]` under the test is read where it is reached (a guarded read): that operand
    # keeps every loop axis, and so does the test; einsum broadcasts its size-1 axes
    source = _group_sums("tags[col] == grp and mat[0, col] > -5")
    code = _rewrite(source)
    assert "np.einsum('abc,bc->ab', np.logical_and(" in code, code
    loop, rewrite = run_module(source), run_module(code)
    rng = np.random.default_rng(9)
    mats, tags = _inputs(rng, 3, 4, 6)
    for tag in tags.values():
        _same(loop, rewrite, "group_sums", tag, mats["float64"] * 4, 3)


def test_rows_of_five_axes_keep_the_where():
    # (four letters name the data's axes: rows of five axes stay `np.mean(np.where(...))`)
    source = textwrap.dedent(SELECTED_ROWS.format(select="points[labels == c]", how="sum"))
    result = transpile_source(source, "m.py", shapes={"points": 5, "labels": 1, "k": 0})
    assert result.code != source and "np.einsum" not in result.code, result.code
    loop, rewrite = run_module(source), run_module(result.code)
    rng = np.random.default_rng(10)
    _same(loop, rewrite, "centres", rng.standard_normal((5, 2, 1, 2, 2)), rng.integers(0, 2, 5), 2)


def test_the_plan_weighs_the_one_hot_product_against_the_where():
    """`pforge explain` says what the contraction holds at once (the test and the result)
    against the `where` of the test and the terms, in the source's sizes."""
    group = transpile_source(textwrap.dedent(GROUP_SUMS.format(op="+")), "m.py", backend="direct").plans[0]
    assert group.rewritten and group.choices == (
        "`mat[row, col]` summed where the test holds, as np.einsum('ac,bc->ab') of the test (0 or 1) and the "
        "terms: holds the test, `n_groups` × `mat.shape[1]` values, and the result, where the `where` of the "
        "two would hold `n_groups` × `n` × `mat.shape[1]`",)
    rows = transpile_source(textwrap.dedent(SELECTED_ROWS.format(select="points[labels == c]", how="mean")),
                            "m.py", backend="direct").plans[0]
    assert rows.rewritten and rows.choices == (
        "the mean of the rows of `points` the test selects, as np.einsum('ak,kl->al') of the test (0 or 1) and "
        "`points`: holds the test, `k` × `points.shape[0]` values, and the result, where the `where` of the two "
        "would hold `k` × `points.shape[0]` × `points.shape[1]`",)
