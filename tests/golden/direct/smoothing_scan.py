"""Exponential smoothing of a noisy signal and the discounted returns of an episode.

What it does: ``smooth`` computes the exponential moving average of a signal (each
output is ``alpha`` times the new sample plus ``1 - alpha`` times the previous output);
``discounted_returns`` computes, for every step of an episode, the reward-to-go
``r[t] + gamma * r[t + 1] + gamma ** 2 * r[t + 2] + ...`` by walking the rewards backwards.

Where it shows up: smoothing training curves and sensor readings, momentum and Adam's
moment estimates, low-pass (one-pole IIR) filters; returns in policy-gradient
reinforcement learning (REINFORCE, the targets of actor-critic methods).

Pattern: a first-order linear recurrence ``s = a * s + b`` whose running value the body
writes out (``out[t] = s``): the coefficient ``a`` is the loop invariant ``1 - alpha`` or
``gamma``, the offset ``b`` is per step. Each iteration needs the one before it, yet the
maps ``s -> a * s + b`` compose associatively.

Expected verdict: vectorizable as a scan (PF106, a ``linear`` scan), lowered by the direct
backend to a blocked scan: one matrix product per 16 values, log2(n / 16) rounds over the
block ends, then each block takes in the end before it. The composition reassociates the
arithmetic, so the values equal the loop's to rounding and the rewrite is an unsafe fix
(``--unsafe-fixes`` for ``check --fix``).
"""

import numpy as np


def smooth(signal, alpha):
    """The exponential moving average of ``signal``.

    Args:
      signal: float64 [steps], the samples.
      alpha: float, the weight of a new sample, in (0, 1].

    Returns:
      float64 [steps], the average after each sample (the first is the first sample).
    """
    ema = signal[0]
    out = np.zeros(len(signal))
    # pforge: vectorized loop (was lines 39-41: map over signal, linear scan ema, indexed output
    #   out) with batched ops, where its run-time checks hold
    if (
        isinstance(ema, (int, float, np.number, np.bool_, np.ndarray))
        and np.ndim(ema) == 0
        and type(signal) is np.ndarray
        and signal.dtype.kind != "O"
        and np.ndim(alpha) == 0
        and signal.ndim == 1
        and len(signal) > 0
    ):
        ema_a = 1 - alpha
        ema_b = alpha * signal
        ema_n = len(ema_b)
        ema_first = ema_a * ema + ema_b[0]
        ema_values = np.zeros(-(-ema_n // 16) * 16, np.result_type(ema_a, ema_first, ema_b))
        ema_values[:ema_n] = ema_b
        ema_values[0] = ema_first
        del ema_b
        ema_powers = np.zeros(32, ema_values.dtype)
        ema_powers[:17] = ema_a
        ema_powers[0] = 1
        np.multiply.accumulate(ema_powers[:17], out=ema_powers[:17])
        ema_steps = ema_powers[np.arange(16) - np.arange(16)[:, None]]
        ema_values = ema_values.reshape(-1, 16)
        ema_ends, ema_span, ema_scale = (ema_values @ ema_steps[:, -1], 1, ema_powers[16])
        while ema_span < len(ema_ends):
            ema_later_ends = ema_ends[ema_span:]
            ema_later_ends += ema_scale * ema_ends[:-ema_span]
            ema_scale = ema_scale * ema_scale
            ema_span *= 2
        ema_firsts = ema_values[1:, 0]
        ema_firsts += ema_powers[1] * ema_ends[:-1]
        ema_values = (ema_values @ ema_steps).reshape(-1)
        ema_values = ema_values[:ema_n]
        if not np.isfinite(ema_values).all():
            ema_values[0] = ema_first
            ema_b = alpha * signal
            for ema_k in range(1, len(ema_values)):
                ema_values[ema_k] = ema_a * ema_values[ema_k - 1] + ema_b[ema_k]
        out[...] = ema_values
        ema = ema_values[-1]
    else:
        for t in range(len(signal)):
            ema = alpha * signal[t] + (1 - alpha) * ema
            out[t] = ema
    return out


def discounted_returns(rewards, gamma):
    """The discounted reward-to-go of every step.

    Args:
      rewards: float64 [steps], the reward of each step.
      gamma: float, the discount factor, in [0, 1].

    Returns:
      float64 [steps], ``sum(gamma ** k * rewards[t + k] for k >= 0)`` at each step ``t``.
    """
    G = 0.0
    returns = np.zeros(len(rewards))
    # pforge: vectorized loop (was lines 57-59: map over rewards, linear scan G, indexed output
    #   returns) with batched ops, where its run-time checks hold
    if (
        type(rewards) is np.ndarray
        and rewards.dtype.kind != "O"
        and np.ndim(gamma) == 0
        and rewards.ndim == 1
        and len(rewards) - 1 > -1
    ):
        G_first = gamma * G + rewards[-1]
        G_values = np.zeros(-(-len(rewards) // 16) * 16, np.result_type(gamma, G_first, rewards))
        G_values[-len(rewards):] = rewards
        G_values[-1] = G_first
        G_powers = np.zeros(32, G_values.dtype)
        G_powers[:17] = gamma
        G_powers[0] = 1
        np.multiply.accumulate(G_powers[:17], out=G_powers[:17])
        G_steps = G_powers[np.arange(16)[:, None] - np.arange(16)]
        G_values = G_values.reshape(-1, 16)
        G_ends, G_span, G_scale = (G_values @ G_steps[:, 0], 1, G_powers[16])
        while G_span < len(G_ends):
            G_later_ends = G_ends[:-G_span]
            G_later_ends += G_scale * G_ends[G_span:]
            G_scale = G_scale * G_scale
            G_span *= 2
        G_firsts = G_values[:-1, -1]
        G_firsts += G_powers[1] * G_ends[1:]
        G_values = (G_values @ G_steps).reshape(-1)
        G_values = G_values[-len(rewards):]
        if not np.isfinite(G_values).all():
            G_values[-1] = G_first
            for G_k in range(len(G_values) - 2, -1, -1):
                G_values[G_k] = gamma * G_values[G_k + 1] + rewards[G_k]
        returns[::-1] = G_values[::-1]
        G = G_values[0]
    else:
        for t in reversed(range(len(rewards))):
            G = rewards[t] + gamma * G
            returns[t] = G
    return returns


def reference_smooth(signal, alpha):
    """Hand-batched equivalent of :func:`smooth`, composed in a tree (the closed form through
    powers of ``1 - alpha`` and division underflows for long signals)."""
    values = alpha * signal
    values[0] += (1 - alpha) * signal[0]
    span, scale = 1, 1 - alpha
    while span < len(values):
        values[span:] += scale * values[:-span]
        scale, span = scale * scale, span * 2
    return values


def reference_discounted_returns(rewards, gamma):
    """Hand-batched equivalent of :func:`discounted_returns`: composed in a tree, as pforge's
    output does."""
    values = rewards[::-1].copy()
    span, scale = 1, gamma
    while span < len(values):
        values[span:] += scale * values[:-span]
        scale, span = scale * scale, span * 2
    return values[::-1]


def example_inputs(seed=0, steps=10_000):
    """A noisy sine wave smoothed with alpha 0.05; an episode of sparse rewards, gamma 0.99."""
    rng = np.random.default_rng(seed)
    t = np.arange(steps)
    signal = np.sin(t / 200.0) + rng.normal(0.0, 0.3, steps)
    rewards = np.where(rng.random(steps) < 0.05, 1.0, 0.0)
    return {"smooth": (signal, 0.05), "discounted_returns": (rewards, 0.99)}
