"""Batching rules for matrix products: ``matmul``, ``matvec``, ``@``, ``einsum``, ``tensordot``, ``dot``, ``outer``.

Matrix ops act on the last one or two axes and broadcast the axes before them, so the loop
axes become batch axes (pfor's ``_convert_batch_mat_mul_v2``) once the operands' batch axes
are aligned. A per-row ``matvec`` with an invariant matrix is written as one ``matmul``, as
one would by hand.
"""

from __future__ import annotations

import string

import gast

from pforge.transpile.backends.direct.core import Unsupported, Val, align, const, lift, register


def _align_core(lib, vals, cores, what):
    """Aligns the batch axes of operands whose last ``core`` axes are the matrix/vector axes."""
    for v, core in zip(vals, cores):
        if v.rank is None:
            raise Unsupported(f"{what}: the rank of an operand is unknown")
        if v.rank < core:
            raise Unsupported(f"{what}: an operand of rank {v.rank} where {core} is needed")
    shadows = [Val(v.node, v.full, v.rank - core, v.python) for v, core in zip(vals, cores)]
    aligned, full, batch = align(lib, shadows, what)
    out = [Val(a.node, a.full, a.rank + core) for a, core in zip(aligned, cores)]
    return out, full, batch


def _flag(b, key, index=None):
    value = b.const(index, key, False)
    if value not in (True, False):
        raise b.unsupported(f"`{key}` must be True or False")
    return value


@register("tensorflow.linalg.matvec", family="linalg", sample=("matvec", None))
def _convert_matvec(b):
    """``matvec(a, x)``; an invariant matrix and stacked vectors become ``matmul(X, a)``."""
    allowed = {"transpose_a", "adjoint_a", "a_is_sparse", "b_is_sparse", "name"}
    if set(b.kw) - allowed - {"a", "b"} or len(b.pos) > 2:
        raise b.unsupported("only `transpose_a` and `adjoint_a` are batched")
    a = b.get(0, "a")
    x = b.get(1, "b")
    transpose = _flag(b, "transpose_a")
    adjoint = _flag(b, "adjoint_a")
    lib = b.lib
    if not a.stacked and x.stacked and a.rank == 2 and x.rank == 1 and not adjoint:
        x = lift(lib, x, x.depth)
        kw = {} if transpose else {"transpose_b": const(True)}
        node = lib.call("linalg.matmul", x.node, a.node, **kw)
        return Val(node, x.full, 1)
    (a2, x2), full, batch = _align_core(lib, [a, x], [2, 1], f"`{b.name}`")
    kws = {k: v.node for k, v in b.kw.items() if k not in ("a", "b")}
    return Val(lib.call("linalg.matvec", a2.node, x2.node, **kws), full, batch + 1)


@register("tensorflow.linalg.matmul", "tensorflow.matmul", "numpy.matmul", family="linalg",
          sample=("matmul", None))
def _convert_matmul(b):
    """``matmul(a, b)`` of per-iteration matrices: batch axes aligned; flags kept."""
    allowed = {"transpose_a", "transpose_b", "adjoint_a", "adjoint_b", "name", "a", "b"}
    if set(b.kw) - allowed or len(b.pos) > 2:
        raise b.unsupported("only the transpose/adjoint flags are batched")
    a, c = b.get(0, "a"), b.get(1, "b")
    if b.name.startswith("numpy") and (a.rank == 1 or c.rank == 1):
        return _vector_product(b, a, c)
    (a2, c2), full, batch = _align_core(b.lib, [a, c], [2, 2], f"`{b.name}`")
    kws = {k: v.node for k, v in b.kw.items() if k not in ("a", "b")}
    return Val(b.emit([a2.node, c2.node], kws), full, batch + 2)


def _vector_product(b, a, c):
    """NumPy ``matmul``/``dot``/``@`` with a vector operand, as an ``einsum`` with ``...``."""
    if a.rank is None or c.rank is None:
        raise b.unsupported("operand ranks are unknown")
    spec = {(1, 1): "...i,...i->...", (2, 1): "...ij,...j->...i", (1, 2): "...i,...ij->...j"}.get(
        (a.rank, c.rank))
    if spec is None:
        raise b.unsupported(f"a product of ranks {a.rank} and {c.rank}")
    depth = max(a.depth, c.depth)
    a, c = lift(b.lib, a, depth), lift(b.lib, c, depth)
    full = tuple(any(v.full[k] for v in (a, c) if v.stacked) for k in range(depth))
    node = b.lib.call("einsum", spec, a.node, c.node)
    return Val(node, full, a.rank + c.rank - 2)


class _Operator:
    name = "@"

    def __init__(self, lib):
        self.lib = lib

    def unsupported(self, why):
        return Unsupported(f"`@`: {why}")


def convert_matmul_operator(lib, a: Val, c: Val, node: gast.BinOp) -> Val:
    """``a @ c`` on batched operands."""
    if a.rank is None or c.rank is None:
        raise Unsupported("`@`: operand ranks are unknown")
    if a.rank == 1 and c.rank == 2 and not c.stacked:
        return Val(gast.BinOp(left=a.node, op=gast.MatMult(), right=c.node), a.full, 1)
    if a.rank == 1 or c.rank == 1:
        if lib.kind == "tf":
            raise Unsupported("`@` with a vector operand in TensorFlow")

        fake = _Operator(lib)
        return _vector_product(fake, a, c)
    (a2, c2), full, batch = _align_core(lib, [a, c], [2, 2], "`@`")
    return Val(gast.BinOp(left=a2.node, op=gast.MatMult(), right=c2.node), full, batch + 2)


@register("numpy.dot", "method.dot", family="linalg", sample=("dot", None))
def _convert_dot(b):
    """``np.dot`` (or ``a.dot(b)``) of per-iteration vectors or matrices (higher ranks differ
    from matmul)."""
    if len(b.pos) != 2 or b.kw:
        raise b.unsupported("expected `dot(a, b)`")
    a, c = b.pos
    if a.rank is None or c.rank is None or a.rank > 2 or c.rank > 2 or 0 in (a.rank, c.rank):
        raise b.unsupported("batched only for vectors and matrices of known rank")
    if a.rank == 2 and c.rank == 2:
        (a2, c2), full, batch = _align_core(b.lib, [a, c], [2, 2], "`numpy.dot`")
        return Val(b.lib.call("matmul", a2.node, c2.node), full, batch + 2)
    return _vector_product(b, a, c)


@register("numpy.outer", family="linalg", sample=("outer", None))
def _convert_outer(b):
    """``np.outer(a, b)`` of per-iteration vectors: ``einsum('...i,...j->...ij')``."""
    if len(b.pos) != 2 or b.kw:
        raise b.unsupported("expected `outer(a, b)`")
    a, c = b.pos
    if a.rank != 1 or c.rank != 1:
        raise b.unsupported("NumPy flattens operands that are not vectors")
    depth = max(a.depth, c.depth)
    a, c = lift(b.lib, a, depth), lift(b.lib, c, depth)
    full = tuple(any(v.full[k] for v in (a, c) if v.stacked) for k in range(depth))
    return Val(b.lib.call("einsum", "...i,...j->...ij", a.node, c.node), full, 2)


@register("tensorflow.einsum", "tensorflow.linalg.einsum", "numpy.einsum", family="linalg",
          sample=("einsum", None))
def _convert_einsum(b):
    """``einsum(eq, *ops)``: stacked operands and the output get a leading ``...``.

    ``...`` broadcasts, so an invariant operand (no ``...``) meets stacked ones and size-1
    loop axes broadcast as in elementwise ops.
    """
    if not b.pos or any(k not in ("name", "optimize") for k in b.kw):
        raise b.unsupported("only `einsum(equation, *operands)` is batched")
    equation = b.const(0, "equation")
    if not isinstance(equation, str) or "..." in equation:
        raise b.unsupported("equations with `...` are not batched")
    operands = b.pos[1:]
    equation = equation.replace(" ", "")
    inputs, _, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise b.unsupported("operand count differs from the equation")
    if "->" not in equation:
        letters = "".join(terms)
        output = "".join(sorted(ch for ch in set(letters) if letters.count(ch) == 1))
    for term, v in zip(terms, operands):
        if v.rank is not None and v.rank != len(term):
            raise b.unsupported("an operand's rank differs from its subscripts")
        if v.stacked and v.rank is None and any(ch not in string.ascii_letters for ch in term):
            raise b.unsupported("unknown operand rank")
    depth = max(v.depth for v in operands)
    lifted = [lift(b.lib, v, depth) for v in operands]
    full = tuple(any(v.full[k] for v in lifted if v.stacked) for k in range(depth))
    new_terms = [("..." + t) if v.stacked else t for t, v in zip(terms, lifted)]
    new_eq = ",".join(new_terms) + "->" + ("..." if depth else "") + output
    kws = {k: v.node for k, v in b.kw.items()}
    return Val(b.emit([const(new_eq)] + [v.node for v in lifted], kws), full, len(output))


@register("tensorflow.tensordot", "tensorflow.linalg.tensordot", "numpy.tensordot", family="linalg",
          sample=("tensordot", None))
def _convert_tensordot(b):
    """``tensordot(a, b, axes)`` with ``a`` stacked and ``b`` invariant: the loop axes lead."""
    if len(b.pos) < 2:
        raise b.unsupported("expected `tensordot(a, b, axes)`")
    a, c = b.pos[0], b.pos[1]
    if c.stacked:
        raise b.unsupported("a stacked second operand puts the loop axes in the middle")
    axes = b.const(2 if len(b.pos) > 2 else None, "axes", 2)
    if a.rank is None or c.rank is None:
        raise b.unsupported("operand ranks are unknown")
    if isinstance(axes, int):
        rank = a.rank + c.rank - 2 * axes
        return Val(b.emit([a.node, c.node, const(axes)], {}), a.full, rank)
    if isinstance(axes, (list, tuple)) and len(axes) == 2:
        left, right = axes
        left = [left] if isinstance(left, int) else list(left)
        right = [right] if isinstance(right, int) else list(right)
        shifted = [x + a.depth if x >= 0 else x for x in left]
        new = gast.List(elts=[const(shifted), const(right)], ctx=gast.Load())
        return Val(b.emit([a.node, c.node, new], {}), a.full, a.rank + c.rank - 2 * len(left))
    raise b.unsupported("`axes` must be an integer or a pair of lists")


def _core_family(names, core, out_rank_delta):
    @register(*names, family="linalg", sample=("core", core))
    def _convert(b):
        """Ops that act on the last ``core`` axes and broadcast the rest (det, inv, ...)."""
        if len(b.pos) != 1 or any(k != "name" for k in b.kw):
            raise b.unsupported("only the one-operand form is batched")
        x = b.pos[0]
        if x.rank is None or x.rank < core:
            raise b.unsupported(f"needs a per-iteration rank of at least {core}")
        return Val(b.emit([x.node], {k: v.node for k, v in b.kw.items()}), x.full, x.rank + out_rank_delta)


_core_family(["tensorflow.linalg.det", "tensorflow.linalg.logdet", "tensorflow.linalg.trace",
              "numpy.linalg.det"], 2, -2)
_core_family(["tensorflow.linalg.diag_part"], 2, -1)
_core_family(["tensorflow.linalg.inv", "tensorflow.linalg.cholesky", "tensorflow.linalg.matrix_transpose",
              "tensorflow.linalg.adjoint", "tensorflow.linalg.expm", "numpy.linalg.inv",
              "numpy.linalg.cholesky"], 2, 0)
_core_family(["tensorflow.linalg.diag"], 1, 1)


@register("numpy.linalg.solve", family="linalg", sample=None)
def _convert_solve(b):
    """``np.linalg.solve(a, b)``: a gufunc over the last two axes of ``a``; ``b`` is one
    vector when it is 1-D (NumPy 2's rule), else a matrix of columns. Batched, a per-iteration
    vector gets a column axis (``solve(A, B[..., None])[..., 0]``) so the loop axes stay
    batch axes; each system is solved by the same LAPACK ``gesv`` call as in the loop."""
    if len(b.pos) != 2 or b.kw:
        raise b.unsupported("expected `solve(a, b)`")
    a, c = b.pos
    if a.rank is None or c.rank is None or a.rank < 2 or c.rank < 1:
        raise b.unsupported("batched only for a matrix and a vector or matrix of known rank")
    vector = c.rank == 1
    (a2, c2), full, batch = _align_core(b.lib, [a, c], [2, 1 if vector else 2], "`numpy.linalg.solve`")
    if not vector:
        return Val(b.emit([a2.node, c2.node], {}), full, batch + 2)
    column = gast.Subscript(value=c2.node, slice=gast.Tuple(elts=[
        gast.Constant(value=Ellipsis, kind=None), gast.Constant(value=None, kind=None)], ctx=gast.Load()),
        ctx=gast.Load())
    solved = b.emit([a2.node, column], {})
    return Val(gast.Subscript(value=solved, slice=gast.Tuple(elts=[
        gast.Constant(value=Ellipsis, kind=None), const(0)], ctx=gast.Load()), ctx=gast.Load()), full, batch + 1)


#: NumPy calls that return a tuple of arrays, each a gufunc over the last two axes of the one
#: operand: the per-iteration rank of each item relative to the operand's
#: (not ``eig``: over a stack its eigenvalues are complex for every matrix once one has complex
#: ones, where one matrix alone gives real float64 ones)
TUPLE_RESULTS = {"numpy.linalg.slogdet": (-2, -2), "numpy.linalg.eigh": (-1, 0),
                 "numpy.linalg.svd": (0, -1, 0)}


def _tuple_rule(name):
    @register(name, family="linalg", sample=None)
    def _convert(b):
        """A tuple of arrays per iteration: batched where its items are taken
        (:meth:`IndexingMixin._tuple_items`), never as a whole."""
        raise b.unsupported("batched only where its items are taken (`sign, logdet = ...` or `[1]`)")


for _name in TUPLE_RESULTS:
    _tuple_rule(_name)
