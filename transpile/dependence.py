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
    """``sum(coeffs[name] * name) + const`` over integer coefficients."""

    coeffs: tuple[tuple[str, int], ...]
    const: int

    @staticmethod
    def of(node: gast.AST) -> "Affine | None":
        terms = _affine(node)
        if terms is None:
            return None
        coeffs, const = terms
        return Affine(tuple(sorted((k, v) for k, v in coeffs.items() if v)), const)

    def coeff(self, name: str) -> int:
        return dict(self.coeffs).get(name, 0)

    def symbols(self) -> set[str]:
        return {k for k, _ in self.coeffs}

    def minus(self, other: "Affine") -> "Affine":
        merged = dict(self.coeffs)
        for k, v in other.coeffs:
            merged[k] = merged.get(k, 0) - v
        return Affine(tuple(sorted((k, v) for k, v in merged.items() if v)), self.const - other.const)


def _affine(node):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return {}, node.value
    if isinstance(node, gast.Name):
        return {node.id: 1}, 0
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        inner = _affine(node.operand)
        if inner is None:
            return None
        sign = -1 if isinstance(node.op, gast.USub) else 1
        return {k: sign * v for k, v in inner[0].items()}, sign * inner[1]
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        left, right = _affine(node.left), _affine(node.right)
        if left is None or right is None:
            return None
        sign = 1 if isinstance(node.op, gast.Add) else -1
        coeffs = dict(left[0])
        for k, v in right[0].items():
            coeffs[k] = coeffs.get(k, 0) + sign * v
        return coeffs, left[1] + sign * right[1]
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult):
        left, right = _affine(node.left), _affine(node.right)
        if left is None or right is None:
            return None
        if not left[0]:
            left, right = right, left
        if right[0]:
            return None  # product of two symbols: not affine
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
    """Why two accesses depend: ``kind`` is ``flow`` (PF202), ``unknown`` or ``output`` (PF203),
    or ``anti`` (a read of an element a later iteration writes: legal when the read runs first
    in whole-array order, see :func:`pforge.transpile.analysis.runs_before`)."""

    kind: str
    base: str
    write: Access
    other: Access
    detail: str


def separating_dim(access: Access, induction: str, variant: set[str]) -> tuple[int, Affine] | None:
    """The first dimension of ``access`` of the form ``c*induction + invariant``."""
    for d, index in enumerate(access.dims):
        if isinstance(index, gast.Slice):
            continue
        form = Affine.of(index)
        if form is None or form.coeff(induction) == 0:
            continue
        if (form.symbols() - {induction}) & variant:
            continue
        return d, form
    return None


def test_pair(write: Access, other: Access, induction: str | None, variant: set[str],
              step_sign: int | None) -> Conflict | None:
    """Whether ``other`` (a read or a second write) depends on ``write`` across iterations.

    Args:
        induction: the level's induction variable (None for a rows loop: no index to test).
        variant: names whose value changes between iterations (other than ``induction``).
        step_sign: +1/-1 for the direction of the iteration, None when unknown.
    Returns:
        None when no cross-iteration dependence exists, else the conflict.
    """
    label = gast.unparse(write.node).strip().splitlines()[0]
    if induction is None:
        return Conflict("unknown", write.base, write, other,
                        "the written element does not depend on a loop index")
    sep = separating_dim(write, induction, variant)
    if sep is None:
        return Conflict("unknown", write.base, write, other,
                        f"the index of `{label}` is not an injective affine function of `{induction}`")
    d, wform = sep
    if d >= len(other.dims) or isinstance(other.dims[d], gast.Slice):
        return Conflict("unknown", write.base, write, other,
                        "another access reads a whole slice along the dimension that "
                        f"`{induction}` indexes")
    rform = Affine.of(other.dims[d])
    if rform is None or rform.coeff(induction) != wform.coeff(induction) or \
            (rform.symbols() - {induction}) & variant:
        return Conflict("unknown", write.base, write, other,
                        "the distance between the accesses is not a constant")
    delta = rform.minus(wform)
    if delta.coeffs:
        return Conflict("unknown", write.base, write, other,
                        "the distance between the accesses depends on "
                        + ", ".join(f"`{s}`" for s in delta.symbols()))
    if delta.const == 0:
        return None
    distance = Fraction(delta.const, wform.coeff(induction))
    if distance.denominator != 1:
        return None  # GCD test: no integer iteration touches both
    if other.write:
        return Conflict("output", write.base, write, other,
                        f"two iterations write the same element (distance {abs(distance)})")
    if step_sign is None:
        return Conflict("unknown", write.base, write, other, "the direction of the loop is unknown")
    if distance * step_sign < 0:
        return Conflict("flow", write.base, write, other,
                        f"reads the element written {abs(distance)} iteration(s) earlier")
    # An anti-dependence: the read sees the element before a later iteration overwrites it,
    # which whole-array execution keeps only when the read runs first (the caller checks the
    # statement order).
    return Conflict("anti", write.base, write, other,
                    f"reads the element that an iteration {abs(distance)} later overwrites")
