"""Iteration spaces in normal form (``transpile/spaces.py``): each ``for`` and counted ``while``
header read as a range, rows, an enumerate or a zip, and every header that is not one of them
refused (a wrong space is a wrong trip count or a wrong index)."""

from __future__ import annotations

import textwrap

import gast
import pytest

from pforge.transpile.frontend import decode_source
from pforge.transpile.outline import module_context
from pforge.transpile.spaces import _minus_one, for_space, while_space


def _loop(source: str):
    """The first loop of ``source`` (a module, dedented), the statement before it, the context."""
    ctx = module_context(decode_source(textwrap.dedent(source), "m.py"))
    body = ctx.tree.body
    for k, stmt in enumerate(body):
        if isinstance(stmt, (gast.For, gast.While)):
            return stmt, (body[k - 1] if k else None), ctx
    raise AssertionError("no loop")


def _space(source: str):
    loop, previous, ctx = _loop(source)
    if isinstance(loop, gast.For):
        return for_space(loop, ctx.imports)
    return while_space(loop, previous)


@pytest.mark.parametrize("value,text", [(5, "4"), (1, "0"), (0, "-1"), (-2, "-3")])
def test_minus_one_folds_a_constant(value, text):
    node = gast.Constant(value=value, kind=None) if value >= 0 else \
        gast.UnaryOp(op=gast.USub(), operand=gast.Constant(value=-value, kind=None))
    assert gast.unparse(_minus_one(node)).strip() == text


def test_minus_one_of_an_expression_subtracts():
    assert gast.unparse(_minus_one(gast.Name(id="n", ctx=gast.Load(), annotation=None,
                                             type_comment=None))).strip() == "n - 1"


@pytest.mark.parametrize("header,described", [
    ("for i in range(n):", "i in range(n)"),
    ("for i in range(2, n):", "i in range(2, n)"),
    ("for i in range(2, n, 3):", "i in range(2, n, 3)"),
    ("for i in np.arange(n):", "i in range(n)"),
    ("for i in reversed(range(n)):", "i in range(n - 1, -1, -1)"),
    ("for i in reversed(range(2, 7)):", "i in range(6, 1, -1)"),
    ("for i in reversed(range(0, n)):", "i in range(n - 1, -1, -1)"),
    ("for i in reversed(range(m, n)):", "i in range(n - 1, m - 1, -1)"),
    ("for r in x:", "r in rows of x"),
    ("for a, b in pairs:", "(a, b) in rows of pairs"),
    ("for a, b in zip(x, y):", "a in rows of x, b in rows of y"),
    ("for a, (b, c) in zip(x, y):", "a in rows of x, (b, c) in rows of y"),
    ("for k, r in enumerate(x):", "k = index, r in rows of x"),
    ("for k, r in enumerate(x, 1):", "k = index, r in rows of x"),
    ("for k, r in enumerate(x, start=1):", "k = index, r in rows of x"),
])
def test_for_headers_in_normal_form(header, described):
    space = _space(f"import numpy as np\n{header}\n    pass\n")
    assert space is not None and space.describe() == described


def test_enumerate_keeps_its_start():
    space = _space("for k, r in enumerate(x, start=3):\n    pass\n")
    assert space.kind == "enumerate" and gast.unparse(space.enumerate_start).strip() == "3"
    assert _space("for k, r in enumerate(x):\n    pass\n").enumerate_start is None


def test_reversed_range_counts_down():
    space = _space("for i in reversed(range(n)):\n    pass\n")
    assert space.kind == "range" and space.step_sign() == -1
    assert _space("for i in range(n, 0, -2):\n    pass\n").step_sign() == -1
    assert _space("for i in range(0, n, s):\n    pass\n").step_sign() is None
    assert _space("for i in range(n):\n    pass\n").step_sign() == 1


def test_reversed_rows_are_the_rows_of_the_reversed_view():
    """``for r in reversed(x)`` walks the rows of ``x[::-1]``; a row unpacked too."""
    space = _space("for r in reversed(x):\n    pass\n")
    assert space.kind == "rows" and space.describe() == "r in rows of x[::-1]"
    assert _space("for a, b in reversed(self.pairs):\n    pass\n").describe() == "(a, b) in rows of self.pairs[::-1]"


@pytest.mark.parametrize("header", [
    "for i in range():", "for i in range(1, 2, 3, 4):",
    "for i in reversed(range(0, n, 2)):", "for i in reversed(range(n), 1):", "for i in reversed(x[1:]):",
    "for i in reversed(f(x)):",
    "for i in sorted(x):", "for i in iter(x):", "for i in map(f, x):", "for i in filter(f, x):",
    "for k, v in d.items():", "for k in d.keys():", "for v in d.values():",
    "for k in enumerate(x):", "for k, r in enumerate(x, step=1):", "for (k, j), r in enumerate(x):",
    "for k, r in enumerate(zip(x, y)):", "for k, r in enumerate(range(n)):",
    "for a, b in zip(x, y, z):", "for a in zip(x, y):", "for a, (b, c.d) in zip(x, y):",
    "for a, (b, (c, d)) in zip(x, y):", "for x.a in y:", "for i in 3:",
])
def test_headers_outside_the_normal_forms_are_refused(header):
    assert _space(f"import numpy as np\n{header}\n    pass\n") is None


@pytest.mark.parametrize("header", ["for i in range(*bounds):", "for i in range(n, step=2):",
                                    "for i, j in range(n):", "for a, b in zip(x, y, strict=True):"])
def test_a_call_that_is_no_range_or_zip_is_iterated_as_what_it_returns(header):
    """No range, no zip: the rows of the call's result, one sequence (what it is decides later)."""
    space = _space(f"import numpy as np\n{header}\n    pass\n")
    assert space.kind == "rows" and space.induction is None and len(space.items) == 1
    assert isinstance(space.items[0][1], gast.Call)


COUNTED = """\
i = 0
while i < n:
    y[i] = x[i]
    i += 1
"""


@pytest.mark.parametrize("source,described", [
    (COUNTED, "counted while i in range(0, n)"),
    (COUNTED.replace("i += 1", "i = i + 1"), "counted while i in range(0, n)"),
    (COUNTED.replace("i < n", "i <= n"), "counted while i in range(0, n + 1)"),
    (COUNTED.replace("i = 0", "i = k"), "counted while i in range(k, n)"),
    (COUNTED.replace("    y[i] = x[i]\n", "    t = x[i]\n    y[i] = t\n"), "counted while i in range(0, n)"),
])
def test_counted_while_is_a_range(source, described):
    space = _space(source)
    assert space is not None and space.kind == "while" and space.describe() == described


@pytest.mark.parametrize("change", [
    ("i = 0\n", "j = 0\n"),                          # the counter is not the one initialised
    ("i = 0\n", "i, j = 0, 0\n"),                    # not one plain target
    ("i = 0\n", "i = j = 0\n"),
    ("i = 0\n", "y[0] = 0\n"),
    ("i < n", "i > n"), ("i < n", "n > i"), ("i < n", "i < n < m"), ("i < n", "x[i] < n"),
    ("    i += 1\n", "    i += 2\n"), ("    i += 1\n", "    i -= 1\n"), ("    i += 1\n", "    j += 1\n"),
    ("    i += 1\n", "    i = i + 2\n"), ("    i += 1\n", "    i = 1 + i\n"), ("    i += 1\n", "    i = j + 1\n"),
    ("    i += 1\n", "    i = i - 1\n"), ("    i += 1\n", "    i = i * 1\n"), ("    i += 1\n", "    j = i + 1\n"),
    ("    i += 1\n", "    i = j = i + 1\n"), ("    i += 1\n", "    x.i += 1\n"),
    ("    i += 1\n", "    i += 1\nelse:\n    pass\n"),   # an else clause
    ("    i += 1\n", "    pass\n"),                      # no increment at the end
    ("    y[i] = x[i]\n", "    y[i] = x[i]\n    i += 1\n"),  # stored twice
    ("    y[i] = x[i]\n", "    if x[i] < 0:\n        break\n"),
    ("    y[i] = x[i]\n", "    if x[i] < 0:\n        continue\n"),
    ("    y[i] = x[i]\n", "    y[i] = x[i]\n    n = n - 1\n    t = 0\n"),  # the stop rebound
    ("    y[i] = x[i]\n", "    t = 0\n    i = t\n    u = 0\n"),             # the counter rebound
])
def test_while_loops_that_are_no_counted_range_are_refused(change):
    old, new = change
    assert old in COUNTED
    assert _space(COUNTED.replace(old, new)) is None


def test_a_while_loop_with_no_statement_before_it_is_refused():
    loop, _, _ = _loop("while i < n:\n    i += 1\n")
    assert while_space(loop, None) is None
