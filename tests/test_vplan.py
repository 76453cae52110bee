"""The vector plan: built directly from source, asserted on recipe by recipe.

Each decision both printers share (if-conversion, reduction operators, inner loops) is
tested here on the plan, and once end to end on generated code, where the number check
comes after the assertion that a rewrite happened.
"""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from conftest import assert_exit, assert_same_numbers, invoke, write
from pforge.transpile import transpile_source
from pforge.transpile.analysis import discover
from pforge.transpile.frontend import decode_source
from pforge.transpile.outline import module_context
from pforge.transpile.vplan import OPERATORS, build_plan, if_conversion, inner_loop
from pforge.transpile.vplan import recipes as r


def _roots(source):
    ctx = module_context(decode_source(textwrap.dedent(source), "<test>"))
    return ctx, discover(ctx)


def _plan(source, shapes=None):
    ctx, roots = _roots(source)
    (root,) = roots
    assert root.vectorizable, root.blockers
    return build_plan(ctx, root, shapes)


def _kinds(plan):
    return [type(x).__name__ for x in plan.recipes]


# -- reduction operators: one row per operator ----------------------------------------------------

#: operator -> (the update as written in a loop over x, the initial value, the term the plan
#: records with its sign). Adding an operator to transpile/operators.py adds a row here.
OPERATOR_CASES = {
    "add": ("s -= x[i]", "0.0", "-x[i]"),
    "mul": ("s = s * x[i]", "1.0", "x[i]"),
    "max": ("s = np.maximum(s, x[i])", "-np.inf", "x[i]"),
    "min": ("s = np.minimum(x[i], s)", "np.inf", "x[i]"),
    "logaddexp": ("s = np.logaddexp(s, x[i])", "-np.inf", "x[i]"),
    "or": ("s = s or x[i] > 0", "False", "x[i] > 0"),
    "and": ("s &= x[i] > 0", "True", "x[i] > 0"),
}


def test_every_operator_has_a_case():
    assert set(OPERATOR_CASES) == set(OPERATORS)


@pytest.mark.parametrize("op", sorted(OPERATOR_CASES))
def test_operator_is_recognised_and_recorded(op):
    update, init, term = OPERATOR_CASES[op]
    plan = _plan(f"""
        import numpy as np
        def f(x):
            s = {init}
            for i in range(len(x)):
                {update}
            return s
        """)
    (recipe,) = plan.recipes
    assert isinstance(recipe, r.Reduce)
    assert (recipe.name, recipe.op, recipe.term) == ("s", op, term)
    identity = OPERATORS[op].identity
    assert recipe.identity == (None if identity is None else OPERATORS[op].identity_text)


@pytest.mark.parametrize("op", sorted(OPERATOR_CASES))
def test_operator_rewrite_matches_the_loop(op):
    update, init, _ = OPERATOR_CASES[op]
    source = textwrap.dedent(f"""
        import numpy as np
        def f(x):
            s = {init}
            for i in range(len(x)):
                {update}
            return s
        """)
    result = transpile_source(source, "<op>", shapes={"x": 1})
    assert result.changed, result.plans[0].remarks
    want, got = {}, {}
    exec(compile(source, "<loop>", "exec"), want)
    exec(compile(result.code, "<rewrite>", "exec"), got)
    for x in (np.array([0.5, -2.0, 3.0, 1.5]), np.array([1.0]), np.zeros(0)):
        assert_same_numbers(want["f"](x), got["f"](x), where=f"{op} on {x}")


# -- if-conversion ---------------------------------------------------------------------------------

def _if_of(source):
    ctx, (root,) = _roots(source)
    stmt = next(s for s in root.body if type(s).__name__ == "If")
    return if_conversion(root, root, stmt)


def test_blend_takes_the_old_value_on_the_path_that_does_not_bind():
    found = _if_of("""
        import numpy as np
        def f(x, out):
            for i in range(len(x)):
                v = x[i]
                if v > 0:
                    v = v * 2.0
                out[i] = v
        """)
    (blend,) = found.blends
    assert (blend.name, blend.then, blend.otherwise) == ("v", "branch", "old")
    assert found.hoisted  # the branch binds `v`, which the test reads


def test_test_that_no_branch_writes_is_not_hoisted():
    found = _if_of("""
        def f(x, out):
            for i in range(len(x)):
                v = 0.0
                if x[i] > 0:
                    v = x[i]
                out[i] = v
        """)
    assert not found.hoisted
    assert [(b.name, b.then, b.otherwise) for b in found.blends] == [("v", "branch", "old")]


def test_branch_local_name_is_not_blended():
    found = _if_of("""
        def f(x, out):
            for i in range(len(x)):
                if x[i] > 0:
                    p = x[i] * 2.0
                    out[i] = p
        """)
    assert found.blends == ()
    assert found.local == {"p"}


def test_chain_that_writes_what_it_tests_is_hoisted():
    found = _if_of("""
        def f(d):
            for i in range(len(d)):
                if d[i] > 0:
                    d[i] = -1.0
                elif d[i] < 0:
                    d[i] = 1.0
        """)
    assert found.hoisted and len(found.chain) == 2


def test_appends_are_a_filter_in_one_branch_and_a_select_in_both():
    found = _if_of("""
        import numpy as np
        def f(x):
            kept, either = [], []
            for i in range(len(x)):
                if x[i] > 0:
                    kept.append(x[i])
                    either.append(x[i])
                else:
                    either.append(-x[i])
            return np.stack(kept), np.stack(either)
        """)
    merges = {m.name: (m.how, m.kept_when) for m in found.outputs}
    assert merges == {"kept": ("filter", True), "either": ("select", True)}


def test_reduction_under_if_is_masked_not_blended():
    found = _if_of("""
        def f(x):
            s = 0.0
            for i in range(len(x)):
                if x[i] > 0:
                    s += x[i]
                else:
                    s -= 1.0
            return s
        """)
    assert found.blends == () and found.flows == {"s"}
    assert [(m.name, m.how) for m in found.outputs] == [("s", "masked")]


def test_argmax_tracking_under_if_is_masked_not_blended():
    """`if v > best: best = v; at = t`: the running extreme (a max reduction) and its index
    (the arg reduction's) are masked by the test; neither is blended."""
    found = _if_of("""
        def f(x):
            best = -1.0
            at = -1
            for t in range(len(x)):
                if x[t] > best:
                    best = x[t]
                    at = t
            return best, at
        """)
    assert found.flows == {"best", "at"} and found.blends == ()
    assert [(m.name, m.how) for m in found.outputs] == [("at", "masked"), ("best", "masked")]


def test_a_name_bound_in_one_branch_and_read_there_only_is_not_blended_but_the_next_is():
    """`p` is private to its branch (skipped, `continue`), and `q` after it in sorted order is
    still blended: a `break` there would lose it."""
    found = _if_of("""
        def f(x, y):
            q = 0.0
            for i in range(len(x)):
                if x[i] > 0:
                    p = x[i] * 2.0
                    y[i] = p
                    q = x[i]
                y[i] = y[i] + q
            return y
        """)
    assert [b.name for b in found.blends] == ["q"] and found.local == {"p"} and found.outputs == ()


def test_a_reduction_updated_in_one_branch_only_is_masked():
    found = _if_of("""
        def f(x):
            s = 0.0
            for i in range(len(x)):
                if x[i] > 0:
                    s += x[i]
            return s
        """)
    assert found.flows == {"s"} and [(m.name, m.how) for m in found.outputs] == [("s", "masked")]


def test_plan_orders_mask_branches_then_blends():
    plan = _plan("""
        import numpy as np
        def f(x, out):
            for i in range(len(x)):
                v = x[i]
                if v > 0:
                    v = v * 2.0
                else:
                    v = -v
                out[i] = v
        """)
    assert _kinds(plan) == ["Widen", "MaskOp", "Widen", "Widen", "Blend", "Scatter"]
    mask, then, other = plan.recipes[1:4]
    assert (then.mask, other.mask) == (mask.name, f"not {mask.name}")
    assert plan.recipes[4].then == plan.recipes[4].otherwise == "branch"


# -- inner loops -----------------------------------------------------------------------------------

def test_carried_inner_loop_is_sequential_with_its_state():
    ctx, (root,) = _roots("""
        import tensorflow as tf
        def f(x):
            out = []
            for i in range(x.shape[0]):
                h = x[i]
                for j in range(3):
                    h = tf.tanh(h)
                out.append(h)
            return tf.stack(out)
        """)
    (child,) = root.children
    decision = inner_loop(root, child, {"i", "h"})
    assert (decision.mode, decision.carried, decision.blocker) == ("sequential", ("h",), None)


def test_state_bound_only_inside_a_sequential_loop_blocks_it():
    ctx, (root,) = _roots("""
        import tensorflow as tf
        def f(x, n):
            out = []
            for i in range(x.shape[0]):
                h = x[i]
                for j in range(n):
                    t = tf.tanh(h)
                    h = t
                out.append(t)
            return tf.stack(out)
        """)
    (child,) = root.children
    decision = inner_loop(root, child, {"i", "h"})
    assert decision.mode == "sequential" and "`t` is bound only inside the inner loop" in decision.blocker


def test_triangular_inner_loop_is_vectorized_and_ragged():
    plan = _plan("""
        import numpy as np
        def f(x, out):
            for i in range(len(x)):
                for j in range(i):
                    out[i, j] = x[i] * x[j]
        """)
    (loop,) = plan.recipes
    assert isinstance(loop, r.InnerLoop) and (loop.mode, loop.ragged) == ("vectorized", True)
    assert [type(x).__name__ for x in loop.body] == ["Scatter"]


# -- the masked reduction of an inner loop (found while building the plan) ---------------------------

NESTED_MASKED_SUM = """
import numpy as np

def f(x, c):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            if c[i, j] > 0:
                s += x[i, j]
        out[i] = s
    return out
"""


# -- explain --plan --------------------------------------------------------------------------------

def test_explain_plan_prints_the_recipes(tmp_path):
    path = write(tmp_path, "m.py", NESTED_MASKED_SUM)
    result = invoke("explain", "--plan", "--shapes", "x=2,c=2", str(path))
    assert_exit(result, 0)
    text = result.output
    assert "plan for the loop at line 6: i in range(x.shape[0])" in text
    assert "loop       vectorized j in range(x.shape[1])" in text
    assert "mask       m1 = c[i, j] > 0" in text
    assert "reduce     s <- add of x[i, j], identity 0  [under m1]" in text


def test_explain_without_plan_prints_no_recipes_and_json_has_them_only_when_asked(tmp_path):
    path = write(tmp_path, "m.py", NESTED_MASKED_SUM)
    plain = invoke("explain", "--shapes", "x=2,c=2", str(path))
    assert_exit(plain, 0)
    assert "plan for the loop" not in plain.output
    with_plan = json.loads(invoke("explain", "--plan", "--format", "json", str(path)).output)
    without = json.loads(invoke("explain", "--format", "json", str(path)).output)
    assert with_plan[0]["vector_plan"][0].startswith("plan for the loop at line 6")
    assert "vector_plan" not in without[0]


def test_explain_plan_of_a_refused_loop_says_there_is_none(tmp_path):
    path = write(tmp_path, "m.py", textwrap.dedent("""
        def f(x):
            for i in range(1, len(x)):
                x[i] = x[i - 1] * x[i - 1] + 1
        """))
    result = invoke("explain", "--plan", str(path))
    assert_exit(result, 0)
    assert "no vector plan: the loop is not vectorizable" in result.output
def test_masked_inner_reduction_is_rewritten_and_matches():
    """The direct backend blended ``s`` again after masking its terms, which broadcast the
    per-row sum over the inner axis (``could not broadcast (4, 3) into (4,)``)."""
    result = transpile_source(NESTED_MASKED_SUM, "<nested>", shapes={"x": 2, "c": 2})
    assert result.changed and result.plans[0].backend == "direct", result.plans[0].remarks
    want, got = {}, {}
    exec(compile(NESTED_MASKED_SUM, "<loop>", "exec"), want)
    exec(compile(result.code, "<rewrite>", "exec"), got)
    rng = np.random.default_rng(3)
    for shape in ((4, 3), (1, 5), (3, 1), (0, 2)):
        x, c = rng.normal(size=shape), rng.normal(size=shape)
        assert_same_numbers(want["f"](x, c), got["f"](x, c), where=str(shape))




# -- the if-conversion's decisions, printed by pfor (which takes them from the plan) ----------------

ELSE_ONLY = {
    # bound on the else path only: the then path gives the old value
    "blend-from-the-else-branch": ("def f(x):\n    out = []\n    for i in range(x.shape[0]):\n"
                                   "        v = x[i] * 2.0\n        if x[i] > 0:\n            pass\n"
                                   "        else:\n            v = -x[i]\n        out.append(v + 1.0)\n"
                                   "    return tf.stack(out)\n"),
    # appended on the else path only: a filter that keeps the iterations whose test is false
    "filter-in-the-else-branch": ("def f(x):\n    out = []\n    for i in range(x.shape[0]):\n"
                                  "        if x[i] > 0:\n            pass\n        else:\n"
                                  "            out.append(x[i] * 3.0)\n    return tf.stack(out)\n"),
}


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(ELSE_ONLY))
def test_pfor_prints_the_else_side_of_the_plan(name, tf):
    from pforge.runtime.loader import load_module

    source = "import tensorflow as tf\n\n" + ELSE_ONLY[name]
    result = transpile_source(source, "m.py", backend="pfor")
    assert result.changed and result.plans[0].backend == "pfor", [r.message for r in result.plans[0].remarks]
    before, after = load_module("m.py", source=source).f, load_module("m.py", source=result.code).f
    x = tf.constant([1.0, -2.0, 3.0, -0.5])
    assert_same_numbers(before(x).numpy(), after(x).numpy(), where=result.code)


def test_blend_of_a_name_bound_on_the_else_path_only():
    found = _if_of("""
        def f(x, out):
            for i in range(len(x)):
                v = x[i]
                if x[i] > 0:
                    pass
                else:
                    v = -x[i]
                out[i] = v
        """)
    assert [(b.name, b.then, b.otherwise) for b in found.blends] == [("v", "old", "branch")]
    found = _if_of("""
        def f(x):
            kept = []
            for i in range(len(x)):
                if x[i] > 0:
                    pass
                else:
                    kept.append(x[i])
            return kept
        """)
    assert [(m.name, m.how, m.kept_when) for m in found.outputs] == [("kept", "filter", False)]


@pytest.mark.parametrize("body, recipe", [
    ("s -= x[i] * 2\n                out[i] = s", "s <- running add of -(x[i] * 2) (inclusive), s stacked"),
    ("out[i] = s\n                s = np.maximum(s, x[i])", "s <- running max of x[i] (exclusive), s stacked"),
])
def test_a_scan_is_its_own_recipe(body, recipe):
    """A running value the body reads is a scan recipe, not a widened private."""
    plan = _plan(f"""
        import numpy as np

        def f(x, s):
            out = np.zeros(len(x))
            for i in range(len(x)):
                {body}
            return out, s
        """)
    assert _kinds(plan) == (["Scan", "Scatter"] if body.startswith("s") else ["Scatter", "Scan"])
    assert recipe in [x.text() for x in plan.recipes]
    assert next(v for v in plan.values if v.name == "s").stacked
