import numpy as np

# session 33, real code (helper-56: ShangtongZhang/reinforcement-learning-an-introduction,
# chapter 9 and 10, n-step returns): a local bound to a list literal and grown with `.append`
# took the rank of its literal and was indexed as an array (`rewards[np.arange(...)]`, a
# TypeError on every call). A local bound to a list literal is now read through `np.asarray`,
# as a list the rank inference found is.


def n_step_return(episode_rewards, start, n):
    rewards = [0]
    for r in episode_rewards:
        rewards.append(r)
    returns = 0.0
    for t in range(start + 1, start + n + 1):
        returns += rewards[t]
    return float(returns)


def scaled_items(values):
    items = [0.0, 1.0]
    for v in values:
        items.append(v)
    out = np.zeros(len(items))
    for t in range(len(items)):
        out[t] = items[t] * 2.0
    return out


CALLS = [('n_step_return', '[1.0, 2.0, 3.0, 4.0], 0, 3'),
         ('n_step_return', '[1.5, -2.0], 1, 1'),
         ('scaled_items', '[3.0, 4.5]')]

REWRITTEN = ['n_step_return', 'scaled_items']
