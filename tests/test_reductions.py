"""Reduction discovery (``transpile/analysis/reductions.py``): which spellings of ``s ⊕= t`` are
reductions and which only look like one, argmax/argmin tracking, and the first-iteration form.

Each loop is classified by the analysis; the expectation is the class (and the operator, as the
remark names it) read off the loop by hand.
"""

from __future__ import annotations

import textwrap
import types

import gast
import pytest

from pforge.transpile import analyze_source
from pforge.transpile.analysis import contribution, reduction_term
from pforge.transpile.analysis.reductions import _first_assigned, _first_value, _pairs_assigned
from pforge.transpile.frontend import ImportMap


def _level(body: str, init: str = "s = 0.0", module: bool = False):
    """The outer level's classes and the plan's first remark for ``for i in range(len(x)): body``."""
    loop = f"{init}\nfor i in range(len(x)):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"
    if module:
        source = "import numpy as np\nx = np.ones(3)\ny = np.ones(3)\nv = True\n" + loop
    else:
        source = "import numpy as np\n\ndef f(x, y, v, names):\n" + textwrap.indent(loop, "    ") + "    return s\n"
    plans = [p for p in analyze_source(source, "t.py") if p.function == ("" if module else "f") or module]
    # (a loop split by loop distribution: its pieces' classes together)
    classes = {name: cls for p in plans if p.lineno == plans[0].lineno for name, cls in p.levels[0].classes}
    return classes, plans[0].remarks[0].message


@pytest.mark.parametrize("body, op", [
    ("s += x[i]", "add"),
    ("s -= x[i]", "add"),
    ("s = s + x[i]", "add"),
    ("s = x[i] * 2.0 + s", "add"),        # the running value on the right
    ("s = s - x[i]", "add"),
    ("s *= x[i]", "mul"),
    ("s = x[i] * s", "mul"),
    ("s = max(s, x[i])", "max"),
    ("s = max(x[i], s)", "max"),
    ("s = np.minimum(s, x[i])", "min"),
    ("s = np.minimum(x[i], s)", "min"),
])
def test_reduction_spellings(body, op):
    classes, remark = _level(body)
    assert classes["s"] == "reduction", (classes, remark)
    assert f"{op} reduction s" in remark, remark


@pytest.mark.parametrize("init, body", [
    ("s = False", "s = s or x[i] > 0"),
    ("s = False", "s = s or (x[i] > 0 and y[i] < 1)"),
    ("s = False", "s = s or np.isnan(x[i])"),
    ("s = False", "s = s or (x[i] > 0 and np.isnan(y[i]))"),
    ("s = True", "s = s and not x[i]"),
    ("s = False", "s |= x[i] > 0"),
])
def test_boolean_reductions(init, body):
    classes, remark = _level(body, init)
    assert classes["s"] == "reduction", (classes, remark)


@pytest.mark.parametrize("init, body", [
    ("s = 0.0", "s += s * x[i]"),           # the term reads the running value
    ("s = 0.0", "s = x[i] - s"),            # alternates signs: a recurrence
    ("s = 0.0", "s = s * x[i] + 1.0"),
    ("s = 0.0", "s = max(x[i], y[i])"),     # the running value is not an operand: the last one
    ("s = 0.0", "s = np.maximum(x[i], y[i] + s)"),
    ("s = 0.0", "s = foo(s, x[i])"),        # no known operator
    ("s = False", "s = v or x[i] > 0"),     # `or` of another name
    ("s = False", "s = s or x[i]"),         # `or` returns an operand, not a bool
    ("s = False", "s = s or (x[i] and y[i])"),
    ("s = v", "s = s + str(x[i])"),         # concatenation keeps the order
    ("s = v", "s = s + repr(x[i])"),
    ("s = v", "s = s + list(x[i])"),
    ("s = v", "s = s + tuple(x[i])"),
    ("s = v", "s = s * tuple(x[i])"),
    ("s = v", "s = s + sorted(x[i])"),
    ("s = v", "s += [x[i]]"),
    ("s = ''", "s += names[i]"),            # a string start: concatenation whatever the term
    ("s = True", "s = s and x[i]"),         # `and` returns an operand
    ("s = 1", "s *= 'ab'"),                 # repetition of a sequence
    ("s = x[-1]", "s += x[i]"),             # `+=` on a row of x writes into x
    ("s = 0.0", "s += x[i]\ny[i] = s"),      # the running value read in the loop
    ("s = 0.0", "t = s\ns += x[i]"),
])
def test_not_reductions(init, body):
    classes, remark = _level(body, init)
    assert classes.get("s") != "reduction", (classes, remark)


#: a name that is not a reduction, stored before `s` in the loop, must not stop the search
@pytest.mark.parametrize("init, first", [
    ("u = 0.0", "u = x[i] * 2.0"),                       # a private
    ("u = ''", "u += names[i]"),                         # a string start
    ("u = v", "u += [x[i]]"),                            # a sequence term
    ("u = 0.0", "u += x[i]\n    u *= 2.0"),              # two operators
    ("u = x[-1]", "u += x[i]"),                          # a view
    ("u = 0.0", "u += x[i]\n    y[i] = u"),              # read in the loop
    ("u = True", "u = u and x[i]"),
])
def test_a_reduction_after_another_name(init, first):
    body = f"{first}\ns += x[i]".replace("\n    ", "\n")
    classes, remark = _level(body, f"{init}\ns = 0.0")
    assert classes["s"] == "reduction" and classes.get("u") != "reduction", (classes, remark)


def test_a_reduction_after_an_argmax():
    """The argmax's names are classified first; the search goes on past them."""
    classes, remark = _level("if x[i] > u:\n    u, k = x[i], i\ns += x[i]", "u = 0.0\nk = 0\ns = 0.0")
    assert classes["s"] == "reduction" and classes["k"] == "arg reduction", (classes, remark)


#: an `if` that is not an argmax, before one that is
@pytest.mark.parametrize("first", [
    "if x[i] > 0.5:\n    k = 1.0\n    m = 2.0",              # the comparator is no name
    "if x[i] > c:\n    k = 1.0",                             # one name assigned
    "if x[i] > c:\n    c, k = y[i], i",                       # keeps another value than it compares
    "if x[i] > c:\n    c, k = x[i], i\ny[i] = k",             # the index read elsewhere
])
def test_an_arg_reduction_after_another_if(first):
    classes, remark = _level(first + "\nif x[i] > best:\n    best, at = x[i], i", "best = 0.0\nat = 0\nc = 0.0")
    assert classes["best"] == "reduction" and classes["at"] == "arg reduction", (classes, remark)


def _first_assign_classes(body: str, params: str = "x, y, a"):
    source = (f"import numpy as np\n\ndef f({params}):\n    s = 5.0\n"
              + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n    return s\n")
    plans = [p for p in analyze_source(source, "t.py")]
    return dict(plans[-1].levels[0].classes)


@pytest.mark.parametrize("body, reduction", [
    ("for i in range(len(x)):\n    if i == 0:\n        s = x[i]\n    else:\n        s += x[i]\n    y[i] = x[i]", True),
    ("for i in range(len(x)):\n    t = x[i] * 2.0\n    if i == 0:\n        s = t\n    else:\n        s += t", True),
    ("for v in x:\n    y[0] = v\nfor i in range(len(x)):\n    if i == 0:\n        s = x[i]\n    else:\n        s += x[i]", True),
    ("for i in range(a, len(x)):\n    if i == a:\n        s = x[i]\n    else:\n        s += x[i]", True),
    ("for i in range(a, len(x)):\n    if i == a:\n        s = x[i]\n    else:\n        s += x[i]\n    a = 0", False),
    ("for i in range(len(x)):\n    if i == 0:\n        s = x[i]\n    else:\n        s += x[i]\n    i = 0", False),
    ("for i in range(len(x)):\n    if i == 0:\n        s = x[i]\n    else:\n        s += x[i]\n    s = 1.0", False),
    ("for i in range(len(x)):\n    if i == 0:\n        t = x[i]\n    else:\n        t = 1.0\n"
     "    if i == 0:\n        s = x[i]\n    else:\n        s += x[i]", True),
    ("for i in range(len(x)):\n    if i == 0:\n        t = x[i]\n    else:\n        t += x[i]\n    t = 0.0\n"
     "    if i == 0:\n        s = x[i]\n    else:\n        s += x[i]", True),   # t is bound again
])
def test_first_iteration_reduction_in_context(body, reduction):
    classes = _first_assign_classes(body)
    assert (classes.get("s") == "reduction") is reduction, classes
    if "y[i] = x[i]" in body:
        assert "y" in classes, classes  # the statement after the `if` is kept


def test_the_start_is_the_functions_own():
    """A string bound to the same name at module level is another variable."""
    source = ("import numpy as np\ns = ''\n\ndef f(x):\n    s = 0.0\n    for i in range(len(x)):\n"
              "        s += x[i]\n    return s\n")
    (plan,) = [p for p in analyze_source(source, "t.py") if p.function == "f"]
    assert dict(plan.levels[0].classes)["s"] == "reduction"


def test_a_module_level_string_start_is_seen():
    classes, remark = _level("s += y[i]", "s = ''", module=True)
    assert classes.get("s") != "reduction", (classes, remark)
    classes, remark = _level("s += y[i]", "s = 0.0", module=True)
    assert classes["s"] == "reduction", (classes, remark)


@pytest.mark.parametrize("body, op", [
    ("if x[i] > best:\n    best = x[i]\n    at = i", "argmax"),
    ("if x[i] > best:\n    best, at = x[i], i", "argmax"),
    ("if best < x[i]:\n    best, at = x[i], i", "argmax"),
    ("if x[i] <= best:\n    at, best = i, x[i]", "argmin"),
])
def test_arg_reductions(body, op):
    classes, remark = _level(body, "best = 0.0\nat = 0")
    assert classes["best"] == "reduction" and classes["at"] == "arg reduction", (classes, remark)
    assert f"{op} at of best" in remark and f"{op[3:]} reduction best" in remark, remark


def test_arg_reductions_of_several_values():
    """Each value the `if` takes where the extreme is reached is tracked (`k = 0` as well)."""
    classes, remark = _level("if x[i] > best:\n    best, at, k = x[i], i, 0", "best = 0.0\nat = 0\nk = -1")
    assert classes["best"] == "reduction" and classes["at"] == classes["k"] == "arg reduction", (classes, remark)
    assert "argmax at of best" in remark and "argmax k of best" in remark, remark


@pytest.mark.parametrize("body", [
    "if x[i] > best:\n    best, at = y[i], i",           # keeps another value than it compares
    "if x[i] > best:\n    best, at = x[i]",
    "if x[i] > best:\n    (best, at), k = (x[i], i), 0",
    "if x[i] > best:\n    best = x[i]\n    best = i",
])
def test_not_arg_reductions(body):
    classes, remark = _level(body, "best = 0.0\nat = 0")
    assert classes.get("at") != "arg reduction", (classes, remark)


def _stmt(text: str) -> gast.stmt:
    return gast.parse(textwrap.dedent(text)).body[0]


@pytest.mark.parametrize("text, term, signed", [
    ("s += x[i]", "x[i]", "x[i]"),
    ("s -= x[i]", "x[i]", "-x[i]"),
    ("s = s - x[i]", "x[i]", "-x[i]"),
    ("s = s + x[i]", "x[i]", "x[i]"),
    ("s = x[i] + s", "x[i]", "x[i]"),
    ("s += a - b", "a - b", "a - b"),
    ("s = s or x[i] > 0", "x[i] > 0", "x[i] > 0"),
    ("s = max(s, x[i])", "x[i]", "x[i]"),
    ("s = max(x[i], s)", "x[i]", "x[i]"),
])
def test_terms_and_their_signs(text, term, signed):
    stmt = _stmt(text)
    assert gast.unparse(reduction_term(stmt, "s")).strip() == term
    assert gast.unparse(contribution(stmt, "s")).strip() == signed


@pytest.mark.parametrize("text, pairs", [
    ("a, b = x, y", {"a": "x", "b": "y"}),
    ("a = x\nb = y", {"a": "x", "b": "y"}),
    ("a = x, y", {"a": "(x, y)"}),
    ("a, b = t", None),
    ("a, b = x, y, z", None),
    ("a = x\na = y", None),
    ("a += x", None),
    ("a = b = x", None),
    ("a[0] = x", None),
])
def test_pairs_assigned(text, pairs):
    found = _pairs_assigned(gast.parse(text).body)
    assert (None if found is None else {k: gast.unparse(v).strip() for k, v in found.items()}) == pairs


@pytest.mark.parametrize("text, found", [
    ("if i == 0:\n    s = x[i]\nelse:\n    s += x[i]", "s += x[i]"),
    ("if 0 == i:\n    s = x[i]\nelse:\n    s = s + x[i]", "s = s + x[i]"),
    ("if i == 0:\n    s = x[i]\nelse:\n    s = x[i] + s", "s = x[i] + s"),
    ("if i == 0:\n    s = x[i]\nelse:\n    s *= x[i]", "s *= x[i]"),
    ("if i == 0:\n    s = x[i]\nelse:\n    s = x[i] * s", "s = x[i] * s"),
    ("if i == 1:\n    s = x[i]\nelse:\n    s += x[i]", None),          # not the first index
    ("if i == i:\n    s = x[i]\nelse:\n    s += x[i]", None),
    ("if j == 0:\n    s = x[i]\nelse:\n    s += x[i]", None),
    ("if i != 0:\n    s = x[i]\nelse:\n    s += x[i]", None),
    ("if i == 0:\n    s += x[i]\nelse:\n    s += x[i]", None),          # the first branch updates
    ("if i == 0:\n    s, t = x[i], 0\nelse:\n    s += x[i]", None),
    ("if i == 0:\n    s = t = x[i]\nelse:\n    s += x[i]", None),
    ("if i == 0:\n    s = x[i]\nelse:\n    s -= x[i]", None),          # the first term would be +
    ("if i == 0:\n    s = x[i]\nelse:\n    s = s - x[i]", None),
    ("if i == 0:\n    s = x[i]\nelse:\n    s = max(s, x[i])", None),
    ("if i == 0:\n    s = x[i]\nelse:\n    t = s + x[i]", None),
    ("if i == 0:\n    s = x[i]\nelse:\n    s, t = s + x[i], 0", None),
    ("if i == 0:\n    s = x[i]\nelse:\n    s = y[i] + x[i]", None),
    ("if i == 0:\n    s = x[i]\nelse:\n    s = t + s", None),           # another term
    ("if i == 0:\n    s = x[i] + s\nelse:\n    s += x[i] + s", None),   # the term reads s
])
def test_first_iteration_forms(text, found):
    got = _first_assigned(_stmt(text), "i", gast.Constant(value=0, kind=None))
    assert (None if got is None else (got[0], gast.unparse(got[1]).strip())) == (
        None if found is None else ("s", found))


@pytest.mark.parametrize("loop, first", [
    ("for i in range(n): pass", ("i", "0")),
    ("for i in range(2, n): pass", ("i", "2")),
    ("for i in range(2, n, 3): pass", ("i", "2")),
    ("for i in range(n, 0, -1): pass", ("i", "n")),
    ("for i in range(a, b, c, d): pass", None),
    ("for i in range(len(x), 0, -1): pass", None),     # only arithmetic is compared as written
    ("for i in range(n, step=2): pass", None),
    ("for i, j in range(n): pass", None),
    ("for k, v in enumerate(x): pass", ("k", "0")),
    ("for k, v in enumerate(x, 1): pass", ("k", "1")),
    ("for k, v in enumerate(x, s): pass", None),
    ("for k, v in enumerate(x, 1, 2): pass", None),
    ("for t in enumerate(x): pass", None),             # t is a pair, never the index
    ("for a, b in zip(x, y): pass", None),
    ("for a in x: pass", None),
])
def test_first_value_of_the_index(loop, first):
    tree = gast.parse(loop)
    found = _first_value(types.SimpleNamespace(imports=ImportMap.from_module(tree)), tree.body[0])
    assert (None if found is None else (found[0], gast.unparse(found[1]).strip())) == first
