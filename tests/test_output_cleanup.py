"""The clean-up passes over a rewrite's batched statements (issue 15, "clean output"): copy
coalescing (``t = E; name = t`` as ``name = E``) and dead-code elimination of bindings of the
loop's privates that nothing reads. Each case gives the statements, the names the rewrite made,
and the statements that must come out; the traps are the orders in which the pass would change
what a statement reads."""

from __future__ import annotations

import textwrap

import gast
import pytest

from pforge.transpile.analysis.facts import PRIVATE, LoopInfo
from pforge.transpile.backends.common import LoopRewrite
from pforge.transpile.backends.direct import _coalesce, _drop_dead_privates


def _stmts(text: str) -> list[gast.stmt]:
    return gast.parse(textwrap.dedent(text)).body


def _text(stmts) -> str:
    return "\n".join(gast.unparse(s).strip() for s in stmts)


COALESCE = [
    # the one copy: bound where the temporary was
    ("t = f(x)\nout = t", {"t"}, "out = f(x)"),
    # a statement before it that reads the old `out` keeps reading it
    ("y = out\nt = f(x)\nout = t", {"t"}, "y = out\nout = f(x)"),
    # in between, a read of `out`: moving the binding up would change what it reads
    ("t = f(x)\ny = out\nout = t", {"t"}, "t = f(x)\ny = out\nout = t"),
    # a name the user wrote is no temporary
    ("t = f(x)\nout = t", set(), "t = f(x)\nout = t"),
    # the temporary read twice: it stays
    ("t = f(x)\nout = t\nz = t + 1", {"t"}, "t = f(x)\nout = t\nz = t + 1"),
    # two temporaries, one after the other, and two copies: both go
    ("a = f(x)\nb = g(x)\nout1 = a\nout2 = b", {"a", "b"}, "out1 = f(x)\nout2 = g(x)"),
    ("a = f(x)\nout1 = a\nb = g(x)\nout2 = b", {"a", "b"}, "out1 = f(x)\nout2 = g(x)"),
]


@pytest.mark.parametrize("before, fresh, after", COALESCE, ids=[c[0].replace("\n", "; ") for c in COALESCE])
def test_copy_coalescing(before, fresh, after):
    result = LoopRewrite(_stmts(before), [], {})
    _coalesce(result, fresh)
    assert _text(result.stmts) == after


def test_a_temporary_the_checks_read_is_kept():
    result = LoopRewrite(_stmts("t = f(x)\nout = t"), [], {}, checks=[gast.parse("t > 0").body[0].value])
    _coalesce(result, {"t"})
    assert _text(result.stmts) == "t = f(x)\nout = t"


def _info(classes, live_out=()):
    info = LoopInfo.__new__(LoopInfo)
    info.classes = dict(classes)
    info.live_out = {name: None for name in live_out}
    info.live_last, info.live_invariants, info.live_targets = set(), set(), set()
    return info


@pytest.mark.parametrize("before, live_out, after", [
    # a private nothing reads goes, and then one only it read
    ("u = x[:n]\nw = u * 2\nout = f(x)", (), "out = f(x)"),
    # read by a later statement: it stays
    ("u = x[:n]\nout = u * 2", (), "u = x[:n]\nout = u * 2"),
    # read after the loop (a last value): it stays
    ("u = x[:n]\nout = f(x)", ("u",), "u = x[:n]\nout = f(x)"),
])
def test_dead_privates(before, live_out, after):
    result = LoopRewrite(_stmts(before), [], {})
    _drop_dead_privates(_info({"u": PRIVATE, "w": PRIVATE, "out": "collector"}, live_out), result)
    assert _text(result.stmts) == after
