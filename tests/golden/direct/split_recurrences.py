"""A nonlinear state update beside per-step features, and a nonlinear filter along each row.

What it does: ``logistic_features`` steps a population through the logistic map driven by a
signal and, in the same loop, computes a feature of each input sample; ``row_filter`` runs a
soft-clipped one-pole filter (``y[t] = tanh(a * y[t - 1] + x[t])``) along each row of a batch
of signals.

Where it shows up: simulation loops that also log per-step quantities (population and
epidemic models, game state plus observations), recurrent cells and nonlinear IIR filters
applied to every sequence of a batch (audio effects, sensor pipelines), written one row at a
time.

Pattern: ``logistic_features``: a loop whose first statement is a recurrence no parallel form
computes (the map is nonlinear) and whose second reads only the input; ``row_filter``: an outer
loop over rows whose iterations are independent around an inner loop that carries the filter
state through the elements of the row.

Expected verdict: ``logistic_features`` is refused whole (PF202) and split by loop
distribution: the recurrence stays a loop, the feature is batched (PF101, "loop
distribution"); ``row_filter`` is vectorizable over the rows (PF101): the inner loop stays a
loop whose body is batched over every row (outer-loop vectorization, what interchanging the
loops and vectorizing the new inner one computes). Both equal the loops bit for bit.
"""

import numpy as np


def logistic_features(x, r):
    """The logistic map driven by ``x``, and a feature of each sample.

    Args:
      x: float64 [steps], the driving signal, in [0, 1].
      r: float, the growth rate, in (0, 4].

    Returns:
      (float64 [steps], float64 [steps]): the population after each step (the first is
      ``x[0]``), and ``log1p(x ** 2) - sqrt(x)`` at each step after the first (0 at the first).
    """
    n = len(x)
    pop = np.zeros(n)
    feat = np.zeros(n)
    pop[0] = x[0]
    # pforge: loop distributed (was lines 43-45: line 44 a loop; line 45 vectorized)
    for t in range(1, n):
        pop[t] = r * pop[t - 1] * (1.0 - pop[t - 1]) * 0.5 + 0.5 * x[t]
    # pforge: vectorized loop (was line 45: map over x, indexed output feat) with batched ops, where
    #   its run-time checks hold
    if type(x) is np.ndarray and x.ndim == 1 and n > 1:
        x_part = x[1:n]
        feat[1:n] = np.log1p(x_part * x_part) - np.sqrt(x_part)
    else:
        for t in range(1, n):
            feat[t] = np.log1p(x[t] * x[t]) - np.sqrt(x[t])
    return pop, feat


def row_filter(x, a):
    """A soft-clipped one-pole filter along each row of ``x``.

    Args:
      x: float64 [rows, steps], one signal per row.
      a: float, the feedback of the filter, in (0, 1).

    Returns:
      float64 [rows, steps], ``y[i, t] = tanh(a * y[i, t - 1] + x[i, t])`` with ``y[i, 0] = 0``.
    """
    y = np.zeros(x.shape)
    # pforge: vectorized loop (was lines 60-62: map over y, x, indexed output y, 1 inner loop) with
    #   batched ops, where its run-time checks hold
    if (
        type(x) is np.ndarray
        and np.ndim(a) == 0
        and x.ndim >= 2
        and x.shape[0] > 0
        and x.shape[1] > 1
    ):
        for t in range(1, x.shape[1]):
            y[:x.shape[0], t] = np.tanh(a * y[:x.shape[0], t - 1] + x[:, t])
    else:
        for i in range(x.shape[0]):
            for t in range(1, x.shape[1]):
                y[i, t] = np.tanh(a * y[i, t - 1] + x[i, t])
    return y


def reference_logistic_features(x, r):
    """Hand-batched equivalent of :func:`logistic_features`: the recurrence as a loop, the
    feature as whole arrays."""
    n = len(x)
    pop = np.zeros(n)
    pop[0] = x[0]
    for t in range(1, n):
        pop[t] = r * pop[t - 1] * (1.0 - pop[t - 1]) * 0.5 + 0.5 * x[t]
    feat = np.zeros(n)
    feat[1:] = np.log1p(x[1:] * x[1:]) - np.sqrt(x[1:])
    return pop, feat


def reference_row_filter(x, a):
    """Hand-batched equivalent of :func:`row_filter`: one loop over the steps, every row at once."""
    y = np.zeros(x.shape)
    for t in range(1, x.shape[1]):
        y[:, t] = np.tanh(a * y[:, t - 1] + x[:, t])
    return y


def example_inputs(seed=0):
    """Inputs for each function: 4,000 steps; 256 rows of 200 steps."""
    rng = np.random.default_rng(seed)
    return {
        "logistic_features": (rng.uniform(0.0, 1.0, 4000), 3.7),
        "row_filter": (rng.standard_normal((256, 200)), 0.8),
    }
