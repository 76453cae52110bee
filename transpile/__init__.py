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

import importlib

from pforge.transpile.errors import InternalError, PforgeError, SourceError
from pforge.transpile.remarks import RULES, Remark, Rule

#: The analysis and the backends load on first use (PEP 562): a warm `pforge check`, which
#: reads every outcome from its cache, never imports gast, beniget or the rule registry.
_LAZY = {"TranspileResult": "pipeline", "analyze_source": "pipeline",
         "transpile_source": "pipeline", "LevelPlan": "plan", "LoopPlan": "plan"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f"pforge.transpile.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'pforge.transpile' has no attribute {name!r}")

__all__ = [
    "InternalError", "LevelPlan", "LoopPlan", "PforgeError", "RULES", "Remark", "Rule",
    "SourceError", "TranspileResult", "analyze_source", "transpile_source",
]
