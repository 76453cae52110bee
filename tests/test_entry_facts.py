"""What the rewriter knows of a value where a loop starts: a number literal that reaches every
read of a name from outside the loop (``G = 0.0``) needs no run-time check of its kind or rank,
and starts a product as NumPy's ``initial``."""

from __future__ import annotations

import textwrap

import gast
import numpy as np
import pytest

from pforge.transpile import transpile_source
from pforge.transpile.analysis.nodes import literal_number_at_entry
from pforge.transpile.frontend import SourceText
from pforge.transpile.outline import module_context
from tests.loops import run_module


def _entry(body: str, name: str = "s"):
    source = "def f(x, c):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    ctx = module_context(SourceText("m.py", source))
    loop = next(n for n in gast.walk(ctx.tree) if isinstance(n, gast.For) and n.target.id == "i")
    return literal_number_at_entry(ctx, loop, name)


@pytest.mark.parametrize("body, kind", [
    ("s = 0.0\nfor i in range(3):\n    s = s * 0.5 + x[i]\n", "float"),
    ("s = -1\nfor i in range(3):\n    s += x[i]\n", "int"),            # read through `+=` only
    ("s = 1j\nfor i in range(3):\n    s += x[i]\n", "complex"),
    ("s = True\nfor i in range(3):\n    s = s and x[i]\n", "bool"),
    ("s = 0.0\nfor k in range(2):\n    s = 1.0\n    for i in range(3):\n        s += x[i]\n", "float"),
])
def test_a_number_literal_reaching_every_read_is_known(body, kind):
    assert _entry(body) == kind


@pytest.mark.parametrize("body", [
    "s = c\nfor i in range(3):\n    s += x[i]\n",                                  # a parameter
    "s = 0.0\nif c:\n    s = x\nfor i in range(3):\n    s += x[i]\n",            # another binding reaches
    "s = 0.0\nfor k in range(2):\n    for i in range(3):\n        s += x[i]\n    s = x\n",  # the outer loop rebinds
    "s = 0.0\ns = np.float32(0)\nfor i in range(3):\n    s += x[i]\n",          # the literal is not the last
    "s = 0\nfor i in range(3):\n    s = 0.5\n    t = s\n",                         # no read reaches from outside
    "s = 0\nif c:\n    s = 0.5\nfor i in range(3):\n    s += x[i]\n",              # an int or a float
])
def test_anything_else_reaching_a_read_is_not_known(body):
    assert _entry(body, "s") is None


def test_a_literal_start_drops_its_run_time_check():
    """`G = 0.0` before discounted returns: the check that `G` is a number of rank 0 always
    holds; the parameter `gamma` keeps its check."""
    source = ("import numpy as np\n\ndef f(r, gamma):\n    G = 0.0\n    out = np.zeros(len(r))\n"
              "    for t in reversed(range(len(r))):\n        G = r[t] + gamma * G\n        out[t] = G\n"
              "    return out, G\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, result.plans[0].remarks
    assert "isinstance(gamma" in result.code and "isinstance(G" not in result.code and "np.ndim(G)" not in result.code
    r = np.random.default_rng(0).normal(size=40)
    want, got = run_module(source)["f"](r, 0.9), run_module(result.code)["f"](r, 0.9)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert type(got[1]) is type(want[1])


def test_a_product_from_one_number_is_taken_in_the_loops_order():
    """`s *= x[i]` from `s = 1e-300`: `s * np.prod(x)` would overflow to inf where the loop's
    running product comes back to 1e-10; `np.prod(x, initial=s)` multiplies in order."""
    source = "import numpy as np\n\ndef f(x):\n    s = 1e-300\n    for i in range(len(x)):\n        s *= x[i]\n    return s\n"
    result = transpile_source(source, "m.py", shapes={"x": 1})
    assert result.plans[0].rewritten and "initial=s" in result.code, result.code
    x = np.array([1e300, 1e300, 1e-300, 1e-10])
    assert run_module(result.code)["f"](x) == run_module(source)["f"](x) == 1e-10


def test_a_bound_is_clamped_at_zero_only_where_the_loop_may_not_run():
    """`range(len(x) - 1)`: the slice `x[:len(x) - 1]` would be all rows but one for an empty
    `x`, so it is clamped (`np.maximum(len(x) - 1, 0)`) where the batched code runs whatever
    the trip count, and not where it runs only where the loop does (a check in front, such as
    a scan's `len(b) > 1`)."""
    scan = ("import numpy as np\n\ndef f(b, r):\n    for t in range(1, len(b)):\n"
            "        b[t] = b[t - 1] + r[t - 1]\n    return b\n")
    # (an array the function makes: its rank is the code's, no check in front)
    plain = ("import numpy as np\n\ndef f(n):\n    x = np.arange(float(n)) ** 2\n    out = np.zeros(len(x))\n"
             "    for t in range(len(x) - 1):\n        out[t] = x[t + 1] - x[t]\n    return out\n")
    code = transpile_source(scan, "m.py", shapes={"b": 1, "r": 1}).code
    assert "len(b) > 1" in code and "r[:len(b) - 1]" in code and "maximum" not in code, code
    code2 = transpile_source(plain, "m.py", line_length=200).code
    assert "np.maximum(len(x) - 1, 0)" in code2 and " > 0" not in code2, code2
    for n in (0, 1, 2, 9):
        b, r = np.arange(float(n)), np.linspace(0.0, 1.0, max(n - 1, 0) + 3)
        np.testing.assert_array_equal(run_module(code)["f"](b.copy(), r), run_module(scan)["f"](b.copy(), r))
        np.testing.assert_array_equal(run_module(code2)["f"](n), run_module(plain)["f"](n))
