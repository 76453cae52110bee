"""Arrays that may share memory (PF203): names bound to the same array or to a view of it,
lists whose rows are one object repeated, values pforge cannot trace, and in-place updates of
a name bound to a view."""

from __future__ import annotations

import dataclasses

import gast

from pforge.transpile.analysis.facts import PRIVATE, WholeModuleNeeded
from pforge.transpile.analysis.nodes import _binding, _loaded_names, _private_names, _scope_nodes, shape_source

_FRESH_CALLS = {"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.array",
                "numpy.copy", "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like",
                "numpy.full_like", "builtins.list", "builtins.dict", "builtins.set",
                "tensorflow.TensorArray"}


# NumPy calls that always allocate their result, never returning an argument or a view of one
# (without ``out=``): ufuncs, constructors and functions documented to return a new array.
# ``np.real``, ``np.reshape``, ``np.asarray``, ``np.linalg.matrix_transpose`` and the like may
# return a view or the argument itself, so they are not here.
_FRESH_NUMPY = {f"numpy.{name}" for name in (
    "abs absolute add arange arccos arcsin arctan arctan2 argsort bincount ceil clip concatenate "
    "conj conjugate cos cosh cross cumprod cumsum divide dot exp exp2 expm1 eye floor "
    "fmax fmin hstack hypot identity isfinite isinf isnan kron linspace log log10 log1p log2 "
    "logical_and logical_not logical_or logical_xor logspace matmul maximum minimum mod "
    "multiply negative outer power reciprocal remainder repeat rint sign sin sinh sort sqrt "
    "square stack subtract tan tanh tile true_divide vstack "
    "fft.fft fft.ifft fft.rfft fft.irfft fft.fft2 fft.ifft2 fft.rfft2 fft.irfft2 fft.fftn "
    "fft.ifftn fft.rfftn fft.irfftn fft.hfft fft.ihfft fft.fftfreq fft.rfftfreq fft.fftshift "
    "fft.ifftshift linalg.inv linalg.pinv linalg.solve linalg.cholesky linalg.lstsq").split()}


#: the positional arguments before ``out`` (ufuncs: their inputs); ``np.diff(x, 0)`` is ``x``
_POSITIONAL = {"clip": 3, "cumsum": 2, "cumprod": 2, "sort": 3, "argsort": 3, "linspace": 6, "logspace": 6,
               "arange": 4, "eye": 5, "identity": 2, "repeat": 3, "tile": 2, "cross": 5, "kron": 2,
               "stack": 2, "vstack": 1, "hstack": 1, "concatenate": 2, "outer": 2, "dot": 2,
               "fft": 4, "ifft": 4, "rfft": 4, "irfft": 4, "fft2": 4, "ifft2": 4, "rfft2": 4, "irfft2": 4,
               "fftn": 4, "ifftn": 4, "rfftn": 4, "irfftn": 4, "hfft": 4, "ihfft": 4, "fftfreq": 3,
               "rfftfreq": 3, "fftshift": 2, "ifftshift": 2, "inv": 1, "pinv": 3, "solve": 2,
               "cholesky": 2, "lstsq": 3, "abs": 1, "absolute": 1, "arccos": 1, "arcsin": 1, "arctan": 1,
               "ceil": 1, "conj": 1, "conjugate": 1, "cos": 1, "cosh": 1, "exp": 1, "exp2": 1, "expm1": 1,
               "floor": 1, "isfinite": 1, "isinf": 1, "isnan": 1, "log": 1, "log10": 1, "log1p": 1,
               "log2": 1, "logical_not": 1, "negative": 1, "reciprocal": 1, "rint": 1, "sign": 1, "sin": 1,
               "sinh": 1, "sqrt": 1, "square": 1, "tan": 1, "tanh": 1}


#: builtins whose result is a new number or string, never an argument (``min`` and ``max`` are)
_NEW_SCALARS = {f"builtins.{name}" for name in "len int float bool complex str abs round ord hash".split()}


def _new_scalar(ctx, value) -> bool:
    """A constant or a builtin's new number (``len(board[0])``): it holds no array."""
    return isinstance(value, gast.Constant) or isinstance(value, gast.Call) and not value.keywords \
        and ctx.imports.resolve(value.func) in _NEW_SCALARS


def _fresh_value(ctx, value) -> bool:
    if isinstance(value, (gast.ListComp, gast.SetComp)):  # (`[r for r in board]` holds rows: views)
        return _fresh_value(ctx, value.elt) or isinstance(value.elt, (gast.List, gast.Tuple)) and all(
            _new_scalar(ctx, e) for e in value.elt.elts)
    if isinstance(value, gast.DictComp):
        return _fresh_value(ctx, value.value)
    if isinstance(value, (gast.List, gast.Dict, gast.Set, gast.Constant, gast.BinOp)):
        return True
    if isinstance(value, gast.Tuple):  # (holds its items: `(x, y)` shares `x`'s memory)
        return all(_new_scalar(ctx, e) for e in value.elts)
    if isinstance(value, gast.Call):
        callee = ctx.imports.resolve(value.func)
        if _new_scalar(ctx, value):
            return True
        if callee in ("numpy.array", "numpy.copy") and (len(value.args) > 1 or any(
                k.arg == "copy" and not (isinstance(k.value, gast.Constant) and k.value.value is True)
                for k in value.keywords)):
            return False  # `np.array(buf, copy=False)` may be `buf` itself
        if callee in _FRESH_CALLS:
            return True
        if callee in _FRESH_NUMPY and not any(k.arg == "out" for k in value.keywords) \
                and len(value.args) <= _POSITIONAL.get(callee.rsplit(".", 1)[-1], 2):
            return True  # (no `out` given by position either: `np.add(buf, 0, buf)` is `buf`)
        # `x.astype(t, copy=False)` is `x` itself where `x` has that dtype already
        return isinstance(value.func, gast.Attribute) and value.func.attr in ("copy", "astype") and not any(
            k.arg == "copy" and not (isinstance(k.value, gast.Constant) and k.value.value is True)
            for k in value.keywords)
    return False


#: NumPy calls that allocate a new array of the sizes given (no array to take it from)
_ALLOCATORS = {f"numpy.{name}" for name in ("zeros", "ones", "empty", "full", "zeros_like", "ones_like",
                                            "empty_like", "full_like")}


def unexposed_allocation(ctx, function, loop, name: str) -> bool:
    """Whether ``name`` is an array ``function`` allocates itself (``out = np.empty(n)``, its
    one binding, in the block that holds ``loop`` and before it) that nothing sees between
    the two but stores into its elements and reads of its shape (``out[0] = v``,
    ``out.shape``, ``len(out)``), and ``loop`` only through its elements: no value bound to
    another name where ``loop`` starts can then be a view of it, for the allocation is new
    memory every time it runs and it runs before every run of ``loop``. The checks that such
    a name shares no memory with another (``np.may_share_memory``) are then redundant.

    Only where nothing but ``function``'s own statements sees its names (no nested function,
    lambda or class, no ``global`` or ``nonlocal``: another scope could hold the array)."""
    if function is None or not _private_names(function):
        return False
    parameters = function.args.args + function.args.kwonlyargs + function.args.posonlyargs + [
        function.args.vararg, function.args.kwarg]
    if any(isinstance(a, gast.Name) and a.id == name for a in parameters):
        return False
    binds = [n for n in gast.walk(function) if isinstance(n, gast.Name) and n.id == name
             and isinstance(n.ctx, (gast.Store, gast.Del))]
    if len(binds) != 1:
        return False
    stmt = ctx.parents.get(id(binds[0]))
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is binds[0]
            and isinstance(stmt.value, gast.Call) and ctx.imports.resolve(stmt.value.func) in _ALLOCATORS):
        return False
    parent = ctx.parents.get(id(stmt))
    block = next((getattr(parent, f) for f in parent._fields if isinstance(getattr(parent, f), list)
                  and any(s is stmt for s in getattr(parent, f))), [])
    at = [k for k, s in enumerate(block) if s is stmt or s is loop]
    if len(at) != 2 or block[at[0]] is not stmt:
        return False
    for k in range(at[0] + 1, at[1] + 1):
        for node in gast.walk(block[k]):
            if not (isinstance(node, gast.Name) and node.id == name and isinstance(node.ctx, gast.Load)):
                continue
            up = ctx.parents.get(id(node))
            shape = isinstance(up, gast.Attribute) and up.attr in ("shape", "dtype", "ndim", "size") or (
                isinstance(up, gast.Call) and up.args == [node] and not up.keywords
                and ctx.imports.resolve(up.func) == "builtins.len")
            element = isinstance(up, gast.Subscript) and up.value is node and (
                isinstance(up.ctx, gast.Store) or block[k] is loop)
            if not (shape or element):
                return False
    return True


def _through_shared_rows(ctx, access, sub, shared):
    """``access`` as the dependence test must see it when its list repeats one object.

    ``r = [[0.0] * m] * n`` makes every row ``r[i]`` the same list, so ``r[i][j]`` is element
    ``j`` of that one list whatever ``i`` is: the subscripts that select a shared object are
    dropped, and ``shared[id(new access)]`` keeps ``(sub, dropped subscripts, the repeating
    expression)`` for the remark. Other accesses come back as they are.
    """
    if len(access.dims) < 2 or not isinstance(sub, gast.Subscript):
        return access
    base = sub
    while isinstance(base, gast.Subscript):
        base = base.value
    positions, repeating = _repeated_positions(ctx, base, len(access.dims) - 1)
    if not positions:
        return access
    new = dataclasses.replace(access, dims=[d for k, d in enumerate(access.dims) if k not in positions])
    shared[id(new)] = (sub, [d for k, d in enumerate(access.dims) if k in positions], repeating)
    return new


def _shared_row_written(info, name, wlist, shared, variant) -> bool:
    """Blocks (PF203) when a write goes through a row of ``name`` that is one object repeated,
    selected by an index that changes between iterations: every iteration writes that object."""
    rows = [(w, shared[id(w)]) for w in wlist if id(w) in shared]
    if rows:
        info.dependences.append(f"{name}: its rows are one shared object (line {rows[0][1][2].lineno})")
    for w, (sub, dropped, repeating) in rows:
        if {n.id for d in dropped for n in _loaded_names(d)} & variant:
            info.block("PF203", f"`{w.base}`: its rows are one shared object (`"
                       f"{gast.unparse(repeating).strip()}` at line {repeating.lineno} repeats it), "
                       f"so `{gast.unparse(sub).strip()}` writes into that one object in every "
                       "iteration (build a new row for each index: `[... for _ in range(n)]`)", w.node)
            return True
    return False


def _repeated_positions(ctx, value, depth, hops=8):
    """Which subscripts of ``value[i0][i1]...[i(depth-1)]`` the object reached does not depend
    on, and the list expression that repeats it: ``[[0.0] * m] * n`` at depth 1 gives ``{0}``
    (every row is one list), as do ``[row] * n``, ``[row, row]`` and ``[row for _ in range(n)]``;
    ``[[0.0] * m for _ in range(n)]`` gives none (a new row each time). Names are followed to
    their bindings (all of them, when several reach); a shallow copy (``a[:]``, ``list(a)``,
    ``a.copy()``) holds ``a``'s rows."""
    if depth <= 0 or hops <= 0 or value is None:
        return set(), None
    if isinstance(value, gast.Name):
        found, repeating = set(), None
        for definition in ctx.definitions_of(value):
            more, where = _repeated_positions(ctx, _binding(ctx, definition.node)[1], depth, hops - 1)
            found, repeating = found | more, repeating or where
        return found, repeating
    copied = _shallow_copy_source(ctx, value)
    if copied is not None:
        return _repeated_positions(ctx, copied, depth, hops - 1)
    items = _repetition(value)
    if items is not None:
        repeated = True
    elif isinstance(value, gast.List):
        items = value.elts
        repeated = len(items) > 1 and all(isinstance(e, gast.Name) and e.id == items[0].id for e in items)
    elif isinstance(value, gast.ListComp) and len(value.generators) == 1:
        items = [value.elt]
        bound = {n.id for n in gast.walk(value.generators[0].target) if isinstance(n, gast.Name)}
        repeated = _same_each_time(value.elt, bound, depth - 1)
    else:
        return set(), None
    inner = [_repeated_positions(ctx, item, depth - 1, hops - 1) for item in items]
    below = set.intersection(*(p for p, _ in inner)) if inner else set()
    positions = ({0} if repeated else set()) | {p + 1 for p in below}
    return positions, (value if repeated else next((w for _, w in inner if w is not None), None))


def _shallow_copy_source(ctx, value):
    """``a`` when ``value`` is ``a[start:stop]``, ``list(a)``, ``copy.copy(a)`` or ``a.copy()``."""
    if isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice):
        return value.value
    if not isinstance(value, gast.Call) or value.keywords:
        return None
    if len(value.args) == 1 and ctx.imports.resolve(value.func) in ("builtins.list", "copy.copy"):
        return value.args[0]
    if not value.args and isinstance(value.func, gast.Attribute) and value.func.attr == "copy":
        return value.func.value
    return None


def _same_each_time(element, bound, depth) -> bool:
    """Whether the object ``depth`` subscripts below ``element`` is one and the same object each
    time a comprehension evaluates ``element`` (its target names are ``bound``): a name from
    outside it is, a list display, a repetition or a call builds a new one."""
    if isinstance(element, (gast.Name, gast.Attribute)):
        return not {n.id for n in gast.walk(element) if isinstance(n, gast.Name)} & bound
    if depth <= 0:
        return False
    if isinstance(element, gast.ListComp) and len(element.generators) == 1:
        inner = bound | {n.id for n in gast.walk(element.generators[0].target) if isinstance(n, gast.Name)}
        return _same_each_time(element.elt, inner, depth - 1)
    items = _repetition(element) or (element.elts if isinstance(element, gast.List) else [])
    return bool(items) and all(_same_each_time(item, bound, depth - 1) for item in items)


def _repetition(value):
    """The items of the list repetition ``[items] * n`` (or ``n * [items]``), else None."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult):
        return next((side.elts for side in (value.left, value.right) if isinstance(side, gast.List)), None)
    return None


_VIEW_METHODS = {"reshape", "view", "transpose", "swapaxes", "ravel", "squeeze", "__getitem__"}
_VIEW_CALLS = {"numpy.reshape", "numpy.transpose", "numpy.asarray", "numpy.ravel", "numpy.squeeze",
               "numpy.flip", "numpy.fliplr", "numpy.flipud", "numpy.rot90", "numpy.diagonal",
               "numpy.broadcast_to", "numpy.asanyarray", "numpy.ascontiguousarray",
               "numpy.expand_dims", "numpy.swapaxes", "numpy.moveaxis", "numpy.atleast_1d",
               "numpy.atleast_2d"}
_VIEW_ATTRS = {"T", "real", "imag", "flat", "mT"}


def _view_base(ctx, value) -> tuple[gast.Name | None, bool]:
    """``(base, is_view)`` when ``value`` is another array's name (``b = a``) or may be a view
    of it (``a[1:]``, ``a.T``, ``a.reshape(...)``, ``np.asarray(a)``); ``(None, False)`` else."""
    if isinstance(value, gast.Name):
        return value, False
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        return value.value, True
    if isinstance(value, gast.Attribute) and value.attr in _VIEW_ATTRS and isinstance(value.value, gast.Name):
        return value.value, True
    if isinstance(value, gast.Call):
        func = value.func
        resolved = ctx.imports.resolve(func)
        if resolved is not None:  # a module function: `np.reshape(a, -1)` views `a`
            if resolved in _VIEW_CALLS and value.args and isinstance(value.args[0], gast.Name):
                return value.args[0], True
            return None, False
        no_copy = any(k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value is False
                      for k in value.keywords)
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and (
                func.attr in _VIEW_METHODS or func.attr == "astype" and no_copy):
            return func.value, True
    return None, False


def _alias_source(ctx, name_node, loop_ids):
    """Follows single reaching definitions outside the loop through ``b = a`` and view bindings.

    Returns ``(root name, exact, line, root node)``: ``exact`` when every step was a plain
    rebinding (the two names are the same array, element for element), ``line`` the binding
    nearest the loop; None when ``name_node`` is bound to a value of its own.
    """
    current, exact, line = name_node, True, None
    for _ in range(8):  # alias chains in real code are short; this also guards cycles
        defs = _local_definitions(ctx, current)
        if defs is None or len(defs) != 1 or id(defs[0].node) in loop_ids:
            break
        stmt, value = _binding(ctx, defs[0].node)
        base, view = _view_base(ctx, value)
        if base is None:
            break
        exact, line, current = exact and not view, line or stmt.lineno, base
    if current is name_node:
        return None
    return current.id, exact, line, current


def _whole_reads(ctx, info, first, loop_ids, seen, groups, written) -> None:
    """Names the body reads whole (``np.sum(w)``, ``X[i] * w``), which have no access in the
    dependence test's tables, and what they may share memory with (:func:`_reached`):

    - the array the loop writes itself (``w = X``, or ``X`` read whole where the loop writes
      through ``w = X[:, 0]``): grouped with it, so :func:`~.subscripts._whole_array_use` or
      the view test above refuses the loop (PF203);
    - a view of it whatever the ranks are (``w = X[1:]``, ``X.T``, ``X[0, ...]``): PF203;
    - an element selection (``x0 = x[0]``): a copy where its rank is 0, a view of a row
      otherwise, which the direct backend tells from the ranks (``element_reads``);
    - a binding pforge cannot follow (a call's result, a global, a closure's name):
      ``untraced_reads``, compared with each written array at run time;
    - an argument: another name for it (``w = y``), compared at run time as the argument is.
    """
    for name in sorted(set(first) - seen):
        if ctx.imports.resolve(first[name]) is not None or name not in ctx.bound_names:
            continue  # a module, an imported function, a builtin
        if name in written:  # the root of a written alias or view, itself read whole
            groups.setdefault(name, set()).add(name)
            continue
        for kind, root, line in sorted(_reached(ctx, first[name], loop_ids, info.function),
                                       key=lambda found: (found[0], found[1], found[2] or 0)):
            if kind == "untraced":
                info.untraced_reads.add(name)
            elif kind == "exact" or root not in written:  # (not written: an argument's other name, `emitter`)
                groups.setdefault(root, set()).add(name)
            elif kind == "element":
                info.element_reads[name] = root
            else:
                info.dependences.append(f"{name}: a view of `{root}`")
                info.block("PF203", f"`{name}` is a view of `{root}` (bound at line {line}), which the "
                           "loop writes while it reads the view, so iterations see one another's "
                           "writes (make a copy with `.copy()`)", first[name])
                return


def _reached(ctx, name_node, loop_ids, function=None) -> set[tuple[str, str, int | None]]:
    """Where the array a name holds at the loop may come from, over every binding that reaches
    it (``if c: w = X`` ``else: w = Y`` reaches both), followed back through names and views:
    ``(kind, root, line)`` for each name met, ``kind`` being

    - ``exact``: the root's array itself (``w = X``, ``v = w``);
    - ``element``: subscripts of integer-like indices only (``x0 = x[0]``): one element, a
      copy, where they are as many as the array's dimensions, else a view of a row (NumPy's
      basic indexing: https://numpy.org/doc/stable/user/basics.indexing.html);
    - ``view``: a view whatever the ranks are (a slice, ``...``, ``None``, ``.T``,
      ``.reshape(...)``, ``np.asarray``);
    - ``untraced``: a binding pforge cannot follow (a call's result, an attribute, a global or
      a closure's name, a ``for`` target, an augmented assignment), ``root`` the name bound.

    A fresh value (a constructor's, an arithmetic result, a copy) ends a path, and so does a
    parameter of ``function`` (the function holding the loop); an enclosing function's
    parameter is a closure's name, ``untraced``.
    """
    found: set[tuple[str, str, int | None]] = set()
    stack, visited = [(name_node, "exact")], set()
    while stack:
        node, kind = stack.pop()
        if (id(node), kind) in visited:
            continue
        visited.add((id(node), kind))
        defs = _local_definitions(ctx, node)
        if len(visited) > 32 or defs is None:
            # (a module constant, `OFFSETS = [(-1, 0), (1, 0)]` never changed, is fresh)
            if len(visited) > 32 or not _fresh_global(ctx, node.id, function):
                found.add(("untraced", node.id, None))
            continue
        for definition in defs:
            bound = definition.node
            if isinstance(bound, (gast.FunctionDef, gast.ClassDef)):
                continue
            if isinstance(ctx.parents.get(id(bound)), gast.arguments):
                if function is None or ctx.parents.get(id(bound)) is not function.args:
                    found.add(("untraced", node.id, None))  # an enclosing function's: a closure's name
                continue
            stmt, value = _binding(ctx, bound)
            line = getattr(stmt, "lineno", None)
            if id(bound) not in loop_ids and shape_source(ctx, bound) is not None:
                continue  # (`n = x.shape[1]`, `n, m = x.shape`: a Python int)
            if id(bound) in loop_ids or value is None:
                found.add(("untraced", node.id, line))
                continue
            if _fresh_value(ctx, value):
                continue
            base, view = _view_base(ctx, value)
            if base is None:
                found.add(("untraced", node.id, line))
                continue
            if view:
                kind = "element" if kind != "view" and _integer_subscript(value) else "view"
            found.add((kind, base.id, line))
            stack.append((base, kind))
    return found


def _fresh_global(ctx, name: str, function) -> bool:
    """Whether ``name``, read by ``function`` and bound by no function around it, is the
    module's one binding of it to a fresh value (a literal list, a constructor's array) that
    nothing rebinds or changes in place (:func:`~pforge.transpile.rank_inference.module_value`)."""
    from pforge.transpile.rank_inference import module_value  # noqa: PLC0415 - (a cycle)

    node = ctx.parents.get(id(function)) if function is not None else None
    while node is not None and not isinstance(node, gast.Module):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)) and any(
                isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, (gast.Store, gast.Param))
                for n in gast.walk(node)):
            return False  # a closure's name
        node = ctx.parents.get(id(node))
    value = module_value(ctx, name)
    return value is not None and _fresh_value(ctx, value)


def _integer_subscript(value) -> bool:
    """``x[e, ...]`` whose indices are no slice, ``...``, ``None`` nor starred (integers or
    index arrays: one element, a row, or a copy)."""
    if not isinstance(value, gast.Subscript):
        return False
    indices = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    return not any(isinstance(e, (gast.Slice, gast.Starred)) or isinstance(e, gast.Constant)
                   and (e.value is None or e.value is Ellipsis) for e in indices)


def _origin(ctx, name_node, loop_ids) -> tuple[str, int | None]:
    """Where the array a name refers to at the loop comes from: ``fresh`` (allocated by a
    known constructor or computed), ``argument``, or ``unknown``; with the binding's line.
    A module-level name is ``unknown``: any function may have rebound it."""
    defs = _local_definitions(ctx, name_node)
    if not defs:
        return "unknown", None
    kinds, line = set(), None
    for definition in defs:
        node = definition.node
        if id(node) in loop_ids:
            return "unknown", getattr(node, "lineno", None)
        if isinstance(ctx.parents.get(id(node)), gast.arguments):
            kinds.add("argument")
            continue
        if isinstance(node, (gast.FunctionDef, gast.ClassDef)):
            kinds.add("fresh")
            continue
        stmt, value = _binding(ctx, node)
        line = getattr(stmt, "lineno", None) or getattr(node, "lineno", None)
        if isinstance(stmt, gast.AugAssign) or isinstance(ctx.parents.get(id(node)), gast.AugAssign):
            kinds.add("unknown")  # `v += 0` updates the array `v` was, in place: no new one
            continue
        contained = isinstance(value, (gast.List, gast.Tuple, gast.Set, gast.Dict)) and any(
            not _new_scalar(ctx, n) for n in gast.iter_child_nodes(value)
            if not isinstance(n, (gast.Load, gast.Store)))
        kinds.add("fresh" if value is not None and _fresh_value(ctx, value) and not contained
                  else "unknown")
    if "unknown" in kinds:
        return "unknown", line
    return ("argument" if "argument" in kinds else "fresh"), line


def _local_definitions(ctx, name_node):
    """beniget's reaching definitions, or None for a name defined outside the function (the
    outline does not hold those; the callers then assume the least)."""
    try:
        return ctx.definitions_of(name_node)
    except WholeModuleNeeded:
        return None


def _is_argument(ctx, name_node) -> bool:
    defs = _local_definitions(ctx, name_node)
    return bool(defs) and any(isinstance(ctx.parents.get(id(d.node)), gast.arguments) for d in defs)


def _merge_aliases(ctx, info, nodes, writes, reads, stored):
    """Puts accesses through two names of one array under one name, so the dependence test sees
    them together; blocks (PF203) when one name may be a view of the other (the mapping between
    their elements is not modelled). Records arrays that are arguments written in place."""
    loop_ids = {id(n) for n in _scope_nodes([info.node])}
    first: dict[str, gast.Name] = {}
    for node in nodes:
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in first:
            first[node.id] = node
    loaded = dict(first)
    groups: dict[str, set[str]] = {}
    views: set[str] = set()  # names that may be a view of another array
    traced: dict[str, gast.Name] = {}  # name -> the name whose binding says where its array is from
    for name in sorted(set(writes) | set(reads)):
        if name in stored or name not in first:
            continue
        source = _alias_source(ctx, first[name], loop_ids)
        if source is None:
            groups.setdefault(name, set()).add(name)
            continue
        root, exact, line, root_node = source
        groups.setdefault(root, set()).add(name)
        if not exact:
            views.add(name)
            traced[name] = root_node
            continue
        info.dependences.append(f"{name}: the same array as `{root}` (bound at line {line})")
        for table in (writes, reads):
            if name in table:
                table.setdefault(root, []).extend(table.pop(name))
        traced.setdefault(root, root_node)
        first.setdefault(root, first[name])
    _whole_reads(ctx, info, loaded, loop_ids, set(writes) | set(reads) | set(stored), groups,
                 set(writes) | {root for root, names in groups.items() if names & set(writes)})
    for root, names in groups.items():
        info.aliases[root] = names
        viewing = {n for n in names & views if n != root and n in first}
        if len(names) > 1 and viewing and any(n in writes for n in names):
            view = min(viewing)
            info.dependences.append(f"{view}: may be a view of `{root}`")
            info.block("PF203", f"`{view}` may be a view of `{root}`, and one of them is written "
                       "while the other is used, so iterations may see one another's writes "
                       "(make a copy with `.copy()`)", first[view])
    for name in writes:
        node = first.get(name)
        if node is not None and _is_argument(ctx, node) and name not in info.mutated_args:
            info.mutated_args.append(name)
    # Bindings pforge cannot follow (`b = helper(a)`, `b = d["k"]`) may share memory with any
    # array that is not freshly allocated; arguments are assumed distinct from one another.
    origins = {name: _origin(ctx, traced.get(name, first[name]), loop_ids)
               for name in set(writes) | set(reads) if name in first and name not in stored}
    for name in sorted(writes):
        if name not in origins:
            continue
        for other in sorted(origins):
            if other == name or info.aliases.get(other) and name in info.aliases[other]:
                continue
            pair = {origins[name][0], origins[other][0]}
            unknown, partner = (name, other) if origins[name][0] == "unknown" else (other, name)
            if "unknown" in pair and ("fresh" not in pair or _bound_from(info, unknown, partner)):
                line = origins[unknown][1]
                at = f" at line {line}" if line else ""
                info.dependences.append(f"{unknown}: bound{at} to a value that may share memory "
                                        f"with `{partner}`")
                info.block("PF203", f"`{unknown}` is bound{at or ' outside the function'} to a value "
                           f"pforge cannot trace, which may share memory with `{partner}` (bind a "
                           "copy, or a fresh array, to vectorize)", first[unknown])
                return


def _bound_from(info, name: str, partner: str) -> bool:
    """Whether some binding of ``name`` in the function reads ``partner`` (``if c: v = buf``,
    ``v = np.real(buf)``, ``v = np.maximum(buf, 0, out=buf)``): then the array pforge cannot
    trace may be ``partner``'s, fresh as that one is."""
    scope = info.function
    if scope is None:
        return True
    for node in gast.walk(scope):
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.NamedExpr)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            if any(isinstance(n, gast.Name) and n.id == name for t in targets for n in gast.walk(t)) and \
                    node.value is not None and any(isinstance(n, gast.Name) and n.id == partner
                                                   for n in gast.walk(node.value)):
                return True
    return False


def _check_inplace_views(ctx, info, nodes, stored):
    """``r = x[i]; r += e``: on a NumPy array ``+=`` updates in place, so a private name bound
    to a view writes into the array it views (TensorFlow tensors are immutable: a rebinding)."""
    if info.library == "tensorflow":
        return
    for node in nodes:
        if not (isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name)
                and info.classes.get(node.target.id) == PRIVATE):
            continue
        name = node.target.id
        for store in stored.get(name, []):
            stmt, value = _binding(ctx, store)
            if stmt is not None and stmt is not node and not _fresh_value(ctx, value):
                info.block("PF203", f"`{name}` is bound to `{gast.unparse(value).strip()}` (line "
                           f"{stmt.lineno}), which may be a view, and `{name} {_op_text(node.op)}= "
                           "...` updates it in place (write `" + name + " = " + name
                           + f" {_op_text(node.op)} ...`)", node)
                break


def _op_text(op) -> str:
    return {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.FloorDiv: "//",
            gast.Mod: "%", gast.Pow: "**", gast.BitOr: "|", gast.BitAnd: "&", gast.BitXor: "^",
            gast.MatMult: "@", gast.LShift: "<<", gast.RShift: ">>"}.get(type(op), "?")
