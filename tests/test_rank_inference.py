"""Ranks inferred from the code of NumPy functions with nothing declared, and the rewrites that
rely on them: proven ranks used as they are, suggested ones checked at run time."""

from __future__ import annotations

import itertools
import re
import textwrap

import gast
import numpy as np
import pytest

from conftest import assert_exit, invoke, write
from pforge.runtime.targets import RANK_CHECKED, instrument_rank_checks
from pforge.transpile import ranks, transpile_source
from pforge.transpile.outline import module_context
from pforge.transpile.frontend import decode_source
from pforge.transpile.rank_inference import infer_ranks

#: the check that `w`, which the code does not show to be an array, is one or a flat list of numbers
FLAT_W = ("(type(w) is np.ndarray or isinstance(w, (int, float, complex, np.number)) or (isinstance(w, (list, tuple)) "
          "and all((type(v) is int or isinstance(v, float) for v in w)))) and ")


def _guess(source: str, name: str = "f"):
    source = textwrap.dedent(source)
    ctx = module_context(decode_source(source, "m.py"))
    fdef = next(n for n in ctx.tree.body if isinstance(n, gast.FunctionDef) and n.name == name)
    return infer_ranks(ctx, fdef, ranks.parameter_shapes(ctx, fdef, None))


def _run(code: str, *args, name: str = "f"):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace[name](*args)


# -- facts: what pins a rank -----------------------------------------------------------------

@pytest.mark.parametrize("body, want", [
    # a Python `if` takes one truth value: what it tests is a scalar
    ("if x[i] > c:\n            out[i] = 1.0", {"x": 1, "c": 0}),
    # a value stored into an element of a rank-1 buffer is a scalar
    ("out[i] = x[i] * y[i]", {"x": 1, "y": 1}),
    # float(), min() and math.* take scalars
    ("out[i] = float(x[i])", {"x": 1}),
    ("out[i] = min(x[i], c)", {"x": 1, "c": 0}),
    ("out[i] = math.sqrt(x[i])", {"x": 1}),
    # an index into a rank-1 value that gives a scalar is a scalar
    ("out[i] = x[p[i]]", {"x": 1, "p": 1}),
], ids=["if-test", "stored-scalar", "float", "builtin-min", "math", "index"])
def test_a_rank_the_code_pins_is_proven(body, want):
    guess = _guess("import math\nimport numpy as np\n\n\ndef f(x, y, c, p, n):\n    out = np.zeros(n)\n"
                   f"    for i in range(n):\n        {body}\n    return out\n")
    assert guess.ranks == want and guess.assumed == {}


def test_a_rank_the_code_only_suggests_is_assumed():
    """`np.sum(xs[a] * ys[b])`: summing a scalar is not written, so rows; nothing pins it."""
    guess = _guess("""
        import numpy as np

        def f(xs, ys):
            out = np.empty((xs.shape[0], ys.shape[0]))
            for a in range(xs.shape[0]):
                for b in range(ys.shape[0]):
                    out[a, b] = np.sum(xs[a] * ys[b])
            return out
        """)
    assert guess.ranks == guess.assumed == {"xs": 2, "ys": 2}
    assert guess.evidence["xs"].startswith("line 5: ")


@pytest.mark.parametrize("source, want", [
    # `.shape[2]` needs three axes; `np.dot` of the two rows then has the output's two
    ("def f(a, b):\n    out = np.empty((a.shape[0], a.shape[1], b.shape[2]))\n"
     "    for k in range(a.shape[0]):\n        out[k] = np.dot(a[k], b[k])\n    return out\n",
     {"a": 3, "b": 3}),
    # `axis=0` is not given for a vector
    ("def f(p, labels, k):\n    c = []\n    for j in range(k):\n"
     "        c.append(np.compress(labels == j, p, axis=0).mean(axis=0))\n    return np.stack(c)\n",
     {"p": 2, "labels": 1}),
    # a value added to a column of a matrix is a column, not a scalar
    ("def f(m, v):\n    for j in range(m.shape[1]):\n        m[:, j] += v\n    return m\n",
     {"m": 2, "v": 1}),
], ids=["dot-into-buffer", "axis-keyword", "column-update"])
def test_the_fewest_axes_that_explain_the_code(source, want):
    assert _guess("import numpy as np\n\n" + source).ranks == want


def test_a_tuple_shape_comparison_is_one_bool():
    """`x.shape != (4, 3)` compares tuples: not a rank-1 comparison the `if` would reject."""
    guess = _guess("""
        import numpy as np

        def f(x):
            if x.shape != (4, 3):
                raise TypeError("no")
            out = np.zeros_like(x)
            for i in range(x.shape[0]):
                out[i] = x[i] * 0.5
            return out
        """)
    assert guess is not None and guess.ranks == {"x": 1}


def test_declared_ranks_are_not_inferred():
    guess = _guess('''
        import numpy as np

        def f(x, w):
            """Args:
              x: float [n, d].
            """
            out = np.zeros_like(x)
            for i in range(x.shape[0]):
                out[i] = x[i] * w
            return out
        ''')
    assert "x" not in guess.ranks and guess.ranks == {"w": 0}


# -- rewrites under a run-time rank check ---------------------------------------------------

SCALE = """\
import numpy as np


def f(x, w):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.tanh(x[i] * w)
    return out
"""


def test_suggested_ranks_are_checked_and_widened_to_those_with_the_same_code():
    """`x * w` is the batched code for x of any rank from 1, w a scalar or a row: the check
    accepts each such pair (x raised past its neighbour while the code stays the same, every
    pair of the box checked), and the loop runs for other ranks."""
    result = transpile_source(SCALE, "m.py")
    assert result.plans[0].rewritten
    assert ("    # pforge: vectorized loop (was lines 6-7: map over x, indexed output out) with "
            "batched ops, where its run-time checks hold\n"
            "    if " + FLAT_W + "np.ndim(w) <= 1 and type(x) is np.ndarray and 1 <= x.ndim <= 6 and x.shape[0] > 0:\n"
            "        out[...] = np.tanh(x * w)\n"
            "    else:\n"
            "        for i in range(x.shape[0]):\n"
            "            out[i] = np.tanh(x[i] * w)\n") in result.code
    assert "checked at run time: `w` a scalar or 1-D (line 7: `w`), `x` 1-D to 6-D" in result.plans[0].backend_note
    checked = instrument_rank_checks(result.code)
    rng = np.random.default_rng(0)
    for x, w, held in [(rng.random(5), 2.0, True), (rng.random((4, 3)), rng.random(3), True),
                       (rng.random((4, 3)), 0.5, True), (rng.random((2, 3, 4)), rng.random(4), True),
                       (rng.random((2, 3, 4)), rng.random((3, 4)), False)]:
        namespace: dict = {}
        exec(compile(checked, "<code>", "exec"), namespace)
        np.testing.assert_allclose(namespace["f"](x, w), _run(SCALE, x, w))
        assert namespace["_PFORGE_CHECKS_HELD"] == [held]


def test_a_checked_rewrite_takes_python_lists():
    """Nothing shows `xs` is an array: the batched code converts it, the check accepts a list."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(xs, ys):
            out = np.zeros(len(xs))
            for k in range(len(xs)):
                if xs[k] < 0:
                    out[k] = ys[k]
            return out
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "np.asarray(xs)" in result.code
    for xs, ys in [([-1.0, 2.0, -3.0], [4.0, 5.0, 6.0]), (np.array([1.0, -2.0]), np.array([3.0, 4.0]))]:
        np.testing.assert_array_equal(_run(result.code, xs, ys), _run(source, xs, ys))


def test_checked_output_is_not_rewritten_or_reported_again(tmp_path):
    """Idempotence: the batched branch and the loop kept under `else:` are pforge's own."""
    first = transpile_source(SCALE, "m.py").code
    again = transpile_source(first, "m.py")
    assert again.code == first and not again.plans
    path = write(tmp_path, "m.py", first)
    assert_exit(invoke("check", path), 0)


def test_a_loop_holding_a_string_over_several_lines_is_not_copied():
    """The guarded copy indents the loop's text, which would change such a string: left as it
    is, saying why."""
    source = textwrap.dedent('''\
        import numpy as np


        def f(xs, ys):
            out = np.zeros((xs.shape[0], ys.shape[0]))
            for a in range(xs.shape[0]):
                for b in range(ys.shape[0]):
                    """The dot product
                    of two rows."""
                    out[a, b] = np.sum(xs[a] * ys[b])
            return out
        ''')
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert "a string over several lines" in result.plans[0].remarks[0].message


def test_the_remark_names_what_inferred_ranks_did_not_fix():
    result = transpile_source(textwrap.dedent("""\
        import numpy as np


        def f(x):
            total = 0.0
            for row in x:
                total += np.sum(np.gradient(row))
            return total
        """), "m.py")
    assert "no batching rule for `numpy.gradient` (with the ranks inferred from the code: `x` 1-D)" \
           in " ".join(r.message for r in result.plans[0].remarks)


def test_an_index_of_unknown_rank_before_a_slice_is_no_crash():
    """`x[k[i], 1:3]`: the rank `k[i]` adds is unknown, and the slice after it keeps one axis."""
    guess = _guess("""
        import numpy as np

        def f(x, k, n):
            out = np.zeros((n, 2))
            for i in range(n):
                out[i] = x[g(k)[i], 1:3]
            return out
        """)
    assert guess is None or "x" in guess.ranks


def test_a_reduction_suggests_arrays_through_elementwise_calls():
    """`np.sum(np.square(X[i] - R[j]))`: the difference of two rows, not of two scalars."""
    guess = _guess("""
        import numpy as np

        def f(X, R):
            D = np.zeros((X.shape[0], R.shape[0]))
            for i in range(X.shape[0]):
                for j in range(R.shape[0]):
                    D[i, j] = np.sqrt(np.sum(np.square(X[i] - R[j])))
            return D
        """)
    assert guess.ranks == {"X": 2, "R": 2}


SOFTMAX_LOSS = """\
import numpy as np


def f(W, X, y):
    S = X.dot(W)
    E = np.exp(S - np.max(S, axis=1, keepdims=True))
    P = E / np.sum(E, axis=1, keepdims=True)
    total = 0.0
    for i in range(X.shape[0]):
        total -= np.log(P[i, y[i]])
    return total
"""


def test_locals_get_the_ranks_their_values_have():
    """`P` comes from `X.dot(W)` through keepdims reductions: rank 2, so `P[i, y[i]]` is a
    scalar; the direct backend, which cannot trace `X.dot(W)` itself, is told."""
    result = transpile_source(SOFTMAX_LOSS, "m.py", unsafe=True)
    assert result.plans[0].rewritten, result.plans[0].remarks
    rng = np.random.default_rng(0)
    W, X, y = rng.standard_normal((4, 3)), rng.standard_normal((6, 4)), rng.integers(0, 3, 6)
    assert _run(result.code, W, X, y) == pytest.approx(_run(SOFTMAX_LOSS, W, X, y))


# -- facts from the rest of the module and from every binding ----------------------------------

def _rewritten_and_equal(source, inputs, name="f"):
    """Transpiles ``source`` with no flags, asserts the loop was rewritten and its run-time checks
    held, and compares the result with the loop's on each set of ``inputs``."""
    source = textwrap.dedent(source)
    result = transpile_source(source, "m.py")
    assert result.plans and result.plans[0].rewritten, [p.remarks for p in result.plans]
    code = instrument_rank_checks(result.code)
    for args in inputs:
        namespace: dict = {}
        exec(compile(code, "<code>", "exec"), namespace)
        got = namespace[name](*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
        held = namespace.get("_PFORGE_CHECKS_HELD", [])
        assert all(held) and (held or RANK_CHECKED not in code), "the run-time checks failed: the loop ran"
        want = _run(source, *[np.copy(a) if isinstance(a, np.ndarray) else a for a in args], name=name)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    return result


def test_a_module_constant_computed_from_others_has_their_rank():
    """`ox = size / 2` with `size = N + 2` at module level: a scalar (from_python_to_numpy)."""
    result = _rewritten_and_equal("""
        import numpy as np

        N = 6
        size = N + 2
        force = 5.0

        def f(u):
            ox, oy = size / 2, size / 2
            for j in range(1, N + 1):
                for i in range(1, N + 1):
                    d = np.sqrt((i - ox) ** 2 + (j - oy) ** 2)
                    u[i, j] = (i - ox) / max(d, 1) * force
            return u
        """, [(np.zeros((8, 8)),)])
    assert "for j in range" in result.code  # the loop is kept for where the checks fail


def test_a_module_name_bound_twice_has_no_rank():
    source = textwrap.dedent("""
        import numpy as np

        scale = 2.0
        scale = np.ones(3)

        def f(x, n):
            s = scale
            out = np.zeros(n)
            for i in range(n):
                out[i] = x[i] * s
            return out
        """)
    ctx = module_context(decode_source(source, "m.py"))
    fdef = next(n for n in ctx.tree.body if isinstance(n, gast.FunctionDef))
    from pforge.transpile.rank_inference import local_ranks
    assert "s" not in local_ranks(ctx, fdef, {}, {"x": 1, "n": 0})


def test_a_helper_returns_the_rank_its_body_computes():
    """`c = from_mel(...)` of a vector is a vector, so `c[m]` is a scalar."""
    source = textwrap.dedent("""
        import numpy as np

        def from_mel(b):
            return 700.0 * (np.exp(b / 1125.0) - 1)

        def f(n):
            c = from_mel(np.arange(n + 1))
            out = np.zeros(n)
            for m in range(n):
                out[m] = c[m + 1] - c[m]
            return out
        """)
    ctx = module_context(decode_source(source, "m.py"))
    fdef = next(n for n in ctx.tree.body if isinstance(n, gast.FunctionDef) and n.name == "f")
    from pforge.transpile.rank_inference import local_ranks
    assert local_ranks(ctx, fdef, {}, {"n": 0})["c"] == 1
    _rewritten_and_equal(source, [(5,), (1,)])


def test_a_local_bound_twice_with_one_rank_keeps_it():
    """`kern = np.diag(...); kern /= size` (gasyori100knock's motion filter)."""
    _rewritten_and_equal("""
        import numpy as np

        def f(picture, size):
            h, w = picture.shape
            kern = np.diag([1] * size).astype(float)
            kern /= size
            source = np.pad(picture.astype(float), size)
            out = np.zeros((h, w))
            for y in range(h):
                for x in range(w):
                    out[y, x] = np.sum(kern * source[y:y + size, x:x + size])
            return out
        """, [(np.arange(30.0).reshape(5, 6), 3)])


def test_a_local_whose_rank_changes_around_a_loop_has_none():
    """`b = a` then `a = row` in the same loop: `b` is a scalar only on the first iteration."""
    source = textwrap.dedent("""
        import numpy as np

        def f(x, n):
            a = 0.0
            for i in range(n):
                b = a
                a = x[i]
            return b
        """)
    ctx = module_context(decode_source(source, "m.py"))
    fdef = ctx.tree.body[1]
    from pforge.transpile.rank_inference import local_ranks
    found = local_ranks(ctx, fdef, {}, {"x": 2, "n": 0})
    assert "b" not in found and "a" not in found


def test_a_rebound_parameter_keeps_its_rank():
    """`if size % 2 == 0: size = size + 1` (TheAlgorithms' Gabor kernel): still a scalar, so
    `x - size // 2` batches; `np.pi` is a number."""
    guess = _guess("""
        import numpy as np

        def f(size, angle):
            if size % 2 == 0:
                size = size + 1
            kernel = np.zeros((size, size))
            for y in range(size):
                for x in range(size):
                    rad = angle / 180 * np.pi
                    kernel[y, x] = np.cos(rad) * (x - size // 2) + y
            return kernel
        """)
    assert guess.ranks["size"] == 0 and "size" not in guess.assumed


def test_a_parameter_rebound_to_another_rank_is_left_out():
    """`picture = np.expand_dims(picture, -1)` changes its rank: the others are still inferred."""
    guess = _guess("""
        import numpy as np

        def f(picture, size):
            if picture.ndim == 2:
                picture = np.expand_dims(picture, axis=-1)
            h, w, ch = picture.shape
            out = np.zeros((h, w, ch))
            for y in range(h):
                out[y] = picture[y] * size
            return out
        """)
    assert guess is not None and "picture" not in guess.ranks and guess.ranks["size"] == 0


LINUCB = """
import numpy as np

def f(mats, vecs, n_arms):
    scores = []
    for k in range(n_arms):
        M_inv = np.linalg.inv(mats[k])
        scores.append(M_inv @ vecs[k] @ vecs[k] + np.sum(mats[k] * 2))
    out = np.array(scores)
    return np.argmax(out), out
"""


def test_a_list_of_arrays_read_only_batches_as_their_stack():
    """`mats = [M1, M2, ...]` (numpy-ml's LinUCB): rows that are arrays batch as an array's rows
    do; a list of lists (whose rows `* 2` would repeat) or of arrays of different shapes runs
    the loop."""
    result = transpile_source(textwrap.dedent(LINUCB), "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    code = instrument_rank_checks(result.code)
    rng = np.random.default_rng(5)
    mats = [np.eye(3) + 0.1 * rng.standard_normal((3, 3)) for _ in range(4)]
    vecs = [rng.standard_normal(3) for _ in range(4)]
    for args, batched in (((mats, vecs, 4), True), ((np.stack(mats), np.stack(vecs), 4), True),
                          (([m.tolist() for m in mats], vecs, 4), False),
                          ((mats[:3] + [np.eye(2)], vecs, 3), False)):
        namespace: dict = {}
        exec(compile(code, "<code>", "exec"), namespace)
        got = namespace["f"](*args)
        assert all(namespace["_PFORGE_CHECKS_HELD"]) == batched
        want = _run(textwrap.dedent(LINUCB), *args)
        assert got[0] == want[0]
        np.testing.assert_allclose(got[1], want[1], rtol=1e-10)


BANDS = """
import numpy as np

def f(edges, centres, grid):
    resp = np.zeros((len(grid), len(centres)))
    for b, (edge, centre) in enumerate(zip(edges, centres)):
        rise = np.logical_and(edge[0] <= grid, grid < centre)
        resp[rise, b] = 0.5 * (1 + np.cos(2 * np.pi * grid[rise] / centre))
    return resp

def g(edges, grid):
    out = np.zeros(len(edges))
    for i in range(len(edges)):
        out[i] = edges[i][0] * 2 + np.sum(grid)
    return out

def h(edges, grid):
    out = np.zeros((len(edges), 2))
    for i in range(len(edges)):
        out[i] = edges[i] * 2
    return out
"""


def test_a_list_of_lists_whose_numbers_the_loop_reads_one_at_a_time():
    """`edges = [[lo, hi], ...]` read as `edge[0]` (pyroomacoustics' band edges): the list of
    lists gives the loop's numbers through `np.asarray`; where a row itself is used
    (`edges[i] * 2` repeats a list), only an array or a list of arrays is taken."""
    source = textwrap.dedent(BANDS)
    result = transpile_source(source, "m.py")
    assert all(p.rewritten for p in result.plans), [r.message for p in result.plans for r in p.remarks]
    code = instrument_rank_checks(result.code)
    grid = np.linspace(0.0, 4.0, 9)
    edges = [[0.5, 2.0], [1.0, 3.0], [2.0, 4.0]]
    for name, args in (("f", (edges, [1.0, 2.0, 3.0], grid)), ("g", (edges, grid)), ("h", (np.array(edges), grid))):
        namespace: dict = {}
        exec(compile(code, "<code>", "exec"), namespace)
        got = namespace[name](*args)
        assert all(namespace["_PFORGE_CHECKS_HELD"]), name
        np.testing.assert_allclose(got, _run(source, *args, name=name), rtol=1e-12)
    namespace = {}
    exec(compile(code, "<code>", "exec"), namespace)
    with pytest.raises(ValueError):  # the loop's `[a, b] * 2` has four numbers: the loop ran
        namespace["h"](edges, grid)
    assert namespace["_PFORGE_CHECKS_HELD"] == [False]


def test_a_straight_line_helper_binds_its_arguments():
    """`gaussian_of(diff, var)` calls `math.sqrt(var)`: the call would raise for an array `var`,
    so `var` is a scalar (TheAlgorithms' bilateral filter). A helper with a branch binds
    nothing: the branch that constrains may not run."""
    straight = """
        import math
        import numpy as np

        def gaussian_of(values, variance):
            sd = math.sqrt(variance)
            return np.exp(-(values / sd) ** 2)

        def f(picture, var, weights):
            out = np.zeros(picture.shape)
            for r in range(1, picture.shape[0] - 1):
                patch = picture[r - 1:r + 2]
                out[r] = np.sum(np.multiply(weights, gaussian_of(patch - patch[1], var)))
            return out
        """
    guess = _guess(straight)
    assert guess.ranks["var"] == 0 and "var" not in guess.assumed
    guess = _guess(straight.replace("sd = math.sqrt(variance)",
                                    "sd = math.sqrt(variance) if np.ndim(variance) == 0 else np.sqrt(variance)"))
    assert guess is None or guess.ranks.get("var", 0) != 0 or "var" in guess.assumed


BUFFER_OF_GIVEN_SHAPE = """
    import numpy as np

    def f(shape, grid):
        kept = np.zeros(shape)
        for r in range(1, shape[0] - 1):
            for c in range(1, shape[1] - 1):
                if grid[r, c] > grid[r, c - 1]:
                    kept[r, c] = grid[r, c]
        return kept
    """


def test_a_buffer_made_from_a_shape_argument_takes_the_rank_its_writes_show():
    """`np.zeros(shape)` has as many axes as `shape` has entries, which the code does not
    show; the writes `kept[r, c] = <scalar>` suggest two. That rank is checked at run time,
    and a buffer of another rank runs the loop."""
    guess = _guess(BUFFER_OF_GIVEN_SHAPE)
    assert guess is not None and guess.ranks.get("kept") == 2 and guess.assumed.get("kept") == 2
    result = transpile_source(textwrap.dedent(BUFFER_OF_GIVEN_SHAPE), "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "kept.ndim == 2" in result.code
    rng = np.random.default_rng(1)
    grid = rng.random((6, 7))
    np.testing.assert_array_equal(_run(result.code, (6, 7), grid),
                                  _run(textwrap.dedent(BUFFER_OF_GIVEN_SHAPE), (6, 7), grid))
    # a 3-D buffer: `kept[r, c] = v` fills a row of it, as the loop does
    np.testing.assert_array_equal(_run(result.code, (6, 7, 2), grid),
                                  _run(textwrap.dedent(BUFFER_OF_GIVEN_SHAPE), (6, 7, 2), grid))


def test_a_buffer_whose_binding_gives_its_rank_is_no_variable():
    """`np.zeros_like(x)` has the rank of `x`: only `x` is inferred."""
    guess = _guess("""
        import numpy as np

        def f(x):
            out = np.zeros_like(x)
            for i in range(x.shape[0]):
                out[i] = x[i] * 2.0
            return out
        """)
    assert guess is not None and set(guess.ranks) == {"x"}


def test_a_buffer_bound_after_a_loop_is_not_checked_in_front_of_it():
    """Two loops; the second one's buffer is made between them. The first loop's run-time check
    must not read it (it is unbound there), and the second checks it where it starts."""
    source = textwrap.dedent("""
        import numpy as np

        def f(shape, grid):
            total = np.zeros(grid.shape[1])
            for r in range(grid.shape[0]):
                total += grid[r] * 2.0
            kept = np.zeros(shape)
            for r in range(shape[0]):
                for c in range(shape[1]):
                    kept[r, c] = grid[r, c] + 1.0
            return total, kept
        """)
    result = transpile_source(source, "m.py")
    assert all(p.rewritten for p in result.plans), [r.message for p in result.plans for r in p.remarks]
    first = result.code.split("kept = np.zeros(shape)")[0]
    assert "kept" not in first.split("def f(")[1]
    grid = np.random.default_rng(5).random((4, 3))
    got, want = _run(result.code, (4, 3), grid), _run(source, (4, 3), grid)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_array_equal(got[1], want[1])


def test_a_helper_branch_its_constant_flag_takes_constrains_the_caller():
    """`helper(m, v, ff=False)`: only the `else:` branch runs for this call, and there `m`
    takes two indices and a new axis, so `m` has two axes (a hard constraint of the caller);
    the `ff` branch, which would read `m` as a vector, does not run. `x.ndim == 1` of a local
    of known rank is decided too."""
    source = """\
        import numpy as np


        def helper(m, v, ff=False):
            x = np.array(v)
            if x.ndim == 1:
                x = v[:, np.newaxis]
            if ff:
                return np.dot(m, 2.0)
            else:
                return np.sum((m[:, :, np.newaxis] - x[:, np.newaxis, :]) ** 2, axis=0)


        def f(m, vs):
            out = np.zeros((vs.shape[1], 3, 1))
            for k, v in enumerate(vs.T):
                out[k] = helper(m, v, ff=False)
            return out
        """
    guess = _guess(source)
    assert guess.ranks["m"] == 2 and "m" not in guess.assumed  # proven, not suggested
    either = _guess(source.replace("helper(m, v, ff=False)", "helper(m, v, ff=v[0] > 0)"))
    assert "m" in either.assumed  # the flag is data: either branch may run


def _assumed_guess(ranks, valid=lambda a: True):
    """A guess whose every rank is assumed, with its valid neighbours (each rank -1, 0, +1)."""
    from pforge.transpile.rank_inference import RankGuess
    names = sorted(ranks)
    spans = [range(max(0, ranks[n] - 1), ranks[n] + 2) for n in names]
    neighbours = tuple(c for c in (dict(zip(names, combo)) for combo in itertools.product(*spans))
                       if c != ranks and valid(c))
    return RankGuess(dict(ranks), dict(ranks), {}, neighbours)


def test_accepted_ranks_rise_past_the_neighbour_while_the_rewrite_stays():
    """`x` is raised while the rewrite is the same text and the code can run (here up to 3)."""
    from pforge.transpile.versioning import _accepted_ranks
    valid = lambda a: a["x"] <= 3  # noqa: E731
    guess = _assumed_guess({"x": 1, "w": 0}, valid)
    got = _accepted_ranks(guess, lambda a: a["w"] <= 1, valid)
    assert got == {"x": {0, 1, 2, 3}, "w": {0, 1}}
    # without the hard constraints, no rank rises past its neighbour
    assert _accepted_ranks(guess, lambda a: a["w"] <= 1) == {"x": {0, 1, 2}, "w": {0, 1}}


def test_accepted_ranks_are_not_raised_when_two_raised_ranks_together_rewrite_otherwise():
    """Each rank alone keeps the rewrite, `x` 3-D with `w` a row does not: only the neighbours
    are accepted (a check accepting the pair would run batched code written for other ranks)."""
    from pforge.transpile.versioning import _accepted_ranks
    same = lambda a: not (a["x"] >= 3 and a["w"] == 1) and a["w"] <= 1  # noqa: E731
    got = _accepted_ranks(_assumed_guess({"x": 1, "w": 0}), same, lambda a: True)
    assert got == {"x": {0, 1, 2}, "w": {0, 1}}


def test_accepted_ranks_stop_at_the_first_rank_with_another_rewrite():
    from pforge.transpile.versioning import _accepted_ranks
    got = _accepted_ranks(_assumed_guess({"c": 0}), lambda a: a["c"] != 4, lambda a: True)
    assert got == {"c": {0, 1, 2, 3}}


@pytest.mark.parametrize("index,least", [("m[i, ..., 0]", 2), ("m[..., i]", 1), ("m[i, ..., 0, None]", 2),
                                         ("m[..., i, 1:]", 2)])
def test_an_ellipsis_takes_the_axes_no_other_index_takes(index, least):
    """`m[i, ..., 0]` needs at least two axes (the ellipsis may stand for none): the rank is
    bounded by the other indices, not left unknown."""
    guess = _guess(f"""
        import numpy as np

        def f(x, m):
            out = []
            for i in range(len(x)):
                out.append({index} * x[i])
            return np.array(out)
        """)
    assert guess.ranks["m"] == least


@pytest.mark.parametrize("loop", ["reversed(range(n))", "range(n - 1, -1, -1)", "range(n)"])
def test_a_loop_counting_down_binds_an_index_as_range_does(loop):
    """`for i in reversed(range(n))` gives `i` the items of `range(n)`: integers, so `x[i]` of
    a vector and a running value combined with it are scalars (np.float32(...) too)."""
    source = textwrap.dedent(f"""
        import numpy as np

        def f(x, n):
            m = np.float32(-1.0)
            for i in {loop}:
                m = np.maximum(m, x[i])
            return m
        """)
    ctx = module_context(decode_source(source, "m.py"))
    fdef = next(n for n in ctx.tree.body if isinstance(n, gast.FunctionDef))
    from pforge.transpile.rank_inference import local_ranks
    assert local_ranks(ctx, fdef, {}, {"x": 1, "n": 0}) == {"m": 0, "i": 0}


def test_a_comprehension_counting_down_binds_no_local_of_the_function():
    """`[x[i] for i in reversed(range(n))]`: `i` is the comprehension's own name, as for range."""
    source = textwrap.dedent("""
        import numpy as np

        def f(x, n):
            ys = [x[i] * 2 for i in reversed(range(n))]
            return ys
        """)
    ctx = module_context(decode_source(source, "m.py"))
    fdef = next(n for n in ctx.tree.body if isinstance(n, gast.FunctionDef))
    from pforge.transpile.rank_inference import local_ranks
    assert local_ranks(ctx, fdef, {}, {"x": 1, "n": 0}) == {"ys": 1}


# -- facts from session 9: sizes, rows met by items, helpers that suggest, rebound parameters --

def test_the_size_of_a_value_suggests_it_has_elements():
    guess = _guess("""
        import numpy as np

        def f(lo, x):
            out = np.zeros(lo.size)
            for k in range(lo.size):
                out[k] = np.sum(x > lo[k])
            return out
        """)
    assert guess.ranks["lo"] == 1


ROW_MINUS_ITEM = """
    import numpy as np

    def dist(x, mean):
        return np.sum((x - mean) ** 2)

    def f(X, means, k):
        out = np.zeros((X.shape[0], k))
        for i in range(X.shape[0]):
            x = X[i]
            for c in range(k):
                out[i, c] = {CALL}
        return out
    """


@pytest.mark.parametrize("call", ["dist(x, means[c, :])", "np.sum((x - means[c, :]) ** 2)"])
def test_an_item_met_by_a_row_spelled_as_a_row_is_a_row(call):
    """``x - means[c, :]``: a point minus a point. Also through a helper, whose body's
    suggestions are the call's."""
    guess = _guess(ROW_MINUS_ITEM.replace("{CALL}", call))
    assert guess.ranks["X"] == 2 and guess.ranks["means"] == 2 and guess.assumed["X"] == 2


def test_an_item_minus_a_whole_vector_stays_a_number():
    """``x - centroids`` in 1-D k-means: the vector is not a row of anything, so ``x`` is a
    number broadcast along it, the fewest axes."""
    guess = _guess("""
        import numpy as np

        def f(X, centroids):
            labels = np.zeros(X.shape[0])
            for i in range(X.shape[0]):
                x = X[i]
                labels[i] = np.argmin(np.abs(x - centroids))
            return labels
        """)
    assert guess.ranks == {"X": 1, "centroids": 1}


REBOUND = """
    import numpy as np

    def _as_rows(a):
        if a.ndim == 2 and a.shape[0] == 1:
            return a[0]
        return a

    def f(spl):
        spl = _as_rows(spl)
        out = np.zeros((spl.shape[0], spl.shape[1] // 3))
        for i in range(spl.shape[0]):
            for j in range(spl.shape[1] // 3):
                out[i, j] = np.sum(spl[i, 3 * j:3 * j + 3])
        return out
    """


def test_a_parameter_rebound_by_a_helper_only_the_data_decide_is_checked_where_the_loop_is():
    guess = _guess(REBOUND)
    assert guess.ranks == {"spl": 2} and guess.assumed == {"spl": 2}
    result = transpile_source(textwrap.dedent(REBOUND), "m.py")
    plan = next(p for p in result.plans if p.function == "f")
    assert plan.rewritten, [r.message for r in plan.remarks]
    code = result.code.split("def f(spl):", 1)[1]
    assert code.index("spl = _as_rows(spl)") < code.index("spl.ndim == 2")  # checked after the rebinding
    for spl in (np.arange(18.0).reshape(2, 9), np.arange(9.0).reshape(1, 9) + 1.0):
        want = _run(textwrap.dedent(REBOUND), spl.copy()) if spl.shape[0] > 1 else None
        if want is None:  # one row: `_as_rows` makes it 1-D and the loop raises; so does the rewrite
            with pytest.raises(IndexError):
                _run(textwrap.dedent(REBOUND), spl.copy())
            with pytest.raises(IndexError):
                _run(result.code, spl.copy())
            continue
        np.testing.assert_array_equal(_run(result.code, spl.copy()), want)


HISTOGRAM = textwrap.dedent("""\
    import numpy as np


    def f(labels, k):
        counts = np.zeros(k, dtype=np.int64)
        for i in range(len(labels)):
            counts[labels[i]] += 1
        return counts
    """)


def _outcome(code, *args):
    """What ``f`` of ``code`` returns for copies of ``args`` (as a list, with its dtype), or the
    type of the error it raises; and, for instrumented code, whether its checks held."""
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    try:
        got = namespace["f"](*(a.copy() if isinstance(a, (np.ndarray, list)) else a for a in args))
        got = (got.dtype.str, got.tolist())
    except Exception as error:  # noqa: BLE001 - the kind of error is compared
        got = type(error)
    return got, namespace.get("_PFORGE_CHECKS_HELD")


def test_a_shape_argument_whose_every_rank_gives_one_rewrite_is_not_checked():
    """`counts = np.zeros(k)` is made before the loop, and `np.add.at(counts, labels, ...)` is
    the batched code for `counts` of any rank: nothing in front checks `k` or `counts` (before,
    `k` was checked to be a number or an array of rank 1 to 6, and a tuple of ints ran the
    loop)."""
    result = transpile_source(HISTOGRAM, "m.py")
    assert result.plans[0].rewritten and "np.add.at(" in result.code
    test = result.code.split("    if ", 1)[1].split(":\n", 1)[0]
    assert "labels" in test and "k" not in {n.id for n in gast.walk(gast.parse(test)) if isinstance(n, gast.Name)}
    checked = instrument_rank_checks(result.code)
    for k in (4, (4,), (4, 2), np.int64(4), np.array(4), (5, 0), 4.0, None, [4]):
        labels = np.array([0, 3, 3, 1])
        want, _ = _outcome(HISTOGRAM, labels, k)
        got, held = _outcome(checked, labels, k)
        assert got == want, k
        assert held == ([] if isinstance(want, type) else [True]), k  # ([]: `np.zeros` raised first)


def test_a_list_only_indexed_with_may_hold_python_ints():
    """`labels` is read only as an index (`counts[labels[i]]`): a list of Python ints converts
    to the same indices, so the check takes it (before, only a list of floats, which cannot
    index, passed); floats, bools and ints beyond float64's integers run the loop, which raises
    or indexes as it does."""
    result = transpile_source(HISTOGRAM, "m.py")
    checked = instrument_rank_checks(result.code)
    for labels, batched in [([0, 3, 3, 1], True), ((2, 2), True), ([0, -1, -4], True), ([0, 9], True),
                            ([0.0, 1.0], False), ([0, 1.5], False), ([True, 1], False), ([1, 2 ** 60], False),
                            ([np.int64(1), 2], False), (np.array([0, 3]), True), ([], False)]:
        want, _ = _outcome(HISTOGRAM, labels, 5)
        got, held = _outcome(checked, labels, 5)
        assert got == want and held == [batched], labels


SCATTERED_ROWS = textwrap.dedent("""\
    import numpy as np


    def f(labels, w, k):
        totals = np.zeros(k)
        for i in range(len(labels)):
            totals[labels[i]] += w[i]
        return totals
    """)


def test_a_shape_argument_that_decides_a_rank_is_checked_on_the_array_made():
    """`totals[labels[i]] += w[i]` adds one number per iteration, which is batched only into
    `totals` of one axis: the check in front is `totals.ndim == 1`, on the array made from `k`,
    so a shape spelled `(5,)`, `[5]` or `np.array([5])` batches as `5` does, and `(5, 2)` runs
    the loop (which adds each number to a row)."""
    result = transpile_source(SCATTERED_ROWS, "m.py")
    assert result.plans[0].rewritten and "totals.ndim == 1" in result.code
    assert "`totals` 1-D (made in the shape `k`)" in result.plans[0].backend_note
    checked = instrument_rank_checks(result.code)
    labels, w = np.array([0, 4, 4, 1]), np.array([0.5, 1.5, 2.5, 3.5])
    for k, batched in [(5, True), ((5,), True), ([5], True), (np.array([5]), True), ((5, 2), False),
                       (np.array([5, 2]), False), ((5, 2, 1), False)]:
        want, _ = _outcome(SCATTERED_ROWS, labels, w, k)
        got, held = _outcome(checked, labels, w, k)
        assert got == want and held == [batched], k


def _float64_tested(test: str) -> set[str]:
    """The names the float64 test in ``test`` (a check's text) holds to compute in float64
    with a Python float: ``np.result_type(np.asarray(x), 0.0) == np.float64`` of one, or
    ``all(... for v in (x, y))`` of several."""
    names = set(re.findall(r"np\.result_type\(np\.asarray\((\w+)\), 0\.0\)", test)) - {"v"}
    for group in re.findall(r"np\.result_type\(np\.asarray\(v\), 0\.0\) == np\.float64 for v in \(([\w, ]+)\)\)", test):
        names |= {n.strip() for n in group.split(",")}
    return names


THREE_VALUES = textwrap.dedent("""\
    import numpy as np


    def f(x, y, z):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * y[i] + z[i]
        return out
    """)


def test_lists_of_floats_meet_the_other_values_in_float64_in_one_test():
    """`x`, `y` and `z` may each be a list of floats, which converts to float64 where the loop
    computes with weak Python floats: where any is a list, every value must compute in
    float64. One test says it for all three (each array, or all of them float64), not one
    per list naming the two others (quadratic in the lists)."""
    result = transpile_source(THREE_VALUES, "m.py")
    assert result.plans[0].rewritten
    test = next(gast.unparse(n.test) for n in gast.walk(gast.parse(result.code)) if isinstance(n, gast.If))
    # (one test over the three values; it was one per pair, then one per value)
    assert test.count("np.result_type(np.asarray(") == 1 and _float64_tested(test) == {"x", "y", "z"}, test
    checked = instrument_rank_checks(result.code)
    f32, f64 = np.array([0.1, 0.2, 0.3], np.float32), np.array([0.5, 1.5, 2.5])
    as_list = [0.7, 1.1, 1.3]
    for x, y, z, batched in [(f64, f64, f64, True), (f32, f32, f32, True), (as_list, f64, f64, True),
                             (as_list, as_list, as_list, True), (as_list, f32, f64, False),
                             (f32, f64, as_list, False), ([1, 2, 3], f64, as_list, False), (f64, as_list, f64, True)]:
        want, _ = _outcome(THREE_VALUES, x, y, z)
        got, held = _outcome(checked, x, y, z)
        assert got == want and held == [batched], (x, y, z)


ALIASED_SHAPE = textwrap.dedent("""\
    import numpy as np


    def f(x, k, flag):
        acc = np.zeros(k)
        BEFORE
        for i in range(len(x)):
            acc[i] = x[i]
        return acc, AFTER
    """)


@pytest.mark.parametrize("before, after, moved", [
    ("acc[0] = 5.0", "0", True),  # (a write into it binds no name)
    ("out = acc", "out", False),
    ("n = len(acc)", "n", False),
    ("if flag:\n        out = acc[1:]\n    else:\n        out = acc", "out", False),
    ("for out in [acc]:\n        pass", "out", False),
    ("with np.errstate(all='ignore') as out:\n        out = acc", "out", False),
    ("def g():\n        return acc", "g()", False),
    # statements that read it but bind nothing from it, or bind from other values only
    ("acc[0] = x[0]", "0", True),
    ("m = len(x)", "m", True),
    ("for j in range(2):\n        acc[j] = 1.0", "0", True),
    ("with np.errstate(all='ignore'):\n        t = 1.0\n        acc[0] = t", "t", True),
    ("def g(v):\n        return v", "g(1)", True),
])
def test_a_shape_check_moves_onto_the_array_made_only_where_no_other_name_is_bound_from_it(before, after, moved):
    """The rank of `acc = np.zeros(k)` is checked on `acc` (`acc.ndim == 1`) in place of `k`
    only where no statement binds another name from `acc`: an alias, a view, its length, a
    function reading it. Elsewhere `k` keeps its own check. Either way the rewrite returns
    what the loop returns for shapes of one and two axes."""
    source = ALIASED_SHAPE.replace("BEFORE", before).replace("AFTER", after)
    result = transpile_source(source, "m.py")
    assert result.plans[-1].rewritten, result.plans[-1].remarks
    test = next(gast.unparse(n.test) for n in gast.walk(gast.parse(result.code))
                if isinstance(n, gast.If) and "ndim" in gast.unparse(n.test))
    assert ("acc.ndim == 1" in test) == moved and ("np.ndim(k)" in test) != moved, test
    checked = instrument_rank_checks(result.code)
    for k in (3, (3,), (3, 2), np.array([3, 2])):
        for flag in (True, False):
            want = _run(source, [1.0, 2.0], k, flag, name="f")
            got = _run(checked, [1.0, 2.0], k, flag, name="f")
            np.testing.assert_array_equal(got[0], want[0])


MADE_LIKE = textwrap.dedent("""\
    import numpy as np


    def f(W, w):
        G = np.zeros_like(W)
        REBIND
        for i in range(len(w)):
            G[i] += w[i] * 0.5 + W[i]
        return G
    """)


@pytest.mark.parametrize("rebind", ["", "W = W.astype(np.float64)"])
def test_an_array_made_like_a_tested_value_is_tested_with_it(rebind):
    """`G = np.zeros_like(W)` has `W`'s dtype: where a list of floats `w` meets it, the test
    that `W` computes in float64 covers `G` (no test of its own), unless `W` is bound again
    between (then `G` is tested itself). A float32 `W` runs the loop, which adds each weak
    float in float32."""
    source = MADE_LIKE.replace("REBIND", rebind)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten
    test = next(gast.unparse(n.test) for n in gast.walk(gast.parse(result.code)) if isinstance(n, gast.If))
    assert ("G" in _float64_tested(test)) == bool(rebind), test
    checked = instrument_rank_checks(result.code)
    for W, w, batched in [(np.zeros(2, np.float32), [0.2697867137638703, 0.1], False),
                          (np.zeros(2), [0.2697867137638703, 0.1], True),
                          (np.zeros(2, np.float32), np.array([0.2697867137638703, 0.1]), True)]:
        want, _ = _outcome(source, W, w)
        got, held = _outcome(checked, W, w)
        assert got == want and held == [batched], (W.dtype, w)


SHAPE_ONLY = textwrap.dedent("""\
    import numpy as np


    def f(x, k):
        MADE
        for i in range(len(x)):
            acc[i] = x[i] * 2.0
        return acc
    """)


@pytest.mark.parametrize("made, moved", [
    ("acc = np.zeros(k)", True),
    ("acc = np.ones(k)", True),
    ("acc = np.empty(k)", True),
    ("acc = np.full(k, 7.0)", True),
    ("acc = np.zeros(shape=k)", True),
    ("acc = np.zeros(k, dtype=np.float64)", True),
    ("acc = np.zeros(k).copy()", False),  # (made by a method, not the constructor)
    ("acc = np.zeros(k) + 1.0", False),
    ("acc = np.zeros_like(np.empty(k))", False),
    ("acc = np.zeros(k)\n    m = np.zeros(k)", False),  # (an array the loop does not read)
    ("acc = np.zeros(k)\n    m = len(k)", False),  # (`k` read otherwise)
    ("acc = np.zeros(k)\n    m = np.zeros((k, 2))", False),
    ("acc = np.arange(k) * 0.0", False),
    ("acc = np.full(len(x), fill_value=k)", False),  # (a keyword other than shape=)
])
def test_only_a_shape_given_whole_to_a_constructor_moves_its_check(made, moved):
    """`_shape_only`: `k` is only the whole shape of `np.zeros`, `ones`, `empty` or `full`
    (also as `shape=`), bound to one name: its check becomes `acc.ndim == 1`; any other use of
    `k`, or an array made otherwise, keeps `k`'s own. Each against the loop."""
    source = SHAPE_ONLY.replace("MADE", made)
    result = transpile_source(source, "m.py")
    assert result.plans[-1].rewritten, result.plans[-1].remarks
    test = next(gast.unparse(n.test) for n in gast.walk(gast.parse(result.code))
                if isinstance(n, gast.If) and "ndim" in gast.unparse(n.test))
    assert ("np.ndim(k)" in test or "k.ndim" in test) != moved, test
    assert "acc.ndim == 1" in test or not moved, test
    checked = instrument_rank_checks(result.code)
    for k in (3, (3,), (3, 2)):
        want, _ = _outcome(source, [1.0, 2.0], k)
        got, _ = _outcome(checked, [1.0, 2.0], k)
        assert got == want, k


def test_what_the_loop_itself_binds_from_the_array_made_does_not_keep_the_shape_check():
    """`t = acc[i]` in the loop body is batched code, not a binding made before it: the
    check still moves onto `acc` (`_bound_from` looks outside the loop only)."""
    source = SHAPE_ONLY.replace("MADE", "acc = np.zeros(k)").replace(
        "acc[i] = x[i] * 2.0", "acc[i] = x[i] * 2.0\n        t = acc[i]\n        acc[i] = t + 1.0")
    result = transpile_source(source, "m.py")
    assert result.plans[-1].rewritten, result.plans[-1].remarks
    test = next(gast.unparse(n.test) for n in gast.walk(gast.parse(result.code))
                if isinstance(n, gast.If) and "ndim" in gast.unparse(n.test))
    assert "acc.ndim == 1" in test and "np.ndim(k)" not in test, test
    checked = instrument_rank_checks(result.code)
    for k in (3, (3,), (3, 2)):
        assert _outcome(checked, [1.0, 2.0], k)[0] == _outcome(source, [1.0, 2.0], k)[0], k


MADE_WIDE = textwrap.dedent("""\
    import numpy as np


    def f(w, k):
        MADE
        for i in range(len(w)):
            out[i] += w[i] * 0.1
        return out
    """)


@pytest.mark.parametrize("made, tested", [
    ("out = np.zeros(k)", False),
    ("out = np.ones(k)", False),
    ("out = np.empty(k)", False),
    ("out = np.zeros(k, dtype=np.int64)", False),
    ("out = np.zeros(shape=k, dtype=int)", False),
    ("out = np.ones(k, dtype=np.float32)", True),
    ("out = np.zeros(k, np.float32)", True),  # (a dtype given by position)
    ("out = np.full(k, 1.0)", True),  # (the fill's dtype)
    ("out = np.zeros(k, dtype=np.float16, order='C')", True),
])
def test_an_array_made_in_float64_or_ints_needs_no_float64_test(made, tested):
    """`_made_wide`: an array made by `np.zeros`, `ones` or `empty` in float64 (no dtype),
    an int or bool dtype computes in float64 with a weak Python float, so the one test beside
    a list of floats leaves it out; any other (float32, a fill's dtype, a dtype given by
    position) is in it. Each against the loop with a list and a float32 array."""
    source = MADE_WIDE.replace("MADE", made)
    if "empty" in made:  # (its values are not read)
        source = source.replace("out[i] += w[i] * 0.1", "out[i] = w[i] * 0.1")
    result = transpile_source(source, "m.py")
    assert result.plans[-1].rewritten, result.plans[-1].remarks
    test = next(gast.unparse(n.test) for n in gast.walk(gast.parse(result.code))
                if isinstance(n, gast.If) and "ndim" in gast.unparse(n.test))
    assert ("out" in _float64_tested(test)) == tested, test
    checked = instrument_rank_checks(result.code)
    for w in ([0.2697867137638703, 0.1], np.array([0.2697867137638703, 0.1], np.float32)):
        assert _outcome(checked, w, 2)[0] == _outcome(source, w, 2)[0], w


def test_an_array_computed_from_a_tested_value_is_tested_itself():
    """`G = np.sqrt(W)` is no array made like `W` (`_made_like` takes only `np.zeros_like`,
    `ones_like`, `empty_like`): an int8 `W` computes in float64 with a Python float, its
    square roots in float16, so beside a list of floats `G` is in the float64 test and the
    loop runs."""
    source = MADE_LIKE.replace("G = np.zeros_like(W)", "G = np.sqrt(W)").replace("REBIND", "")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, result.plans[0].remarks
    test = next(gast.unparse(n.test) for n in gast.walk(gast.parse(result.code)) if isinstance(n, gast.If))
    assert "G" in _float64_tested(test), test
    checked = instrument_rank_checks(result.code)
    W, w = np.array([4, 9], np.int8), [0.2697867137638703, 0.1]
    want, _ = _outcome(source, W, w)
    got, held = _outcome(checked, W, w)
    assert got == want and held == [False]


def test_an_array_made_then_bound_otherwise_is_in_the_float64_test():
    """`scale = np.zeros(k)` is float64, but an annotated assignment before the loop binds it
    again (to a float32 array here): `_made_by` takes an array made by its one assignment only
    where nothing else binds the name, so `scale` is tested beside a list of floats, and the
    loop runs (it multiplies each weak float in float32)."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(w, k):
            out = np.zeros(k)
            scale = np.zeros(k)
            scale: np.ndarray = np.ones(k, np.float32)
            for i in range(len(w)):
                out[i] = w[i] * scale[i]
            return out
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[-1].rewritten, result.plans[-1].remarks
    checked = instrument_rank_checks(result.code)
    w = [0.2697867137638703, 0.1]
    want, _ = _outcome(source, w, 2)
    got, held = _outcome(checked, w, 2)
    assert got == want and held == [False], (got, want, result.code)


GRID_COUNTS = textwrap.dedent("""\
    import numpy as np


    def f(rows, cols, grid):
        for i in range(len(rows)):
            grid[rows[i], cols[i]] += 1
        return grid
    """)


def test_lists_that_only_index_together_may_hold_python_ints():
    """`grid[rows[i], cols[i]]`: each list is only an index, in a tuple of indices
    (`_indices_only`), so lists of Python ints run batched, as their `np.asarray` indexes
    alike; a list of floats, which cannot index, runs the loop (which raises)."""
    result = transpile_source(GRID_COUNTS, "m.py")
    assert result.plans[0].rewritten, result.plans[0].remarks
    checked = instrument_rank_checks(result.code)
    grid = np.zeros((3, 3), np.int64)
    for rows, cols, batched in [([0, 2, 2], [1, 1, 0], True), (np.array([0, 2]), [1, 1], True),
                                ([0.0, 2.0], [1, 1], False)]:
        want, _ = _outcome(GRID_COUNTS, rows, cols, grid)
        got, held = _outcome(checked, rows, cols, grid)
        assert got == want and held == [batched], (rows, cols, held)
