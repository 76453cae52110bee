"""The scan benchmark runs end to end on short inputs: every sample function is rewritten, the
rewrite and tf.scan agree with the loop, and the table names each one."""

from __future__ import annotations

import importlib.util
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_scan_benchmark_compares_every_sample_with_its_loop(capsys):
    pytest.importorskip("tensorflow")
    spec = importlib.util.spec_from_file_location("scans_benchmark", ROOT / "benchmarks" / "scans.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--steps", "40", "--repeats", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if re.match(r"\w+\.\w+ ", line)]
    assert [r.split()[0] for r in rows] == [
        "smoothing_scan.smooth", "smoothing_scan.discounted_returns", "drawdown_scan.drawdown",
        "recurrence_arrays.cumulative_in_place", "recurrence_arrays.balance", "recurrence_arrays.high_water"]
    for row in rows:
        *_, error, scan_error = row.split()
        assert float(error) < 1e-6 and float(scan_error) < 1e-6, row


def _quality():
    spec = importlib.util.spec_from_file_location("quality_benchmark", ROOT / "benchmarks" / "quality.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclass looks its module up)
    spec.loader.exec_module(module)
    return module


def test_tokens_leave_out_the_docstring_comments_and_layout():
    quality = _quality()
    plain = "def f(x):\n    return x + 1\n"
    # def f ( x ) : return x + 1  -> 10 tokens
    assert quality.code_tokens(plain) == 10
    assert quality.code_tokens('def f(x):\n    """Adds one.\n\n    Long.\n    """\n    # why\n    return (x\n            + 1)\n') == 10
    assert quality.code_tokens("def f(x):\n    return x + 1 + 1\n") == 12


def test_the_batched_arm_is_the_function_without_its_checks_and_fallback_loop():
    quality = _quality()
    versioned = ("def f(x):\n    out = x * 0\n    # pforge: vectorized loop (was lines 3-4)\n"
                 "    if type(x) is np.ndarray and x.ndim == 1:\n        out[...] = x * 2\n    else:\n"
                 "        for i in range(len(x)):\n            out[i] = x[i] * 2\n    if x is None:\n"
                 "        out = 0\n    return out\n")
    arm = quality.batched_arm(versioned)
    assert "ndim" not in arm and "for i" not in arm and "out[...] = x * 2" in arm
    assert "if x is None:" in arm  # (the user's own `if` stays)
    wrapped = versioned.replace("(was lines 3-4)\n", "(was lines\n    #   3-4)\n")  # (at a line length)
    assert wrapped != versioned and quality.batched_arm(wrapped) == arm
    assert quality.code_tokens(arm) == quality.code_tokens(
        "def f(x):\n    out = x * 0\n    out[...] = x * 2\n    if x is None:\n        out = 0\n    return out\n")


def test_the_quality_benchmark_measures_a_rewrite_against_its_reference(capsys):
    """On the recurrence sample at 1/100 of its size: every function is rewritten, equal to its
    loop, and each row has its tokens, times and peak memory."""
    quality = _quality()
    module_path = ROOT / "samples" / "recurrence_arrays.py"
    rows = [quality.measure(module_path, f, scale=1, repeats=1) for f in ("cumulative_in_place", "high_water")]
    for row in rows:
        assert row.rewritten and row.ok, row
        assert row.tokens[1] > 0 and row.tokens[0] > row.tokens[1] // 2
        assert all(t > 0 for t in row.seconds) and all(p is not None and p >= 0 for p in row.peak)
    lines = quality.table(rows)
    assert lines[-1].startswith("tokens of rewrite / tokens of reference over 2 rewritten: geometric mean ")
    ratio = (rows[0].token_ratio * rows[1].token_ratio) ** 0.5
    assert f"geometric mean {ratio:.2f}" in lines[-1]
    assert all(0 < row.arm_tokens < row.tokens[0] for row in rows), rows  # (both are versioned)
    arm = (rows[0].arm_ratio * rows[1].arm_ratio) ** 0.5
    assert lines[-3].startswith(f"batched code alone (arm×): geometric mean {arm:.2f}")
    # (staged for the inputs' signature, the checks of types, dtypes and ranks go:
    # cumulative_in_place's of its parameter, high_water's of the docstring's rank of `levels`
    # (`type(levels) is np.ndarray and levels.ndim == 1`, 19 tokens with its `and`),
    # not those of its copy `level`, a local)
    assert rows[0].staged_tokens < rows[0].tokens[0] and rows[1].staged_tokens == rows[1].tokens[0] - 19, rows
    staged = (rows[0].staged_ratio * rows[1].staged_ratio) ** 0.5
    assert lines[-2].startswith(f"staged for the inputs' signature (stg×), over 2 NumPy functions: "
                                f"geometric mean {staged:.2f}")


def test_the_strip_benchmark_times_every_bound_against_the_reference(capsys):
    spec = importlib.util.spec_from_file_location("strips_benchmark", ROOT / "benchmarks" / "strips.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--points", "12", "9", "4", "--bounds", "0", "0.0001", "--repeats", "1"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [row[0] for row in rows] == ["0", "0.0001", "reference"]
    assert all(float(value) >= 0 for row in rows for value in row[1:])
