"""Common-subexpression elimination of a rewrite's batched statements (issue 15, "bind a
repeated subexpression once"): each case gives the statements, the names the rewrite made, and
the statements that must come out; the traps are the occurrences that must not share one value
(evaluated under a condition, changed in between, handed to code that may write into it), and
the end-to-end cases run the rewritten loop against the loop."""

from __future__ import annotations

import textwrap

import gast
import numpy as np
import pytest

from pforge.transpile import transpile_source
from pforge.transpile.backends.common_subexpressions import bind_common_subexpressions
from pforge.transpile.frontend import ImportMap
from pforge.transpile.naming import Namer

IMPORTS = ImportMap(aliases={"np": "numpy", "tf": "tensorflow", "math": "math", "scipy": "scipy"})


def _cse(text: str, fresh=(), outside=()) -> str:
    stmts = gast.parse(textwrap.dedent(text)).body
    namer = Namer(gast.parse(textwrap.dedent(text)))
    bind_common_subexpressions(stmts, namer, IMPORTS, set(fresh), set(outside))
    return "\n".join(gast.unparse(s).strip() for s in stmts)


CASES = [
    # three reads in one statement: bound once, before it, named after what it reads
    ("c = np.where(np.asarray(xs) < 0, 0, np.where(np.asarray(xs) > 1, 1, np.asarray(xs) * 2))", (),
     "xs_array = np.asarray(xs)\nc = np.where(xs_array < 0, 0, np.where(xs_array > 1, 1, xs_array * 2))"),
    # the largest repeated expression that is worth a name: `np.asarray(xs) < 0` twice saves 3
    # tokens, `np.asarray(xs)` three times 6
    ("a = (np.asarray(xs) < 0) & (ys > 0)\nb = (np.asarray(xs) < 0) & (ys < 0)\nc = np.asarray(xs) * 2", (),
     "xs_array = np.asarray(xs)\na = (xs_array < 0) & (ys > 0)\nb = (xs_array < 0) & (ys < 0)\nc = xs_array * 2"),
    # a repeat in an `if` statement's test too
    ("t = np.where(np.logical_and(m > 0, w < 1), v, 0)\nif np.any(np.logical_and(m > 0, w < 1)):\n    s += t", (),
     "m_mask = np.logical_and(m > 0, w < 1)\nt = np.where(m_mask, v, 0)\nif np.any(m_mask):\n    s += t"),
    # a slice's bound
    ("a = r[:len(b) - 1] * 2\nc = d[:len(b) - 1] + e[:len(b) - 1]", (),
     "b_stop = len(b) - 1\na = r[:b_stop] * 2\nc = d[:b_stop] + e[:b_stop]"),
    # too short to be worth a name: x.shape[0] twice, or x < 0 three times
    ("a = y[:x.shape[0]] + z[:x.shape[0]]", (), "a = y[:x.shape[0]] + z[:x.shape[0]]"),
    ("a = np.where(x < 0, x < 0, x < 0)", (), "a = np.where(x < 0, x < 0, x < 0)"),
    # after a short-circuit, in a conditional expression's arms, in a lambda: not always evaluated
    ("a = p and np.asarray(xs) * 2 + np.asarray(xs)\nb = np.asarray(xs) * 3", (),
     "a = p and np.asarray(xs) * 2 + np.asarray(xs)\nb = np.asarray(xs) * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2 if p else 0\nb = np.asarray(xs)[1:len(ys)] - 1", (),
     "a = np.asarray(xs)[1:len(ys)] * 2 if p else 0\nb = np.asarray(xs)[1:len(ys)] - 1"),
    ("a = 0 if p else np.asarray(xs)[1:len(ys)] * 3\nb = np.asarray(xs)[1:len(ys)] - 1", (),
     "a = 0 if p else np.asarray(xs)[1:len(ys)] * 3\nb = np.asarray(xs)[1:len(ys)] - 1"),
    # (the first operand of `and` always is; a bare `return` has nothing)
    ("a = np.where(np.max(x, axis=-1) > t, 1, 0)\nb = np.max(x, axis=-1) > t and q\nreturn", (),
     "x_mask = np.max(x, axis=-1) > t\na = np.where(x_mask, 1, 0)\nb = x_mask and q\nreturn"),
    ("a = tf.scan(lambda h, r: h * tf.exp(w * 2.0) + tf.exp(w * 2.0) * r - tf.exp(w * 2.0), x)", (),
     "a = tf.scan(lambda h, r: h * tf.exp(w * 2.0) + tf.exp(w * 2.0) * r - tf.exp(w * 2.0), x)"),
    # after a block (a tape's `with`): the statements after it are still read
    ("with tape:\n    y = f(x)\nc = np.asarray(xs) * 2 + np.asarray(xs) - np.asarray(xs)", (),
     "with tape:\n    y = f(x)\nxs_array = np.asarray(xs)\nc = xs_array * 2 + xs_array - xs_array"),
    # a name it reads is bound in between
    ("a = np.asarray(xs) * 2\nxs = f(xs)\nb = np.asarray(xs) * 3\nc = np.asarray(xs) + np.asarray(xs)", (),
     "a = np.asarray(xs) * 2\nxs = f(xs)\nxs_array = np.asarray(xs)\nb = xs_array * 3\nc = xs_array + xs_array"),
    # an array written in between, or written in place, or handed to a call that may write into
    # it: what it reads may have changed (and the control: nothing in between that could)
    ("a = np.asarray(xs)[1:len(ys)] * 2\nc = a + 1\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "xs_part = np.asarray(xs)[1:len(ys)]\na = xs_part * 2\nc = a + 1\nb = xs_part * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2\nout[:n] = a\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "a = np.asarray(xs)[1:len(ys)] * 2\nout[:n] = a\nb = np.asarray(xs)[1:len(ys)] * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2\nq.v = a\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "a = np.asarray(xs)[1:len(ys)] * 2\nq.v = a\nb = np.asarray(xs)[1:len(ys)] * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2\ntotal += a\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "a = np.asarray(xs)[1:len(ys)] * 2\ntotal += a\nb = np.asarray(xs)[1:len(ys)] * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2\nnp.add.at(h, k, a)\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "a = np.asarray(xs)[1:len(ys)] * 2\nnp.add.at(h, k, a)\nb = np.asarray(xs)[1:len(ys)] * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2\nupdate(a)\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "a = np.asarray(xs)[1:len(ys)] * 2\nupdate(a)\nb = np.asarray(xs)[1:len(ys)] * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2\nglobal g\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "a = np.asarray(xs)[1:len(ys)] * 2\nglobal g\nb = np.asarray(xs)[1:len(ys)] * 3"),
    ("a = np.asarray(xs)[1:len(ys)] * 2\ndel ys\nb = np.asarray(xs)[1:len(ys)] * 3", (),
     "a = np.asarray(xs)[1:len(ys)] * 2\ndel ys\nb = np.asarray(xs)[1:len(ys)] * 3"),
    # the value (or a view of it) bound to a user's name: a later write into one would show
    # in the other, where the loop made two arrays of a list
    ("a = np.asarray(xs)[1:len(ys)][:, 0]\nb = np.asarray(xs)[1:len(ys)][:, 1]", (),
     "a = np.asarray(xs)[1:len(ys)][:, 0]\nb = np.asarray(xs)[1:len(ys)][:, 1]"),
    ("a = np.squeeze(np.asarray(xs)[1:len(ys)])\nb = np.asarray(xs)[1:len(ys)] + 1", (),
     "a = np.squeeze(np.asarray(xs)[1:len(ys)])\nb = np.asarray(xs)[1:len(ys)] + 1"),
    # ... returned, or handed to a function that may write into it
    ("a = np.asarray(xs)[1:len(ys)] + 1\nreturn np.asarray(xs)[1:len(ys)]", (),
     "a = np.asarray(xs)[1:len(ys)] + 1\nreturn np.asarray(xs)[1:len(ys)]"),
    ("a = g(np.asarray(xs)[1:len(ys)])\nb = g(np.asarray(xs)[1:len(ys)])", (),
     "a = g(np.asarray(xs)[1:len(ys)])\nb = g(np.asarray(xs)[1:len(ys)])"),
    ("a = np.asarray(xs)[1:len(ys)] + 1\nb = g(np.asarray(xs)[1:len(ys)])", (),
     "a = np.asarray(xs)[1:len(ys)] + 1\nb = g(np.asarray(xs)[1:len(ys)])"),
    ("a = np.asarray(xs)[1:len(ys)] + 1\nb = g(v=np.asarray(xs)[1:len(ys)])", (),
     "a = np.asarray(xs)[1:len(ys)] + 1\nb = g(v=np.asarray(xs)[1:len(ys)])"),
    # ... but through a view into arithmetic, as an index or a test, augmenting, or copied by
    # `astype` (not with copy=False), it is only read
    ("a = np.squeeze(x[1:len(ys) - 1]) * 2\nb = np.asarray(x[1:len(ys) - 1]) + 1", (),
     "x_part = x[1:len(ys) - 1]\na = np.squeeze(x_part) * 2\nb = np.asarray(x_part) + 1"),
    ("a = y[np.asarray(xs)[1:len(ys)]]\nb = z[np.asarray(xs)[1:len(ys)]]", (),
     "xs_part = np.asarray(xs)[1:len(ys)]\na = y[xs_part]\nb = z[xs_part]"),
    ("a = np.where(np.max(x, axis=-1) > t, x, 0)\nb = 1 if np.max(x, axis=-1) > t else 0", (),
     "x_mask = np.max(x, axis=-1) > t\na = np.where(x_mask, x, 0)\nb = 1 if x_mask else 0"),
    ("a = np.where(np.max(x, axis=-1) > t, x, 0)\nif np.max(x, axis=-1) > t:\n    s = 1", (),
     "x_mask = np.max(x, axis=-1) > t\na = np.where(x_mask, x, 0)\nif x_mask:\n    s = 1"),
    ("a = np.asarray(xs)[1:len(ys)] + 1\ntotal += np.asarray(xs)[1:len(ys)]", (),
     "xs_part = np.asarray(xs)[1:len(ys)]\na = xs_part + 1\ntotal += xs_part"),
    ("a = np.asarray(xs)[1:len(ys)].astype(float)\nb = np.asarray(xs)[1:len(ys)].astype(float)", (),
     "xs_part = np.asarray(xs)[1:len(ys)]\na = xs_part.astype(float)\nb = xs_part.astype(float)"),
    ("a = np.asarray(xs)[1:len(ys)].astype(float, copy=False)\nb = np.asarray(xs)[1:len(ys)].astype(float, copy=False)",
     (), "a = np.asarray(xs)[1:len(ys)].astype(float, copy=False)\nb = np.asarray(xs)[1:len(ys)].astype(float, copy=False)"),
    # the largest repeated expression first (then what repeats inside it), and of two as
    # large, the first
    ("a = np.asarray(xs)[1:len(ys)] * 2 - np.asarray(xs)[1:len(ys)]\n"
     "b = (np.asarray(xs)[1:len(ys)] < 0) * 1 + (np.asarray(xs)[1:len(ys)] < 0)", (),
     "xs_part = np.asarray(xs)[1:len(ys)]\na = xs_part * 2 - xs_part\nxs_mask = xs_part < 0\nb = xs_mask * 1 + xs_mask"),
    ("c = np.asarray(xs)[1:len(ys)] * np.asarray(zs)[1:len(ys)] + np.asarray(xs)[1:len(ys)] - np.asarray(zs)[1:len(ys)]",
     (), "xs_part = np.asarray(xs)[1:len(ys)]\nzs_part = np.asarray(zs)[1:len(ys)]\nc = xs_part * zs_part + xs_part - zs_part"),
    # five tokens is the least worth a name
    ("a = xs[:n] + xs[:n] * xs[:n] - xs[:n]", (), "xs_part = xs[:n]\na = xs_part + xs_part * xs_part - xs_part"),
    ("a = len(xs) + len(xs) * len(xs) - len(xs) + len(xs) * len(xs)", (),
     "a = len(xs) + len(xs) * len(xs) - len(xs) + len(xs) * len(xs)"),
    # ... but copied into an array, or bound to a temporary the rewrite made and only reads, is fine
    ("w = np.asarray(xs)[:len(ys)] + 1\nout[:n] = np.asarray(xs)[:len(ys)] * 2", (),
     "xs_part = np.asarray(xs)[:len(ys)]\nw = xs_part + 1\nout[:n] = xs_part * 2"),
    ("w = np.asarray(xs)[:len(ys)] + 1\nout[:n] = np.asarray(xs)[:len(ys)]", (),
     "xs_part = np.asarray(xs)[:len(ys)]\nw = xs_part + 1\nout[:n] = xs_part"),
    # one line for a name that saves 5 tokens is not worth it (np.shape(x)[-1] twice)
    ("a = max(1, np.shape(x)[-1] * np.shape(x)[-1])", (), "a = max(1, np.shape(x)[-1] * np.shape(x)[-1])"),
    ("a = np.shape(x)[-1] * np.shape(x)[-1] + np.shape(x)[-1]", (), "x_dim = np.shape(x)[-1]\na = x_dim * x_dim + x_dim"),
    ("a = x.shape[1] * x.shape[1] + x.shape[1] + x.shape[1]", (), "x_dim1 = x.shape[1]\na = x_dim1 * x_dim1 + x_dim1 + x_dim1"),
    ("a = y[:x.shape[0]] + z[:x.shape[0]] - w[:x.shape[0]] * v[:x.shape[0]]", (),
     "n_x = x.shape[0]\na = y[:n_x] + z[:n_x] - w[:n_x] * v[:n_x]"),
    ("t1 = np.asarray(xs)[np.newaxis][:, 0]\nt2 = np.asarray(xs)[np.newaxis][:, 1]\nw = t1 + t2", ("t1", "t2"),
     "xs_expanded = np.asarray(xs)[np.newaxis]\nt1 = xs_expanded[:, 0]\nt2 = xs_expanded[:, 1]\nw = t1 + t2"),
    # a call that is not known to be pure, a random draw, a tape's gradient: never shared
    ("a = f(x) * 2 + f(x) * 3 + f(x)", (), "a = f(x) * 2 + f(x) * 3 + f(x)"),
    ("a = np.random.normal(size=n) * 2 + np.random.normal(size=n)", (),
     "a = np.random.normal(size=n) * 2 + np.random.normal(size=n)"),
    ("a = tape.gradient(loss, w) * 2 + tape.gradient(loss, w)", (), "a = tape.gradient(loss, w) * 2 + tape.gradient(loss, w)"),
    ("a = tf.debugging.check_numerics(x, 'm') * 2 + tf.debugging.check_numerics(x, 'm') - tf.debugging.check_numerics(x, 'm')",
     (), "a = tf.debugging.check_numerics(x, 'm') * 2 + tf.debugging.check_numerics(x, 'm') - tf.debugging.check_numerics(x, 'm')"),
    ("a = np.sum(**kw) * 2 + np.sum(**kw) - np.sum(**kw)", (), "a = np.sum(**kw) * 2 + np.sum(**kw) - np.sum(**kw)"),
    # (a module other than NumPy's, TensorFlow's, the builtins and math: not known)
    ("a = scipy.special.expit(x) * 2 + scipy.special.expit(x) - scipy.special.expit(x)", (),
     "a = scipy.special.expit(x) * 2 + scipy.special.expit(x) - scipy.special.expit(x)"),
    ("a = math.sqrt(len(xs)) * 2 + math.sqrt(len(xs)) - math.sqrt(len(xs))", (),
     "xs_sqrt = math.sqrt(len(xs))\na = xs_sqrt * 2 + xs_sqrt - xs_sqrt"),
    # TensorFlow values are never written in place: handed on is fine
    ("a = tf.reshape(tf.maximum(n, 0) * 2, [tf.maximum(n, 0), tf.maximum(n, 0)])", (),
     "n_max = tf.maximum(n, 0)\na = tf.reshape(n_max * 2, [n_max, n_max])"),
    # two temporaries the rewrite made with one value: one goes; one nothing reads: it goes
    ("t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nz = t1 + t2", ("t1", "t2"),
     "t1 = (y * w)[:, np.newaxis]\nz = t1 + t1"),
    ("t1 = (y * w)[:, np.newaxis]\nz = y + 1", ("t1",), "z = y + 1"),
    ("t1 = np.sin(y)[:, np.newaxis]\nt2 = y * 3\nz = y + 1", ("t1", "t2"), "z = y + 1"),
    ("t1 = f(y)\nz = y + 1", ("t1",), "t1 = f(y)\nz = y + 1"),  # (a call that may do something)
    # ... past other statements that change nothing it reads, and every such pair
    ("q[0] = 1\nc = y * 2\nt1 = (y * w)[:, np.newaxis]\nc2 = np.sin(y)\nt2 = (y * w)[:, np.newaxis]\nz = t1 + t2",
     ("t1", "t2"), "q[0] = 1\nc = y * 2\nt1 = (y * w)[:, np.newaxis]\nc2 = np.sin(y)\nz = t1 + t1"),
    ("t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nt3 = (y - w)[:, np.newaxis]\n"
     "t4 = (y - w)[:, np.newaxis]\nz = t1 + t2 + t3 + t4", ("t1", "t2", "t3", "t4"),
     "t1 = (y * w)[:, np.newaxis]\nt3 = (y - w)[:, np.newaxis]\nz = t1 + t1 + t3 + t3"),
    # ... not where what it reads changes in between (then a later pair still merges), nor
    # where one is handed to code that may write into it
    ("t1 = (y * w)[:, np.newaxis]\ny[0] = 5.0\nt2 = (y * w)[:, np.newaxis]\nz = t1 + t2", ("t1", "t2"),
     "t1 = (y * w)[:, np.newaxis]\ny[0] = 5.0\nt2 = (y * w)[:, np.newaxis]\nz = t1 + t2"),
    ("t1 = (y * w)[:, np.newaxis]\ny = y + 1\nt2 = (y * w)[:, np.newaxis]\nt3 = (y - w)[:, np.newaxis]\n"
     "t4 = (y - w)[:, np.newaxis]\nz = t1 + t2 + t3 + t4", ("t1", "t2", "t3", "t4"),
     "t1 = (y * w)[:, np.newaxis]\ny = y + 1\nt2 = (y * w)[:, np.newaxis]\nt3 = (y - w)[:, np.newaxis]\n"
     "z = t1 + t2 + t3 + t3"),
    ("t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nz = g(t1, t2)", ("t1", "t2"),
     "t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nz = g(t1, t2)"),
    # ... not a name the user wrote, one the checks read, or one written again
    ("t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nz = t1 + t2", ("t1",),
     "t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nz = t1 + t2"),
    ("t1 = (y * w)[:, np.newaxis]\nz = y + 1", (), "t1 = (y * w)[:, np.newaxis]\nz = y + 1"),
    ("t1 = (y * w)[:, np.newaxis]\nz = y + 1", ("t1",), "t1 = (y * w)[:, np.newaxis]\nz = y + 1", ("t1",)),
    ("t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nt2 += 1\nz = t1 + t2", ("t1", "t2"),
     "t1 = (y * w)[:, np.newaxis]\nt2 = (y * w)[:, np.newaxis]\nt2 += 1\nz = t1 + t2"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0].split("\n")[0][:60] for c in CASES])
def test_common_subexpressions(case):
    before, fresh, after, *outside = case
    assert _cse(before, fresh, outside[0] if outside else ()) == after


QUADRANTS = textwrap.dedent("""\
    import numpy as np


    def quadrants(xs, ys):
        codes = []
        for k in range(len(xs)):
            if xs[k] < 0 and ys[k] < 0:
                codes.append(0)
            elif xs[k] < 0 and ys[k] >= 0:
                codes.append(1)
            elif xs[k] >= 0 and ys[k] < 0:
                codes.append(2)
            else:
                codes.append(3)
        return np.array(codes)
    """)

CENTROIDS = textwrap.dedent("""\
    import numpy as np


    def centroids(points, labels, k):
        centres = []
        for cid in range(k):
            members = np.compress(labels == cid, points, axis=0)
            centres.append(members.mean(axis=0))
        return np.stack(centres)
    """)


def _run(code: str, name: str, *args):
    scope: dict = {}
    exec(compile(code, "<code>", "exec"), scope)
    return scope[name](*args)


def test_if_elif_chain_reads_each_converted_array_once():
    """Three arms of nested `where`s each compared `np.asarray(xs)` and `np.asarray(ys)[:len(xs)]`
    anew; each is now bound once, and the result is the loop's."""
    result = transpile_source(QUADRANTS, "m.py")
    assert result.plans[0].rewritten
    code = result.code
    batched = code[code.index(":\n", code.index("# pforge:")):code.index("else:")]
    assert batched.count("np.asarray(xs)") == 1 and batched.count("np.asarray(ys)[:len(xs)]") == 1, code
    assert "xs_array = np.asarray(xs)" in batched and "ys_mask = ys_part < 0" in batched
    rng = np.random.default_rng(0)
    for n in (1, 7, 30):
        xs, ys = rng.integers(-3, 3, n).astype(float), rng.integers(-3, 3, n + 2).astype(float)
        for args in ((xs, ys), (list(xs), list(ys))):
            got, want = _run(code, "quadrants", *args), _run(QUADRANTS, "quadrants", *args)
            assert got.dtype == want.dtype and np.array_equal(got, want)


def test_a_mask_used_as_values_and_as_where_is_bound_once():
    # (where the sum may not be reassociated: the masked mean, which adds in the loop's order;
    # else the contraction, which reads the mask twice too, in the sum and in the count)
    for unsafe, form in ((False, "np.where(labels_mask, points, 0), axis=1, where=labels_mask)"),
                         (True, "np.einsum('ak,kl->al', selected, points, optimize=True) / "
                                "np.sum(selected, axis=-1, dtype=points.dtype)[:, np.newaxis]")):
        result = transpile_source(CENTROIDS, "m.py", unsafe=unsafe)
        assert result.plans[0].rewritten
        code = result.code
        assert code.count("labels == cid[:, np.newaxis]") == 1, code
        assert form in code, code
        rng = np.random.default_rng(1)
        points, labels = rng.standard_normal((40, 3)), rng.integers(0, 4, 40)
        labels[:4] = np.arange(4)
        got, want = _run(code, "centroids", points, labels, 4), _run(CENTROIDS, "centroids", points, labels, 4)
        if unsafe:
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        else:
            np.testing.assert_array_equal(got, want)


BLOCKS = textwrap.dedent("""\
    import tensorflow as tf


    def block_sums(x, y, n_micro: int):
        tf.debugging.assert_equal(tf.shape(x)[0], tf.shape(y)[0])
        size = x.shape[0] // n_micro
        total = tf.zeros_like(x[0])
        for m in range(n_micro):
            xb = x[m * size:(m + 1) * size]
            yb = y[m * size:(m + 1) * size]
            total = total + tf.reduce_sum(tf.tanh(xb) * yb[:, tf.newaxis], axis=0)
        return total
    """)


def test_the_pfor_backend_binds_the_blocks_bounds_once(tf):
    """Microbatches through `tf.vectorized_map`: the reshape of `x` and `y` into blocks spelled
    the clamped block count and size four times each; each is bound once, before the body."""
    result = transpile_source(BLOCKS, "m.py", backend="pfor")
    assert result.plans[0].rewritten and "tf.vectorized_map" in result.code, result.plans[0].remarks
    code = result.code
    assert code.count("tf.maximum(n_micro, 0)") == 1 and code.count("tf.maximum(size, 0)") == 1, code
    rng = np.random.default_rng(2)
    x, y = tf.constant(rng.standard_normal((12, 3))), tf.constant(rng.standard_normal(12))
    for n_micro in (1, 3, 4, 5):
        np.testing.assert_allclose(_run(code, "block_sums", x, y, n_micro).numpy(),
                                   _run(BLOCKS, "block_sums", x, y, n_micro).numpy(), rtol=1e-12)


def test_occurrences_with_other_clamp_marks_are_two_values():
    """Versioning prints a clamp the printer marked (``pforge_clamp``) without its
    ``np.maximum``, so two spellings of one expression with other marks are two values: each
    is bound with the occurrences marked as it is."""
    text = "a = r[:np.maximum(len(b) - 1, 0)] * 2\nc = d[:np.maximum(len(b) - 1, 0)] + e[:np.maximum(len(b) - 1, 0)]"
    for marks, after in (((True, True, True), "b_stop = np.maximum(len(b) - 1, 0)\na = r[:b_stop] * 2\nc = d[:b_stop] + e[:b_stop]"),
                         ((True, None, True), "b_stop = np.maximum(len(b) - 1, 0)\na = r[:b_stop] * 2\n"
                                              "c = d[:np.maximum(len(b) - 1, 0)] + e[:b_stop]")):
        stmts = gast.parse(text).body
        clamps = [n for s in stmts for n in gast.walk(s) if isinstance(n, gast.Call) and getattr(n.func, "attr", "") == "maximum"]
        for call, mark in zip(clamps, marks):
            if mark is not None:  # (None: no mark at all, as the printer leaves most calls)
                call.pforge_clamp = mark
        bind_common_subexpressions(stmts, Namer(gast.parse(text)), IMPORTS, set(), set())
        assert "\n".join(gast.unparse(s).strip() for s in stmts) == after
