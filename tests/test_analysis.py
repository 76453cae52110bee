"""Table-driven verdicts: each small loop gets exactly the expected remark codes."""

from __future__ import annotations

import textwrap

import pytest

from pforge.transpile import analyze_source, transpile_source

HEADER = "import numpy as np\nimport tensorflow as tf\n\n"


def first_unit(body: str, module: str = ""):
    """The plan of the first loop unit of ``f`` (the body is indented into a function)."""
    source = (HEADER + textwrap.dedent(module) + "\ndef f(x, y, w, n, idx, v):\n"
              + textwrap.indent(textwrap.dedent(body), "    "))
    plans = analyze_source(source, "t.py")
    assert plans, "no loop found"
    return plans[0]


VECTORIZABLE = [
    pytest.param("""
        out = [0.0]
        for i in range(n):
            out.append(x[i])
        out.append(1.0)
        return out, len(out)
        """, "PF101", id="list-extended-by-the-loop"),
    pytest.param("""
        outs = []
        for i in range(x.shape[0]):
            outs.append(tf.nn.relu(x[i] @ w))
        return tf.stack(outs)
        """, "PF101", id="collector-map"),
    pytest.param("""
        s = 0.0
        for i in range(n):
            s += tf.reduce_sum(x[i])
        return s
        """, "PF102", id="sum-reduction"),
    pytest.param("""
        s = 0.0
        for i in range(n):
            s = s + x[i]
        return s
        """, "PF102", id="sum-reduction-spelled-out"),
    pytest.param("""
        best = -1e9
        for i in range(n):
            best = tf.maximum(best, x[i])
        return best
        """, "PF102", id="max-reduction"),
    pytest.param("""
        p = 1.0
        for i in range(n):
            p *= x[i]
        return p
        """, "PF102", id="product-reduction"),
    pytest.param("""
        c = 0
        for i in range(n):
            if x[i] > 0:
                c += 1
        return c
        """, "PF102", id="count-under-if"),
    pytest.param("""
        kept = []
        for i in range(n):
            if tf.reduce_max(x[i]) > 0.5:
                kept.append(x[i])
        return tf.stack(kept)
        """, "PF103", id="filter"),
    pytest.param("""
        out = []
        for i in range(n):
            if x[i] > 0:
                out.append(x[i])
            else:
                out.append(-x[i])
        return tf.stack(out)
        """, "PF101", id="if-else-select"),
    pytest.param("""
        out = np.zeros(n)
        for i in range(n):
            out[i] = x[i] * 2
        return out
        """, "PF101", id="indexed-output"),
    pytest.param("""
        for i in range(n - 1):
            x[i] = x[i + 1] + y[i]
        return x
        """, "PF101", id="anti-dependence-is-fine"),
    pytest.param("""
        for i in range(n):
            x[2 * i] = x[2 * i + 1]
        return x
        """, "PF101", id="gcd-no-integer-solution"),
    pytest.param("""
        counts = np.zeros(10)
        for i in range(n):
            counts[idx[i]] += 1
        return counts
        """, "PF104", id="scatter-add"),
    pytest.param("""
        out = np.zeros((n, n))
        for i in range(n):
            for j in range(i):
                out[i, j] = x[i] * y[j]
        return out
        """, "PF101", id="triangular-nest"),
    pytest.param("""
        grads = []
        for i in range(n):
            with tf.GradientTape() as tape:
                tape.watch(w)
                loss = tf.reduce_sum(x[i] @ w)
            grads.append(tape.gradient(loss, w))
        return tf.stack(grads)
        """, "PF105", id="per-example-gradient"),
    pytest.param("""
        out = []
        for a, b in zip(x, y):
            out.append(a * b)
        return tf.stack(out)
        """, "PF101", id="zip"),
    pytest.param("""
        out = []
        for k, r in enumerate(x):
            out.append(r * k)
        return tf.stack(out)
        """, "PF101", id="enumerate"),
    pytest.param("""
        ta = tf.TensorArray(tf.float32, size=n)
        for i in range(n):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack()
        """, "PF101", id="tensorarray"),
    pytest.param("""
        out = []
        for i in tf.range(n):
            out.append(x[i])
        return tf.stack(out)
        """, "PF101", id="tf-range"),
    pytest.param("""
        out = []
        for i in range(n):
            if x[i] < 0:
                continue
            out.append(x[i])
        return tf.stack(out)
        """, "PF103", id="continue-becomes-filter"),
    pytest.param("""
        out = []
        for i in range(n):
            h = x[i] * 2
            out.append(h + 1)
        return tf.stack(out)
        """, "PF101", id="private-temporary"),
    pytest.param("""
        table = np.zeros(n)
        c = 3
        for i in range(n):
            table[i] = y[min(c, 5)]
            c = c + 1
        return table
        """, "PF101", id="derived-induction"),
    pytest.param("""
        out = np.empty(n)
        for r in range(n):
            row = x[r].copy()
            row[idx[r]] = 0.0
            out[r] = row.sum()
        return out
        """, "PF101", id="write-to-fresh-private-copy"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(helper(x[i]))
        return tf.stack(out)
        """, "PF101", id="pure-local-callee"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(model(x[i]))  # pforge: pure
        return tf.stack(out)
        """, "PF101", id="waived-unknown-callee"),
    pytest.param("""
        s = 0.0
        for i in range(n):
            s -= x[i]
        return s
        """, "PF102", id="minus-reduction"),
    pytest.param("""
        lo = 1e9
        for i in range(n):
            lo = min(lo, y[i])
        return lo
        """, "PF102", id="builtin-min-reduction"),
    pytest.param("""
        ok = True
        for i in range(n):
            ok = ok and y[i] > 0
        return ok
        """, "PF102", id="and-reduction"),
    pytest.param("""
        out = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                out[j, i] = x[i] + y[j]
        return out
        """, "PF101", id="transposed-write"),
    pytest.param("""
        out = np.zeros(n)
        for i in range(n):
            acc = 0.0
            for k in range(n):
                acc += x[i, k] * y[k]
            out[i] = acc
        return out
        """, "PF101", id="dot-product-accumulator"),
    pytest.param("""
        for j in range(n):
            x[:, j] += y
        return x
        """, "PF101", id="column-in-place"),
    pytest.param("""
        out = np.zeros(n)
        for i in range(n - 1, -1, -1):
            out[i] = x[i] * 2
        return out
        """, "PF101", id="negative-step"),
    pytest.param("""
        out = []
        for r in x:
            out.append(r.sum())
        return np.array(out)
        """, "PF101", id="rows-numpy-method"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(tf.random.stateless_normal([3], seed=[1, i]))
        return tf.stack(out)
        """, "PF101", id="stateless-random-is-fine"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(x[i] + tf.random.normal([3]))  # pforge: random-ok
        return tf.stack(out)
        """, "PF101", id="stateful-random-opted-in"),
    pytest.param("""
        out = np.zeros(n)
        for i in range(n):
            out[i] = x[idx[i]]
        return out
        """, "PF101", id="data-dependent-read"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(x[i])
            out.append(y[i])
        return np.array(out)
        """, "PF101", id="two-appends-still-a-collector"),
]


VECTORIZABLE += [
    pytest.param("""
        best = -np.inf
        idx = -1
        for i in range(n):
            v = np.sum(x[i])
            if v > best:
                best, idx = v, i
        return best, idx
        """, "PF102", id="argmax-tracking"),
    pytest.param("""
        low, where = np.inf, 0
        for i in range(n):
            if low >= x[i]:
                low = x[i]
                where = i
        return low, where
        """, "PF102", id="argmin-tracking-mirrored-two-assignments"),
    pytest.param("""
        for i in range(x.shape[0]):
            x[i] = x[i] * 2
        return x
        """, "PF101", id="argument-updated-in-place"),
    pytest.param("""
        c = x[1:]
        for i in range(n):
            c[i] = c[i] + y[i]
        return x
        """, "PF101", id="writes-through-a-view-only"),
    pytest.param("""
        out = np.zeros_like(x)
        for i in range(n):
            for j in range(i):
                out[i, j] = x[i] * x[j]
        return out
        """, "PF101", id="triangular-inner-bound"),
]

#: Loops written as expressions: comprehensions and tf.map_fn (the remark of the first unit).
VECTORIZABLE += [
    pytest.param("return tf.stack([tf.nn.relu(x[i]) for i in range(n)])\n", "PF101",
                 id="list-comprehension-map"),
    pytest.param("return np.array([v * 2 for v in x if v > 0])\n", "PF103",
                 id="list-comprehension-filter"),
    pytest.param("return {k: np.tanh(x[k]) for k in range(n)}\n", "PF101", id="dict-comprehension"),
    pytest.param("return tf.map_fn(lambda r: tf.nn.relu(r * 2.0), x)\n", "PF101",
                 id="map-fn-pure-lambda"),
    pytest.param("return tf.map_fn(helper, x)\n", "PF101", id="map-fn-pure-module-function"),
]

MODULE = """
def helper(t):
    return t * 2

def noisy(t):
    print(t)
    return t
"""


@pytest.mark.parametrize("body, code", VECTORIZABLE)
def test_vectorizable(body, code):
    """The verdict is vectorizable and ``code`` is the one remark."""
    plan = first_unit(body, MODULE)
    assert plan.vectorizable, plan.remarks
    assert [r.code for r in plan.remarks] == [code], plan.remarks


REFUSED = [
    pytest.param("""
        h = 0.0
        for t in range(n):
            h = tf.tanh(h * w + x[t])
        return h
        """, "PF201", id="carried-scalar"),
    pytest.param("""
        for i in range(1, n):
            x[i] = x[i - 1] * x[i - 1] * 0.5 + y[i]
        return x
        """, "PF202", id="flow-dependence-distance-1"),
    pytest.param("""
        for i in range(2, n):
            x[i] = x[i - 1] + x[i - 2]
        return x
        """, "PF202", id="fibonacci-array"),
    pytest.param("""
        for i in range(n - 1, 0, -1):
            x[i - 1] = x[i] * x[i] + 1
        return x
        """, "PF202", id="flow-dependence-negative-step"),
    pytest.param("""
        for i in range(n):
            x[idx[i]] = y[i]
        return x
        """, "PF203", id="scatter-may-collide"),
    pytest.param("""
        for i in range(n):
            x[i] = x[idx[v] + i]
        return x
        """, "PF203", id="distance-of-data"),
    pytest.param("""
        for i in range(n):
            x[0] = y[i]
        return x
        """, "PF203", id="same-element-every-iteration"),
    pytest.param("""
        for i in range(n):
            x[i] = x.sum()
        return x
        """, "PF203", id="reads-whole-array"),
    pytest.param("""
        for i in range(n):
            row = x[i]
            row[0] = 1.0
        return x
        """, "PF203", id="write-through-view"),
    pytest.param("""
        out = []
        for i in range(n):
            if x[i] < 0:
                break
            out.append(x[i])
        return tf.stack(out)
        """, "PF204", id="break"),
    pytest.param("""
        for i in range(n):
            if x[i] < 0:
                return i
        return -1
        """, "PF204", id="return"),
    pytest.param("""
        out = []
        for i in range(n):
            print(i)
            out.append(x[i])
        return tf.stack(out)
        """, "PF205", id="print"),
    pytest.param("""
        out = []
        for i in range(n):
            tf.print(x[i])
            out.append(x[i])
        return tf.stack(out)
        """, "PF205", id="tf-print"),
    pytest.param("""
        for i in range(n):
            w.assign_add(x[i])
        return w
        """, "PF205", id="variable-assign"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(x[i] + len(out))
        return out
        """, "PF205", id="list-read-in-the-loop"),
    pytest.param("""
        for i in range(n):
            w.last = x[i]
        return w
        """, "PF206", id="attribute-write"),
    pytest.param("""
        while tf.reduce_sum(x) > 1.0:
            x = x * 0.5
        return x
        """, "PF207", id="data-dependent-while"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(x[i] + tf.random.normal([3]))
        return tf.stack(out)
        """, "PF208", id="stateful-random"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(np.random.rand() * y[i])
        return np.array(out)
        """, "PF208", id="numpy-random"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(x[i].numpy() * 2)
        return tf.stack(out)
        """, "PF209", id="host-conversion"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(model(x[i]))
        return tf.stack(out)
        """, "PF210", id="unknown-callee"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(noisy(x[i]))
        return tf.stack(out)
        """, "PF205", id="impure-local-callee"),
    pytest.param("""
        for i in range(n):
            try:
                x[i] = y[i]
            except ValueError:
                pass
        return x
        """, "PF211", id="try"),
    pytest.param("""
        for i in range(n):
            h = x[i] * 2
            if x[i] > 0:
                h = x[i]
        return h
        """, "PF212", id="private-used-after-loop"),
    pytest.param("""
        out = []
        for k, val in w.items():
            out.append(val)
        return tf.stack(out)
        """, "PF213", id="dict-items"),
    pytest.param("""
        arr = tf.TensorArray(tf.float32, size=n)
        for i in range(2, n):
            arr = arr.write(i, arr.read(i - 1) + arr.read(i - 2))
        return arr.stack()
        """, "PF202", id="tensorarray-recurrence"),
    pytest.param("""
        for i in range(n):
            np.copyto(x, y)
        return x
        """, "PF205", id="numpy-out-write"),
    pytest.param("""
        for i in range(n):
            x[i + 1] = x[i] * x[i] * 2
        return x
        """, "PF202", id="writes-ahead-reads-behind"),
    pytest.param("""
        for i in range(n):
            x[i] = y[i]
            x[i + 1] = y[i] + x[i]
        return x
        """, "PF203", id="output-dependence"),
    pytest.param("""
        total = 0.0
        for i in range(n):
            total = total * total * 0.9 + x[i]
        return total
        """, "PF201", id="squared-decay-is-carried"),
    pytest.param("""
        out = []
        for i in range(n):
            out.append(x[i] + len(out))
        return np.array(out)
        """, "PF205", id="collector-read-in-loop"),
    pytest.param("""
        c = x
        for i in range(1, n):
            c[i] = x[i - 1] + y[i]
        return x
        """, "PF202", id="alias-hides-recurrence"),
    pytest.param("""
        c = x
        d = c
        for i in range(1, n):
            d[i] = x[i - 1] * 2
        return x
        """, "PF202", id="alias-chain-hides-recurrence"),
    pytest.param("""
        c = x[1:]
        for i in range(n - 1):
            c[i] = x[i] + y[i]
        return x
        """, "PF203", id="write-through-view-read-original"),
    pytest.param("""
        t = x.T
        for i in range(n):
            x[i] = t[i] * 2
        return x
        """, "PF203", id="transpose-view-read-while-written"),
    pytest.param("""
        best = -np.inf
        idx = -1
        for i in range(n):
            if x[i] > best:
                best, idx = x[i], idx + 1
        return best, idx
        """, "PF201", id="argmax-lookalike-counting-is-carried"),
    pytest.param("""
        best = -np.inf
        idx = -1
        for i in range(n):
            if x[i] > best:
                best = y[i]
                idx = i
        return best, idx
        """, "PF201", id="argmax-lookalike-other-value-is-carried"),
]


REFUSED += [
    pytest.param("return np.array([noisy(v) for v in x])\n", "PF205", id="comprehension-with-print"),
    pytest.param("return np.array([(t := np.tanh(v)) for v in x])\n", "PF206",
                 id="comprehension-walrus"),
    pytest.param("return np.array([np.outer(a, b) for a in x for b in y])\n", "PF213",
                 id="comprehension-two-for"),
    pytest.param("return tf.map_fn(lambda r: tf.print(r), x)\n", "PF205", id="map-fn-print"),
    pytest.param("return tf.map_fn(lambda r: r + tf.random.normal([3]), x)\n", "PF208",
                 id="map-fn-random"),
    pytest.param("return tf.map_fn(noisy, x)\n", "PF205", id="map-fn-impure-module-function"),
    pytest.param("return tf.map_fn(unknown_fn, x)\n", "PF210", id="map-fn-unknown-callee"),
]


#: Found by an adversarial pass: loops with a real dependence that once looked independent.
REFUSED += [
    pytest.param("""
        b = helper(x)
        for i in range(1, n):
            b[i] = x[i - 1] + 1
        return x
        """, "PF203", id="alias-through-a-call-pforge-cannot-trace"),
    pytest.param("""
        b = np.reshape(x, -1)
        for i in range(1, n):
            b[i] = x[i - 1] + 1
        return x
        """, "PF203", id="alias-np-reshape-view"),
    pytest.param("""
        b = np.flip(x)
        for i in range(n):
            b[i] = x[i] + 1
        return x
        """, "PF203", id="alias-np-flip-view"),
    pytest.param("""
        d = {"k": x}
        b = d["k"]
        for i in range(1, n):
            b[i] = x[i - 1] + 1
        return x
        """, "PF203", id="alias-through-a-dict"),
    pytest.param("""
        b, *rest = x, x
        for i in range(1, n):
            b[i] = rest[0][i - 1] + 1
        return x
        """, "PF203", id="alias-star-unpacking"),
    pytest.param("""
        arrs = [x]
        for i in range(1, n):
            arrs[0][i] = x[i - 1] + 1
        return x
        """, "PF203", id="alias-list-element"),
    pytest.param("""
        for i in range(1, n):
            r = x[i]
            r += x[i - 1]
        return x
        """, "PF203", id="augmented-assignment-through-a-row-view"),
    pytest.param("""
        acc = np.zeros(3)
        view = acc
        for i in range(n):
            acc += x[i]
            y[i] = view.sum()
        return y
        """, "PF201", id="accumulator-read-through-an-alias"),
    pytest.param("""
        for i in range(n):
            x[i - 2] = x[i] * 2 + 1
        return x
        """, "PF203", id="negative-index-wraps-around"),
    pytest.param("""
        for i in range(n - 1, -1, -1):
            x[i] = x[i - 1] + 1
        return x
        """, "PF203", id="negative-index-wraps-around-backwards"),
    pytest.param("""
        s = ""
        for i in range(n):
            s += str(x[i])
        return s
        """, "PF201", id="string-concatenation-is-ordered"),
    pytest.param("""
        s = []
        for i in range(n):
            s = s + [np.tanh(x[i])]
        return s
        """, "PF201", id="list-concatenation-is-ordered"),
    pytest.param("""
        s = 0.0
        for i in range(n):
            s = s or np.sum(x[i])
        return s
        """, "PF201", id="or-of-floats-returns-an-operand"),
    pytest.param("""
        out = []
        for i in range(n):
            assert i < 100
            out.append(x[i])
        return np.array(out)
        """, "PF204", id="assert-ends-the-loop"),
    pytest.param("""
        k = 0.0
        def bump():
            nonlocal k
            k += 1.0
            return k
        outs = []
        for i in range(n):
            outs.append(x[i] * bump())
        return tf.stack(outs)
        """, "PF205", id="closure-writes-nonlocal"),
    pytest.param("""
        box = [0.0]
        def bump():
            box[0] += 1.0
            return box[0]
        outs = []
        for i in range(n):
            outs.append(x[i] * bump())
        return tf.stack(outs)
        """, "PF205", id="closure-mutates-a-captured-list"),
    pytest.param("""
        prev = [0.0]
        def g(r):
            prev[0] = prev[0] + r
            return prev[0]
        return tf.map_fn(g, x)
        """, "PF205", id="map-fn-closure-carries-state"),
]


#: A third adversarial pass.
REFUSED += [
    pytest.param("""
        s = x[-1]
        for i in range(n):
            s += x[i]
        return s.copy()
        """, "PF201", id="accumulator-is-a-view-of-the-input"),
    pytest.param("""
        out = np.zeros_like(x)
        def prev(i):
            return out[i - 1]
        for i in range(1, n):
            out[i] = prev(i) + x[i]
        return out
        """, "PF203", id="closure-reads-what-the-loop-writes"),
    pytest.param("""
        out = np.zeros_like(x)
        prev = lambda i: out[i - 1]
        for i in range(1, n):
            out[i] = prev(i) + x[i]
        return out
        """, "PF203", id="lambda-reads-what-the-loop-writes"),
]


#: Statements the analysis does not model, in the body: the loop is kept.
REFUSED += [
    pytest.param("""
        out = []
        for i in range(n):
            match v:
                case "double":
                    out.append(x[i] * 2)
                case _:
                    out.append(x[i])
        return np.array(out)
        """, "PF211", id="match-in-the-body"),
    pytest.param("""
        out = []
        for i in range(n):
            try:
                out.append(x[i] * 2)
            except* ValueError:
                pass
        return np.array(out)
        """, "PF211", id="try-except-star-in-the-body"),
]

#: Rows that are one object repeated (list repetition): writing through one row writes them all.
SHARED_ROWS = [
    pytest.param("r = [[1.0] * n] * n", "r[i][j] = x[i] * j", id="list-of-a-repeated-list"),
    pytest.param("r = [[1.0] * n] * n", "r[i][j] += x[i] * j", id="augmented-write"),
    pytest.param("r = n * [[1.0] * n]", "r[i][j] = x[i] * j", id="repetition-on-the-left"),
    pytest.param("row = [0.0] * n\nr = [row] * n", "r[i][j] = x[i] * j", id="repeated-name"),
    pytest.param("r = [v] * n", "r[i][j] = x[i] * j", id="repeated-argument"),
    pytest.param("r = [v for _ in range(n)]", "r[i][j] = x[i] * j", id="comprehension-of-one-list"),
    pytest.param("r = [v, v, v]", "r[i][j] = x[i] * j", id="display-of-one-list"),
    pytest.param("r = [np.zeros(n)] * n", "r[i][j] = x[i] * j", id="repeated-array"),
    pytest.param("r = list([[1.0] * n] * n)", "r[i][j] = x[i] * j", id="shallow-copy"),
    pytest.param("q = [[1.0] * n] * n\nr = q", "r[i][j] = x[i] * j", id="through-an-alias"),
    pytest.param("r = [[[0.0] * n] * n] * n", "r[i][j][0] = x[i] * j", id="three-levels"),
    pytest.param("r = [[[0.0] * n] * n for _ in range(n)]", "r[j][i][0] = x[i] * j",
                 id="repeated-inside-distinct-rows"),
    pytest.param("r = [[1.0] * n] * n", "r[i][0] = x[i] * j", id="one-column"),
]
REFUSED += [pytest.param(f"{p.values[0]}\nfor i in range(n):\n    for j in range(n):\n"
                         f"        {p.values[1]}\nreturn r\n", "PF203", id=f"shared-rows-{p.id}")
            for p in SHARED_ROWS]


@pytest.mark.parametrize("init, write", SHARED_ROWS)
def test_shared_rows_remark_names_the_variable(init, write):
    body = f"{init}\nfor i in range(n):\n    for j in range(n):\n        {write}\nreturn r\n"
    source = HEADER + "def f(x, n, v):\n" + textwrap.indent(body, "    ")
    outer = analyze_source(source, "t.py")[0]
    assert any(r.code == "PF203" and r.message.startswith("`r`: its rows are one shared object (`")
               for r in outer.remarks), outer.remarks

VECTORIZABLE += [
    pytest.param(f"{init}\nfor i in range(n):\n    for j in range(n):\n        r[i][j] = x[i] * j\n"
                 "return r\n", "PF101", id=name)
    for init, name in [("r = [[1.0] * n for _ in range(n)]", "distinct-rows-comprehension"),
                       ("r = [list(v) for _ in range(n)]", "distinct-copies-of-one-list"),
                       ("r = [[[0.0] * n] * n for _ in range(n)]", "distinct-rows-repeated-inside")]]


@pytest.mark.parametrize("body, code", REFUSED)
def test_refused(body, code):
    plan = first_unit(body, MODULE)
    got = sorted({r.code for r in plan.remarks})
    assert not plan.vectorizable, plan.remarks
    assert code in got
    assert all(c.startswith("PF2") for c in got), got


def test_a_symbolic_distance_is_vectorizable_under_a_run_time_check():
    """`x[i] = x[i + v]`: no dependence where `v == 0` or `abs(v)` reaches the trip count, and
    no index below zero; the analysis records that condition for the rewrite to check."""
    plan = first_unit("""
        for i in range(n):
            x[i] = x[i + v]
        return x
        """, MODULE)
    assert plan.vectorizable, plan.remarks
    assert any("no dependence where `(v == 0 or abs(v) >= n) and v >= 0 and (n - 1 + v >= 0)`, checked at run time"
               in d for level in plan.levels for d in level.dependences), plan.levels


def test_outer_blocked_inner_flagged():
    """A carried time loop around an independent batch loop: the inner loop is its own unit."""
    source = HEADER + textwrap.dedent("""
        def f(x, w, n):
            h = tf.zeros([4])
            for t in range(n):
                rows = []
                for b in range(4):
                    rows.append(x[t, b] * 2.0)
                h = tf.tanh(h + tf.stack(rows))
            return h
        """)
    plans = analyze_source(source, "t.py")
    assert [p.vectorizable for p in plans] == [False, True]
    assert plans[0].remarks[0].code == "PF201"


def test_shared_rows_remark_and_the_inner_loop():
    source = HEADER + textwrap.dedent("""
        def f(x, n):
            r = [[1.0] * n] * n
            for i in range(n):
                for j in range(n):
                    r[i][j] = x[i] * j
            return r
        """)
    outer, inner = analyze_source(source, "t.py")
    (remark,) = outer.remarks
    assert (remark.code, remark.lineno) == ("PF203", 9)
    assert remark.message.startswith("`r`: its rows are one shared object (`[[1.0] * n] * n` at "
                                     "line 6 repeats it), so `r[i][j]` writes into that one object")
    # Within one row the iterations write distinct elements: the inner loop is its own unit.
    assert inner.lineno == 8 and inner.vectorizable


@pytest.mark.parametrize("read, code", [("r[1][j - 1]", "PF202"), ("r[1][j]", "PF101")])
def test_one_row_of_shared_rows_is_one_list(read, code):
    """`r[0]` and `r[1]` are one list: the dependence test sees `r[1][j - 1]` as the element the
    previous iteration wrote through `r[0][j - 1]`."""
    source = HEADER + textwrap.dedent(f"""
        def f(x, n):
            r = [[0.0] * n] * n
            for j in range(1, n):
                r[0][j] = {read} + x[j]
            return r
        """)
    (plan,) = analyze_source(source, "t.py")
    assert [r.code for r in plan.remarks] == [code]


def test_explain_levels_and_classes():
    source = HEADER + textwrap.dedent("""
        def f(mat, lengths):
            totals = []
            for i in range(mat.shape[0]):
                row = mat[i]
                acc = tf.constant(0.0)
                j = 0
                while j < lengths[i]:
                    acc = acc + row[j]
                    j += 1
                totals.append(acc)
            return tf.stack(totals)
        """)
    (plan,) = analyze_source(source, "t.py")
    outer, inner = plan.levels
    assert dict(outer.classes)["totals"] == "collector"
    assert dict(outer.classes)["row"] == "private"
    assert inner.space.startswith("counted while j in range(0,")
    assert dict(inner.classes)["acc"] == "reduction"
    assert inner.verdict == "reduction"


def test_remarks_name_variable_and_lines():
    source = HEADER + textwrap.dedent("""
        def f(x, n):
            for i in range(1, n):
                x[i] = x[i - 1] * x[i - 1] + 1
            return x
        """)
    (plan,) = analyze_source(source, "t.py")
    (remark,) = plan.remarks
    assert remark.code == "PF202" and remark.lineno == 7
    assert "`x[i - 1]`" in remark.message and "line 7" in remark.message


def test_unparsable_is_a_source_error():
    from pforge.transpile import SourceError

    with pytest.raises(SourceError) as info:
        transpile_source("for i in range(3):\n  x = (\n", "bad.py")
    assert str(info.value).startswith("bad.py:")


def test_alias_dependence_names_both_arrays():
    source = HEADER + textwrap.dedent("""
        def f(a, b):
            c = a
            for i in range(1, a.shape[0]):
                c[i] = a[i - 1] + b[i]
            return a
        """)
    (plan,) = analyze_source(source, "t.py")
    assert any("the same array as `a` (bound at line 6)" in d for d in plan.levels[0].dependences)
    (remark,) = plan.remarks
    assert remark.code == "PF202" and "`a[i - 1]`" in remark.message and "`c` is written" in remark.message


def test_argument_updated_in_place_is_named():
    (plan,) = analyze_source(HEADER + "def f(x):\n    for i in range(3):\n        x[i] = x[i] * 2\n", "t.py")
    assert "indexed output x (an argument, updated in place)" in plan.remarks[0].message


@pytest.mark.parametrize("bound, kind", [
    ("range(i)", "triangular iteration space: the bound `i` depends on `i`, the index of the "
                 "loop at line 7"),
    ("range(i + 1, n)", "triangular iteration space: the bound `i + 1` depends on `i`"),
    ("range(lens[i])", "data-dependent trip count: the bound `lens[i]` is data that changes with "
                       "each iteration of the loop at line 7"),
])
def test_inner_trip_count_is_explained(bound, kind):
    source = HEADER + textwrap.dedent(f"""
        def f(x, lens, n):
            out = np.zeros((n, n))
            for i in range(n):
                for j in {bound}:
                    out[i, j] = x[i] * x[j]
            return out
        """)
    (plan,) = analyze_source(source, "t.py")
    outer, inner = plan.levels
    assert not outer.notes
    assert any(note.startswith(kind) for note in inner.notes), inner.notes


def test_argmax_classes():
    source = HEADER + textwrap.dedent("""
        def f(x):
            best, idx = -np.inf, -1
            for i in range(x.shape[0]):
                if x[i] > best:
                    best, idx = x[i], i
            return best, idx
        """)
    (plan,) = analyze_source(source, "t.py")
    classes = dict(plan.levels[0].classes)
    assert classes["best"] == "reduction" and classes["idx"] == "arg reduction"
    assert "max reduction best, argmax idx of best" in plan.remarks[0].message


@pytest.mark.parametrize("expression", [
    "sum(1 for r in rows if r.ok)",
    "{p.name: p for p in paths}",
    "[print(r) for r in rows]",
    "[tf.convert_to_tensor(t) for t in rows]",  # a list of tensors stays a list
    "{np.sum(v) for v in rows}",
    "sum(np.dot(rows[i], paths[i]) for i in range(3))",
    "{name: tf.reduce_mean(t) for name, t in rows.items()}",
])
def test_comprehensions_that_build_python_values_are_not_units(expression):
    """Only comprehensions whose result becomes an array are remarked on: a linter that
    flagged `[t.name for t in tensors]` would be noise (TensorFlow's own sources hold ~2,000)."""
    source = HEADER + f"def f(rows, paths):\n    return {expression}\n"
    assert analyze_source(source, "t.py") == ()


def test_random_opt_in_is_stated_in_the_remark():
    source = HEADER + "def f(x):\n    out = []\n    for r in x:\n" \
        "        out.append(r + tf.random.normal([3]))  # pforge: random-ok\n    return tf.stack(out)\n"
    (plan,) = analyze_source(source, "t.py")
    assert plan.vectorizable and "random draws opted in" in plan.remarks[0].message


def test_dict_comprehension_with_a_filter_is_analysed():
    (plan,) = analyze_source(HEADER + "def f(x, n):\n    return {k: np.tanh(x[k]) for k in range(n) if k % 2}\n", "t.py")
    assert plan.vectorizable and plan.remarks[0].code == "PF103"


def test_same_named_nested_functions_are_told_apart():
    """Each call reaches its own `bump` through the def-use chains, not the last one by name."""
    source = HEADER + textwrap.dedent("""
        def pure(x):
            def bump(r):
                return r * 2.0
            return tf.stack([bump(r) for r in x])

        def impure(x):
            box = [0.0]
            def bump(r):
                box[0] += 1.0
                return r * box[0]
            return tf.stack([bump(r) for r in x])
        """)
    first, second = analyze_source(source, "t.py")
    assert first.vectorizable
    assert [r.code for r in second.remarks] == ["PF205"]


@pytest.mark.parametrize("code", ["PF101", "PF102", "PF103", "PF104", "PF105", "PF106"])
def test_rule_examples_are_what_the_analysis_reports(code):
    """`pforge rule PF1xx` shows a loop it flags with that code, and the code it becomes."""
    from pforge.transpile import RULES

    rule = RULES[code]
    params = "x, w, n, pred, target, counts, labels, out"
    flagged = analyze_source(HEADER + f"def f({params}):\n" + textwrap.indent(rule.example_bad, "    "), "t.py")
    assert [r.code for p in flagged for r in p.remarks if r.code.startswith("PF1")] == [code]
    accepted = analyze_source(HEADER + f"def f({params}):\n" + textwrap.indent(rule.example_good, "    "), "t.py")
    assert not any(p.vectorizable for p in accepted)


@pytest.mark.parametrize("imports, call, hint", [
    ("import numpy as np\n", "np.tanh", "np.cumsum"),
    ("import tensorflow as tf\n", "tf.tanh", "consider tf.scan"),
    ("from numpy import tanh\n", "tanh", "np.cumsum"),
])
def test_a_recurrence_remark_suggests_the_loops_own_library(imports, call, hint):
    source = imports + textwrap.dedent(f"""
        def f(x, h):
            for i in range(10):
                h = {call}(h + x[i])
            return h
        """)
    messages = [r.message for p in analyze_source(source, "m.py") for r in p.remarks if r.code == "PF201"]
    assert messages and hint in messages[0], messages
    assert ("tf.scan" in messages[0]) == ("tensorflow" in imports)
