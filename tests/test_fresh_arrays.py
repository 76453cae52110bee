"""An array the function allocates itself (``out = np.empty(n)``) before a loop, and shows
nothing else before it, can be a view of no value bound where the loop starts: the checks
that it shares no memory with one (``np.may_share_memory``) are dropped. Each trap exposes the
array before the loop (a view bound to a name, a nested function, a call), and the check
stays, with the rewrite equal to the loop where the view does overlap."""

from __future__ import annotations

import numpy as np
import pytest

from pforge.transpile import transpile_source
from tests.loops import run_module

# (a start of its own: one that is `E` of the iteration before the first, `prev = signal[-1]`,
# is never read, the batched code reads `signal[i - 1]` then)
WRAP = """import numpy as np

def halves(signal):
    out = np.empty(len(signal))
    prev = signal[0]
    for i in range(len(signal)):
        out[i] = (signal[i] - prev) * 0.5
        prev = signal[i]
    return out
"""


def _rewrite(source):
    result = transpile_source(source, "m.py")
    assert result.plans and result.plans[0].rewritten, result.plans[0].remarks if result.plans else "no plan"
    return result.code


def test_a_fresh_output_needs_no_memory_check_against_the_wrap_around_start():
    code = _rewrite(WRAP)
    assert "may_share_memory" not in code
    assert "prev_before = np.where(i == 0, prev, " in code
    signal = np.random.default_rng(0).standard_normal(9)
    np.testing.assert_array_equal(run_module(code)["halves"](signal), run_module(WRAP)["halves"](signal))


EXPOSED = {
    "nested": ("    def peek():\n        return out\n", "signal"),
    "call": ("    keep(out)\n", "signal"),
    "rebound": ("    out = np.ones(len(signal))\n", "signal"),
}


@pytest.mark.parametrize("how", sorted(EXPOSED))
def test_an_array_shown_before_the_loop_keeps_its_memory_check(how):
    """A nested function or a call may hold it; a second binding is another array."""
    between, read = EXPOSED[how]
    source = WRAP.replace("    prev = signal[0]\n", between + "    prev = signal[0]\n") \
        .replace("out[i] = (signal[i] - prev) * 0.5", f"out[i] = ({read}[i] - prev) * 0.5") \
        .replace("import numpy as np\n", "import numpy as np\n\nkept = []\n\ndef keep(a):\n    kept.append(a)\n")
    code = transpile_source(source, "m.py").code
    assert "np.may_share_memory(out, " in code, code


def test_a_view_of_the_fresh_output_bound_before_the_loop_leaves_it_a_loop():
    """`view = out[:]` read in the body: the aliasing analysis sees the view (it reads what the
    loop writes), before any check could be dropped."""
    source = WRAP.replace("    prev = signal[0]\n", "    view = out[:]\n    prev = signal[0]\n") \
        .replace("out[i] = (signal[i] - prev) * 0.5", "out[i] = (view[i] - prev) * 0.5")
    result = transpile_source(source, "m.py")
    assert not result.plans[0].rewritten and result.code == source
    assert "`view` may be a view of `out`" in result.plans[0].remarks[0].message


def test_a_range_the_checks_know_runs_is_not_tested_for_emptiness_again():
    """`len(range(len(signal))) == 0 or <the start's type is the element's>` beside the check
    `len(signal) > 0`: the range runs, so only the type test stays, and it comes after that
    check (it reads `signal[0]`, which an empty signal does not have)."""
    code = _rewrite(WRAP)
    guard = next(line for line in code.splitlines() if line.strip().startswith("if "))
    assert "len(range(" not in guard
    assert guard.index("len(signal) > 0") < guard.index("type(prev) is type(signal[0])")
    started = WRAP.replace("prev = signal[0]", "prev = np.float64(0.0)")
    empty = np.zeros(0)  # (the guard stops at `len(signal) > 0`; `signal[0]` would raise)
    np.testing.assert_array_equal(run_module(_rewrite(started))["halves"](empty), np.zeros(0))
    for n in (1, 2, 5):
        signal = np.arange(float(n))
        np.testing.assert_array_equal(run_module(code)["halves"](signal), run_module(WRAP)["halves"](signal))
