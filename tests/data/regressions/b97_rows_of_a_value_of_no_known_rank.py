import numpy as np

# session 33, real code (helper-56: eriklindernoren/ML-From-Scratch, the DQN's replay buffer): a
# list comprehension over the rows of an argument of no known rank took them through
# `np.asarray`, with no check: a list of `(action, reward)` tuples became float64 rows (the
# loop's ints came back as floats), a list of `(state_array, action)` tuples raised. Only an
# ndarray's rows are now taken that way; anything else runs the comprehension.


def first_items(replay):
    return np.array([a[0] for a in replay])


def rewards(replay):
    return np.array([a[1] * 2.0 for a in replay])


CALLS = [('first_items', '[(1, 2.5), (3, 4.5)]'),
         ('first_items', '[(np.zeros(2), 0, 0.5)] * 2'),
         ('first_items', 'np.array([[1.0, 2.0], [3.0, 4.0]])'),
         ('rewards', '[(1, 2), (3, 4)]'),
         ('rewards', 'np.array([[1, 2], [3, 4]])')]

REWRITTEN = ['first_items', 'rewards']
