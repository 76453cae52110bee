import numpy as np

# helper-chain (session 34), after b99: a value table indexed as a chain, `self.Q[s][a]` (or a
# parameter's `Q[s][i]`), with no annotation. The rewrite read the row as `np.asarray(self.Q[s])[:n]`
# with no check of its kind: a dict of dicts makes `self.Q[s]` one object array, which raises
# IndexError where the loop returns, and a list of lists gives rows of Python floats whose sum is
# a NumPy float where the loop's is a Python float. The rows a chain reads are of its root's kind:
# the root is now checked as a name or an attribute read through `np.asarray` is
# (`type(Q) is np.ndarray`; an attribute after the trip count), so only an array's rows batch.


class Agent:
    def __init__(self, q, n):
        self.Q = q
        self.n = n

    def greedy(self, s):
        vals = [self.Q[s][a] for a in range(self.n)]
        return np.argmax(vals)

    def total(self, s):
        t = 0.0
        for a in range(self.n):
            t += self.Q[s][a]
        return t


def row_total(Q, s, n):
    t = 0.0
    for i in range(n):
        t += Q[s][i]
    return t


def row_array(Q, s, n):
    return np.array([Q[s][i] for i in range(n)])


def dicts(n_states, n_actions):
    return {s: {a: float((s * 7 + a * 3) % 5) for a in range(n_actions)} for s in range(n_states)}


def lists(n_states, n_actions):
    return [[float((s * 7 + a * 3) % 5) for a in range(n_actions)] for s in range(n_states)]


def greedy(q, n, s):
    return Agent(q, n).greedy(s)


def total(q, n, s):
    return Agent(q, n).total(s)


CALLS = [('greedy', 'dicts(3, 4), 4, 1'),
         ('greedy', 'lists(3, 4), 4, 1'),
         ('greedy', 'np.arange(12.0).reshape(3, 4), 4, 2'),
         ('total', 'dicts(3, 4), 4, 2'),
         ('total', 'lists(3, 4), 4, 2'),
         ('total', 'np.arange(12.0).reshape(3, 4), 4, 1'),
         ('total', 'None, 0, 0'),
         ('row_total', 'dicts(3, 4), 1, 4'),
         ('row_total', 'lists(3, 4), 1, 4'),
         ('row_total', 'np.arange(12.0).reshape(3, 4), 2, 4'),
         ('row_total', 'dicts(3, 4), 1, 0'),
         ('row_array', 'dicts(3, 4), 0, 4'),
         ('row_array', 'lists(3, 4), 0, 4'),
         ('row_array', 'np.arange(12.0).reshape(3, 4), 1, 4'),
         ('row_array', 'None, 0, 0')]

REWRITTEN = ('Agent.greedy', 'Agent.total', 'row_total', 'row_array')
