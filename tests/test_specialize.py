"""Run-time checks that a call signature decides (``transpile.specialize``), and builtins the
code binds to something else where a rewrite would call them.

``pforge.vectorize`` knows each argument's exact type, dtype and rank: a check of those alone
is worked out once, true (it goes) or false (the loop stays for that signature). A check that
reads a size, an element or a value the signature leaves open stays as it is. Each test
asserts what was rewritten before it compares numbers with the loop.
"""

from __future__ import annotations

import importlib.util
import textwrap

import gast
import numpy as np
import pytest

import pforge
from pforge.transpile import transpile_source
from pforge.transpile.frontend import decode_source
from pforge.transpile.outline import module_context
from pforge.transpile.specialize import decided, parameter_kinds
from tests.loops import file_module, run_module

F8 = ("ndarray", "<f8", 2)
I8 = ("ndarray", "<i8", 2)
F4_1 = ("ndarray", "<f4", 1)


def _expr(text: str) -> gast.expr:
    return gast.parse(text, mode="eval").body


def _decided(tests: list[str], known: dict) -> list[str] | None:
    nodes = [_expr(t) for t in tests]
    before = [gast.dump(n) for n in nodes]
    found = decided(nodes, known, "np")
    assert [gast.dump(n) for n in nodes] == before  # (its input is left as it was)
    return None if found is None else [gast.unparse(t).strip() for t in found]


@pytest.mark.parametrize(("tests", "known", "left"), [
    # the type, dtype and rank of an exact ndarray
    (["type(x) is np.ndarray"], {"x": F8}, []),
    (["x.dtype.char in 'fdFD'"], {"x": F8}, []),
    (["x.dtype.char in 'fdFD'"], {"x": ("ndarray", "<i4", 2)}, None),
    (["y.dtype == x.dtype"], {"x": F8, "y": F8}, []),
    (["y.dtype == x.dtype"], {"x": F8, "y": I8}, None),
    (["x.ndim == 2", "np.ndim(x) == 2"], {"x": F8}, []),
    (["x.ndim == 1"], {"x": F8}, None),
    (["np.asarray(x).dtype.kind != 'O'", "not isinstance(x, (list, tuple))"], {"x": F8}, []),
    (["np.result_type(np.asarray(x), 0.0) == np.float64"], {"x": F4_1}, None),
    (["np.result_type(np.asarray(x), 0.0) == np.float64"], {"x": F8}, []),
    # an `or` decided by its first operand, an `and` that keeps what runs before a decided one
    (["type(x) is np.ndarray or isinstance(x, (list, tuple)) and all((isinstance(v, float) for v in x))"],
     {"x": F8}, []),
    (["len(y) > 0 and type(x) is np.ndarray"], {"x": F8}, ["len(y) > 0"]),
    (["len(y) > 0 and type(x) is not np.ndarray"], {"x": F8}, ["len(y) > 0 and False"]),
    (["type(x) is not np.ndarray and len(y) > 0"], {"x": F8}, None),
    (["not (type(x) is np.ndarray and len(y) > 0)"], {"x": F8}, ["not len(y) > 0"]),
    # a conditional expression the kinds decide takes its branch; NumPy's functions of an
    # array are read as its attributes
    (["not (np.may_share_memory(a, x) if not isinstance(x, (list, tuple)) else "
      "any((np.may_share_memory(a, v) for v in x)))"], {"x": F8}, ["not np.may_share_memory(a, x)"]),
    (["np.shape(x)[0] > 0"], {"x": F8}, ["x.shape[0] > 0"]),
    (["not (any((np.may_share_memory(a, v) for v in x)) if isinstance(x, (list, tuple)) else "
      "np.may_share_memory(a, x))"], {"x": F8}, ["not np.may_share_memory(a, x)"]),
    (["(len(x) if type(x) is np.ndarray else 0) > 1"], {"x": F8}, ["len(x) > 1"]),
    # chained comparisons, an `and`/`or` for its value, and what no check spells stays open
    (["0 < x.ndim <= 2"], {"x": F8}, []),
    (["0 < x.ndim < 2"], {"x": F8}, None),
    (["(x.ndim == 1 or x.ndim == 2) == True", "(x.ndim or 5) == 2", "(x.ndim and 0) == 0"], {"x": F8}, []),
    (["-x.ndim == -2", "x.ndim + 1 == 3"], {"x": F8}, ["-x.ndim == -2", "x.ndim + 1 == 3"]),
    (["(type(x) is np.ndarray and x.ndim == 2) == True", "(not isinstance(x, np.ndarray)) == False",
      "(x.ndim == 3 or type(x) is np.ndarray) == True", "np.result_type(x) == np.float64"], {"x": F8}, []),
    (["len(y) > 0 and not (np.may_share_memory(a, x) if not isinstance(x, (list, tuple)) else 0)"], {"x": F8},
     ["len(y) > 0 and (not np.may_share_memory(a, x))"]),
    (["np.asarray(x, dtype=np.float64).dtype == np.float64", "np.result_type(*(x,)) == np.int64"],
     {"x": ("ndarray", "<i4", 2)},
     ["np.asarray(x, dtype=np.float64).dtype == np.float64", "np.result_type(*(x,)) == np.int64"]),
    # the dtypes of numbers: bool, int, uint, float, complex
    (["x.dtype.kind in 'biufc'"], {"x": ("ndarray", "|b1", 1)}, []),
    (["x.dtype.kind in 'biufc'"], {"x": ("ndarray", "|u1", 1)}, []),
    (["x.dtype.kind in 'biufc'"], {"x": ("ndarray", "<c16", 1)}, []),
    # numbers: their exact type, never a dtype NumPy takes from the value
    (["isinstance(r, (int, float, np.number, np.bool_, np.ndarray)) and np.ndim(r) == 0"],
     {"r": ("number", "float")}, []),
    (["type(r) is int"], {"r": ("number", "bool")}, None),
    (["np.ndim(r, axis=0) == 0"], {"r": ("number", "float")}, ["np.ndim(r, axis=0) == 0"]),  # (raises: left to run)
    (["np.asarray(r).dtype == np.int64"], {"r": ("number", "int")}, ["np.asarray(r).dtype == np.int64"]),
    (["np.result_type(r, x) == np.float64"], {"r": ("number", "float"), "x": F8},
     ["np.result_type(r, x) == np.float64"]),
    (["r.dtype == np.float64"], {"r": ("npscalar", "<f8")}, []),
    (["r.dtype == np.int64"], {"r": ("npscalar", "<f8")}, None),
    (["r.dtype == np.float64"], {"r": ("npscalar", "<f4")}, None),
    (["r.dtype == np.int64", "isinstance(r, np.integer)"], {"r": ("npscalar", "<i8")}, []),
    # a NumPy name no check uses stays open
    (["r.dtype == np.float32"], {"r": ("npscalar", "<f4")}, ["r.dtype == np.float32"]),
    # a dtype's type code where its `str` does not decide it (`'<i8'`: `'l'` or `'q'`)
    (["x.dtype.char in 'lq'"], {"x": ("ndarray", "<i8", 1)}, ["x.dtype.char in 'lq'"]),
    (["x.dtype.num == 7", "x.dtype.type is np.int64"], {"x": ("ndarray", "<i8", 1)},
     ["x.dtype.num == 7", "x.dtype.type is np.int64"]),
    # what a signature leaves open stays: sizes, elements, other names, unknown attributes
    (["x.shape[0] > 0", "len(x) > 1", "x[0, 0] < 2 ** 63", "type(z) is np.ndarray", "x.size > 0"],
     {"x": F8}, ["x.shape[0] > 0", "len(x) > 1", "x[0, 0] < 2 ** 63", "type(z) is np.ndarray", "x.size > 0"]),
    (["x.dtype.nonexistent == 1"], {"x": F8}, ["x.dtype.nonexistent == 1"]),
    # a kind that says which axes are empty (the fourth item) decides a comparison of an axis's
    # length with a number where every length from 1 up gives one answer, and leaves the rest
    (["x.shape[0] > 0", "len(x) > 0", "x.shape[-1] >= 1", "0 < x.shape[1]", "x.shape[0] != 0", "len(x) > 0.5"],
     {"x": F8 + ((),)}, []),
    (["x.shape[0] > 0"], {"x": F8 + ((0,),)}, None),
    (["len(x) == 0"], {"x": F8 + ((),)}, None),
    (["x.shape[1] == 0", "len(x) > 0", "x.shape[-1] <= 0", "x.shape[-2] >= 1"], {"x": F8 + ((1,),)}, []),
    (["x.shape[-1] > 0"], {"x": F8 + ((1,),)}, None),
    (["len(x) > 1", "x.shape[0] == 1", "x.shape[0] > 3", "x.shape[0] < 2", "1 < len(x)"], {"x": F8 + ((),)},
     ["len(x) > 1", "x.shape[0] == 1", "x.shape[0] > 3", "x.shape[0] < 2", "1 < len(x)"]),
    (["len(x) > 1", "x.shape[0] == 1", "x.shape[0] < 2"], {"x": F8 + ((0,),)}, None),
    # lengths compared with lengths, or with names, or of an axis the array lacks, stay open
    (["x.shape[0] <= y.shape[0]", "n <= x.shape[1]", "x.shape[2] > 0", "x.shape[0] > True", "x.shape[0] + 1 > 0",
      "0 < x.shape[0] <= y.shape[0]"], {"x": F8 + ((),), "y": F8 + ((),)},
     ["x.shape[0] <= y.shape[0]", "n <= x.shape[1]", "x.shape[2] > 0", "x.shape[0] > True", "x.shape[0] + 1 > 0",
      "0 < x.shape[0] <= y.shape[0]"]),
    (["len(r) > 0"], {"r": ("number", "float")}, ["len(r) > 0"]),
    (["type(x) is np.ndarray"], {}, ["type(x) is np.ndarray"]),
])
def test_the_checks_a_signature_decides(tests, known, left):
    assert _decided(tests, known) == left


def _kinds(source: str, kinds, name: str = "f"):
    """``parameter_kinds`` of the (last) function ``name`` in ``source``."""
    # (a module with no loop has no context: one loop of its own)
    ctx = module_context(decode_source("import numpy as np\nfor _ in ():\n    pass\n" + textwrap.dedent(source), "m.py"))
    fdef = [n for n in gast.walk(ctx.tree) if isinstance(n, gast.FunctionDef) and n.name == name][-1]
    return parameter_kinds(ctx, fdef, kinds)


@pytest.mark.parametrize("body", [
    "x = np.asarray(x)",
    "x += 1",
    "for x in range(3):\n    pass",
    "del x",
    "x.shape = (-1,)",
    "import numpy as x",
    "def x():\n    pass",
    "with open('f') as x:\n    pass",
    "try:\n    pass\nexcept ValueError as x:\n    pass",
    "(x := 3)",
    "def g():\n    nonlocal x\n    x = 1",
    "match y:\n    case [*x]:\n        pass",
    "match y:\n    case {**x}:\n        pass",
    "match y:\n    case (x, _):\n        pass",
])
def test_a_parameter_bound_again_has_no_kind(body):
    assert _kinds(f"def f(x, y):\n{textwrap.indent(body, '    ')}\n", {"f.x": F8, "f.y": F8}) == {"y": F8}


@pytest.mark.parametrize("source", [
    # a function in one of its own name: the key names the outer one (helper-70)
    "def f(x, y):\n    def f(x, y):\n        x[0] = 1\n    return f(x.astype(np.int32), y)\n",
    # a dtype changed in place, through any name of the array (helper-70)
    "def f(x, y):\n    u = x\n    u.dtype = np.int32\n",
    "def f(x, y):\n    x.dtype = np.int64\n",
    "def f(x, y):\n    setattr(x, 'dtype', np.int32)\n",
    "def cast(a):\n    a.dtype = np.int32\ndef f(x, y):\n    cast(x)\n",
    "def f(x, y):\n    x.__class__ = np.matrix\n",
])
def test_no_kinds_where_a_dtype_may_change_or_the_key_names_another_function(source):
    assert _kinds(source, {"f.x": F8, "f.y": F8}) == {}


def test_only_the_functions_own_parameters_of_numbers_get_kinds():
    source = "def f(x, *args, y=1, d=None, s=None, z=None, b=0, u=0, c=0, n=0, **kw):\n    x[0] = 1\n"
    numbers = {"y": ("number", "int"), "b": ("ndarray", "|b1", 1), "u": ("ndarray", "|u1", 1),
               "c": ("ndarray", "<c16", 1), "n": ("number", "complex")}
    kinds = {"f.x": F8, "g.x": I8, "args": F8, "f.d": ("npscalar", "<M8[D]"), "f.s": ("ndarray", "<U5", 1),
             "f.z": ("ndarray", "not a dtype", 1)} | {f"f.{name}": kind for name, kind in numbers.items()}
    assert _kinds(source, kinds) == {"x": F8} | numbers
    assert _kinds(source, None) == {}
    assert parameter_kinds(None, None, {"f.x": F8}) == {}


def test_a_datetime_argument_beside_the_loop_runs(tmp_path):
    """A kind no stand-in is made for (helper-70: ``np.datetime64`` raised ValueError)."""
    path = tmp_path / "dates.py"
    path.write_text(TRIPLE.replace("def f(xs, ys, zs):", "def f(xs, ys, zs, when):"))
    spec = importlib.util.spec_from_file_location("dates", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = [*_inputs(np.float64), np.datetime64("2020-01-01")]
    staged = pforge.vectorize(module.f)
    assert staged.entry(*args).rewritten
    np.testing.assert_allclose(staged(*args), module.f(*args), rtol=1e-12)


TRIPLE = textwrap.dedent("""\
    import numpy as np

    def f(xs, ys, zs):
        out = np.empty((xs.shape[0], ys.shape[0], zs.shape[0]))
        for a in range(xs.shape[0]):
            for b in range(ys.shape[0]):
                for c in range(zs.shape[0]):
                    out[a, b, c] = np.sum(xs[a] * ys[b] * zs[c])
        return out
    """)


def _inputs(dtype):
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((k, 5)) * 4).astype(dtype) for k in (2, 3, 4)]


def test_a_signature_of_float_arrays_leaves_only_the_sizes_to_check():
    kinds = {f"f.{n}": ("ndarray", "<f8", 2) for n in ("xs", "ys", "zs")}
    plain = transpile_source(TRIPLE, shapes={"f.xs": 2, "f.ys": 2, "f.zs": 2}).code
    code = transpile_source(TRIPLE, shapes={"f.xs": 2, "f.ys": 2, "f.zs": 2}, kinds=kinds).code
    assert "np.einsum" in code and "type(xs)" in plain and "dtype" in plain
    assert "type(" not in code and "dtype" not in code
    assert "xs.shape[0] > 0" in code  # (sizes are no part of this signature: its kinds have 3 items)
    loop, rewrite = run_module(TRIPLE), run_module(code)
    for args in (_inputs(np.float64), [np.ones((0, 5)), np.ones((2, 3)), np.ones((1, 4))]):
        want = loop["f"](*args)
        np.testing.assert_allclose(rewrite["f"](*args), want, rtol=1e-12)


def test_a_check_a_signature_fails_keeps_the_loop_for_it():
    # (an int array sums in int64 in the loop and in its own dtype in einsum: the float test fails)
    kinds = {f"f.{n}": ("ndarray", "<i4", 2) for n in ("xs", "ys", "zs")}
    result = transpile_source(TRIPLE, shapes={"f.xs": 2, "f.ys": 2, "f.zs": 2}, kinds=kinds)
    outer = next(p for p in result.plans if p.lineno == 5)
    assert not outer.rewritten and "np.einsum" not in result.code
    assert "fails for every argument of these kinds" in " ".join(r.message for r in outer.remarks)
    ints = _inputs(np.int32)
    np.testing.assert_array_equal(run_module(result.code)["f"](*ints), run_module(TRIPLE)["f"](*ints))


def test_the_staged_decorator_specializes_its_checks(tmp_path):
    module = file_module(tmp_path / "triple.py", TRIPLE)
    staged = pforge.vectorize(module.f)
    args = _inputs(np.float64)
    entry = staged.entry(*args)
    assert entry.rewritten and "np.einsum" in entry.code
    assert "type(" not in entry.code and "dtype" not in entry.code
    np.testing.assert_allclose(staged(*args), module.f(*args), rtol=1e-12)
    ints = _inputs(np.int32)
    assert "np.einsum" not in staged.entry(*ints).code
    np.testing.assert_array_equal(staged(*ints), module.f(*ints))


def test_the_staged_decorator_decides_which_axes_are_empty(tmp_path):
    """The signature says which axes of an array are empty: the checks that the loops run at
    all go, and with them the loop, from the code for arrays with rows; an empty array stages
    again, and its code keeps the loop (the loop never reads the rows it lacks)."""
    module = file_module(tmp_path / "triple.py", TRIPLE)
    staged = pforge.vectorize(module.f)
    args = _inputs(np.float64)
    entry = staged.entry(*args)
    assert entry.rewritten and "np.einsum" in entry.code
    assert "shape[0] > 0" not in entry.code and "for a in" not in entry.code, entry.code
    np.testing.assert_allclose(staged(*args), module.f(*args), rtol=1e-12)
    bigger = [np.ones((5, 3)), np.ones((1, 3)), np.ones((2, 3))]
    assert staged.entry(*bigger) is entry  # (another batch size: the same code)
    np.testing.assert_allclose(staged(*bigger), module.f(*bigger), rtol=1e-12)
    # no rows in `xs`, and `ys`'s rows of another length: the loop runs no iteration, where
    # the einsum would raise
    empty = [np.ones((0, 5)), np.ones((2, 3)), np.ones((1, 4))]
    assert staged.entry(*empty) is not entry and "for a in" in staged.entry(*empty).code
    assert staged(*empty).shape == module.f(*empty).shape == (0, 2, 1)


SHADOWING = textwrap.dedent("""\
    import numpy as np

    def by_kind(xs, ys, type="sum"):
        out = np.empty((xs.shape[0], ys.shape[0]))
        for a in range(xs.shape[0]):
            for b in range(ys.shape[0]):
                out[a, b] = np.sum(xs[a] * ys[b])
        return out

    def of_length(x, len=3):
        out = np.zeros(len)
        for i in range(len):
            out[i] = x[i] * 2.0
        return out
    """)


def test_a_rewrite_never_calls_a_builtin_the_code_binds_to_something_else():
    result = transpile_source(SHADOWING)
    by_kind = next(p for p in result.plans if p.lineno == 5)
    assert not by_kind.rewritten
    assert "the builtin `type`" in " ".join(r.message for r in by_kind.remarks)
    # (a parameter `len` read as the loop reads it is the loop's own value: rewritten)
    assert "out[...] = np.asarray(x)[:len] * 2.0" in result.code
    loop, rewrite = run_module(SHADOWING), run_module(result.code)
    x, y = np.ones((2, 3)), np.ones((3, 3))
    np.testing.assert_array_equal(rewrite["by_kind"](x, y), loop["by_kind"](x, y))
    np.testing.assert_array_equal(rewrite["of_length"]([1.0, 2.0, 3.0]), loop["of_length"]([1.0, 2.0, 3.0]))


DECLARED = textwrap.dedent('''\
    import numpy as np

    def f(a, y):
        """Args:
            a: float64 [n].
            y: float64 [n].
        """
        out = np.zeros(len(a))
        for i in range(len(a)):
            out[i] = a[i] + y[i] * 2.0
        return out
    ''')


def test_a_declared_rank_the_signature_does_not_give_is_still_checked(tmp_path):
    """``a``'s rank is the signature's, so its check goes; ``y``, an ``array.array``, is no
    kind a signature gives, so its declared rank is checked after it (``type(y) is
    np.ndarray``): the loop runs, where the batched ``y[:n] * 2.0`` of it raises."""
    import array

    module = file_module(tmp_path / "declared.py", DECLARED)
    staged = pforge.vectorize(module.f)
    a = np.arange(3.0)
    assert "y.ndim == 1" not in staged.entry(a, a).code  # (both arrays: the signature's ranks)
    y = array.array("d", [1.0, 2.0, 3.0])
    entry = staged.entry(a, y)
    assert entry.rewritten and "y.ndim == 1" in entry.code, entry.code
    np.testing.assert_array_equal(staged(a, y), module.f(a, y))
