"""Per-iteration rewriting of the body's expressions: rows of gathered inputs, ``tf.gather`` for
a per-iteration index, ``tf.cast`` for ``int()``/``float()``, ``tf.where`` for a conditional
expression, and the renamings of branches and inner loops."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import gast

from pforge.transpile import dependence, templates
from pforge.transpile.backends.common import _loads
from pforge.transpile.backends.pfor.branches import _to_graph_test
from pforge.transpile.spaces import constant_int

if TYPE_CHECKING:
    from pforge.transpile.backends.pfor.vectorizer import _Vectorizer


class _ExprRewriter(gast.NodeTransformer):
    """Per-iteration substitutions inside the body: gathers, casts, renamings, consumers."""

    def __init__(self, vec: _Vectorizer, env, back=None):
        self.vec, self.env, self.back = vec, env, back or {}

    def visit(self, node):
        original = self.back.get(id(node))
        if original is not None and original in self.vec.inner_replace:
            return copy.deepcopy(self.vec.inner_replace[original])
        return super().visit(node)

    def visit_Subscript(self, node):
        vec = self.vec
        base = node.value
        if isinstance(base, gast.Name) and base.id in vec.gathers and isinstance(node.ctx, gast.Load) \
                and vec._first_index_is(node, vec.info.space.induction):
            param = templates.name(vec.gathers[base.id])
            index = node.slice
            if isinstance(index, gast.Tuple) and len(index.elts) > 1:
                rest = [self.visit(e) for e in index.elts[1:]]
                node.value = param
                node.slice = rest[0] if len(rest) == 1 else gast.Tuple(elts=rest, ctx=gast.Load())
                return node
            return param
        if self.back.get(id(node), id(node)) in vec.block_reads:
            # `x[m * size:(m + 1) * size]` (`[..., k]` after it): the row of the blocks
            param = templates.name(vec.block_params[base.id])
            if not isinstance(node.slice, gast.Tuple):
                return param
            rest = [gast.Slice(lower=None, upper=None, step=None)] + [self.visit(e) for e in node.slice.elts[1:]]
            return gast.Subscript(value=param, slice=gast.Tuple(elts=rest, ctx=gast.Load()), ctx=gast.Load())
        index = node.slice
        chain = self._as_chain(node)
        if chain is not None:
            return self.visit(chain)
        # A base that is the same for every iteration of this level (it may vary per outer
        # iteration: `m2[i][j]`, `r[j]` of an outer row) with an index of this level. This
        # level's own index shadows an outer name (`j` of an earlier inner loop).
        own = vec.info.space.target_names() if vec.info.space is not None else set()
        outside = set(vec.stacked_outside) - own
        if isinstance(base, (gast.Name, gast.Subscript)) and isinstance(node.ctx, gast.Load) \
                and not _loads(base) & (vec.stacked - outside) and not isinstance(index, (gast.Tuple, gast.Slice)) \
                and vec._is_stacked(index) and not _loads(index) & outside:
            return self._gather(base, index)
        return self.generic_visit(node)

    def _as_chain(self, node):
        """``m[i, j]`` as ``m[i][j]`` when every index is an affine function of loop indices
        (integers, so the two select the same element) and one of them varies: each level then
        gathers its own index, where a slice at a stacked position would fall back to a loop
        that cannot stack zero inner iterations."""
        index = node.slice
        if not (isinstance(node.ctx, gast.Load) and isinstance(index, gast.Tuple) and len(index.elts) > 1):
            return None
        inductions, level = set(), self.vec.info
        while level is not None:
            if level.space is not None and level.space.induction:
                inductions.add(level.space.induction)
            level = level.parent
        forms = [dependence.Affine.of(e) for e in index.elts]
        if any(f is None or not f.symbols() <= inductions for f in forms) or \
                not any(f.symbols() for f in forms):
            return None
        chain = node.value
        for elt in index.elts:
            chain = gast.Subscript(value=chain, slice=elt, ctx=gast.Load())
        return chain

    def _gather(self, base, index):
        """``x[e]`` with a per-iteration scalar ``e`` becomes ``tf.gather(x, e)``.

        TensorFlow's pfor has no converter for a slice at a stacked position and falls back
        to a ``tf.while_loop``, which is slow and, with zero iterations, fails to stack its
        empty result; ``Gather`` has a converter. An index computed from data may be negative
        and wraps around in the loop (Python indexing), so it is taken modulo the length;
        so is an affine index of the loop variable unless the range keeps it at zero or above
        (``x[i - 2]`` over ``range(3)`` reads ``x[-2]`` first).
        """
        vec = self.vec
        new_index = self.visit(index)
        form = dependence.Affine.of(index)
        space = vec.info.space
        if form is None or not _never_negative(form, space):
            new_index = templates.wrapped_index(vec.tf, new_index, base)
        return templates.expr(f"{vec.tf}.gather(X, I)", X=self.visit(copy.deepcopy(base)), I=new_index)

    def visit_Call(self, node):
        vec = self.vec
        name = vec.ctx.imports.resolve(node.func) or ""
        if name in ("builtins.int", "builtins.float", "builtins.bool") and len(node.args) == 1 \
                and vec._is_stacked(node.args[0]):
            dtype = {"builtins.int": "int32", "builtins.float": "float32", "builtins.bool": "bool"}[name]
            return templates.expr(f"{vec.tf}.cast(X, {vec.tf}.{dtype})", X=self.visit(node.args[0]))
        return self.generic_visit(node)

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if self.vec._is_stacked(node.test):
            return templates.expr(f"{self.vec.tf}.where(C, A, B)", C=_to_graph_test(node.test, self.vec.tf),
                                  A=node.body, B=node.orelse)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.env:
            return copy.deepcopy(self.env[node.id])
        return node


def _never_negative(form, space) -> bool:
    """Whether the affine index ``form`` is at least 0 on every iteration of ``space``: it reads
    the loop index alone (``c * i + k``), over a range of constant start (and, counting down,
    constant stop), or rows and enumerations, which count from 0."""
    induction = space.induction if space is not None else None
    if form.symbols() - {induction}:
        return False
    c, k = form.coeff(induction) if induction else 0, form.const
    if c == 0:
        return k >= 0
    if space.kind != "range":  # rows, enumerate: the index counts up from 0 or enumerate's start
        first = 0 if getattr(space, "enumerate_start", None) is None else constant_int(space.enumerate_start)
        return c > 0 and first is not None and c * first + k >= 0
    start = 0 if space.start is None else constant_int(space.start)
    step = 1 if space.step is None else constant_int(space.step)
    if start is None or step is None or c < 0:
        return False
    if step > 0:
        return c * start + k >= 0
    stop = constant_int(space.stop)
    return stop is not None and c * (stop + 1) + k >= 0
