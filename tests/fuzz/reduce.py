"""Shrinks a failing program to the fewest fragments (and the simplest loop) that still fail.

Delta debugging over fragments (Zeller & Hildebrandt, "Simplifying and Isolating
Failure-Inducing Input", TSE 2002), one fragment at a time since bodies are short: drop a
fragment, re-render, re-judge under the same configuration, keep the drop when the program
still fails the same way. Then try the loop counting up instead of down.
"""

from __future__ import annotations

from dataclasses import replace

from tests.fuzz.generate import Program
from tests.fuzz.oracle import Outcome, judge


def reduce(program: Program, backend: str, ranks_known: bool, failure: Outcome,
           target: str = "auto") -> tuple[Program, Outcome]:
    """The smallest program found that fails with ``failure.outcome`` (under ``target``, as
    :func:`~tests.fuzz.oracle.judge` takes it), and its outcome.

    Raises nothing: a candidate that fails another way is simply not kept.
    """

    def still_fails(candidate):
        got = judge(candidate, backend, ranks_known, target=target)
        return got if got.outcome == failure.outcome else None

    best, outcome = program, failure
    shrunk = True
    while shrunk and len(best.fragments) > 1:
        shrunk = False
        for k in range(len(best.fragments)):
            candidate = best.without(k)
            if any(f.first for f in candidate.fragments[1:]):
                continue
            if (got := still_fails(candidate)) is not None:
                best, outcome, shrunk = candidate, got, True
                break
    if best.descending and (got := still_fails(replace(best, descending=False))) is not None:
        best, outcome = replace(best, descending=False), got
    return best, outcome
