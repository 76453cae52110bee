"""Rewards-to-go, discounted returns and segment offsets of an episode, in TensorFlow.

What it does: ``reward_to_go`` sums, for every step of an episode, the rewards from that
step to the end; ``discounted_returns`` does the same with each later reward discounted by
``gamma`` per step; ``segment_offsets`` gives, for segments of the given lengths laid end to
end, where each one starts.

Where it shows up: the targets of policy-gradient reinforcement learning (REINFORCE, the
returns of actor-critic methods) computed in TensorFlow; the row starts of ragged tensors,
packed sequences and CSR matrices.

Pattern: a running value appended to a list in every iteration and the list stacked. The
returns walk the episode backwards (``reversed(range(...))``) and stack the list reversed
(``tf.stack(out[::-1])``), so the values come out in the rewards' order; the offsets append
the running total before adding the segment's length (an exclusive scan).

Expected verdict: vectorizable as scans (PF106). The direct backend writes
``tf.math.cumsum(rewards, axis=0, reverse=True)`` (an ``add`` scan from 0, an unsafe fix:
TensorFlow's order may differ from the loop's in the last bits), ``tf.scan(...,
reverse=True)`` for the discounted returns (a ``linear`` scan: the loop's own steps, equal to
it), and ``tf.math.cumsum(lengths, axis=0, exclusive=True)`` for the offsets (integers, so exact in
any order, though pforge, which knows no dtypes, still calls the sum an unsafe fix).
"""

import numpy as np
import tensorflow as tf


@tf.function
def reward_to_go(rewards):
    """The undiscounted reward-to-go of every step.

    Args:
      rewards: float32 [steps], the reward of each step.

    Returns:
      float32 [steps], ``sum(rewards[t:])`` at each step ``t``.
    """
    # pforge: vectorized loop (was lines 40-42: map over rewards, collector out, add scan total) with batched ops
    out = tf.math.cumsum(rewards, axis=0, reverse=True)
    return out


@tf.function
def discounted_returns(rewards, gamma):
    """The discounted reward-to-go of every step.

    Args:
      rewards: float32 [steps], the reward of each step.
      gamma: float, the discount factor, in [0, 1].

    Returns:
      float32 [steps], ``sum(gamma ** k * rewards[t + k] for k >= 0)`` at each step ``t``.
    """
    # pforge: vectorized loop (was lines 58-60: map over rewards, collector returns, linear scan g) with batched ops
    returns = tf.scan(lambda h, g_step: gamma * h + g_step, rewards, initializer=tf.convert_to_tensor(0.0, rewards.dtype), reverse=True)
    return returns


@tf.function
def segment_offsets(lengths):
    """Where each segment starts when segments of ``lengths`` are laid end to end.

    Args:
      lengths: int32 [segments], the length of each segment.

    Returns:
      int32 [segments], ``sum(lengths[:k])`` for each segment ``k``.
    """
    # pforge: vectorized loop (was lines 75-77: map over lengths, collector starts, add scan start) with batched ops
    starts = tf.math.cumsum(lengths, axis=0, exclusive=True)
    return starts


def reference_reward_to_go(rewards):
    """Hand-batched equivalent of :func:`reward_to_go`."""
    return tf.math.cumsum(rewards, reverse=True)


def reference_discounted_returns(rewards, gamma):
    """Hand-batched equivalent of :func:`discounted_returns`: ``tf.scan`` walking backwards."""
    return tf.scan(lambda g, r: r + gamma * g, rewards, initializer=tf.constant(0.0, rewards.dtype),
                   reverse=True)


def reference_segment_offsets(lengths):
    """Hand-batched equivalent of :func:`segment_offsets`."""
    return tf.math.cumsum(lengths, exclusive=True)


def example_inputs(seed=0, steps=10_000):
    """An episode of sparse rewards (gamma 0.99); segments of 1 to 64 items."""
    rng = np.random.default_rng(seed)
    rewards = tf.constant(np.where(rng.random(steps) < 0.05, 1.0, 0.0), tf.float32)
    lengths = tf.constant(rng.integers(1, 65, steps), tf.int32)
    return {"reward_to_go": (rewards,), "discounted_returns": (rewards, 0.99), "segment_offsets": (lengths,)}
