"""Loop distribution: a loop refused whole is split into loops of its statements, and the
pieces with no dependence cycle are vectorized. Each distributed loop is checked to be split
and rewritten, then run against the loop, on separate arrays and on one array passed twice;
look-alikes whose statements cannot be split stay loops, and compute what the loop does."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

SOURCE = textwrap.dedent("""\
    import numpy as np


    def carried_then_map(a, b, c):
        n = a.shape[0]
        for i in range(1, n):
            a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            c[i] = b[i] * 2.0
        return a, c


    def map_then_carried(a, b, c, d):
        n = len(a)
        for i in range(1, n):
            a[i] += c[i] * d[i]
            b[i] = np.tanh(b[i - 1] * a[i]) + d[i]
        return a, b


    def s222(a, b, c, e):
        for i in range(1, len(a)):
            a[i] += b[i] * c[i]
            e[i] = e[i - 1] * e[i - 1] * 0.5
            a[i] -= b[i] * c[i]
        return a, e


    def read_before_the_write(a, b, c):
        for i in range(1, len(a)):
            c[i] = a[i - 1] + b[i]
            a[i] = np.sin(a[i - 1]) + b[i]
        return a, c


    def reads_ahead(a, b, c):
        for i in range(1, len(a) - 1):
            a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            c[i] = a[i + 1] * 2.0
        return a, c


    def scan_then_read(a, b, c):
        for i in range(1, len(a)):
            a[i] = a[i - 1] + b[i]
            c[i] = a[i - 1]
        return a, c


    def two_writes(a, b):
        for i in range(len(a) - 1):
            a[i] = b[i] * 2
            b[i] = a[i + 1] + 1
            a[i] = a[i] + b[i]
        return a, b


    def later_write_first(a, b):
        for i in range(len(a) - 1):
            a[i] = b[i]
            a[i + 1] = b[i]
        return a


    def recomputes_a_scalar(a, b, c):
        for i in range(1, len(a)):
            t = b[i] * 2.0
            a[i] = a[i - 1] * a[i - 1] * 0.5 + t
            c[i] = t + 1.0
        return a, c


    def s161(a, b, c, d, e):
        n = a.shape[0]
        for i in range(n - 1):
            if b[i] < 0.0:
                c[i + 1] = a[i] + d[i] * d[i]
            else:
                a[i] = c[i] + d[i] * e[i]
        return a, c


    def masked_pair(a, b, m):
        c = np.zeros(len(a))
        for i in range(1, len(a)):
            if m[i] > 0:
                # the recurrence
                a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
                c[i] = b[i] * 2.0
        return a, c


    def into_new_arrays(b):
        a = np.zeros(len(b))
        c = np.zeros(len(b))
        for i in range(1, len(b)):
            a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            c[i] = b[i] - 1.0
        return a, c
    """)

#: loops whose statements must stay together: the split would change what they compute
KEPT = textwrap.dedent("""\
    import numpy as np


    def reads_both_ways(a, b, c):
        for i in range(1, len(a) - 1):
            a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            c[i] = a[i] + a[i + 1]
        return a, c


    def scalar_of_an_array_the_loop_writes(a, b, c):
        for i in range(1, len(a) - 1):
            t = a[i + 1] * 2.0
            a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            c[i] = a[i] + t
        return a, c


    def scalar_read_after_the_loop(a, b, c):
        t = 0.0
        for i in range(1, len(a)):
            t = b[i] * 2.0
            a[i] = a[i - 1] * a[i - 1] * 0.5 + t
            c[i] = t + 1.0
        return a, c, t


    def tests_what_it_writes(a, b, c):
        for i in range(1, len(a)):
            if a[i - 1] > 0:
                a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
                c[i] = b[i] * 2.0
        return a, c


    def elif_chain(a, b, c):
        for i in range(1, len(a)):
            if b[i] > 0.5:
                a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            elif b[i] < 0.0:
                c[i] = b[i] * 2.0
        return a, c


    def draws(a, b, c):
        for i in range(1, len(a)):
            a[i] = a[i - 1] * a[i - 1] * 0.5 + np.random.rand()
            c[i] = b[i] * np.random.rand()
        return a, c


    def through_a_view(a, b):
        v = a[1:]
        for i in range(1, len(b) - 1):
            a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            b[i] = v[i] * 2.0
        return a, b


    def sums_whole(a, b, c):
        for i in range(1, len(a)):
            a[i] = a[i - 1] * a[i - 1] * 0.5 + b[i]
            c[i] = np.sum(a) + b[i]
        return a, c
    """)

DISTRIBUTED = ["carried_then_map", "map_then_carried", "s222", "read_before_the_write", "reads_ahead",
               "scan_then_read", "two_writes", "later_write_first", "recomputes_a_scalar", "s161", "masked_pair", "into_new_arrays"]


def _split(code, name):
    """The code of ``name``, asserted to hold a distributed loop (so a comparison compares a rewrite)."""
    body = code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert "# pforge: loop distributed" in body, body
    return body


def _arguments(name, n, rng):
    count = {"carried_then_map": 3, "map_then_carried": 4, "s222": 4, "read_before_the_write": 3,
             "into_new_arrays": 1, "reads_ahead": 3, "scan_then_read": 3, "two_writes": 2,
             "later_write_first": 2, "reads_both_ways": 3, "s161": 5, "masked_pair": 3, "tests_what_it_writes": 3, "elif_chain": 3, "recomputes_a_scalar": 3, "scalar_of_an_array_the_loop_writes": 3, "shares_a_scalar": 3, "draws": 3,
             "through_a_view": 2, "sums_whole": 3}[name]
    return [rng.uniform(-1.0, 1.0, n) for _ in range(count)]


@pytest.fixture(scope="module")
def distributed():
    result = transpile_source(SOURCE, "m.py")
    return result, {name: [p for p in result.plans if p.function == name] for name in DISTRIBUTED}


@pytest.mark.parametrize("name", DISTRIBUTED)
def test_the_loop_is_split_and_a_piece_is_rewritten(distributed, name):
    result, plans = distributed
    assert len(plans[name]) >= 2, [p.remarks for p in plans[name]]
    assert any(p.rewritten for p in plans[name])
    _split(result.code, name)
    assert any("loop distribution, line" in r.message for p in plans[name] for r in p.remarks)


def test_the_pieces_run_in_dependence_order(distributed):
    result, _ = distributed
    body = result.code.split("def read_before_the_write(")[1].split("\n    else:\n")[0]
    # `c[i] = a[i - 1] + b[i]` reads what the carried statement wrote: that one runs first
    assert body.index("a[i] = np.sin") < body.index("c[1:")
    body = result.code.split("def reads_ahead(")[1].split("\n    else:\n")[0]
    # `c[i] = a[i + 1] * 2.0` reads what a later iteration overwrites: it runs first
    assert body.index("c[1:") < body.index("a[i] = a[i - 1]")


def test_a_scalar_both_pieces_read_is_computed_in_each(distributed):
    """`t = b[i] * 2.0` reads nothing the loop writes: the recurrence's loop and the batched
    statement each compute it (read after the loop, `t` would tie them: a batched piece would
    not keep its last value)."""
    result, _ = distributed
    body = _split(result.code, "recomputes_a_scalar")
    assert body.count("t = b[i] * 2.0") >= 2  # (in the recurrence's loop, and in the fallbacks)
    assert "t = np.asarray(b)" in body or "t = b[" in body


def test_an_if_splits_into_one_per_statement_under_the_same_test(distributed):
    """`if b[i] < 0.0: c[i + 1] = ... else: a[i] = c[i] + ...` (TSVC s161): the branches go to
    two loops under the test and its negation, the write of `c` first (the `else` reads what
    the previous iteration's `if` wrote); a comment inside the body stays with its statement."""
    result, _ = distributed
    body = _split(result.code, "s161")
    first, second = (int(n) for n in re.search(r"\(was lines \d+-\d+: line (\d+) vectorized; line (\d+) "
                                               r"vectorized\)", body).groups())
    assert second == first + 2 and "if not (b[i] < 0.0):" in body
    body = _split(result.code, "masked_pair")
    first, second = (int(n) for n in re.search(r"line (\d+) a loop; line (\d+) vectorized", body).groups())
    assert second == first + 1
    assert body.count("# the recurrence") == 2  # (the loop's piece and the loop kept under `else:`)


def test_a_parameter_pair_is_checked_apart(distributed):
    result, _ = distributed
    body = result.code.split("def carried_then_map(")[1].split("\ndef ")[0]
    assert "may_share_memory(a, c)" in body
    body = result.code.split("def into_new_arrays(")[1].split("\ndef ")[0]
    assert "# pforge: loop distributed" in body and "may_share_memory(a, c)" not in body


@pytest.mark.parametrize("name", DISTRIBUTED)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 17])
def test_equal_to_the_loop(distributed, name, n):
    result, _ = distributed
    _split(result.code, name)
    before, after = run_module(SOURCE)[name], run_module(result.code)[name]
    args = _arguments(name, n, np.random.default_rng(n))
    want = before(*[a.copy() for a in args])
    got = after(*[a.copy() for a in args])
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", [n for n in DISTRIBUTED if n != "into_new_arrays"])
def test_one_array_passed_twice_runs_the_loop(distributed, name):
    result, _ = distributed
    _split(result.code, name)
    before, after = run_module(SOURCE)[name], run_module(result.code)[name]
    x = np.random.default_rng(5).uniform(-1.0, 1.0, 12)
    count = len(_arguments(name, 1, np.random.default_rng(0)))
    mine, theirs = x.copy(), x.copy()
    before(*[mine] * count)
    after(*[theirs] * count)
    np.testing.assert_array_equal(theirs, mine)
    mine, theirs = x.copy(), x.copy()  # (a view of it, one element along)
    before(mine[1:], *[mine[:-1]] * (count - 1))
    after(theirs[1:], *[theirs[:-1]] * (count - 1))
    np.testing.assert_array_equal(theirs, mine)


@pytest.mark.parametrize("name", ["reads_both_ways", "scalar_of_an_array_the_loop_writes", "scalar_read_after_the_loop",
                                  "tests_what_it_writes", "elif_chain", "draws", "through_a_view", "sums_whole"])
def test_statements_that_must_stay_together_keep_the_loop(name):
    result = transpile_source(KEPT, "m.py")
    body = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert body == KEPT.split(f"def {name}(")[1].split("\ndef ")[0]
    assert not any(p.rewritten for p in result.plans if p.function == name)


def test_idempotent(distributed):
    result, _ = distributed
    assert transpile_source(result.code, "m.py").code == result.code


def test_a_split_with_no_vectorizable_piece_keeps_the_loop_whole():
    source = textwrap.dedent("""\
        def both_carried(a, b):
            for i in range(1, len(a)):
                a[i] = a[i - 1] * a[i - 1] + 1.0
                b[i] = b[i - 1] * b[i - 1] + 1.0
            return a, b
        """)
    result = transpile_source(source, "m.py")
    assert result.code == source
    assert len(result.plans) == 1 and not result.plans[0].vectorizable


@pytest.mark.parametrize("name", ["read_before_the_write", "reads_ahead", "two_writes"])
def test_python_lists_run_the_loop(distributed, name):
    """One list passed twice: NumPy cannot tell (it compares fresh copies), so the pieces run
    only on arrays of numbers, and lists run the loop as written."""
    result, _ = distributed
    assert "not a.dtype.hasobject" in _split(result.code, name)
    before, after = run_module(SOURCE)[name], run_module(result.code)[name]
    count = len(_arguments(name, 1, np.random.default_rng(0)))
    values = [0.1 * k for k in range(9)]
    mine, theirs = list(values), list(values)
    before(*[mine] * count)
    after(*[theirs] * count)
    assert theirs == mine
    mine, theirs = [list(values) for _ in range(count)], [list(values) for _ in range(count)]
    before(*mine)
    after(*theirs)
    assert theirs == mine


#: loops an adversarial pass (helper-35) found wrong or invalid once distributed; each now is
#: either split correctly or left whole: name -> (distributed, arguments)
FOUND = textwrap.dedent('''\
    import numpy as np


    def wraps_around(a, b, c):
        for i in range(len(a)):
            c[i] = a[i - 1] + 1.0
            a[i] = b[i] * 2.0
        return a, c


    def header_on_two_lines(a, b, c):
        for i in range(len(a) - 1, 0,
                       -1):
            a[i - 1] = a[i] * a[i] * 0.5 + b[i]
            c[i] = b[i] * 2.0
        return a, c


    def range_the_body_changes(a, b, c, m):
        for i in range(1, int(m[0])):
            m[0] = 3
            a[i] = a[i - 1] * 3 % 7 + b[i]
            c[i] = b[i] * 2
        return a, c, m


    def through_a_list_of_it(a, b, c):
        p = [a]
        for i in range(1, len(a) - 1):
            p[0][i] = p[0][i - 1] * 3 % 7 + b[i]
            c[i] = a[i + 1] * 2
        return a, c


    def rows_of_one_list(a, b, c):
        n = len(a)
        t = [[0] * 2] * n
        for i in range(1, n):
            t[i][0] = t[i - 1][0] + b[i]
            c[i] = t[i - 1][0]
            a[i] = b[i] * 2
        return a, c


    def named_as_a_builtin(a, filter, c):
        for i in range(1, len(a) - 1):
            a[i] = a[i - 1] * 3 % 7 + c[i]
            c[i] = filter[i + 1] * 2
        return a, c


    def string_over_two_lines(a, b, c):
        for i in range(1, len(a)):
            a[i] = a[i - 1] * 3 % 7 + len("""x
    y""")
            c[i] = b[i] * 2
        return a, c


    def index_through_a_view(p, b, c):
        q = p[:]
        for i in range(1, len(p) - 1):
            p[i] = (p[i - 1] * p[i - 1] + 1) % 7
            c[i] = b[q[i + 1]]
        return c


    def index_array_passed_twice(p, q, b, c):
        for i in range(1, len(p) - 1):
            p[i] = (p[i - 1] * p[i - 1] + 1) % 7
            c[i] = b[q[i + 1]]
        return c


    def range_through_a_view(a, b, c):
        s = a[:]
        for i in range(1, int(s[1])):
            a[i] = a[i - 1] * a[i - 1] + b[i]
            c[i] = b[i] * 2.0
        return c


    def start_the_code_does_not_fix(x, a, b, k):
        for i in range(k, len(a)):
            x[i] = x[i - 1] * x[i - 1] + a[i]
            a[i] = b[i]
        return x


    def else_on_its_line(a, b, c, d):
        for i in range(1, len(a)):
            if d[i] > 0:
                a[i] = a[i - 1] * a[i - 1] + b[i]
                c[i] = b[i] * 2.0
            else: c[i] = -b[i]
        return c


    def out_by_position(a, b, c, d):
        for i in range(1, len(a) - 1):
            a[i] = a[i - 1] * a[i - 1] * 0.1 + np.multiply(b[i], 2.0, c[i:i + 1])[0]
            d[i] = c[i + 1] * 2.0
        return d


    def inner_loop_in_a_loop_piece(a):
        m = np.zeros((len(a), 3))
        s = np.zeros(len(a))
        for i in range(1, len(a)):
            for j in range(3):
                m[i, j] = a[i] + m[i - 1, j]
            s[i] = a[i] * 2.0
        return m, s
    ''')

FOUND_CASES = {
    "wraps_around": (False, lambda: (np.arange(6.0), np.arange(6.0) + 10, np.zeros(6))),
    "header_on_two_lines": (True, lambda: (np.arange(8.0) + 1, np.arange(8.0) * 2 + 1, np.zeros(8))),
    "range_the_body_changes": (False, lambda: (np.arange(8) + 1, np.arange(8) * 2 + 1, np.zeros(8, int),
                                               np.array([8]))),
    "through_a_list_of_it": (False, lambda: (np.arange(8) + 1, np.arange(8) * 2 + 1, np.zeros(8, int))),
    "rows_of_one_list": (False, lambda: (np.zeros(8, int), np.arange(8) * 2 + 1, np.zeros(8, int))),
    "named_as_a_builtin": (True, lambda: (np.arange(8) + 5, np.arange(8) + 5, np.arange(8) + 1)),
    "string_over_two_lines": (False, lambda: (np.arange(8) + 1, np.arange(8), np.zeros(8, int))),
    "inner_loop_in_a_loop_piece": (True, lambda: (np.arange(6.0),)),
    # the second pass (helper-36)
    "index_through_a_view": (False, lambda: (np.arange(10) % 7, np.arange(10.0), np.zeros(10))),
    "index_array_passed_twice": (True, lambda: (np.arange(10) % 7, np.arange(10) % 7, np.arange(10.0), np.zeros(10))),
    "range_through_a_view": (False, lambda: (np.array([0.0, 5, 0, 0, 0, 0]), np.ones(6), np.zeros(6))),
    "start_the_code_does_not_fix": (False, lambda: (np.zeros(4), np.zeros(4), np.array([1.0, 2, 3, 4]), -1)),
    "else_on_its_line": (False, lambda: (np.ones(5) * 0.1, np.arange(5.0), np.zeros(5), np.array([1.0, -1, 1, -1, 1]))),
    "out_by_position": (False, lambda: (np.ones(6) * 0.1, np.arange(6.0), np.zeros(6), np.zeros(6))),
}


@pytest.mark.parametrize("name", sorted(FOUND_CASES))
def test_what_an_adversarial_pass_found(name):
    distributed, make = FOUND_CASES[name]
    result = transpile_source(FOUND, "m.py")
    body = result.code.split(f"def {name}(")[1].split("\ndef ")[0]
    assert ("# pforge: loop distributed" in body) == distributed, body
    compile(result.code, "m.py", "exec")
    assert transpile_source(result.code, "m.py").code == result.code
    before, after = run_module(FOUND)[name], run_module(result.code)[name]
    want, got = before(*make()), after(*make())
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
    if name == "named_as_a_builtin":  # one array as `a` and as `filter`: checked apart, the loop runs
        assert "may_share_memory(a, filter)" in body
        x, y = np.arange(8) + 5, np.arange(8) + 5
        before(x, x, np.arange(8) + 1)
        after(y, y, np.arange(8) + 1)
        np.testing.assert_array_equal(y, x)
    if name == "inner_loop_in_a_loop_piece":  # the inner loop of the piece that stays a loop, batched
        assert "j = np.arange(3)" in body
    if name == "index_array_passed_twice":  # `q` indexes `b`: it may be `p`, checked apart
        assert "may_share_memory(p, q)" in body
        x, y = np.arange(10) % 7, np.arange(10) % 7
        np.testing.assert_array_equal(after(y, y, np.arange(10.0), np.zeros(10)),
                                      before(x, x, np.arange(10.0), np.zeros(10)))


def test_a_file_indented_by_two_spaces():
    """A piece's loop kept under `else:` is the file's own text, not re-indented (helper-36)."""
    source = ("import numpy as np\n\ndef f(a, b, c):\n  for i in range(1, len(a)):\n"
              "    a[i] = a[i - 1] * a[i - 1] + b[i]\n    c[i] = b[i] * 2.0\n  return c\n")
    code = transpile_source(source, "m.py").code
    assert "# pforge: loop distributed" in code
    before, after = run_module(source)["f"], run_module(code)["f"]
    np.testing.assert_array_equal(after(np.ones(5) * 0.1, np.arange(5.0), np.zeros(5)),
                                  before(np.ones(5) * 0.1, np.arange(5.0), np.zeros(5)))
    np.testing.assert_array_equal(after([0.1] * 5, list(range(5)), [0.0] * 5),  # (the loop as written)
                                  before([0.1] * 5, list(range(5)), [0.0] * 5))
