"""Packs (stream compaction): ``if t: j += 1; a[j] = v`` writes the values whose test holds into
consecutive elements of ``a``, in the loop's order (TSVC s341; the ``k = 0; ...; if keep:
out[k] = x[i]; k += 1`` idiom of filtering into a preallocated array).

The counter ``j`` is read before it is written, a loop-carried dependence, and the write's index
is data: no test of the dependence analysis admits either. But ``j`` only counts the iterations
whose test held, and is read nowhere but as the index of the write under that same test: the
elements written are ``j0 + 1``, ``j0 + 2``, ... (``j0``, ``j0 + 1``, ... where the write comes
before the increment), one per iteration whose test holds, each once. So the loop is the pack
of Blelloch's "Prefix sums and their applications" (1990, section 1.3) with the write offsets
known in closed form:

    vals = v[t]                              # the values where the test holds, in order
    a[j0 + 1:j0 + 1 + len(vals)] = vals
    j = j0 + len(vals)

:func:`find_packs` records the pattern (:class:`~pforge.transpile.analysis.facts.Pack`); the
direct printer writes it for NumPy arrays (``ConditionalsMixin._pack``), checking at run time
that ``a`` is an array and ``j`` an integer with ``j0 + 1 >= 0`` (a negative index would wrap
around, element by element, where a slice would not).
"""

from __future__ import annotations

import gast

from pforge.transpile.analysis.facts import PACK, Pack
from pforge.transpile.analysis.nodes import statements_under_tests


def find_packs(info, body) -> None:
    """Records in ``info.packs`` each ``if`` statement of ``body`` (the level's own statements,
    and those under its ``if`` statements) that is a pack, and classes its counter
    :data:`~pforge.transpile.analysis.facts.PACK`.

    An ``if`` with no ``else`` whose body is exactly ``j += 1`` and ``a[j] = v``, in either
    order, where:

    - ``j`` is in the body only as that ``j += 1`` and as the write's index (no test, value,
      other statement or nested function reads or binds it: the increment is its only store);
    - that write is the body's only store into ``a`` or its attributes, and no other name
      ``a`` is in the body (nothing reads or rebinds it, and it is not the counter; the values
      come from elsewhere: an in-place compaction, ``a[j] = a[i]``, stays a loop).

    (A loop target written this way is refused where the loop rebinds it, PF211, or writes into
    it, :mod:`~pforge.transpile.analysis.subscripts`.)
    """
    for stmt in statements_under_tests(body):
        found = _pack(stmt)
        if found is None:
            continue
        counter, array, write, increment = found
        index = write.targets[0].slice
        target = write.targets[0].value
        everything = [n for s in body for n in gast.walk(s)]
        if any(isinstance(n, gast.Name) and n.id == counter and n is not index and n is not increment.target
               for n in everything):
            continue
        if any(isinstance(n, gast.Name) and n.id == array and n is not target for n in everything):
            continue
        info.packs[counter] = Pack(counter, array, stmt, write, increment,
                                   write_first=stmt.body[0] is write)
        info.classes[counter] = PACK


def _pack(stmt) -> tuple[str, str, gast.Assign, gast.AugAssign] | None:
    """``(j, a, the write, the increment)`` where ``stmt`` is ``if t: j += 1; a[j] = v`` (or the
    write first)."""
    if not isinstance(stmt, gast.If) or stmt.orelse or len(stmt.body) != 2:
        return None
    for increment, write in (stmt.body, stmt.body[::-1]):
        if not (isinstance(increment, gast.AugAssign) and isinstance(increment.op, gast.Add)
                and isinstance(increment.target, gast.Name) and isinstance(increment.value, gast.Constant)
                and type(increment.value.value) is int and increment.value.value == 1):
            continue
        if not (isinstance(write, gast.Assign) and len(write.targets) == 1
                and isinstance(write.targets[0], gast.Subscript)
                and isinstance(write.targets[0].value, gast.Name)
                and isinstance(write.targets[0].slice, gast.Name)
                and write.targets[0].slice.id == increment.target.id):
            continue
        return increment.target.id, write.targets[0].value.id, write, increment
    return None
