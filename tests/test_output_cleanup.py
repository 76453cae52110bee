"""The clean-up passes over a rewrite's batched statements (issue 15, "clean output"): copy
coalescing (``t = E; name = t`` as ``name = E``) and dead-code elimination of bindings of the
loop's privates that nothing reads. Each case gives the statements, the names the rewrite made,
and the statements that must come out; the traps are the orders in which the pass would change
what a statement reads."""

from __future__ import annotations

import ast
import textwrap
import warnings

import gast
import numpy as np
import pytest

from pforge.transpile import transpile_source
from pforge.transpile.analysis.facts import PRIVATE, LoopInfo
from pforge.transpile.backends.common import LoopRewrite
from pforge.transpile.backends.direct import _coalesce, _drop_dead_privates


def _stmts(text: str) -> list[gast.stmt]:
    return gast.parse(textwrap.dedent(text)).body


def _text(stmts) -> str:
    return "\n".join(gast.unparse(s).strip() for s in stmts)


COALESCE = [
    # the one copy: bound where the temporary was
    ("t = f(x)\nout = t", {"t"}, "out = f(x)"),
    # a statement before it that reads the old `out` keeps reading it
    ("y = out\nt = f(x)\nout = t", {"t"}, "y = out\nout = f(x)"),
    # in between, a read of `out`: moving the binding up would change what it reads
    ("t = f(x)\ny = out\nout = t", {"t"}, "t = f(x)\ny = out\nout = t"),
    # a name the user wrote is no temporary
    ("t = f(x)\nout = t", set(), "t = f(x)\nout = t"),
    # the temporary read twice: it stays
    ("t = f(x)\nout = t\nz = t + 1", {"t"}, "t = f(x)\nout = t\nz = t + 1"),
    # two temporaries, one after the other, and two copies: both go
    ("a = f(x)\nb = g(x)\nout1 = a\nout2 = b", {"a", "b"}, "out1 = f(x)\nout2 = g(x)"),
    ("a = f(x)\nout1 = a\nb = g(x)\nout2 = b", {"a", "b"}, "out1 = f(x)\nout2 = g(x)"),
]


@pytest.mark.parametrize("before, fresh, after", COALESCE, ids=[c[0].replace("\n", "; ") for c in COALESCE])
def test_copy_coalescing(before, fresh, after):
    result = LoopRewrite(_stmts(before), [], {})
    _coalesce(result, fresh)
    assert _text(result.stmts) == after


def test_a_temporary_the_checks_read_is_kept():
    result = LoopRewrite(_stmts("t = f(x)\nout = t"), [], {}, checks=[gast.parse("t > 0").body[0].value])
    _coalesce(result, {"t"})
    assert _text(result.stmts) == "t = f(x)\nout = t"


def _info(classes, live_out=()):
    info = LoopInfo.__new__(LoopInfo)
    info.classes = dict(classes)
    info.live_out = {name: None for name in live_out}
    info.live_last, info.live_invariants, info.live_targets = set(), set(), set()
    return info


@pytest.mark.parametrize("before, live_out, after", [
    # a private nothing reads goes, and then one only it read
    ("u = x[:n]\nw = u * 2\nout = f(x)", (), "out = f(x)"),
    # read by a later statement: it stays
    ("u = x[:n]\nout = u * 2", (), "u = x[:n]\nout = u * 2"),
    # read after the loop (a last value): it stays
    ("u = x[:n]\nout = f(x)", ("u",), "u = x[:n]\nout = f(x)"),
])
def test_dead_privates(before, live_out, after):
    result = LoopRewrite(_stmts(before), [], {})
    _drop_dead_privates(_info({"u": PRIVATE, "w": PRIVATE, "out": "collector"}, live_out), result)
    assert _text(result.stmts) == after


def _checks(text: str) -> list[gast.expr]:
    return [gast.parse(t.strip()).body[0].value for t in text.split(" and ")]


TYPE_TESTS = [
    # the wider test first: the narrower takes its place (what ran after the wider still runs
    # after a test of `w`'s type), the wider goes
    ("isinstance(w, (int, float, complex)) and np.ndim(w) == 0 and isinstance(w, (int, float)) and len(r) > 0",
     "isinstance(w, (int, float)) and np.ndim(w) == 0 and len(r) > 0"),
    ("isinstance(w, (int, float)) and np.ndim(w) == 0 and isinstance(w, (float, int, complex))",
     "isinstance(w, (int, float)) and np.ndim(w) == 0"),
    # `type(x) is T` implies `isinstance(x, (..., T))`, never the other way round
    ("isinstance(x, (list, np.ndarray)) and x.ndim == 2 and type(x) is np.ndarray",
     "type(x) is np.ndarray and x.ndim == 2"),
    ("type(x) is np.ndarray and isinstance(x, np.ndarray)", "type(x) is np.ndarray"),
    ("isinstance(x, np.ndarray) and type(x) is np.ndarray", "type(x) is np.ndarray"),
    # the same types spelled in another order: the later one goes
    ("isinstance(x, (int, float)) and isinstance(x, (float, int))", "isinstance(x, (int, float))"),
    # nothing implied: another name, overlapping types, a negated test, a test inside an `or`
    ("isinstance(x, int) and isinstance(y, (int, float))", "isinstance(x, int) and isinstance(y, (int, float))"),
    ("isinstance(x, (int, float)) and isinstance(x, (int, complex))",
     "isinstance(x, (int, float)) and isinstance(x, (int, complex))"),
    ("not isinstance(x, (list, tuple)) and isinstance(x, list)", "not isinstance(x, (list, tuple)) and isinstance(x, list)"),
    ("(type(x) is np.ndarray or isinstance(x, list)) and isinstance(x, (list, np.ndarray))",
     "(type(x) is np.ndarray or isinstance(x, list)) and isinstance(x, (list, np.ndarray))"),
]


@pytest.mark.parametrize("before, after", TYPE_TESTS, ids=[c[0][:60] for c in TYPE_TESTS])
def test_implied_type_tests(before, after):
    from pforge.transpile.versioning import _implied_type_tests
    tests = _implied_type_tests(_checks(before))
    joined = tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)
    assert ast.dump(ast.parse(gast.unparse(joined))) == ast.dump(ast.parse(after))


SMOOTH_FROM = textwrap.dedent("""\
    import numpy as np


    def smooth_from(signal, ema, alpha):
        out = np.zeros(len(signal))
        for t in range(len(signal)):
            ema = alpha * signal[t] + (1 - alpha) * ema
            out[t] = ema
        return out
    """)


def test_a_start_is_type_tested_once():
    """The start of a linear scan was tested as a number that may be complex and, later, as one
    that may not: one test remains, in the first one's place, and a complex or list start
    still runs the loop (which raises for a list as it does)."""
    import numpy as np

    from pforge.transpile import transpile_source
    result = transpile_source(SMOOTH_FROM, "m.py")
    assert result.plans[0].rewritten
    guard = result.code.split("    if ")[1].split(":\n")[0]
    assert guard.count("isinstance(ema, ") == 1 and "isinstance(ema, (int, float, np.number" in guard, guard
    assert guard.index("isinstance(ema, ") < guard.index("np.ndim(ema)"), guard
    module: dict = {}
    exec(compile(result.code, "m.py", "exec"), module)
    loop: dict = {}
    exec(compile(SMOOTH_FROM, "m.py", "exec"), loop)
    signal = np.linspace(0.0, 1.0, 5)
    for start in (0.5, 2, np.float32(1.5), 1 + 2j):  # (complex: the loop runs, and drops the imaginary part)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_array_equal(module["smooth_from"](signal, start, 0.5), loop["smooth_from"](signal, start, 0.5))
    with pytest.raises(TypeError):
        module["smooth_from"](signal, [[1.0], [1.0, 2.0]], 0.5)


SPHERE = textwrap.dedent("""\
    import numpy as np


    def sphere(shape, centre, radius):
        hits = []
        for ix in range(shape[0]):
            for iy in range(shape[1]):
                dist2 = (ix - centre[0]) ** 2 + (iy - centre[1]) ** 2
                if dist2 <= radius ** 2:
                    hits.append([ix, iy])
        return np.array(hits, dtype=np.int64).reshape(-1, 2)
    """)


def test_a_sum_of_squares_checks_each_term_before_the_sum():
    """The int64 checks of ``(ix - c0) ** 2 + (iy - c1) ** 2``: each difference, each square and
    the whole sum, in that order. The sum's check implies its terms', but each term's check keeps
    the sum's from running where it would raise (``1e200 ** 2`` is an ``OverflowError``, a Python
    int past int64 plus a NumPy int too), so none is dropped; Python ints past int64 run the loop."""
    import numpy as np

    from pforge.transpile import transpile_source
    result = transpile_source(SPHERE, "m.py")
    assert result.plans[0].rewritten
    guard = result.code.split("    if ")[1].split(":\n")[0]
    bounds = [c.split(" < 2 ** 63")[0] for c in guard.split(" and ") if c.endswith("< 2 ** 63")]
    assert bounds == ["abs(shape[0]) + abs(centre[0])", "(abs(shape[0]) + abs(centre[0])) ** 2",
                      "abs(shape[1]) + abs(centre[1])", "(abs(shape[1]) + abs(centre[1])) ** 2",
                      "(abs(shape[0]) + abs(centre[0])) ** 2 + (abs(shape[1]) + abs(centre[1])) ** 2"], guard
    module: dict = {}
    exec(compile(result.code, "m.py", "exec"), module)
    loop: dict = {}
    exec(compile(SPHERE, "m.py", "exec"), loop)
    for args in [((4, 5), (1, 2), 2), ((3, 3), (2 ** 62, 1), 2 ** 62), ((3, 3), (1, 3 * 10 ** 9), 3 * 10 ** 9),
                 ((3, 0), (1e200, 1.0), 1.0), ((0, 3), (2, 2), 1), ((0, 2), (2 ** 63, np.int64(5)), 1)]:
        want, got = loop["sphere"](*args), module["sphere"](*args)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("stmt, dropped", [
    ("x[1:len(x)] = x[1:]", True),
    ("x[0:x.shape[0]] = x[:]", True),
    ("x[:] = x[0:len(x):1]", True),
    ("x[k:n] = x[k:n]", True),
    ("x[1:] = y[1:]", False),  # (another array)
    ("x[1:n] = x[1:]", False),  # (other rows, unless n is its length)
    ("x[1:len(y)] = x[1:]", False),
    ("x[0:] = x[1:]", False),
    ("x[::2] = x[::2]", False),  # (a step: left as it is)
    ("x[i] = x[i]", False),  # (no slice)
    ("x[1:, 0] = x[1:, 0]", False),
    ("x[1:], y[1:] = x[1:], y[1:]", False),
    ("x[1:] += x[1:]", False),
])
def test_a_store_of_rows_into_the_same_rows_goes(stmt, dropped):
    """`x[1:len(x)] = x[1:]` changes nothing (an accumulate into `x` itself leaves it, the
    loop's store of each value into its element): the pass drops it, and only it."""
    from pforge.transpile.backends.direct import _self_copy

    assert _self_copy(gast.parse(stmt).body[0]) is dropped


WHOLE_AXIS = """\
import numpy as np

def f(mat, colvec):
    n_cols = mat.shape[1]
    BEFORE
    for col in range(STOP):
        mat[:, col] += colvec
    return mat
"""


@pytest.mark.parametrize(("before", "stop", "write"), [
    # the loop visits every column: the columns are the whole array
    ("", "n_cols", "mat[:] += colvec[:, np.newaxis]"),
    ("", "mat.shape[1]", "mat[:] += colvec[:, np.newaxis]"),
    # not every column, or a count that may no longer be the array's
    ("", "n_cols - 1", "mat[:, :n_cols - 1] += colvec[:, np.newaxis]"),
    ("mat = mat[:, ::2]", "n_cols", "mat[:, :n_cols] += colvec[:, np.newaxis]"),
    ("n_cols = 2", "n_cols", "mat[:, :n_cols] += colvec[:, np.newaxis]"),
])
def test_a_slice_of_every_index_of_an_axis_is_the_whole_axis(before, stop, write):
    from tests.loops import run_module

    source = WHOLE_AXIS.replace("    BEFORE\n", f"    {before}\n" if before else "").replace("STOP", stop)
    code = transpile_source(source, shapes={"f.mat": 2, "f.colvec": 1}).code
    assert write in code, code
    def outcome(module, mat, colvec):
        try:
            return module["f"](mat.copy(), colvec).tolist()
        except Exception as error:  # noqa: BLE001 - the kind of error is compared
            return type(error)

    rng = np.random.default_rng(0)
    for shape in ((3, 5), (3, 2), (3, 1), (3, 0)):
        mat, colvec = rng.standard_normal(shape), rng.standard_normal(3)
        assert outcome(run_module(code), mat, colvec) == outcome(run_module(source), mat, colvec), shape


MADE = """\
import numpy as np

def outer(a, b):
    out = np.zeros((a.shape[0], b.shape[0]))
    BETWEEN
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            out[i, j] = a[i] * b[j]
    return out
"""


@pytest.mark.parametrize(("between", "write"), [
    # the array made as long along each axis as the loops run, just before them: all of it
    ("", "out[...] = a[:, np.newaxis] * b"),
    # `b` made shorter in between: the columns the loop writes are no longer all of them
    ("b = b[:2]", "out[:, :b.shape[0]] = a[:, np.newaxis] * b"),
])
def test_an_array_made_as_long_as_the_loops_run_is_written_whole(between, write):
    from tests.loops import run_module

    source = MADE.replace("    BETWEEN\n", f"    {between}\n" if between else "")
    code = transpile_source(source, shapes={"f.a": 1, "f.b": 1}).code
    assert write in code, code
    a, b = np.arange(3.0), np.arange(4.0) + 1
    np.testing.assert_array_equal(run_module(code)["outer"](a, b), run_module(source)["outer"](a, b))
