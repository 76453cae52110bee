"""Numbers read off an array's shape (``n = x.shape[0]``, ``m, d = x.shape``, ``n = len(x)``,
``k = x.ndim``) are Python ints wherever the array they measure passes its own check in front,
and at least 0: the guard asks nothing more of them (no ``isinstance(n, ...)``, no
``np.maximum(n, 0)``), and ``range(m)`` over ``m, d = x.shape`` visits every row of ``x``.
Each trap keeps the check where the number may be something else."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

PAIRWISE = """import numpy as np

def pairwise(X):
    M, N = X.shape
    D = np.empty((M, M))
    for i in range(M):
        for j in range(M):
            d = 0.0
            for k in range(N):
                tmp = X[i, k] - X[j, k]
                d += tmp * tmp
            D[i, j] = np.sqrt(d)
    return D
"""


def _guard(code: str) -> str:
    return next(line for line in code.splitlines() if line.strip().startswith("if "))


def test_unpacked_shape_needs_no_check_and_visits_every_row():
    result = transpile_source(PAIRWISE, "m.py")
    assert result.plans[0].rewritten
    assert _guard(result.code).strip() == "if type(X) is np.ndarray and X.ndim == 2 and M > 0 and N > 0:"
    assert "tmp = X[:, np.newaxis, :N] - X[:, :N]" in result.code
    assert "np.maximum" not in result.code
    rng = np.random.default_rng(0)
    for shape in ((0, 3), (1, 3), (5, 0), (6, 4)):
        x = rng.standard_normal(shape)
        np.testing.assert_allclose(run_module(result.code)["pairwise"](x), run_module(PAIRWISE)["pairwise"](x),
                                   rtol=1e-12, atol=1e-12)


def _scale(binding: str, parameters: str = "a, b") -> str:
    return f"""import numpy as np

def scale({parameters}):
    {binding}
    out = np.zeros(n)
    for i in range(n):
        out[i] = a[i] * b[i]
    return out
"""


@pytest.mark.parametrize("binding", ["n = a.shape[0]", "n = np.shape(a)[0]", "n = len(a)", "n, = a.shape",
                                     "n = a.size"])
def test_a_number_of_a_checked_arrays_shape_is_no_check(binding):
    source = _scale(binding)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten
    guard = _guard(result.code)
    assert "isinstance(n," not in guard and "np.asarray(n)" not in guard
    a, b = np.arange(4.0), np.arange(5.0)
    np.testing.assert_array_equal(run_module(result.code)["scale"](a, b), run_module(source)["scale"](a, b))


@pytest.mark.parametrize("binding, why", [
    ("n = other.data.shape[0]", "nothing checks what the attribute `other.data` is"),
    ("n = a.shape[0]\n    a = b", "`a` is bound again: the array measured is not the one checked"),
    ("n = a.shape[0] if b.size else 0", "one definition is no shape"),
])
def test_a_number_of_an_unchecked_shape_keeps_its_check(binding, why):
    source = _scale(binding, "a, b, other")
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten, why
    assert "isinstance(n, (int, float, complex, np.number, np.bool_, np.ndarray))" in _guard(result.code), why


def test_an_outer_range_index_and_a_bound_named_for_a_shape_need_no_check():
    """``t`` of ``for t in range(1, T)`` is a Python int where the inner loop starts, and
    ``n = a.shape[0]`` is no longer than ``a``: neither is asked about in front."""
    source = """import numpy as np

def columns(a, T):
    n = a.shape[0]
    for t in range(1, T):
        for s in range(n):
            a[s, t] = a[s, t - 1] * 0.5 + s
    return a
"""
    result = transpile_source(source, "m.py")
    assert [p.rewritten for p in result.plans] == [False, True]
    guard = _guard(result.code)
    assert "isinstance(t," not in guard and "np.shape(a)[0]" not in guard
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(run_module(result.code)["columns"](a.copy(), 4), run_module(source)["columns"](a.copy(), 4))
