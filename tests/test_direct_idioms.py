"""Idioms of real NumPy code the direct backend batches: chained subscripts of arrays
(``img[r][c]``) and calls along the last axis (``np.sort``, ``np.fft.rfft``)."""

from __future__ import annotations

import textwrap

import numpy as np

from pforge.transpile import transpile_source

NEGATIVE = textwrap.dedent("""\
    import numpy as np


    def f(picture):
        rows, cols = picture.shape[0], picture.shape[1]
        for r in range(rows):
            for c in range(cols):
                picture[r][c] = [255, 255, 255] - picture[r][c]
        return picture
    """)


def _run(code, *args):
    namespace: dict = {}
    exec(compile(code, "<code>", "exec"), namespace)
    return namespace["f"](*args)


def test_chained_subscripts_of_an_array_are_one_index():
    """`picture[r][c]` of an array (it has a `.shape`) is `picture[r, c]`, read and written."""
    result = transpile_source(NEGATIVE, "m.py")
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "picture[r][c]" not in result.code.split("else:")[0]
    img = np.random.default_rng(0).integers(0, 256, (4, 5, 3))
    np.testing.assert_array_equal(_run(result.code, img.copy()), _run(NEGATIVE, img.copy()))


def test_chained_subscripts_of_lists_stay_chained():
    """A list of lists has no `x[i, j]`: the loop is left."""
    source = textwrap.dedent("""\
        import numpy as np


        def f(board, n):
            counts = [[0] * n for _ in range(n)]
            for x in range(1, n - 1):
                for y in range(1, n - 1):
                    counts[x][y] = board[x - 1][y] + board[x + 1][y]
            return counts
        """)
    result = transpile_source(source, "m.py")
    assert not result.changed


ZIPPED = textwrap.dedent('''\
    import numpy as np


    def _mode(amp, grid, k, phase):
        """One mode of the field."""
        scaled = grid * k
        return amp * np.cos(scaled + phase)


    def f(grid, amps, ks, phases):
        """Args:
          grid: float [h, w].
          amps: float [m].
          ks: float [k].
          phases: float [p].
        """
        field = np.zeros_like(grid)
        for amp, k, ph in zip(amps, ks, phases):
            field += _mode(amp, grid, k, ph)
        return field
    ''')


def test_zip_of_unproven_lengths_is_checked_and_a_small_helper_is_inlined():
    """`zip` stops at the shortest sequence: the batched rows are right when the lengths agree,
    checked at run time (of declared arrays: `len()` of an iterator would raise); `_mode(...)`
    is batched as the expression it returns."""
    result = transpile_source(ZIPPED, "m.py", unsafe=True)
    assert result.plans[0].rewritten, [r.message for r in result.plans[0].remarks]
    assert "len(amps) == len(ks) == len(phases)" in result.code
    assert "_mode(" not in result.code.split("else:")[0].split("def f(")[1]
    rng = np.random.default_rng(0)
    grid = rng.random((3, 4))
    for amps, ks, phases in [(rng.random(5), rng.random(5), rng.random(5)),
                             (rng.random(5), rng.random(3), rng.random(5))]:  # zip stops at 3
        np.testing.assert_allclose(_run(result.code, grid, amps, ks, phases),
                                   _run(ZIPPED, grid, amps, ks, phases))


def test_a_helper_whose_names_the_caller_rebinds_is_not_inlined():
    source = textwrap.dedent('''\
        import numpy as np

        SCALE = 2.0


        def _scaled(v):
            return v * SCALE


        def f(x):
            SCALE = 3.0
            out = np.zeros(len(x))
            for i in range(len(x)):
                out[i] = _scaled(x[i]) + SCALE
            return out
        ''')
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert "no batching rule for `_scaled`" in result.plans[0].remarks[0].message


def test_zip_of_values_that_may_be_iterators_is_left():
    source = textwrap.dedent("""\
        import numpy as np


        def f(p, q):
            res = []
            for a, b in zip(p, q):
                res.append(float(a * b))
            return res
        """)
    result = transpile_source(source, "m.py")
    assert not result.changed
    assert "cannot prove to have the same length" in " ".join(r.message for r in result.plans[0].remarks)


def test_a_helper_shadowed_in_the_caller_or_rebound_in_the_module_is_not_inlined():
    source = textwrap.dedent("""\
        import numpy as np


        def _scale(a):
            return a * 2


        def _norm(a):
            return a * 2


        _norm = np.negative


        def local(x):
            _scale = lambda a: a * 3
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _scale(x[i])
            return out


        def rebound(x):
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _norm(x[i])
            return out
        """)
    result = transpile_source(source, "m.py")
    assert not any(p.rewritten for p in result.plans)


def test_a_loop_with_an_empty_body_gives_valid_code():
    """`for v in xs: pass` under a run-time check: the batched branch is `pass`, not nothing."""
    import ast

    source = "import numpy as np\n\n\ndef f(xs):\n    for v in xs:\n        pass\n    return len(xs)\n"
    result = transpile_source(source, "m.py")
    ast.parse(result.code)
    assert transpile_source(result.code, "m.py").code == result.code


def test_a_helper_called_twice_is_inlined_twice_but_never_into_itself():
    source = textwrap.dedent("""\
        import numpy as np


        def _sq(a):
            return a * a


        def _down(a):
            return _down(a - 1.0)


        def f(x):
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _sq(x[i]) + _sq(x[i] + 1.0)
            return out


        def g(x):
            out = np.zeros(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = _down(x[i])
            return out
        """)
    result = transpile_source(source, "m.py")
    f_plan, g_plan = result.plans
    assert f_plan.rewritten and not g_plan.rewritten
    x = np.array([1.0, -2.0, 0.5])
    namespace: dict = {}
    exec(compile(result.code, "<code>", "exec"), namespace)
    np.testing.assert_allclose(namespace["f"](x), x * x + (x + 1.0) ** 2)
