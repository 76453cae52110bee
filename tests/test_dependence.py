"""The subscript dependence test (``transpile/dependence.py``), piece by piece.

Affine forms are checked on expressions whose form is known by hand; the verdicts between two
accesses are checked through the analysis, by the exact dependence line ``pforge explain``
prints (kind, distance and reason), so a changed sign, distance or direction fails here even
where the loop is refused either way.
"""

from __future__ import annotations

import textwrap

import gast
import pytest

from pforge.transpile import analyze_source
from pforge.transpile.dependence import Access, Affine, Nest, separating_dim


def expr(text: str) -> gast.AST:
    return gast.parse(text, mode="eval").body


@pytest.mark.parametrize("text, products, coeffs, const", [
    ("i", False, {"i": 1}, 0),
    ("7", False, {}, 7),
    ("-i", False, {"i": -1}, 0),
    ("+i", False, {"i": 1}, 0),
    ("-(i + 2)", False, {"i": -1}, -2),
    ("-(-i)", False, {"i": 1}, 0),
    ("-i + n - 1", False, {"i": -1, "n": 1}, -1),
    ("i + i", False, {"i": 2}, 0),
    ("i + 2 * i - j", False, {"i": 3, "j": -1}, 0),
    ("i - i + 1", False, {}, 1),
    ("i * 2", False, {"i": 2}, 0),
    ("2 * i", False, {"i": 2}, 0),
    ("(i + 1) * 3", False, {"i": 3}, 3),
    ("3 * (i - 1)", False, {"i": 3}, -3),
    ("i * n", True, {"i*n": 1}, 0),
    ("n * i", True, {"i*n": 1}, 0),
    ("i * n * 2", True, {"i*n": 2}, 0),
    ("i * n * m", True, {"i*m*n": 1}, 0),
    ("m * (i * n)", True, {"i*m*n": 1}, 0),
    ("-(i * n)", True, {"i*n": -1}, 0),
    ("(i + 1) * (n + 2)", True, {"i*n": 1, "i": 2, "n": 1}, 2),
    ("(i + n) * (i + n)", True, {"i*i": 1, "i*n": 2, "n*n": 1}, 0),
    ("x.shape[0]", True, {"x.shape[0]": 1}, 0),
    ("x.shape[1] * i + j", True, {"i*x.shape[1]": 1, "j": 1}, 0),
])
def test_affine_forms(text, products, coeffs, const):
    form = Affine.of(expr(text), products=products)
    assert form is not None
    assert dict(form.coeffs) == coeffs and form.const == const


@pytest.mark.parametrize("text, products", [
    ("i * n", False),            # a product of names is affine only as a product key
    ("x.shape[0]", False),
    ("i / 2", True), ("i // 2", True), ("i % 2", True), ("1.5", True), ("True", True),
    ("f(i)", True), ("-f(i)", True), ("i + f(i)", True), ("f(i) + i", True),
    ("f(i) * 2", True), ("2 * f(i)", True), ("i * f(j)", True),
    ("x.shape", True), ("x.shape[k]", True), ("y.x.shape[0]", True),
])
def test_not_affine(text, products):
    assert Affine.of(expr(text), products=products) is None


def test_symbols_products_and_minus():
    form = Affine.of(expr("x.shape[1] * i + 2 * j - 3"), products=True)
    assert form.symbols() == {"x", "i", "j"}
    assert form.products() == {("i", "x.shape[1]"): 1}
    other = Affine.of(expr("x.shape[1] * i + j + 4"), products=True)
    assert form.minus(other) == Affine((("j", 1),), -7)


def _access(text: str) -> Access:
    node = expr(text)
    dims = list(node.slice.elts) if isinstance(node.slice, gast.Tuple) else [node.slice]
    return Access(node.value.id, dims, node, write=True)


def _nest(access: Access, lowest=0, **stops) -> Nest:
    return Nest(lowest, {j: (expr(stop), frozenset({id(access.node)})) for j, stop in stops.items()})


@pytest.mark.parametrize("text, dim", [
    ("x[i]", 0),
    ("x[:, i]", 1),                 # a slice is skipped, not the end of the search
    ("x[0, 2 * i + n]", 1),
    ("x[idx[k], i]", 1),            # so is an index that is not affine
    ("x[-i + n - 1]", 0),
])
def test_separating_dim_strong(text, dim):
    access = _access(text)
    found = separating_dim(access, "i", {"k"})
    assert found is not None and found[0] == dim


@pytest.mark.parametrize("text", [
    "x[i * n + i]",                 # a product with the index itself: not c*i + invariant
    "x[i + k]",                     # k varies between iterations
    "x[3]", "x[j]", "x[:, :]",
])
def test_separating_dim_refused(text):
    assert separating_dim(_access(text), "i", {"k"}) is None


@pytest.mark.parametrize("text, lowest, stops, separated", [
    ("x[i * m + j]", 0, {"j": "m"}, True),
    ("x[2 * (i * m + j) + 1]", 0, {"j": "m"}, True),
    ("x[(i - 1) * m + j]", 1, {"j": "m"}, True),       # from the first index
    ("x[i * 4 + j]", 0, {"j": "4"}, True),
    ("x[i * m + j]", 0, {"k": "m", "j": "m"}, True),     # the second inner loop is the one
    ("x[i * m + j]", 0, {"k": "k2", "j": "m"}, True),
    ("x[(i - 1) * m + j]", 0, {"j": "m"}, False),      # i = 0 indexes from -m: wraps around
    ("x[i * 4 + j - 4]", 0, {"j": "4"}, False),
    ("x[i * m + j - 1]", 0, {"j": "m"}, False),
    ("x[3]", 0, {"j": "m"}, False),                   # no inner index at all
    ("x[i * m - j]", 0, {"j": "m"}, False),
    ("x[i * (m - 1) + j]", 0, {"j": "m"}, False),      # blocks overlap
    ("x[i * m + j]", -1, {"j": "m"}, False),           # a negative index
    ("x[i * m + j]", None, {"j": "m"}, False),         # an unknown first index
    ("x[i * k + j]", 0, {"j": "k"}, False),            # the extent varies
    ("x[i * i + j]", 0, {"j": "i"}, False),
])
def test_separating_dim_linearized(text, lowest, stops, separated):
    access = _access(text)
    found = separating_dim(access, "i", {"j", "k", "k2"}, _nest(access, lowest, **stops))
    assert (found is not None) is separated, found


def test_linearized_needs_the_access_inside_the_inner_loop():
    access = _access("x[i * m + j]")
    outside = Nest(0, {"j": (expr("m"), frozenset())})
    assert separating_dim(access, "i", set(), outside) is None


HEADER = "import numpy as np\n\ndef f(x, y, z, n, m, v, idx):\n"


def _explained(body: str):
    source = HEADER + textwrap.indent(textwrap.dedent(body).lstrip("\n"), "    ") + "    return x\n"
    # (the loop whole: loop distribution would analyse its statements' loops instead)
    (plan,) = [p for p in analyze_source(source, "t.py", distribute=False) if p.lineno == 4]
    return plan.vectorizable, [d for level in plan.levels for d in level.dependences]


@pytest.mark.parametrize("body, vectorizable, dependences", [
    pytest.param("""
        for i in range(1, n):
            x[i] = x[i - 1] * x[i - 1] * 0.5
        """, False, ["x: flow dependence (reads the element written 1 iteration(s) earlier) at line 5"],
        id="flow"),
    pytest.param("""
        for i in range(3, n):
            x[i] = x[i - 3] * 0.5
        """, False, ["x: flow dependence (reads the element written 3 iteration(s) earlier) at line 5"],
        id="flow-distance-3"),
    pytest.param("""
        for i in range(n - 1, 0, -1):
            x[i - 1] = x[i] * x[i] + 1
        """, False, ["x: flow dependence (reads the element written 1 iteration(s) earlier) at line 5"],
        id="flow-downwards"),
    pytest.param("""
        for i in range(n - 1, 0, -1):
            x[i] = x[i - 1] + 1
        """, True, [], id="anti-downwards"),
    pytest.param("""
        for i in range(n - 1):
            x[i] = x[i + 1] * 0.5
        """, True, [], id="anti-read-first"),
    pytest.param("""
        for i in range(n):
            x[-i + n - 1] = x[-i + n - 2] * 0.5
        """, True, [], id="anti-negated-index"),
    pytest.param("""
        for i in range(n):
            x[-i + n - 2] = x[-i + n - 1] * 0.5
        """, False, ["x: flow dependence (reads the element written 1 iteration(s) earlier) at line 5"],
        id="flow-negated-index"),
    pytest.param("""
        for i in range(n - 2):
            x[i] = y[i]
            z[i] = x[i + 2]
        """, True, ["x: anti dependence (reads the element that an iteration 2 later overwrites) at "
                    "line 6, after the write at line 5: the read takes its value from a copy made "
                    "before the loop"], id="anti-read-after-the-write"),
    pytest.param("""
        for i in range(n - 1):
            x[i] = y[i]
            x[i + 1] = z[i]
        """, False, ["x: output dependence (two iterations write the same element (distance 1)) at line 5 and line 6",
                     "x: output dependence (two iterations write the same element (distance 1)) at line 6 and line 5"],
        id="output"),
    pytest.param("""
        for i in range(n):
            x[2 * i] = x[2 * i + 1] * 0.5
        """, True, [], id="gcd-no-integer-solution"),
    pytest.param("""
        for i in range(n):
            x[2 * i] = x[2 * i + 4] * 0.5
        """, True, [], id="anti-coefficient-2"),
    pytest.param("""
        for i in range(2, n):
            x[2 * i] = x[2 * i - 4] * 0.5
        """, False, ["x: flow dependence (reads the element written 2 iteration(s) earlier) at line 5"],
        id="flow-coefficient-2"),
    pytest.param("""
        for i in range(0, n, v):
            x[i] = x[i + 1] * 0.5
        """, False, ["x: unknown dependence (the direction of the loop is unknown) at line 5"],
        id="unknown-direction"),
    pytest.param("""
        for i in range(0, n):
            x[i + 1] = y[i]
            x[i] = y[i] * 2.0
        """, True, ["x: output dependence (two iterations write the same element (distance 1)) at line 5 and line 6: "
                    "the later iteration's write is in the later statement, so whole-array order leaves the loop's "
                    "last value",
                    "x: output dependence (two iterations write the same element (distance 1)) at line 6 and line 5: "
                    "the later iteration's write is in the later statement, so whole-array order leaves the loop's "
                    "last value"], id="output-in-statement-order"),
    pytest.param("""
        for i in range(0, n, v):
            x[i + 1] = y[i]
            x[i] = y[i] * 2.0
        """, False, ["x: output dependence (two iterations write the same element (distance 1)) at line 5 and line 6",
                     "x: output dependence (two iterations write the same element (distance 1)) at line 6 and line 5"],
        id="output-of-unknown-direction"),
    pytest.param("""
        for i in range(n):
            x[2 * i] = x[i] * 0.5
        """, False, ["x: unknown dependence (the distance between the accesses is not a constant) at line 5"],
        id="coefficients-differ"),
    pytest.param("""
        for i in range(n):
            x[i] = x[idx[i]] * 0.5
        """, False, ["x: unknown dependence (the distance between the accesses is not a constant) at line 5"],
        id="read-not-affine"),
    pytest.param("""
        for i in range(n):
            k = idx[i]
            x[i] = x[i + k] * 0.5
        """, False, ["x: unknown dependence (the distance between the accesses is not a constant) at line 6"],
        id="read-through-a-variant"),
    pytest.param("""
        for i in range(n):
            x[i + m] = x[i + v] * 0.5
        """, True, ["x: the distance between the accesses depends on `m`, `v` (line 5): no dependence where "
                    "`(v - m == 0 or abs(v - m) >= n) and m >= 0 and (n - 1 + m >= 0) and (v >= 0) and "
                    "(n - 1 + v >= 0)`, checked at run time"],
        id="distance-symbolic"),
    pytest.param("""
        for i in range(n):
            for j in range(n):
                x[i, j + m] = x[i, j] * 0.5
        """, True, ["x: the distance between the accesses depends on `m` (line 6): no dependence where "
                    "`(m == 0 or abs(m) >= n) and m >= 0 and (n - 1 + m >= 0)`, checked at run time"],
        id="distance-symbolic-inner"),
    pytest.param("""
        for i in range(n):
            x[0, i] = x[0].sum()
        """, False, ["x: unknown dependence (another access reads a whole slice along the dimension "
                     "that `i` indexes) at line 5"], id="shorter-read"),
    pytest.param("""
        for i in range(n):
            x[0, i] = x[0, :].sum()
        """, False, ["x: unknown dependence (another access reads a whole slice along the dimension "
                     "that `i` indexes) at line 5"], id="slice-read"),
    pytest.param("""
        for i in range(n):
            x[:, i] = x[:, i] * 2.0
        """, True, [], id="slice-before-the-index"),
    pytest.param("""
        for i in range(n):
            x[i * i] = x[i] + 1.0
        """, False, ["x: unknown dependence (the index of `x[i * i] = x[i] + 1.0` is not an injective "
                     "affine function of `i`) at line 5"], id="not-injective"),
    pytest.param("""
        for row in y:
            x[0] = x[1] + row
        """, False, ["x: unknown dependence (the written element does not depend on a loop index) at line 5"],
        id="rows-loop"),
    pytest.param("""
        for i in range(n):
            for j in range(m):
                x[i * m + j] = x[i * m + j] * 2.0
        """, True, [], id="linearized-same-element"),
    pytest.param("""
        for i in range(n):
            for j in range(m):
                x[i * m + j] = x[i * m + j + 1] * 2.0
        """, False, ["x: unknown dependence (another access indexes the linearized nest otherwise) at line 6"],
        id="linearized-other-element"),
])
def test_dependence_between_accesses(body, vectorizable, dependences):
    assert _explained(body) == (vectorizable, dependences)


@pytest.mark.parametrize("write, read, start, stop, independent", [
    # the two halves index-set splitting makes of `range(n)` for `a[i]` beside `a[n - 1 - i]`
    ("a[i]", "a[n - 1 - i]", None, "min((n - 1) // 2 + 1, n)", True),
    ("a[i]", "a[n - 1 - i]", "max((n - 1) // 2 + 1, 0)", "n", True),
    ("a[i]", "a[n - 1 - i]", None, "n", False),               # both halves: they meet
    ("a[i]", "a[n - 1 - i]", None, "min((n - 1) // 2 + 2, n)", False),  # one past the crossing
    ("a[i]", "a[n - 1 - i]", "max((n - 1) // 2, 0)", "n", False),       # one before it
    ("a[i + 1]", "a[n - 2 - i]", None, "min((n - 3) // 2 + 1, n - 1)", True),
    ("a[i - 2]", "a[n - 1 - i]", None, "min((n + 1) // 2 + 1, n)", False),  # a[-2] counts from the end
    ("a[i]", "a[n - i]", "1", "min(n // 2 + 1, n)", True),    # `shifted`: from 1, `a[n - 1]` down
    ("a[i]", "a[9 - i]", None, "5", True),                   # constants: 2 * 4 <= 9
    ("a[i]", "a[9 - i]", None, "6", False),
    ("a[i]", "a[9 - i]", "5", "10", True),                   # 2 * 5 > 9
    ("a[i]", "a[9 - i]", "4", "10", False),
    ("a[i]", "a[8 - i]", None, "5", True),                   # 2 * 4 == 8: i = 4 reads its own a[4]
    ("a[i]", "a[10 - i]", "5", "11", True),                  # 2 * 5 == 10: i = 5 likewise
    ("a[i]", "a[n - 1 - 2 * i]", None, "min((n - 1) // 2 + 1, n)", False),  # not weak-crossing
])
def test_weak_crossing(write, read, start, stop, independent):
    """The weak-crossing SIV test (Allen & Kennedy 3.3.2.2): `a[i + k]` and `a[r - i]` meet in
    iterations whose indices add up to `r - k`; a range on one side of the crossing point has
    no cross-iteration dependence, any other range one, and an index that may count
    from the end is outside the test."""
    from pforge.transpile.dependence import Bounds, _weak_crossing, separating_dim

    w, r = _access(write), _access(read)
    d, wform = separating_dim(w, "i", set(), None)
    bounds = Bounds.of_range(expr(start) if start else None, expr(stop), None, set(), frozenset({"n"}))
    assert _weak_crossing(r, d, wform, "i", set(), bounds) is independent
