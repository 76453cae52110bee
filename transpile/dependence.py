"""Subscript dependence test: affine index forms, GCD and direction tests between accesses.

For a loop level with induction variable ``i``, every write ``A[f(i)]`` and read ``A[g(i)]``
of an array written in the loop is compared. Indices are affine forms over names; a dimension
*separates* iterations when it is ``c*i + k`` with ``c != 0`` and ``k`` loop-invariant. Then
the read at iteration ``i`` sees the element written at iteration ``i + (k_r - k_w)/c``: no
integer solution means no dependence (the GCD test), a writer that runs earlier is a flow
dependence (blocking), a later writer is an anti-dependence (fine under whole-array
semantics only when the read's statement runs before the write's: statement order is a
dependence too, Allen & Kennedy ch. 2, loop distribution). Source: Allen & Kennedy, "Optimizing Compilers for Modern Architectures" (2001),
ch. 3 (dependence testing: ZIV, strong SIV and GCD tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import gast


@dataclass(frozen=True)
class Affine:
    """``sum(coeffs[key] * key) + const`` over integer coefficients.

    A key is a name, or with ``products`` a product of names spelled ``"N*i"`` (the names
    sorted): ``i * N + j`` is ``{"N*i": 1, "j": 1}``, affine in ``i`` for an invariant ``N``
    and the form a linearized nest indexes with (see :func:`separating_dim`).
    """

    coeffs: tuple[tuple[str, int], ...]
    const: int

    @staticmethod
    def of(node: gast.AST, products: bool = False) -> "Affine | None":
        terms = _affine(node, products)
        if terms is None:
            return None
        coeffs, const = terms
        return Affine(tuple(sorted((k, v) for k, v in coeffs.items() if v)), const)

    def coeff(self, name: str) -> int:
        return dict(self.coeffs).get(name, 0)

    def symbols(self) -> set[str]:
        """Every name the form reads, those inside products and ``x.shape[k]`` included."""
        return {factor.split(".")[0] for k, _ in self.coeffs for factor in k.split("*")}

    def products(self) -> dict[tuple[str, ...], int]:
        """The terms that multiply two or more names, as ``{(names...): coefficient}``."""
        return {tuple(k.split("*")): v for k, v in self.coeffs if "*" in k}

    def minus(self, other: "Affine") -> "Affine":
        merged = dict(self.coeffs)
        for k, v in other.coeffs:
            merged[k] = merged.get(k, 0) - v
        return Affine(tuple(sorted((k, v) for k, v in merged.items() if v)), self.const - other.const)


def _affine(node, products):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return {}, node.value
    if isinstance(node, gast.Name):
        return {node.id: 1}, 0
    if products and isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
            and node.value.attr == "shape" and isinstance(node.value.value, gast.Name) \
            and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int:
        return {f"{node.value.value.id}.shape[{node.slice.value}]": 1}, 0  # one symbol: an array's extent
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        inner = _affine(node.operand, products)
        if inner is None:
            return None
        sign = -1 if isinstance(node.op, gast.USub) else 1
        return {k: sign * v for k, v in inner[0].items()}, sign * inner[1]
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        left, right = _affine(node.left, products), _affine(node.right, products)
        if left is None or right is None:
            return None
        sign = 1 if isinstance(node.op, gast.Add) else -1
        coeffs = dict(left[0])
        for k, v in right[0].items():
            coeffs[k] = coeffs.get(k, 0) + sign * v
        return coeffs, left[1] + sign * right[1]
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        left, right = _affine(node.left, products), _affine(node.right, products)
        if left is None or right is None:
            return None
        if not left[0]:
            left, right = right, left
        if right[0]:
            if not products:
                return None  # product of two symbols: not affine
            # (a + b*x + ...) * (c + d*y + ...), term by term: products of names are keys
            coeffs: dict[str, int] = {}
            for lk, lv in list(left[0].items()) + [("", left[1])]:
                for rk, rv in list(right[0].items()) + [("", right[1])]:
                    if not lk and not rk:
                        continue
                    key = "*".join(sorted(filter(None, lk.split("*") + rk.split("*"))))
                    coeffs[key] = coeffs.get(key, 0) + lv * rv
            return coeffs, left[1] * right[1]
        c = right[1]
        return {k: c * v for k, v in left[0].items()}, c * left[1]
    return None


@dataclass
class Access:
    """One subscripted access ``base[dims]``.

    Attributes:
        base: the array's name.
        dims: one entry per indexed dimension: an index expression, or a ``gast.Slice``.
        node: the statement or expression node (for line numbers).
        write: True for a store; ``aug`` is the operator of an augmented store (``+=``).
    """

    base: str
    dims: list[gast.AST]
    node: gast.AST
    write: bool = False
    aug: str | None = None


def flatten_subscript(node: gast.Subscript) -> tuple[str, list[gast.AST]] | None:
    """``a[i][j, k]`` -> ``("a", [i, j, k])``; None when the base is not a plain name."""
    dims: list[gast.AST] = []
    while isinstance(node, gast.Subscript):
        index = node.slice
        part = list(index.elts) if isinstance(index, gast.Tuple) else [index]
        if dims and any(isinstance(p, gast.Slice) for p in part):
            return None  # a[:, i][j]: the inner slice renumbers dimensions; not modelled
        dims = part + dims
        node = node.value
    if isinstance(node, gast.Name):
        return node.id, dims
    return None


@dataclass(frozen=True)
class Conflict:
    """Why two accesses depend: ``kind`` is ``flow`` (PF202), ``unknown``, ``symbolic`` (a
    distance of invariant names, which a run-time check may settle) or ``output`` (PF203), or
    ``anti`` (a read of an element a later iteration writes: legal when the read runs first
    in whole-array order, see :func:`pforge.transpile.analysis.runs_before`)."""

    kind: str
    detail: str
    #: for kind ``symbolic`` (a distance of invariant names, ``a[i + k]`` beside ``a[i]``): the
    #: index difference ``other - write`` and the write's coefficient of the index, which a
    #: run-time check compares with the trip count (:func:`pforge.transpile.analysis.subscripts._distance_check`)
    delta: "Affine | None" = None
    coeff: int = 0
    dim: int = 0  # (the dimension that separates the iterations)
    #: for kind ``output`` in a loop of known direction: whether the write's iteration runs
    #: after the other access's for every element both touch (None: not known)
    write_later: bool | None = None
    #: for kind ``anti`` from the weak-zero test: the read meets the write at the last iteration
    #: too, where a read after the write in the body sees the new value (so no copy made before
    #: the loop can stand for it: only a read that runs first is legal)
    last_iteration: bool = False


def separating_dim(access: Access, induction: str, variant: set[str],
                   nest: "Nest | None" = None) -> tuple[int, Affine] | None:
    """The first dimension of ``access`` that gives each iteration elements of its own.

    Either ``c*induction + invariant`` (the strong SIV form), or a linearized nest: the
    dimension is ``c*(induction*N + j)`` plus a non-negative constant, where ``j`` is the
    index of an inner loop over ``range(N)`` (an ``N`` the loop does not change, a name or a
    constant), so iteration ``induction`` owns the block ``[c*induction*N, c*(induction + 1)*N)``
    (the division algorithm; delinearization, Maslov, "Delinearization: an efficient way to
    break multiloop dependence equations", PLDI 1992).

    Args:
        nest: what the linearized form needs to know of the loop nest; None: no such form.
    """
    for d, index in enumerate(access.dims):
        if isinstance(index, gast.Slice):
            if nest is not None and _block(index, induction, variant, nest) is not None:
                return d, _block(index, induction, variant, nest)
            continue
        form = Affine.of(index, products=True)
        if form is None:
            continue
        if _strong(form, induction, variant):
            return d, form
        if nest is not None and _linearized(form, access, induction, variant, nest):
            return d, form
    return None


def _strong(form: Affine, induction: str, variant: set[str]) -> bool:
    """``c*induction + invariant``, ``c != 0``: no other name that varies, no product with one."""
    return form.coeff(induction) != 0 and not (form.symbols() - {induction}) & variant and not any(
        set(names) & (variant | {induction}) for names in form.products())


@dataclass(frozen=True)
class Nest:
    """What :func:`separating_dim` needs to know of a loop nest for the linearized form.

    Attributes:
        lowest: the least value of the level's index, when a known constant.
        inner: the inner loops' indices that run over ``range(stop)`` (from 0, step 1): name ->
            ``(stop, ids of the nodes inside that loop)``, an access outside the loop seeing
            the index's last value, not every value.
    """

    lowest: int | None
    inner: dict[str, tuple[gast.AST, frozenset[int]]]


def _linearized(form: Affine, access: Access, induction: str, variant: set[str], nest: Nest) -> bool:
    """Whether ``form`` is ``c*((induction - s)*N + j) + k``, ``j`` over ``range(N)`` around
    ``access``, ``c > 0``, ``k >= 0`` a constant, ``s`` 0 or the least index, and that index
    never negative: then the index is never negative either (a negative one would wrap
    around). ``N <= 0`` runs no inner iteration, so writes nothing."""
    if nest.lowest is None or nest.lowest < 0:
        return False
    for j, (stop, inside) in nest.inner.items():
        c = form.coeff(j)
        if c <= 0 or id(access.node) not in inside:
            continue
        if {n.id for n in gast.walk(stop) if isinstance(n, gast.Name)} & (variant | {induction}):
            continue
        for start in {0, nest.lowest}:  # `i * n + j`, or `(i - s) * n + j` from the first index `s`
            offset = gast.BinOp(left=_load(induction), op=gast.Sub(), right=gast.Constant(value=start, kind=None))
            block = Affine.of(gast.BinOp(left=gast.BinOp(left=offset, op=gast.Mult(), right=stop),
                                         op=gast.Add(), right=_load(j)), products=True)
            if block is None:
                continue
            rest = form.minus(Affine(tuple((k, c * v) for k, v in block.coeffs), c * block.const))
            if not rest.coeffs and rest.const >= 0:
                return True
    return False


def _block(part: gast.Slice, induction: str, variant: set[str], nest: Nest) -> Affine | None:
    """The start of ``part`` when it is iteration ``induction``'s own block of a blocked axis,
    ``x[s*i + k : s*i + k + s]``, else None.

    With a constant stride ``s`` and a constant offset ``k >= 0``, and an index never negative,
    the blocks are disjoint: for ``s > 0`` they are ``[s*i + k, s*(i + 1) + k)``, never wrapping
    around; for ``s < 0`` each slice stops before it starts, empty, except at most one, where
    the start is still >= 0 and the stop is not. With an invariant name as the stride
    (``x[b*y:b*(y + 1)]``, ``k = 0``) they are disjoint whatever ``b`` is: ``b > 0`` as above,
    ``b = 0`` empty, ``b < 0`` gives ``x[0:b]`` at ``i = 0`` and, at every ``i >= 1``, bounds both
    negative, a block of its own counted from the end. A step keeps each slice inside its
    block, or empties it, and a stop past the end cuts the block there. This is the blocked
    (tiled) access of pooling and block averages, which the strong SIV test cannot see through
    a slice (Allen & Kennedy ch. 3; symbolic strides as in LLVM's LoopAccessAnalysis, which
    versions a loop on the stride where it must).
    """
    if nest.lowest is None or nest.lowest < 0:
        return None
    lo, hi = (Affine.of(b, products=True) for b in (part.lower, part.upper))  # None for `x[:k]`
    if lo is None or hi is None or (lo.symbols() - {induction}) & variant or len(lo.coeffs) != 1:
        return None
    (key, c), = lo.coeffs
    factors = key.split("*")
    if factors.count(induction) != 1 or len(factors) > 2:
        return None
    if len(factors) == 1:  # a constant stride
        return lo if hi.minus(lo) == Affine((), c) and lo.const >= 0 else None
    stride = factors[0] if factors[1] == induction else factors[1]
    return lo if hi.minus(lo) == Affine(((stride, c),), 0) and lo.const == 0 else None


def _same_slice(a: gast.Slice, b: gast.Slice) -> bool:
    """Whether two slices have the same affine bounds and the same step (both spelled alike)."""
    bounds = [Affine.of(x, products=True) if x is not None else None
              for x in (a.lower, b.lower, a.upper, b.upper)]
    steps = [gast.dump(x) if x is not None else None for x in (a.step, b.step)]
    return None not in bounds and bounds[0] == bounds[1] and bounds[2] == bounds[3] and steps[0] == steps[1]


def _load(name: str) -> gast.Name:
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


@dataclass(frozen=True)
class Bounds:
    """What the loop's header says of its index ``i``: ``i >= L`` for every ``L`` in ``lower``
    and ``i <= U`` for every ``U`` in ``upper``, as symbolic forms (:func:`symbolic_form`).
    ``range(max(a, b), min(c, d))`` gives two of each. ``nonnegative``: names the function
    binds only to values that cannot be negative."""

    lower: tuple[Affine, ...] = ()
    upper: tuple[Affine, ...] = ()
    nonnegative: frozenset[str] = frozenset()

    @staticmethod
    def of_range(start, stop, step, variant: set[str], nonnegative: frozenset[str] = frozenset()) -> "Bounds":
        """The bounds of ``range(start, stop)`` with step 1 (another step: nothing known)."""
        if step is not None and not (isinstance(step, gast.Constant) and step.value == 1):
            return Bounds()
        lower = [symbolic_form(b, variant, nonnegative) for b in _arguments_of(start, "max")] if start is not None \
            else [Affine((), 0)]
        upper = [form.minus(Affine((), 1)) for b in _arguments_of(stop, "min")
                 if (form := symbolic_form(b, variant, nonnegative)) is not None]
        return Bounds(tuple(f for f in lower if f is not None), tuple(upper), nonnegative)

    def never_negative(self, form: Affine) -> bool:
        """``form`` cannot be negative: a constant and coefficients >= 0 over names and terms
        that cannot be (a negative index counts from the end, outside this test's model)."""
        return form.const >= 0 and all(
            v > 0 and (key in self.nonnegative or key.startswith("<+")) for key, v in form.coeffs)


def _arguments_of(node, builtin):
    """``[a, b]`` for ``max(a, b)`` (``builtin``), else ``[node]``."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == builtin \
            and node.args and not node.keywords:
        return list(node.args)
    return [node]


def symbolic_form(node, variant: set[str], nonnegative: frozenset[str] = frozenset()) -> Affine | None:
    """``node`` as an affine form whose symbols may be *atoms*: a subexpression that is not
    affine (``n // 2``, ``len(x)``, ``x.shape[0]``) and reads no name in ``variant`` is one
    symbol, spelled as written, so that ``n // 2 + 1`` minus ``n // 2`` is ``1`` (the symbolic
    dependence test of Allen & Kennedy 3.3, over opaque invariant terms). None where a name
    that varies is read outside an affine position."""
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return Affine((), node.value)
    if isinstance(node, gast.Name):
        return Affine(((node.id, 1),), 0)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = symbolic_form(node.operand, variant, nonnegative)
        return None if inner is None else Affine((), 0).minus(inner)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        left, right = symbolic_form(node.left, variant, nonnegative), symbolic_form(node.right, variant, nonnegative)
        if left is None or right is None:
            return None
        return left.minus(right) if isinstance(node.op, gast.Sub) else left.minus(Affine((), 0).minus(right))
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        left, right = symbolic_form(node.left, variant, nonnegative), symbolic_form(node.right, variant, nonnegative)
        for a, b in ((left, right), (right, left)):
            if a is not None and b is not None and not a.coeffs:
                return Affine(tuple((k, a.const * v) for k, v in b.coeffs if a.const * v), a.const * b.const)
    names = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)}
    if names & variant or not _opaque_term(node):
        return None
    sign = "+" if _never_negative_term(node, nonnegative) else ""
    return Affine(((f"<{sign}{gast.unparse(node).strip()}>", 1),), 0)


def _never_negative_term(node, nonnegative) -> bool:
    """``len(x)``, ``x.shape[k]``, a constant >= 0, a name of ``nonnegative``, and sums,
    products and floor divisions of those by positive constants."""
    if isinstance(node, gast.Constant):
        return type(node.value) is int and node.value >= 0
    if isinstance(node, gast.Name):
        return node.id in nonnegative
    if isinstance(node, (gast.Call, gast.Subscript)):
        return True  # (`_opaque_term` let through only `len(x)` and `x.shape[k]`)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.FloorDiv, gast.Mod)):
        divisor = node.right.value if isinstance(node.right, gast.Constant) else None
        return type(divisor) is int and divisor > 0 and _never_negative_term(node.left, nonnegative)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Mult)):
        return _never_negative_term(node.left, nonnegative) and _never_negative_term(node.right, nonnegative)
    return False


def _opaque_term(node) -> bool:
    """Integer arithmetic on names, constants, ``len(x)`` and ``x.shape[k]`` only: no element
    of an array (the loop may write it) and no other call (it may change between calls)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.BinOp):
        return _opaque_term(node.left) and _opaque_term(node.right)
    if isinstance(node, gast.UnaryOp):
        return _opaque_term(node.operand)
    if isinstance(node, gast.Call):
        return isinstance(node.func, gast.Name) and node.func.id == "len" and len(node.args) == 1 \
            and not node.keywords and isinstance(node.args[0], gast.Name)
    if isinstance(node, gast.Subscript):
        return isinstance(node.value, gast.Attribute) and node.value.attr == "shape" \
            and isinstance(node.value.value, gast.Name) and isinstance(node.slice, gast.Constant)
    return False


def _weak_zero(other: Access, d: int, wform: Affine, induction: str, variant: set[str],
               step_sign: int | None, bounds: Bounds | None) -> Conflict | None:
    """The weak-zero SIV test (Allen & Kennedy 3.3.2.1): the write ``A[c*i + k]`` and an access
    ``A[r]`` with ``r`` invariant meet only at the iteration ``i0 = (r - k) / c``. Where the
    header's bounds show ``i0`` outside the iteration space there is no dependence; where
    ``i0`` is the last iteration to run, every other iteration reads ``A[r]`` before it is
    written (an anti-dependence, legal when the read's statement runs first); otherwise the
    loop must be split at ``i0`` (index-set splitting) or its first iteration peeled."""
    c = wform.coeff(induction)
    if bounds is None or c != 1:
        return None
    rform = symbolic_form(other.dims[d], variant | {induction}, bounds.nonnegative)
    if rform is None or rform.coeff(induction) or {key for key, _ in rform.coeffs} & variant:
        return None  # (not a fixed element)
    k = Affine(tuple((key, v) for key, v in wform.coeffs if key != induction), wform.const)
    if not any(bounds.never_negative(low.minus(Affine((), 0).minus(k))) for low in bounds.lower):
        return None  # (`a[i]` from a start that may be negative: its indices wrap around)
    floor = any(bounds.never_negative(low) for low in bounds.lower)
    if not (bounds.never_negative(rform) or floor and any(
            not (diff := rform.minus(edge)).coeffs and diff.const >= 0 for edge in bounds.lower + bounds.upper)):
        return None  # (`a[-1]`, `a[m]`: an index that may be negative wraps around; one at or
        # past the least iteration's, itself never negative, is not where the loop runs)
    i0 = rform.minus(k)
    if any(not (diff := i0.minus(low)).coeffs and diff.const < 0 for low in bounds.lower) or \
            any(not (diff := i0.minus(up)).coeffs and diff.const > 0 for up in bounds.upper):
        return Conflict("none", "")
    last = bounds.upper if step_sign == 1 else bounds.lower if step_sign == -1 else ()
    sign = 1 if step_sign == 1 else -1
    if not other.write and any(not (diff := i0.minus(end)).coeffs and diff.const * sign >= 0 for end in last):
        return Conflict("anti", "reads the element that the last iteration overwrites", last_iteration=True)
    return None


def _weak_crossing(other: Access, d: int, wform: Affine, induction: str, variant: set[str],
                   bounds: Bounds | None) -> bool:
    """The weak-crossing SIV test (Allen & Kennedy 3.3.2.2): the write ``A[i + k]`` and an
    access ``A[r - i]`` (``r`` invariant) touch one element in iterations whose indices add up
    to ``S = r - k``, on either side of the crossing point ``S / 2``. Where the header keeps
    every iteration on one side, ``i <= S // 2`` or ``i >= S // 2 + 1`` (the halves index-set
    splitting makes, :func:`~pforge.transpile.analysis.distribution.index_split`; or constant
    bounds that say as much), two iterations never meet: no cross-iteration dependence (the
    iteration at the crossing point touches its own element, which statement order handles).
    Both indices must be 0 or more over the bounds (a negative one counts from the end).

    Returns:
        True where the test proves there is no cross-iteration dependence.
    """
    if bounds is None or wform.coeff(induction) != 1:
        return False
    rform = symbolic_form(other.dims[d], variant | {induction}, bounds.nonnegative)
    if rform is None or rform.coeff(induction) != -1 or {key for key, _ in rform.coeffs} & variant:
        return False
    r = Affine(tuple((key, v) for key, v in rform.coeffs if key != induction), rform.const)
    k = Affine(tuple((key, v) for key, v in wform.coeffs if key != induction), wform.const)
    if not any(bounds.never_negative(r.minus(up)) for up in bounds.upper) or \
            not any(bounds.never_negative(low.minus(Affine((), 0).minus(k))) for low in bounds.lower):
        return False
    total = r.minus(k)

    def past_half(form: Affine) -> int | None:  # c where form is S // 2 + c
        if len(form.coeffs) != 1 or form.coeffs[0][1] != 1 or not form.coeffs[0][0].startswith("<"):
            return None
        try:
            node = gast.parse(form.coeffs[0][0][1:-1].lstrip("+")).body[0].value
        except SyntaxError:
            return None
        if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.FloorDiv)
                and isinstance(node.right, gast.Constant) and node.right.value == 2):
            return None
        inner = symbolic_form(node.left, variant, bounds.nonnegative)
        same = inner is not None and not (diff := inner.minus(total)).coeffs and diff.const == 0
        return form.const if same else None

    constant = not total.coeffs
    for up in bounds.upper:  # i <= up
        c = past_half(up)
        if c is not None and c <= 0 or constant and not up.coeffs and 2 * up.const <= total.const:
            return True
    for low in bounds.lower:  # i >= low
        c = past_half(low)
        if c is not None and c >= 1 or constant and not low.coeffs and 2 * low.const >= total.const:
            return True
    return False


def _feasible(rows: list[dict[str, Fraction]], limit: int = 300) -> bool:
    """Whether the rows ``sum(row[k] * k) + row[""] >= 0`` have a rational solution, by
    Fourier-Motzkin elimination (Dantzig and Eaves, "Fourier-Motzkin elimination and its dual",
    1973): each variable in turn is eliminated by pairing every row that bounds it from below
    with every row that bounds it from above. No rational solution means no integer one, which
    is what a dependence test needs to prove; past ``limit`` rows it answers True (feasible:
    nothing proven)."""
    while True:
        live, seen = [], set()
        for row in rows:
            if not any(v for k, v in row.items() if k):
                if row.get("", 0) < 0:
                    return False
                continue
            key = tuple(sorted(row.items()))
            if key not in seen:
                seen.add(key)
                live.append(row)
        if not live:
            return True
        names = {k for row in live for k, v in row.items() if k and v}
        var = min(sorted(names), key=lambda n: sum(r.get(n, 0) > 0 for r in live) * sum(r.get(n, 0) < 0 for r in live))
        lower = [r for r in live if r.get(var, 0) > 0]
        upper = [r for r in live if r.get(var, 0) < 0]
        rows = [r for r in live if not r.get(var, 0)]
        for lo in lower:
            for hi in upper:
                a, b = lo[var], -hi[var]
                combined = {k: lo.get(k, 0) * b + hi.get(k, 0) * a for k in set(lo) | set(hi)}
                combined.pop(var, None)
                scale = max((abs(v) for v in combined.values() if v), default=1)
                rows.append({k: Fraction(v) / scale for k, v in combined.items() if v})
        if len(rows) > limit:
            return True


def _rows(form: Affine, shift: int = 0) -> dict[str, Fraction]:
    """``form + shift >= 0`` as a row of :func:`_feasible`."""
    row = {k: Fraction(v) for k, v in form.coeffs}
    row[""] = Fraction(form.const + shift)
    return row


def disjoint_iterations(first: list[Affine], second: list[Affine], first_bounds: list[Affine],
                        second_bounds: list[Affine], induction: tuple[str, str]) -> bool:
    """Whether two accesses, with index forms ``first`` and ``second`` (one per dimension) in
    two instances of a loop nest whose loop indices are renamed apart, touch one element only
    in the same iteration of the loop whose index is ``induction`` (its two names): no
    integer point satisfies both instances' bounds (each form of ``first_bounds`` and
    ``second_bounds`` is ``>= 0``), the equality of every index, and either order of the two
    iterations. Every index must also be provably ``>= 0`` within its own bounds: a negative
    one counts from the end, which affine equality does not model. A symbolic test of the
    kind Allen and Kennedy (2001, section 3.3) build from the GCD and Banerjee tests, exact
    over the rationals; the triangular bounds of ``for i ...: for j in range(i + 1, n)`` that
    the distance tests above cannot see decide it (``a[i, j]`` against ``a[j, i]``)."""
    if len(first) != len(second):
        return False
    for forms, bounds in ((first, first_bounds), (second, second_bounds)):
        system = [_rows(b) for b in bounds]
        if any(_feasible(system + [_rows(Affine((), 0).minus(f), -1)]) for f in forms):
            return False  # an index that may be negative
    system = [_rows(b) for b in first_bounds + second_bounds]
    for f, g in zip(first, second):
        system += [_rows(f.minus(g)), _rows(g.minus(f))]
    one, two = (Affine(((name, 1),), 0) for name in induction)
    return not _feasible(system + [_rows(two.minus(one), -1)]) and not _feasible(system + [_rows(one.minus(two), -1)])


def test_pair(write: Access, other: Access, induction: str | None, variant: set[str],
              step_sign: int | None, nest: Nest | None = None, bounds: Bounds | None = None) -> Conflict | None:
    """Whether ``other`` (a read or a second write) depends on ``write`` across iterations.

    Args:
        induction: the level's induction variable (None for a rows loop: no index to test).
        variant: names whose value changes between iterations (other than ``induction``).
        step_sign: +1/-1 for the direction of the iteration, None when unknown.
        nest: the loop nest, as :func:`separating_dim` takes it.
        bounds: what the loop's header says of the index (for the weak-zero SIV test).
    Returns:
        None when no cross-iteration dependence exists, else the conflict.
    """
    if induction is None:
        return Conflict("unknown", "the written element does not depend on a loop index")
    sep = separating_dim(write, induction, variant, nest)
    if sep is None:
        label = gast.unparse(write.node).strip().splitlines()[0]
        return Conflict("unknown", f"the index of `{label}` is not an injective affine function "
                        f"of `{induction}`")
    d, wform = sep
    if isinstance(write.dims[d], gast.Slice):  # a block of its own: only the same block is safe
        theirs = other.dims[d] if d < len(other.dims) else None
        if isinstance(theirs, gast.Slice) and _same_slice(theirs, write.dims[d]):
            return None
        return Conflict("unknown", f"another access reads the blocks that `{induction}` writes "
                        "otherwise than block by block")
    if d >= len(other.dims) or isinstance(other.dims[d], gast.Slice):
        return Conflict("unknown", "another access reads a whole slice along the dimension that "
                        f"`{induction}` indexes")
    rform = Affine.of(other.dims[d], products=True)
    if rform is not None and not _strong(wform, induction, variant):
        # a linearized nest: only the very same element (the same iteration's) is safe
        if rform == wform:
            return None
        return Conflict("unknown", "another access indexes the linearized nest otherwise")
    if _strong(wform, induction, variant):
        found = _weak_zero(other, d, wform, induction, variant, step_sign, bounds)
        if found is not None:
            return None if found.kind == "none" else found
        if _weak_crossing(other, d, wform, induction, variant, bounds):
            return None
    if rform is None or rform.coeff(induction) != wform.coeff(induction) or \
            (rform.symbols() - {induction}) & variant:
        return Conflict("unknown", "the distance between the accesses is not a constant")
    delta = rform.minus(wform)
    if delta.coeffs:
        return Conflict("symbolic", "the distance between the accesses depends on "
                        + ", ".join(f"`{s}`" for s in sorted(delta.symbols())), delta, wform.coeff(induction), d)
    if delta.const == 0:
        return None
    distance = Fraction(delta.const, wform.coeff(induction))
    if distance.denominator != 1:
        return None  # GCD test: no integer iteration touches both
    if other.write:
        # `other` at iteration i and the write at iteration i + distance touch one element
        later = None if step_sign is None else distance * step_sign > 0
        return Conflict("output", f"two iterations write the same element (distance {abs(distance)})",
                        write_later=later)
    if step_sign is None:
        return Conflict("unknown", "the direction of the loop is unknown")
    if distance * step_sign < 0:
        return Conflict("flow", f"reads the element written {abs(distance)} iteration(s) earlier")
    # An anti-dependence: the read sees the element before a later iteration overwrites it,
    # which whole-array execution keeps only when the read runs first (the caller checks the
    # statement order).
    return Conflict("anti", f"reads the element that an iteration {abs(distance)} later overwrites")
