"""Builds AST from quoted code templates whose placeholder names are replaced by nodes.

Adapted from AutoGraph's ``pyct/templates.py`` (itself adapted from Tangent): a template is
ordinary Python text, so it stays readable; ``replace`` parses it and substitutes each
placeholder name by an expression node, a name string, or (for a placeholder standing alone
as a statement) a list of statements.
"""

from __future__ import annotations

import copy
import textwrap

import gast


class _Substitute(gast.NodeTransformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def visit_Name(self, node):
        if node.id not in self.replacements:
            return node
        value = self.replacements[node.id]
        if isinstance(value, str):
            return gast.Name(id=value, ctx=node.ctx, annotation=None, type_comment=None)
        if isinstance(value, gast.expr):
            value = copy.deepcopy(value)
            if hasattr(value, "ctx"):
                value.ctx = node.ctx
            return value
        raise TypeError(f"placeholder {node.id} expects a name or an expression, got "
                        f"{type(value).__name__}; to insert statements, put it alone on a line")

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            if isinstance(value, list):
                return value
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        if node.name in self.replacements:
            node.name = self.replacements[node.name]
        return self.generic_visit(node)


def replace(template: str, **replacements) -> list[gast.stmt]:
    """Parses ``template`` and substitutes the placeholders.

    Args:
        template: Python statements; names equal to a keyword of ``replacements`` are
            placeholders.
        **replacements: a ``str`` (a new name), a ``gast.expr`` (copied in), or a list of
            statements (for a placeholder written alone as an expression statement).
    Returns:
        The list of statements.
    Raises:
        TypeError: a statement list given for a placeholder used inside an expression.
    """
    tree = gast.parse(textwrap.dedent(template))
    tree = _Substitute(replacements).visit(tree)
    return tree.body


def expr(template: str, **replacements) -> gast.expr:
    """Like :func:`replace` for a single expression."""
    (stmt,) = replace(template, **replacements)
    return stmt.value


def name(identifier: str, store: bool = False) -> gast.Name:
    ctx = gast.Store() if store else gast.Load()
    return gast.Name(id=identifier, ctx=ctx, annotation=None, type_comment=None)


def wrapped_index(tf: str, index: gast.expr, base: gast.expr, axis: int = 0) -> gast.expr:
    """``index % tf.shape(base)[axis]``: a data index as Python and TensorFlow slicing read it.

    ``x[k]`` with ``k = -1`` is the last element in the loop, while ``tf.gather`` raises on a
    negative index (CPU) or returns zeros (GPU); the floor modulo maps ``[-n, n)`` onto
    ``[0, n)`` as Python does. Both backends gather data indices through this function.
    """
    return expr(f"I % {tf}.shape(X)[{axis}]", I=index, X=base)


def apart(np_alias: str, written: str, read: str) -> str:
    """``not np.may_share_memory(w, r)``: the array ``written`` shares no memory with ``read``.

    ``read`` may be a list or tuple of arrays (the run-time checks accept one the loop only
    reads): ``np.may_share_memory`` would convert it to a fresh array, so each of its items
    is compared instead (a list of 0-d views ``[out[k, ...] for k ...]`` is read by an
    iteration after an earlier one wrote its memory). NumPy compares memory bounds only, so
    it may report an overlap where there is none (and the loop runs).
    """
    share = f"{np_alias}.may_share_memory"
    return (f"not ({share}({written}, {read}) if not isinstance({read}, (list, tuple)) "
            f"else any({share}({written}, v) for v in {read}))")
