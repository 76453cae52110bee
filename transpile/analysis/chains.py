"""Update chains: ``s = s + b[i] + c[i]`` is the reduction ``s += b[i] + c[i]``.

Python parses ``s + b[i] + c[i]`` as ``(s + b[i]) + c[i]``: the running value is an operand
of the inner addition, so neither the reduction nor the scan form (``s = s ⊕ t``) matches and
the loop was refused as carried. Adding the terms first, ``s + (b[i] + c[i])``, is the
reassociation compilers apply to reductions under relaxed floating-point rules (Muchnick,
*Advanced Compiler Design and Implementation*, 1997, section 12.3.1; TSVC's s242 needs it on
an array recurrence, ``a[i] = a[i - 1] + s1 + s2 + b[i] + c[i] + d[i]``).

Two things change with the order, and the rewrite answers both:

- **Rounding.** The terms are added to one another before they reach ``s``: floating-point
  results may differ in the last bits. A sum reduction is an unsafe fix already; a NumPy scan
  (``np.add.accumulate``, otherwise bit for bit) becomes one (``plan.unsafe_reason``).
- **Types.** In the loop every term is added to ``s`` in turn, and each sum's type decides
  the next: ``0.0 + b[i] + c[i]`` on int8 elements adds in float64, where ``b + c`` on the
  arrays wraps around in int8; ``a[i - 1] + 1.0 + b[i]`` on an int8 array and float16 terms
  adds in float64 where ``1.0 + b`` adds in float16. A run-time check in front of the batched
  code (``LoopInfo.runtime_checks``) admits only values for which both orders compute in one
  dtype: every name the terms read is a NumPy array or scalar or a Python number of a
  floating or complex kind (no integer overflows), and the running value and those names that
  are NumPy values have one dtype between them (Python numbers are weak scalars, NEP 50, which
  take the other operand's dtype in either order). The terms are sums, differences, products,
  quotients and powers of such names, number literals and elementwise functions that keep a
  floating dtype (``np.sqrt``, ``np.exp``, ``abs``): no call that picks a dtype (``float``,
  ``np.float64``, ``.astype``) and no comparison.

Only NumPy modules are rewritten this way (the check needs NumPy; TensorFlow's batched
backends do not take run-time checks). The loop keeps its text in the output: only its tree is
put in this form, as :func:`~pforge.transpile.analysis.recurrences.carried_elements` does.
"""

from __future__ import annotations

import copy

import gast

from pforge.transpile.analysis.nodes import (_enclosing_scope, _scope_nodes, _statements, _stored_names,
                                             statements_under_tests)

#: the kinds a term may have: no integer terms, whose sum could wrap around in their own dtype
_KINDS = "fc"


def reassociated_chains(ctx) -> bool:
    """Puts every update chain of a loop body in reduction form (:func:`reassociate`); True
    when one changed (the caller recomputes parents and def-use chains).

    The statements looked at are those of a ``for`` body and of the arms of its ``if``
    statements, not of inner loops (each is looked at as its own loop's). A name carried for an
    array element (``a_prev``, :func:`~pforge.transpile.analysis.recurrences.carried_elements`)
    is checked through its array.
    """
    changed = False
    for loop in list(_statements(ctx.tree)):
        if not isinstance(loop, gast.For) or loop.orelse:
            continue
        carried = getattr(loop, "pforge_carried", {})
        for stmt in statements_under_tests(loop.body):
            name = stmt.targets[0].id if isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name) \
                else None
            if name is not None and reassociate(ctx, loop, stmt, carried[name][0] if name in carried else None):
                changed = True
    return changed


def reassociate(ctx, loop, stmt, array: str | None, apply: bool = True, also=()) -> bool:
    """Whether ``stmt``, a statement of ``loop``'s body, is an update chain this module puts in
    reduction form; where ``apply``, it is put in that form.

    It qualifies when:

    - it is ``s = s + t1 + t2 ...`` (``+`` and ``-`` after the first operator, which may be
      ``-``), or ``s = s * t1 * t2 ...``, with ``s`` the leftmost operand and read nowhere else
      in the value;
    - the module imports NumPy and not TensorFlow;
    - the terms read at least one name, none of them bound in the body or the loop's target
      (names inside subscripts only select elements, and are not counted);
    - ``array`` is given (``s`` is carried for one of its elements, and the check reads the
      array), or ``stmt`` is the body's only store of ``s`` (so ``s`` is carried, as a reduction
      or scan is) and ``s`` is a parameter or is bound by a statement of the function's own
      body before the loop (so the check can read it where the loop runs no iteration).

    ``also``: arrays the check reads besides the terms' names, of their dtype (elements whose
    stored value the terms spell out: :func:`~pforge.transpile.analysis.recurrences._forward_substituted`).

    The value becomes ``s + (t1 + t2 ...)`` (a minus first: ``s - (t1 - t2 ...)`` with the later
    signs flipped); the new term is marked ``pforge_reassociated``, and the loop's
    ``pforge_runtime_checks`` gets the dtype check described in the module docstring.
    """
    np_ = ctx.imports.alias_for("numpy")
    if np_ is None or ctx.imports.alias_for("tensorflow"):
        return False
    found = _chain(stmt)
    if found is None:
        return False
    name, running, op, term = found
    stored = _stored_names(loop.body)
    bound = set(stored) | {n.id for n in gast.walk(loop.target) if isinstance(n, gast.Name)}
    if any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(term)) or not _plain(ctx, term, bound):
        return False
    names = _value_names(ctx, term)
    if not names or names & bound:
        return False
    if array is None and (len(stored.get(name, ())) != 1 or not _bound_before(ctx, loop, name)):
        return False
    if apply:
        term.pforge_reassociated = True
        stmt.value = gast.copy_location(gast.BinOp(left=running, op=op, right=term), stmt.value)
        check = _dtype_check(np_, array or name, sorted(names | set(also)))
        loop.pforge_runtime_checks = getattr(loop, "pforge_runtime_checks", []) + [check]
    return True


def _chain(stmt):
    """``(s, s's own node in the value, the operator next to it, the reassociated term)`` for
    ``s = s ⊕ t1 ⊕ t2 ...`` with two terms or more, or None. The term is a new node."""
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return None
    name = stmt.targets[0].id
    ops, terms, node = [], [], stmt.value
    while isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult)):
        ops.insert(0, node.op)
        terms.insert(0, node.right)
        node = node.left
    if not (isinstance(node, gast.Name) and node.id == name) or len(terms) < 2:
        return None
    products = [isinstance(op, gast.Mult) for op in ops]
    if any(products) and not all(products):
        return None
    first = ops[0]
    term = copy.deepcopy(terms[0])
    for op, right in zip(ops[1:], terms[1:]):
        if isinstance(first, gast.Sub):  # s - t1 + t2 == s - (t1 - t2)
            op = gast.Sub() if isinstance(op, gast.Add) else gast.Add()
        term = gast.copy_location(gast.BinOp(left=term, op=copy.deepcopy(op), right=copy.deepcopy(right)), right)
    return name, node, copy.deepcopy(first), term


def _value_names(ctx, term) -> set[str]:
    """The names whose values ``term`` computes with: not those only inside a subscript's index,
    nor a callee (``np`` of ``np.tanh``, ``abs``), nor the arguments of a ``math`` function
    (:func:`_plain` admits it only of unchanging values: its result is a Python float)."""
    skip = set()
    for node in gast.walk(term):
        if isinstance(node, gast.Subscript):
            skip |= {id(n) for n in gast.walk(node.slice)}
        elif isinstance(node, gast.Call):
            math = (ctx.imports.resolve(node.func) or "").startswith("math.")
            skip |= {id(n) for n in gast.walk(node if math else node.func)}
    return {n.id for n in gast.walk(term) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
            and id(n) not in skip}


def _bound_before(ctx, loop, name: str) -> bool:
    """``name`` is a parameter of the function holding ``loop``, or a statement of that
    function's own body before the loop binds it (so the check can read it even where the loop
    runs no iteration)."""
    scope = _enclosing_scope(ctx, loop)
    if isinstance(scope, (gast.FunctionDef, gast.AsyncFunctionDef)):
        args = scope.args
        if any(a.id == name for a in args.posonlyargs + args.args + args.kwonlyargs):
            return True
    for stmt in scope.body:
        if stmt is loop or any(node is loop for node in _scope_nodes([stmt])):
            return False
        if isinstance(stmt, (gast.Assign, gast.AnnAssign)) and any(
                isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
                for target in (stmt.targets if isinstance(stmt, gast.Assign) else [stmt.target])
                for n in gast.walk(target)) and (not isinstance(stmt, gast.AnnAssign) or stmt.value is not None):
            return True
    return False


#: elementwise functions whose result has their floating argument's dtype
_KEEP_DTYPE = frozenset({"builtins.abs"} | {f"numpy.{f}" for f in (
    "abs", "absolute", "sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan",
    "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "square", "negative", "fabs")})
#: elementwise functions of two arguments whose result has their promoted dtype, as ``+`` has
_PROMOTE = frozenset(f"numpy.{f}" for f in ("minimum", "maximum", "fmin", "fmax", "hypot", "arctan2"))
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


def _plain(ctx, term, variant: set[str]) -> bool:
    """``term`` is arithmetic on names, number literals, subscripts, :data:`_KEEP_DTYPE` and
    :data:`_PROMOTE` calls, and ``math`` functions of values the loop does not change (a
    Python float, weak in either order; of a changing value the batch would compute it as an
    array of the argument's dtype). Anything goes inside a subscript's index: it only selects
    elements. ``variant``: the names the loop binds, its target's among them."""
    stack = [term]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Subscript):
            stack.append(node.value)
        elif isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC):
            stack += [node.left, node.right]
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            stack.append(node.operand)
        elif isinstance(node, gast.Call):
            callee = ctx.imports.resolve(node.func) or ""
            if node.keywords or any(isinstance(a, gast.Starred) for a in node.args):
                return False
            if callee.startswith("math.") and not any(
                    isinstance(n, gast.Name) and n.id in variant for a in node.args for n in gast.walk(a)):
                continue
            if not (callee in _KEEP_DTYPE and len(node.args) == 1 or callee in _PROMOTE and len(node.args) == 2):
                return False
            stack += node.args
        elif isinstance(node, gast.Constant):
            if type(node.value) not in (int, float, complex):
                return False
        elif not isinstance(node, gast.Name):
            return False
    return True


def _dtype_check(np_: str, start: str, names: list[str]) -> gast.expr:
    """``start`` and ``names`` are NumPy values or Python numbers, ``names`` of a floating or
    complex kind, and the NumPy values among them of one dtype."""
    kinds = (np_ + ".ndarray", np_ + ".generic", "int", "float", "complex")
    # (not a Python complex start: `0j + np.float64(t)` stays a Python complex in the loop, as
    # `np.float64` is a float, where the batched terms' sum makes it a NumPy one)
    typed = [f"isinstance({start}, ({', '.join(kinds[:-1])}))"] + [f"isinstance({n}, ({', '.join(kinds)}))"
                                                                     for n in names]
    floating = [f"{np_}.result_type({n}).kind in '{_KINDS}'" for n in names]
    one = (f"len({{{np_}.result_type(v) for v in ({', '.join([start] + names)}) "
           f"if type(v) not in (int, float, complex)}}) <= 1")
    check = gast.parse(" and ".join(typed + floating + [one])).body[0].value
    check.pforge_says = (f"{', '.join(f'`{n}`' for n in names)} are floating and `{start}` and they have one "
                         "dtype (the terms are added first)")
    return check
