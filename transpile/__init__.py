"""Source-to-source loop vectorization: analysis, plans, backends and splice.

>>> from pforge.transpile import analyze_source
>>> plan, = analyze_source('''
... def f(x):
...     total = 0.0
...     for i in range(len(x)):
...         total += x[i] * 2
...     return total
... ''')
>>> plan.vectorizable, plan.remarks[0].code
(True, 'PF102')
"""

from pforge.transpile.errors import InternalError, PforgeError, SourceError
from pforge.transpile.pipeline import TranspileResult, analyze_source, transpile_source
from pforge.transpile.plan import LevelPlan, LoopPlan
from pforge.transpile.remarks import RULES, Remark, Rule

__all__ = [
    "InternalError", "LevelPlan", "LoopPlan", "PforgeError", "RULES", "Remark", "Rule",
    "SourceError", "TranspileResult", "analyze_source", "transpile_source",
]
