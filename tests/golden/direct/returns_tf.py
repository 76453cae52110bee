"""Rewards-to-go, discounted returns and segment offsets of an episode, in TensorFlow.

What it does: ``reward_to_go`` sums, for every step of an episode, the rewards from that
step to the end; ``discounted_returns`` does the same with each later reward discounted by
``gamma`` per step; ``masked_returns`` does it for episodes laid end to end, the return
restarting where a mask is 0; ``segment_offsets`` gives, for segments of the given lengths
laid end to end, where each one starts.

Where it shows up: the targets of policy-gradient reinforcement learning (REINFORCE, the
returns of actor-critic methods) computed in TensorFlow; the row starts of ragged tensors,
packed sequences and CSR matrices.

Pattern: a running value appended to a list in every iteration and the list stacked. The
returns walk the episode backwards (``reversed(range(...))``) and stack the list reversed
(``tf.stack(out[::-1])``), so the values come out in the rewards' order; the masked returns
put each return at the front of the list (``returns.insert(0, g)``) instead, and multiply the
running value by the mask inside the product (``gamma * g * masks[t]``); the offsets append
the running total before adding the segment's length (an exclusive scan).

Expected verdict: vectorizable as scans (PF106). The direct backend writes
``tf.math.cumsum(rewards, axis=0, reverse=True)`` (an ``add`` scan from 0, an unsafe fix:
TensorFlow's order may differ from the loop's in the last bits), ``tf.scan(...,
reverse=True)`` for the discounted returns and the masked ones (``linear`` scans: the loop's
own steps, equal to it; the list built from the front is the scan in the rewards' order),
and ``tf.math.cumsum(lengths, axis=0, exclusive=True)`` for the offsets (integers, so exact
in any order, though pforge, which knows no dtypes, still calls the sum an unsafe fix).
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
    # pforge: vectorized loop (was lines 44-46: map over rewards, collector out, add scan total)
    #   with batched ops
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
    # pforge: vectorized loop (was lines 62-64: map over rewards, collector returns, linear scan g)
    #   with batched ops
    tf.debugging.assert_rank(gamma, 0)
    tf.debugging.assert_rank(rewards, 1)
    returns = tf.scan(
        lambda h, g_step: gamma * h + g_step,
        rewards,
        initializer=tf.convert_to_tensor(0.0, rewards.dtype),
        reverse=True,
    )
    return returns


@tf.function
def masked_returns(rewards, masks, gamma):
    """The discounted return of every step of a batch of episodes laid end to end, as A2C's
    ``compute_returns`` writes it: walking backwards, each return put at the front of the list.

    Args:
      rewards: float32 [steps], the reward of each step.
      masks: float32 [steps], 0 where an episode ends at that step (the return restarts), else 1.
      gamma: float, the discount factor, in [0, 1].

    Returns:
      float32 [steps], the discounted sum of the rewards from ``t`` to the end of its episode.
    """
    # pforge: vectorized loop (was lines 82-84: map over rewards, collector returns, linear scan g)
    #   with batched ops
    tf.debugging.assert_rank(gamma, 0)
    tf.debugging.assert_rank(masks, 1)
    tf.debugging.assert_rank(rewards, 1)
    tf.debugging.assert_less_equal(
        rewards.shape[0], tf.shape(masks)[0], message="index out of range of masks"
    )
    masks = tf.convert_to_tensor(masks)
    masks_rows = masks[:rewards.shape[0]]
    returns = tf.scan(
        lambda h, g_step: g_step[0] + gamma * h * g_step[1],
        (rewards, masks_rows),
        initializer=tf.convert_to_tensor(0.0, rewards.dtype),
        reverse=True,
    )
    return returns


@tf.function
def segment_offsets(lengths):
    """Where each segment starts when segments of ``lengths`` are laid end to end.

    Args:
      lengths: int32 [segments], the length of each segment.

    Returns:
      int32 [segments], ``sum(lengths[:k])`` for each segment ``k``.
    """
    start = 0
    # pforge: vectorized loop (was lines 99-101: map over lengths, collector starts, add scan start)
    #   with batched ops
    start_steps = tf.math.cumsum(lengths, axis=0, exclusive=True)
    starts = tf.stack([start]) if start_steps.shape[0] == 1 else start_steps
    return starts


def reference_reward_to_go(rewards):
    """Hand-batched equivalent of :func:`reward_to_go`."""
    return tf.math.cumsum(rewards, reverse=True)


def reference_discounted_returns(rewards, gamma):
    """Hand-batched equivalent of :func:`discounted_returns`: ``tf.scan`` walking backwards."""
    return tf.scan(lambda g, r: r + gamma * g, rewards, initializer=tf.constant(0.0, rewards.dtype),
                   reverse=True)


def reference_masked_returns(rewards, masks, gamma):
    """Hand-batched equivalent of :func:`masked_returns`: ``tf.scan`` over the rewards and
    masks walking backwards."""
    return tf.scan(lambda g, rm: rm[0] + gamma * g * rm[1], (rewards, masks),
                   initializer=tf.constant(0.0, rewards.dtype), reverse=True)


def reference_segment_offsets(lengths):
    """Hand-batched equivalent of :func:`segment_offsets`."""
    return tf.math.cumsum(lengths, exclusive=True)


def example_inputs(seed=0, steps=10_000):
    """An episode of sparse rewards (gamma 0.99), episodes ending with probability 1/200 per
    step; segments of 1 to 64 items."""
    rng = np.random.default_rng(seed)
    rewards = tf.constant(np.where(rng.random(steps) < 0.05, 1.0, 0.0), tf.float32)
    masks = tf.constant(np.where(rng.random(steps) < 0.005, 0.0, 1.0), tf.float32)
    lengths = tf.constant(rng.integers(1, 65, steps), tf.int32)
    return {"reward_to_go": (rewards,), "discounted_returns": (rewards, 0.99),
            "masked_returns": (rewards, masks, 0.99), "segment_offsets": (lengths,)}
