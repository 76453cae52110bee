"""Docstring examples are run (as beniget runs its README)."""

import doctest

import pforge.transpile


def test_transpile_docstring_examples():
    failures, tried = doctest.testmod(pforge.transpile)
    assert tried > 0 and failures == 0


def test_direct_backend_docstring_examples():
    from pforge.transpile import ranks

    failures, tried = doctest.testmod(ranks)
    assert tried > 0 and failures == 0
