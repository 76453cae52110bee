"""The vector plan: what replaces a loop nest, decided once, printed by either backend.

Analyses annotate the loop (:mod:`pforge.transpile.analysis`); :func:`build_plan` turns a
vectorizable nest into an ordered list of recipes over the whole iteration space (after LLVM's
VPlan); the pfor and direct backends print it. ``pforge explain --plan`` shows it.
"""

from pforge.transpile.vplan.build import InnerLoopDecision, build_plan, inner_loop, reduction_recipe
from pforge.transpile.vplan.conditionals import IfConversion, branch_locals, if_conversion, written
from pforge.transpile.operators import OPERATORS, ReductionOp
from pforge.transpile.vplan.recipes import Plan, Recipe, Value

__all__ = ["OPERATORS", "IfConversion", "InnerLoopDecision", "Plan", "Recipe", "ReductionOp", "Value",
           "branch_locals", "build_plan", "if_conversion", "inner_loop", "reduction_recipe", "written"]
