"""Ranks read from the docstring styles people write (numpydoc, Google, Sphinx), and a loop
documented that way rewritten with no ``--shapes``."""

from __future__ import annotations

import textwrap

import gast
import numpy as np
import pytest

from conftest import assert_exit, assert_same_numbers, invoke, write
from pforge.transpile import transpile_source
from pforge.transpile.ranks import docstring_shapes

#: style -> (docstring body, {param: (rank, dims)}); `t` is documented without a shape
STYLES = {
    "numpydoc": ("""
        Parameters
        ----------
        x : ndarray of shape (n, d)
            The data.
        w : (d,) array_like
            Weights.
        s : float
        t : tuple (a, b) of ints
        """, {"x": (2, ("n", "d")), "w": (1, ("d",)), "s": (0, ())}),
    "google-type-in-parentheses": ("""
        Args:
            x (np.ndarray): [n, d] the data.
            w: array of shape (d,)
            s (float): the step.
            t: a tuple (a, b) of ints.
        """, {"x": (2, ("n", "d")), "w": (1, ("d",)), "s": (0, ())}),
    "google-brackets": ("""
        Args:
            x: float32 [n, d].
            w: float32 [d].
            s: scalar.
            t: anything.
        """, {"x": (2, ("n", "d")), "w": (1, ("d",)), "s": (0, ())}),
    "sphinx": ("""
        :param x: the data
        :type x: ndarray, shape (n, d)
        :param w: weights, shape (d,)
        :param s: the step
        :type s: int
        :param t: pairs (a, b)
        """, {"x": (2, ("n", "d")), "w": (1, ("d",)), "s": (0, ())}),
}

#: the check that `w`, which the code does not show to be an array, is one or a flat list of numbers
FLAT_W = ("(type(w) is np.ndarray or isinstance(w, (int, float, complex, np.number)) or (isinstance(w, (list, tuple)) "
          "and all((type(v) is int or isinstance(v, float) for v in w)))) and ")


@pytest.mark.parametrize("style", sorted(STYLES))
def test_docstring_style_gives_ranks(style):
    body, want = STYLES[style]
    doc = "Sums.\n" + textwrap.indent(textwrap.dedent(body), "    ")
    fdef = gast.parse(f"def f(x, w, s, t):\n    '''{doc}'''\n").body[0]
    got = {name: (shape.rank, shape.dims) for name, shape in docstring_shapes(fdef).items()}
    assert got == want


NUMPYDOC_LOOP = '''
import numpy as np


def scaled_rows(x, w, s):
    """Scales each row.

    Parameters
    ----------
    x : ndarray of shape (n, d)
    w : (d,) array_like
    s : float
    """
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.tanh(x[i] * w) * s
    return out
'''


def test_numpydoc_loop_is_rewritten_without_shapes():
    result = transpile_source(NUMPYDOC_LOOP, "m.py")
    plan = result.plans[0]
    assert result.changed and plan.backend == "direct", [r.message for r in plan.remarks]
    want, got = {}, {}
    exec(compile(NUMPYDOC_LOOP, "<loop>", "exec"), want)
    exec(compile(result.code, "<rewrite>", "exec"), got)
    rng = np.random.default_rng(0)
    for n in (0, 1, 4):
        x, w = rng.normal(size=(n, 3)), rng.normal(size=3)
        assert_same_numbers(want["scaled_rows"](x, w, 0.5), got["scaled_rows"](x, w, 0.5), where=f"n={n}")


LOCAL_RANK = '''
import numpy as np


def f(x, w):
    h = np.asarray(w)
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * h
    return out
'''


@pytest.mark.parametrize("option, message", [
    ("x=2,y=1", "--shapes: `y` is not a parameter or local variable of any function in"),
    ("g.x=2", "--shapes: `g.x` names no parameter or local variable of a function `g` in"),
])
def test_shapes_option_rejects_unknown_names(tmp_path, option, message):
    path = write(tmp_path, "m.py", LOCAL_RANK)
    result = invoke("transpile", "--shapes", option, path)
    assert_exit(result, 2)
    assert message in result.output
    assert path.read_text() == LOCAL_RANK


def test_shapes_option_gives_a_local_its_rank(tmp_path):
    path = write(tmp_path, "m.py", LOCAL_RANK)
    without = invoke("transpile", "--shapes", "x=2", path)
    assert_exit(without, 0)  # `h` is `w` as an array: its rank is checked at run time
    # (and `x`'s, declared: the user's word, checked too)
    assert "if " + FLAT_W + "np.ndim(w) <= 1 and type(x) is np.ndarray and x.ndim == 2 and x.shape[0] > 0:" in without.output
    result = invoke("transpile", "--shapes", "x=2,f.h=1", path)
    assert_exit(result, 0)
    assert "if np.ndim(h) <= 1 and type(x) is np.ndarray and x.ndim >= 2 and x.shape[0] > 0:\n        out[...] = x * h" in result.output
    code = result.output[result.output.index("import numpy"):]
    want, got = {}, {}
    exec(compile(LOCAL_RANK, "<loop>", "exec"), want)
    exec(compile(code, "<rewrite>", "exec"), got)
    x, w = np.arange(6.0).reshape(3, 2), np.array([0.5, -2.0])
    assert_same_numbers(want["f"](x, w), got["f"](x, w))


def _same(source, result, name, *args):
    want, got = {}, {}
    exec(compile(source, "<loop>", "exec"), want)
    exec(compile(result.code, "<rewrite>", "exec"), got)
    assert_same_numbers(want[name](*args), got[name](*args), where=result.code)


SCALED_ATTENTION = '''
import math

import numpy as np


def attention(q, k, v):
    """One query at a time.

    Args:
        q: float [n, d]
        k: float [m, d]
        v: float [m, e]
    """
    scale = 1.0 / math.sqrt(q.shape[1])
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        s = k @ q[i] * scale
        w = np.exp(s - s.max())
        out[i] = (w / w.sum()) @ v
    return out
'''


def test_a_math_result_is_a_scalar():
    """`scale = 1.0 / math.sqrt(...)` is a Python number: its rank is 0, not unknown."""
    result = transpile_source(SCALED_ATTENTION, "m.py")
    assert result.changed and result.plans[0].backend == "direct", [r.message for r in result.plans[0].remarks]
    rng = np.random.default_rng(2)
    _same(SCALED_ATTENTION, result, "attention", rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2)))


FROM_NUMPY = '''
from numpy import tanh


def positives(x):
    """Args:
        x: float [n]
    """
    s = 0
    for i in range(len(x)):
        if tanh(x[i]) > 0.5:
            s += 1
    return s
'''


def test_a_module_that_imports_from_numpy_gets_numpy_imported():
    result = transpile_source(FROM_NUMPY, "m.py")
    assert result.changed, [r.message for r in result.plans[0].remarks]
    assert result.code.startswith("\nimport numpy as np\nfrom numpy import tanh\n")
    _same(FROM_NUMPY, result, "positives", np.array([0.1, 2.0, -3.0, 0.9]))
    taken = FROM_NUMPY.replace("    s = 0\n", "    s = 0\n    np = 1\n").replace("return s", "return s + np")
    kept = transpile_source(taken, "m.py")  # `np` is taken: nothing to import under that name
    assert not kept.changed
    assert "does not import numpy" in kept.plans[0].remarks[-1].message


RANGE_ARGUMENT = '''
import numpy as np


def every_other(x, step, offset):
    """Args:
        x: float [n]
    """
    out = np.zeros(len(x))
    for i in range(offset, len(x), step * 2):
        out[i] = x[i] * step - offset
    return out
'''


def test_a_range_argument_is_a_scalar():
    """`range()` takes only integers, so `step` and `offset` have rank 0 (and so does an
    operand of integer arithmetic there: `step * 2`)."""
    result = transpile_source(RANGE_ARGUMENT, "m.py")
    assert result.changed and result.plans[0].backend == "direct", [r.message for r in result.plans[0].remarks]
    for step, offset in ((1, 0), (2, 1), (3, 5)):
        _same(RANGE_ARGUMENT, result, "every_other", np.arange(7.0) - 2.0, step, offset)


@pytest.mark.parametrize("line, want", [
    # an interval, not a shape; the leading type is a scalar's, as in Google style's `(float)`
    ("gamma: float, the discount factor, in [0, 1].", (0, ())),
    ("gamma: the discount factor, in [0, 1].", None),
    ("gamma: float or array, the discount factor.", None),
    ("gamma (float): a probability in [0, 1]", (0, ())),
    ("x: float32 [n, d].", (2, ("n", "d"))),
    ("x: float32 tensor of shape [n, 3].", (2, ("n", None))),
    ("x: the rows, an array [n].", (1, ("n",))),
    ("x: [batch, 4], the boxes.", (2, ("batch", None))),
])
def test_a_bracket_is_a_shape_right_after_an_array_word(line, want):
    name = line.split(":")[0].split(" ")[0]
    doc = f"Doc.\n\n    Args:\n      {line}\n    "
    fdef = gast.parse(f"def f({name}):\n    '''{doc}'''\n").body[0]
    got = {k: (v.rank, v.dims) for k, v in docstring_shapes(fdef).items()}
    assert got == ({} if want is None else {name: want})
