"""Running wealth, running peak and drawdown of a return series.

What it does: compounds a series of per-step returns into a wealth curve, tracks the
highest wealth reached so far, and returns the drawdown at each step (how far below
that peak the wealth is), the wealth curve and the final wealth.

Where it shows up: backtests and portfolio reports (maximum drawdown), training
curves (the best validation score so far), reinforcement-learning logs (cumulative
reward), any "running total" or "best so far" column computed step by step.

Pattern: two running values the body also reads, each a prefix scan: ``wealth =
1 + r[t]`` (a running product) and ``peak = np.maximum(peak, wealth)`` (a running
maximum); both are read after their update (inclusive scans) to fill ``curve[t]``
and ``drawdown[t]``.

Expected verdict: vectorizable as scans (PF106, a ``mul`` scan ``wealth`` and a
``max`` scan ``peak``), lowered by the direct backend to ``np.multiply.accumulate``
and ``np.maximum.accumulate``, which run in the loop's own order, so the values
are the loop's bit for bit.
"""

import numpy as np


def drawdown(returns, start):
    """The drawdown of a wealth curve compounded from ``returns``.

    Args:
      returns: float64 [steps], the return of each step (0.01 is +1 %).
      start: float, the wealth before the first step (currency units).

    Returns:
      ``(drawdown, curve, wealth)``: float64 [steps] the fraction below the running
      peak at each step (0 at a new peak), float64 [steps] the wealth after each step,
      and the final wealth (``start`` compounded by every return).
    """
    wealth = start
    peak = start
    curve = np.zeros(len(returns))
    drawdown = np.zeros(len(returns))
    # pforge: vectorized loop (was lines 41-45: map over returns, mul scan wealth, max
    #   scan peak, indexed output curve, indexed output drawdown) with batched ops,
    #   where its run-time checks hold
    if (
        isinstance(peak, (int, float, np.number, np.bool_, np.ndarray))
        and np.ndim(peak) == 0
        and isinstance(wealth, (int, float, np.number, np.bool_, np.ndarray))
        and np.ndim(wealth) == 0
        and type(returns) is np.ndarray
        and returns.ndim == 1
        and len(returns) > 0
    ):
        wealth_terms = 1.0 + returns
        wealth_steps = np.empty(
            len(wealth_terms) + 1, np.result_type(wealth, wealth_terms)
        )
        wealth_steps[0] = wealth
        wealth_steps[1:] = wealth_terms
        np.multiply.accumulate(wealth_steps, out=wealth_steps)
        if wealth_steps.dtype.kind == "c":
            for wealth_k in range(len(wealth_terms)):
                wealth_steps[wealth_k + 1] = (
                    wealth_steps[wealth_k] * wealth_terms[wealth_k]
                )
        peak_terms = wealth_steps[1:]
        peak_steps = np.empty(len(peak_terms) + 1, np.result_type(peak, peak_terms))
        peak_steps[0] = peak
        peak_steps[1:] = peak_terms
        np.maximum.accumulate(peak_steps, out=peak_steps)
        curve[...] = wealth_steps[1:]
        drawdown[...] = (peak_steps[1:] - wealth_steps[1:]) / peak_steps[1:]
        wealth = wealth_steps[-1]
        peak = peak_steps[-1]
    else:
        for t in range(len(returns)):
            wealth = wealth * (1.0 + returns[t])
            peak = np.maximum(peak, wealth)
            curve[t] = wealth
            drawdown[t] = (peak - wealth) / peak
    return drawdown, curve, wealth


def reference_drawdown(returns, start):
    """Hand-batched equivalent of :func:`drawdown`."""
    steps = np.empty(len(returns) + 1)
    steps[0] = start
    steps[1:] = 1.0 + returns
    curve = np.multiply.accumulate(steps)[1:]
    peak = np.maximum.accumulate(np.concatenate(([start], curve)))[1:]
    return (peak - curve) / peak, curve, curve[-1]


def example_inputs(seed=0, steps=10_000):
    """Daily returns of about 1 % volatility and a starting wealth of 100."""
    rng = np.random.default_rng(seed)
    return {"drawdown": (rng.normal(0.0003, 0.01, steps), 100.0)}
