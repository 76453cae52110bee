"""Regression tests for crashes found by running ``pforge check`` over the TensorFlow sources,
and for the outline (only the functions that hold a loop are converted to gast): it must give
exactly what the whole module gives.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap

import gast
import pytest

from conftest import GOLDEN, assert_exit, case_files, invoke, sample_files, shared_cases, write
from pforge.transpile import SourceError, transpile_source
from pforge.transpile.analysis import discover
from pforge.transpile.frontend import SourceText, parse, position
from pforge.transpile.outline import (OutlineContext, WholeModuleNeeded, module_context, outline,
                                      whole_module)


def both_ways(source: str, filename: str = "m.py"):
    """The result through the outline and through the whole module."""
    fast = transpile_source(source, filename)
    with whole_module():
        slow = transpile_source(source, filename)
    return fast, slow


def assert_same(source: str, filename: str = "m.py"):
    fast, slow = both_ways(source, filename)
    assert fast.code == slow.code
    assert [dataclasses.asdict(p) for p in fast.plans] == [dataclasses.asdict(p) for p in slow.plans]
    return fast


# --- crashes found on the TensorFlow tree -------------------------------------------------


EXCEPT_AS = textwrap.dedent("""\
    def retry(jobs, run):
        err = None
        for job in jobs:
            if err is not None:
                log(err)
            try:
                run(job)
            except ValueError as err:
                pass
    """)


def test_except_as_name_has_a_position():
    # gast gave the name of `except E as err` no lineno; a remark about it crashed
    # (AttributeError: 'Name' object has no attribute 'lineno', 43 TensorFlow files).
    handler = parse(SourceText("m.py", EXCEPT_AS)).body[0].body[1].body[1].handlers[0]
    assert (handler.name.lineno, handler.name.col_offset) == (8, 8)
    result = transpile_source(EXCEPT_AS, "m.py")
    carried = [r for r in result.remarks if r.code == "PF201"]
    assert carried and "`err` is read at line 4 before it is written at line 8" in carried[0].message


def test_beniget_warnings_are_not_printed(capsys):
    # beniget prints "W: unbound identifier ..." to standard output, which would corrupt
    # `pforge check --output-format json`.
    source = "def f(xs):\n    for x in xs:\n        y = undefined_name + x\n"
    transpile_source(source, "m.py")
    with whole_module():
        transpile_source(source, "m.py")
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_remark_order_does_not_depend_on_hash_seed():
    # Loop targets were iterated as a set: the PF211 remarks came out in a different order
    # from one run to the next (PYTHONHASHSEED), which a cache or a diff of outputs notices.
    source = ("def f(pairs):\n    for alpha, beta, gamma in pairs:\n"
              "        alpha = 1\n        beta = 2\n        gamma = 3\n")
    script = ("import sys; from pforge.transpile import transpile_source\n"
              f"print([r.message for r in transpile_source({source!r}).remarks])")
    outputs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONHASHSEED=str(seed)), check=True).stdout
               for seed in (1, 2, 3, 4)}
    assert len(outputs) == 1
    assert outputs.pop().count("is reassigned in the body") == 3


def test_deep_nesting_is_a_source_error_not_a_crash():
    source = "def f(x):\n    for i in x:\n        y = x" + " + x" * 5000 + "\n"
    with pytest.raises(SourceError, match="nested too deeply"):
        transpile_source(source, "deep.py")


# Nodes without a position of their own: a `case` of a `match` (its pattern has one), and
# `case None:` / `case True:`, which beniget visited as if the constant were a node.
MATCH = textwrap.dedent("""\
    import numpy as np


    def before(cmd, x):
        out = []
        for i in range(len(x)):
            out.append(x[i] * 2)
        match cmd:
            case "a":
                pass
        return np.array(out)


    def after(cmd, x):
        match cmd:
            case "a":
                pass
        out = []
        for i in range(len(x)):
            out.append(x[i] * 2)
        return np.array(out)


    def inside(cmd, x):
        match cmd:
            case None | True | -1:
                return None
            case [first, *rest] if len([c for c in rest if c]) > 0:
                y = np.zeros(len(x))
                for i in range(len(x)):
                    y[i] = x[i] + 1.0
                return y
            case {"k": v, **kw}:
                out = []
                for i in range(len(x)):
                    out.append(x[i] * 0.5)
                return np.array(out)


    def in_body(cmd, x):
        out = []
        for i in range(len(x)):
            match cmd:
                case "a":
                    out.append(x[i] * 2)
                case _:
                    out.append(x[i])
        return np.array(out)


    def in_except_star(x):
        try:
            pass
        except* ValueError:
            out = []
            for i in range(len(x)):
                out.append(x[i] * 3)
            return np.array(out)
    """)


def test_match_statements_are_analysed():
    # `pforge check` crashed on any file with a `match` and a loop (AttributeError:
    # 'match_case' object has no attribute 'lineno'); loops in a case were never found.
    result = assert_same(MATCH)
    verdicts = {p.lineno: (p.vectorizable, sorted({r.code for r in p.remarks})) for p in result.plans}
    assert {line: v for line, (v, _) in verdicts.items()} == {
        6: True, 19: True, 30: True, 35: True, 42: False, 56: True}
    assert verdicts[42][1] == ["PF211"]  # a `match` in the body is not analysed
    # Loops at module level (the whole module is analysed, no outline), one in a case.
    tail = "match len(x):\n    case 3:\n        for k in range(3):\n            match k:\n" \
           "                case 0:\n                    pass\n"
    module_level = assert_same(MATCH + "\nx = [1, 2, 3]\n" + tail)
    first = len(MATCH.splitlines()) + 2
    assert [(p.lineno, p.vectorizable) for p in module_level.plans][-1] == (first + 3, False)


@pytest.mark.parametrize("args, code", [(["check"], 1), (["check", "--refused"], 1),
                                        (["transpile", "--shapes", "x=1"], 0),
                                        (["explain", "--shapes", "x=1"], 0)])
def test_match_statements_on_the_command_line(tmp_path, args, code):
    path = write(tmp_path, "m.py", MATCH)
    result = invoke(*args, path)
    assert_exit(result, code)
    assert "internal error" not in result.output
    if args[0] == "transpile":
        assert result.stdout.count("# pforge: vectorized loop") == 5
        assert "match cmd:" in result.stdout and "case None | True | -1:" in result.stdout
    if args[0] == "explain":
        assert "PF211 match in the loop body is not analysed" in result.stdout


def test_position_of_a_node_without_one():
    case = parse(SourceText("m.py", "match c:\n    case [a, b] if a:\n        pass\n")).body[0].cases[0]
    assert not hasattr(case, "lineno")
    assert position(case) == (2, 9)
    assert position(gast.Module(body=[], type_ignores=[])) is None


# --- the outline gives what the whole module gives ------------------------------------------


GLOBAL_COLLECTOR = textwrap.dedent("""\
    import tensorflow as tf

    results = []


    def fill(xs):
        for x in xs:
            results.append(tf.nn.relu(x))


    def other():
        return 1


    def finish():
        return tf.stack(results)
    """)


def test_a_definition_outside_the_functions_needs_the_whole_module():
    ctx = module_context(SourceText("m.py", GLOBAL_COLLECTOR))
    assert isinstance(ctx, OutlineContext)
    # `other` holds no loop: the outline keeps only a stub of it.
    assert [type(s).__name__ for s in ctx.tree.body][-2:] == ["FunctionDef", "FunctionDef"]
    assert ctx.tree.body[-2].body[0].__class__.__name__ == "Pass"
    with pytest.raises(WholeModuleNeeded):
        discover(ctx)
    result = assert_same(GLOBAL_COLLECTOR)  # the driver retried on the whole module
    assert result.plans


GLOBAL_IN_A_STUB = textwrap.dedent("""\
    import numpy as np


    def setup():
        global table
        table = []


    def fill(xs):
        for x in xs:
            table.append(x * 2)
        return np.stack(table)
    """)


def test_a_name_declared_global_needs_the_whole_module():
    # `setup` holds no loop, so the outline keeps only a stub of it, and with it the one
    # definition of `table`: asking beniget about `table` must not answer from the outline.
    ctx = module_context(SourceText("m.py", GLOBAL_IN_A_STUB))
    assert isinstance(ctx, OutlineContext) and ctx.global_names == {"table"}
    with pytest.raises(WholeModuleNeeded):
        discover(ctx)
    assert_same(GLOBAL_IN_A_STUB)


@pytest.mark.parametrize("source, partial", [
    ("x = 0\nfor i in range(3):\n    x += i\n", False),             # a loop at module level
    ("class C:\n    for i in range(3):\n        pass\n", False),    # a loop in a class body
    ("n = 0\ndef f(xs):\n    global n\n    for x in xs:\n        n += x\n", True),
    ("def f(xs):\n    for x in xs:\n        pass\n", True),
])
def test_when_an_outline_is_used(source, partial):
    assert outline(SourceText("m.py", source)).partial_ok is partial
    assert_same(source)


TRICKY = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf


    def helper(v):
        print(v)
        return v


    def pure_helper(v):
        return tf.nn.relu(v)


    def uses_helpers(xs, w):
        out = []
        for x in xs:
            out.append(pure_helper(x @ w))
        total = 0.0
        for x in xs:
            total += helper(x)
        return tf.stack(out), total


    def unrelated():
        import jax.numpy as np
        return np


    class Model:
        scale = 2.0

        def plain(self):
            return self.scale

        def rows(self, xs):
            out = []
            for x in xs:
                if x is None:
                    continue
                out.append(tf.reduce_sum(x))
            return tf.stack(out)

        @staticmethod
        def static_rows(xs):
            ys = np.zeros(len(xs))
            for i in range(len(xs)):
                ys[i] = np.sum(xs[i])
            return ys


    async def fetch(xs):
        out = []
        for x in xs:
            out.append(await x)
        return out


    if tf is not None:
        def conditional(xs):
            acc = tf.zeros([])
            for x in xs:
                acc = tf.maximum(acc, x)
            return acc


    def outer(xs):
        def inner(ys):
            return [y for y in ys]
        res = []
        for x in xs:
            res.append(inner(x))
        return tf.concat(res, 0)
    """)


def test_rows_of_a_module_level_list_need_the_whole_module():
    # Whether the rows of GRID are one list is decided by its binding outside the function.
    source = "GRID = [[0.0] * 4] * 4\n\n\ndef fill(x):\n    for i in range(4):\n        GRID[i][0] = x[i]\n"
    result = assert_same(source)
    assert [r.code for r in result.remarks] == ["PF203"]
    assert "`GRID`: its rows are one shared object" in result.remarks[0].message


def test_outline_equals_whole_module_on_tricky_code():
    result = assert_same(TRICKY)
    assert {r.code for r in result.remarks} >= {"PF101", "PF205"}


@pytest.mark.parametrize("path", sample_files() + case_files() + sorted(GOLDEN.glob("*.py")),
                         ids=lambda p: p.name)
def test_outline_equals_whole_module_on_samples_and_cases(path):
    assert_same(path.read_text(), str(path))


def test_shared_cases_are_there():
    """The test above runs on fewer files without ../shared/cases: say so (a skip), or fail in CI."""
    assert shared_cases()


def test_missing_shared_cases_skip_with_a_reason_or_fail_in_ci(monkeypatch, tmp_path):
    import conftest

    monkeypatch.setattr(conftest, "CASES", tmp_path / "absent")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"needs the shared cases in \.\./shared/cases"):
        conftest.shared_cases()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        conftest.shared_cases()


def test_a_walrus_in_a_comprehension_is_analysed():
    # `[x := x + 1 for _ in range(2)]` crashed `pforge check` (AttributeError: 'ListComp' object
    # has no attribute 'target', from the wrap-around test); the binding carries, so it stays.
    source = "def f(x):\n    z = [x := x + 1 for _ in range(2)]\n    return z\n"
    result = transpile_source(source, "m.py")
    assert not any(p.rewritten for p in result.plans)
    namespace = {}
    exec(compile(result.code, "m.py", "exec"), namespace)
    assert namespace["f"](1) == [2, 3]
