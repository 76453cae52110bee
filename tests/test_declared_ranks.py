"""Ranks the user declares (a docstring, an annotation, ``--shapes``, ``--probe``) are checked
where the batched code rests on them, never taken on trust.

A docstring may be out of date, and a caller may pass a batch of what it documents: the loop
runs on a value of any rank, the batched code is right only for the rank it was printed for.
Each declared rank the batched code reads (itself, or through a local computed from it) is
checked in front (``np.ndim(x) == 2``), widened to every rank for which the printer makes the
same code (``versioning.widen_declared_ranks``), and dropped where that is every rank. A rank
the code proves (``range(n)``) is not checked, nor one the staged decorator's signature gives.
Each test asserts what was rewritten before it compares numbers with the loop.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import pforge
from pforge.transpile import transpile_source
from tests.loops import file_module, run_module

ROW_SUMS = '''
import numpy as np


def row_sums(xs):
    """Row sums.

    Args:
      xs: float64 array [n, d], the rows.
    """
    res = []
    for r in xs:
        res.append(np.sum(r))
    return np.array(res)
'''

UNDECLARED_SUM = '''
import numpy as np


def f(x, w):
    """Shifted.

    Args:
      x: float64 [n], values.
      w: float64 [d], weights.
    """
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] + np.sum(w)
    return out
'''

PROVEN = '''
import numpy as np


def g(x, n):
    """Doubled.

    Args:
      x: float64 [n], values.
      n: int, how many.
    """
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * 2.0
    return out
'''

THROUGH_A_LOCAL = '''
import numpy as np


def f(x, w):
    """Weighted sums of rows.

    Args:
      x: float64 [n, d], the rows.
      w: float64 [d], the weights.
    """
    h = w
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i] * h)
    return out
'''

SCALED = '''
import numpy as np


def scale_rows(x, w):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * w
    return out
'''


def _guard(code: str) -> str:
    """The guard in front of the one batched loop, on one line."""
    line = next(k for k, text in enumerate(code.splitlines()) if text.strip().startswith("if "))
    lines = code.splitlines()[line:]
    end = next(k for k, text in enumerate(lines) if text.rstrip().endswith(":"))
    return " ".join(text.strip() for text in lines[:end + 1])


def _same(want, got):
    assert type(got) is type(want) and np.shape(got) == np.shape(want), (want, got)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _outcome(function, *args):
    try:
        return "value", function(*args)
    except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
        return "raised", type(exc).__name__


def test_a_docstring_rank_is_checked_and_the_loop_runs_for_another():
    result = transpile_source(ROW_SUMS, "m.py", line_length=200)
    assert result.plans[0].rewritten
    assert _guard(result.code) == "if type(xs) is np.ndarray and xs.ndim == 2 and len(xs) > 0:"
    assert "res = np.sum(xs, axis=-1)" in result.code
    before, after = run_module(ROW_SUMS), run_module(result.code)
    for xs in (np.arange(6.0).reshape(3, 2), np.arange(24.0).reshape(2, 3, 4), np.arange(4.0)):
        _same(before["row_sums"](xs), after["row_sums"](xs))


@pytest.mark.parametrize("shapes", [{"xs": 2}, {"row_sums.xs": 2}])
def test_a_rank_given_as_shapes_is_checked(shapes):
    plain = ROW_SUMS.replace("xs: float64 array [n, d], the rows.", "xs: the rows.")
    result = transpile_source(plain, "m.py", shapes=shapes, line_length=200)
    assert result.plans[0].rewritten
    assert _guard(result.code) == "if type(xs) is np.ndarray and xs.ndim == 2 and len(xs) > 0:"
    xs = np.arange(24.0).reshape(2, 3, 4)
    _same(run_module(plain)["row_sums"](xs), run_module(result.code)["row_sums"](xs))


def test_a_rank_read_through_a_local_is_checked():
    """``h = w``: the batched code reads ``h``, whose rank is ``w``'s."""
    result = transpile_source(THROUGH_A_LOCAL, "m.py", line_length=200)
    assert result.plans[0].rewritten and "out[...] = np.sum(x * h, axis=-1)" in result.code
    assert _guard(result.code) == "if type(x) is np.ndarray and np.ndim(w) <= 1 and x.ndim == 2 and len(x) > 0:"
    before, after = run_module(THROUGH_A_LOCAL), run_module(result.code)
    x = np.arange(6.0).reshape(3, 2)
    for w in (np.array([0.5, -1.0]), 2.0, np.arange(6.0).reshape(3, 2)):
        _same(before["f"](x, w), after["f"](x, w))


def test_a_rank_every_rank_prints_the_same_code_for_is_not_checked():
    """``np.sum(w)`` is a number whatever ``w``'s rank: the batched code is the same for each."""
    result = transpile_source(UNDECLARED_SUM, "m.py", line_length=200)
    assert result.plans[0].rewritten and "out[...] = x + np.sum(w)" in result.code
    assert _guard(result.code) == "if type(x) is np.ndarray and x.ndim == 1 and len(x) > 0:"
    before, after = run_module(UNDECLARED_SUM), run_module(result.code)
    for w in (3.0, np.arange(4.0), np.ones((2, 3))):
        _same(before["f"](np.arange(5.0), w), after["f"](np.arange(5.0), w))


def test_a_rank_the_code_proves_is_not_checked():
    """``range(n)`` takes no array of one axis or more: ``n: int`` needs no check."""
    result = transpile_source(PROVEN, "m.py", line_length=200)
    assert result.plans[0].rewritten
    guard = _guard(result.code)
    assert "x.ndim == 1" in guard and "ndim(n)" not in guard


def test_ranks_widen_to_those_the_batched_code_is_the_same_for():
    """``x * w``: ``w`` a scalar or a row, ``x`` of two axes or more; each alone and together."""
    result = transpile_source(SCALED, "m.py", shapes={"x": 2, "scale_rows.w": 1}, line_length=200)
    assert result.plans[0].rewritten
    assert _guard(result.code) == "if np.ndim(w) <= 1 and type(x) is np.ndarray and x.ndim >= 2 and x.shape[0] > 0:"
    before, after = run_module(SCALED), run_module(result.code)
    for x, w in ((np.ones((3, 2)), np.array([2.0, 3.0])), (np.ones((2, 3, 2)), 2.0),
                 (np.ones((2, 3)), np.ones((2, 3))), (np.arange(3.0), np.arange(3.0)),
                 (np.ones((2, 2)), np.arange(4.0).reshape(2, 2))):
        (how, want), (got_how, got) = _outcome(before["scale_rows"], x.copy(), w), _outcome(after["scale_rows"], x.copy(), w)
        assert got_how == how
        if how == "value":
            _same(want, got)
        else:
            assert got == want


def test_the_widened_ranks_are_tried_together(monkeypatch):
    """Two names widened alone are kept widened only where every pair of their ranks gives
    the same code: a rewrite that differs for one pair keeps both checks as declared."""
    from pforge.transpile import versioning
    from pforge.transpile.backends import direct

    real = direct.rewrite_loop

    def differs_for_the_pair(ctx, info, namer, tf, np_, shapes=None, **kwargs):
        found = real(ctx, info, namer, tf, np_, shapes, **kwargs)
        ranks = {key: value[1] if isinstance(value, tuple) else value for key, value in (shapes or {}).items()}
        if ranks.get("scale_rows.x") == 3 and ranks.get("scale_rows.w") == 0:
            found.stmts = found.stmts + found.stmts[:1]  # (some other code)
        return found

    monkeypatch.setattr(direct, "rewrite_loop", differs_for_the_pair)
    monkeypatch.setattr(versioning, "_WIDENED_BOX", 64)
    result = transpile_source(SCALED, "m.py", shapes={"x": 2, "scale_rows.w": 1}, line_length=200)
    assert _guard(result.code) == "if type(w) is np.ndarray and w.ndim == 1 and type(x) is np.ndarray and x.ndim == 2 and x.shape[0] > 0:"


def test_too_many_combinations_keep_the_declared_ranks(monkeypatch):
    from pforge.transpile import versioning

    monkeypatch.setattr(versioning, "_WIDENED_BOX", 2)
    result = transpile_source(SCALED, "m.py", shapes={"x": 2, "scale_rows.w": 1}, line_length=200)
    assert _guard(result.code) == "if type(w) is np.ndarray and w.ndim == 1 and type(x) is np.ndarray and x.ndim == 2 and x.shape[0] > 0:"


def test_the_staged_decorator_checks_no_rank():
    """Staged for its signature, the rank check is worked out (the signature is the guard);
    the trip count's test stays (an empty loop reads nothing, its batched code might)."""
    source = textwrap.dedent('''
        import numpy as np

        def f(x):
            """Differences.

            Args:
              x: float64 [n], values.
            """
            out = np.zeros(len(x))
            for t in range(len(x) - 1):
                out[t] = x[t + 1] - x[t]
            return out
        ''')
    cli = transpile_source(source, "m.py", line_length=200).code
    assert "if type(x) is np.ndarray and x.ndim == 1 and len(x) - 1 > 0:" in cli
    staged = transpile_source(source, "m.py", shapes={"f.x": 1}, kinds={"f.x": ("ndarray", "<f8", 1)},
                              line_length=200).code
    assert "    if len(x) - 1 > 0:\n        out[:len(x) - 1] = x[1:len(x)] - x[:len(x) - 1]\n" in staged
    for x in (np.arange(5.0) ** 2, np.zeros(0), np.ones(1)):
        _same(run_module(source)["f"](x), run_module(staged)["f"](x))


def test_the_staged_decorator_restages_for_the_rank_a_docstring_does_not_give(tmp_path):
    staged = pforge.vectorize(file_module(tmp_path / "row_sums_module.py", ROW_SUMS).row_sums)
    for xs in (np.arange(6.0).reshape(3, 2), np.arange(24.0).reshape(2, 3, 4)):
        _same(run_module(ROW_SUMS)["row_sums"](xs), staged(xs))
        assert "np.ndim" not in staged.code(xs) and "np.sum(xs, axis=" in staged.code(xs)


def test_a_dead_loop_checks_no_rank():
    """A loop whose values nothing reads leaves no batched code to rest on a rank."""
    source = textwrap.dedent('''
        import numpy as np

        def f(a):
            """Nothing.

            Args:
              a: float64 [n], values.
            """
            for j in range(a.shape[0]):
                w = a[j] * 2
            return a
        ''')
    result = transpile_source(source, "m.py", line_length=200)
    assert result.plans[0].rewritten and "pass" in result.code and "ndim" not in result.code


HELPER_72 = {
    # a comprehension's batched value
    "listed": ('''
def f(xs):
    """Args:
      xs: float64 array [n, d], the rows.
    """
    return np.array([np.sum(r) for r in xs])
''', [(np.ones((3, 2, 2)),), (np.arange(6.0).reshape(3, 2),)]),
    # a declared parameter bound again before the loop: its local is checked
    "rebound": ('''
def f(x, w):
    """Args:
      x: float64 [n, d], rows.
      w: float64 [d], weights.
    """
    w = np.asarray(w)
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(x[i] * w)
    return out
''', [(np.arange(6.0).reshape(3, 2), np.ones((3, 2))), (np.arange(6.0).reshape(3, 2), np.ones(2))]),
    # `range(n)` under an `if` proves nothing where the loop runs
    "range under an if": ('''
def f(x, n, verbose=False):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * n
    if verbose:
        for j in range(n):
            print(j)
    return s
''', [(np.arange(4.0), np.arange(1.0, 5.0)), (np.arange(4.0), 3)]),
    # `[n]` for two arrays: their lengths are checked
    "one dimension's name": ('''
def f(x, w):
    """Args:
      x: float64 [n], values.
      w: float64 [n], weights.
    """
    s = 0.0
    for a, b in zip(x, w):
        s += a * b
    return s
''', [(np.ones(1), np.arange(4.0)), (np.ones(4), np.arange(4.0))]),
    # a matrix's rows are matrices: only an ndarray runs the batched code
    "matrix": ('''
def f(x, w):
    """Args:
      x: float64 [n, d], rows.
      w: float64 [d, k], weights.
    """
    res = []
    for i in range(len(x)):
        res.append(x[i] @ w)
    return np.array(res)
''', [(np.matrix(np.arange(6.0).reshape(3, 2)), np.ones((2, 1))), (np.arange(6.0).reshape(3, 2), np.ones((2, 1)))]),
}


@pytest.mark.parametrize("name", sorted(HELPER_72))
def test_a_declaration_the_calls_break_runs_the_loop(name):
    body, calls = HELPER_72[name]
    source = "import numpy as np\n" + body
    result = transpile_source(source, "m.py", line_length=200)
    assert result.plans[0].rewritten, name
    before, after = run_module(source), run_module(result.code)
    for args in calls:
        want, got = before["f"](*args), after["f"](*args)
        assert type(got) is type(want) and np.shape(got) == np.shape(want), (name, want, got)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize(("body", "proven"), [
    ("for i in range(n):\n    pass", True),  # a loop's header
    ("k = len(range(n - 1))", True),  # integer arithmetic, inside a call
    ("for i in range(3):\n    for j in range(n):\n        pass", True),  # a loop's body
    ("with open('f') as h:\n    k = range(n)", True),
    ("if range(n):\n    pass", True),  # an if's test runs
    ("while range(n):\n    break", True),
    ("if c:\n    k = range(n)", False),  # an if's body may not
    ("if c:\n    pass\nelse:\n    k = range(n)", False),
    ("while c:\n    k = range(n)", False),
    ("try:\n    k = range(n)\nexcept ValueError:\n    pass", False),
    ("k = 0 if c else range(n)", False),  # a branch of a conditional expression
    ("k = range(n) if c else 0", False),
    ("k = range(c) if range(n) else 0", True),  # its test runs
    ("k = c and range(n)", False),  # an `and`'s later operand
    ("k = range(n) and c", True),
    ("k = [i for i in range(n)]", True),  # a comprehension's first iterable
    ("k = [j for i in range(3) for j in range(n)]", False),
    ("k = [range(n) for i in range(3)]", False),
    ("def g(n):\n    return range(n)", False),  # another scope
    ("g = lambda: range(n)", False),
    ("class C:\n    k = range(n)", False),
    ("return 0\nk = range(n)", False),  # after a return
    ("raise ValueError\nk = range(n)", False),
    ("match c:\n    case 1:\n        k = range(n)", False),
])
def test_a_range_proves_a_number_only_where_it_always_runs(body, proven):
    from pforge.transpile.frontend import decode_source
    from pforge.transpile.outline import module_context
    from pforge.transpile.ranks import range_scalars

    source = "import numpy as np\nfor _ in ():\n    pass\n\ndef f(n, c):\n" + textwrap.indent(body, "    ") + "\n"
    ctx = module_context(decode_source(source, "m.py"))
    fdef = next(node for node in ctx.tree.body if getattr(node, "name", None) == "f")
    assert ("n" in range_scalars(ctx, fdef)) is proven


@pytest.mark.parametrize(("test", "folded"), [
    ("not isinstance(x, (list, tuple))", []),
    ("not (isinstance(x, (list, tuple)) or len(y) > 0)", ["not len(y) > 0"]),
    ("not isinstance(y, (list, tuple))", ["not isinstance(y, (list, tuple))"]),
    ("not type(x) is np.ndarray", ["not type(x) is np.ndarray"]),  # (false: kept, to fail as written)
])
def test_a_negated_type_test_beside_an_exact_array_is_decided(test, folded):
    """``type(x) is np.ndarray`` first: ``not isinstance(x, (list, tuple))`` is true and goes;
    ``not type(x) is np.ndarray`` is false, and stays as written (the guard fails as it runs)."""
    import gast

    from pforge.transpile.versioning import _known_arrays_folded

    tests = [gast.parse("type(x) is np.ndarray", mode="eval").body, gast.parse(test, mode="eval").body]
    kept = [gast.unparse(t).strip() for t in _known_arrays_folded(tests)]
    assert kept[0] == "type(x) is np.ndarray"
    assert kept[1:] == folded, kept


# -- TensorFlow: the declared rank is enforced with tf.debugging.assert_rank -------------------

TF_ROWS = '''
import tensorflow as tf


def row_sums(xs):
    """Row sums.

    Args:
      xs: float32 tensor [n, d], the rows.
    """
    res = []
    for r in xs:
        res.append(tf.reduce_sum(r))
    return tf.stack(res)


def weighted(x, w):
    """Weighted sums.

    Args:
      x: float32 [n, d], the rows.
      w: float32 [d], the weights.
    """
    out = []
    for i in range(x.shape[0]):
        out.append(tf.reduce_sum(x[i] * w))
    return tf.stack(out)


def squashed(x):
    """Squashed rows.

    Args:
      x: float32 [n, d], the rows.
    """
    out = []
    for r in x:
        out.append(tf.tanh(r) * 2.0)
    return tf.stack(out)
'''


SCALED_ROWS = '''
import numpy as np


def scaled(x, w):
    """Scaled rows.

    Args:
      x: float64 [n, d], the rows.
      w: float64 [d], the weights.
    """
    res = []
    for r in x:
        res.append(r * w)
    return np.array(res)
'''


def function_body(code: str, name: str) -> list[str]:
    """The statements of function ``name`` in ``code``, unparsed one by one, its docstring left out."""
    import ast

    fdef = next(n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef) and n.name == name)
    body = fdef.body[1:] if isinstance(fdef.body[0], ast.Expr) and isinstance(fdef.body[0].value, ast.Constant) \
        else fdef.body
    return [ast.unparse(st) for st in body]


def test_tensorflow_batched_code_asserts_the_declared_ranks():
    """Before session 43, TensorFlow's batched code trusted a docstring's rank: a 3-D ``xs``
    got ``tf.reduce_sum(xs, axis=-1)``, ``(n, d)`` where the loop gives ``(n,)``. A loop kept
    beside it would be traced by ``tf.function`` (a list it appends to cannot leave the graph's
    ``while``), so the rank is asserted, widened as NumPy's checks are, and dropped where every
    rank prints the same code (``tf.tanh(r) * 2.0``)."""
    result = transpile_source(TF_ROWS, "m.py", line_length=200)
    assert [plan.backend for plan in result.plans] == ["direct"] * 3
    body = {name: function_body(result.code, name) for name in ("row_sums", "weighted", "squashed")}
    assert body["row_sums"][:2] == ["tf.debugging.assert_rank(xs, 2)", "res = tf.reduce_sum(xs, axis=-1)"]
    assert body["weighted"][:3] == ["tf.debugging.assert_rank_in(w, (0, 1))", "tf.debugging.assert_rank(x, 2)",
                                    "out = tf.reduce_sum(x * w, axis=-1)"]
    assert body["squashed"][0] == "out = tf.tanh(x) * 2.0"


def test_tensorflow_batched_code_raises_for_another_rank_and_computes_for_the_declared(tf, tmp_path):
    after = file_module(tmp_path / "after_tf_rows.py", transpile_source(TF_ROWS, "m.py").code)
    before = file_module(tmp_path / "before_tf_rows.py", TF_ROWS)
    rows, cube = tf.reshape(tf.range(6.0), (3, 2)), tf.reshape(tf.range(24.0), (2, 3, 4))
    np.testing.assert_allclose(after.row_sums(rows), before.row_sums(rows))
    np.testing.assert_allclose(after.weighted(rows, tf.constant([0.5, -1.0])), before.weighted(rows, tf.constant([0.5, -1.0])))
    np.testing.assert_allclose(after.weighted(rows, 2.0), before.weighted(rows, 2.0))  # (widened: a number)
    np.testing.assert_allclose(after.squashed(cube), before.squashed(cube))  # (no rank asserted)
    assert before.row_sums(cube).shape == (2,)
    with pytest.raises(ValueError, match="must have rank 2"):
        after.row_sums(cube)
    with pytest.raises(ValueError, match="must have rank 2"):
        after.weighted(cube, tf.constant([0.5, -1.0, 1.0, 2.0]))


def test_tensorflow_rank_assertions_are_not_staged_where_the_signature_gives_the_rank(tf, tmp_path):
    """Under the staged decorator, a tensor's rank is the signature's: no assertion. A variable's,
    a NumPy array's and a list's are not (``runtime.signatures._rank_fact``): the docstring's
    rank is asserted for them (helper-73: a rank-3 ``tf.Variable`` got ``tf.reduce_sum(xs,
    axis=-1)`` unchecked)."""
    module = file_module(tmp_path / "staged_tf_rows.py", TF_ROWS)
    staged = pforge.vectorize(module.row_sums)
    rows = tf.reshape(tf.range(6.0), (3, 2))
    np.testing.assert_allclose(staged(rows), module.row_sums(rows))
    entry = staged.entry(rows)
    assert entry.rewritten and "assert_rank" not in entry.code
    cube = tf.reshape(tf.range(24.0), (2, 3, 4))
    np.testing.assert_allclose(staged(cube), module.row_sums(cube))  # (restaged for rank 3)
    variable = tf.Variable(cube)
    assert "tf.debugging.assert_rank(xs, 2)" in staged.code(variable)
    with pytest.raises(ValueError, match="must have rank 2"):
        staged(variable)
    np.testing.assert_allclose(staged(tf.Variable(rows)), module.row_sums(rows))


def test_numpy_written_for_tensorflow_asserts_the_declared_ranks(tf, tmp_path):
    """``--target tensorflow`` asserts a declared rank, widened as the NumPy rewrite's check is
    (``r * w``: ``w`` a number or a row, ``x`` two axes or more), in front of its batched code
    (the loop beside it is for an empty ``x``, whose ``np.array([])`` the batched code cannot
    know)."""
    import ast

    source = SCALED_ROWS
    result = transpile_source(source, "m.py", target="tensorflow", line_length=200)
    assert result.plans[0].rewritten
    branch = ast.parse(function_body(result.code, "scaled")[1])  # (`res = []` first, then the `if`)
    assert ast.unparse(branch.body[0].test) == "len(x) > 0"
    assert [ast.unparse(st) for st in branch.body[0].body] == [
        "tf.debugging.assert_rank_in(w, (0, 1))", "tf.debugging.assert_rank_at_least(x, 2)",
        "if isinstance(x, (list, tuple)):\n    raise TypeError('x: a list of rows, which the loop would compute with as lists; "
        "pass a tensor')", "res = tf.experimental.numpy.multiply(x, w)"]
    after, before = file_module(tmp_path / "to_tf_after.py", result.code), file_module(tmp_path / "to_tf_before.py", source)
    for x, w in ((np.ones((3, 2)), np.array([2.0, 3.0])), (np.ones((2, 3, 2)), 2.0)):
        np.testing.assert_allclose(after.scaled(x, w), before.scaled(x, w))
    with pytest.raises(TypeError):  # (rows of lists: `r * w` raises in the loop)
        before.scaled([[1.0, 2.0], [3.0, 4.0]], [2.0, 3.0])
    with pytest.raises(TypeError, match="a list of rows"):
        after.scaled([[1.0, 2.0], [3.0, 4.0]], [2.0, 3.0])
    assert before.scaled(np.arange(3.0), np.arange(3.0)).shape == (3, 3)
    with pytest.raises(ValueError, match="must have rank"):
        after.scaled(np.arange(3.0), np.arange(3.0))


ROWS_FIRST = '''
import tensorflow as tf


def f(x, m, n, k):
    """Rows.

    Args:
      x: float32 [n, d], the rows.
      n: int, a count.
      k: int, another.
    """
    out = []
{body}
    return tf.stack(out)
'''


@pytest.mark.parametrize(("body", "dropped"), [
    ("for r in x:\n    out.append(tf.tanh(r) * 2.0)", True),
    ("for j, r in enumerate(x):\n    out.append(tf.tanh(r) * 2.0)", True),
    ("for i in range(len(x)):\n    out.append(tf.tanh(x[i]) * 2.0)", True),
    ("for i in range(x.shape[0]):\n    out.append(tf.tanh(x[i]) * 2.0)", True),
    ("for i in range(tf.shape(x)[0]):\n    out.append(tf.tanh(x[i]) * 2.0)", True),
    ("for i in reversed(range(x.shape[0])):\n    out.append(tf.tanh(x[i]) * 2.0)", True),
    ("size = x.shape[0]\nfor i in range(size):\n    out.append(tf.tanh(x[i]) * 2.0)", True),
    # (not x's rows: another name's, a count, another axis, a length bound twice or after the
    # loop; `m`'s rank is not declared)
    ("for i in range(n):\n    out.append(tf.tanh(x[i]) * 2.0)", False),
    ("rows = tf.zeros((4, 3))\nfor r in rows:\n    out.append(tf.tanh(r) * tf.reduce_sum(x[0]))", False),
    ("for i in range(len(m)):\n    out.append(tf.tanh(x[i]) * 2.0)", False),
    ("for i in range(m.shape[0]):\n    out.append(tf.tanh(x[i]) * 2.0)", False),
    ("for i in range(tf.shape(m)[0]):\n    out.append(tf.tanh(x[i]) * 2.0)", False),
    ("for i in range(x.shape[-1]):\n    out.append(tf.tanh(x[i]) * 2.0)", False),
    ("size = x.shape[0]\nif n > 3:\n    size = n\nfor i in range(size):\n    out.append(tf.tanh(x[i]) * 2.0)", False),
    ("for i in range(k):\n    out.append(tf.tanh(x[i]) * 2.0)\nk = x.shape[0]", False),
])
def test_an_assertion_that_only_rules_out_a_number_goes_where_the_loop_reads_the_rows_first(body, dropped):
    """``tf.debugging.assert_rank_at_least(x, 1)`` rules out only a number; where the loop reads
    ``x``'s rows, or the length of its first axis, before its first iteration
    (``versioning._rows_read_first``), it raises for a number too, and the assertion goes."""
    result = transpile_source(ROWS_FIRST.format(body=textwrap.indent(body, "    ")), "m.py", line_length=200)
    assert result.plans[0].rewritten and result.plans[0].backend == "direct", result.code
    assert ("tf.debugging.assert_rank_at_least(x, 1)" not in result.code) is dropped, result.code


TF_ZIP = '''
import tensorflow as tf


def paired(x, y):
    """Paired dot products.

    Args:
      x: float32 [n, d], the rows.
      y: float32 [n, d], their partners.
    """
    out = []
    for a, b in zip(x, y):
        out.append(tf.reduce_sum(a * b))
    return tf.stack(out)
'''


def test_tensorflow_zip_of_rows_declared_as_long_asserts_the_lengths(tf, tmp_path):
    """``x: [n, d]`` and ``y: [n, d]`` say the rows are as many, which TensorFlow's batched code
    took on trust (``zip`` stops at the shortest; the batched product broadcasts a single row):
    the lengths are asserted, as a declared rank is."""
    result = transpile_source(TF_ZIP, "m.py", line_length=200)
    assert result.plans[0].backend == "direct"
    assert function_body(result.code, "paired")[2:] == [
        "tf.debugging.assert_equal(tf.shape(x)[0], tf.shape(y)[0], message='zip stops at the shortest: x and y are "
        "declared as long')", "if isinstance(x, (list, tuple)):\n    raise TypeError('x: a list of rows, which the loop would compute with as lists; "
        "pass a tensor')", "out = tf.reduce_sum(x * y, axis=-1)", "return out"]
    after, before = file_module(tmp_path / "zip_after.py", result.code), file_module(tmp_path / "zip_before.py", TF_ZIP)
    x, y = tf.reshape(tf.range(6.0), (3, 2)), tf.ones((3, 2))
    np.testing.assert_allclose(after.paired(x, y), before.paired(x, y))
    lists = ([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]])  # (`a * b` of two rows raises in the loop)
    with pytest.raises(TypeError):
        before.paired(*lists)
    with pytest.raises(TypeError, match="a list of rows"):
        after.paired(*lists)
    assert before.paired(x, y[:1]).shape == (1,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="zip stops at the shortest"):
        after.paired(x, y[:1])



DEAD_READ = '''
import tensorflow as tf


def f(x, w):
    """Rows.

    Args:
      x: float32 [n, d], the rows.
      w: float32 [d], weights the loop computes with and never uses.
    """
    s = 0.0
    for i in range(x.shape[0]):
        t = tf.reduce_sum(x[i] * w)
        s += tf.reduce_sum(x[i])
    return s
'''


def test_tensorflow_asserts_no_rank_of_a_name_only_dead_code_read():
    """``t`` is never used: its batched statement goes as dead code, and with it the only read
    of ``w``, whose assertion goes too (``direct._unread_declared_ranks``); ``x``'s stays, widened
    (the sum of every element is one for any rank from 2 up), and so does the statement that
    reads it."""
    result = transpile_source(DEAD_READ, "m.py", line_length=200)
    assert result.plans[0].rewritten and result.plans[0].backend == "direct"
    assert function_body(result.code, "f") == [
        "s = 0.0", "tf.debugging.assert_rank_at_least(x, 2)", "s += tf.reduce_sum(x)", "return s"]


TF_LISTS = '''
import tensorflow as tf


def added(x, y):
    """Args:
      x: float32 tensor [n].
      y: float32 tensor [n].
    """
    res = []
    for i in range(len(x)):
        res.append(x[i] + y[i])
    return tf.stack(res)


def doubled(x):
    """Args:
      x: float32 tensor [n, d].
    """
    res = []
    for r in x:
        res.append(r * 2)
    return tf.stack(res)


def matches(x, y):
    """Args:
      x: float32 tensor [n].
      y: float32 tensor [n].
    """
    res = []
    for i in range(len(x)):
        res.append(tf.where(x[i] == y[i], 1.0, 0.0))
    return tf.stack(res)


def shifted(x):
    """Args:
      x: float32 tensor [n].
    """
    res = []
    for i in range(len(x)):
        res.append(x[i] + 1.5)
    return tf.stack(res), x


def distances(a, b):
    """Args:
      a: float32 tensor [n, d].
      b: float32 tensor [m, d].
    """
    rows = []
    for i in range(a.shape[0]):
        row = []
        for j in range(len(b)):
            row.append(tf.norm(a[i] - b[j]))
        rows.append(tf.stack(row))
    return tf.stack(rows)


def shifted_by(x, c):
    """Args:
      x: float64 tensor [n].
      c: scalar, the shift.
    """
    res = []
    for i in range(len(x)):
        res.append(x[i] * (c + 1.0))
    return tf.stack(res)


def offset(x, y):
    """Args:
      x: float32 tensor [n].
      y: float32 tensor [n].
    """
    res = []
    for i in range(len(x)):
        res.append(tf.tanh(x[i]) * 2.0 + y[i])
    return tf.stack(res)


def centered(x):
    """Args:
      x: float32 tensor [n, d].
    """
    res = []
    for r in x:
        m = tf.reduce_mean(r)
        res.append(r - m)
    return tf.stack(res)


def summed(x, w):
    """Args:
      x: float32 tensor [n, d].
      w: float32 tensor [d].
    """
    res = []
    for r in x:
        res.append(tf.reduce_sum(r) + tf.reduce_sum(w))
    return tf.stack(res)
'''


def test_tensorflow_batched_code_converts_a_list_it_computes_with(tf, tmp_path):
    """A Python list passes a docstring's rank (``tf.debugging.assert_rank`` converts it), and
    the batched ``x + y`` of two lists concatenates them, ``x * 2`` repeats one, ``x == y``
    compares them whole, and ``x + 1.5`` raises, where the loop computes with their items: such
    a parameter is converted in front (``x = tf.convert_to_tensor(x)``), or where it is read
    after the loop at each read; an argument of TensorFlow's ops, or an operand beside a
    tensor, is left as written. A list of rows the batched code computes with beside no
    tensor raises: the loop computes with its rows as lists (``r * 2`` repeats one)."""
    result = transpile_source(TF_LISTS, "m.py", line_length=200)
    assert all(plan.rewritten and plan.backend == "direct" for plan in result.plans)
    bodies = {name: function_body(result.code, name)
              for name in ("added", "doubled", "matches", "shifted", "distances", "summed", "shifted_by")}
    assert bodies["added"][3:] == ["x = tf.convert_to_tensor(x)", "res = x + y[:len(x)]", "return res"]
    assert bodies["doubled"] == [
        "tf.debugging.assert_rank_at_least(x, 2)", "if isinstance(x, (list, tuple)):\n    raise TypeError('x: a "
        "list of rows, which the loop would compute with as lists; pass a tensor')", "res = x * 2", "return res"]
    assert bodies["matches"][3:] == ["x = tf.convert_to_tensor(x)", "res = tf.where(x == y[:len(x)], 1.0, 0.0)",
                                     "return res"]
    # (`x` is returned too: the caller's list, so the read is converted where it is)
    assert bodies["shifted"][1:] == ["res = tf.convert_to_tensor(x) + 1.5", "return (res, x)"]
    assert bodies["distances"][2:] == ["b = tf.convert_to_tensor(b)",
                                       "rows = tf.norm(a[:, tf.newaxis] - b[tf.newaxis], axis=-1)", "return rows"]
    assert not any("convert_to_tensor" in line for line in bodies["summed"])
    # beside a tensor computed in an operator (`tf.tanh(x) * 2.0 + y`) or bound to a name
    # (`m = tf.reduce_mean(x, axis=-1)`), a list is converted by TensorFlow; a number is no
    # list, and converted it would be float32, which a float64 tensor does not multiply
    assert bodies["shifted_by"][2:] == ["x = tf.convert_to_tensor(x)", "res = x * (c + 1.0)", "return res"]
    for name in ("offset", "centered"):
        body = function_body(result.code, name)
        assert not any("convert_to_tensor" in line or "isinstance" in line for line in body), (name, body)
    after, before = file_module(tmp_path / "lists_after.py", result.code), file_module(tmp_path / "lists_before.py",
                                                                                       TF_LISTS)
    calls = {"added": ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), "matches": ([1.0, 2.0, 3.0], [1.0, 0.0, 3.0]),
             "shifted": ([1.0, 2.0],), "distances": (tf.ones((2, 2)), [[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]]),
             "summed": ([[1.0, 2.0], [3.0, 4.0]], [0.5, 0.25]), "offset": ([1.0, 2.0], [0.5, -1.0]),
             "centered": ([[1.0, 2.0], [3.0, 5.0]],)}
    for name, args in calls.items():
        want, got = getattr(before, name)(*args), getattr(after, name)(*args)
        if name == "shifted":
            (want, want_x), (got, got_x) = want, got
            assert got_x == want_x == [1.0, 2.0]
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), err_msg=name)
        tensors = [tf.constant(a) for a in args]
        again = getattr(after, name)(*tensors)
        np.testing.assert_allclose(np.asarray(again[0] if name == "shifted" else again), np.asarray(want), err_msg=name)
    x64 = tf.constant([1.0, 2.0], tf.float64)  # (a float32 tensor of `c` would not multiply it)
    np.testing.assert_allclose(after.shifted_by(x64, 0.5), before.shifted_by(x64, 0.5))
    rows = [[1.0, 2.0], [3.0, 4.0]]
    assert before.doubled(rows).shape == (2, 4)  # (each row repeated)
    with pytest.raises(TypeError, match="a list of rows"):
        after.doubled(rows)
    np.testing.assert_allclose(after.doubled(tf.constant(rows)), 2 * np.array(rows))


FREE = '''\
import numpy as np

k = np.ones((3, 2))


def f(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sum(k[i]) * x[i]
    return out


class A:
    def __init__(self, w):
        self.w = w

    def f(self, x):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = np.sum(self.w[i]) * x[i]
        return out
'''


def test_a_rank_given_to_a_global_or_an_attribute_is_checked():
    """``--shapes f.k=2`` (a module global) and ``f.self.w=2`` (an attribute): the batched
    ``np.sum(k[:n], axis=-1)`` sums the last axis only, so a ``k`` of three axes runs the loop,
    which sums both."""
    result = transpile_source(FREE, "m.py", shapes={"f.k": 2, "f.x": 1, "f.self.w": 2}, line_length=200)
    assert all(p.rewritten for p in result.plans), [r.message for p in result.plans for r in p.remarks]
    assert "type(k) is np.ndarray" in result.code and "k.ndim == 2" in result.code
    assert "type(self.w) is np.ndarray and self.w.ndim == 2" in result.code
    before, after = run_module(FREE), run_module(result.code)
    x = np.array([1.0, -2.0])
    for value in (np.arange(6.0).reshape(3, 2), np.arange(24.0).reshape(3, 2, 4)):
        after["k"] = before["k"] = value
        _same(before["f"](x), after["f"](x))
        _same(before["A"](value).f(x), after["A"](value).f(x))
