"""What the loop computes the same way on every iteration: a name that keeps its constant value
because the branches storing it never run (``rem = 0``; ``if rem != 0: rem = ...``), a
conditional expression whose test is an invariant, and a private bound to an invariant value
and read after the loop. Each rewrite is checked to happen, then against the loop."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source


def _run(code, name, *args):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace[name](*args)


def _plans(source):
    result = transpile_source(source, "m.py")
    return result, {p.function: p for p in result.plans}


CONSTANT = textwrap.dedent("""\
    import numpy as np


    def stretch(counts):
        running = 0
        rem = 0
        table = []
        total = np.sum(counts)
        for i in range(len(counts)):
            running += counts[i] / total
            last = 255 * running
            if rem != 0:
                rem = int(last % last)
            table.append(int(last + 1 if rem >= 0.5 else last))
        return table


    def live(counts):
        rem = 0
        out = np.zeros(len(counts))
        for i in range(len(counts)):
            if rem > 0 or counts[i] > 3:
                rem = counts[i]
            out[i] = counts[i] * 2 + rem
        return out


    def from_a_parameter(counts, rem):
        out = np.zeros(len(counts))
        for i in range(len(counts)):
            if rem != 0:
                rem = counts[i]
            out[i] = counts[i] + rem
        return out


    def bound_twice(counts, flag):
        rem = 0
        if flag:
            rem = 1
        out = np.zeros(len(counts))
        for i in range(len(counts)):
            if rem != 0:
                rem = counts[i]
            out[i] = counts[i] + rem
        return out
    """)


def test_a_branch_that_never_runs_leaves_its_name_a_constant():
    """`rem` is 0 before the loop and stored only under `rem != 0`: it stays 0, the branch is
    dropped, and the loop is a scan (thealgorithms' histogram stretch)."""
    result, plans = _plans(CONSTANT)
    assert plans["stretch"].rewritten, [r.message for r in plans["stretch"].remarks]
    batched = result.code.split("def live")[0].split("else:")[0]
    assert "rem = int(" not in batched and "np.add.accumulate" in batched
    rng = np.random.default_rng(0)
    for counts in (rng.integers(0, 50, 256).astype(float), np.array([3.0]), rng.random(7)):
        want, got = _run(CONSTANT, "stretch", counts), _run(result.code, "stretch", counts)
        assert got == want and all(type(v) is int for v in got)


@pytest.mark.parametrize("name", ["live", "from_a_parameter", "bound_twice"])
def test_a_branch_that_may_run_keeps_the_loop(name):
    """A test true for some data (`rem > 0 or counts[i] > 3`), a value not known before the
    loop (a parameter), or a name bound twice before it: the stores may run, and the value is
    carried."""
    _, plans = _plans(CONSTANT)
    assert not plans[name].rewritten
    assert any(r.code == "PF201" for r in plans[name].remarks), [r.message for r in plans[name].remarks]


CHOICE = textwrap.dedent("""\
    import numpy as np


    def choose(x, flag):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2 if flag else x[i] + 1
        return out


    def two_kinds(x, flag):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2 if flag else 0.5
        return out
    """)


def test_a_conditional_expression_with_an_invariant_test_chooses_one_batched_arm():
    """Every iteration takes the same arm: `x * 2 if flag else x + 1`, Python's conditional of
    the batched arms; an arm that is one number on every iteration keeps the loop."""
    result, plans = _plans(CHOICE)
    assert plans["choose"].rewritten, [r.message for r in plans["choose"].remarks]
    assert " if flag else " in result.code.split("def two_kinds")[0].split("else:\n")[0]
    x = np.array([1.5, -2.0, 0.25])
    for flag in (True, False, 0, np.bool_(True)):
        np.testing.assert_array_equal(_run(result.code, "choose", x, flag), _run(CHOICE, "choose", x, flag))
    assert not plans["two_kinds"].rewritten
    assert any("one invariant arm" in r.message for r in plans["two_kinds"].remarks), \
        [r.message for r in plans["two_kinds"].remarks]


LIVE = textwrap.dedent("""\
    import numpy as np


    def sizes(counts, picture):
        total = np.sum(counts)
        out = np.zeros(len(counts))
        n_cols = -1
        for i in range(len(counts)):
            out[i] = counts[i] / total
            n_cols = picture[1].size
        return out, n_cols


    def doubled_length(x, c):
        out = np.zeros(len(x))
        s = -1
        for i in range(len(x)):
            out[i] = x[i] * 2
            s = len(x) * 2 + c
        return out, s


    def last_item(x):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2
            last = x[i]
        return out, last


    def written_in_the_loop(x, w):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = x[i] * 2
            first = w.sum()
            w[i % 2] = x[i]
        return out, first
    """)


def test_a_private_bound_to_an_invariant_is_read_after_the_loop():
    """`n_cols = picture[1].size` in the loop is the same on every iteration: its last value is
    computed once; an empty loop keeps the value from before it (the loop runs)."""
    result, plans = _plans(LIVE)
    assert plans["sizes"].rewritten, [r.message for r in plans["sizes"].remarks]
    assert plans["doubled_length"].rewritten, [r.message for r in plans["doubled_length"].remarks]
    picture = np.zeros((3, 4))
    for counts in (np.array([1.0, 3.0]), np.array([])):
        for name, args in (("sizes", (counts, picture)), ("doubled_length", (counts, 0.5))):
            want, got = _run(LIVE, name, *args), _run(result.code, name, *args)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1] == want[1], (name, counts, want, got)


@pytest.mark.parametrize("name, why", [
    # the last item, a NumPy scalar or a Python float (of a list) where the batched values'
    # last is a NumPy scalar: the value is no invariant, and its kind is not kept
    ("last_item", "may be a 0-d array or a number of a kind"),
    # reads an array the loop writes (a dependence before the last value matters)
    ("written_in_the_loop", "is written element by element and also used whole"),
])
def test_a_private_that_varies_is_not_read_after_the_loop(name, why):
    """`last = x[i]` holds the last item; `first = w.sum()` reads an array the loop writes."""
    _, plans = _plans(LIVE)
    assert not plans[name].rewritten
    assert any(why in r.message for r in plans[name].remarks), [r.message for r in plans[name].remarks]


# -- the analysis itself (transpile/analysis/constants.py) ----------------------------------------

import gast  # noqa: E402

from pforge.transpile.analysis import constants  # noqa: E402
from pforge.transpile.analysis.facts import LoopInfo  # noqa: E402


@pytest.mark.parametrize("text", [
    "r != 0", "r == 0", "r < 1", "r <= -1", "r > 0.5", "r >= 0", "0 < r < 2", "r is None", "r is not None",
    "not r", "-r < 1", "r + 1 == 1", "r - 2 > -3", "r * 3 == 0", "r / 2 == 0", "r // 2 == 0", "r % 2 == 0",
    "r != 0 and r > 1", "r == 0 and r < 1", "r != 0 or r > 1", "r == 0 or r > 1", "(r + 1) * 2 > 1",
])
@pytest.mark.parametrize("value", [0, 1, -1, 2.5, True, False])
def test_a_test_of_constants_folds_as_python_computes_it(text, value):
    got = constants._fold(gast.parse(text).body[0].value, {"r": value})
    try:
        want = eval(text, {}, {"r": value})  # noqa: S307 - the expression is the test's own
    except (TypeError, ZeroDivisionError):
        assert got is constants._UNKNOWN
        return
    assert got == want and type(got) is type(want), (text, value, got, want)


@pytest.mark.parametrize("text", [
    "r != q", "f(r) == 0", "r[0] == 0", "r.x == 0", "r != 'a'", "1 / r > 0", "r @ r == 0", "r in (0, 1)",
    "x[i] > 0 and r == 0",
])
def test_a_test_of_anything_else_does_not_fold(text):
    """An unknown name, a call, a subscript, a string, a division by the zero `r` holds, an
    operator it does not model: unknown, so the branch may run."""
    assert constants._fold(gast.parse(text).body[0].value, {"r": 0}) is constants._UNKNOWN


def test_and_is_false_where_a_part_is_false_whatever_the_others():
    assert constants._fold(gast.parse("x[i] > 0 and r != 0").body[0].value, {"r": 0}) is False
    assert constants._fold(gast.parse("r != 0 or x[i] > 0").body[0].value, {"r": 0}) is constants._UNKNOWN


def _loop_info(source):
    tree = gast.parse(textwrap.dedent(source))
    fdef = tree.body[0]
    loop = next(n for n in gast.walk(fdef) if isinstance(n, gast.For))
    return LoopInfo(node=loop, qualname="f", function=fdef, parent=None, body=list(loop.body))


@pytest.mark.parametrize("source, value", [
    ("def f(x):\n    r = 0\n    for i in x:\n        pass\n", 0),
    ("def f(x):\n    r = -1\n    for i in x:\n        pass\n", -1),
    ("def f(x):\n    r = True\n    for i in x:\n        pass\n", True),
    ("def f(x):\n    r = None\n    for i in x:\n        pass\n", None),
    ("def f(x):\n    r = 2 * 3\n    y = 1\n    for i in x:\n        pass\n", 6),
    ("def f(x):\n    if x:\n        r = 0.5\n        for i in x:\n            pass\n", 0.5),
    ("def f(x):\n    if x:\n        pass\n    else:\n        r = 3\n        for i in x:\n            pass\n", 3),
    ("def f(x):\n    try:\n        pass\n    finally:\n        r = 4\n        for i in x:\n            pass\n", 4),
])
def test_the_constant_a_name_holds_where_the_loop_starts(source, value):
    got = constants._constant_on_entry(_loop_info(source), "r")
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("source", [
    "def f(x, r):\n    for i in x:\n        pass\n",                               # a parameter
    "def f(x):\n    r = 0\n    r = 1\n    for i in x:\n        pass\n",             # bound twice
    "def f(x):\n    if x:\n        r = 0\n    for i in x:\n        pass\n",         # in another block
    "def f(x):\n    for i in x:\n        pass\n    r = 0\n",                         # after the loop
    "def f(x):\n    global r\n    r = 0\n    for i in x:\n        pass\n",          # a global
    "def f(x):\n    r = x[0]\n    for i in x:\n        pass\n",                     # not a constant
    "def f(x):\n    r = 'a'\n    for i in x:\n        pass\n",                      # not a number
    "def f(x):\n    r = 0\n    def g():\n        r = 1\n    for i in x:\n        pass\n",  # a helper's own
])
def test_no_constant_where_the_name_may_hold_another_value(source):
    assert constants._constant_on_entry(_loop_info(source), "r") is constants._UNKNOWN


def test_each_false_branch_is_dropped_and_its_else_kept():
    """`if r != 0: ... elif c: A else: B` keeps the `elif` (the `else` part of the dropped
    test); a false test inside another `if` is dropped from that one; the loop's statements are
    not changed."""
    info = _loop_info("""\
        def f(x, c, out):
            r = 0
            for i in range(len(x)):
                if r != 0:
                    r = x[i]
                elif c > 0:
                    out[i] = 1.0
                else:
                    out[i] = 2.0
                if x[i] > 0:
                    if r > 0:
                        r = 2
                    out[i] += r
        """)
    original = gast.dump(info.node)
    constants.fold_dead_branches(info)
    assert gast.dump(info.node) == original
    assert not any(isinstance(n, gast.Name) and n.id == "r" and isinstance(n.ctx, gast.Store)
                   for s in info.body for n in gast.walk(s))
    first, second = info.body
    assert gast.unparse(first.test).strip() == "c > 0"
    assert gast.unparse(second).count("r = ") == 0 and "out[i] += r" in gast.unparse(second)
    assert len(info.notes) == 1 and "`r` keeps its value 0" in info.notes[0]


def test_a_branch_is_dropped_only_where_it_leaves_the_name_unbound():
    """`if r != 0: r = ...` and, later, `r = x[i]`: `r` is stored on every iteration, so the
    body is left as it is; `if flag != 0` of a constant `flag` that no statement stores is no
    concern either."""
    info = _loop_info("""\
        def f(x):
            r = 0
            flag = 0
            for i in range(len(x)):
                if r != 0:
                    r = 1
                if flag != 0:
                    x[i] = 0
                r = x[i]
        """)
    body = list(info.body)
    constants.fold_dead_branches(info)
    assert info.body == body and not info.notes


@pytest.mark.parametrize("text", ["-r", "r * 3", "3 * r", "r + r"])
def test_arithmetic_on_a_string_does_not_fold(text):
    """Only numbers (and None) are folded: `-'a'` raises, `'a' * 3` is no number a test reads."""
    assert constants._fold(gast.parse(text).body[0].value, {"r": "a"}) is constants._UNKNOWN


def test_and_of_known_parts_is_false_where_a_part_is_a_falsy_non_number():
    """`r > 0 and s` with `s = ''`: every part known, one falsy: the test is false (all, not any)."""
    got = constants._fold(gast.parse("r > 0 and s").body[0].value, {"r": 1, "s": ""})
    assert got is not constants._UNKNOWN and not got
    assert constants._fold(gast.parse("r > 0 or s").body[0].value, {"r": 1, "s": ""}) is True


def _stores_of(info, name):
    return [n for s in info.body for n in gast.walk(s)
            if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)]


def test_every_name_with_a_branch_that_never_runs_is_folded():
    """`q` and `r` each keep their constant: both branches go, one note each."""
    info = _loop_info("""\
        def f(x, out):
            q = 0
            r = 0
            for i in range(len(x)):
                if q != 0:
                    q = x[i]
                if r != 0:
                    r = x[i]
                out[i] = x[i] + q + r
        """)
    constants.fold_dead_branches(info)
    assert not _stores_of(info, "q") and not _stores_of(info, "r")
    assert len(info.body) == 1 and len(info.notes) == 2


@pytest.mark.parametrize("test", ["1 < 0", "r == 0", "r >= 0 and x[i] != 5"])
def test_a_branch_stays_where_its_test_does_not_read_the_name_or_holds(test):
    """`if 1 < 0:` is false of constants alone (the user's to see, left); `r == 0` holds where
    the loop starts, so its branch runs and `r` is carried; a test that may hold, kept."""
    info = _loop_info(f"""\
        def f(x, out):
            r = 0
            for i in range(len(x)):
                if {test}:
                    r = x[i]
                out[i] = r
        """)
    body = list(info.body)
    constants.fold_dead_branches(info)
    assert info.body == body and not info.notes


def test_a_false_elif_is_dropped_with_its_if():
    """`if r != 0: ... elif r > 5: ... else: B`: both tests are false where `r` is 0: B alone."""
    info = _loop_info("""\
        def f(x, out):
            r = 0
            for i in range(len(x)):
                if r != 0:
                    r = x[i]
                elif r > 5:
                    r = -x[i]
                else:
                    out[i] = 1.0
                out[i] += r
        """)
    constants.fold_dead_branches(info)
    assert [gast.unparse(s).strip() for s in info.body] == ["out[i] = 1.0", "out[i] += r"]


def test_a_false_branch_in_the_else_of_another_if_is_dropped_from_it():
    """The `if` that holds it is rebuilt with its `else` part (a list of statements), and the
    statements after it stay."""
    info = _loop_info("""\
        def f(x, out):
            r = 0
            for i in range(len(x)):
                if x[i] > 0:
                    out[i] = 1.0
                else:
                    if r != 0:
                        r = x[i]
                    out[i] = 2.0
                out[i] += r
        """)
    constants.fold_dead_branches(info)
    assert not _stores_of(info, "r") and len(info.body) == 2
    first, second = info.body
    assert isinstance(first.orelse, list) and [gast.unparse(s).strip() for s in first.orelse] == ["out[i] = 2.0"]
    assert gast.unparse(second).strip() == "out[i] += r"


def test_the_note_names_the_first_branch_that_never_runs():
    info = _loop_info("""\
        def f(x, out):
            r = 0
            for i in range(len(x)):
                if r != 0:
                    r = x[i]
                if x[i] > 0:
                    if r > 1:
                        r = 2
                if r < 0:
                    r = 3
                out[i] = r
        """)
    constants.fold_dead_branches(info)
    assert not _stores_of(info, "r")
    assert len(info.notes) == 1 and "line 4 never runs" in info.notes[0], info.notes


def test_and_with_a_falsy_constant_is_false_whatever_else_it_reads():
    """`'' and x[i] > 0 and r == 0` is falsy in Python whatever `x[i]` is: the branch never runs."""
    assert constants._fold(gast.parse("'' and x[i] > 0 and r == 0").body[0].value, {"r": 0}) is False
    assert constants._fold(gast.parse("'a' and x[i] > 0").body[0].value, {"r": 0}) is constants._UNKNOWN
