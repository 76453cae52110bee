"""Packs (``analysis/packs.py``): ``if t: j += 1; a[j] = v`` writes the values whose test holds
into consecutive elements of ``a`` (TSVC s341, the filter-into-a-preallocated-array idiom). The
rewrite takes the values where the test holds and writes them as one slice; the tests run the
loop and the rewrite over dtypes, starts and array sizes, and check the look-alikes stay loops."""

from __future__ import annotations

import itertools
import textwrap
import types
import warnings

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

DTYPES = [np.float64, np.float32, np.int64, np.int8, np.bool_]


def _module(body: str, params: str) -> str:
    return f"import numpy as np\n\n\ndef f({params}):\n" + textwrap.indent(textwrap.dedent(body), "    ")


def _load(code: str):
    return run_module(code)["f"]


def _run(fn, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args)
        except (IndexError, ValueError) as exc:
            return type(exc)


def _same(want, got) -> bool:
    """Equal values, dtypes and types (the counter stays a Python int or a NumPy integer, as the
    loop leaves it)."""
    if isinstance(want, tuple):
        return all(_same(w, g) for w, g in zip(want, got, strict=True))
    if type(want) is not type(got):
        return False
    if isinstance(want, np.ndarray):
        return want.dtype == got.dtype and want.shape == got.shape and np.array_equal(want, got, equal_nan=True)
    return want == got


PACKS = [
    # (body, params, arguments from (rng, n, dtype, size, start))
    ("j = -1\nfor i in range(len(b)):\n    if b[i] > 0.0:\n        j += 1\n        a[j] = b[i]\nreturn a, j\n",
     "a, b", lambda rng, n, dt, size, start: [np.zeros(size, dt), (rng.normal(size=n) * 3).astype(dt)]),
    ("for i in range(len(x)):\n    if x[i] > lo:\n        out[k] = x[i] * 2\n        k += 1\nreturn out, k\n",
     "x, out, k, lo", lambda rng, n, dt, size, start: [(rng.normal(size=n) * 3).astype(dt), np.zeros(size, dt),
                                                      start, 0.5]),
    ("n = 0\nfor i in range(len(x)):\n    if x[i] < 0:\n        where[n] = i\n        n += 1\nreturn where, n\n",
     "x, where", lambda rng, n, dt, size, start: [(rng.normal(size=n) * 3).astype(dt), np.zeros(size, np.int64)]),
    ("k = 0\nfor i in range(m.shape[0]):\n    if m[i, 0] > 0:\n        rows[k] = m[i] - 1\n        k += 1\n"
     "return rows, k\n",
     "m, rows", lambda rng, n, dt, size, start: [(rng.normal(size=(n, 3)) * 3).astype(dt), np.zeros((size, 3), dt)]),
    # under a `continue` guard: the guard's test and the pack's together
    ("k = 0\nfor i in range(len(x)):\n    if x[i] < -2:\n        continue\n    if x[i] < 1:\n        k += 1\n"
     "        out[k] = x[i] - 1\nreturn out, k\n",
     "x, out", lambda rng, n, dt, size, start: [(rng.normal(size=n) * 3).astype(dt), np.zeros(size, dt)]),
]


@pytest.mark.parametrize("body, params, make", PACKS, ids=["s341", "keep from k", "indices", "rows", "guarded"])
def test_a_pack_is_a_mask_and_one_slice_with_the_loops_values(body, params, make):
    """Every dtype, 0 to 12 iterations, arrays with room to spare, exactly enough or too little,
    counters that start at 0, further on, at a NumPy integer, or before the array's start (the
    loop then writes from its end, element by element: the check runs the loop): values,
    dtypes and the counter's type are the loop's. Where the loop runs past the array's end it
    raises; the rewrite raises too or returns (the README's contract), never a different value
    where the loop returns one."""
    source = _module(body, params)
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten and " pack " in f" {plan.pattern}", [r.message for r in plan.remarks]
    batched = result.code.split("else:")[0]
    assert "_packed" in batched and "for i in" not in batched, result.code
    loop, new = _load(source), _load(result.code)
    rng = np.random.default_rng(len(body))
    for n, dt, extra, start in itertools.product(range(0, 13, 3), DTYPES, (-2, 0, 3), (0, 2, -1, -4, np.int64(1))):
        args = make(rng, n, dt, max(n + extra, 0), start)
        want, got = _run(loop, args), _run(new, args)
        if isinstance(want, type):
            continue
        assert _same(want, got), (n, dt, extra, start, want, got)


def test_the_rewrite_is_the_expert_form():
    """TSVC s341: the mask, one slice write and the counter moved past it, checked to be an
    array and an integer that starts at an index of 0 or more."""
    source = _module(PACKS[0][0], "a, b")
    code = transpile_source(source, "m.py").code
    assert "a_packed = np.asarray(b)[np.asarray(b) > 0.0]" in code
    assert "a[j + 1:j + 1 + a_packed.shape[0]] = a_packed\n" in code and "j += a_packed.shape[0]" in code
    assert "type(a) is np.ndarray and a.ndim == 1" in code and "a.dtype.kind != 'O'" in code
    assert "j + 1 >= 0" in code
    assert "                j += 1\n                a[j] = b[i]" in code  # the loop as written


def test_an_array_read_by_the_values_runs_the_loop():
    """``pack(x[2:], x[:4])``: the loop writes elements of ``x`` it reads two iterations later,
    and copies its own writes forward; the rewrite would read all of ``b`` first. The check
    that the arguments share no memory sends the call to the loop."""
    source = _module(PACKS[0][0], "a, b")
    loop, new = _load(source), _load(transpile_source(source, "m.py").code)
    x, y = np.arange(1.0, 7.0), np.arange(1.0, 7.0)
    want, got = loop(x[2:], x[:4]), new(y[2:], y[:4])
    assert want[1] == got[1] == 3
    np.testing.assert_array_equal(x, [1, 2, 1, 2, 1, 2])  # (batched, it would be 1, 2, 1, 2, 3, 4)
    np.testing.assert_array_equal(y, x)


LEFT = [
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j] = j * 0.5\nreturn a\n", "counter read"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n    if b[i] < 1:\n        a[j] = b[i]\nreturn a\n",
     "two tests"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        a[j] = b[i]\n        j += 2\nreturn a\n", "two steps"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j] = a[i]\nreturn a\n", "in place"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j + 1] = b[i]\nreturn a\n", "an offset"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j] = b[i]\n    else:\n        j -= 1\n"
     "return a\n", "an else"),
    ("for i in range(len(b)):\n    c[i] = j\n    if b[i] > 0:\n        j += 1\n        a[j] = b[i]\nreturn a\n",
     "counter read before"),
    # an alias of the array written or read in the body (helper-50): its own accesses
    ("a2 = a\nfor i in range(len(b)):\n    a2[i] = -1.0\n    if b[i] > 0:\n        j += 1\n        a[j] = b[i]\n"
     "return a\n", "alias written"),
    ("a2 = a\nfor i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j] = a2[i]\nreturn a\n",
     "alias read by the value"),
    ("a2 = a\nfor i in range(len(b)):\n    if a2[i] > 0:\n        j += 1\n        a[j] = b[i]\nreturn a\n",
     "alias read by the test"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j] = b[i]\n    if b[i] > 1.5:\n"
     "        j = 0\nreturn a\n", "counter reset"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j] += b[i]\nreturn a\n", "augmented write"),
    ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        a[j] = c[j] = b[i]\nreturn a\n",
     "two targets"),
]


@pytest.mark.parametrize("body, why", LEFT, ids=[w for _, w in LEFT])
def test_look_alikes_keep_their_dependence(body, why):
    """The counter read anywhere but as the write's index, the write under another test, a step
    other than one, the values read from the array written, another index than the counter,
    an ``else`` that moves the counter: no pack, and the loop is left."""
    source = _module(body, "a, b, j, c=None")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert not plan.rewritten and "pack" not in plan.pattern, result.code
    a, b = np.zeros(12), np.linspace(-1, 2, 6)
    np.testing.assert_array_equal(_load(result.code)(a.copy(), b, 0, np.zeros(6))[: 12],
                                  _load(source)(a.copy(), b, 0, np.zeros(6))[: 12])


def test_look_alikes_that_write_no_array_element_are_no_pack():
    """The counter beside a write of a name, or of an attribute's element: not the pattern (the
    loop is whatever else it is), and the transpiler reads the statements without failing."""
    for body in ("for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        x = b[i]\nreturn j\n",
                 "for i in range(len(b)):\n    if b[i] > 0:\n        j += 1\n        o.v[j] = b[i]\nreturn j\n"):
        source = _module(body, "o, b, j")
        result = transpile_source(source, "m.py")
        assert "pack" not in result.plans[0].pattern
        o, b = types.SimpleNamespace(v=np.zeros(9)), np.linspace(-1, 2, 6)
        assert _load(result.code)(o, b, 0) == _load(source)(types.SimpleNamespace(v=np.zeros(9)), b, 0)


def test_the_counter_is_named_a_pack_counter_and_a_refused_one_carried_at_its_increment():
    """`explain`'s table names the counter's class; where an alias of the array turns the pack
    down, the counter is carried, with the remark at its increment's line."""
    (plan,) = transpile_source(_module(PACKS[0][0], "a, b"), "m.py").plans
    assert ("j", "pack counter") in plan.levels[0].classes
    source = _module({why: body for body, why in LEFT}["alias written"], "a, b, j, c=None")
    (plan,) = transpile_source(source, "m.py").plans
    assert ("j", "carried") in plan.levels[0].classes
    (remark,) = [r for r in plan.remarks if r.code == "PF201"]
    assert remark.lineno == source.splitlines().index("            j += 1") + 1 and "another name" in remark.message


def test_tensorflow_code_keeps_the_loop_and_says_why():
    """The pack is written for NumPy arrays only: in a module that imports TensorFlow (whose
    tensors take no element assignment) the loop is vectorizable, and left with the reason."""
    source = "import numpy as np\nimport tensorflow as tf\n\n\n" + _module(PACKS[0][0], "a, b").split("\n\n\n", 1)[1]
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.vectorizable and not plan.rewritten and result.code == source
    assert " pack a at j" in f" {plan.pattern}"


def test_an_array_of_objects_runs_the_loop():
    """The loop stores the NumPy scalars it computes into an object array; a slice assignment
    would store Python numbers (helper-50)."""
    source = _module(PACKS[0][0], "a, b")
    new, loop = _load(transpile_source(source, "m.py").code), _load(source)
    got, want = new(np.zeros(2, object), np.array([1.5, 2.5])), loop(np.zeros(2, object), np.array([1.5, 2.5]))
    assert [type(v) for v in got[0]] == [type(v) for v in want[0]] == [np.float64, np.float64]


def test_a_module_len_is_not_called():
    """The loop never calls ``len``; a module that binds it to something else gets the same
    rewrite, which measures the kept values by their shape (helper-50)."""
    source = "import numpy as np\n\n\ndef len(x):\n    return 1\n\n\n" + _module(
        "j = -1\nfor i in range(b.shape[0]):\n    if b[i] > 0.0:\n        j += 1\n        a[j] = b[i]\nreturn a, j\n",
        "a, b").split("\n\n\n", 1)[1]
    result = transpile_source(source, "m.py")
    assert result.plans[-1].rewritten
    got, want = _load(result.code)(np.zeros(4), np.array([1.0, 2.0, 3.0])), _load(source)(np.zeros(4), np.array([1.0, 2.0, 3.0]))
    assert _same(got, want)


def test_a_narrow_integer_counter_runs_the_loop():
    """An int8 counter at 126 wraps around to -128 after its first write in the loop, which then
    writes from the array's end; a slice from 127 on would not. Only Python ints and 64-bit
    NumPy integers are written as a slice."""
    source = _module(PACKS[0][0].replace("j = -1\n", ""), "a, b, j")
    loop, new = _load(source), _load(transpile_source(source, "m.py").code)
    b = np.ones(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = loop(np.zeros(200), b, np.int8(126)), new(np.zeros(200), b, np.int8(126))
    assert _same(want, got) and want[1] == np.int8(-126) and np.flatnonzero(want[0]).tolist() == [72, 73, 74, 127]
    assert _same(new(np.zeros(200), b, np.int64(126)), loop(np.zeros(200), b, np.int64(126)))
