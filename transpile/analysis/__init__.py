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

# Every name of the former single module stays importable from here (other modules and tests
# use some private ones too).
from pforge.transpile.analysis.nodes import (_binding, _loaded_names, _scope_nodes, _statement_of,
                                             _statements, _stored_names)  # noqa: F401
from pforge.transpile.analysis.facts import (_AUG_OPS, ARG_REDUCTION, CARRIED, COLLECTOR,
                                             COMPREHENSION, DERIVED, INDEXED, INDUCTION, INVARIANT,
                                             ITEM, PRIVATE, REDUCTION, TRY_STATEMENTS, ArgReduction,
                                             Collector, LoopInfo, ModuleContext, Reduction,
                                             WholeModuleNeeded, _parents,
                                             _QuietDefUseChains)  # noqa: F401
from pforge.transpile.analysis.aliasing import (_FRESH_CALLS, _VIEW_ATTRS, _VIEW_CALLS,
                                                _VIEW_METHODS, _alias_source, _check_inplace_views,
                                                _fresh_value, _is_argument, _local_definitions,
                                                _merge_aliases, _op_text, _origin,
                                                _repeated_positions, _repetition, _same_each_time,
                                                _shallow_copy_source, _shared_row_written,
                                                _through_shared_rows, _view_base)  # noqa: F401
from pforge.transpile.analysis.collectors import (CONSUMERS, _append_counts,
                                                  _comprehension_collector, _consumer_kind,
                                                  _find_collectors, _find_tensorarrays,
                                                  _is_empty_list)  # noqa: F401
from pforge.transpile.analysis.reductions import (_BOOLEAN_CALLS, _COMPARE_DIRECTION, _MIRROR,
                                                  _REDUCE_CALLS, _evidently_boolean,
                                                  _find_arg_reductions, _find_reductions,
                                                  _initial_values, _is_sequence_value,
                                                  _pairs_assigned, _reduction_update, contribution,
                                                  reduction_term)  # noqa: F401
from pforge.transpile.analysis.structure import (_UNANALYSED, _own_level_nodes,
                                                 _structural_blockers,
                                                 _trip_count_notes)  # noqa: F401
from pforge.transpile.analysis.classes import (_classify_scalars, _exposed_reads, _find_derived,
                                               _record, read_outside)  # noqa: F401
from pforge.transpile.analysis.subscripts import (_aug_kind, _check_subscripts, _inner_targets,
                                                  _lowest_index, _same_subscript_reads,
                                                  _whole_array_use, _wrapping_access, runs_before,
                                                  spelled_out_update)  # noqa: F401
from pforge.transpile.analysis.calls import (NEUTRAL_CONSTANTS, _check_calls, _definition_libraries,
                                             _detect_library)  # noqa: F401
from pforge.transpile.analysis.discovery import (_COMPREHENSION_FORMS, _analyse_level,
                                                 _array_building, _child_blocks, _generated,
                                                 _guard_rest, _implicit_loop_info, _implicit_loops,
                                                 _located, _may_build_array, _normalise_continue,
                                                 discover)  # noqa: F401
