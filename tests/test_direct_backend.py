"""The direct backend: generated code for the traps, rank sources, fallbacks and the CLI options."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from pforge.cli.main import app
from pforge.transpile import transpile_source
from pforge.transpile.ranks import parse_shapes_option


def _direct(source, **options):
    result = transpile_source(textwrap.dedent(source), "m.py", backend=options.pop("backend", "direct"), **options)
    return result, result.plans[0]


def _loop_code(code):
    return [line.strip() for line in code.splitlines() if line.startswith("    ") and "pforge:" not in line]


def test_design_example_reads_like_hand_batched_code():
    """The dense+relu example of the design notes, word for word."""
    result, plan = _direct('''
        import tensorflow as tf

        def dense_relu(x, w, b):
            """Dense + relu.

            Args:
              x: float32 [batch, features].
              w: float32 [features, units].
              b: float32 [units].
            """
            outs = []
            for i in range(x.shape[0]):
                h = tf.linalg.matvec(w, x[i], transpose_a=True) + b
                outs.append(tf.nn.relu(h))
            return tf.stack(outs)
    ''')
    assert plan.backend == "direct"
    assert "@tf.function" in result.code
    assert "    h = tf.linalg.matmul(x, w) + b\n    outs = tf.nn.relu(h)\n    return outs\n" in result.code
    assert "# pforge: vectorized loop (was lines 13-15: map over x, collector outs) with batched ops" in result.code


def test_per_row_scalar_meets_row_on_the_right_axis():
    """A per-row scalar times the row: the scalar gets a new axis after the loop axis (not [n] * [n, d])."""
    result, _ = _direct('''
        import numpy as np

        def f(x):
            """Args:
              x: [n, d].
            """
            out = []
            for i in range(x.shape[0]):
                out.append(x[i] * np.sum(x[i]))
            return np.stack(out)
    ''')
    assert "out = x * np.sum(x, axis=-1)[:, np.newaxis]" in result.code


def test_invariant_of_higher_rank_expands_the_stacked_operand():
    """``x[i]`` [d] minus invariant ``c`` [k, d] is [k, d] per row: ``x`` becomes [n, 1, d]."""
    result, _ = _direct('''
        import numpy as np

        def f(x, c):
            """Args:
              x: [n, d].
              c: [k, d].
            """
            out = []
            for i in range(x.shape[0]):
                out.append(np.abs(x[i] - c))
            return np.stack(out)
    ''')
    assert "out = np.abs(x[:, np.newaxis] - c)" in result.code


def test_numpy_output_has_no_tensorflow():
    result, plan = _direct('''
        import numpy as np

        def f(x, w):
            """Args:
              x: [n, d].
              w: [d, k].
            """
            out = np.zeros((x.shape[0], w.shape[1]))
            for i in range(x.shape[0]):
                out[i] = np.tanh(x[i] @ w)
            return out
    ''', backend="auto")
    assert plan.backend == "direct"
    assert "tf." not in result.code and "@" in result.code
    assert "out[...] = np.tanh(x @ w)" in result.code


def test_python_list_is_converted_before_batching():
    """``xs[i] * 2`` on a list would repeat it; the rewrite converts the list first."""
    result, plan = _direct('''
        import numpy as np

        def f(xs):
            out = []
            for k in range(len(xs)):
                out.append(xs[k] * 2)
            return np.array(out)
    ''', shapes={"f.xs": ("sequence", 1)})
    assert plan.backend == "direct"
    assert "out = np.asarray(xs) * 2" in result.code


def test_unknown_rank_falls_back_to_pfor_and_says_why():
    source = '''
        import tensorflow as tf

        def f(x, c):
            out = []
            for i in range(x.shape[0]):
                out.append(x[i] * c)
            return tf.stack(out)
    '''
    result, plan = _direct(source, backend="auto")
    assert plan.backend == "pfor"
    assert "rank" in plan.backend_note and "tf.vectorized_map(" in result.code
    result, plan = _direct(source, backend="auto", shapes={"x": 2, "c": 1})
    assert plan.backend == "direct" and "out = x * c" in result.code


def test_numpy_loop_without_a_rule_stays_a_loop_naming_the_op():
    result, plan = _direct('''
        import numpy as np

        def f(x):
            """Args:
              x: [n, d].
            """
            out = []
            for i in range(x.shape[0]):
                out.append(np.linalg.svd(x[i])[1])
            return np.stack(out)
    ''')
    assert not result.changed
    notes = [r.message for r in plan.remarks if r.code == "PF301"]
    assert notes and "numpy.linalg.svd" in notes[0]


def test_zip_of_arrays_of_unproven_equal_length_is_not_batched():
    """``zip`` stops at the shorter array; batching two arrays of different lengths would not."""
    source = '''
        import tensorflow as tf

        def f(x, y):
            """Args:
              x: float32 [n, d].
              y: float32 [SIZE, d].
            """
            out = []
            for a, b in zip(x, y):
                out.append(a + b)
            return tf.stack(out)
    '''
    _, plan = _direct(source, backend="auto")
    assert plan.backend == "pfor" and "same length" in plan.backend_note
    _, plan = _direct(source.replace("SIZE", "n"), backend="auto")
    assert plan.backend == "direct"


@pytest.mark.parametrize("header,expected", [
    ('def f(x: Float[tf.Tensor, "n d"], v: Float[tf.Tensor, "d"]):', "direct"),
    ("def f(x: tf.Tensor,  # [n, d]\n      v: tf.Tensor):  # [d]", "direct"),
    ("@tf.function(input_signature=[tf.TensorSpec([None, 3]), tf.TensorSpec([3])])\ndef f(x, v):", "direct"),
    ("def f(x, v):", "pfor"),
], ids=["jaxtyping", "comment", "input_signature", "none"])
def test_rank_sources(header, expected):
    source = ("import tensorflow as tf\nfrom jaxtyping import Float\n\n" + header + "\n"
              "    out = []\n    for i in range(x.shape[0]):\n        out.append(x[i] - v)\n"
              "    return tf.stack(out)\n")
    plan = transpile_source(source, "m.py").plans[0]
    assert plan.backend == expected, plan.backend_note


def test_shapes_option_parses_and_rejects():
    assert parse_shapes_option("x=2, f.w=1") == {"x": 2, "f.w": 1}
    with pytest.raises(ValueError, match="NAME=RANK"):
        parse_shapes_option("x=two")


def test_filter_and_reduction_under_if():
    result, plan = _direct('''
        import numpy as np

        def f(x, t):
            """Args:
              x: [n, d].
              t: scalar.
            """
            total = 0.0
            kept = []
            for i in range(x.shape[0]):
                if np.max(x[i]) > t:
                    kept.append(x[i] * 2)
                    total += np.sum(x[i])
            return np.array(kept), total
    ''')
    code = _loop_code(result.code)
    assert "x_mask = np.max(x, axis=-1) > t" in code  # (the test and the `if` read it; bound once)
    assert "total_terms = np.where(x_mask, np.sum(x, axis=-1), False)" in code
    assert "if np.any(x_mask):" in code
    assert "total += np.sum(total_terms, axis=0, dtype=np.result_type(total, total_terms))" in code
    assert "kept_selected = (x * 2)[np.max(x, axis=-1) > t]" in code
    assert "kept = kept_selected if len(kept_selected) else np.array([])" in code  # none kept: NumPy's `[]`


def test_generated_numpy_code_matches_the_loop(tf):
    import numpy as np

    from pforge.runtime.loader import load_module

    source = textwrap.dedent('''
        import numpy as np

        def f(x, t):
            """Args:
              x: [n, d].
              t: scalar.
            """
            total = 0.0
            kept = []
            for i in range(x.shape[0]):
                if np.max(x[i]) > t:
                    kept.append(x[i] * 2)
                    total += np.sum(x[i])
            return np.array(kept), total
    ''')
    result = transpile_source(source, "m.py")
    assert result.changed
    x = np.random.default_rng(0).standard_normal((20, 5))
    want = load_module("m.py", source=source).f(x, 1.0)
    got = load_module("m.py", source=result.code).f(x, 1.0)
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])


# -- CLI ---------------------------------------------------------------------------------------------

runner = CliRunner()


def _write(tmp_path, text, name="m.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


_NUMPY_NO_RANKS = '''
    import numpy as np

    def original(xs, ys):
        out = np.empty((xs.shape[0], ys.shape[0]))
        for a in range(xs.shape[0]):
            for b in range(ys.shape[0]):
                out[a, b] = np.sum(xs[a] * ys[b])
        return out

    def make_inputs(seed=0):
        rng = np.random.default_rng(seed)
        return (rng.random((2, 3)), rng.random((4, 3)))
'''


def test_cli_transpile_shapes_and_probe(tmp_path):
    path = _write(tmp_path, _NUMPY_NO_RANKS)
    plain = runner.invoke(app, ["transpile", path])
    # no ranks declared: the ones `np.sum(xs[a] * ys[b])` suggests, checked at run time
    assert plain.exit_code == 0 and "PF301" not in plain.stderr
    # (the sum of the products of two rows is their matrix product, for float arrays: `contractions`)
    assert "if type(xs) is np.ndarray and xs.ndim == 2 and type(ys) is np.ndarray and ys.ndim == 2 " \
           "and xs.dtype.char in 'fdFD' and ys.dtype.char in 'fdFD' " \
           "and xs.shape[0] > 0 and ys.shape[0] > 0:\n        out[...] = " \
           "np.einsum('an,bn->ab', xs, ys, optimize=True)\n    else:\n        for a in range" in plain.stdout
    given = runner.invoke(app, ["transpile", path, "--shapes", "xs=2,ys=2"])
    # declared ranks are the user's word, checked where the batched code rests on them, here
    # as the inferred ones are (`np.einsum('an,bn->ab', ...)` is right for matrices only)
    assert given.exit_code == 0 and "xs.ndim == 2 and type(ys) is np.ndarray and ys.ndim == 2 and " in given.stdout
    assert "out[...] = np.einsum('an,bn->ab', xs, ys, optimize=True)" in given.stdout
    probed = runner.invoke(app, ["transpile", path, "--probe"])
    assert probed.exit_code == 0 and probed.stdout == given.stdout


def test_cli_bad_options_exit_2(tmp_path):
    path = _write(tmp_path, _NUMPY_NO_RANKS)
    bad = runner.invoke(app, ["transpile", path, "--shapes", "xs"])
    assert bad.exit_code == 2 and "NAME=RANK" in bad.stderr
    bad = runner.invoke(app, ["transpile", path, "--backend", "fast"])
    assert bad.exit_code == 2 and "unknown backend" in bad.stderr
    bad = runner.invoke(app, ["transpile", path, "--target", "jax"])
    assert bad.exit_code == 2 and "unknown target" in bad.stderr
    nothing = _write(tmp_path, "def f(x):\n    for i in x:\n        pass\n", "n.py")
    bad = runner.invoke(app, ["transpile", nothing, "--probe"])
    assert bad.exit_code == 2 and "example_inputs" in bad.stderr


def test_cli_explain_shows_backend_and_reason(tmp_path):
    path = _write(tmp_path, '''
        import tensorflow as tf

        def f(x, c):
            out = []
            for i in range(x.shape[0]):
                out.append(x[i] * c)
            return tf.stack(out)
    ''')
    text = runner.invoke(app, ["explain", path])
    assert text.exit_code == 0
    assert "rewritten by the pfor backend" in text.stdout and "because direct backend" in text.stdout
    data = json.loads(runner.invoke(app, ["explain", path, "--format", "json", "--shapes", "x=2,c=0"]).stdout)
    assert data[0]["backend"] == "direct"
    assert "batching rule" in data[0]["backend_note"]


#: Traps for a batching backend: (source, outcome). The outcome is ``True`` (rewritten by the
#: direct backend; then run against the loop), or the remark codes of the loop and the words
#: of its last remark when the loop must be left as it is.
_TRAPS = {
    # `a or b` returns an operand, the first truthy one: no logical-or reduction gives that
    "or_of_numbers": ('''
        def f(x):
            """Args:
              x: [n].
            """
            found = 0
            for i in range(x.shape[0]):
                found = found or x[i]
            return found
    ''', (["PF201"], "a recurrence")),
    "python_int_product": ('''
        def f(x):
            """Args:
              x: [n].
            """
            p = 1
            for i in range(1, 40):
                p *= i
            return p
    ''', (["PF102", "PF301"], "a product of Python integers, which NumPy could overflow")),
    "python_float_product": ('''
        def f(n):
            q = 1.0
            for i in range(n):
                q *= 0.99
            return q
    ''', (["PF102", "PF301"], "`q`: a product of Python floats; batched, it would be a NumPy number")),
    # The outer loop is independent and the inner one a reduction into out[i] (3 per row): a
    # batched `out += 1` adds 1. The direct backend cannot batch a repeated update: it stays.
    "update_repeated_along_inner_loop": ('''
        def f(x):
            """Args:
              x: [n].
            """
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                for j in range(3):
                    out[i] += 1
            return out
    ''', (["PF101", "PF301"], "an update repeated along a loop it does not depend on")),
    "concatenated_rows": ('''
        def f(x):
            """Args:
              x: [n, d].
            """
            outs = []
            for i in range(x.shape[0]):
                outs.append(x[i] * 2)
            return np.concatenate(outs)
    ''', True),
    "diagonal": ('''
        def f(w):
            """Args:
              w: [n, n].
            """
            out = np.zeros(w.shape[0])
            for i in range(w.shape[0]):
                out[i] = w[i, i]
            return out
    ''', True),
}


@pytest.mark.parametrize("name", sorted(_TRAPS))
def test_traps_are_batched_correctly_or_not_at_all(name):
    """Each trap is either rewritten and numerically equal, or left as a loop saying why."""
    import numpy as np

    from pforge.runtime.loader import load_module

    body, expect = _TRAPS[name]
    source = "import numpy as np\n" + textwrap.dedent(body)
    result = transpile_source(source, "m.py", backend="direct")
    (plan,) = result.plans
    if expect is not True:
        codes, why = expect
        assert not result.changed and not plan.rewritten, result.code
        assert [r.code for r in plan.remarks] == codes, plan.remarks
        assert why in plan.remarks[-1].message, plan.remarks
        return
    assert result.changed and plan.rewritten and plan.backend == "direct", plan.remarks
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, 6).astype(float) if name != "diagonal" else rng.standard_normal((4, 4))
    if name == "concatenated_rows":
        x = rng.standard_normal((5, 3))
    want = load_module("m.py", source=source).f(x)
    got = load_module("m.py", source=result.code).f(x)
    assert type(want) is type(got) or isinstance(want, np.ndarray) == isinstance(got, np.ndarray)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


_NUMPY_MAP = '''
import numpy as np

def f(x, w):
    """Args:
      x: [n, d].
      w: [d, k].
    """
    out = []
    total = 0.0
    for i in range(x.shape[0]):
        h = np.tanh(x[i] @ w)
        out.append(h / np.sum(h))
        total += np.max(x[i])
    return np.stack(out), total
'''


def test_target_tensorflow_moves_numpy_loops_to_tensorflow(tf):
    import numpy as np

    from pforge.runtime.loader import load_module

    result = transpile_source(_NUMPY_MAP, "m.py", target="tensorflow")
    assert "\nimport tensorflow as tf\nimport numpy as np\n" in result.code
    loop = "\n".join(_loop_code(result.code))
    batched = loop.split("\nelse:")[0]  # (the loop stays beside it, for an empty `x`)
    assert "tf.experimental.numpy.tanh(tf.experimental.numpy.matmul(x, w))" in batched
    assert " np." not in batched and "(np." not in batched
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((6, 3)), rng.standard_normal((3, 4))
    want = load_module("m.py", source=_NUMPY_MAP).f(x, w)
    got = load_module("m.py", source=result.code).f(x, w)
    assert isinstance(got[0], tf.Tensor)
    np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=1e-6)
    np.testing.assert_allclose(float(got[1]), want[1], rtol=1e-6)
    assert transpile_source(_NUMPY_MAP, "m.py").code.count("tf.") == 0  # target auto keeps NumPy


#: NumPy loops moved to TensorFlow (``--target tensorflow``) that the fuzzer found computing
#: otherwise than the loop: name -> (source, ranks, calls)
_MOVED = {
    # no row: the loop's `np.array([])` is `(0,)` floats, the batched `x * 2` `(0, 3)` (helper-73, F3)
    "empty-input": ("import numpy as np\n\ndef f(x):\n    out = []\n    for r in x:\n        out.append(r * 2.0)\n"
                    "    return np.array(out)\n", {"x": 2}, [(np.zeros((0, 3)),), (np.ones((2, 3)),)]),
    # a last value the loop never binds where it runs no iteration (fuzz seed 102)
    "last-value-of-no-iteration": ("import numpy as np\n\ndef f(x, c):\n    o1 = []\n    s1 = -1\n"
                                   "    for i in range(len(x)):\n        o1.append(-(0.5 + c) + i)\n"
                                   "        s1 = len(x) * 2 + c\n    return np.array(o1), s1\n",
                                   {"x": 1, "c": 0}, [(np.zeros(0), 1.0), (np.ones(3), 1.0)]),
    # `i - 0.5` of the int64 index: TensorFlow's operator raises where NumPy's promotes (seed 8516009)
    "index-minus-a-float": ("import numpy as np\n\ndef f(x, c):\n    s1 = 0.0\n    for i in range(len(x)):\n"
                            "        if (i - 0.5) <= 0.0:\n            continue\n        s1 -= x[i] - -c\n"
                            "    return s1\n", {"x": 1, "c": 0}, [(np.arange(4.0), 0.5), (np.zeros(0), 0.5)]),
    # an int64 sum beside a Python float (fuzz seed 683)
    "int-sum-plus-a-float": ("import numpy as np\n\ndef f(x, y):\n    s1, q1 = 0.0, 1.0\n    for i in range(len(x)):\n"
                             "        s1, q1 = s1 + (x[i] + y[i]), -i + q1\n    return s1, q1\n",
                             {"x": 1, "y": 1}, [(np.arange(3.0), np.ones(3)), (np.zeros(0), np.zeros(0))]),
    # `j.astype(...)`: a tensor has no astype (fuzz seed 50)
    "astype": ("import numpy as np\n\ndef f(x):\n    L1 = []\n    for i in range(len(x)):\n"
               "        lc1 = [x[i] * j + x[i] for j in range(3)]\n        L1.append(lc1)\n    return np.array(L1)\n",
               {"x": 1}, [(np.arange(3.0),), (np.zeros(0),)]),
    # a list of Python ints, whose product grows past int64 (fuzz seed 8523400): the loop runs
    "product-of-python-ints": ("import numpy as np\n\ndef f(x, b1):\n    s1 = 1\n    for i in range(len(x)):\n"
                               "        s1 *= b1[i]\n    return s1\n", {"x": 1},
                               [(np.ones(3), [2 ** 40, 2 ** 40, 3]), (np.ones(2), np.array([2, 3]))]),
}


@pytest.mark.parametrize("name", sorted(_MOVED))
def test_target_tensorflow_computes_as_the_numpy_loop(name, tf):
    from pforge.runtime.loader import load_module

    source, shapes, calls = _MOVED[name]
    result = transpile_source(source, "m.py", target="tensorflow", shapes=shapes)
    assert result.plans[0].rewritten and "experimental.numpy" in result.code, result.plans[0].remarks
    before, after = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    for args in calls:
        want, got = before(*args), after(*args)
        for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
            g = np.asarray(g)
            assert g.shape == np.shape(w), (args, w, g, result.code)
            if isinstance(w, int) and abs(w) > 2 ** 62:
                assert g.dtype == object and w == g.item(), (w, g)  # (Python's int, grown past int64)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=result.code)


@pytest.mark.parametrize(("call", "named"), [("np.linalg.norm(x[i])", "np.linalg.norm"), ("np.median(x[i])", "np.median"),
                                              ("None", "np.logaddexp.reduce")])
def test_target_tensorflow_leaves_what_tf_experimental_numpy_lacks(call, named):
    """``tf.experimental.numpy`` has no ``linalg``, ``median`` or ufunc methods (helper-73's F5,
    fuzz seed 8525685): the loop is left, with a note naming the function."""
    body = "        s = np.logaddexp(s, np.tanh(x[i, 0]))\n" if call == "None" else f"        out.append({call})\n"
    source = ("import numpy as np\n\ndef f(x):\n    out = []\n    s = -np.inf\n    for i in range(len(x)):\n"
              + body + "    return np.array(out), s\n")
    assert transpile_source(source, "m.py", shapes={"x": 2}).changed  # (NumPy's rewrite has it)
    result = transpile_source(source, "m.py", target="tensorflow", shapes={"x": 2})
    assert not result.changed
    notes = [r.message for r in result.plans[0].remarks if r.code == "PF301"]
    assert notes and f"`{named}` has no counterpart in tf.experimental.numpy" in notes[0], notes


def test_target_tensorflow_leaves_a_float_function_of_the_index():
    """``tf.experimental.numpy.tanh`` of an int tensor raises (no ``astype``), where NumPy's
    gives floats (fuzz seeds 8527498, 8528011): the loop is left."""
    source = ("import numpy as np\n\ndef f(x):\n    n1 = 0\n    for i in range(len(x)):\n"
              "        if np.tanh(i) < 0.5:\n            n1 += 1\n    return n1\n")
    assert transpile_source(source, "m.py", shapes={"x": 1}).changed
    result = transpile_source(source, "m.py", target="tensorflow", shapes={"x": 1})
    notes = [r.message for r in result.plans[0].remarks if r.code == "PF301"]
    assert not result.changed and notes and "`np.tanh` of the loop index" in notes[0], notes


def test_target_tensorflow_leaves_item_assignment_loops():
    source = _NUMPY_MAP.replace("out = []", "out = np.zeros((x.shape[0], w.shape[1]))").replace(
        "out.append(h / np.sum(h))", "out[i] = h").replace("np.stack(out)", "out")
    result = transpile_source(source, "m.py", target="tensorflow")
    assert not result.changed
    notes = [r.message for r in result.plans[0].remarks if r.code == "PF301"]
    assert notes and "--target tensorflow" in notes[0] and "item assignment" in notes[0]


_UNSTAGEABLE = '''
import tensorflow as tf

def f(x):
    """Args:
      x: float32 [n, d].
    """
    out = []
    for i in range(x.shape[0]):
        out.append(tf.nn.relu(x[i]))
    print("done")
    return tf.stack(out)
'''


def test_direct_rewrite_kept_where_staging_is_unsafe():
    """``print`` after the loop forbids tf.function; batched ops need none, vectorized_map does."""
    direct = transpile_source(_UNSTAGEABLE, "m.py")
    assert direct.plans[0].backend == "direct" and "@tf.function" not in direct.code
    assert "out = tf.nn.relu(x)" in direct.code
    pfor = transpile_source(_UNSTAGEABLE, "m.py", backend="pfor")
    assert not pfor.changed
    assert "cannot be staged" in [r.message for r in pfor.plans[0].remarks if r.code == "PF301"][0]


def test_derived_induction_variable_keeps_its_final_value():
    """``c = c + 2`` each iteration: read as ``c + 2k`` inside, ``c + 2*trips`` after the loop."""
    import numpy as np

    from pforge.runtime.loader import load_module

    source = textwrap.dedent('''
        import numpy as np

        def f(x, start):
            """Args:
              x: [n].
            """
            out = np.zeros(x.shape[0])
            c = start
            for i in range(1, x.shape[0]):
                out[i] = x[c % 5] * i
                c = c + 2
            return out, c
    ''')
    result = transpile_source(source, "m.py")
    assert result.plans[0].backend == "direct", result.plans[0].remarks
    assert "c = c + len(range(1, x.shape[0])) * 2" in result.code
    x = np.arange(7.0)
    want = load_module("m.py", source=source).f(x, 3)
    got = load_module("m.py", source=result.code).f(x, 3)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]


def test_two_appends_in_one_branch_are_not_a_select():
    """``if c: out.append(a); out.append(b)`` appends twice per iteration: not ``where(c, a, b)``."""
    result, plan = _direct('''
        import numpy as np

        def f(x):
            """Args:
              x: [n].
            """
            out = []
            for i in range(x.shape[0]):
                if x[i] > 0:
                    out.append(x[i])
                    out.append(-x[i])
            return np.array(out)
    ''')
    assert not result.changed
    assert "more than one value" in [r.message for r in plan.remarks if r.code == "PF301"][0]


def test_max_reduction_over_an_empty_loop_keeps_the_initial_value():
    import numpy as np

    from pforge.runtime.loader import load_module

    source = textwrap.dedent('''
        import numpy as np

        def f(x):
            """Args:
              x: [n].
            """
            best = -1.0
            for i in range(x.shape[0]):
                best = np.maximum(best, x[i] * 2)
            return best
    ''')
    result = transpile_source(source, "m.py")
    assert result.changed
    # the batched code runs only where the loop does (no `initial=`, which casts the running
    # value to the terms' dtype: bool(-1.0) is True)
    assert "x.shape[0] > 0" in result.code and "initial=" not in result.code
    builtin = transpile_source(source.replace("np.maximum(", "max("), "m.py")
    assert not builtin.changed  # Python's max skips NaN terms; no batching rule reproduces that
    assert "skips NaN terms" in builtin.remarks[-1].message
    for x in (np.zeros(0), np.array([0.5, -3.0, 2.0]), np.array([False, False])):
        want, got = load_module("m.py", source=source).f(x), load_module("m.py", source=result.code).f(x)
        assert got == want and type(got) is type(want)


#: Found by an adversarial pass over the direct backend: each once gave other numbers, invalid
#: Python, or an error the loop does not raise. The rewrite (or the loop left as it was) must
#: return what the loop returns and leave the arguments as the loop leaves them.
ADVERSARIAL = {
    "shape-of-a-row": ("x: [n, a].", "outs = []\n    for i in range(x.shape[0]):\n"
                       "        outs.append(x[i].sum() / x[i].shape[0])\n    return np.array(outs)"),
    "concat-with-a-shorter-invariant": (
        "x: [n, a].\n      c: [b].", "out = np.zeros(x.shape[0])\n    for i in range(x.shape[0]):\n"
        "        out[i] = np.concatenate([x[i], c]).sum()\n    return out"),
    "std-of-a-scalar": ("x: [n, a].", "out = np.zeros(x.shape[0])\n    for i in range(x.shape[0]):\n"
                        "        out[i] = np.std(x[i, 0])\n    return out"),
    "write-into-the-caller-array": ("x: [n, a].\n      out: [n, a].",
                                    "for i in range(x.shape[0]):\n        out[i] = x[i] * 2.0\n    return None"),
    "integer-array-updated-in-place": ("k: [n, a].", "for i in range(k.shape[0]):\n"
                                       "        k[i] = k[i] - k[i].mean()\n    return k"),
    "private-copy-then-element-write": (
        "m: [n, d, e].", "outs = []\n    for i in range(m.shape[0]):\n        tmp = m[i].copy()\n"
        "        tmp[-1] = m[i, 0, 0]\n        outs.append(tmp)\n    return np.stack(outs)"),
    "builtin-max-with-nan": ("v: [n].", "out = np.zeros_like(v)\n    for i in range(v.shape[0]):\n"
                             "        out[i] = max(0.0, v[i])\n    return out"),
    "scatter-rows-with-a-slice": (
        "x: [n, a].\n      idx: [n].", "out = np.zeros((4, x.shape[1]))\n    for i in range(x.shape[0]):\n"
        "        out[idx[i], :] += x[i]\n    return out"),
    "fmax-skips-nan": ("v: [n].", "best = -np.inf\n    for i in range(v.shape[0]):\n"
                       "        best = np.fmax(best, v[i])\n    return best"),
    "power-of-the-index": ("w: [n].", "outs = []\n    for i in range(w.shape[0]):\n"
                           "        outs.append(2 ** (i - 2) * w[i])\n    return np.array(outs)"),
    "integer-accumulator-truncates": (
        "w: [n].", "out = np.ones(w.shape[0], dtype=np.int64)\n    for i in range(w.shape[0]):\n"
        "        out[i] += w[i] * 2.5\n    return out"),
}


#: The adversarial loops the direct backend now leaves as they are (the fix was to refuse
#: them), with the words of their PF301 remark; every other one must be rewritten by it.
ADVERSARIAL_LEFT = {
    "fmax-skips-nan": "`np.fmax(best, v[i])` skips NaN terms, which a batched max does not",
    "power-of-the-index": "`2 ** (i - 2)`: a power with the loop index as exponent",
    "std-of-a-scalar": "`numpy.std` of a per-iteration scalar",
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_loops_keep_their_meaning(name):
    import numpy as np

    from pforge.runtime.loader import load_module

    doc, body = ADVERSARIAL[name]
    params = [line.split(":")[0].strip() for line in doc.splitlines()]
    source = (f'import numpy as np\n\ndef f({", ".join(params)}):\n    """Args:\n      {doc}\n    """\n'
              f"    {body}\n")
    result = transpile_source(source, "m.py")
    compile(result.code, "m.py", "exec")  # always valid Python
    (plan,) = result.plans
    if name in ADVERSARIAL_LEFT:
        assert not result.changed and not plan.rewritten, result.code
        notes = [r.message for r in plan.remarks if r.code == "PF301"]
        assert notes and ADVERSARIAL_LEFT[name] in notes[0], plan.remarks
        return
    assert result.changed and plan.rewritten and plan.backend == "direct", plan.remarks

    def inputs():
        rng = np.random.default_rng(0)
        v = rng.standard_normal(5)
        v[2] = np.nan
        given = {"x": rng.standard_normal((5, 3)), "c": np.array([7.0, 1.0]), "out": np.zeros((5, 3)),
                 "k": np.array([[1, 2, 4], [0, 0, 5]]), "m": np.arange(8.0).reshape(2, 2, 2), "v": v,
                 "idx": np.array([0, 3, 0, 1, 3]), "w": rng.standard_normal(5)}
        return [given[p] for p in params]

    before, after = inputs(), inputs()
    want = load_module("m.py", source=source).f(*before)
    got = load_module("m.py", source=result.code).f(*after)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=result.code)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    for a, b in zip(before, after):
        np.testing.assert_array_equal(b, a, err_msg=result.code)  # arguments changed alike


#: GradientTape bodies: (loop body, expected backend, code or note fragment). Parameters:
#: x float32 [d], w float32 [m, d], xs float32 [n, d], v float32 [m]. A tape whose only per-iteration value
#: is the index selecting the differentiated entry gives Jacobian rows (direct backend,
#: ``tape.jacobian``, in closed form for a dense layer); anything else under the tape is a
#: per-example gradient (pfor).
_ROWS = ("rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
         "            tape.watch(x)\n            y = tf.tanh(tf.linalg.matvec(w, x))\n            y_i = y[i]\n")
_NEST = ("rows = []\n    for i in range(w.shape[0]):\n        row = []\n        for j in range(w.shape[0]):\n"
         "            with tf.GradientTape() as tape:\n                tape.watch(x)\n"
         "                g = tf.matmul(w, w, transpose_b=True) * tf.reduce_sum(tf.sin(x))\n")
TAPES = {
    "jacobian-rows": (
        "rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            y = tf.tanh(tf.linalg.matvec(w, x))\n            y_i = y[i]\n"
        "        rows.append(tape.gradient(y_i, x))\n    return tf.stack(rows)",
        "direct", "        dy_dx = ((1.0 - tf.square(y))[:, tf.newaxis] * w)[:w.shape[0]]\n    else:\n"
        "        dy_dx = tape.jacobian(y, x)[:w.shape[0]]\n    rows = dy_dx\n    return rows"),
    "first-rows-with-a-step": (
        "rows = []\n    for i in range(1, 4, 2):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            y = tf.sin(tf.linalg.matvec(w, x)) * 3.0\n            y_i = y[i]\n"
        "        g = tape.gradient(y_i, x)\n        rows.append(g * 2.0)\n    return tf.stack(rows)",
        "direct", "dy_dx = tape.jacobian(y, x)[1:4:2]"),
    "persistent-tape-two-jacobians": (
        "rows, cols = [], []\n    for i in range(w.shape[0]):\n"
        "        with tf.GradientTape(persistent=True) as tape:\n            tape.watch(x)\n"
        "            y = tf.tanh(tf.linalg.matvec(w, x))\n            z = tf.square(y)\n"
        "            y_i = y[i]\n            z_i = z[i]\n"
        "        rows.append(tape.gradient(y_i, x))\n        cols.append(tape.gradient(z_i, x))\n"
        "    return tf.stack(rows) + tf.stack(cols)",
        "direct", "dz_dx = (((1.0 - tf.square(y)) * (2.0 * y))[:, tf.newaxis] * w)[:w.shape[0]]"),
    "computed-after-the-selection": (
        "rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            y = tf.tanh(tf.linalg.matvec(w, x))\n            y_i = y[i] * 2.0\n"
        "        rows.append(tape.gradient(y_i, x))\n    return tf.stack(rows)",
        "pfor", "per-example gradients"),
    "non-scalar-target": (
        "rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            y = tf.tanh(w * x)\n            y_i = y[i]\n"
        "        rows.append(tape.gradient(y_i, x))\n    return tf.stack(rows)",
        "pfor", "not a scalar"),
    "selected-from-a-value-before-the-tape": (
        "rows = []\n    for i in range(w.shape[0]):\n        y = tf.tanh(tf.linalg.matvec(w, x))\n"
        "        with tf.GradientTape() as tape:\n            tape.watch(y)\n            y_i = y[i]\n"
        "        rows.append(tape.gradient(y_i, y))\n    return tf.stack(rows)",
        "pfor", "not computed under the tape"),
    "gradient-inside-the-block": (
        "rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            y = tf.tanh(tf.linalg.matvec(w, x))\n            y_i = y[i]\n"
        "            rows.append(tape.gradient(y_i, x))\n    return tf.stack(rows)",
        "pfor", "statement under a GradientTape"),
    "per-example-loss": (
        "grads = []\n    for i in range(xs.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            loss = tf.reduce_sum(tf.tanh(xs[i] * x))\n"
        "        grads.append(tape.gradient(loss, x))\n    return tf.stack(grads)",
        "pfor", "per-example gradients"),
    "watches-a-row": (
        "grads = []\n    for i in range(xs.shape[0]):\n        r = xs[i]\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(r)\n            loss = tf.reduce_sum(tf.tanh(r * x))\n"
        "        grads.append(tape.gradient(loss, r))\n    return tf.stack(grads)",
        "pfor", "watches a per-iteration value"),
    # Found by an adversarial pass: each once gave other numbers or raised where the loop does not.
    "range-over-a-name-the-tape-rebinds": (
        "y = x\n    rows = []\n    for i in range(len(y)):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            y = tf.tanh(tf.linalg.matvec(w, x))\n            y_i = y[i]\n"
        "        rows.append(tape.gradient(y_i, x))\n    return tf.stack(rows)",
        "pfor", "read `y`, which the body binds again"),
    "parameter-rebound-under-the-tape": (
        "rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            v = tf.tanh(tf.concat([tf.linalg.matvec(w, x), x], 0))\n"
        "            v_i = v[i]\n        rows.append(tape.gradient(v_i, x))\n    return tf.stack(rows)",
        "direct", "rows = tape.jacobian(v, x)[:w.shape[0]]"),
    "list-of-sources": (
        _ROWS + "        rows.append(tape.gradient(y_i, [x, w])[0])\n    return tf.stack(rows)",
        "pfor", "one named source"),
    "starred-source": (
        _ROWS + "        rows.append(tape.gradient(y_i, *[x, tf.constant(2.0)]))\n    return tf.stack(rows)",
        "pfor", "one named source"),
    "same-gradient-in-both-branches": (
        _ROWS + "        if y_i > 0:\n            g = tape.gradient(y_i, x)\n        else:\n"
        "            g = tape.gradient(y_i, x) * 2.0\n        rows.append(g)\n    return tf.stack(rows)",
        "direct", "dy_dx = tape.jacobian(y, x)[:w.shape[0]]"),
    "rule-that-reads-its-operand-twice": (
        _ROWS + "        rows.append(tf.reshape(tape.gradient(y_i, x), [-1]))\n    return tf.concat(rows, 0)",
        "direct", "dy_dx = tape.jacobian(y, x)[:w.shape[0]]"),
    "invariant-gradient-read-twice": (
        "rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            s = tf.reduce_sum(tf.sin(x))\n"
        "            y = tf.tanh(tf.linalg.matvec(w, x))\n            y_i = y[i]\n"
        "        rows.append(tf.reshape(tape.gradient(s, x) * y_i, [-1]))\n    return tf.stack(rows)",
        "direct", "ds_dx = tape.gradient(s, x)"),
    "two-gradients-in-exclusive-branches": (
        _ROWS + "        if i % 2 == 0:\n            g = tape.gradient(y_i, x)\n        else:\n"
        "            g = -tape.gradient(y_i, x)\n        rows.append(g)\n    return tf.stack(rows)",
        None, "is not persistent and 2 gradients are taken from it"),
    "list-built-under-the-tape": (
        "rows = []\n    for i in range(w.shape[0]):\n        with tf.GradientTape() as tape:\n"
        "            tape.watch(x)\n            y = tf.unstack(tf.tanh(tf.linalg.matvec(w, x)))\n"
        "            y_i = y[i]\n        rows.append(tape.gradient(y_i, x))\n    return tf.stack(rows)",
        None, "is a Python list built in the body"),
    "nested-loops-select-a-matrix-entry": (
        _NEST + "                g_ij = g[i, j]\n            row.append(tape.gradient(g_ij, x))\n"
        "        rows.append(tf.stack(row))\n    return tf.stack(rows)",
        "direct", "rows = tape.jacobian(g, x)[:w.shape[0], :w.shape[0]]"),
    "nested-loops-transposed-selection": (
        _NEST + "                g_ji = g[j, i]\n            row.append(tape.gradient(g_ji, x))\n"
        "        rows.append(tf.stack(row))\n    return tf.stack(rows)",
        "pfor", "cannot express as a slice or gather"),
    "inner-loop-selects-by-the-outer-index-only": (
        _NEST + "                v = tf.reduce_sum(g, axis=1)\n                v_i = v[i]\n"
        "            row.append(tape.gradient(v_i, x))\n        rows.append(tf.stack(row))\n"
        "    return tf.stack(rows)",
        "pfor", "not selected by the index of every loop around the tape"),
    "lists-of-gradients-collected": (
        _ROWS + "        rows.append(tape.gradient(y_i, [x]))\n    return tf.stack(rows)[:, 0]",
        None, "collects lists of gradients"),
}


@pytest.mark.parametrize("name", sorted(TAPES))
def test_gradient_tape_rows_become_one_jacobian(name, tf):
    import numpy as np

    from pforge.runtime.loader import load_module

    body, backend, fragment = TAPES[name]
    source = ('import tensorflow as tf\n\ndef f(x, w, xs, v):\n    """Args:\n      x: float32 [d].\n'
              '      w: float32 [m, d].\n      xs: float32 [n, d].\n      v: float32 [m].\n    """\n'
              f'    {body}\n')
    result = transpile_source(source, "m.py")
    plan = result.plans[0]
    assert plan.backend == backend, plan.backend_note
    why = plan.backend_note if backend else " ".join(r.message for r in result.remarks)
    assert fragment in (result.code if backend == "direct" else why), result.code + why
    if backend == "direct":
        # One tape call per gradient the loop takes, however often rules read the result.
        calls = result.code.count("tape.jacobian(") + result.code.count("tape.gradient(")
        assert calls == (2 if "persistent=True" in body else 1), result.code
        assert "vectorized_map" not in result.code
    rng = np.random.default_rng(0)
    args = [tf.constant(rng.standard_normal(shape), tf.float32) for shape in ((3,), (5, 3), (4, 3), (5,))]
    want = load_module("m.py", source=source).f(*args)
    got = load_module("m.py", source=result.code).f(*args)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, err_msg=result.code)


def test_parameter_bound_again_loses_its_declared_rank():
    """``x = np.squeeze(x)`` makes the docstring's ``x: [n, d]`` wrong and gives no rank of its
    own (it depends on the sizes), so the loop stays; ``x = x.reshape(-1)`` gives rank 1 (the
    reshape rule's), and the loop is rewritten for it. Without that line the declared rank holds."""
    import numpy as np

    from pforge.runtime.loader import load_module

    declared = textwrap.dedent('''
        import numpy as np

        def f(x, b):
            """Args:
              x: [n, d].
              b: [k].
            """
            out = []
            for i in range(x.shape[0]):
                out.append(x[i] + b)
            return np.stack(out)
    ''')
    source = declared.replace("    out = []\n", "    x = np.squeeze(x)\n    out = []\n")
    result = transpile_source(source, "m.py")
    assert not result.changed and not result.plans[0].rewritten, result.code
    notes = [r.message for r in result.plans[0].remarks if r.code == "PF301"]
    assert notes and "the per-iteration rank of an operand is unknown" in notes[0], result.remarks

    flat = declared.replace("    out = []\n", "    x = x.reshape(-1)\n    out = []\n")
    rebound = transpile_source(flat, "m.py")
    assert rebound.changed and rebound.plans[0].backend == "direct", rebound.remarks
    assert "x[:, np.newaxis] + b" in rebound.code
    x, b = np.arange(6.0).reshape(2, 3), np.linspace(0.0, 1.0, 4)
    np.testing.assert_array_equal(load_module("m.py", source=rebound.code).f(x, b),
                                  load_module("m.py", source=flat).f(x, b), err_msg=rebound.code)

    kept = transpile_source(declared, "m.py")
    assert kept.changed and kept.plans[0].backend == "direct", kept.remarks
    x, b = np.arange(6.0).reshape(2, 3), np.linspace(0.0, 1.0, 3)
    want = load_module("m.py", source=declared).f(x, b)
    got = load_module("m.py", source=kept.code).f(x, b)
    np.testing.assert_array_equal(got, want, err_msg=kept.code)
