"""Which loops take a list of Python floats as a float64 array (regression b38): a negative
Python float's fractional power is complex where float64 gives nan, so a loop taking such a
power of a listed number converts no list; one that divides or squares still does (where
Python raises, the batched code may be more defined)."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.transpile import transpile_source

TEMPLATE = '''
import numpy as np

def f(x, y):
    out = []
    for i in range(len(x)):
        out.append({value})
    return np.array(out)
'''


def _listed_numbers(code):
    """Whether the run-time checks take a list of numbers (not only a list of arrays)."""
    return "isinstance(v, float)" in code


def _run(code, *args):
    namespace = {}
    exec(compile(code, "m.py", "exec"), namespace)
    return namespace["f"](*args)


@pytest.mark.parametrize("value", ["x[i] * 0.5", "1.0 / x[i]", "x[i] ** 2", "x[i] ** -1.0",
                                   "x[i] * y[i] / np.sqrt(x[i] ** 2 + y[i] ** 2)",
                                   "np.sqrt(x[i] * x[i]) ** (1 / 3)"])
def test_a_list_is_converted_where_python_floats_compute_as_float64(value):
    result = transpile_source(TEMPLATE.format(value=value), "m.py")
    assert result.plans[0].rewritten
    assert _listed_numbers(result.code), result.code
    x, y = [3.0, -2.0, 0.5], [4.0, 1.0, 2.0]
    np.testing.assert_allclose(_run(result.code, x, y), _run(TEMPLATE.format(value=value), x, y))


@pytest.mark.parametrize("value", ["x[i] ** 0.5", "(x[i] - y[i]) ** (1 / 3)"])
def test_a_fractional_power_of_a_listed_number_runs_the_loop_for_a_list(value):
    source = TEMPLATE.format(value=value)
    result = transpile_source(source, "m.py")
    assert result.plans[0].rewritten
    assert not _listed_numbers(result.code), result.code
    x, y = [4.0, -8.0], [0.5, 3.0]
    want, got = _run(source, x, y), _run(result.code, x, y)
    assert want.dtype == got.dtype == np.complex128
    np.testing.assert_allclose(got, want)
    arrays = np.array([4.0, -8.0]), np.array([0.5, 3.0])
    np.testing.assert_allclose(_run(result.code, *arrays), _run(source, *arrays), equal_nan=True)
