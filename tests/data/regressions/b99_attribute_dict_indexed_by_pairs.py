import numpy as np

# helper-56 (session 33), on real code (ddbourgin/numpy-ml, the temporal-difference agent's
# greedy policy): a value table held by an attribute, `self.Q`, is a dict keyed by
# (state, action) pairs. The rewrite read it as `np.asarray(self.Q)[s, a]`, which indexes one
# object array and raises IndexError where the loop returns. An attribute read through
# `np.asarray` is now checked to be an array, after the trip count (a loop of no iteration
# never reads it).


class Agent:
    def __init__(self, q, n):
        self.Q = q
        self.n = n

    def greedy(self, s):
        vals = [self.Q[s, a] for a in range(self.n)]
        return np.argmax(vals)

    def total(self, s):
        t = 0.0
        for a in range(self.n):
            t += self.Q[s, a]
        return t


def table(n_states, n_actions):
    return {(s, a): float((s * 7 + a * 3) % 5) for s in range(n_states) for a in range(n_actions)}


def greedy(q, n, s):
    return Agent(q, n).greedy(s)


def total(q, n, s):
    return Agent(q, n).total(s)


CALLS = [('greedy', 'table(3, 4), 4, 1'),
         ('greedy', 'np.arange(12.0).reshape(3, 4), 4, 2'),
         ('total', 'table(3, 4), 4, 2'),
         ('total', 'np.arange(12.0).reshape(3, 4), 4, 1'),
         ('total', 'None, 0, 0'),
         ('greedy', 'table(2, 1), 1, 0')]

REWRITTEN = ('Agent.greedy', 'Agent.total')
