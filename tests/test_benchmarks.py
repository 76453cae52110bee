"""The scan benchmark runs end to end on short inputs: every sample function is rewritten, the
rewrite and tf.scan agree with the loop, and the table names each one."""

from __future__ import annotations

import importlib.util
import pathlib
import re

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
