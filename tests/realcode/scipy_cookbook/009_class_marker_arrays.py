"""Source: https://github.com/scipy/scipy-cookbook/blob/9b9d05d28feb3e5189376fcbd10ef52c62bc43c6/ipython/LinearClassification.ipynb (function `main`, notebook cell 3, the second loop)
Project: scipy/scipy-cookbook
Description: fills three per-class marker arrays with the class number whenever some sample was assigned to that class (used for plotting).
Note: the notebook is Python 2 (`xrange`); that is the only change.
"""
import numpy as np

EXPECT = {
    "vectorizable": True,
    "why": "no iteration reads t1, t2 or t3; every write stores the same constant, so the order of the writes does not matter",
}


def original(t_assigned, n1, n2, n3):
 t1=np.zeros(shape=(n1, 1))
 t2=np.zeros(shape=(n2, 1))
 t3=np.zeros(shape=(n3, 1))
 for i in range(len(t_assigned)):
  for j in range(n1):
   if t_assigned[i][0]==1: t1[j]=1
   elif t_assigned[i][1]==1: t2[j]=2
   elif t_assigned[i][2]==1: t3[j]=3
 return t1, t2, t3


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    n = 20
    t_assigned = np.zeros((n, 3))
    lab = rng.integers(0, 4, n)     # 3 means no class was assigned
    for i in range(n):
        if lab[i] < 3:
            t_assigned[i][lab[i]] = 1
    if seed == 1:
        t_assigned[:, 2] = 0        # one class never assigned
    return (t_assigned, 6, 7, 7)
