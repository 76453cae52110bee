"""Terms summed along an inner loop before one update (regression b40): the loop casts the
written element back to its dtype after every term, so the sum runs batched only where the
element is floating, or where the terms are ints computed from arrays alone (then a sum that
wraps wraps as the loop's updates do)."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.transpile import transpile_source

TEMPLATE = '''
import numpy as np

def f(G, X, t):
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            G[t[i]] += {term}
    return G
'''

INT_CHECK = "np.result_type(G.dtype, X.dtype) == G.dtype"


def _run(code, *args):
    namespace = {}
    exec(compile(code, "m.py", "exec"), namespace)
    return namespace["f"](*args)


@pytest.mark.parametrize("term", ["X[i, j]", "X[i, j] * 3 - 1", "-X[i, j] // 2", "X[i, j] % 3"])
def test_int_terms_of_arrays_are_summed_batched_into_an_int_element(term):
    code = transpile_source(TEMPLATE.format(term=term), "m.py").code
    assert "np.add.at(" in code and INT_CHECK in code, code
    G, X, t = np.zeros(3, np.int64), np.arange(12).reshape(4, 3) - 5, np.array([0, 2, 2, 1])
    np.testing.assert_array_equal(_run(code, G.copy(), X, t), _run(TEMPLATE.format(term=term), G.copy(), X, t))


@pytest.mark.parametrize("term", ["X[i, j] / 2", "X[i, j] * 0.5", "np.sqrt(X[i, j])", "X[i, j] + i"])
def test_terms_that_may_be_floats_run_the_loop_for_an_int_element(term):
    source = TEMPLATE.format(term=term)
    code = transpile_source(source, "m.py").code
    assert "np.add.at(" in code and "dtype.kind in 'fc'" in code, code
    assert INT_CHECK not in code, code
    G, X, t = np.zeros(3, np.int64), np.full((4, 3), 3), np.array([0, 2, 2, 1])
    np.testing.assert_array_equal(_run(code, G.copy(), X, t), _run(source, G.copy(), X, t))
    F = np.zeros(3)
    np.testing.assert_allclose(_run(code, F.copy(), X, t), _run(source, F.copy(), X, t))


def test_terms_read_from_a_row_the_loop_binds_are_checked_by_the_element_alone():
    """``row = X[i]`` is bound in the loop: the check in front cannot read it."""
    source = TEMPLATE.format(term="row[j]").replace("        for j", "        row = X[i]\n        for j")
    code = transpile_source(source, "m.py").code
    assert "np.add.at(" in code and "np.asarray(row)" not in code, code
    G, X, t = np.zeros(3, np.int64), np.arange(12).reshape(4, 3), np.array([0, 2, 2, 1])
    np.testing.assert_array_equal(_run(code, G.copy(), X, t), _run(source, G.copy(), X, t))
