"""Lists built by ``append`` and used after the loop other than by a stacking call: read by a
NumPy function as an array (``np.argmax(scores)``), or used as the list itself
(``return labels``)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from pforge.transpile import analyze_source, transpile_source

HEAD = '''\
import numpy as np


def f(x, w):
    """Args:
      x: float [n, d].
      w: float [d].
    """
'''


def _run(code, *args):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace["f"](*args)


def _rewrite(body: str):
    source = HEAD + textwrap.indent(textwrap.dedent(body), "    ")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    return source, result.code


ARGS = (np.random.default_rng(0).standard_normal((5, 3)), np.array([1.0, -2.0, 0.5]))


def test_a_list_read_by_a_numpy_function_is_the_batched_array():
    source, code = _rewrite("""\
        scores = []
        for row in x:
            scores.append(row @ w)
        return np.argmax(scores)
        """)
    # batched where the loop runs: with no rows, `np.array([])` is (0,) floats, not the batch's shape
    assert "len(x) > 0:" in code and "type(x) is np.ndarray" in code and "for row in x" not in code.split("else:")[0]
    assert "    return np.argmax(scores)\n" in code
    assert _run(code, *ARGS) == _run(source, *ARGS)


def test_a_list_of_python_numbers_used_as_a_list_is_rebuilt():
    """`float(...)` items come back as Python floats (`batched.tolist()`)."""
    source, code = _rewrite("""\
        labels = []
        for row in x:
            labels.append(float(row.dot(w)))
        return labels
        """)
    want, got = _run(source, *ARGS), _run(code, *ARGS)
    assert "labels = " in code and ".tolist()" in code
    assert isinstance(got, list) and [type(v) for v in got] == [type(v) for v in want] == [float] * 5
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("value, why", [("row.dot(w)", "would come back as NumPy values"),
                                        ("row * w", "would come back as NumPy values"),
                                        ("1 if row[0] > 0 else 0.5", "gets values of two types")])
def test_a_list_whose_items_would_change_type_is_left(value, why):
    """NumPy scalars, rows, or an int on some iterations and a float on others (`np.where` gives
    floats): the batched value's items would not be the objects the loop appended."""
    source = HEAD + f"    labels = []\n    for row in x:\n        labels.append({value})\n    return labels\n"
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert why in " ".join(r.message for r in result.plans[0].remarks)


@pytest.mark.parametrize("value,dtype", [("1 * (row.dot(w) < 0)", np.int64), ("np.mean(row) - w[0]", np.float64),
                                         ("-np.max(row * w)", np.float64), ("row[0] > w[0]", np.bool_),
                                         ("np.argmax(row)", np.int64), ("np.abs(row[0] - w[1])", np.float64),
                                         ("np.maximum(row[0], 0.0)", np.float64)])
def test_a_list_of_numpy_scalars_used_as_a_list_is_rebuilt(value, dtype):
    """An operator's or a whole reduction's result is a NumPy scalar on every iteration (never a
    0-d array): `list(batched)` gives the loop's items, of the loop's type."""
    source, code = _rewrite(f"labels = []\nfor row in x:\n    labels.append({value})\nreturn labels\n")
    assert "labels = list(" in code
    want, got = _run(source, *ARGS), _run(code, *ARGS)
    assert isinstance(got, list) and [type(v) for v in got] == [type(v) for v in want] == [dtype] * 5
    np.testing.assert_array_equal(got, want)


def test_a_filtered_list_of_numpy_scalars_used_as_a_list():
    source, code = _rewrite("""\
        kept = []
        for row in x:
            if row[0] > 0:
                kept.append(row[1] * 2.0)
        return kept
        """)
    want, got = _run(source, *ARGS), _run(code, *ARGS)
    assert got == want and [type(v) for v in got] == [type(v) for v in want]
    none = (-np.abs(ARGS[0]), ARGS[1])  # no row kept: an empty list either way
    assert _run(code, *none) == _run(source, *none) == []


@pytest.mark.parametrize("value", ["np.asarray(row[0] * 2.0)", "np.count_nonzero(row)", "row[0]",
                                   "np.where(row[0] > 0, 1.0, 2.0)", "np.sum(row, keepdims=True)"])
def test_items_that_may_be_0d_arrays_or_python_ints_are_left(value):
    """`np.asarray(v)` and `np.where` give 0-d arrays, `np.count_nonzero` a Python int, and an
    element of `x` is a Python float when `x` is a list: `list(batched)` would change them."""
    source = HEAD + f"    labels = []\n    for row in x:\n        labels.append({value})\n    return labels\n"
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert "is used as a list after the loop" in " ".join(r.message for r in result.plans[0].remarks)


def test_python_ints_merged_by_a_test_come_back_as_python_ints():
    source, code = _rewrite("""\
        labels = []
        for row in x:
            labels.append(1 if row[0] > 0 else 0)
        return labels
        """)
    assert ".tolist()" in code
    want, got = _run(source, *ARGS), _run(code, *ARGS)
    assert got == want and [type(v) for v in got] == [type(v) for v in want] == [int] * 5


def test_a_filtered_list_used_as_a_list():
    source, code = _rewrite("""\
        kept = []
        for row in x:
            if row[0] > 0:
                kept.append(float(row[1]))
        return kept
        """)
    assert _run(code, *ARGS) == _run(source, *ARGS)


def test_appended_python_lists_used_as_a_list_are_left():
    """`hits.append([a, b])` then `return hits`: a list of lists, which the batched array
    would turn into a list of arrays."""
    source = HEAD + "    hits = []\n    for row in x:\n        hits.append([row[0], row[1]])\n    return hits\n"
    assert not transpile_source(source, "m.py").changed


EXTENDED = '''
import numpy as np


def f(x, first):
    out = [first]
    for i in range(len(x)):
        if x[i] > -1.0:
            out.append(x[i] * 2)
    out.append(-1.0)
    return out
'''

EDGES = '''
import numpy as np


def f(centres, fs):
    count = len(centres)
    edges = [[centres[0] / 2, centres[1]]]
    for i in range(1, count - 1):
        edges.append([centres[i - 1], centres[i + 1]])
    edges.append([centres[-2], fs / 2])
    return edges
'''


def _same_items(want, got):
    assert len(got) == len(want)
    for a, b in zip(want, got):
        assert type(a) is type(b), (a, b)
        if isinstance(a, list):
            _same_items(a, b)
        else:
            assert a == b


def test_a_list_with_items_before_the_loop_and_read_again_after_it_is_extended():
    """`out = [first]`, appends in the loop, one more after it: the loop only appends, so the
    batched code extends the list (the other uses stay as written)."""
    result = transpile_source(EXTENDED, "m.py")
    assert result.plans[0].rewritten, result.plans[0].remarks
    assert "out.extend(list(" in result.code and "out = [first]" in result.code
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32, np.int16):
        x = (rng.normal(size=9) * 4).astype(dtype)
        _same_items(_run(EXTENDED, x, 7), _run(result.code, x, 7))


def test_rows_of_elements_of_one_array_are_extended_as_lists_of_its_scalars():
    """pyroomacoustics' band edges: rows `[c[i - 1], c[i + 1]]` come back as lists of the
    array's NumPy scalars; the array must be one (a list of 0-d arrays would give 0-d arrays)."""
    result = transpile_source(EDGES, "m.py")
    assert result.plans[0].rewritten, result.plans[0].remarks
    assert "edges.extend([list(r) for r in np.stack(" in result.code
    assert "type(centres) is np.ndarray and centres.ndim == 1" in result.code
    for centres in (125.0 * 2.0 ** np.arange(7), np.arange(5, dtype=np.int32), np.arange(3.0)):
        _same_items(_run(EDGES, centres, 16000.0), _run(result.code, centres, 16000.0))
    as_list = [np.float64(v) for v in (1.0, 2.0, 4.0)]  # not an array: the loop runs
    _same_items(_run(EDGES, as_list, 8.0), _run(result.code, as_list, 8.0))


def test_rows_mixing_two_arrays_are_left():
    """`[a[i], b[i]]` of two arrays: stacked, the items would take one dtype, where the loop's
    rows hold each array's own scalars."""
    source = EDGES.replace("edges.append([centres[i - 1], centres[i + 1]])",
                           "edges.append([centres[i - 1], fs[i]])").replace("fs / 2", "1.0")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten
    assert "come back as NumPy values of another type" in " ".join(r.message for r in result.plans[0].remarks)


def test_a_tensorflow_list_used_as_a_list_is_left():
    source = textwrap.dedent("""\
        import tensorflow as tf


        def f(x):
            outs = []
            for i in range(x.shape[0]):
                outs.append(tf.reduce_sum(x[i]))
            return outs
        """)
    (plan,) = analyze_source(source, "m.py")
    assert plan.vectorizable
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert "used as a Python list after the loop" in " ".join(r.message for r in result.plans[0].remarks)


# -- which lists are collectors, and how they are consumed (analysis/collectors.py) -----------

LOOP = '''\
import numpy as np
import tensorflow as tf


def f(x, c, buf):
    out = INIT
    for r in x:
        BODY
    return CONSUMER
'''


def _collectors(init="[]", body="out.append(r * 2.0)", consumer="np.stack(out)"):
    """``{name: (consumer kind, conditional)}`` of the loop's collectors (the analysis only)."""
    from pforge.transpile.analysis import discover
    from pforge.transpile.frontend import decode_source
    from pforge.transpile.outline import module_context

    source = LOOP.replace("INIT", init).replace("CONSUMER", consumer).replace(
        "        BODY\n", textwrap.indent(textwrap.dedent(body).rstrip("\n") + "\n", "        "))
    ctx = module_context(decode_source(source, "m.py"))
    (root,) = discover(ctx)
    return {name: (col.kind, col.conditional) for name, col in root.collectors.items()}


@pytest.mark.parametrize("init,found", [("[]", "stack"), ("list()", "stack"), ("list(x)", None),
                                        ("[0.0]", "extend")])
def test_only_a_new_list_starts_a_collector(init, found):
    """A list display or ``list()``; one with items is extended by the batched code."""
    kinds = _collectors(init=init)
    assert (kinds["out"][0] if kinds else None) == found


@pytest.mark.parametrize("consumer,kind", [
    ("np.stack(out)", "stack"), ("np.stack(out, 1)", "stack"), ("np.stack(out, axis=-1)", "stack"),
    ("np.stack(out, dtype=float)", "stack"), ("np.array(out)", "stack"), ("tf.stack(out, axis=0)", "stack"),
    ("tf.stack(out, name='rows')", "stack"), ("tf.concat(out, 0)", "concat"), ("np.concatenate(out)", "concat"),
    ("np.mean(out)", "array"), ("sum(out)", "array"), ("max(out)", "array"), ("out", "list"),
    ("tf.stack(out, 1)", None), ("tf.stack(out, axis=c)", None), ("np.stack(out, axis=c)", None),
    ("tf.concat(out)", None), ("np.stack(out, out=buf)", None), ("sum(out, 0.0)", None),
    ("sorted(out)", None), ("np.where(c, out, 0)", None), ("np.clip(out, 0, 1)", None),
])
def test_the_use_after_the_loop_decides_the_consumer(consumer, kind):
    assert _collectors(consumer=consumer) == ({"out": (kind, False)} if kind else {})


@pytest.mark.parametrize("body,conditional", [
    ("out.append(r)", False),
    ("if r[0] > 0:\n    out.append(r)\nelse:\n    out.append(-r)", False),
    ("with np.errstate(all='ignore'):\n    out.append(r / 2.0)", False),
    ("if r[0] > 0:\n    out.append(r)", True),
    ("if r[0] > 0:\n    if r[1] > 0:\n        out.append(r)\nelse:\n    out.append(-r)", True),
    ("if r[0] > 0:\n    out.append(r)\nelse:\n    if r[1] > 0:\n        out.append(-r)", True),
])
def test_a_collector_appended_on_some_iterations_only_is_a_filter(body, conditional):
    assert _collectors(body=body) == {"out": ("stack", conditional)}


@pytest.mark.parametrize("body", ["for v in r:\n    out.append(v)",
                                  "out.append(r)\nout.append(-r)\nfor v in r:\n    out.append(v)"])
def test_appends_in_an_inner_loop_are_not_a_fixed_number_per_iteration(body):
    """An inner loop may run any number of times: after two appends, still not exactly two."""
    found = _collectors(body=body)
    assert found and all(conditional for _, conditional in found.values())


COMPREHENSION = '''\
import numpy as np


def f(x, c):
    rows = [np.tanh(v) for v in x]
    AFTER
'''


@pytest.mark.parametrize("after,array", [
    ("return np.array(rows)", True), ("return len(rows), np.mean(rows)", True),
    ("return np.stack(rows), sum(rows)", True),
    ("return rows", False), ("return rows[0]", False), ("rows.append(c)\n    return np.array(rows)", False),
    ("if c:\n        rows = []\n    return np.array(rows)", False), ("return len(rows, c)", False),
    ("return sorted(rows)", False), ("return np.where(c, rows, 0)", False), ("return None", False),
])
def test_a_bound_comprehension_is_an_array_when_every_read_takes_it_as_one(after, array):
    """`rows = [f(v) for v in x]` read only as an array (a stacking call, a NumPy reader, `len`,
    `sum`) is batched as one; any other read keeps the list."""
    from pforge.transpile.analysis import discover
    from pforge.transpile.frontend import decode_source
    from pforge.transpile.outline import module_context

    ctx = module_context(decode_source(COMPREHENSION.replace("AFTER", after), "m.py"))
    roots = discover(ctx)  # a comprehension no array reads is not a loop pforge reports
    assert any(root.array_consumer for root in roots) is array


def test_the_functions_marked_as_ufuncs_are_numpy_ufuncs():
    """Only a ufunc returns a NumPy scalar for a 0-d array (`np.where` and `np.clip` need not):
    every name the backend marks so is one."""
    from pforge.transpile.backends.direct.expressions import NUMPY_UFUNCS

    assert NUMPY_UFUNCS and all(isinstance(getattr(np, n.split(".", 1)[1]), np.ufunc) for n in NUMPY_UFUNCS)


def test_numpy_scalars_from_inputs_that_may_be_lists_are_rebuilt_only_for_arrays():
    """With no declared ranks `x` may be a list of floats, whose elements are Python floats:
    the batched code, which would give NumPy scalars, runs only for arrays (fuzz seed 3200621)."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(x, y):
            out = []
            for i in range(len(x)):
                if y[i] >= -0.5:
                    out.append(-(x[i] + y[i]))
            return out
        """)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten and "out = list(" in result.code
    for x, y in [([1.0, 2.0, 3.0], [0.5, -1.0, 2.0]), (np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0]))]:
        want, got = _run(source, x, y), _run(result.code, x, y)
        assert got == want and [type(v) for v in got] == [type(v) for v in want]


@pytest.mark.parametrize("module,says", [
    ("import numpy as np\n", "a list made before the loop (`[]`, `[first]`) that the loop reads only to append to"),
    ("import tensorflow as tf\n", "an empty list before the loop, consumed once after it by tf.stack / tf.concat"),
])
def test_an_append_to_what_is_no_collector_says_what_would_be_one_in_the_loop_s_library(module, says):
    source = module + textwrap.dedent("""\


        def f(x):
            edges = list(x[:1])
            for i in range(1, len(x)):
                edges.append(x[i] * 2.0)
            return edges
        """)
    plan = transpile_source(source, "m.py").plans[0]
    assert not plan.vectorizable
    (message,) = [r.message for r in plan.remarks if r.code == "PF205"]
    assert message == f"appends to `edges`, which is not a collector ({says})"


# -- what the direct printer says when a collector cannot be batched (backends/direct/collectors.py)

NEST = '''\
import numpy as np


def f(x, m):
    """Args:
      x: [n, d].
      m: [n, d, k].
    """
    out = []
    for i in range(x.shape[0]):
        BODY
    return CONSUMER(out)
'''


def _direct(body: str, consumer: str = "np.stack"):
    source = NEST.replace("CONSUMER", consumer).replace(
        "        BODY\n", textwrap.indent(textwrap.dedent(body).rstrip("\n") + "\n", "        "))
    return source, transpile_source(source, "m.py", backend="direct")


@pytest.mark.parametrize("body,consumer,why", [
    ("out.append(x[i])\nout.append(x[i] * 2.0)", "np.stack", "`out` gets more than one value per iteration"),
    ("for j in range(x.shape[1]):\n    out.append(x[i])", "np.stack",
     "appends to `out` a value that does not vary along every loop axis"),
    ("out.append(1 if x[i, 0] > 0 else 0.5)", "np.array",
     "`out` gets values of two types (a Python number on some iterations and a NumPy value on others, or "
     "an int and a float), so the array it becomes has a dtype that depends on which occur"),
])
def test_a_collector_the_direct_printer_cannot_batch_says_why(body, consumer, why):
    _, result = _direct(body, consumer)
    assert not result.changed
    assert why in " ".join(r.message for r in result.plans[0].remarks)


def test_values_of_two_types_are_batched_when_the_array_s_dtype_is_given():
    """`np.array(out, dtype=float)` does not take its dtype from the items: the mixed ints and
    floats make the same array either way."""
    _, result = _direct("out.append(1 if x[i, 0] > 0 else 0.5)", "np.array")
    assert not result.changed  # the dtype comes from the items
    typed = NEST.replace("CONSUMER(out)", "np.array(out, dtype=float)").replace(
        "        BODY\n", "        out.append(1 if x[i, 0] > 0 else 0.5)\n")
    result = transpile_source(typed, "m.py", backend="direct")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    x = np.array([[1.0, 2.0], [-1.0, 0.0], [3.0, 1.0]])
    want, got = _run(typed, x, np.zeros((3, 2, 1))), _run(result.code, x, np.zeros((3, 2, 1)))
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_filter_on_the_outer_index_in_a_nest_keeps_the_inner_values():
    """`if x[i, 0] > 0` decides for every `j`: the mask, one per row, is broadcast along `j`."""
    source, result = _direct("for j in range(x.shape[1]):\n    if x[i, 0] > 0:\n        out.append(x[i, j] * 2.0)",
                             "np.array")
    assert result.plans[0].rewritten and "broadcast_to" in result.code, result.code
    x = np.array([[1.0, 2.0], [-1.0, 5.0], [3.0, 4.0]])
    np.testing.assert_array_equal(_run(result.code, x, None), _run(source, x, None))


PAIRWISE = '''
import numpy as np


def f(X, Y):
    D = []
    for i in range(len(X)):
        row = []
        for j in range(len(Y)):
            row.append(np.sqrt(np.sum((X[i] - Y[j]) ** 2)))
        D.append(row)
    return np.array(D)
'''


def test_a_list_of_lists_built_by_nested_loops_is_the_batched_matrix():
    """Pairwise distances as a list of rows: `row` is the inner loop's batched value, an item
    of `D`, which `np.array` reads as the matrix."""
    result = transpile_source(PAIRWISE, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "D = np.sqrt(np.sum(" in result.code
    rng = np.random.default_rng(4)
    for n, m in ((5, 3), (1, 4), (3, 1)):
        X, Y = rng.normal(size=(n, 2)), rng.normal(size=(m, 2))
        want, got = _run(PAIRWISE, X, Y), _run(result.code, X, Y)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert _run(result.code, np.zeros((2, 2)), np.zeros((0, 2))).shape == (2, 0)  # the loop runs


def test_a_list_of_lists_used_as_a_list_is_left():
    source = PAIRWISE.replace("return np.array(D)", "return D")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten
    assert "`D` is used as a list after the loop" in " ".join(r.message for r in result.plans[0].remarks)


def test_a_list_of_lists_filtered_by_the_outer_loop():
    """The rows an outer `continue` skips are not appended: the outer collector is a filter,
    and each kept row is the inner loop's batched value."""
    source = PAIRWISE.replace("        row = []\n", "        if X[i, 0] < 0:\n            continue\n        row = []\n")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    rng = np.random.default_rng(6)
    for n in (6, 1):
        X, Y = rng.normal(size=(n, 2)), rng.normal(size=(3, 2))
        for X in (X, np.abs(X), -np.abs(X)):  # some rows kept, all, none
            want, got = _run(source, X, Y), _run(result.code, X, Y)
            assert got.dtype == want.dtype and got.shape == want.shape, (want, got)
            np.testing.assert_allclose(got, want, rtol=1e-12)


ROWS_KINDS = '''
import numpy as np


def f(c):
    out = [None]
    for i in range(len(c) - 1):
        out.append(ROW)
    return out
'''


@pytest.mark.parametrize("row, rebuilt", [
    ("[i, i * 2]", "V.tolist()"),  # Python ints come back as Python ints
    ("[i * 3]", "V.tolist()"),  # a row of one item
    ("(i, i + 1)", "[tuple(r) for r in V.tolist()]"),  # tuples as tuples
    ("[c[i], c[i + 1]]", "[list(r) for r in V]"),  # one array's NumPy scalars
    ("(c[i + 1], c[i])", "[tuple(r) for r in V]"),
])
def test_rows_come_back_as_the_loop_appended_them(row, rebuilt):
    source = ROWS_KINDS.replace("ROW", row)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert rebuilt.replace("V", "") .split("(r)")[0] in result.code
    for c in (np.array([1.5, 2.5, -1.0, 4.0]), np.arange(5, dtype=np.int16), np.array([3.0])):
        _same_items(_run(source, c), _run(result.code, c))


@pytest.mark.parametrize("row", ["[i, c[i]]", "[c[i], 1.5]", "[i, 2.5]"])
def test_rows_of_two_kinds_of_items_are_left(row):
    """A Python int beside a NumPy scalar (or a float): stacked, both would take one dtype."""
    result = transpile_source(ROWS_KINDS.replace("ROW", row), "m.py")
    assert not result.plans[0].rewritten


def test_a_list_reached_by_a_second_name_is_extended_in_place_or_left():
    """`other = out` before the loop: the batched code extends the one list (rebinding `out`
    would leave `other` empty), and a loop reading `other` sees its items grow, so it stays."""
    from pforge.runtime.loader import load_module
    from pforge.transpile import transpile_source

    returned = '''
import numpy as np

def f(x):
    out = []
    other = out
    for i in range(len(x)):
        out.append(x[i] * 2)
    return other
'''
    result = transpile_source(returned, "m.py")
    assert result.plans[0].rewritten and ".extend(" in result.code, result.code
    x = np.array([1.0, 2.0, 3.0])
    assert load_module("m.py", source=result.code).f(x) == load_module("m.py", source=returned).f(x)
    read = '''
import numpy as np

def f(x):
    out = [0.0]
    other = out
    for i in range(len(x)):
        out.append(x[i] + other[-1])
    return out
'''
    (plan,) = transpile_source(read, "m.py").plans
    assert not plan.rewritten


@pytest.mark.parametrize("before, rewritten", [
    ("    n0 = len(out)\n", True),                      # a length read: the list is extended
    ("    box = [out]\n", False),                       # kept elsewhere, read in the loop
    ("    n0 = len(out)\n    box = [out]\n", False),    # every use before the loop is seen
    ("    other = out\n    box = [out]\n", False),
])
def test_a_list_used_before_the_loop_is_extended_only_where_nothing_else_holds_it(before, rewritten):
    from pforge.runtime.loader import load_module
    from pforge.transpile import transpile_source

    reads = " + box[0][-1]" if "box" in before else ""
    source = ("import numpy as np\n\ndef f(x):\n    out = [0.5]\n" + before + "    for i in range(len(x)):\n"
              f"        out.append(x[i] * 2{reads})\n    return out\n")
    result = transpile_source(source, "m.py")
    (plan,) = result.plans
    assert plan.rewritten == rewritten, [r.message for r in plan.remarks]
    x = np.array([1.0, 2.0, 3.0])
    assert load_module("m.py", source=result.code).f(x) == load_module("m.py", source=source).f(x)


def test_a_private_appended_from_a_list_of_python_floats_keeps_their_type():
    """``s = b[i] * 2.0; a.append(s)``, ``a`` returned as the list: over a list of Python floats
    the loop's items are Python floats, so the batched ``list(s)`` (NumPy scalars) is taken only
    where ``b``, which ``s`` is computed from, is an array (helper-48)."""
    source = ("import numpy as np\n\n\ndef f(b):\n    a = []\n    for i in range(len(b)):\n"
              "        s = b[i] * 2.0\n        a.append(s)\n    return a\n")
    code = transpile_source(source, "m.py").code
    assert "type(b) is np.ndarray" in code, code
    for b in ([1.5, -2.0], np.array([1.5, -2.0])):
        want, got = _run(source, b), _run(code, b)
        assert [type(v) for v in got] == [type(v) for v in want] and got == want
