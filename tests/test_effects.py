"""What a call in a loop does to state outside it (``transpile/effects.py``): each module helper
is read for the writes it makes (globals, its arguments' contents, attributes, module state)
and the calls it makes, and the loop calling it is refused with the reason (PF205), naming the
line; a helper that touches only its own locals is pure."""

from __future__ import annotations

from pathlib import Path

import pytest

from pforge.transpile import transpile_source

HELPERS = (Path(__file__).parent / "data" / "helper_effects.py").read_text()


def _remarks(call: str):
    result = transpile_source(HELPERS.replace("CALL", call), "helper_effects.py")
    (plan,) = [p for p in result.plans if p.function == "f"]
    return plan, [(r.code, r.message) for r in plan.remarks]


@pytest.mark.parametrize("call,why", [
    ("bump(x[i])", "calls bump (writes a global or nonlocal name at line 10)"),
    ("poke(y, x[i])", "calls poke (mutates its input at line 16)"),
    ("stash(x[i])", "calls stash (writes `TOTAL`, state outside it, at line 21)"),
    ("splat(y, x[i])", "calls splat (mutates its input at line 26)"),
    ("push(obj, x[i])", "calls push (calls .append() at line 37)"),
    ("relay(y, x[i])", "calls relay (calls poke (mutates its input at line 16) at line 42)"),
    ("tag(obj, x[i])", "calls tag (mutates its input at line 46)"),
    # a local list appended to first: the walk goes on to the write after it
    ("kept_then_stashed(x[i])", "calls kept_then_stashed (writes `TOTAL`, state outside it, at line 53)"),
])
def test_a_helper_with_an_effect_keeps_the_loop_and_says_which(call, why):
    plan, remarks = _remarks(call)
    assert not plan.vectorizable and not plan.rewritten
    assert ("PF205", f"{why}, a side effect whose order the loop fixes") in remarks, remarks


@pytest.mark.parametrize("call", ["keep(x[i])", "again(x[i], 3)", "grid_local(x[i])"])
def test_a_helper_touching_only_its_locals_is_pure(call):
    """`tmp.append(v)` on its own list, `t[0][1] = v` into its own array, or calling itself: no
    effect outside it."""
    plan, remarks = _remarks(call)
    assert plan.vectorizable, remarks
    assert not any(code == "PF205" for code, _ in remarks)
