"""Evidence that a name holds an array where a loop uses it (``backends.common``): a read of its
``.shape``/``.dtype``/``.ndim`` counts only where it runs on every path to the loop, before
it (``_runs_before``), and a binding only where every binding that reaches the loop makes an
array (``_evidently_array``). Evidence that is not there lets a list through a check that
needs an array: ``x[:n] = x[:n] * 3`` of a list repeats it (regressions b109, b113)."""

from __future__ import annotations

import textwrap

import gast
import pytest

from pforge.transpile.backends.common import _evidently_array, _runs_before
from pforge.transpile.frontend import decode_source
from pforge.transpile.outline import module_context


def _context(body: str, params: str = "x, c, n"):
    source = "import numpy as np\n\n\ndef f(%s):\n%s\n    for i in range(n):\n        x[i] = x[i] * 3\n" % (
        params, textwrap.indent(textwrap.dedent(body), "    "))
    ctx = module_context(decode_source(source, "m.py"))
    fdef = next(n for n in ctx.tree.body if isinstance(n, gast.FunctionDef))
    loop = fdef.body[-1]
    assert isinstance(loop, gast.For)
    return ctx, fdef, loop


# the read is the first `x.shape`, `x.dtype` or `x.ndim` in the source; the use, the last loop
@pytest.mark.parametrize(("body", "runs"), [
    ("m = x.shape[0]", True),
    ("if x.shape[0] > 2:\n    pass", True),  # (an `if`'s test runs)
    ("if c:\n    m = x.shape[0]", False),  # (its body may not)
    ("if c:\n    pass\nelse:\n    m = x.ndim", False),
    ("if x.ndim > 5 and c:\n    pass", True),  # (the first operand of an `and` runs)
    ("if c and x.ndim > 5:\n    pass", False),  # (a later one may not)
    ("m = c or x.ndim", False),
    ("m = 1 if x.ndim else 0", True),  # (a conditional expression's test runs)
    ("m = x.ndim if c else 0", False),  # (its arms may not)
    ("m = 0 if c else x.ndim", False),
    ("g = lambda: x.ndim", False),
    ("m = [x.ndim for _ in range(2)]", False),
    ("m = {x.ndim for _ in range(2)}", False),
    ("m = {k: x.ndim for k in range(2)}", False),
    ("m = list(x.ndim for _ in range(2))", False),
    ("m = [k for k in range(x.ndim)]", False),
    ("while x.ndim > 5:\n    pass", True),
    ("while c:\n    m = x.ndim\n    break", False),
    ("for k in range(x.shape[0]):\n    pass", True),  # (a loop's iterable runs)
    ("for k in range(3):\n    m = x.ndim", False),
    ("a = [0] * 9\nfor a[x.ndim] in range(3):\n    pass", False),  # (a target is bound only where the loop runs)
    ("with open(x.ndim):\n    pass", True),
    ("with open(c):\n    m = x.ndim", False),
    ("try:\n    m = x.ndim\nexcept AttributeError:\n    pass", False),
    ("assert x.ndim == 1", False),  # (`python -O` runs no assert)
    ("def g():\n    return x.ndim", False),
    ("class A:\n    m = x.ndim", False),
    ("match c:\n    case 1:\n        m = x.ndim", False),
])
def test_a_read_counts_where_it_runs_before_the_loop(body, runs):
    ctx, fdef, loop = _context(body)
    read = next(n for n in gast.walk(fdef) if isinstance(n, gast.Attribute) and n.attr in ("shape", "dtype", "ndim"))
    assert _runs_before(ctx, read, loop) is runs


def test_a_read_in_the_block_that_holds_the_loop_or_in_its_header():
    source = textwrap.dedent("""\
        def f(x, c, n):
            if c:
                m = x.ndim
                for i in range(n):
                    x[i] = 0
            for i in range(x.shape[0]):
                x[i] = 1
            for i in range(n):
                x[i] = 2
            m = x.dtype
        """)
    ctx = module_context(decode_source(source, "m.py"))
    fdef = ctx.tree.body[0]
    inner, header, last = fdef.body[0].body[1], fdef.body[1], fdef.body[2]
    ndim, shape, dtype = (next(n for n in gast.walk(fdef) if isinstance(n, gast.Attribute) and n.attr == a)
                          for a in ("ndim", "shape", "dtype"))
    assert _runs_before(ctx, ndim, inner)  # (before it, in the block that holds it)
    assert not _runs_before(ctx, ndim, header)  # (in a block the loop is not in)
    assert _runs_before(ctx, shape, header)  # (the loop's own header)
    assert _runs_before(ctx, shape, last)
    assert not _runs_before(ctx, dtype, last)  # (after the loop)


@pytest.mark.parametrize(("body", "evident"), [
    ("", False),  # (a parameter: maybe a list)
    ("m = x.shape[0]", True),
    ("if c:\n    m = x.shape[0]", False),
    ("x = np.zeros(3)", True),
    ("x = np.zeros(3).astype(int)", True),
    ("x = list(c)", False),
    ("x = np.zeros(3)\nx += 1", False),  # (only the update reaches the loop: not followed, a check)
    ("if c:\n    x = np.zeros(3)\n    x += 1\nelse:\n    x = np.ones(3)", True),
    ("x = np.zeros(3)\nif c:\n    x += 1", True),  # (an update is neutral beside the binding)
    ("x = np.zeros(3)\nfor k in range(2):\n    x += 1", True),
    ("x = np.zeros(3)\nif c:\n    x = [1.0]", False),
    ("if c:\n    x = np.zeros(3)", False),  # (the parameter reaches the loop too)
    ("if c:\n    x = np.zeros(3)\nelse:\n    x = np.ones(3)", True),
    ("m = x.ndim\nx = list(c)", False),  # (the read saw another binding)
    ("x = np.asarray(c).tolist()", False),
])
def test_an_array_is_evident_from_every_binding_that_reaches_the_loop(body, evident):
    ctx, fdef, loop = _context(body)
    name = loop.body[0].value.left.value  # (`x` of `x[i] * 3`)
    assert name.id == "x"
    assert _evidently_array(ctx, fdef, name, at=loop) is evident
