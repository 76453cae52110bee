"""Every PF301 note ("not rewritten") ends with what would make the loop rewritable, in the
user's terms; where the remedy is a change to the code, making that change gets the loop
rewritten. ``pforge rule PF301`` lists the functions that have batching rules."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pforge.cli.main import app
from pforge.transpile import transpile_source
from pforge.transpile.remedies import GENERAL, remedy
from tests.loops import plan_of

ROOT = Path(__file__).parent


def _notes(result):
    return [r.message for p in result.plans for r in p.remarks if r.code == "PF301"]


def _said(note: str) -> bool:
    return "; to rewrite it, " in note or remedy(note.split(": ", 1)[-1]) is None


def test_every_note_of_a_loop_left_says_what_would_make_it_rewritable():
    notes = []
    for path in sorted((ROOT / "realcode").rglob("*.py")):
        if "pforge-rewrite" in path.name or path.name.startswith("__"):
            continue
        notes += _notes(transpile_source(path.read_text(), path.name))
    assert notes, "no loop left: the test would hold vacuously"
    assert [n for n in notes if not _said(n)] == []


# (a loop refused for a reason, and the same loop changed as its remedy says)
CASES = {
    "a list written": ("""
        def f(x, n):
            counts = [[0.0] * n for _ in range(n)]
            for i in range(n):
                counts[i] = x[i] * 2.0
            return counts
        """, "make `counts` a NumPy array", """
        def f(x, n):
            counts = np.zeros((n, n))
            for i in range(n):
                counts[i] = x[i] * 2.0
            return counts
        """),
    "a comprehension inline": ("""
        def f(X, R):
            out = np.zeros(len(X))
            for i in range(len(X)):
                out[i] = np.min(np.array([np.sum((X[i] - r) ** 2) for r in R]))
            return out
        """, "assign the comprehension to a name in the loop body", """
        def f(X, R):
            out = np.zeros(len(X))
            for i in range(len(X)):
                d = [np.sum((X[i] - r) ** 2) for r in R]
                out[i] = np.min(np.array(d))
            return out
        """),
    "a function with no rule": ("""
        def f(x):
            \"\"\"Args: x: [n, m].\"\"\"
            out = np.zeros(len(x))
            for i in range(len(x)):
                out[i] = np.histogram(x[i])[0][0]
            return out
        """, "compute it with functions that have batching rules (`pforge rule PF301` lists them)", None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_remedy_names_the_change_and_the_change_works(case):
    before, said, after = CASES[case]
    result = transpile_source("import numpy as np\n" + textwrap.dedent(before), "m.py")
    assert not plan_of(result, "f").rewritten
    (note,) = _notes(result)
    assert said in note, note
    if after is not None:
        changed = transpile_source("import numpy as np\n" + textwrap.dedent(after), "m.py")
        assert plan_of(changed, "f").rewritten, _notes(changed)


def test_a_reason_that_says_its_remedy_gets_none_and_an_unknown_one_the_general_remedy():
    assert remedy("`x[i] - m`: the per-iteration rank of an operand is unknown (declare it in the "
                  "docstring, `Args: x: [n, d].`, or pass `--shapes x=2`)") is None
    assert remedy("something pforge has never said") == GENERAL


def test_rule_pf301_lists_the_functions_with_batching_rules():
    out = CliRunner().invoke(app, ["rule", "PF301"])
    assert out.exit_code == 0
    assert "Functions with a batching rule" in out.output
    numpy_part = out.output.split("NumPy (")[1].split("\n\n")[0]
    assert "cumsum" in numpy_part and "linalg.solve" in numpy_part and "histogram" not in numpy_part
