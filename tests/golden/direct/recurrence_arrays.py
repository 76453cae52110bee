"""Running totals kept in the array itself: a cumulative sum in place, a savings balance, a
high-water mark.

What it does: ``cumulative_in_place`` turns per-step amounts into running totals in the same
array (each element plus the total before it); ``balance`` grows an account by a per-step
interest rate and adds each step's deposit to the balance of the step before;
``high_water`` marks, for each step, the highest level reached so far.

Where it shows up: ledgers and inventory counts, loan and savings schedules, population and
compartment models stepped in time, water levels and maximum drawdown, the cumulative
distribution of a histogram, any "value at step t from the value at step t - 1" column
written as ``a[t] = a[t - 1] ...``.

Pattern: an array recurrence, ``a[i] = a[i - 1] + b[i]``: each iteration reads the element
the iteration before it wrote (a loop-carried flow dependence of distance 1). Carried in a
name instead of the array (scalar replacement, Allen and Kennedy 2001, section 8.3) it is a
running value: a prefix sum, a first-order linear recurrence ``a[t] = (1 + r[t]) * a[t - 1]
+ d[t]``, a running maximum.

Expected verdict: vectorizable as scans (PF106: ``add scan totals``, ``linear scan
balance``, ``max scan level``), lowered by the direct backend to ``np.add.accumulate`` and
``np.maximum.accumulate`` from the element before the first write (bit for bit the loop's
values) and to a blocked scan for the linear recurrence (lanes of 4 steps, log2(n / 4)
rounds over the block ends; equal to rounding, an unsafe fix).
"""

import numpy as np


def cumulative_in_place(totals):
    """Running totals, in place.

    Args:
      totals: float64 [steps], the amount of each step; on return, the total up to each step.

    Returns:
      ``totals``.
    """
    # pforge: vectorized loop (was lines 39-40: map over totals, add scan totals, indexed output
    #   totals) with batched ops, where its run-time checks hold
    if (
        type(totals) is np.ndarray
        and totals.dtype.kind in "biufc"
        and totals.ndim == 1
        and len(totals) > 1
    ):
        np.add.accumulate(totals, out=totals)
    else:
        for i in range(1, len(totals)):
            totals[i] = totals[i - 1] + totals[i]
    return totals


def balance(start, rates, deposits):
    """An account's balance after each step.

    Args:
      start: float, the balance before the first step (currency units).
      rates: float64 [steps], the interest rate of each step (0.001 is 0.1 %).
      deposits: float64 [steps], the amount deposited at the end of each step.

    Returns:
      float64 [steps + 1], the balance before the first step and after each step.
    """
    balance = np.zeros(len(rates) + 1)
    balance[0] = start
    # pforge: vectorized loop (was lines 57-58: map over rates, deposits, linear scan balance,
    #   indexed output balance) with batched ops, where its run-time checks hold
    if (
        type(rates) is np.ndarray
        and len(balance) - 1 <= rates.shape[0]
        and type(deposits) is np.ndarray
        and len(balance) - 1 <= deposits.shape[0]
        and rates.dtype.kind != "O"
        and deposits.dtype.kind != "O"
        and deposits.ndim == 1
        and rates.ndim == 1
        and len(balance) > 1
    ):
        balance_prev = balance[0]
        balance_stop = len(balance) - 1
        balance_prev_a = 1.0 + rates[:balance_stop]
        balance_prev_b = deposits[:balance_stop]
        balance_prev_first = balance_prev_a[0] * balance_prev + balance_prev_b[0]
        balance_prev_dtype = np.result_type(balance_prev_a, balance_prev_first, balance_prev_b)
        balance_prev_values = (
            balance[1 : len(balance)]
            if balance_prev_dtype == balance.dtype
            else np.empty(len(balance_prev_a), balance_prev_dtype)
        )
        balance_prev_values[:len(balance_prev_a)] = balance_prev_b
        balance_prev_values[0] = balance_prev_first
        balance_prev_whole = len(balance_prev_values) // 4 * 4
        balance_prev_blocks, balance_prev_scales = (
            balance_prev_values[:balance_prev_whole].reshape(-1, 4),
            np.asarray(balance_prev_a)[:balance_prev_whole].reshape(-1, 4),
        )
        balance_prev_columns, balance_prev_scale_columns = (
            list(balance_prev_blocks.T),
            list(balance_prev_scales.T),
        )
        balance_prev_ends, balance_prev_end_scales = (
            balance_prev_columns[0].copy(),
            balance_prev_scale_columns[0].astype(balance_prev_values.dtype),
        )
        for balance_prev_lane in range(1, 4):
            balance_prev_ends *= balance_prev_scale_columns[balance_prev_lane]
            balance_prev_ends += balance_prev_columns[balance_prev_lane]
            balance_prev_end_scales *= balance_prev_scale_columns[balance_prev_lane]
        balance_prev_span, balance_prev_spare_scales = (1, np.empty_like(balance_prev_end_scales))
        while balance_prev_span < len(balance_prev_ends):
            balance_prev_later_ends = balance_prev_ends[balance_prev_span:]
            balance_prev_later_ends += (
                balance_prev_end_scales[balance_prev_span:]
                * balance_prev_ends[:-balance_prev_span]
            )
            np.multiply(
                balance_prev_end_scales[2 * balance_prev_span :],
                balance_prev_end_scales[balance_prev_span:-balance_prev_span],
                out=balance_prev_spare_scales[2 * balance_prev_span :],
            )
            balance_prev_end_scales, balance_prev_spare_scales = (
                balance_prev_spare_scales,
                balance_prev_end_scales,
            )
            balance_prev_span *= 2
        balance_prev_carried = balance_prev_columns[0][1:]
        balance_prev_carried += balance_prev_scale_columns[0][1:] * balance_prev_ends[:-1]
        for balance_prev_lane in range(1, 4):
            balance_prev_columns[balance_prev_lane] += (
                balance_prev_scale_columns[balance_prev_lane]
                * balance_prev_columns[balance_prev_lane - 1]
            )
        for balance_prev_tail in range(max(balance_prev_whole, 1), len(balance_prev_values)):
            balance_prev_values[balance_prev_tail] = (
                balance_prev_a[balance_prev_tail] * balance_prev_values[balance_prev_tail - 1]
                + balance_prev_b[balance_prev_tail]
            )
        if (
            not np.isfinite(balance_prev_values).all()
            or balance_prev_values.dtype != balance.dtype
        ):
            balance_prev_values = np.empty(len(balance_prev_values), balance.dtype)
            balance_prev_values[0] = balance_prev_first
            for balance_prev_k in range(1, len(balance_prev_values)):
                balance_prev_values[balance_prev_k] = (
                    balance_prev_a[balance_prev_k] * balance_prev_values[balance_prev_k - 1]
                    + balance_prev_b[balance_prev_k]
                )
        balance[1:len(balance)] = balance_prev_values
    else:
        for t in range(1, len(balance)):
            balance[t] = (1.0 + rates[t - 1]) * balance[t - 1] + deposits[t - 1]
    return balance


def high_water(levels):
    """The highest level reached up to each step.

    Args:
      levels: float64 [steps], the level at each step (metres).

    Returns:
      float64 [steps], the running maximum of ``levels``.
    """
    level = levels.copy()
    # pforge: vectorized loop (was lines 72-73: map over level, max scan level, indexed output
    #   level) with batched ops, where its run-time checks hold
    if (
        type(level) is np.ndarray
        and level.dtype.kind in "biufc"
        and type(levels) is np.ndarray
        and levels.ndim == 1
        and len(level) > 1
    ):
        np.maximum.accumulate(level, out=level)
    else:
        for i in range(1, len(level)):
            level[i] = np.maximum(level[i - 1], level[i])
    return level


def reference_cumulative_in_place(totals):
    """Hand-batched equivalent of :func:`cumulative_in_place`."""
    np.add.accumulate(totals, out=totals)
    return totals


def reference_balance(start, rates, deposits):
    """Hand-batched equivalent of :func:`balance`: the affine maps ``b -> (1 + r) * b + d``
    composed in a tree (the closed form through ``cumprod`` and division overflows)."""
    values = np.empty(len(rates) + 1)
    values[0] = start
    values[1:] = deposits
    scale = np.empty(len(rates) + 1)
    scale[0] = 0.0
    scale[1:] = 1.0 + rates
    span = 1
    while span < len(values):
        values[span:] += scale[span:] * values[:-span]
        scale[span:] *= scale[:-span]
        span *= 2
    return values


def reference_high_water(levels):
    """Hand-batched equivalent of :func:`high_water`."""
    return np.maximum.accumulate(levels)


def example_inputs(seed=0, steps=10_000):
    """Amounts of about 100; rates around 0.01 %; deposits of about 50; a random walk of levels."""
    rng = np.random.default_rng(seed)
    return {"cumulative_in_place": (rng.normal(100.0, 20.0, steps),),
            "balance": (1000.0, rng.normal(1e-4, 5e-5, steps), rng.normal(50.0, 10.0, steps)),
            "high_water": (np.cumsum(rng.normal(0.0, 1.0, steps)),)}
