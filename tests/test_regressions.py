"""Wrong rewrites an independent tester found (tests/data/regressions/, one file per bug class,
each with the calls that showed it, and the ranks given as ``--shapes`` gives them where a file
names ``SHAPES``): the functions a file lists in ``REWRITTEN`` are rewritten
and no other (the file says why each other loop is left), and the rewrite must return what the
loop returns, of the same type, or raise where it raises."""

from __future__ import annotations

import types
import warnings
from pathlib import Path

import numpy as np
import pytest

from pforge.transpile import transpile_source

FILES = sorted((Path(__file__).parent / "data" / "regressions").glob("b*.py"))


def _module(code: str) -> types.ModuleType:
    module = types.ModuleType("case")
    exec(compile(code, "<case>", "exec"), module.__dict__)
    return module


def _outcome(module, name, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "value", getattr(module, name)(*eval(f"({args},)", module.__dict__))
    except Exception as exc:  # noqa: BLE001 - raising is an outcome to compare
        return "raised", type(exc).__name__


def _same(want, got):
    assert type(got) is type(want), (want, got)
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), (want, got)
        for a, b in zip(want, got):
            _same(a, b)
    elif isinstance(want, np.ma.MaskedArray):  # (the `masked` constant too): the same mask, the same values
        np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
        np.testing.assert_array_equal(np.ma.filled(got, 0), np.ma.filled(want, 0))
    elif isinstance(want, np.ndarray):
        assert got.shape == want.shape and got.dtype == want.dtype, (want, got)
        if want.dtype.kind in "biu":  # exactly: a round trip through float64 loses ints past 2**53
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    elif isinstance(want, (float, complex, np.floating, np.complexfloating)):  # as an array's values
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    else:
        assert got == want or (want != want and got != got), (want, got)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_rewrite_returns_what_the_loop_returns(path):
    source = path.read_text()
    before = _module(source)
    shapes = getattr(before, "SHAPES", None)  # (`--shapes`, where a bug showed only with ranks given)
    result = transpile_source(source, path.name, shapes=shapes)
    assert transpile_source(result.code, path.name, shapes=shapes).code == result.code  # idempotent
    after = _module(result.code)
    rewritten = {plan.function for plan in result.plans if plan.rewritten}
    assert rewritten == set(before.REWRITTEN), [r.message for p in result.plans for r in p.remarks]
    for name, args in before.CALLS:
        want, got = _outcome(before, name, args), _outcome(after, name, args)
        if want[0] == "raised":
            continue  # where the loop raises, a rewrite may be more defined
        assert got[0] == "value", (name, args, got, result.code)
        _same(want[1], got[1])


def test_memory_checks_compare_the_items_of_what_may_be_a_list():
    """A parameter the checks accept as a list of arrays is compared item by item with the
    written array (`np.may_share_memory` of the list would compare a fresh copy); one that
    another check shows is an array (`type(b) is np.ndarray`) is compared whole."""
    source = ("import numpy as np\n\ndef f(a, b, c):\n    for i in range(b.shape[0]):\n"
              "        a[i] = b[i] * 2.0 + c[i]\n    return a\n")
    code = transpile_source(source, "m.py").code
    assert "type(b) is np.ndarray and b.ndim == 1" in code  # `b.shape` shows an array
    assert "not np.may_share_memory(a, b)" in code
    assert ("not (np.may_share_memory(a, c) if not isinstance(c, (list, tuple)) "
            "else any((np.may_share_memory(a, v) for v in c)))") in code


def test_a_read_in_an_assert_is_no_evidence_of_an_array(tmp_path):
    """b113 under ``python -O``, which runs no ``assert``: a list goes through the check to the
    loop, as it goes through the function as written."""
    import subprocess
    import sys

    path = Path(__file__).parent / "data" / "regressions" / "b113_assert_read_is_no_evidence.py"
    result = transpile_source(path.read_text(), path.name)
    assert any(plan.rewritten for plan in result.plans)
    (tmp_path / "loop.py").write_text(path.read_text())
    (tmp_path / "rewrite.py").write_text(result.code)
    call = "print(repr(m.tripled([1.0, 2.0, 3.0], 3)))"
    outputs = [subprocess.run([sys.executable, "-O", "-c", f"import {name} as m; {call}"], cwd=tmp_path,
                              capture_output=True, text=True, check=True).stdout for name in ("loop", "rewrite")]
    assert outputs[0] == "[3.0, 6.0, 9.0]\n" and outputs[1] == outputs[0], outputs
