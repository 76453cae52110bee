"""Sums of broadcast products as ``np.einsum``: the contraction an expert writes.

The batched form of ``np.sum(xs[a] * ys[b] * zs[c])`` in a nest over ``a``, ``b`` and ``c``
is ``np.sum(xs[:, None, None] * ys[None, :, None] * zs[None, None], axis=-1)``: right, but it
materialises the broadcast product, ``A * B * C * n`` values, before summing it away, where
the loop needs one row at a time. ``np.einsum("an,bn,cn->abc", xs, ys, zs)`` multiplies and
sums in one pass over the same operands, with no intermediate (the cost is the same ``A * B
* C * n`` multiplications, the memory that of the result). The idiom follows NumPy's own
advice for such sums (the ``einsum`` documentation) and what ``opt_einsum`` and XLA's dot
merger do with them.

The contraction sums in another order than ``np.sum`` (pairwise, over each row) does, so the
results may differ in the last bits: the rewrite is an unsafe fix (``LoopRewrite.unsafe``) and
is used only where the transpiler may reassociate (``ModuleContext.reassociate``); otherwise
the broadcast form stays. ``einsum`` also computes in its operands' dtype where ``np.sum``
widens small ints to int64 and bools to ints, so it is used only for float32, float64,
complex64 and complex128 operands, checked in front (``x.dtype.char in 'fdFD'``); and it
converts every operand to their common dtype before multiplying, where the loop rounds a
float32 ``x * y`` before a float64 ``z`` joins, so the arrays of three or more factors must
hold one dtype (checked too). Two operands are contracted with ``optimize=True``, which
hands them to BLAS through ``np.tensordot`` (as fast as ``a @ b.T``, and unlike ``@`` it
broadcasts a summed axis of length 1, as the loop's ``*`` does).

A masked sum is a contraction too: ``if tags[c] == g: totals[g, r] += mat[r, c]`` sums the
product of the test, as 0 or 1, with the terms, the one-hot matrix product of group sums
(:meth:`ContractionsMixin._masked_contraction`, and for the rows a test selects,
:meth:`ContractionsMixin._selected_rows_contraction`), where the terms are finite.
"""

from __future__ import annotations

import copy
import string

import gast

from pforge.transpile import templates
from pforge.transpile.spaces import constant_int
from pforge.transpile.backends.direct.core import Val, const, insert_axes, lift
from pforge.transpile.backends.direct.dtypes import _array_read

#: Letters of the loop axes, outermost first: more than a nest can have (Python's parser allows
#: 20 nested blocks).
LOOP_LETTERS = "abcdefghij" + string.ascii_uppercase
#: Letters of the per-iteration axes, the last axis last (``n`` for a vector).
ITEM_LETTERS = "klmn"
#: Sums the idiom replaces, by resolved name (``method.sum`` is ``(a * b).sum()``).
SUMS = ("numpy.sum", "method.sum")
#: Norms the squared-distance expansion also takes (the square root of such a sum).
NORMS = ("numpy.linalg.norm",)
#: TensorFlow's sums and norms the squared-distance expansion takes.
TF_SUMS = ("tensorflow.reduce_sum", "tensorflow.math.reduce_sum")
TF_NORMS = ("tensorflow.norm", "tensorflow.linalg.norm")
#: Why a rewrite with the expanded squared distance is an unsafe fix.
EXPANDED = ("expands the squared distance `sum({expr})` as |a|**2 + |b|**2 - 2 a.b (a matrix product, no "
            "intermediate of the differences); it loses precision where points are close relative to their norms")
#: Why a rewrite with a masked contraction is an unsafe fix.
MASKED = ("sums the terms `{expr}` that pass the test as a product with the 0/1 test, with np.einsum, in another "
          "order than the loop; floating-point results may differ in the last bits, and by more where large "
          "terms cancel")
#: Why a rewrite with a contraction is an unsafe fix.
UNSAFE = ("sums the products of `{expr}` with np.einsum, in another order than np.sum; "
          "floating-point results may differ in the last bits, and by more where large terms cancel")


def factors(node) -> list:
    """The operands of a chain of ``*`` (``a * b * c`` gives ``[a, b, c]``), in order."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        return factors(node.left) + factors(node.right)
    return [node]


def squeezed(node, keep: list[bool], newaxes: bool = False):
    """``node`` without the size-1 loop axes ``keep`` marks False, where ``node`` spells them as
    ``newaxis`` in an index of slices and ``newaxis`` only (``ys[None, :, None]`` with ``keep``
    ``[False, True, False]`` is ``ys``, ``g[None, :n]`` with ``[False, True]`` is ``g[:n]``);
    None when it does not spell them so. A sign in front is kept (``-ys[None]`` is ``-ys``).
    With ``newaxes``, a ``newaxis`` where ``keep`` is True stays (else None)."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        operand = squeezed(node.operand, keep, newaxes)
        return None if operand is None else gast.UnaryOp(op=copy.deepcopy(node.op), operand=operand)
    if not isinstance(node, gast.Subscript):
        return None
    parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
    if not all(isinstance(p, gast.Slice) or _newaxis(p) for p in parts):
        return None
    parts = parts + [gast.Slice(lower=None, upper=None, step=None)] * (len(keep) - len(parts))
    if any(not k and not _newaxis(p) for k, p in zip(keep, parts)):
        return None
    left = [p for k, p in zip(keep + [True] * (len(parts) - len(keep)), parts) if k]
    if not newaxes and any(_newaxis(p) for p in left):
        return None
    while left and _colon(left[-1]):
        left.pop()
    if not left:
        return copy.deepcopy(node.value)
    index = left[0] if len(left) == 1 else gast.Tuple(elts=left, ctx=gast.Load())
    return gast.Subscript(value=copy.deepcopy(node.value), slice=copy.deepcopy(index), ctx=gast.Load())


#: NumPy's logical functions, which the batched form of ``and``, ``or`` and ``not`` calls
LOGICAL = frozenset({"logical_and", "logical_or", "logical_xor", "logical_not"})


def squeezed_mask(node, keep: list[bool], numpy: str):
    """:func:`squeezed` of a test: a comparison (``a[None, :] == g[:, None]``), or a call of
    NumPy's (named ``numpy``) ``logical_and``, ``logical_or``, ``logical_xor`` or
    ``logical_not`` on such (the batched ``and``, ``or`` and ``not``), each operand squeezed,
    or a number; None where an operand does not spell the axes ``keep`` drops as ``newaxis``
    (a name may be a stacked value). (A test the user spells with ``&`` or ``~`` is not
    batched: on Python bools they are ints.)"""
    if isinstance(node, gast.Constant) or isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant):
        return copy.deepcopy(node)  # (`-1`)
    if isinstance(node, gast.Compare):
        parts = [squeezed_mask(n, keep, numpy) for n in [node.left, *node.comparators]]
        if any(p is None for p in parts):
            return None
        return gast.Compare(left=parts[0], ops=copy.deepcopy(node.ops), comparators=parts[1:])
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr in LOGICAL \
            and isinstance(node.func.value, gast.Name) and node.func.value.id == numpy and not node.keywords:
        args = [squeezed_mask(a, keep, numpy) for a in node.args]
        if not args or any(a is None for a in args):
            return None
        return gast.Call(func=copy.deepcopy(node.func), args=args, keywords=[])
    # an operand may lack an axis the test has (`tags[None, None, :n]` beside `g[:, None, None]`
    # in a test of axes 0 and 2): it keeps its `newaxis` there, and broadcasts as before
    return squeezed(node, keep, newaxes=True)


def _colon(part) -> bool:
    return isinstance(part, gast.Slice) and part.lower is None and part.upper is None and part.step is None


def _newaxis(part) -> bool:
    return (isinstance(part, gast.Constant) and part.value is None) or (
        isinstance(part, gast.Attribute) and part.attr == "newaxis")


class ContractionsMixin:
    """:meth:`_contraction`: a batched ``np.sum`` of a product, as ``np.einsum``."""

    def _float_checks(self) -> None:
        """``type(x) is np.ndarray`` and ``x.dtype.char in 'fdFD'`` in front, for each array a
        contraction reads (:attr:`float_operands`): ``einsum`` sums in its operands' dtype,
        as ``np.sum`` does for these four only; and ``y.dtype == x.dtype`` for the arrays of
        a product of three or more factors (:attr:`same_dtype`), which the loop rounds pair
        by pair, in place of ``y``'s own ``y.dtype.char in 'fdFD'``, which it implies."""
        np_ = self.lib.alias
        # the arrays of one dtype (one product, or products sharing an array) need one of them
        # tested: `y.dtype == x.dtype` and `x.dtype.char in 'fdFD'` say the same of `y`
        group = {base: {base} for base in self.float_operands}
        for names in self.same_dtype:
            joined = set().union(*(group[name] for name in names))
            for name in joined:
                group[name] = joined
        same = {base for base in self.float_operands if base != min(group[base])}
        for base in sorted(self.float_operands):
            written = {gast.unparse(c).strip() for c in self.checks}
            if f"type({base}) is {np_}.ndarray" not in written:
                self.checks.append(templates.expr(f"type(N) is {np_}.ndarray", N=templates.name(base)))
            if base not in same:
                self.checks.append(templates.expr("N.dtype.char in 'fdFD'", N=templates.name(base)))
        for first, *others in self.same_dtype:
            for other in others:
                self.checks.append(templates.expr("B.dtype == A.dtype", A=templates.name(first),
                                                  B=templates.name(other)))
        for base in sorted(self.finite_operands):
            # every value finite: an infinity or a nan anywhere makes the sum inf or nan. (A sum
            # of finite values that overflows fails it too, and the loop runs: right, if slow.)
            # `np.isfinite(x).all()` would hold a bool per value, an eighth of `x` again, where
            # the contraction needs no more than its result. Last: each array is known to be a
            # float or complex array by now, where `np.sum` of objects would call their `+`.
            check = templates.expr(f"{np_}.isfinite({np_}.sum(N))", N=templates.name(base))
            if gast.dump(check) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(check)
        if self.expanded:
            # an expanded distance is exact only to rounding, which an int array's truncation
            # turns into a unit (`2.9999999999999996` stored as 2 where the loop's 3.0 is 3:
            # helper-44): it is written into float and complex arrays only
            for name in sorted({name for level in self.info.walk() for name in level.arrays}):
                self.checks.append(templates.expr(f"{np_}.asarray(N).dtype.kind in 'fc'", N=templates.name(name)))

    def _contraction(self, node: gast.Call, name: str | None, value: Val) -> Val | None:
        """``value`` (the batched ``np.sum`` that is ``node``) as an ``np.einsum`` call, or None
        where the idiom does not apply or would not save memory.

        It applies to ``np.sum(f1 * f2 * ...)`` over every per-iteration axis or one, with no
        other argument, in NumPy code that may be reassociated, where each factor reads
        elements of an array the loop does not write (``xs[a]``, ``-xs[a]``), of a known
        rank, and no factor has every axis of the batched product (else the product is no
        larger than that factor, and the sum as written costs no more memory). The result
        must vary along every loop axis. Records the dtype checks and the unsafe fix.
        """
        if self.lib.kind == "tf" and not self.to_tf and name in TF_SUMS + TF_NORMS and self.ctx.reassociate:
            return self._expanded_distance(node, name, value)
        if name not in SUMS + NORMS or not self._np or not self.ctx.reassociate:
            return None
        expanded = self._expanded_distance(node, name, value)
        if expanded is not None or name in NORMS:
            return expanded
        summed = [node.func.value, *node.args] if name == "method.sum" else node.args
        if len(summed) != 1 or any(k.arg != "axis" for k in node.keywords) or not all(value.full):
            return None
        product = summed[0]
        parts = factors(product)
        if len(parts) < 2:
            return None
        # (a factor read from a copy made before the loop was evaluated as another node: None)
        seen = [self._seen(p) for p in parts]
        bases = [_array_read(p) for p in parts]
        # (a name the loop binds, its targets included, is no array the check in front can read)
        if any(v is None or v.python for v in seen) or any(b is None or b in self.loop_stores for b in bases):
            return None
        rank = max(v.rank for v in seen)
        if rank > len(ITEM_LETTERS):
            return None
        if any(v.depth == value.depth and all(v.full) and v.rank == rank for v in seen):
            return None  # a factor has every axis of the product: it is no larger than that factor
        axis = None
        if node.keywords:
            axis = constant_int(node.keywords[0].value)  # (`-1` is a minus on a literal)
            if axis is None:
                return None
            axis = axis if axis >= 0 else axis + rank
            if not 0 <= axis < rank:
                return None
        items = ITEM_LETTERS[len(ITEM_LETTERS) - rank:]
        specs, operands = [], []
        for v in seen:
            loops = [LOOP_LETTERS[k] for k in range(v.depth)]
            operand = squeezed(v.node, list(v.full)) if v.stacked and not all(v.full) else None
            if operand is not None:
                loops = [letter for letter, full in zip(loops, v.full) if full]
            else:
                operand = copy.deepcopy(v.node)
            specs.append("".join(loops) + items[rank - v.rank:])
            operands.append(operand)
        kept = "" if axis is None else items[:axis] + items[axis + 1:]
        output = LOOP_LETTERS[:value.depth] + kept
        spec = ",".join(specs) + "->" + output
        self.float_operands.update(bases)
        if len(parts) > 2 and len(set(bases)) > 1:
            # the loop rounds `x * y` of two float32 rows to float32 before a float64 `z` joins;
            # einsum converts every operand to the common dtype first (helper-39)
            self.same_dtype.append(tuple(dict.fromkeys(bases)))
        if self.unsafe is None:
            self.unsafe = UNSAFE.format(expr=gast.unparse(product).strip())
        # two operands: optimize=True hands the contraction to BLAS (np.tensordot), as fast as
        # `a @ b.T`, and still broadcasts a length-1 summed axis as the loop's `*` does, where
        # `@` raises (helper-39); more: one pass, no intermediate (the path opt_einsum would
        # take through pairs materialises `a * b`)
        extra = {"optimize": True} if len(operands) == 2 else {}
        call = self.lib.call("einsum", gast.Constant(value=spec, kind=None), *operands, **extra)
        sizes = self._loop_sizes(value.depth)
        for q, letter in enumerate(items):  # (an item axis: the array's axis a factor reads it from)
            base = next(b for v, b in zip(seen, bases) if v.rank >= rank - q)
            sizes[letter] = f"{base}.shape[{q - rank}]"
        self.choices.append(_contraction_costs(gast.unparse(node).strip(), spec, sizes))
        return value.with_node(call, fused=None)

    def _loop_sizes(self, depth: int) -> dict[str, str]:
        """The einsum letter of each of the ``depth`` loop axes -> its trip count as the
        source spells it (:meth:`_trip_text`), for the lines ``pforge explain`` prints."""
        return {LOOP_LETTERS[a]: self._trip_text(a + 1) or f"(loop {a + 1})" for a in range(depth)}

    def _masked_contraction(self, mask: Val, term: Val, term_node, summed: list[int],
                            running: gast.expr) -> gast.Call | None:
        """The sum along the loop axes ``summed`` of the terms ``term`` that pass the
        test ``mask`` (``if tags[c] == g: totals[g, r] += mat[r, c]``), as ``np.einsum`` of
        the test and the terms, or None where the idiom does not apply or would not save
        memory.

        Batched, the masked sum is ``np.sum(np.where(m, t, False), axis=...)``, whose
        ``where`` has every axis of the test and of the terms (``[g, r, c]`` values above),
        where the loop needs one term at a time. Where the test and the terms each lack an axis
        the other has, the sum is a contraction of the test, as 0 or 1, with the terms:
        ``np.einsum("ac,bc->ab", tags[np.newaxis, :n] == g[:, np.newaxis], mat[:, :n])``,
        the one-hot matrix product an expert writes for group sums (``onehot @ mat.T``),
        with no intermediate larger than its operands, through BLAS (``optimize=True`` hands
        two operands to ``np.tensordot``).

        ``0 * t`` is ``t``'s zero only where ``t`` is finite (``0 * inf`` is nan, where the
        loop skips the term), so the terms must be elements of an array the loop does not
        write, as they are (``x[i]``, ``-x[i]``): the check in front tests that the array is a
        float or complex array (:meth:`_float_checks`) with every value finite (its sum is).
        The contraction takes NumPy's result type of the running value and the terms as its
        ``dtype``, the dtype the loop accumulates in. The sum is taken in another order than
        the loop's (an unsafe fix, so only where the module may reassociate).

        Args:
            mask: the test, batched, a bool per iteration (rank 0).
            term: the terms, batched and lifted to the depth of the deepest loop.
            term_node: the term as the loop body spells it.
            summed: the loop axes the sum runs along (the level of a reduction and deeper, or
                the loops an element's index does not depend on).
            running: the value the terms are added to (``s``, or the array ``totals``).
        Returns:
            The ``np.einsum`` call; its result has the other loop axes,
            in order, and the term's own axes: the axes of ``np.sum(where, axis=summed)``.
        """
        if not self._np or not self.ctx.reassociate or mask.python or mask.rank != 0 or term.python:
            return None
        if term.rank is None or term.rank > len(ITEM_LETTERS):
            return None
        seen, base = self._seen(term_node), _array_read(term_node)
        if seen is None or seen.python or base is None or base in self.loop_stores:
            return None
        depth = term.depth
        mask = lift(self.lib, mask, depth)
        mask_axes = {a for a, full in enumerate(mask.full) if full}
        term_axes = {a for a, full in enumerate(term.full) if full}
        # both operands smaller than the `where` of the two: an axis of the test the terms
        # lack, and an axis (or the terms' own axes) the test lacks
        if not mask_axes - term_axes or not (term_axes - mask_axes or term.rank):
            return None
        if not all(a in mask_axes | term_axes for a in range(depth)):
            return None  # (an axis of size 1 in both: the einsum would drop it)
        if any(a not in mask_axes or a not in term_axes for a in summed):
            # a summed axis of one operand only: `einsum(..., optimize=True)` (NumPy 2's
            # `bmm_einsum`) sums it out of that operand alone first, in the operand's own dtype,
            # before `dtype` applies: a bool test's axis is an `or` (`labels[i] >= g` summed
            # over `g` counts each row once, where the loop adds it once per `g`), and float32
            # terms' axis is summed in float32 (into float64 totals the loop sums in float64)
            return None
        items = ITEM_LETTERS[len(ITEM_LETTERS) - term.rank:] if term.rank else ""
        specs, operands = [], []
        for v, rank in ((mask, 0), (term, term.rank)):
            operand = None if all(v.full) else squeezed_mask(v.node, list(v.full), self.lib.alias) if v is mask else \
                squeezed(v.node, list(v.full))
            loops = [LOOP_LETTERS[a] for a in range(depth) if v.full[a]] if operand is not None \
                else [LOOP_LETTERS[a] for a in range(depth)]
            specs.append("".join(loops) + (items if rank else ""))
            operands.append(operand if operand is not None else copy.deepcopy(v.node))
        kept = "".join(LOOP_LETTERS[a] for a in range(depth) if a not in summed)
        spec = ",".join(specs) + "->" + kept + items
        self.float_operands.add(base)
        self.finite_operands.add(base)
        if self.unsafe is None:
            self.unsafe = MASKED.format(expr=gast.unparse(term_node).strip())
        dtype = templates.expr(f"{self.lib.alias}.result_type(S, T)", S=running, T=copy.deepcopy(operands[-1]))
        sizes = self._loop_sizes(depth)
        sizes.update({letter: f"{base}.shape[{q - term.rank}]" for q, letter in enumerate(items)})
        test = specs[0]
        self.choices.append(
            f"`{gast.unparse(term_node).strip()}` summed where the test holds, as np.einsum('{spec}') of the "
            f"test (0 or 1) and the terms: holds the test, {_product([sizes[a] for a in test])} values, and the "
            f"result, where the `where` of the two would hold "
            f"{_product([sizes[a] for a in [*LOOP_LETTERS[:depth], *items]])}")
        return self.lib.call("einsum", gast.Constant(value=spec, kind=None), *operands, optimize=True, dtype=dtype)

    def _selected_rows_contraction(self, mask: Val, data: Val, data_name: str, along: int,
                                   how: str) -> gast.expr | None:
        """The sum or mean of the rows of ``data`` that a per-iteration test selects
        (``np.compress(labels == c, points, axis=0).mean(axis=0)``, case 015's centroids), as a
        contraction of the test, as 0 or 1, with the data: ``np.einsum("ak,kl->al", labels ==
        c[:, np.newaxis], points, optimize=True)``, divided by the count of selected rows for a
        mean. It is the one-hot matrix product an expert writes (``onehot.T @ points /
        onehot.sum(0)``); the masked ``np.mean(np.where(m, data, 0), where=m)`` it replaces
        builds every row for every iteration.

        As in :meth:`_masked_contraction`, the data must be a float or complex array of finite
        values (checked in front); the sum is taken in its dtype, as ``np.sum`` and ``np.mean``
        of such rows take it, in another order (an unsafe fix). A mean of no row is ``0 / 0``,
        nan, as ``np.mean`` of none.

        Args:
            mask: the test, batched: a bool per row of ``data`` along ``along`` (rank 1).
            data: the invariant array the rows are selected from, named ``data_name``.
            along: the axis of ``data`` the test selects along.
            how: ``"sum"`` or ``"mean"``.
        Returns:
            The batched sum or mean (the loop axes, then ``data``'s other axes), or None where
            the idiom does not apply.
        """
        if not self._np or not self.ctx.reassociate or mask.rank != 1 or data.rank is None \
                or not 1 <= data.rank <= len(ITEM_LETTERS) or how not in ("sum", "mean"):
            return None
        depth = mask.depth
        items = ITEM_LETTERS[:data.rank]
        if how == "mean":  # (read twice: for the sum and the count)
            mask = mask.with_node(self._hoist(mask.node, "selected"))
        # (the test keeps its size-1 loop axes: einsum broadcasts them, and the result keeps them)
        spec = f"{LOOP_LETTERS[:depth]}{items[along]},{items}->{LOOP_LETTERS[:depth]}{items.replace(items[along], '')}"
        total = self.lib.call("einsum", gast.Constant(value=spec, kind=None), copy.deepcopy(mask.node),
                              templates.name(data_name), optimize=True)
        self.float_operands.add(data_name)
        self.finite_operands.add(data_name)
        if self.unsafe is None:
            self.unsafe = MASKED.format(expr=f"rows of {data_name}")
        sizes = self._loop_sizes(depth)
        sizes.update({letter: f"{data_name}.shape[{q}]" for q, letter in enumerate(items)})
        self.choices.append(
            f"the {how} of the rows of `{data_name}` the test selects, as np.einsum('{spec}') of the test (0 or 1) "
            f"and `{data_name}`: holds the test, {_product([sizes[a] for a in LOOP_LETTERS[:depth] + items[along]])} "
            f"values, and the result, where the `where` of the two would hold "
            f"{_product([sizes[a] for a in LOOP_LETTERS[:depth] + items])}")
        if how == "sum":
            return total
        # the count in the data's dtype: a float32 mean stays float32, as np.mean's does
        count = self.lib.call("sum", copy.deepcopy(mask.node), axis=const(-1),
                              dtype=templates.expr("D.dtype", D=templates.name(data_name)))
        count = insert_axes(self.lib, Val(count, mask.full, 0), depth, data.rank - 1)
        return gast.BinOp(left=total, op=gast.Div(), right=count)

    def _expanded_distance(self, node: gast.Call, name: str, value: Val) -> Val | None:
        """``np.sum((a[i] - b[j]) ** 2)`` (or ``np.square(d)``, ``d * d`` of ``d = a[i] - b[j]``;
        ``np.linalg.norm(a[i] - b[j])`` is its square root) over a nest of ``i`` and ``j``, as ``|a|**2 + |b|**2 - 2 a.b``: two row norms and one
        matrix product, clamped at 0:
        ``np.maximum(np.einsum('ij,ij->i', a, a)[:, np.newaxis] + np.einsum('ij,ij->i', b, b)
        - 2 * (a @ b.T), 0)``. The broadcast form builds the ``(n, m, d)`` differences, ``d``
        times the result; this form needs the ``(n, m)`` result only and runs the product
        through BLAS. It is the identity scikit-learn's ``euclidean_distances`` uses, and
        CS231n's "no loops" distances; SciPy's ``cdist`` keeps the differences for precision.

        The identity subtracts large numbers where points are close relative to their norms,
        so the result loses precision there (about ``eps * (|a|**2 + |b|**2)`` absolute): it
        is used only where the module may trade precision for speed (``ModuleContext.fast_math``,
        ``--fast-math``), as an unsafe fix. ``a[i]`` and ``b[j]`` must be rows of two 2-D
        float32 or float64 arrays of one dtype and one row length (checked in front: the loop's
        ``-`` broadcasts a row of length 1, the identity would not), each read by one loop index.
        In TensorFlow code (``tf.norm``, ``tf.reduce_sum``), where nothing is checked in front,
        the docstring must declare both row lengths by one name (``a: [n, dim]``, ``b: [m,
        dim]``); the product is ``tf.matmul(a, b, transpose_b=True)``.

        Returns:
            The batched sum, or None where the idiom does not apply.
        """
        if value.depth != 2:
            return None
        summed = [node.func.value, *node.args] if name == "method.sum" else node.args
        if len(summed) != 1 or not all(value.full) or value.rank != 0 or any(
                k.arg != "axis" or constant_int(k.value) not in (0, -1) for k in node.keywords):
            return None
        # `np.linalg.norm(d)` of a vector is the square root of the sum of its squares
        norm = name in NORMS + TF_NORMS
        difference = private = summed[0] if norm else _squared(self.ctx, summed[0])
        if isinstance(difference, gast.Name):
            difference = self._body_binding(difference.id)
        if not (isinstance(difference, gast.BinOp) and isinstance(difference.op, gast.Sub)):
            return None
        sides = [difference.left, difference.right]
        seen = [self._seen(p) or self._aside(p) for p in sides]  # (TensorFlow code records no values)
        seen = [None if v is None or not v.stacked else lift(self.lib, v, 2) for v in seen]
        if any(v is None or v.rank != 1 or v.full not in ((True, False), (False, True)) for v in seen) \
                or seen[0].full == seen[1].full or not all(
                    isinstance(p, gast.Subscript) and isinstance(p.value, gast.Name) and isinstance(p.slice, gast.Name)
                    and p.value.id not in self.loop_stores for p in sides):
            return None
        bases = [p.value.id for p in sides]
        operands = [squeezed(v.node, list(v.full)) for v in seen]
        if any(op is None for op in operands):
            return None
        outer, inner = (0, 1) if seen[0].full[0] else (1, 0)
        self.choices.append(_distance_costs(gast.unparse(node).strip(), self._trip_text(1) or "n",
                                            self._trip_text(2) or "m", f"{bases[outer]}.shape[-1]",
                                            self.ctx.fast_math))
        if not self.ctx.fast_math:
            return None
        tf = self.lib.kind == "tf"
        if tf:
            # no check runs in front of TensorFlow code: the rows must be declared of one
            # length (`a: [n, dim]`, `b: [m, dim]`), where the loop's `-` broadcasts a row of 1
            shapes = [self._shape_of(b) for b in bases]
            if any(sh is None or sh.rank != 2 for sh in shapes) or shapes[0].dim(1) is None \
                    or shapes[0].dim(1) != shapes[1].dim(1):
                return None
        norms = [self.lib.call("einsum", gast.Constant(value="ij,ij->i", kind=None), op, copy.deepcopy(op))
                 for op in operands]
        norms[outer] = gast.Subscript(value=norms[outer], slice=gast.Tuple(
            elts=[gast.Slice(lower=None, upper=None, step=None), self.lib.newaxis], ctx=gast.Load()), ctx=gast.Load())
        product = self.lib.call("matmul", copy.deepcopy(operands[outer]), copy.deepcopy(operands[inner]),
                                transpose_b=True) if tf else \
            templates.expr("X @ Y.T", X=copy.deepcopy(operands[outer]), Y=copy.deepcopy(operands[inner]))
        total = templates.expr("A + B - 2 * C", A=norms[outer], B=norms[inner], C=product)
        np_ = self.lib.alias
        for check in [] if tf else [f"type({b}) is {np_}.ndarray and {b}.dtype.char in 'fd'" for b in dict.fromkeys(bases)] + \
                [f"{bases[1]}.dtype == {bases[0]}.dtype", f"{bases[0]}.shape[-1] == {bases[1]}.shape[-1]"]:
            test = templates.expr(check)
            if gast.dump(test) not in {gast.dump(c) for c in self.checks}:
                self.checks.append(test)
        if isinstance(private, gast.Name):
            self.replaced_privates.add(private.id)  # (a private: the loop's value is not read after it)
        if self.unsafe is None:
            squares = f"({gast.unparse(summed[0]).strip()}) ** 2" if norm else gast.unparse(summed[0]).strip()
            self.unsafe = EXPANDED.format(expr=squares)
        self.expanded = not tf  # (written only into float arrays: :meth:`_float_checks`)
        clamped = self.lib.call("maximum", total, gast.Constant(value=0, kind=None))
        return value.with_node(self.lib.call("sqrt", clamped) if norm else clamped, fused=None)

    def _body_binding(self, name: str) -> gast.expr | None:
        """The value of the one assignment to ``name`` in the loop body (any level), else None."""
        bound = [st for level in self.levels for st in level.info.body if isinstance(st, gast.Assign)
                 and any(isinstance(n, gast.Name) and n.id == name for t in st.targets for n in gast.walk(t))]
        if len(bound) != 1 or len(bound[0].targets) != 1 or not isinstance(bound[0].targets[0], gast.Name):
            return None
        return bound[0].value


def _product(sizes: list[str]) -> str:
    return " × ".join(f"`{size}`" for size in sizes) or "1"


def _contraction_costs(written: str, spec: str, sizes: dict[str, str]) -> str:
    """The line ``pforge explain`` prints for a sum of products rewritten as ``np.einsum(spec)``:
    the values each form holds at once and the multiply-adds both take, from the axes of
    ``spec`` and the size of each (``sizes``: letter -> source text). The broadcast product
    the loop's sum would be batched as holds every axis; the contraction only its result's."""
    inputs, output = spec.split("->")
    summed = [letter for letter in dict.fromkeys("".join(inputs.split(","))) if letter not in output]
    every = [*output, *summed]
    return (f"`{written}` as np.einsum('{spec}'): holds its result, {_product([sizes[a] for a in output])} "
            f"values, where the broadcast product would hold {_product([sizes[a] for a in every])}; "
            f"{_product([sizes[a] for a in every])} multiply-adds either way, summing over "
            f"{_product([sizes[a] for a in summed])}")


def _distance_costs(written: str, n: str, m: str, d: str, taken: bool) -> str:
    """The line ``pforge explain`` prints for pairwise squared distances (``n`` by ``m`` pairs
    of rows of ``d``, as the source spells each size): what the broadcast differences and the
    matrix-product identity each hold at once, and which is taken and why."""
    work = _product([n, m, d])
    broadcast = f"the broadcast differences hold {work} values (in strips where that passes the memory bound)"
    identity = (f"the identity |a|² + |b|² - 2 a·b holds {_product([n, m])} and runs the {work} "
                "multiply-adds through BLAS")
    if taken:
        return f"`{written}`: {identity}, where {broadcast}; taken under --fast-math (it loses precision " \
               "where points are close)"
    return f"`{written}`: {broadcast}; {identity}, but loses precision where points are close: " \
           "taken with --fast-math"


def _squared(ctx, node) -> gast.expr | None:
    """``d`` of ``d ** 2``, ``np.square(d)`` or ``d * d`` (one expression twice), else None."""
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Pow) and constant_int(node.right) == 2:
        return node.left
    if isinstance(node, gast.Call) and ctx.imports.resolve(node.func) == "numpy.square" and len(node.args) == 1 \
            and not node.keywords:
        return node.args[0]
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult) and gast.dump(node.left) == gast.dump(node.right):
        return node.left
    return None
