"""Reductions over the loop axes (``s += f(x[i])``, also conditional and nested) and per-iteration
row selections of NumPy code read by a masked sum, mean or len."""

from __future__ import annotations

import copy
import dataclasses

import gast

from pforge.transpile import ranks, templates
from pforge.transpile.analysis import reduction_term
from pforge.transpile.analysis.aliasing import unexposed_allocation
from pforge.transpile.analysis.nodes import (_binding, _entry_definitions, dead_start, literal_at_entry, tensor_at_entry,
                                             literal_number_at_entry, number_literal, reversed_operand,
                                             substituted)
from pforge.transpile.backends.direct import core
from pforge.transpile.backends.direct.core import NOT_INT, Unsupported, Val, align, const, lift
from pforge.transpile.backends.direct.indexing import _is_ellipsis
from pforge.transpile.backends.common import _evidently_array
from pforge.transpile.backends.direct.shared import _REDUCE_FN, Ind, _is_boolean, _loads, whole_rows
from pforge.transpile.backends.pfor import _stores
from pforge.transpile.operators import OPERATORS
from pforge.transpile.spaces import constant_int

#: Block sizes of the blocked linear scans, measured on NumPy 2 at 10**3 to 10**6 values: the
#: one-coefficient scan multiplies [blocks, 16] by a 16 x 16 matrix; the lanes of a scan with a
#: coefficient per iteration take 3 sequential steps over [4, blocks]. Lanes of 4 against 8
#: (side by side, in random order, 60 rounds): 8 % faster at 10**4 steps and 10**3, even at
#: 10**5, 7 % slower at 10**6; most of the time at 10**4 is about 1 microsecond of call
#: overhead per NumPy operation, and 4 lanes make the fewest operations there.
TOEPLITZ_BLOCK = 16
LINEAR_BLOCK = 4

class ReductionsMixin:
    """Reductions and per-iteration row selections."""

    # -- reductions ------------------------------------------------------------------------------------

    def _reduction_of(self, name, stmt):
        for k, level in enumerate(self.levels):
            red = level.info.reductions.get(name)
            if red is not None and stmt in red.updates:
                return red, k
        return None

    def _reduce(self, found, stmt):
        red, k = found
        term_node = reduction_term(stmt, red.name)
        if red.op in ("or", "and") and not _is_boolean(term_node, self.ctx):
            raise Unsupported(f"`{red.name}`: an `{red.op}` of values that may not be booleans "
                              "(Python returns an operand, `any`/`all` a bool)")
        term = self.ev(term_node)
        python_term, term_pytype = term.python, term.pytype
        # a term that is a Python number where an invariant scalar is one (`s += c` under a
        # test, `s += i + c`): a number of its kind, read to convert the sum as the loop's is
        witness = term.witness if term.witness is not None else \
            term.node if not term.stacked and term.rank == 0 and not term.python else None
        if term.mixed and red.op in ("add", "mul") and self.lib.kind == "np" and not self.to_tf:
            # a term of two kinds (`x[i] if c[i] else y[i]` of a bool and a uint8 array): the
            # loop's running value takes each term's own kind (True + 0 is 1, uint8 terms then
            # wrap), the batched `where` one dtype for all. Terms of float64 arrays or Python
            # floats compute alike: under the float64 check only.
            if term.mixed not in (core.FLOAT_ARMS, core.FLOAT_ARMS_LOOSE):
                raise Unsupported(f"`{red.name}`: a reduction of terms that are values of two kinds "
                                  "(arrays of two dtypes, or a Python number and a NumPy value)")
            self._mixed_operands(term_node, term.mixed, [])
        if red.op == "mul" and term.python:
            kind = {"int": "integers, which NumPy could overflow", "float": "floats"}.get(
                term_pytype or "", "numbers")
            raise Unsupported(f"`{red.name}`: a product of Python {kind}; batched, it would be a NumPy "
                              "number of a fixed-size dtype")
        depth = len(self.levels)
        if not term.stacked and self.mask is None:
            raise Unsupported(f"`{red.name}`: a reduction term that does not depend on the loop")
        term = lift(self.lib, term, depth)
        first_assign = red.name in getattr(self.levels[k].info.node, "pforge_first_assign", ())
        contraction = None
        if self.mask is not None and red.op == "add" and not python_term and not term.mixed and not first_assign \
                and (k == 0 or isinstance(self.env.get(red.name), Val)):
            # (before the `where`: the terms as they are, and the test as it is)
            running = templates.name(red.name) if k == 0 else copy.deepcopy(self.env[red.name].node)
            contraction = self._masked_contraction(self.mask, term, term_node, list(range(k, depth)), running)
        if self.mask is not None:
            if red.op in ("add", "mul") and self.lib.kind == "np" and not self.to_tf and not python_term:
                # `False`/`True`, not `0`/`1`: beside bool terms a Python int makes int64 ones,
                # which `np.sum` counts where the loop's `m + d` of bools is their `or`
                # (helper-44); beside any other dtype a Python bool is its 0 or 1
                identity = Val(templates.expr("False" if red.op == "add" else "True"), (), 0, True)
            elif OPERATORS[red.op].identity is not None:
                identity = Val(templates.expr(OPERATORS[red.op].identity_text), (), 0, True)
            elif k == 0 and term.rank == 0:
                # max/min: where the test is false, the running value itself changes nothing
                identity = Val(templates.name(red.name), (), 0)
            else:
                raise Unsupported(f"a conditional `{red.op}` reduction of `{red.name}`")
            (m, t, z), full, rank = align(self.lib, [self.mask, term, identity], "a conditional reduction")
            term = Val(self.lib.call("where", m.node, t.node, z.node), full, rank)
        axes = list(range(k, depth))
        if not all(a < len(term.full) and term.full[a] for a in axes):  # (`s - 1` under an outer test)
            raise Unsupported(f"`{red.name}`: a term that does not vary along every loop it is summed over")
        if self.lib.kind == "tf" and red.op in ("max", "min") and k == 0:
            # Grappler hoists a monotonic op out of reduce_max/min (min(tanh(t)) -> tanh(min(t))),
            # which over zero iterations gives tanh(inf) = 1 instead of the running value; a
            # binary op in between keeps it.
            (t, s), full, rank = align(self.lib, [term, Val(templates.name(red.name), (), term.rank)],
                                       f"`{red.name}`")
            term = Val(self.lib.call("maximum" if red.op == "max" else "minimum", t.node, s.node), full, rank)
        fn = _REDUCE_FN[self.lib.kind][red.op]
        fused = term.fused
        if first_assign:
            # `if i == 0: s = t else: s += t`: the terms alone, where the loop runs at all. `s`
            # starts as the first term itself: an array row taken as it is (`s = x[i]`) would be
            # written into by `s += ...`, and its dtype is kept (int8 terms wrap, bools `or`).
            if k != 0 or self.mask is not None or red.op not in ("add", "mul") or term.rank is None \
                    or self.lib.kind != "np" or self.to_tf:
                raise Unsupported(f"`{red.name}`: a reduction whose first iteration assigns, inside "
                                  "another loop or an `if`, or of terms of unknown rank")
            # an element read through an ellipsis (`m[i][..., -1]`) is a 0-d view, not a copy
            view = term.rank > 0 or (isinstance(term_node, gast.Subscript) and any(
                _is_ellipsis(n) for n in gast.walk(term_node.slice)))
            if isinstance(stmt, gast.AugAssign) and view and not isinstance(term_node, (gast.BinOp, gast.UnaryOp)):
                raise Unsupported(f"`{red.name}` starts as a row it then updates in place (`+=` writes "
                                  "into the array the row belongs to)")
            if view and term.rank == 0 and not isinstance(term_node, (gast.BinOp, gast.UnaryOp)):
                # one iteration leaves the 0-d array itself, two a NumPy number (fuzz seed 8192463)
                raise Unsupported(f"`{red.name}` starts as a 0-d array read through an ellipsis, which "
                                  "one iteration leaves as an array and more as a number")
            fused = None
            term = term.with_node(self._hoist(term.node, f"{red.name}_terms"))
        fused_reduced = None
        if contraction is not None:
            reduced = contraction
        elif fused is not None and fused[0] == fn and k == 0:
            reduced = fused_reduced = fused[1]
        else:
            reduced = self.lib.call(fn, term.node, axis=const(axes[0] if len(axes) == 1 else axes))
            if self.lib.kind == "np" and len(axes) > 1:
                reduced.keywords[0].value = gast.Tuple(elts=[const(a) for a in axes], ctx=gast.Load())
            if self.lib.kind == "np" and red.op in ("max", "min") and k == 0 and term.rank == 0 \
                    and (self.to_tf or self.mask is not None):
                # an empty loop leaves the running value; NumPy's max of nothing would raise.
                # (NumPy code runs batched only where the loop runs (`needs_trip`) or a masked
                # iteration does (`np.any`): `initial` casts to the terms' dtype, bool(-inf) True.)
                reduced.keywords.append(gast.keyword(arg="initial", value=templates.name(red.name)))
            if self.lib.kind == "np" and not self.to_tf and red.op in ("add", "mul") and k == 0 \
                    and not python_term and not first_assign:
                # The loop accumulates in the dtype of `s + t`: int8 terms added to 0 wrap in
                # int8, float32 terms added to a float64 row stay float64. np.sum's own
                # accumulator differs (int64 for small integers and bools, the terms' dtype for
                # floats), so the sum is taken in NumPy's result type of the running value and
                # the terms.
                terms = self._hoist(reduced.args[0], f"{red.name}_terms")
                reduced.args[0] = terms
                reduced.keywords.append(gast.keyword(arg="dtype", value=templates.expr(
                    f"{self.lib.alias}.result_type(S, T)", S=templates.name(red.name), T=copy.deepcopy(terms))))
        if python_term and k == 0 and term.rank == 0 and self.lib.kind == "np" and not self.to_tf \
                and red.op == "add":
            # Python numbers summed give a Python number (`count += 1`), not a NumPy scalar;
            # Python ints past int64 too (`n += int(v)`): summed as objects, exactly
            if term.pytype == "int" and isinstance(reduced, gast.Call) and not _counts(term.node):
                reduced.keywords.append(gast.keyword(arg="dtype", value=templates.expr("object")))
            else:
                reduced = gast.Call(func=gast.Attribute(value=reduced, attr="item", ctx=gast.Load()), args=[],
                                    keywords=[])
        elif witness is not None and k == 0 and term.rank == 0 and self._np and red.op == "add" and not first_assign:
            if term.pytype not in ("float", "complex"):
                self._int_sum_holds(term_node, red.name)
            reduced = self._of_the_terms_kind(reduced, witness, red.name)
        elif witness is not None and k == 0 and term.rank == 0 and self._np and red.op == "mul" and not first_assign:
            reduced = self._of_the_factors_kind(reduced, witness, red.name)
        # (the loop's `tf.maximum(0, t)` converts the Python number to `t`'s dtype; staged,
        # `tf.maximum(0, r)` converts it first, to int32, and raises: the running value
        # converted to the reduced terms' dtype)
        converted = self.lib.kind == "tf" and red.op in ("max", "min") and k == 0 and isinstance(stmt, gast.Assign) \
            and isinstance(stmt.value, gast.Call) and not self._tensor_start(red.name)
        if converted:
            reduced = self._hoist(reduced, f"{red.name}_reduced")
        new = _replace_term(copy.deepcopy(stmt), red.name, reduced)
        if converted:
            new.value.args = [templates.expr(f"{self.lib.alias}.convert_to_tensor(S, R.dtype)", S=a, R=reduced)
                              if isinstance(a, gast.Name) and a.id == red.name else a for a in new.value.args]
        begin = self._product_start(red, k, reduced, fused_reduced, first_assign or python_term)
        if begin is not None and k == 0:
            new = gast.copy_location(gast.Assign(targets=[templates.name(red.name, store=True)], value=reduced,
                                                 type_comment=None), stmt)
        if first_assign:
            if not python_term:
                reduced.keywords.append(gast.keyword(arg="dtype", value=templates.expr("T.dtype", T=term.node)))
            if witness is not None and red.op == "add":
                reduced = self._of_the_terms_kind(reduced, witness, red.name)
            elif witness is not None and red.op == "mul":
                reduced = self._of_the_factors_kind(reduced, witness, red.name)
            new = gast.copy_location(gast.Assign(targets=[templates.name(red.name, store=True)], value=reduced,
                                                 type_comment=None), stmt)
            self.nonempty = True
        # (`s = np.logaddexp(s, -i)` of Python terms is a NumPy number too: fuzz seed 8190601)
        numpy_update = isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call) and \
            (self.ctx.imports.resolve(stmt.value.func) or "").startswith("numpy.")
        if k == 0 and self._np and (not python_term or numpy_update) and self.mask is None:
            # a loop of no iteration leaves `s` as it was (a Python float stays one), where
            # `s + np.sum(nothing)` is a NumPy scalar: the batched code runs where the loop does
            self.needs_trip = True
        if k == 0:
            if self.in_branch and self.mask is None:
                raise Unsupported("internal: a branch without a mask. This is a bug.")
            if self.mask is not None and self.lib.kind == "np" and not self.to_tf:
                # where no iteration passes the test the loop leaves `s` as it was: a Python
                # float stays one, -0.0 keeps its sign (adding the identity would not)
                new = gast.If(test=self.lib.call("any", copy.deepcopy(self.mask.node)), body=[new], orelse=[])
            self.out.append(new)
            return
        current = self.env.get(red.name)
        if not isinstance(current, Val) or (current.stacked and current.depth != k) or (
                not current.stacked and red.name not in _stores(self.levels[k - 1].info.body)):
            raise Unsupported(f"`{red.name}`: an inner reduction of a value not private to the outer loop")
        if not current.stacked:  # initialised with an invariant in each outer iteration
            current = Val(current.node, (False,) * k, current.rank, current.python, pytype=current.pytype)
        if (red.name in self.python_sums or current.python and self.mask is not None) \
                and not python_term and self._np:
            # (under a test, `np.result_type(m, terms)` of `m = -1` and uint8 terms raises where
            # no iteration passes it and the loop returns: it is float64 and int64 there too)
            # a Python number takes an array's dtype at the loop's first step (`s = 0`, then
            # `s + d` of uint8 values wraps from there), which one batched sum per outer
            # iteration cannot follow where another update came first (`s = s - 1`, a Python
            # number per outer iteration): float64 and int64 only
            self._wide_reads(self.levels[k].info.node)
        if self.lib.kind == "np" and not self.to_tf and red.op in ("add", "mul") and not python_term \
                and reduced is not fused_reduced and reduced is not contraction:
            # As at the top level: the inner loop accumulates in the dtype of `s + t` (int8 terms
            # added to 0 wrap, ints added to 0.0 are floats), where np.sum's own accumulator is
            # int64 for small integers and the terms' dtype for floats.
            terms = self._hoist(reduced.args[0], f"{red.name}_terms")
            reduced.args[0] = terms
            reduced.keywords.append(gast.keyword(arg="dtype", value=templates.expr(
                f"{self.lib.alias}.result_type(S, T)", S=copy.deepcopy(current.node), T=copy.deepcopy(terms))))
        value = reduced if begin is not None else \
            gast.BinOp(left=current.node, op=stmt.op, right=reduced) if isinstance(stmt, gast.AugAssign) \
            else _replace_name(new.value, red.name, current.node)
        if current.rank is None or term.rank is None or current.rank > term.rank or (
                current.stacked and current.rank != term.rank):
            raise Unsupported(f"`{red.name}`: an inner reduction whose ranks do not line up")
        full = tuple(a or b for a, b in zip(current.full, term.full[:k]))
        rank = term.rank
        # a sum of Python numbers into a Python number (`c = 0`, `c = c + 1`) is one per outer
        # iteration, which computes beside arrays as Python's numbers do (a uint8 `m + c` wraps
        # in the loop: helper-44), as the loop index does
        kinds = {current.pytype, term_pytype}
        python = current.python and python_term and red.op == "add" and kinds <= {"int", "float"}
        pytype = ("int" if kinds == {"int"} else "float") if python else None
        if python:
            self.python_sums.add(red.name)
        self._bind(red.name, Val(value, full, rank, python, pytype=pytype), set())

    def _no_object_arrays(self, source, scan) -> None:
        """A check in front that each array ``source`` reads is no object array: ``np.maximum``
        of Python objects is a NumPy number where an object array's accumulate keeps the
        objects, and ``np.isfinite`` of a linear scan's objects raises (helper-38)."""
        for n in sorted({n.id for n in gast.walk(source) if isinstance(n, gast.Name) and n.id in self.arrays
                         and n.id != scan.array and n.id not in self.loop_stores and not self._is_stacked_name(n.id)}):
            check = templates.expr(f"{self.lib.alias}.asarray(A).dtype.kind != 'O'", A=templates.name(n))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)

    def _value_at_entry(self, name: str) -> Val:
        """The value of ``name`` where the loop starts, for a name the loop binds again (so not
        among the locals the rewriter knows): every binding's rank, given or inferred (then
        checked in front of the loop), is its rank where the loop starts; a number literal
        reaching every read (``s = 0.0``) is a number."""
        start = self.ev(templates.name(name))
        if start.rank is None and self.info.function is not None:
            fdef = self.info.function
            given = ranks.local_shapes(fdef, self.shapes).get(name) or \
                ranks.parameter_shapes(self.ctx, fdef, self.shapes).get(name)
            rank = given.rank if given is not None and given.rank is not None else \
                0 if literal_number_at_entry(self.ctx, self.info.node, name) is not None else None
            start = Val(start.node, (), rank)
        return start

    def _product_start(self, red, k: int, reduced, fused_reduced, skip: bool):
        """A product's start as ``np.prod``'s ``initial`` (added to ``reduced``), or None.

        ``s * np.prod(t)`` multiplies the terms first: where their product overflows to inf,
        ``0.0 * inf`` is nan where the loop's ``((s * t0) * t1) ...`` stays 0.0 (fuzz seed
        8194988, uint64 terms near 2 ** 64). NumPy's multiply reduction runs in order from
        ``initial``, so ``np.prod(t, axis, initial=s)`` computes the loop's own products, bit for
        bit. Only for a start that is one Python number the same for every row reduced
        (``initial`` is a scalar; a 0-d array would stay one) in NumPy code, without a mask,
        first assignment or Python terms.
        """
        if skip or red.op != "mul" or self.lib.kind != "np" or self.to_tf or self.mask is not None or \
                reduced is fused_reduced or not isinstance(reduced, gast.Call):
            return None
        # a Python number (a literal reaching the loop, or bound so in the loop around it): a 0-d
        # array start is updated in place by `s *= t` and stays one (helper-38), where
        # `np.prod` gives a NumPy number
        if k == 0:
            start = templates.name(red.name) if literal_number_at_entry(self.ctx, self.info.node, red.name) else None
        else:
            current = self.env.get(red.name)
            start = current.node if isinstance(current, Val) and current.python and not current.stacked \
                and current.rank == 0 else None
        if start is not None:
            reduced.keywords.append(gast.keyword(arg="initial", value=copy.deepcopy(start)))
        return start

    def _int_sum_holds(self, term_node, name) -> None:
        """A check in front that a sum of terms that are Python ints where an invariant is one
        (`s += i * c`) stays within int64, where the batched sum is taken: the trip count times
        the terms' bound (:meth:`ExpressionsMixin._int_bound`), plus the start.

        Raises:
            Unsupported: no bound computable before the loop."""
        bound = self._int_bound(term_node)
        if bound is NOT_INT:
            return  # (terms that are no ints: `c + 1.5`)
        trips = []
        for level in self.levels:
            ind = getattr(level, "ind", None)
            ends = [e for e in (ind.start, ind.stop, ind.step) if e is not None] if ind is not None else None
            if not ends or any(isinstance(n, gast.Name) and (n.id in self.loop_stores or isinstance(
                    self.env.get(n.id), Ind)) for e in ends for n in gast.walk(e)):
                trips = None
                break
            first = [const(0)] if ind.start is None and ind.step is not None else []
            trips.append(templates.expr("len(R)", R=gast.Call(func=templates.name("range"), keywords=[],
                                                             args=first + [copy.deepcopy(e) for e in ends])))
        if bound is None or not trips:
            raise Unsupported(f"`{name}`: a sum of Python ints, which int64 may overflow, with no bound "
                              "pforge can compute before the loop")
        count = trips[0]
        for more in trips[1:]:
            count = gast.BinOp(left=count, op=gast.Mult(), right=more)
        check = templates.expr("N * B + abs(S) < 2 ** 63", N=count, B=bound, S=templates.name(name))
        if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
            self.checks.append(check)

    def _of_the_terms_kind(self, reduced, witness, name):
        """The sum ``reduced`` as the loop's is: Python numbers summed give a Python number,
        NumPy scalars a NumPy scalar, by the kind of ``witness``, a number of the terms' kind
        (``c + 1.5`` of ``q += c + 1.5`` under a test)."""
        total = self._hoist(reduced, f"{name}_total")
        return templates.expr("T.item() if type(W) in (int, float, bool) else T", T=total, W=copy.deepcopy(witness))

    def _of_the_factors_kind(self, reduced, witness, name):
        """The product ``reduced`` as the loop's is, where each factor is a Python number when
        the invariant ``witness`` is one (``s = s * (c + i)``): Python floats multiply to a
        Python float (:meth:`_of_the_terms_kind`); Python ints to a Python int of any size,
        which an int64 product would wrap around (fuzz seed 8318015: 3 * 4 * ... * 32), so a
        Python int or bool ``witness`` runs the loop (checked in front)."""
        check = templates.expr("type(W) not in (int, bool)", W=copy.deepcopy(witness))
        if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
            self.checks.append(check)
        return self._of_the_terms_kind(reduced, witness, name)

    # -- scans ------------------------------------------------------------------------------------------

    def _scan_steps(self, scan) -> None:
        """:meth:`_running_values`; a remark on an array recurrence names the read the carried
        name replaced (``a[i - 1]``), not the name, which is not in the code."""
        try:
            self._running_values(scan)
        except Unsupported as exc:
            if scan.read is None:
                raise
            raise Unsupported(str(exc).replace(f"`{scan.name}`", f"`{scan.read}`")) from None

    def _running_values(self, scan) -> None:
        """The running values of a scan (``s += x[i]; out[i] = s``), as ``{s}_steps``: the value
        before the loop, then after each iteration, by NumPy's ``ufunc.accumulate`` over
        ``[s, t_0, t_1, ...]`` in ``np.result_type(s, terms)``. The accumulate runs in the
        loop's order and dtype (int8 terms wrap, float32 terms added to a float64 start stay
        float64), so every running value is the loop's, bit for bit. A read of ``s`` after the
        update is ``{s}_steps[1:]``, and ``s`` ends as ``{s}_steps[-1]``. Blelloch, "Prefix sums
        and their applications" (1990); NumPy's ``np.add.accumulate`` is a sequential scan.

        Raises:
            Unsupported: TensorFlow code, an inner loop or a branch, a running value of more
                axes than its terms, an array updated in place (`+=` on rows), or terms that
                are Python numbers.
        """
        name = scan.name
        if self.to_tf:
            raise Unsupported(f"`{name}` is a running value (a scan), which NumPy code moved to "
                              "TensorFlow does not get")
        if len(self.levels) != 1 or self.mask is not None:
            raise Unsupported(f"the running value `{name}` of a loop inside another loop")
        if scan.name in self.scan_steps:
            return  # an exclusive scan's steps, computed where the body starts
        if self.lib.kind == "tf":
            if scan.element is not None:
                raise Unsupported(f"`{scan.array}` is an array recurrence, which TensorFlow code does not write")
            return self._tf_scan_steps(scan)
        start = self._value_at_entry(name) if scan.element is None else self._carried_start(scan)
        if scan.op == "linear":
            return self._linear_steps(scan, start)
        in_place = isinstance(scan.update, gast.AugAssign)
        term = self.ev(reduction_term(scan.update, name))
        if start.stacked or start.rank is None or term.rank is None or start.rank > term.rank or (
                in_place and start.rank > 0):
            raise Unsupported(f"the running value `{name}` is neither one number nor rows that "
                              f"`{name} = {name} ⊕ t` rebinds (an array updated in place keeps its dtype "
                              "at every step)")
        self._check_operand_order(scan)
        if scan.element is None:
            self._scan_start_check(name, start.rank, in_place)
        self._terms_are_arrays(term)
        if scan.op not in ("add", "mul"):
            # `np.maximum(s, t)` of Python objects is a NumPy number; an object array's
            # accumulate keeps the objects themselves
            self._no_object_arrays(reduction_term(scan.update, name), scan)
        if term.python and (term.stacked or (scan.op in ("add", "mul") and scan.element is None)):
            # (an array's element is a NumPy number: `a[i - 1] + 1` keeps `a`'s dtype, as the steps do)
            # `s + t` of Python numbers stays a Python number; stacked, they would be one array
            # of a strong dtype where the loop's were weak (np.maximum(f32, 0.5) is float32)
            raise Unsupported(f"`{name}` runs over Python numbers (its values would stay Python "
                              "numbers or take the array's dtype)")
        update = scan.update
        op = update.op if isinstance(update, gast.AugAssign) else getattr(update.value, "op", None)
        ufunc = {"add": "subtract" if isinstance(op, gast.Sub) else "add", "mul": "multiply"}.get(scan.op) or \
            self.ctx.imports.resolve(update.value.func).rsplit(".", 1)[1]
        np_ = self.lib.alias
        within = self._in_place_steps(scan, term, ufunc)
        if within is not None:
            # (`a_prev = a[s - 1]` goes: the steps start from that element itself)
            self.out = [s for s in self.out if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                                                    and s.targets[0].id == name)]
            if whole_rows(within):  # (the scan covers all of `a`: accumulated into itself, by its name)
                steps = within.value.id
                self.out += templates.replace(f"{np_}.{ufunc}.accumulate(A, out=A)", A=templates.name(steps))
            else:
                steps = self.namer.new(f"{name}_steps")
                self.out += templates.replace(f"{steps} = W\n{np_}.{ufunc}.accumulate({steps}, out={steps})",
                                              W=within)
            self.scan_steps[name] = (f"{steps}[1:]", f"{steps}[-1]")
            self.scan_ranks[name] = 0
            self.nonempty = True
            return
        space = self.info.space
        if term.stacked and term.full[0]:
            terms = self._hoist(term.node, f"{name}_terms")
            length = templates.expr("len(T)", T=terms)
        elif not term.stacked and space.kind == "range" and term.rank == 0:  # one term for every iteration
            terms = self._hoist(term.node, f"{name}_term")
            bounds = [copy.deepcopy(a) for a in (space.start, space.stop, space.step) if a is not None]
            length = templates.expr("len(R)", R=gast.Call(func=templates.name("range"), args=bounds, keywords=[]))
        else:
            raise Unsupported(f"`{name}`: a term that does not vary along the loop")
        steps = self.namer.new(f"{name}_steps")
        shape = "N + 1" if term.rank == 0 else \
            f"(N + 1,) + {np_}.broadcast_shapes({np_}.shape(S), {np_}.shape(T)[1:])"  # rows: `s ⊕ t` broadcast
        self.out += templates.replace(
            f"{steps} = {np_}.empty({shape}, {np_}.result_type(S, T))\n{steps}[0] = S\n{steps}[1:] = T\n"
            f"{np_}.{ufunc}.accumulate({steps}, out={steps})", T=terms, S=templates.name(name), N=length)
        # Steps the accumulate cannot take as the loop does run in order, as the loop spells
        # them: an array recurrence stores each running value into `a` and reads it back, in
        # `a`'s dtype (int32 elements, float terms); a complex product rounds otherwise in an
        # array's multiply loop than in the scalar `*` (fused multiply-adds).
        tests = ([f"{steps}.dtype != A.dtype"] if scan.element is not None else []) + \
            ([f"{steps}.dtype.kind == 'c'"] if scan.op == "mul" else [])
        if tests:
            k = self.namer.new(f"{name}_k")
            operator = {"add": "+", "subtract": "-", "multiply": "*"}.get(ufunc)
            step = f"{steps}[{k}] {operator} T" if operator else f"{np_}.{ufunc}({steps}[{k}], T)"
            # (the shape reads the terms whole: `U`, since `T` below is one iteration's term)
            restart = f"    {steps} = {np_}.empty({shape.replace('T)', 'U)')}, A.dtype)\n    {steps}[0] = S\n" \
                if scan.element is not None else ""
            self.out += templates.replace(
                f"if {' or '.join(tests)}:\n{restart}"
                f"    for {k} in range(N):\n"
                f"        {steps}[{k} + 1] = {step}",
                A=templates.name(scan.array or name), S=templates.name(name), N=length, U=copy.deepcopy(terms),
                T=templates.expr(f"T[{k}]", T=terms) if term.stacked else terms)
        last = f"{steps}[-1]"
        witness = term.witness if term.stacked else terms  # (one term for every iteration: itself)
        if witness is not None and term.rank == 0 and ufunc in ("add", "subtract", "multiply"):
            # terms that are Python numbers where an invariant scalar is one (`c - i`, `-c`):
            # then the loop's `s` stays a Python number where its start is one; `steps[-1]` is
            # NumPy's
            operator = {"add": "+", "subtract": "-", "multiply": "*"}[ufunc]
            last = gast.unparse(templates.expr(
                f"{steps}[-1].item() if type(S {operator} W) in (int, float, complex) else {steps}[-1]",
                S=templates.name(name), W=witness)).strip()
        self.scan_steps[name] = (f"{steps}[1:]", last)
        self.scan_ranks[name] = term.rank
        self.nonempty = True  # with no iteration `s` keeps its own type, which `steps[-1]` would not

    def _in_place_steps(self, scan, term, ufunc: str) -> gast.expr | None:
        """``a[s - 1:n]``, where the loop is ``a[i] = a[i - 1] ⊕ a[i]`` over ``range(s, n)``
        (``s`` a literal of at least 1; ``⊕`` a sum, difference, maximum or minimum) and reads
        ``a`` nowhere else: ``np.ufunc.accumulate`` over that view, into it, computes the loop's
        values where the loop does, in ``a``'s dtype (the running value starts as ``a[s - 1]``
        and each term is ``a[i]``: no other dtype enters, so no step needs the loop's order
        again), as ``np.add.accumulate(x, out=x)`` is written by hand. None otherwise.

        NumPy computes a ufunc whose output overlaps its input as if it did not (NumPy 1.13
        release notes, "operations where ufunc input and output operands have memory
        overlap"); the store of the values into ``a[s:n]`` afterwards is then a copy onto
        itself, which NumPy skips (same data, shape and strides)."""
        if scan.element is None or ufunc not in ("add", "subtract", "maximum", "minimum", "fmax", "fmin") \
                or term.rank != 0 or not term.stacked:
            return None
        node, array = term.node, scan.array
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and node.value.id == array
                and isinstance(node.slice, gast.Slice) and node.slice.step is None and node.slice.lower is not None):
            return None
        first = constant_int(node.slice.lower)
        element = scan.element
        if first is None or first < 1 or not (
                isinstance(element, gast.Subscript) and isinstance(element.value, gast.Name)
                and element.value.id == array and constant_int(element.slice) == first - 1):
            return None
        source = reduction_term(scan.update, scan.name)
        stores = [s for s in self.info.body if isinstance(s, gast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], gast.Subscript) and isinstance(s.targets[0].value, gast.Name)
                  and s.targets[0].value.id == array]
        if len(stores) != 1 or not (isinstance(source, gast.Subscript) and isinstance(source.value, gast.Name)
                                    and source.value.id == array
                                    and gast.dump(source.slice) == gast.dump(stores[0].targets[0].slice)):
            return None
        allowed = {id(source.value), id(stores[0].targets[0].value)}
        if any(isinstance(n, gast.Name) and n.id == array and id(n) not in allowed
               for stmt in self.info.body for n in gast.walk(stmt)):
            return None  # (another read of `a` would see the values the accumulate already wrote)
        return gast.Subscript(value=templates.name(array), slice=gast.Slice(
            lower=const(first - 1), upper=copy.deepcopy(node.slice.upper), step=None), ctx=gast.Load())

    def _tf_scan_steps(self, scan) -> None:
        """A scan in TensorFlow code: ``tf.math.cumsum``/``cumprod`` for sums, differences and
        products (TensorFlow's order, parallel on a GPU, may differ from the loop's in the last
        bits: an unsafe fix), and ``tf.scan`` for ``tf.maximum``/``minimum`` and first-order
        linear recurrences, which runs the loop's own steps in order inside the graph.

        - The start ``s`` goes first, ``[s, t_0, t_1, ...]``, converted to the terms' dtype as
          ``s + t`` converts it (``tf.convert_to_tensor(s, dtype)``: a Python float converted
          directly, not through float32 as ``tf.cast`` would).
        - A sum or product whose start is the literal ``0`` or ``1`` (and no loop around this one
          carries another value into it) is the scan of the terms alone: ``tf.math.cumsum(t)``,
          with ``exclusive=True`` where ``s`` is read before its update, for terms of any rank.
        - A loop that counts down over ``v[::-1]`` scans ``v`` with ``reverse=True`` (the start
          then goes last), so the running values come out in ``v``'s order
          (``tf.math.cumsum(r, reverse=True)``: rewards-to-go), reversed again where the loop's
          order is read.

        - Terms of a rank not known, or not one number each, from a start that is not the
          identity: ``tf.scan`` over the rows with the loop's own update as its step
          (:meth:`_tf_linear_inline`), as for a linear recurrence of a rank not known.

        Leaves in :attr:`scan_steps` the running values after each iteration in the loop's order
        and the value after the loop (None where no read after the loop needs it), in
        :attr:`scan_exclusive` those before each iteration. One number per iteration, except
        for the scan of the terms alone and the steps of ``tf.scan`` over rows.

        Raises:
            Unsupported: a running value or term that is not one number per iteration.
        """
        name, tf_ = scan.name, self.lib.alias
        steps = self.namer.new(f"{name}_steps")
        start = templates.name(name)
        starts = dead_start(self.ctx, self.info.node, name)
        if starts and all(number_literal(s.value) is not None for s in starts) \
                and len({type(number_literal(s.value)) for s in starts}) == 1:
            # (`g = 0.0` read by the loop only: the literal itself, and the statement goes)
            start = const(number_literal(starts[0].value))
        if scan.op == "linear":
            # (each step as the loop spells it, `a * h - b`, `b - a * h`: the loop's own arithmetic)
            try:
                a, b = (self.ev(part) for part in scan.parts)
            except Unsupported:
                a = b = None
            if a is None or (a.rank is None or b.rank is None) and (a.stacked or b.stacked) or scan.reassociated:
                # (a rank not known, or factors the loop multiplies in its own order: the step
                # computed on each element, the loop's own way)
                return self._tf_linear_inline(scan, steps, start)
            if a.rank != 0 or b.rank != 0 or not (a.stacked or b.stacked):
                raise Unsupported(f"the linear recurrence `{name}` is not on one number per iteration")
            stacked = a if a.stacked else b
            if not stacked.full[0]:
                raise Unsupported(f"`{name}`: coefficients that do not vary along the loop")
            lifted = [lift(self.lib, v, 1).node if v.stacked else v.node for v in (a, b)]
            backwards = all(reversed_operand(n) is not None for n, v in zip(lifted, (a, b)) if v.stacked)
            if backwards:
                lifted = [reversed_operand(n) if v.stacked else n for n, v in zip(lifted, (a, b))]
            coef, offset = (n if isinstance(n, gast.Constant) else self._hoist(n, f"{name}_{part}")
                            for n, part in zip(lifted, "ab"))
            sized = coef if a.stacked else offset
            # the stacked parts are the elements scanned over; an invariant one is read as it is
            # (a Python float times a float64 tensor, as in the loop)
            step = self.namer.new(f"{name}_step")
            elems = [v for v, stacked_ in ((coef, a.stacked), (offset, b.stacked)) if stacked_]
            picks = iter([f"{step}[{k}]" for k in range(len(elems))] if len(elems) > 1 else [step])
            a_text = next(picks) if a.stacked else "A"
            b_text = next(picks) if b.stacked else "B"
            first = templates.expr(f"{tf_}.convert_to_tensor(S, N.dtype)", S=start, N=sized)
            h = self.namer.new("h")  # (the running value; not a name the parts read: `s = h * s + x[t]`)
            spelled = {"a * s + b": f"{a_text} * {h} + {b_text}", "a * s - b": f"{a_text} * {h} - {b_text}",
                       "b - a * s": f"{b_text} - {a_text} * {h}"}[scan.spelling]
            scanned = templates.expr(f"{tf_}.scan(lambda {h}, {step}: {spelled}, E, initializer=F"
                                     + (", reverse=True)" if backwards else ")"), A=coef, B=offset, F=first,
                                     E=gast.Tuple(elts=[copy.deepcopy(e) for e in elems], ctx=gast.Load())
                                     if len(elems) > 1 else copy.deepcopy(elems[0]))
            return self._tf_linear_steps(name, steps, scanned, first, backwards, scan.exclusive)
        identity = scan.op in ("add", "mul") and literal_at_entry(self.ctx, self.info.node, name) == (
            0 if scan.op == "add" else 1)
        try:
            term = self.ev(reduction_term(scan.update, name))
        except Unsupported:
            if identity:
                raise
            term = None  # (a rank not known: the loop's own step on each row)
        if term is None or term.stacked and term.full[0] and term.rank != 0 and not identity \
                or scan.op in ("max", "min") and not _running_value_first(scan):
            # (`tf.maximum(t, s)`: the loop's own operand order, which keeps the loop's zero of two)
            return self._tf_linear_inline(scan, steps, start)
        if not term.stacked or not term.full[0] or term.rank != 0 and not identity:
            raise Unsupported(f"the running value `{name}` is not one number per iteration")
        self._check_operand_order(scan)
        terms = lift(self.lib, term, 1).node
        backwards = reversed_operand(terms) is not None and scan.op in ("add", "mul")
        terms = self._hoist(reversed_operand(terms) if backwards else terms, f"{name}_terms")
        dtype = tensor_at_entry(self.ctx, self.info.node, name)
        if dtype is not None:
            # (`s = tf.constant(0.0)`: the loop's `s + x[i]` converts a NumPy term to float32)
            terms = self._hoist(templates.expr(f"{tf_}.cast(T, {tf_}.{dtype})", T=terms), f"{name}_terms")
        update = scan.update
        op = update.op if isinstance(update, gast.AugAssign) else getattr(update.value, "op", None)
        if scan.op == "add" and isinstance(op, gast.Sub):
            terms = templates.expr("-T", T=terms)
        flags = ", reverse=True" if backwards else ""
        if scan.op in ("add", "mul"):
            fn = f"{tf_}.math.{'cumsum' if scan.op == 'add' else 'cumprod'}"
            if identity:
                # (the start adds nothing: the terms alone, of any rank)
                if scan.exclusive:
                    self.out += templates.replace(f"{steps} = {fn}(T, axis=0{flags}, exclusive=True)", T=terms)
                    self.scan_exclusive[name] = f"{steps}[::-1]" if backwards else steps
                if not scan.exclusive or self._read_after_update(scan):
                    steps = self.namer.new(f"{name}_steps") if scan.exclusive else steps
                    self.out += templates.replace(f"{steps} = {fn}(T, axis=0{flags})", T=terms)
                # after the loop, the start and every term (no iteration: the start itself)
                last = f"{name} {'+' if scan.op == 'add' else '*'} {tf_}.reduce_{'sum' if scan.op == 'add' else 'prod'}" \
                    f"({gast.unparse(terms).strip()}, axis=0)" if self._used_outside(name) else None
                self.scan_steps[name] = (f"{steps}[::-1]" if backwards else steps, last)
                self.scan_ranks[name] = term.rank
                return
        first = templates.expr(f"{tf_}.reshape({tf_}.convert_to_tensor(S, T.dtype), [1])", S=start, T=terms)
        chain = templates.expr(f"{tf_}.concat([T, F], 0)" if backwards else f"{tf_}.concat([F, T], 0)",
                               F=first, T=terms)
        if scan.op in ("add", "mul"):
            self.out += templates.replace(f"{steps} = {fn}(C, axis=0{flags})", C=chain)
        else:
            self.out += templates.replace(f"{steps} = {tf_}.scan({tf_}.{'maximum' if scan.op == 'max' else 'minimum'}, C)",
                                          C=chain)
        self._tf_steps(name, steps, backwards)
        self.scan_ranks[name] = 0

    def _tf_linear_inline(self, scan, steps: str, start: gast.expr) -> None:
        """A linear recurrence ``s = a * s + b`` whose parts' ranks are not known, or a running
        sum, product, maximum or minimum from a start that is not its identity whose terms are
        not one number each, as ``tf.scan`` over the rows its parts read (``x[t]``), each step
        the loop's own expression on one row (``s = tf.maximum(s, x[t])`` steps by
        ``lambda h, s_step: tf.maximum(h, s_step)``, in the loop's order and rounding)::

            s_steps = tf.scan(lambda h, s_step: alpha * s_step + (1 - alpha) * h, x,
                              initializer=tf.broadcast_to(tf.convert_to_tensor(0.0, x.dtype),
                                                          tf.broadcast_dynamic_shape(tf.shape(alpha), tf.shape(x)[1:])))

        ``tf.scan`` keeps one shape for the running value, which the loop's takes after its
        first step: the start broadcast to the shapes of the rows and of the invariants the
        step reads (broadcasting changes no value, so the steps are the loop's). The rows are
        the loop's reads ``v[t]`` at its index, or its rows themselves (``r`` of ``for r in
        reversed(rewards)``), in the order it walks them (``reverse=True`` walked backwards);
        every other name the parts read must be the same on every iteration.

        Raises:
            Unsupported: a part that reads the index otherwise than as ``v[t]``, reads a value
                the body computes, or reads no row.
        """
        name, tf_ = scan.name, self.lib.alias
        if scan.exclusive and not self._tf_exclusive_appends(self.info, scan):
            # (read before its update other than to be stacked: the first value is the start as
            # it was, of its own shape, where the steps hold it broadcast)
            raise Unsupported(f"the linear recurrence `{name}`, of a rank not known, is read before its update")
        induction = self.info.space.induction
        rows, elements = {}, {}  # gast.dump of `v[t]` -> (its batched rows, reversed), its position
        parts = [copy.deepcopy(p) for p in scan.parts]
        step = self.namer.new(f"{name}_step")
        bound = set(self.loop_stores) | self.info.space.target_names()
        # (`for r in reversed(rewards)`: the row itself)
        row_targets = {t.id for t, _ in self.info.space.items if isinstance(t, gast.Name)}

        def substitute(node):
            for field, value in gast.iter_fields(node):
                for k, child in enumerate(value if isinstance(value, list) else [value]):
                    if isinstance(child, gast.Subscript) and induction in _loads(child.slice) \
                            and isinstance(child.value, gast.Name) \
                            or isinstance(child, gast.Name) and isinstance(child.ctx, gast.Load) and child.id in row_targets:
                        key = gast.dump(child)
                        if key not in rows:
                            row = self.ev(child)
                            if not row.stacked or not row.full[0]:
                                raise Unsupported(f"`{gast.unparse(child).strip()}` in the linear recurrence "
                                                  f"`{name}` is not one row per iteration")
                            lifted = lift(self.lib, row, 1).node
                            forwards = _forwards(lifted, tf_, self.ctx.imports)
                            rows[key] = (forwards or lifted, forwards is not None, row.rank)
                            elements[key] = len(elements)
                        replacement = templates.name(f"__row_{elements[key]}")
                        if isinstance(value, list):
                            value[k] = replacement
                        else:
                            setattr(node, field, replacement)
                    elif isinstance(child, gast.AST):
                        substitute(child)

        own_step = scan.op != "linear" or scan.reassociated
        if own_step:
            # (the update itself, its running value read as the scan's `h`)
            update = scan.update
            value = gast.BinOp(left=update.target, op=update.op, right=update.value) \
                if isinstance(update, gast.AugAssign) else update.value
            parts = [substituted(value, {name: templates.name("__h")})]
        holder = [gast.Expr(value=p) for p in parts]  # (so that a part that is itself `x[t]` is replaced too)
        for stmt in holder:
            self._forward_substitute(stmt, scan.update)
            self._graph_step(name, stmt.value, induction)
            substitute(stmt)
        parts = [stmt.value for stmt in holder]
        # (values, not the callees and modules the parts name: `tf` of `tf.sin`, `abs`)
        named = {id(n.func) for p in parts for n in gast.walk(p) if isinstance(n, gast.Call)} | {
            id(n.value) for p in parts for n in gast.walk(p) if isinstance(n, gast.Attribute)
            and self.ctx.imports.resolve(n) is not None}
        loaded = {n.id for p in parts for n in gast.walk(p) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                  and id(n) not in named and n.id != "__h"}
        if not rows:
            raise Unsupported(f"`{name}`: coefficients that do not vary along the loop")
        if loaded & bound or any(self._is_stacked_name(n) for n in loaded if not n.startswith("__row_")):
            raise Unsupported(f"the linear recurrence `{name}` reads `{min(loaded & bound or loaded)}`, which the "
                              "loop binds, besides its rows")
        if len({backwards for _, backwards, _ in rows.values()}) > 1:
            raise Unsupported(f"the linear recurrence `{name}` reads rows in both orders")
        backwards = next(iter(rows.values()))[1]
        casts = [n for p in parts for n in gast.walk(p) if isinstance(n, gast.Call) and (
            any(k.arg == "dtype" for k in n.keywords) or self.ctx.imports.resolve(n.func) in _DTYPE_CALLS
            or isinstance(n.func, gast.Attribute) and n.func.attr == "astype")]
        tensor_start = isinstance(start, gast.Name) and self._tensor_start(name)
        if casts and not tensor_start:
            # (the loop's running value takes the dtype the step gives it, not the rows')
            raise Unsupported(f"the linear recurrence `{name}` changes the dtype of its rows "
                              f"(`{gast.unparse(casts[0]).strip()}`), and its start is no tensor made before the loop")
        # (rows read more than once below, `tf.convert_to_tensor(rewards)`, bound to a name once)
        seqs = [self._hoist(node, next((f"{n.id}_rows" for n in gast.walk(node) if isinstance(n, gast.Name) and n.id != tf_),
                                       f"{name}_rows")) for node, _, _ in rows.values()]
        picks = [f"{step}[{k}]" for k in range(len(seqs))] if len(seqs) > 1 else [step]
        for part in parts:
            for n in gast.walk(part):
                if isinstance(n, gast.Name) and n.id.startswith("__row_"):
                    n.id = picks[int(n.id[len("__row_"):])]
        h = self.namer.new("h")  # (the running value; not a name the parts read)
        if not own_step:
            spelled = {"a * s + b": f"A * {h} + B", "a * s - b": f"A * {h} - B", "b - a * s": f"B - A * {h}"}[scan.spelling]
        else:
            for n in gast.walk(parts[0]):
                if isinstance(n, gast.Name) and n.id == "__h":
                    n.id = h
            spelled = "A"
        # the start broadcast to the rows' shape and the invariants' (a literal has none, nor
        # rows of one number each or an invariant known to be one)
        shapes = [templates.expr(f"{tf_}.shape(E)[1:]", E=copy.deepcopy(seq))
                  for seq, (_, _, rank) in zip(seqs, rows.values()) if rank != 0]
        shapes += [templates.expr(f"{tf_}.shape(V)", V=templates.name(v)) for v in sorted(n for n in loaded if not n.startswith("__row_"))
                   if not self._known_scalar(v)]
        if not isinstance(start, gast.Constant) and not (isinstance(start, gast.Name) and self._known_scalar(start.id)):
            shapes.append(templates.expr(f"{tf_}.shape(S)", S=copy.deepcopy(start)))
        shape = shapes[0] if shapes else None
        for other in shapes[1:]:
            shape = templates.expr(f"{tf_}.broadcast_dynamic_shape(P, Q)", P=shape, Q=other)
        if tensor_start:
            # (a tensor made before the loop keeps its dtype, which the step may cast the rows to)
            first = copy.deepcopy(start)
        else:
            first = templates.expr(f"{tf_}.convert_to_tensor(S, E.dtype)", S=copy.deepcopy(start), E=copy.deepcopy(seqs[0]))
        if shape is not None:
            first = templates.expr(f"{tf_}.broadcast_to(F, P)", F=first, P=shape)
        if scan.exclusive:
            first = self._hoist(first, f"{name}_start")  # (the scan's start and the first value read)
        scanned = templates.expr(f"{tf_}.scan(lambda {h}, {step}: {spelled}, E, initializer=F"
                                 + (", reverse=True)" if backwards else ")"), A=parts[0], B=parts[-1],
                                 F=copy.deepcopy(first), E=gast.Tuple(elts=[copy.deepcopy(q) for q in seqs], ctx=gast.Load())
                                 if len(seqs) > 1 else copy.deepcopy(seqs[0]))
        if scan.exclusive:
            # stacked before each update: the start (broadcast as the steps hold it; on one
            # iteration the start alone, :meth:`_start_exclusive_scans`), then each step but the
            # last, as the ranked recurrence's values (:meth:`_tf_linear_steps`)
            one = templates.expr(f"{tf_}.expand_dims(F, 0)", F=first)
            pieces = [scanned, one] if backwards else [one, scanned]
            self.out += templates.replace(f"{steps} = {tf_}.concat(P, 0)", P=gast.List(elts=pieces, ctx=gast.Load()))
            self._tf_steps(name, steps, backwards)
            self.scan_steps[name] = (self.scan_steps[name][0], None)
        else:
            self.out += templates.replace(f"{steps} = C", C=scanned)
            self.scan_steps[name] = (f"{steps}[::-1]" if backwards else steps, None)
        self.scan_ranks[name] = 0
        if self._used_outside(name):
            # read after the loop: the last running value where the loop runs, else the start
            # as it was (the steps hold it broadcast), under the test that it runs
            # (:meth:`_end_last_values`)
            self.last_values[name] = False

    def _graph_step(self, name: str, part: gast.expr, induction: str | None) -> None:
        """A step of ``tf.scan`` must compute what the loop's step computes, in a graph and with
        the running value of one shape throughout:

        - traced into a graph, its rows are symbolic tensors: the loop's ``float(x[t])``,
          ``x[t].numpy()`` or ``np.sin(x[t])`` compute with the row's value, which a graph has
          not;
        - the start is broadcast to the shapes of the rows and invariants the step reads, which
          is the running value's shape only where the step is elementwise: arithmetic, ``abs``
          and TensorFlow's elementwise functions (``tf.maximum``, ``tf.tanh``, ``tf.cast``),
          on rows ``v[t]`` (``r`` of ``for r in x``) and names (a reduction, ``tf.reduce_sum(x[t])``,
          or an element of an invariant, ``w[0]``, would make it another).

        Raises:
            Unsupported: any other call or expression in ``part``.
        """
        rows = {id(m) for n in gast.walk(part) if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
                and induction in _loads(n.slice) for m in gast.walk(n)}
        for n in gast.walk(part):
            if id(n) in rows:
                continue
            if isinstance(n, gast.Call):
                callee = self.ctx.imports.resolve(n.func) or ""
                rule = core.lookup(callee) if callee.startswith("tensorflow.") else None
                if callee == "builtins.abs" or rule is not None and rule.sample and rule.sample[0] in ("cwise", "cast"):
                    continue
            elif isinstance(n, gast.Attribute):
                if self.ctx.imports.resolve(n) is not None:  # (`tf.float32`, `tf.math`)
                    continue
            elif isinstance(n, _GRAPH_STEP_NODES) or isinstance(n, gast.UnaryOp) and not isinstance(n.op, gast.Not):
                continue
            raise Unsupported(f"`{gast.unparse(n).strip()}` in the recurrence `{name}`: a step of tf.scan over rows "
                              "takes arithmetic and TensorFlow's elementwise functions of the rows (it is traced into "
                              "a graph, and its running value keeps one shape)")

    def _forward_substitute(self, holder: gast.stmt, update: gast.stmt, depth: int = 0) -> None:
        """Forward substitution (Allen and Kennedy 2001, section 4.5.2) into a step of a
        ``tf.scan``: each name in ``holder`` that the body binds once, by a statement of the body
        itself before ``update`` (``reward = rewards[t]``), becomes that statement's value, so
        the step reads the rows itself (``tf.cast(rewards_row, tf.float32)``). The values so
        substituted read names the loop does not bind, or names substituted the same way."""
        body = self.info.body
        if update not in body or depth > 8:
            return
        before = body[:body.index(update)]
        stores = {}
        for stmt in body:
            for target in (n for n in gast.walk(stmt) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)):
                stores[target.id] = stores.get(target.id, 0) + 1
        for field, value in gast.iter_fields(holder):
            for k, child in enumerate(value if isinstance(value, list) else [value]):
                if isinstance(child, gast.Name) and isinstance(child.ctx, gast.Load) and stores.get(child.id) == 1:
                    bound = next((st for st in before if isinstance(st, gast.Assign) and len(st.targets) == 1
                                  and isinstance(st.targets[0], gast.Name) and st.targets[0].id == child.id), None)
                    if bound is None or any(isinstance(n, gast.Call) and n in self.info.random_draws
                                            for n in gast.walk(bound.value)):
                        continue
                    inner = gast.Expr(value=copy.deepcopy(bound.value))
                    self._forward_substitute(inner, bound, depth + 1)
                    if isinstance(value, list):
                        value[k] = inner.value
                    else:
                        setattr(holder, field, inner.value)
                elif isinstance(child, gast.AST):
                    self._forward_substitute(child, update, depth)

    def _tensor_start(self, name: str) -> bool:
        """Whether every definition of ``name`` that reaches the loop binds a tensor made by a
        TensorFlow call (``tf.constant(0.0, dtype=tf.float32)``, ``tf.zeros([])``)."""
        entry = _entry_definitions(self.ctx, self.info.node, name)
        if entry is None or not entry[0]:
            return False
        for d in entry[0]:
            _, value = _binding(self.ctx, d) if isinstance(d, gast.Name) else (None, None)
            if not (isinstance(value, gast.Call) and (self.ctx.imports.resolve(value.func) or "").startswith("tensorflow.")
                    and self.ctx.imports.resolve(value.func) not in _TF_NOT_TENSORS):
                return False
        return True

    def _known_scalar(self, name: str) -> bool:
        """Whether ``name`` is one number wherever the loop runs: a rank 0 given or inferred."""
        shape = self._shape_of(name)
        return shape is not None and shape.rank == 0

    def _tf_linear_steps(self, name, steps: str, scanned: gast.expr, first: gast.expr, backwards: bool,
                         exclusive: bool) -> None:
        """Binds ``steps`` to a linear recurrence's ``tf.scan`` and records where its values are:
        the scan alone where only the values after each step are read, else with the start
        beside it, one row more (before the first update in the loop's order, or after a loop
        that may not run)."""
        tf_ = self.lib.alias
        alone = not exclusive and not self._used_outside(name)
        if alone:
            self.out += templates.replace(f"{steps} = C", C=scanned)
            self.scan_steps[name] = (f"{steps}[::-1]" if backwards else steps, None)
        else:
            one = templates.expr(f"{tf_}.expand_dims(F, 0)", F=first)
            pieces = [scanned, one] if backwards else [one, scanned]
            self.out += templates.replace(f"{steps} = {tf_}.concat(P, 0)", P=gast.List(elts=pieces, ctx=gast.Load()))
            self._tf_steps(name, steps, backwards)
        self.scan_ranks[name] = 0

    def _tf_steps(self, name, steps: str, backwards: bool) -> None:
        """Where the running values are in ``steps``, the start and every iteration's value: the
        start first in the loop's order, or last in the index order of a reversed scan."""
        if backwards:
            self.scan_steps[name] = (f"{steps}[:-1][::-1]", f"{steps}[0]")
            self.scan_exclusive[name] = f"{steps}[1:][::-1]"
        else:
            self.scan_steps[name] = (f"{steps}[1:]", f"{steps}[-1]")
            self.scan_exclusive[name] = f"{steps}[:-1]"

    def _read_after_update(self, scan) -> bool:
        """Whether the body reads ``scan``'s running value after its update."""
        body = self.info.body
        later = body[body.index(scan.update) + 1:] if scan.update in body else body
        return any(isinstance(n, gast.Name) and n.id == scan.name and isinstance(n.ctx, gast.Load)
                   for stmt in later for n in gast.walk(stmt))

    @staticmethod
    def _check_operand_order(scan) -> None:
        """``np.minimum(t, s)`` of equal zeros returns ``s``'s zero, an accumulate over the
        running value the term's: only ``f(s, t)`` is rewritten."""
        if not _running_value_first(scan):
            raise Unsupported(f"`{scan.name}` is the second argument of its `{scan.op}` (the loop keeps its "
                              "zero's sign where a term equals it; the accumulate would not)")

    def _scan_start_check(self, name, rank: int, in_place: bool) -> None:
        """The start must be a number NumPy computes with as the loop does, or for rows an
        array: a Python complex stays one when a float64 is added to it, a ``Fraction`` or a
        string is no dtype, and ``s += t`` on an ndarray (0-d too) writes into it in its own
        dtype at every step (the running values are computed in NumPy's result type)."""
        if rank == 0 and literal_number_at_entry(self.ctx, self.info.node, name) in ("bool", "int", "float"):
            return  # (`s = 0.0` before the loop: a Python number of those kinds wherever it starts)
        np_ = self.lib.alias
        kinds = f"{np_}.ndarray" if rank > 0 else \
            f"(int, float, {np_}.number, {np_}.bool_{'' if in_place else f', {np_}.ndarray'})"
        self.checks.append(templates.expr(f"isinstance(S, {kinds})", S=templates.name(name)))

    def _terms_are_arrays(self, *values: Val) -> None:
        """A list's items are Python numbers, which the loop adds weakly and keeps as Python
        numbers: the names the terms are read from must be arrays."""
        for n in (n for v in values if v.stacked for n in gast.walk(v.node) if isinstance(n, gast.Name)):
            shape = self._shape_of(n.id)
            if n.id != self.lib.alias and (shape is None or shape.rank is None or shape.rank >= 1):
                self.arrays.add(n.id)  # a number (`alpha * x[i]`) is no list

    def _linear_steps(self, scan, start: Val) -> None:
        """The running values of ``s = a * s + b`` (exponential smoothing, discounted returns
        walked backwards) as ``{s}_values``, one per iteration.

        The affine maps ``h -> a_t * h + b_t`` compose associatively, ``(a2, b2) ∘ (a1, b1) =
        (a2 * a1, a2 * b1 + b2)``, so the scan runs as a blocked (chunked) scan: each block of
        the offsets, with the start folded into the first one (``s_1 = a_0 * s + b_0``), is
        scanned from zero; the block ends are then scanned as a shorter recurrence, and each
        block takes in the end before it: its steps again from that carry (one coefficient per
        iteration), or the carry times the powers of the coefficient (one) (Blelloch, "Prefix
        sums and their applications", 1990, section 1.4; :meth:`_toeplitz_scan` for one
        coefficient, :meth:`_lanes_scan` for one per iteration). Products of the coefficients
        only, never a division (the closed form through ``cumprod`` and division overflows or
        divides by zero): numerically safe, O(n) work and O(log n) rounds over the block
        ends. The rounding differs from the loop's order in the last bits (an unsafe fix).

        Raises:
            Unsupported: coefficients that are not one number each, Python numbers per
                iteration, or no coefficient that is a NumPy value.
        """
        name = scan.name
        # the sign of `a * s - b` is applied in the running values' dtype: `-b` of a uint8
        # offset would wrap before the loop's float subtraction
        a, b = (self.ev(part) for part in scan.parts)
        if start.stacked or start.rank != 0 or a.rank != 0 or b.rank != 0:
            raise Unsupported(f"the linear recurrence `{name}` is not on one number")
        # (a value with a witness, `c - i`, is a Python number per iteration where `c` is one:
        # weak in the loop's `b + a * s`, a float64 array batched; fuzz seed 5700299)
        if any((v.python or v.witness is not None) and v.stacked for v in (a, b)) or \
                not any(v.stacked and not v.python for v in (a, b)):
            raise Unsupported(f"the linear recurrence `{name}` runs over Python numbers (its values "
                              "would stay Python numbers or take an array's dtype)")
        sized = next(v for v in (a, b) if v.stacked)
        if not sized.full[0]:
            raise Unsupported(f"`{name}`: coefficients that do not vary along the loop")
        if scan.element is None:
            self._scan_start_check(name, 0, in_place=False)  # `s = a * s + b` rebinds
        self._terms_are_arrays(a, b)
        for part in scan.parts:
            self._no_object_arrays(part, scan)
        np_ = self.lib.alias
        if scan.reassociated:
            # `gamma * s * mask[t]` multiplied as `(gamma * mask[t]) * s`: the same dtype as the
            # loop's products only where every value is float64 or a Python number (a float32
            # start would take `gamma * s` in float32 in the loop's first step)
            start_check = templates.expr(f"type(S) in (int, float, bool) or {np_}.asarray(S).dtype == {np_}.float64",
                                         S=templates.name(name))
            for check in [start_check, *self._float64_reads()]:
                if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                    self.checks.append(check)
        lifted = [lift(self.lib, v, 1).node if v.stacked else v.node for v in (a, b)]
        # One coefficient, offsets walked last first (`for t in reversed(range(n))`: discounted
        # returns): the scan runs in the offsets' own order, so neither they nor the values are
        # copied reversed; the values are read reversed, in the loop's order.
        forwards = None if a.stacked or scan.element is not None else self._unreversed(lifted[1])
        backwards = forwards is not None
        if backwards:
            lifted[1] = forwards
        coef, offset = (self._hoist(node, f"{name}_{hint}") for node, hint in zip(lifted, "ab"))
        first, values, k = (self.namer.new(f"{name}_{hint}") for hint in ("first", "values", "k"))

        def element(node, stacked, at):  # the coefficient or offset of one iteration, as the loop reads it
            return templates.expr(f"C[{at}]", C=node) if stacked else copy.deepcopy(node)

        # a step as the loop spells it: `a * s + b`, `a * s - b` or `b - a * s`
        spelled = scan.spelling.replace("a", "A").replace("b", "B").replace("s", "S")
        step = templates.expr(spelled, A=element(coef, a.stacked, "0"), S=templates.name(name),
                              B=element(offset, b.stacked, "-1" if backwards else "0"))
        # The first step is the loop's own (a Python float times an int8 start is a float64);
        # from then on the running value is a NumPy number and the dtype no longer changes.
        # One coefficient per iteration: the values are the offsets, scanned in place by
        # blocks (:meth:`_lanes_scan`). One coefficient: the offsets are laid out in whole
        # blocks (zeros after the last) for the Toeplitz products (:meth:`_toeplitz_scan`).
        length = templates.expr("len(N)", N=coef if a.stacked else offset)
        # Offsets the rewrite computes (`alpha * signal`) are laid out in the values, then
        # dropped before the scan's matrix product makes its result; they are computed again
        # only where the steps run in order below. The peak is then the loop's output and two
        # arrays of the offsets' length, not three (4.2x the loop's memory on exponential
        # smoothing before).
        recomputed = not a.stacked and b.stacked and not isinstance(lifted[1], gast.Name)
        if recomputed:
            length = self._hoist(length, f"{name}_n")
        allocate = "empty(L" if a.stacked else f"zeros(-(-L // {TOEPLITZ_BLOCK}) * {TOEPLITZ_BLOCK}"
        # (backwards, the zeros of the last block go first: they add nothing to the values after them)
        laid = "[-L:]" if backwards else "[:L]"
        # One coefficient per iteration, into an array the function makes: where the steps
        # compute in the array's dtype, the values are computed in the rows the loop writes
        # (they are then what it stores), with no array of their own
        into = self._values_in_place(scan) if a.stacked else None
        dtype = self.namer.new(f"{name}_dtype") if into is not None else None
        self.out += templates.replace(
            f"{first} = STEP\n"
            + (f"{dtype} = {np_}.result_type(A, {first}, B)\n"
               f"{values} = INTO if {dtype} == {scan.array}.dtype else {np_}.{allocate}, {dtype})\n" if into is not None
               else f"{values} = {np_}.{allocate}, {np_}.result_type(A, {first}, B))\n")
            + f"{values}{laid} = B\n", STEP=step, L=length, A=coef, B=offset, INTO=into)
        if scan.spelling == "a * s - b":
            self.out += templates.replace(f"{np_}.negative({values}, out={values})")
        self.out += templates.replace(f"{values}[{'-1' if backwards else '0'}] = {first}")
        if a.stacked:
            tail = self.namer.new(f"{name}_tail")
            self._lanes_scan(name, values, coef, negated=scan.spelling == "b - a * s", tail=tail, step=templates.expr(
                spelled, A=element(coef, True, tail), S=templates.expr(f"{values}[{tail} - 1]"),
                B=element(offset, b.stacked, tail)))
        else:
            if recomputed:
                self.out += templates.replace(f"del {offset.id}")
            self._toeplitz_scan(name, values, coef, negated=scan.spelling == "b - a * s", backwards=backwards)
            self.out += templates.replace(f"{values} = {values}{laid}", L=length)
        # A power of the coefficients that overflows (|a| > 1) or underflows onto an infinite
        # offset gives inf * 0: where a value is not finite, the steps run in order, as the loop.
        # An array recurrence stores each value into `a` and reads it back, in `a`'s dtype.
        # The steps restart from the first value: the blocks' product reads every offset of a
        # block, so an infinite one makes 0 * inf = nan before it too (helper-38).
        recast, restart = ("", "") if scan.element is None else (
            f" or {values}.dtype != {scan.array}.dtype", f"    {values} = {np_}.empty(len({values}), {scan.array}.dtype)\n")
        restart += f"    {values}[{'-1' if backwards else '0'}] = {first}\n"
        if recomputed:
            restart += f"    {offset.id} = OFFSETS\n"
        order, before = ("len({v}) - 2, -1, -1", "{v}[{k} + 1]") if backwards else ("1, len({v})", "{v}[{k} - 1]")
        self.out += templates.replace(
            f"if not {np_}.isfinite({values}).all(){recast}:\n{restart}"
            f"    for {k} in range({order.format(v=values)}):\n"
            f"        {values}[{k}] = STEP",
            STEP=templates.expr(spelled, A=element(coef, a.stacked, k), S=templates.expr(before.format(v=values, k=k)),
                                B=element(offset, b.stacked, k)), OFFSETS=copy.deepcopy(lifted[1]))
        self.scan_steps[name] = (f"{values}[::-1]", f"{values}[0]") if backwards else (values, f"{values}[-1]")
        self.scan_ranks[name] = 0
        self.nonempty = True

    def _values_in_place(self, scan) -> gast.expr | None:
        """``a[s:n]``, the rows an array recurrence ``a[i] = c[i] * a[i - 1] + d[i]`` over
        ``range(s, n)`` writes (``s`` a literal of at least 1, steps of 1; the running value
        starts as ``a[s - 1]``), where ``a`` is an array the function makes before the loop and
        nothing else sees (:func:`~pforge.transpile.analysis.aliasing.unexposed_allocation`:
        new, contiguous memory, which no other name views) and the loop reads ``a`` only as
        ``a[i - 1]`` (carried in a name, :func:`~pforge.transpile.analysis.recurrences.carried_elements`): the
        running values can then be computed in those rows where they compute in ``a``'s dtype,
        as the hand-written tree of affine maps does, and the loop's store of them is a copy
        onto themselves (which NumPy skips). None otherwise."""
        space, array, element = self.info.space, scan.array, scan.element
        if space is None or space.kind != "range" or space.step is not None and constant_int(space.step) != 1:
            return None
        first = constant_int(space.start) if space.start is not None else 0
        if first is None or first < 1 or not (
                isinstance(element, gast.Subscript) and isinstance(element.value, gast.Name)
                and element.value.id == array and constant_int(element.slice) == first - 1):
            return None
        stores = [s for s in self.info.body if isinstance(s, gast.Assign) and len(s.targets) == 1
                  and isinstance(s.targets[0], gast.Subscript) and isinstance(s.targets[0].value, gast.Name)
                  and s.targets[0].value.id == array]
        if len(stores) != 1 or not (isinstance(stores[0].targets[0].slice, gast.Name)
                                    and stores[0].targets[0].slice.id == space.induction):
            return None
        if any(isinstance(n, gast.Name) and n.id == array and n is not stores[0].targets[0].value
               for stmt in self.info.body for n in gast.walk(stmt)) \
                or not unexposed_allocation(self.ctx, self.info.function, self.info.node, array):
            return None
        return gast.Subscript(value=templates.name(array), slice=gast.Slice(
            lower=const(first), upper=copy.deepcopy(space.stop), step=None), ctx=gast.Load())

    def _unreversed(self, node: gast.expr) -> gast.expr | None:
        """``node`` read forwards: ``x`` of ``x[::-1]``, ``c * x`` of ``c * x[::-1]``, where
        ``node`` is arithmetic of views read in the opposite order and of constants and names
        the function binds that hold one value for every iteration (an elementwise expression
        of reversed rows is the reversed expression of the rows); else None."""
        known = set(self.params) | set(self.locals) | set(self.free)
        found = []

        def check(n) -> bool:
            if reversed_operand(n) is not None:
                found.append(n)
                return isinstance(reversed_operand(n), gast.Name) and not self._is_stacked_name(reversed_operand(n).id)
            if isinstance(n, gast.BinOp):
                return check(n.left) and check(n.right)
            if isinstance(n, gast.UnaryOp):
                return check(n.operand)
            if isinstance(n, gast.Name):
                return n.id in known and not self._is_stacked_name(n.id)
            return isinstance(n, gast.Constant)

        if not check(node) or not found:
            return None

        class Forwards(gast.NodeTransformer):
            def visit_Subscript(self, n):
                return copy.deepcopy(reversed_operand(n)) if reversed_operand(n) is not None else n

        return Forwards().visit(copy.deepcopy(node))

    def _toeplitz_scan(self, name: str, values: str, coef, negated: bool, backwards: bool = False) -> None:
        """Scans ``values`` (the offsets in whole blocks of ``TOEPLITZ_BLOCK``, float or int
        [blocks * B]) in place of the recurrence ``h -> a * h + b`` with one coefficient ``a``
        (``-a`` where ``negated``), into ``values`` [blocks * B]; ``backwards``, from the last
        offset to the first (discounted returns, in the rewards' own order: the transposed
        matrix, each block's first value its end, the carry into each block's last offset
        from the block after it).

        Within a block, ``h_i = sum_j a ** (i - j) * b_j``: one matrix product of the blocks
        [blocks, B] by the upper-triangular Toeplitz matrix of the powers [B, B] (``powers``
        holds ``a ** 0 .. a ** B`` and then zeros, which the negative lags of the lower
        triangle read). The block ends of these products, ``e_c = a ** B * e_(c-1) + e_c``,
        are scanned first, a scan of the same kind over blocks / B values by recursive doubling
        (Hillis and Steele, "Data parallel algorithms", 1986); each block's first offset then
        takes in the end before it (``b_0 + a * e_(c-1)``), so the one product gives every
        running value. The powers are products in the running values' dtype (an int64
        coefficient wraps as the loop's ``31 * h`` does); an overflowing power leaves a value
        that is not finite, and the caller then runs the steps in order.
        """
        np_, size = self.lib.alias, TOEPLITZ_BLOCK
        powers, steps, ends = (self.namer.new(f"{name}_{hint}") for hint in ("powers", "steps", "ends"))
        span, scale = self.namer.new(f"{name}_span"), self.namer.new(f"{name}_scale")
        # each update is of a view in place (`view += ...`): `x[k:] += y` would also store the
        # sum back through `x.__setitem__`, a second pass over the values
        later, firsts = self.namer.new(f"{name}_later_ends"), self.namer.new(f"{name}_firsts")
        fill = f"-{np_}.asarray(A, {values}.dtype)" if negated else "A"
        # (backwards: the lower-triangular matrix, `powers[j - k]`; the block ends are the first
        # column; the doubling and the carry run from the last block down)
        lags, end, later_slice, earlier_slice, carried, carry_from = (
            (f"{np_}.arange({size})[:, None] - {np_}.arange({size})", "0", f":-{span}", f"{span}:", "[:-1, -1]", "[1:]")
            if backwards else
            (f"{np_}.arange({size}) - {np_}.arange({size})[:, None]", "-1", f"{span}:", f":-{span}", "[1:, 0]", "[:-1]"))
        self.out += templates.replace(
            f"{powers} = {np_}.zeros({2 * size}, {values}.dtype)\n"
            f"{powers}[:{size + 1}] = {fill}\n"
            f"{powers}[0] = 1\n"
            f"{np_}.multiply.accumulate({powers}[:{size + 1}], out={powers}[:{size + 1}])\n"
            f"{steps} = {powers}[{lags}]\n"
            f"{values} = {values}.reshape(-1, {size})\n"
            f"{ends}, {span}, {scale} = {values} @ {steps}[:, {end}], 1, {powers}[{size}]\n"
            f"while {span} < len({ends}):\n"
            f"    {later} = {ends}[{later_slice}]\n"
            f"    {later} += {scale} * {ends}[{earlier_slice}]\n"
            f"    {scale} = {scale} * {scale}\n"
            f"    {span} *= 2\n"
            f"{firsts} = {values}{carried}\n"
            f"{firsts} += {powers}[1] * {ends}{carry_from}\n"
            f"{values} = ({values} @ {steps}).reshape(-1)", A=coef)

    def _lanes_scan(self, name: str, values: str, coef, negated: bool, tail: str, step) -> None:
        """Scans ``values`` (the offsets, the first one holding the first running value, float
        or int [n]) in place into the running values of the recurrence ``h -> a_t * h + b_t``
        with one coefficient per iteration ``coef`` [n] (``-a_t`` where ``negated``).

        The first ``n // B * B`` values, seen as [blocks, B] (``B = LINEAR_BLOCK``), run in
        three passes, each a column at a time in all blocks at once (Blelloch, "Prefix sums
        and their applications", 1990, section 1.4):

        1. each block's map ``h -> P_c * h + E_c``, composed over its B steps from zero;
        2. the block ends ``e_c = P_c * e_(c-1) + E_c``, a scan over blocks / B values by
           recursive doubling (Hillis and Steele, "Data parallel algorithms", 1986);
        3. each block's steps again, in order, from the end of the block before it.

        The last ``n % B`` steps (``tail``, ``step`` the loop's step at ``values[tail]``) run
        one at a time. O(n) work, where recursive doubling over all n values does O(n log n);
        the coefficients are read in place (a copy only where negated) and the passes write
        into ``values`` and three arrays of blocks / B values: a call allocates little, which
        matters more than the arithmetic at ten thousand steps (a freed array the size of
        the offsets is returned to the system and faults its pages in again at the next call).
        The doubling rounds' products of coefficients alternate between two of those arrays:
        updated in place from an overlapping slice of itself, an array is first copied by
        NumPy.
        Within a block the steps compute as the loop's do; only the carry into a block is
        reassociated.
        """
        np_, size = self.lib.alias, LINEAR_BLOCK
        whole, blocks, scales, columns, scale_columns, ends, end_scales, k, span = (
            self.namer.new(f"{name}_{hint}") for hint in ("whole", "blocks", "scales", "columns", "scale_columns",
                                                          "ends", "end_scales", "lane", "span"))
        later_ends, spare_scales, carried = (self.namer.new(f"{name}_{hint}")
                                             for hint in ("later_ends", "spare_scales", "carried"))
        read = f"{np_}.negative({np_}.asarray(A)[:{whole}], dtype={values}.dtype)" if negated else f"{np_}.asarray(A)[:{whole}]"
        # Each statement updates a view in place (`view += ...`): `x[:, k] += y` would also
        # store the sum back through `x.__setitem__`, a second pass over the values.
        self.out += templates.replace(
            f"{whole} = len({values}) // {size} * {size}\n"
            f"{blocks}, {scales} = {values}[:{whole}].reshape(-1, {size}), {read}.reshape(-1, {size})\n"
            f"{columns}, {scale_columns} = list({blocks}.T), list({scales}.T)\n"
            f"{ends}, {end_scales} = {columns}[0].copy(), {scale_columns}[0].astype({values}.dtype)\n"
            f"for {k} in range(1, {size}):\n"
            f"    {ends} *= {scale_columns}[{k}]\n"
            f"    {ends} += {columns}[{k}]\n"
            f"    {end_scales} *= {scale_columns}[{k}]\n"
            f"{span}, {spare_scales} = 1, {np_}.empty_like({end_scales})\n"
            f"while {span} < len({ends}):\n"
            f"    {later_ends} = {ends}[{span}:]\n"
            f"    {later_ends} += {end_scales}[{span}:] * {ends}[:-{span}]\n"
            f"    {np_}.multiply({end_scales}[2 * {span}:], {end_scales}[{span}:-{span}], out={spare_scales}[2 * {span}:])\n"
            f"    {end_scales}, {spare_scales} = {spare_scales}, {end_scales}\n"
            f"    {span} *= 2\n"
            f"{carried} = {columns}[0][1:]\n"
            f"{carried} += {scale_columns}[0][1:] * {ends}[:-1]\n"
            f"for {k} in range(1, {size}):\n"
            f"    {columns}[{k}] += {scale_columns}[{k}] * {columns}[{k} - 1]\n"
            f"for {tail} in range(max({whole}, 1), len({values})):\n"
            f"    {values}[{tail}] = STEP", A=coef, STEP=step)

    def _carried_start(self, scan) -> Val:
        """``a_prev = a[first - 1]``: the start of an array recurrence, the element before the
        loop's first write (:func:`~pforge.transpile.analysis.recurrences.carried_elements`),
        read where the loop runs at least once; ``a`` must be an array (a list's items are
        Python numbers, which compute otherwise)."""
        element = self.ev(scan.element)
        if element.stacked or element.rank is None:
            raise Unsupported(f"`{scan.array}`: the element before the first write is not one value")
        np_ = self.lib.alias
        self.out += templates.replace(f"{scan.name} = E", E=copy.deepcopy(scan.element))
        # an array of numbers: an object array's element is any Python object (a str `a[0]`
        # would be read as a dtype name by `np.result_type`); one the function makes of
        # numbers (`np.zeros(n)`, bound once) is one
        from pforge.transpile.versioning import _made_wide
        if not _made_wide(self.ctx, self.info.function, scan.array):
            self.checks.append(templates.expr(f"type(A) is {np_}.ndarray and A.dtype.kind in 'biufc'",
                                              A=templates.name(scan.array)))
        same = self.info.aliases.get(scan.array, set()) | {root for root, names in self.info.aliases.items()
                                                            if scan.array in names}
        for other in sorted(set(self.info.arrays) - {scan.array}):  # a view of `a` written in the body
            if other in same:
                continue  # `x = a`, then `x[i] = x[i - 1] + x[i]`: `a` is `x` itself (a view blocks, PF203)
            if any(unexposed_allocation(self.ctx, self.info.function, self.info.node, new) and old not in self.loop_stores
                   for new, old in ((other, scan.array), (scan.array, other))):
                continue  # (an array allocated before the loop and seen by nothing else is no view)
            self.checks.append(templates.expr(f"not {np_}.may_share_memory(A, W)", A=templates.name(scan.array),
                                              W=templates.name(other)))
        self.nonempty = True
        return Val(templates.name(scan.name), (), element.rank, scalar=element.rank == 0)

    def _start_exclusive_scans(self, info) -> None:
        """A scan read before its update reads the running values without this iteration's
        term, ``steps[:-1]``; the term reads nothing the body binds (the analysis), so the steps
        are computed where the body starts.

        - An array recurrence (``c[i] = a[i - 1]``, then ``a[i] = a[i - 1] + b[i]``): the first
          running value is the element before the loop's first write, in ``a``'s dtype as the
          steps are.
        - A running value read before its update only to be stored (``starts[i] = total``, then
          ``total += counts[i]``: the offsets of a ragged array): the first value is ``s``
          itself, which the steps hold in their dtype (a Python float among float32 terms
          rounded); the first element is stored again from ``s``, as the loop stores it
          (:meth:`_exclusive_first`).
        """
        for name, scan in info.scans.items():
            if scan.exclusive and self._tf_exclusive_appends(info, scan):
                # (TensorFlow: the start is appended as it is; `tf.stack` converts it to the
                # other items' dtype, as the steps hold it, but on one iteration it stacks the
                # start alone, of its own dtype and shape: a Python float as float32)
                self._scan_steps(scan)
                rank = self.scan_ranks[name]
                before = templates.expr(self.scan_exclusive[name])
                forward = reversed_operand(before)  # (one value reversed is itself)
                in_order = forward if forward is not None else before
                values = templates.expr(f"{self.lib.alias}.stack([S]) if V.shape[0] == 1 else W",
                                        S=templates.name(name), V=in_order, W=copy.deepcopy(in_order))
                if forward is not None:
                    values = templates.expr("V[::-1]", V=values)
                self.env[name] = Val(values, (True,), rank, scalar=rank == 0)
                continue
            if scan.exclusive and scan.element is None and scan.op != "linear":
                for stmt in self._exclusive_stores(info, scan):
                    self.exclusive_firsts[id(stmt)] = name
            if scan.exclusive and scan.op != "linear" and (
                    scan.element is not None or self._exclusive_stores(info, scan)):
                self._scan_steps(scan)
                rank = self.scan_ranks[name]
                steps = self.scan_steps[name][0][:-len("[1:]")]
                self.env[name] = Val(templates.expr(f"{steps}[:-1]"), (True,), rank, scalar=rank == 0)

    def _tf_exclusive_appends(self, info, scan) -> bool:
        """A TensorFlow scan read before its update only to be appended to a collector of the
        loop stacked after it (``out.append(s)``, then ``s = s + x[i]``)."""
        body = info.body
        if self.lib.kind != "tf" or len(self.levels) != 1 or scan.element is not None or scan.update not in body:
            return False
        found = False
        for stmt in body[:body.index(scan.update)]:
            reads = [n for n in gast.walk(stmt) if isinstance(n, gast.Name) and n.id == scan.name]
            if not reads:
                continue
            call = getattr(stmt, "value", None)
            if not (isinstance(stmt, gast.Expr) and isinstance(call, gast.Call) and call.args == reads
                    and isinstance(call.func, gast.Attribute) and call.func.attr == "append"
                    and isinstance(call.func.value, gast.Name) and call.func.value.id in info.collectors
                    and info.collectors[call.func.value.id].kind in ("stack", "concat")):
                return False
            found = True
        return found

    def _exclusive_stores(self, info, scan) -> list[gast.stmt]:
        """The statements of a one-level NumPy loop over a range or ``enumerate`` that read
        ``scan`` before its update, when each only stores it (``out[i] = s``, the index the loop
        index and invariants), else ``[]``."""
        space, body = info.space, info.body
        if self.lib.kind != "np" or self.to_tf or len(self.levels) != 1 or space is None or \
                space.kind not in ("range", "enumerate") or scan.update not in body:
            return []
        stored = {n.id for n in gast.walk(gast.Module(body=body, type_ignores=[]))
                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        found = []
        for stmt in body[:body.index(scan.update)]:
            reads = [n for n in gast.walk(stmt) if isinstance(n, gast.Name) and n.id == scan.name]
            if not reads:
                continue
            if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and reads == [stmt.value]
                    and isinstance(stmt.targets[0], gast.Subscript) and isinstance(stmt.targets[0].value, gast.Name)):
                return []
            index = {n.id for n in gast.walk(stmt.targets[0].slice) if isinstance(n, gast.Name)}
            if index & stored - {space.induction} or stmt.targets[0].value.id in stored:
                return []
            found.append(stmt)
        return found

    def _exclusive_first(self, stmt) -> None:
        """``out[i] = s`` read before the update of the scan ``s``: after the batched store, the
        first iteration's element is stored again from ``s`` itself, the value the loop stores
        there (the steps hold it in their dtype, which may round it)."""
        name = self.exclusive_firsts.get(id(stmt))
        if name is None:
            return
        space = self.info.space
        first = (space.start if space.kind == "range" else space.enumerate_start) or const(0)

        class First(gast.NodeTransformer):
            def visit_Name(self, node):
                return copy.deepcopy(first) if node.id == space.induction else node

        target = First().visit(copy.deepcopy(stmt.targets[0]))
        self.out += templates.replace("T = S", T=target, S=templates.name(name))

    def _refuse_exclusive_scans(self, info) -> None:
        """A scan read before its update (exclusive) is left as a loop: the first read is ``s``
        itself, whose kind the running values would not keep (a Python float where they are
        float32 computes ``s * 0.1`` in float64)."""
        for name, scan in info.scans.items():
            if scan.exclusive and scan.element is not None and scan.op == "linear":
                raise Unsupported(f"the element of `{scan.array}` a linear recurrence carries is read before "
                                  "its update (an exclusive read of a linear scan)")
            if scan.exclusive and scan.element is None and not self._tf_exclusive_appends(info, scan) and (
                    scan.op == "linear" or not self._exclusive_stores(info, scan)):
                raise Unsupported(f"`{name}` is read before its update (an exclusive scan); its first "
                                  "value would take the running values' dtype")

    def _scan_update(self, stmt) -> bool:
        """The update of a scan: from here on the body reads the inclusive running values."""
        scan = next((s for s in self.levels[-1].info.scans.values() if s.update is stmt), None)
        if scan is None:
            return False
        self._scan_steps(scan)
        # from here on `s` is its value after this iteration's term: NumPy scalars, one per iteration
        rank = self.scan_ranks[scan.name]
        self.env[scan.name] = Val(templates.expr(self.scan_steps[scan.name][0]), (True,), rank,
                                  scalar=rank == 0)
        return True

    def _end_scans(self, info) -> None:
        """Each scan ends as its last running value (an array recurrence's is in the array)."""
        for name, scan in info.scans.items():
            if scan.element is None and self.scan_steps[name][1] is not None:
                self.out += templates.replace(f"{name} = {self.scan_steps[name][1]}")

    def _arg_reduce(self, args):
        """Argmax tracking, ``if v > best: best = v; idx = i`` (NumPy, one loop level): the
        extreme term among those that beat ``best``'s value before the loop, and the first
        (``>``, ``<``) or last (``>=``, ``<=``) iteration that reached it; with none,
        ``best`` and ``idx`` keep their values. NaN terms never beat anything, as in the loop.
        ``args`` are the ArgReductions of one ``if``: each value it takes where the extreme is
        reached (``idx = i``, ``best_w = w``, a row) is its batched value at that iteration, or
        itself where it is the same on every iteration; none (``if v > best: best = v``), the
        extreme alone. After pfor's arg-reduction lowering (``backends/pfor``)."""
        arg = args[0]
        if self.lib.kind != "np" or self.to_tf or len(self.levels) != 1 or self.mask is not None:
            raise Unsupported(f"argmax tracking of `{arg.name or arg.value}` has no batching rule here "
                              "(NumPy, an outermost loop with no inner one)")
        term = self.ev(arg.term)
        if not term.stacked or term.rank != 0:
            raise Unsupported(f"argmax tracking of `{arg.name or arg.value}`: a term that is not one "
                              "number per iteration")
        zero_d = next((e for e in [arg.term] + [a.index for a in args if a.name is not None] if self._zero_d(e)), None)
        if zero_d is not None:
            # `v = m[..., i, 0]` is a 0-d array, which the loop keeps, where an element of the
            # batched terms is a NumPy scalar
            raise Unsupported(f"argmax tracking: `{gast.unparse(zero_d).strip()}` may be a 0-d array per iteration "
                              "(an index with `...`, or an array made of a number)")
        np_, best = self.lib.alias, arg.value
        terms, better = self.namer.new(f"{best}_terms"), self.namer.new(f"{best}_better")
        compare = {("max", True): ">", ("max", False): ">=", ("min", True): "<",
                   ("min", False): "<="}[(arg.op, arg.strict)]
        top = self.namer.new("at")
        pick = "0" if arg.strict else "-1"  # (of equal terms, 0.0 and -0.0 among them)
        self.out += templates.replace(f"{terms} = T", T=term.node)
        found = []
        for each in (a for a in args if a.name is not None):
            index = self.ev(each.index)
            if index.rank is None or index.stacked and index.depth != 1 or index.mixed:
                raise Unsupported(f"argmax tracking of `{each.name}`: a value of unknown rank, or a Python "
                                  "number on some iterations and a NumPy value on others")
            if not index.stacked:  # the same on every iteration: taken as it is
                found.append(templates.replace(f"{each.name} = I", I=index.node)[0])
                continue
            values = self.namer.new(f"{each.name}_values")
            self.out += templates.replace(f"{values} = I", I=index.node)
            found.append(templates.replace(f"{each.name} = P", P=self._picked(values, top, index))[0])
        self.out += templates.replace(
            f"{better} = {terms} {compare} {best}\n"
            f"if {np_}.any({better}):\n"
            f"    {top} = {np_}.flatnonzero({terms} == {np_}.{arg.op}({terms}[{better}]))[{pick}]\n"
            f"    {best} = P", P=self._picked(terms, top, term))
        self.out[-1].body += found

    def _picked(self, array: str, top: str, value: Val) -> gast.expr:
        """``array[top]``, of the kind the loop's value is: a Python number where it is one
        (``.item()``), or where the invariant scalar its ``witness`` is made from is one (fuzz
        seed 8148629: ``v = c + i`` of a Python float ``c`` is a Python float in the loop)."""
        if value.python:
            return templates.expr(f"{array}[{top}].item()")
        if value.witness is not None:
            return templates.expr(f"{array}[{top}].item() if type(W) in (int, float, bool, complex) else {array}[{top}]",
                                  W=copy.deepcopy(value.witness))
        return templates.expr(f"{array}[{top}]")

    def _zero_d(self, node) -> bool:
        """``node`` (or the value the loop body binds it to) indexes with an Ellipsis
        (``m[..., i, 0]`` is a 0-d array, not a scalar) or makes an array (``np.asarray(v)``)."""
        if isinstance(node, gast.Name):
            bound = [st.value for st in gast.walk(self.info.node) if isinstance(st, gast.Assign)
                     and any(isinstance(t, gast.Name) and t.id == node.id for t in st.targets)]
            return any(self._zero_d(value) for value in bound)
        if isinstance(node, gast.Subscript):
            return any(isinstance(n, gast.Constant) and n.value is Ellipsis for n in gast.walk(node.slice))
        return isinstance(node, gast.Call) and (self.ctx.imports.resolve(node.func) or "") in (
            "numpy.asarray", "numpy.array", "numpy.asanyarray")

    # -- per-iteration row selections (NumPy) ----------------------------------------------------------

    def _selection(self, name, value) -> bool:
        """``rows = np.compress(mask, data, axis=0)``, ``rows = data[mask]`` or
        ``rows = data[np.where(mask)]`` with a per-iteration boolean mask: a ragged value.

        It is kept as (mask, data, whole, axis) and only a later sum, mean or ``len`` may read
        it, as a masked reduction (case 015: a segment mean).
        """
        found = self._selected(value)
        if found is None:
            return False
        self.selections[name] = found
        return True

    def _selected(self, value):
        """``(mask, data, whole, axis)`` when ``value`` selects from an invariant array by a
        per-iteration boolean mask: rows (a rank-1 mask along ``axis``, ``whole`` False) or
        elements (a mask of the data's rank, the selection flattened, ``whole`` True); else
        None."""
        if self.lib.kind != "np" or self.to_tf or self.in_branch:
            return None
        ragged = self._ragged_slice(value)
        if ragged is not None:
            return ragged
        if isinstance(value, gast.Call) and self.ctx.imports.resolve(value.func) == "numpy.compress":
            if len(value.args) != 2 or len(value.keywords) != 1 or value.keywords[0].arg != "axis" \
                    or constant_int(value.keywords[0].value) != 0:
                return None
            mask_node, data_node = value.args
        elif isinstance(value, gast.Subscript) and not isinstance(value.slice, (gast.Tuple, gast.Slice)):
            mask_node, data_node = value.slice, value.value
            if isinstance(mask_node, gast.Call) and self.ctx.imports.resolve(mask_node.func) == "numpy.where" \
                    and len(mask_node.args) == 1 and not mask_node.keywords:
                mask_node = mask_node.args[0]  # `x[np.where(m)]` is `x[m]`
        else:
            return None
        flat = self._flattened_selection(mask_node, data_node)
        if flat is not None:
            return flat
        if not _is_boolean(mask_node, self.ctx):
            return None
        mask, data = self.ev(mask_node), self.ev(data_node)
        if not mask.stacked or data.stacked or data.rank is None or data.rank < 1 or mask.rank is None:
            return None
        # The loop raises IndexError where the mask's shape is not the data's leading shape; the
        # batched code would broadcast. The arrays the condition compares elementwise have the
        # mask's shape: a check that the data has it too.
        inside = {id(n) for sub in gast.walk(mask_node) if isinstance(sub, gast.Subscript) for n in gast.walk(sub)}
        compared = sorted({n.id for n in gast.walk(mask_node) if isinstance(n, gast.Name) and id(n) not in inside
                           and not self._is_stacked_name(n.id) and n.id not in self.loop_stores
                           and (self._shape_of(n.id) or ranks.Shape(-1)).rank == mask.rank})
        if not isinstance(data_node, gast.Name) or data_node.id in self.loop_stores:
            return None
        if not compared:
            if mask.rank != 1 or data.rank != 1:
                return None
            # a mask computed from elements (`resp[:, b] > 0`): its length is known once it is
            # computed, and one that is not the data's raises in the loop's first iteration
            np_ = self.lib.alias
            mask = mask.with_node(self._hoist(mask.node, "selected"))
            self._require_arrays([data_node.id])
            self._numeric(data_node.id)
            self.out += templates.replace(
                f"if {np_}.shape(M)[-1] != {np_}.shape(D)[0]:\n"
                f"    raise IndexError('boolean index did not match indexed array along axis 0')",
                M=mask.node, D=data_node)
            return mask, data, True, 0
        self._require_arrays([data_node.id, *compared])
        self._numeric(data_node.id)
        if data_node.id not in compared:
            self.checks.append(templates.expr(
                f"{self.lib.alias}.shape(D)[:{mask.rank}] == {self.lib.alias}.shape(M)", D=data_node,
                M=templates.name(compared[0])))
        if mask.rank == 1:
            return mask, data, data.rank == 1, 0
        if mask.rank == data.rank and not isinstance(value, gast.Call):
            return mask, data, True, 0
        return None

    def _flattened_selection(self, mask_node, data_node):
        """``x[x == v]``, ``x[(x > lo) & (x < hi)]``: elements selected from an invariant array
        by a test of its own elements against numbers. The loop selects in C order whatever
        ``x``'s rank, and a count, sum or mean of them is one of the elements of
        ``np.ravel(x)``: so batched over the flattened array, the rewrite is the same for every
        rank (a label array of shape ``(n, 1)`` as well as ``(n,)``), where the ranks the code
        suggests need not be ``x``'s. ``(mask, data, True, 0)`` or None."""
        if not isinstance(data_node, gast.Name) or data_node.id in self.loop_stores \
                or self._is_stacked_name(data_node.id) or data_node.id in self.env:
            return None
        name = data_node.id
        seen = []

        def elementwise(node) -> bool:
            """``node`` computes elementwise from ``name`` and numbers of each iteration."""
            if isinstance(node, gast.Name) and node.id == name:
                seen.append(node)
                return True
            if isinstance(node, (gast.Name, gast.Subscript, gast.Attribute)):
                return not any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(node)) \
                    and self.ev(node).rank == 0
            if isinstance(node, gast.Constant):
                return True
            if isinstance(node, gast.Compare):
                return all(elementwise(e) for e in (node.left, *node.comparators))
            if isinstance(node, gast.BinOp):
                return elementwise(node.left) and elementwise(node.right)
            if isinstance(node, gast.UnaryOp):
                return isinstance(node.op, (gast.USub, gast.UAdd, gast.Invert)) and elementwise(node.operand)
            if isinstance(node, gast.Call):
                return self.ctx.imports.resolve(node.func) in _ELEMENTWISE_TESTS and not node.keywords \
                    and all(elementwise(a) for a in node.args)
            return False

        def boolean(node) -> bool:
            """``node`` is a bool array: a comparison, or ``&``, ``|``, ``^`` of ones; ``~`` of
            one that reads ``name`` (``~`` of a Python bool is an int: ``~True`` is -2)."""
            if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
                return boolean(node.left) and boolean(node.right)
            if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Invert):
                return boolean(node.operand) and any(isinstance(n, gast.Name) and n.id == name
                                                     for n in gast.walk(node.operand))
            return _is_boolean(node, self.ctx) and not isinstance(node, (gast.BoolOp, gast.UnaryOp))

        if not boolean(mask_node) or not elementwise(mask_node) or not seen:
            return None
        saved = self.env
        whole = self.ev(data_node)  # (its kinds of number, :meth:`DtypesMixin._kinds`)
        self.env = {**saved, name: dataclasses.replace(
            whole, node=self.lib.call("ravel", templates.name(name)), rank=1)}
        try:
            mask, data = self.ev(mask_node), self.ev(data_node)
        finally:
            self.env = saved
        if not mask.stacked or mask.rank != 1:
            return None
        self._require_arrays([name])
        self._numeric(name)
        return mask, data, True, 0

    def _numeric(self, name):
        """The array selected from holds numbers: a `where=` sum or mean of objects has no
        identity (the loop's `np.sum` of the selection adds the objects themselves)."""
        check = templates.expr(f"{self.lib.alias}.asarray(X).dtype.kind in 'biufc'", X=templates.name(name))
        if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
            self.checks.append(check)

    def _require_arrays(self, names):
        """A list compares as one value (`[1, 2] == 1` is False) and takes no mask as an index:
        each name the code does not show to be an array is checked to be one at run time."""
        for name in sorted(set(names)):
            if not self._declared(name) and \
                    not _evidently_array(self.ctx, self.info.function, templates.name(name), at=self.info.node):
                self.checks.append(templates.expr(f"type(X) is {self.lib.alias}.ndarray", X=templates.name(name)))

    def _ragged_slice(self, value):
        """``x[:, lo:hi]`` with ``lo`` or ``hi`` differing per iteration (and every other entry
        ``:``): a selection along that axis by the mask ``lo <= position < hi``, the bounds
        normalized as Python's slices do (a negative bound counts from the end); a bound that is
        not an integer raises TypeError, as the slice would. ``(mask, data, whole, axis)`` or
        None."""
        if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)):
            return None
        comps = list(value.slice.elts) if isinstance(value.slice, gast.Tuple) else [value.slice]
        varying = [a for a, c in enumerate(comps) if isinstance(c, gast.Slice) and any(
            b is not None and self.ev(b).stacked for b in (c.lower, c.upper, c.step))]
        if len(varying) != 1:
            return None
        at = varying[0]
        part = comps[at]
        # the other entries: `:` or one invariant integer each (`spec[0, lo:]`)
        for a, c in enumerate(comps):
            if a == at:
                continue
            if isinstance(c, gast.Slice):
                if c.lower is not None or c.upper is not None or c.step is not None:
                    return None
            elif self.ev(c).stacked or self.ev(c).rank != 0 or _is_boolean(c, self.ctx):
                return None
        if part.step is not None or self._window(part) is not None:
            return None  # a window of one width is read as one (IndexingMixin._window)
        axis = sum(isinstance(c, gast.Slice) for c in comps[:at])  # the axis in what is left
        rest = [gast.Slice(lower=None, upper=None, step=None) if a == at else copy.deepcopy(c)
                for a, c in enumerate(comps)]
        data_node = value.value if all(isinstance(c, gast.Slice) for c in rest) else gast.Subscript(
            value=copy.deepcopy(value.value), slice=gast.Tuple(elts=rest, ctx=gast.Load()) if len(rest) > 1
            else rest[0], ctx=gast.Load())
        data = self.ev(data_node)
        if data.stacked or data.rank is None or data.rank <= axis:
            return None
        bounds = [self.ev(b) for b in (part.lower, part.upper) if b is not None]
        if any(b.rank != 0 for b in bounds):
            return None
        bounds, full, _ = align(self.lib, bounds, "a slice's bounds")
        np_ = self.lib.alias
        length = templates.expr(f"{self.lib.alias}.shape(X)[{at}]", X=value.value)  # X may be a list
        position = self.lib.call("arange", length)
        tests = []
        for bound, given, compare in zip(bounds, [b for b in (part.lower, part.upper) if b is not None],
                                         [gast.GtE(), gast.Lt()] if part.lower is not None else [gast.Lt()]):
            name = self._hoist(bound.node, "bound")
            self.out += templates.replace(
                f"if {np_}.asarray(B).dtype.kind not in 'biu':\n"
                f"    raise TypeError('slice indices must be integers or None or have an __index__ method')",
                B=name)
            normal = templates.expr(f"{np_}.where(B < 0, B + L, B)[..., {np_}.newaxis]", B=name, L=length)
            tests.append(gast.Compare(left=copy.deepcopy(position), ops=[compare], comparators=[normal]))
        node = tests[0] if len(tests) == 1 else self.lib.call("logical_and", *tests)
        mask = Val(self._hoist(node, f"{value.value.id}_in_slice"), full, 1)
        return mask, data, data.rank == 1, axis

    def _selection_reduction(self, node):
        """``rows.sum(axis=0)`` / ``rows.mean(axis=0)`` / ``np.sum(rows, axis=0)`` / ``len(rows)``,
        and of an element selection (``np.mean(x[m])``, ``len(x[m])``) the sum, mean or count
        of every selected element."""
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr in ("sum", "mean") and not self.ctx.imports.resolve(func):
            target, how, args = func.value, func.attr, node.args
        else:
            callee = self.ctx.imports.resolve(func) or ""
            if callee not in ("numpy.sum", "numpy.mean", "builtins.len") or not node.args:
                return None
            target, how, args = node.args[0], callee.rsplit(".", 1)[-1], node.args[1:]
        if isinstance(target, gast.Name) and target.id in self.selections:
            name = target.id
            mask, data, whole, along = self.selections[name]
        elif isinstance(target, (gast.Subscript, gast.Call)):
            found = self._selected(target)
            if found is None:
                return None
            name = gast.unparse(target).strip()
            mask, data, whole, along = found
        else:
            return None
        lib = self.lib
        depth = mask.depth
        axes = const(-1) if mask.rank == 1 else gast.Tuple(
            elts=[const(depth + k) for k in range(mask.rank)], ctx=gast.Load())
        count = lib.call("sum", mask.node, axis=axes)
        if how == "len" and not args and not node.keywords:
            return Val(count, mask.full, 0, python=True, pytype="int")
        axis = node.keywords[0].value if len(node.keywords) == 1 and node.keywords[0].arg == "axis" else (
            args[0] if len(args) == 1 and not node.keywords else None)
        given = constant_int(axis)
        if given is not None and given < 0 and data.rank is not None:
            given += data.rank
        if how not in ("sum", "mean") or not (given == along or whole and not args and not node.keywords):
            raise Unsupported(f"`{name}.{how}(...)` of rows selected per iteration (only sum and mean "
                              "along the selected axis are batched)")
        # `np.mean(..., where=mask)` keeps np.mean's own dtypes (float64 for integers, float32
        # for float32) and its NaN for an empty selection; the zeros only give the shape.
        if whole:  # every selected element
            wide = mask.node if mask.rank == data.rank else core.insert_axes(lib, mask, depth + 1, data.rank - 1)
            total = lib.call(how, lib.call("where", wide, data.node, 0), axis=copy.deepcopy(axes))
            total.keywords.append(gast.keyword(arg="where", value=copy.deepcopy(wide)))
            return Val(total, mask.full, 0)
        if isinstance(data.node, gast.Name) and mask.rank == 1:
            contracted = self._selected_rows_contraction(mask, data, data.node.id, along, how)
            if contracted is not None:
                return Val(contracted, mask.full, data.rank - 1)
        wide = core.insert_axes(lib, mask, depth, along)  # the mask's axis where `along` is
        wide = core.insert_axes(lib, Val(wide), depth + along + 1, data.rank - along - 1)
        total = lib.call(how, lib.call("where", wide, data.node, 0), axis=depth + along)
        total.keywords.append(gast.keyword(arg="where", value=copy.deepcopy(wide)))
        return Val(total, mask.full, data.rank - 1)

def _forwards(rows: gast.expr, tf_: str, imports) -> gast.expr | None:
    """The rows read in the opposite order: ``v`` of ``v[::-1]``, and ``tf.convert_to_tensor(v)``
    of ``tf.convert_to_tensor(v[::-1])`` (a sequence converted, walked last first); else None."""
    if reversed_operand(rows) is not None:
        return reversed_operand(rows)
    if isinstance(rows, gast.Call) and imports.resolve(rows.func) == "tensorflow.convert_to_tensor" \
            and len(rows.args) == 1 and not rows.keywords and reversed_operand(rows.args[0]) is not None:
        return templates.expr(f"{tf_}.convert_to_tensor(V)", V=copy.deepcopy(reversed_operand(rows.args[0])))
    return None


def _running_value_first(scan) -> bool:
    """Whether a maximum or minimum scan spells the running value first, ``np.maximum(s, t)``
    (any other scan: True)."""
    first = scan.update.value.args[0] if scan.op in ("max", "min") else None
    return first is None or isinstance(first, gast.Name) and first.id == scan.name


#: what a step of ``tf.scan`` may hold besides calls, rows and module attributes
#: (:meth:`_graph_step`): arithmetic on names and constants (``not`` asks a tensor for a Python
#: bool: left out)
_GRAPH_STEP_NODES = (gast.BinOp, gast.Name, gast.Constant, gast.keyword, gast.expr_context, gast.operator,
                     gast.UAdd, gast.USub, gast.Invert)

#: calls that give a value of a dtype of their own (a step that makes one decides the running
#: value's dtype, which the rows' then need not be)
_DTYPE_CALLS = {"tensorflow.cast", "tensorflow.dtypes.cast", "tensorflow.saturate_cast", "tensorflow.bitcast",
                "tensorflow.convert_to_tensor", "tensorflow.constant", "tensorflow.complex",
                "tensorflow.math.real", "tensorflow.math.imag", "tensorflow.math.angle", "tensorflow.math.abs"}
#: TensorFlow calls that return no tensor
_TF_NOT_TENSORS = {"tensorflow.TensorArray", "tensorflow.Variable", "tensorflow.shape", "tensorflow.rank",
                   "tensorflow.unstack", "tensorflow.split", "tensorflow.meshgrid"}


# -- helpers ---------------------------------------------------------------------------------------------


#: elementwise functions a mask of an array's own elements may apply (:meth:`_flattened_selection`)
_ELEMENTWISE_TESTS = {f"numpy.{name}" for name in (
    "logical_and logical_or logical_xor logical_not isnan isinf isfinite abs absolute").split()}


def _replace_term(stmt, name, new):
    """The update statement with its term replaced by ``new`` (``s += e`` -> ``s += R``)."""
    if isinstance(stmt, gast.AugAssign):
        stmt.value = new
        return stmt
    value = stmt.value
    if isinstance(value, gast.BinOp):
        if isinstance(value.left, gast.Name) and value.left.id == name:
            value.right = new
        else:
            value.left = new
    elif isinstance(value, gast.BoolOp):
        value.values[1] = new
    else:
        first = value.args[0]
        if isinstance(first, gast.Name) and first.id == name:
            value.args[1] = new
        else:
            value.args[0] = new
    return stmt


def _replace_name(node, name, new):
    class _Sub(gast.NodeTransformer):
        def visit_Name(self, n):
            return copy.deepcopy(new) if n.id == name and isinstance(n.ctx, gast.Load) else n

    return _Sub().visit(copy.deepcopy(node))


def _counts(node) -> bool:
    """Whether the batched terms ``node`` are small ints whose int64 sum cannot overflow: a
    constant, or a ``where`` of constants (``count += 1`` under a test)."""
    if isinstance(node, gast.Constant):
        return True
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == "where" \
        and all(isinstance(a, gast.Constant) for a in node.args[1:])
