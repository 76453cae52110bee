"""Finds loops and annotates each level with its iteration space, name classes and blockers.

Analyses annotate, they never rewrite. For each loop level the result is a :class:`LoopInfo`:
every name touched in the body gets one class (docs/architecture.md, "Names the project
uses"), subscripted accesses go through the dependence test
(:mod:`pforge.transpile.dependence`), calls through the effect tables
(:mod:`pforge.transpile.effects`), and each reason the level cannot be vectorized becomes a
``PF2xx`` remark naming the variable and the lines. Def-use chains come from beniget.

The analyses live in one module each: :mod:`.discovery` (finding loops, the per-level
driver), :mod:`.facts` (what they record), :mod:`.structure`, :mod:`.collectors`,
:mod:`.reductions`, :mod:`.classes`, :mod:`.subscripts`, :mod:`.aliasing`, :mod:`.calls`, and
:mod:`.nodes` (tree helpers they share).
"""

from pforge.transpile.analysis.calls import NEUTRAL_CONSTANTS
from pforge.transpile.analysis.classes import read_outside
from pforge.transpile.analysis.collectors import CONSUMERS, _append_counts
from pforge.transpile.analysis.discovery import discover
from pforge.transpile.analysis.facts import (ARG_REDUCTION, CARRIED, COLLECTOR, COMPREHENSION, DERIVED,
                                             INDEXED, INDUCTION, INVARIANT, ITEM, PRIVATE, REDUCTION, SCAN,
                                             ArgReduction, Collector, LoopInfo, ModuleContext, Reduction,
                                             Scan, WholeModuleNeeded)
from pforge.transpile.analysis.nodes import _binding, _scope_nodes, _statement_of, appended_item
from pforge.transpile.analysis.reductions import contribution, reduction_term
from pforge.transpile.analysis.subscripts import runs_before, spelled_out_update

__all__ = ["ARG_REDUCTION", "CARRIED", "COLLECTOR", "COMPREHENSION", "CONSUMERS", "DERIVED", "INDEXED",
           "INDUCTION", "INVARIANT", "ITEM", "NEUTRAL_CONSTANTS", "PRIVATE", "REDUCTION", "SCAN",
           "ArgReduction", "Collector", "LoopInfo", "ModuleContext", "Reduction", "Scan", "WholeModuleNeeded",
           "appended_item", "contribution", "discover", "read_outside", "reduction_term", "runs_before", "spelled_out_update",
           # tree helpers the printers share with the analyses
           "_append_counts", "_binding", "_scope_nodes", "_statement_of"]
