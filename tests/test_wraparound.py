"""Wrap-around variables (Allen & Kennedy, section 5.5): ``w = E`` last in the body and read
before it, ``E`` computed from the loop index and invariants only. Iteration ``k`` reads ``E``
of iteration ``k - 1`` and the first iteration the value before the loop: no iteration waits
for another's work, so the loop is parallel, with ``w`` read as ``np.where(i == start, w,
E(i - step))``. Each rewrite is checked to happen, then against the loop on many inputs."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.runtime.loader import load_module
from pforge.transpile import analyze_source, transpile_source

KERNELS = {
    # TSVC s291: `im1` is `i - 1`, and `n - 1` on the first iteration
    "s291": ('''
def f(a, b):
    im1 = len(a) - 1
    for i in range(len(a)):
        a[i] = (b[i] + b[im1]) * 0.5
        im1 = i
    return a
''', lambda rng, n: (np.zeros(n), rng.normal(size=n))),
    "previous element": ('''
def f(x, out, first):
    prev = first
    for i in range(1, len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', lambda rng, n: (rng.integers(-50, 50, n), np.zeros(n, dtype=np.int64), int(rng.integers(-9, 9)))),
    "counting down by two": ('''
def f(x, out):
    nxt = 0.0
    for i in range(len(x) - 1, -1, -2):
        out[i] = x[i] * 2.0 + nxt
        nxt = x[i] * x[i]
    return out
''', lambda rng, n: (rng.normal(size=n).astype(np.float32), np.zeros(n))),
    # a private the body computes first (TSVC s252): its value of the iteration before; a
    # Python float start before float64 values (where the values are float32, the loop runs)
    "private of the iteration before": ('''
def f(a, b, c):
    t = 0.0
    for i in range(len(a)):
        s = b[i] * c[i]
        a[i] = s + t
        t = s
    return a
''', lambda rng, n: (np.zeros(n), rng.normal(size=n), rng.normal(size=n).astype(np.float32 if n % 2 else np.float64))),
    "under a test": ('''
def f(x, out, c):
    last = c
    for i in range(len(x)):
        if x[i] > last:
            out[i] = x[i] - last
        last = x[i] + c
    return out
''', lambda rng, n: (rng.normal(size=n), np.zeros(n), float(rng.normal()))),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_wrap_around_variable_is_read_from_the_iteration_before(name):
    source, make = KERNELS[name]
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    assert "_before" in result.code and " = np.where(i == " in result.code
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 8, 17):
        args = make(rng, n)
        want = loop(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = new(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert got.dtype == want.dtype and np.array_equal(got, want), (name, n, want, got)


@pytest.mark.parametrize("body, why", [
    # `E` reads a name the body binds twice, or under a test: no one value to substitute
    ("t = x[i] * 2.0\n        t = t + w\n        out[i] = w\n        w = t", "`w` is read at line"),
    ("t = x[i]\n        if x[i] > 0:\n            t = 0.0\n        out[i] = w\n        w = t", "`w` is read at line"),
    # read after its binding too
    ("out[i] = w\n        w = x[i]\n        out[i] += w", "`w` is read at line"),
    # `E` reads an element the loop writes
    ("out[i] = w\n        w = out[i] + 1.0", "`w` is read at line"),
    # `E` reads itself: a (nonlinear) recurrence
    ("out[i] = w\n        w = np.sin(w) + x[i]", "`w` is read at line"),
    # bound twice: the last binding is the value the next iteration reads
    ("out[i] = w\n        w = x[i]\n        w = x[i] * 2.0", "`w` is read at line"),
    # bound under a test: not every iteration's value
    ("out[i] = w\n        if x[i] > 0:\n            w = x[i]", "`w` is read at line"),
])
def test_what_is_no_wrap_around_variable_stays_carried(body, why):
    source = f"import numpy as np\n\ndef f(x, out):\n    w = 0.0\n    for i in range(len(x)):\n        {body}\n    return out\n"
    (plan,) = analyze_source(source, "m.py")
    assert not plan.vectorizable
    assert any(why in r.message for r in plan.remarks), [r.message for r in plan.remarks]


def test_a_wrap_around_variable_used_after_the_loop_is_left():
    source = ("import numpy as np\n\ndef f(x, out):\n    w = 0.0\n    for i in range(len(x)):\n"
              "        out[i] = w\n        w = x[i]\n    return out, w\n")
    (plan,) = analyze_source(source, "m.py")
    assert not plan.vectorizable
    assert any("`w` is used after the loop" in r.message for r in plan.remarks)


def test_a_value_before_the_loop_that_is_no_number_runs_the_loop():
    """`prev = None` would make the batched `where` an object array: the check in front of the
    loop sends it to the loop, which raises as written."""
    source = "import numpy as np\n" + KERNELS["previous element"][0]
    result = transpile_source(source, "m.py")
    new = load_module("m.py", source=result.code).f
    with pytest.raises(TypeError):
        new(np.arange(4), np.zeros(4, dtype=np.int64), None)


def test_a_wrap_around_variable_may_read_one_bound_after_it():
    """TSVC s292: `im2 = im1` before `im1 = i` reads the previous iteration's `im1`, itself a
    wrap-around variable: `im2` is `i - 2`, then `n - 1` and `n - 2` on the first two."""
    source = '''import numpy as np

def f(a, b):
    im1 = len(a) - 1
    im2 = len(a) - 2
    for i in range(len(a)):
        a[i] = (b[i] + b[im1] + b[im2]) * 0.333
        im2 = im1
        im1 = i
    return a
'''
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    rng = np.random.default_rng(11)
    for n in (1, 2, 3, 9):
        b = rng.normal(size=n)
        np.testing.assert_array_equal(new(np.zeros(n), b), loop(np.zeros(n), b))


def test_a_wrap_around_variable_of_a_loop_over_items_stays_carried():
    """`for v in x: ...; prev = v`: the item of the iteration before has no index to shift (a
    loop over items is not read as one here), so `prev` stays a carried value."""
    source = ("import numpy as np\n\ndef f(x, out):\n    prev = 0.0\n    for v in x:\n"
              "        out.append(v - prev)\n        prev = v\n    return out\n")
    (plan,) = analyze_source(source, "m.py")
    assert not plan.vectorizable
    assert any("`prev` is read at line" in r.message for r in plan.remarks)


@pytest.mark.parametrize("source, why", [
    # TensorFlow code: no batched `where` over a wrap-around variable there
    ('''import tensorflow as tf

def f(x):
    out = []
    w = 0.0
    for i in range(x.shape[0]):
        out.append(x[i] * w)
        w = x[i]
    return tf.stack(out)
''', "the wrap-around variable `w` (TensorFlow code, an unusual loop, or under an `if`)"),
    # the inner loop of a triangular nest has no plain index to shift
    ('''import numpy as np

def f(x, out):
    """Args:
      x: [n].
      out: [n, n].
    """
    for i in range(len(x)):
        w = 0.0
        for j in range(i):
            out[i, j] = x[j] - w
            w = x[j]
    return out
''', "the wrap-around variable `w` (TensorFlow code, an unusual loop, or under an `if`)"),
    # an inner loop under an outer `if`
    ('''import numpy as np

def f(x, out):
    """Args:
      x: [n].
      out: [n, n].
    """
    for i in range(len(x)):
        if x[i] > 0:
            w = 0.0
            for j in range(len(x)):
                out[i, j] = x[j] - w
                w = x[j]
    return out
''', "the wrap-around variable `w` (TensorFlow code, an unusual loop, or under an `if`)"),
])
def test_a_wrap_around_variable_the_direct_backend_does_not_shift_is_left(source, why):
    """The nest stays a loop, saying why; an inner loop may then be batched on its own, each run
    of it starting from the value the loop around it gives `w` (checked against the loop)."""
    result = transpile_source(source, "m.py", backend="direct")
    plan = result.plans[0]
    assert not plan.rewritten
    assert any(why in r.message for r in plan.remarks), [r.message for r in plan.remarks]
    assert all(p.rewritten for p in result.plans[1:])
    if "tensorflow" in source:
        assert not result.changed
        return
    x = np.array([1.5, -2.0, 0.25, 3.0])
    want = load_module("m.py", source=source).f(x, np.zeros((4, 4)))
    got = load_module("m.py", source=result.code).f(x, np.zeros((4, 4)))
    np.testing.assert_array_equal(got, want)


def test_two_wrap_around_variables_one_of_known_rank():
    """`a_count = 0` (a number) and `b_prev = first` (checked in front of the loop): each gets
    its value before the loop on the first iteration."""
    source = '''import numpy as np

def f(x, out, first):
    a_count = 0
    b_prev = first
    for i in range(len(x)):
        out[i] = x[i] * a_count - b_prev
        a_count = i * 2
        b_prev = x[i]
    return out
'''
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    x = np.array([1.5, -2.0, 3.0, 0.5])
    np.testing.assert_array_equal(new(x, np.zeros(4), 7.0), loop(x, np.zeros(4), 7.0))


def test_a_value_before_the_loop_that_widens_the_data_runs_the_loop():
    """`prev = first` of float64 beside float32 data: the first iteration computes in float64,
    the others in float32, which one batched array cannot hold; the loop runs, as it does for a
    Python number (weak on the first iteration only). A start of the type of the first
    iteration's value runs batched."""
    source = "import numpy as np\n" + KERNELS["previous element"][0]
    result = transpile_source(source, "m.py")
    assert "type(prev) is type(x[" in result.code
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    x = np.array([1.0, 3.1e-3, 2.7, -5.3e4], dtype=np.float32)
    for first in (np.float64(0.1), np.float32(0.1), 0.1, 2):
        want, got = loop(x, np.zeros(4), first), new(x, np.zeros(4), first)
        assert np.array_equal(got, want), (first, want, got)


@pytest.mark.parametrize("source, calls", [
    # `E` reads the written array through a second name
    ('''import numpy as np

def f(x):
    out = np.zeros(len(x))
    y = out
    prev = 0.0
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = y[i]
    return out
''', [(np.array([1.0, 2.0, 3.0, 4.0]),)]),
    # a Python number first, NumPy values after: the first iteration computes weakly
    ('''import numpy as np

def f(x, y):
    out = np.zeros(len(x))
    prev = 0.1
    for i in range(len(x)):
        out[i] = y[i] * prev
        prev = x[i]
    return out
''', [(np.array([1.0, 3.0, 2.0]), np.array([1.1, 2.2, 3.3], dtype=np.float32)),
      (np.array([1.0, 3.0, 2.0]), np.array([1.1, 2.2, 3.3]))]),
    # 1000 before the loop beside int8 data, stored into a float array
    ('''import numpy as np

def f(x):
    out = np.zeros(len(x))
    prev = 1000
    for i in range(len(x)):
        out[i] = prev
        prev = x[i]
    return out
''', [(np.array([1, 2, 3], dtype=np.int8),), (np.array([1.5, 2.5]),)]),
    # Python numbers on every iteration (`E` of the index): weak beside float32 data
    ('''import numpy as np

def f(x):
    out = np.zeros_like(x)
    h = 0.0
    for i in range(len(x)):
        out[i] = x[i] + h
        h = i * 0.1
    return out
''', [(np.array([1.1, 2.2, 3.3], dtype=np.float32),), (np.array([1, 2, 3], dtype=np.float16),)]),
])
def test_the_first_iteration_reads_the_start_as_the_loop_does(source, calls):
    """The value before the loop and `E` must be of one type (`type(w) is type(E(start))`,
    checked in front), and `E` may not read what the loop writes under another name."""
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    assert "type(" in result.code.split("else:")[0]
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    for args in calls:
        want, got = loop(*[a.copy() for a in args]), new(*[a.copy() for a in args])
        assert got.dtype == want.dtype and np.array_equal(got, want), (args, want, got)


def test_an_inner_wrap_around_kept_into_the_next_outer_iteration_is_carried():
    """`prev` is not reset per row: the inner loop's last value starts its next run, through
    the outer loop's back edge, so neither loop is a wrap-around of the index alone."""
    source = '''import numpy as np

def f(x):
    out = np.zeros_like(x)
    prev = 0.0
    for r in range(x.shape[0]):
        for i in range(x.shape[1]):
            out[r, i] = x[r, i] - prev
            prev = x[r, i]
    return out
'''
    plans = analyze_source(source, "m.py")
    assert any(r.code == "PF212" and "keeps its last value into the next iteration of the loop at line 6"
               in r.message for p in plans for r in p.remarks), [r.message for p in plans for r in p.remarks]
    assert not transpile_source(source, "m.py").changed


def test_a_wrap_around_bound_by_the_loop_around_it_is_batched_with_the_inner_loop_alone():
    """`prev` is bound per row before the inner loop: the nest is not batched whole (no value
    before the inner loop for a check in front), the inner loop is, on each row."""
    source = '''import numpy as np

def f(x):
    out = np.zeros_like(x)
    for r in range(x.shape[0]):
        prev = x[r, 0] * 0
        for i in range(x.shape[1]):
            out[r, i] = x[r, i] - prev
            prev = x[r, i]
    return out
'''
    result = transpile_source(source, "m.py")
    outer, inner = result.plans
    assert not outer.rewritten and inner.rewritten and inner.lineno == 7
    assert any("bound by the loop around its loop" in r.message for r in outer.remarks)
    x = np.arange(12.0).reshape(3, 4) ** 1.5
    want = load_module("m.py", source=source).f(x.copy())
    np.testing.assert_array_equal(load_module("m.py", source=result.code).f(x.copy()), want)


# Found by an adversarial review (helper-47, session 29).
REVIEWED = {
    # a row the loop then writes: `prev` is a view of it, so the next iteration sees the write;
    # distributed, the wrap-around read rows before the writes (wrong results)
    "row written after it is carried": ('''
def f(x):
    y = np.zeros_like(x)
    prev = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        y[i] = x[i] - prev
        prev = x[i]
        x[i, 0] = 0.0
    return y, x
''', lambda rng: (rng.normal(size=(4, 3)),)),
    "private row written after it is carried": ('''
def f(x):
    y = np.zeros_like(x)
    t = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        s = x[i]
        y[i] = s + t
        t = s
        x[i] += 1.0
    return y, x
''', lambda rng: (rng.normal(size=(4, 3)),)),
    # a chain whose last link is a private (the transpiler raised)
    "chain ending in a private": ('''
def f(a, b, c):
    t = 0.0
    u = 0.0
    for i in range(len(a)):
        s = b[i] * c[i]
        a[i] = s + t + u
        u = t
        t = s
    return a
''', lambda rng: (np.zeros(6), rng.normal(size=6), rng.normal(size=6))),
    # a list keeps the first item's Python float: the float start is taken only where values
    # are stored into arrays
    "python float start into a list": ('''
def f(x):
    out = []
    prev = 0.0
    for i in range(len(x)):
        out.append(prev * 2.0)
        prev = x[i]
    return out
''', lambda rng: (rng.normal(size=5),)),
}


@pytest.mark.parametrize("name", sorted(REVIEWED))
def test_what_a_review_found(name):
    source, inputs = REVIEWED[name]
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py")
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    rng = np.random.default_rng(3)
    for _ in range(3):
        args = inputs(rng)
        want = loop(*[a.copy() for a in args])
        got = new(*[a.copy() for a in args])
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for w, g in zip(want, got):
            if isinstance(w, list):
                assert [type(v) for v in g] == [type(v) for v in w], (w, g)
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("start", ["0", "0.0", "3"])
def test_a_python_number_start_before_float64_values_runs_batched(start):
    """``prev = 0`` (or ``0.0``) before float64 data, the values stored into an array: the
    batched code runs (the check in front held on no float64 input before)."""
    source = (f"import numpy as np\n\ndef f(x):\n    y = np.zeros(len(x))\n    prev = {start}\n"
              "    for i in range(len(x)):\n        y[i] = x[i] - prev\n        prev = x[i]\n    return y\n")
    code = transpile_source(source, "m.py").code
    strict = code.replace("    else:\n        for i in", "    else:\n        raise AssertionError('the loop ran')\n        for i in")
    assert strict != code
    x = np.random.default_rng(4).normal(size=9)
    np.testing.assert_array_equal(load_module("m.py", source=strict).f(x), load_module("m.py", source=source).f(x))


#: a start that is `E` of the iteration before the first (`prev = x[-1]`): every iteration reads
#: `E(i - step)`, the first too, with no test of the start; and look-alikes that are not
PREVIOUS_STARTS = {
    "circular difference": ('''
def f(x):
    out = np.empty(len(x))
    prev = x[-1]
    for i in range(len(x)):
        out[i] = (x[i] - prev) * 0.5
        prev = x[i]
    return out
''', True, ["(R(6),)", "([1.0, 2.5, 3.0],)", "([1, 2, 3],)", "(np.arange(5, dtype=np.float32),)",
            "(np.array([1, 2, 3], dtype=np.uint8),)", "(np.array([2.0]),)", "(np.arange(6.0).reshape(3, 2),)"]),
    "shoelace area": ('''
def f(x, y):
    area = 0.0
    xp, yp = x[-1], y[-1]
    for i in range(len(x)):
        area += xp * y[i] - x[i] * yp
        xp, yp = x[i], y[i]
    return area / 2
''', True, ["(np.array([0.0, 1, 1, 0]), np.array([0.0, 0, 1, 1]))", "([0, 1, 1, 0], [0, 0, 1, 1])",
            "(np.arange(4, dtype=np.int8) * 40, np.arange(4, dtype=np.int8) * 40)", "(R(5), R(6, 1))",
            "(R(6), R(5, 1))"]),
    "a start from a range of a literal start": ('''
def f(x):
    out = np.zeros(len(x))
    prev = x[1] * 2
    for i in range(2, len(x)):
        out[i] = x[i] * 2 - prev
        prev = x[i] * 2
    return out
''', True, ["(R(6),)", "(np.arange(5, dtype=np.int8),)", "(R(2),)", "([1.0, 2.0, 3.5],)"]),
    # a start of a range that starts at a value (`a - 1` of a NumPy uint8 `a = 0` is 255)
    "a start from an offset range": ('''
def f(x, a):
    out = np.zeros(len(x))
    prev = x[a - 1] * 2
    for i in range(a, len(x)):
        out[i] = x[i] * 2 - prev
        prev = x[i] * 2
    return out
''', False, ["(R(6), 2)", "(R(6), 0)", "(np.arange(5, dtype=np.int8), 3)", "(R(30), np.uint8(0))"]),
    # the statement that binds the start rebinds the array too: the start is of the old one
    "a start beside a rebinding": ('''
def f(x, y):
    out = np.zeros(len(x))
    x, prev = y, x[-1]
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(4), R(4, 1))", "(R(3), R(3, 2))"]),
    # an array between the start and the loop whose element the start read is written
    "start's array written in between": ('''
def f(x):
    out = np.zeros(len(x))
    prev = x[-1]
    x[-1] = 100.0
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(5),)", "(np.arange(4.0),)"]),
    # the name the start read bound again in between
    "start's array rebound in between": ('''
def f(x, y):
    out = np.zeros(len(x))
    prev = x[-1]
    x = y
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(5), R(5, 1))"]),
    # a start that is `E` spelled alike, where `E` reads a name the loop binds (`s` before the
    # loop is another value than `s` of the iteration before the first)
    "a start through a private the loop binds": ('''
def f(x):
    out = np.zeros(len(x))
    s = x[0] * 2
    t = s
    for i in range(len(x)):
        s = x[i] * 2
        out[i] = s + t
        t = s
    return out
''', False, ["(R(5),)", "(np.arange(4.0),)"]),
    # in steps of two: the iteration before the first is -2
    "a start two before, in steps of two": ('''
def f(x):
    out = np.zeros(len(x))
    prev = x[-2]
    for i in range(0, len(x), 2):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', True, ["(R(6),)", "(R(7),)", "(np.arange(4, dtype=np.int8),)", "(R(2),)"]),
    "a start one before, in steps of two": ('''
def f(x):
    out = np.zeros(len(x))
    prev = x[-1]
    for i in range(0, len(x), 2):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(6),)", "(R(7),)"]),
    # two definitions reach the loop: the start may be either
    "a start bound twice": ('''
def f(x, flag):
    out = np.zeros(len(x))
    prev = x[-1]
    if flag:
        prev = 0.0
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(5), True)", "(R(5), False)"]),
    # a parameter: no statement binds it
    "a start that is a parameter": ('''
def f(x, prev):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(5), 0.5)", "(R(3), np.float64(2.0))"]),
    # the first element, not the one before it
    "another element": ('''
def f(x):
    out = np.zeros(len(x))
    prev = x[0]
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(5),)", "(np.arange(3, dtype=np.float32),)"]),
    # `E` of the iteration before reads a name the loop binds (its own index, as the start)
    "a start through a name the loop binds": ('''
def f(x, k):
    out = np.zeros(len(x))
    i = k
    prev = x[i - 1]
    for i in range(len(x)):
        out[i] = x[i] - prev
        prev = x[i]
    return out
''', False, ["(R(5), 0)", "(R(5), 3)"]),
}


@pytest.mark.parametrize("name", sorted(PREVIOUS_STARTS))
def test_a_start_that_is_the_value_of_the_iteration_before_needs_no_test(name):
    source, previous, calls = PREVIOUS_STARTS[name]
    source = "import numpy as np\n" + source
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten, [r.message for r in plan.remarks]
    guard = result.code.split("    if ")[1].split(":\n")[0]
    if previous:
        assert "np.where(i == " not in result.code and "type(prev) is type(" not in guard \
            and "xp)" not in guard and "isinstance(prev" not in guard, result.code
        assert "_before = " in result.code and "prev, " not in result.code, result.code
    else:
        assert " = np.where(i == " in result.code, result.code
    loop, new = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f

    def R(n, seed=0):
        return np.random.default_rng(seed).normal(size=n)

    for call in calls:
        with np.errstate(all="ignore"):
            try:
                want = ("returned", loop(*eval(call)))
            except Exception as exc:  # noqa: BLE001 - the loop's own error, compared
                want = ("raised", type(exc))
            try:
                got = ("returned", new(*eval(call)))
            except Exception as exc:  # noqa: BLE001
                got = ("raised", type(exc))
        assert want[0] == got[0], (call, want, got)
        if want[0] == "raised":
            assert want[1] is got[1], (call, want, got)
        else:
            assert type(got[1]) is type(want[1]) and np.asarray(got[1]).dtype == np.asarray(want[1]).dtype, (call, want, got)
            np.testing.assert_array_equal(got[1], want[1], err_msg=call)
