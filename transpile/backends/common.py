"""Facts about loop source code that both backends need: which names a statement binds or
reads, whether a bound is non-negative, a value evidently an array, a tape single-use; and the
``LoopRewrite`` both backends return (or ``Unsupported`` they raise)."""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from pforge.transpile import analysis
from pforge.transpile.analysis.nodes import shape_source
from pforge.transpile.spaces import constant_int


class Unsupported(Exception):
    """The loop is vectorizable but this backend cannot express it; the message says why."""


@dataclass
class LoopRewrite:
    """What replaces one loop.

    Attributes:
        stmts: the statements that take the loop's place.
        drop: statements outside the loop to delete (collector initialisers).
        replace: ``id(node) -> new expression`` for consumers outside the loop
            (``tf.stack(outs)`` -> ``outs``).
        pattern: a short description for the marker comment and the remark.
        anchor: for a loop written as an expression (a comprehension, ``tf.map_fn``), the
            statement that ``stmts`` replace (None: they replace the loop statement itself).
        guard: a run-time test of the ranks the rewrite assumed (``np.ndim(x) == 1``): when
            set, ``stmts`` run only where it holds and the loop, as written, runs elsewhere.
        prelude: statements before the guard that bind what it and ``stmts`` read (the
            attributes of a list's objects gathered into a list, ``st_alpha = [st.alpha for st
            in learners]``).
        checks: run-time conditions the batched code needs (a sliding window inside its array).
        consulted: names whose rank or type decided an ``if`` of an inlined helper: their ranks
            matter even where the batched code does not read them.
        nonempty: the batched code is right only where every level runs at least once: a
            list NumPy reads as an array has no rows to give its shape and dtype when empty
            (``np.array([])`` is ``(0,)`` floats, the batch of rows of ``m`` ``(0, d)``).
        needs_trip: the batched code reads an element at a fixed index (``w[0]``, ``m[i, 0]``),
            which raises where that axis is empty; the loop reads it only when it runs, so the
            batched code runs only where every level runs at least once.
        trip_levels: the outermost levels that must run at least once for the batched code
            to be right: a write at a fixed index (``m[i, 0] = v``) in the body of level k
            raises where that axis is empty, which the loop writes only when levels 1..k run
            (``needs_trip`` asks it of every level).
        arrays: names the batched code is right for only when they are arrays, not lists: a
            list of NumPy scalars rebuilt from the batch (``list(v)``) holds Python floats in
            the loop when its items were computed from a list's elements.
        sliced: names the batched code is right for only when they are arrays (no list, not
            even of arrays): a list's slice is a list, which ``*`` repeats and ``+`` concatenates.
        unsafe: why the batched code may change results where the loop's analysis sees no
            reason (``plan.unsafe_reason``): a sum the backend computes as a contraction
            (``np.einsum``), in another order. Set only where the module may be reassociated
            (``ModuleContext.reassociate``).
    """

    stmts: list[gast.stmt]
    drop: list[gast.stmt] = field(default_factory=list)
    replace: dict[int, gast.expr] = field(default_factory=dict)
    pattern: str = ""
    anchor: gast.stmt | None = None
    guard: gast.expr | None = None
    checks: list[gast.expr] = field(default_factory=list)
    consulted: set[str] = field(default_factory=set)  # names whose rank or type decided a helper's `if`
    #: name -> (its rank check, the rank) for each rank the user gave that the batched code rests on
    declared_ranks: dict = field(default_factory=dict)
    derived_ranks: set = field(default_factory=set)  # of those, locals computed from a rebound declared parameter
    rank_spelling: tuple = ("np", "array")  # how those are checked (:func:`rank_test`)
    nonempty: bool = False  # right only where every level runs (a list NumPy reads as an array)
    arrays: set[str] = field(default_factory=set)  # read as arrays: their elements are NumPy scalars
    sliced: set[str] = field(default_factory=set)  # sliced: only an ndarray computes as the batch does
    needs_trip: bool = False  # reads an element at a fixed index: runs only where the loop runs
    trip_levels: int = 0  # writes at a fixed index in the body of this many levels: they must run
    prelude: list[gast.stmt] = field(default_factory=list)  # before the checks: what they read
    objects: set[str] = field(default_factory=set)  # lists of objects read through attributes only
    unsafe: str | None = None  # why the batched code may change results beyond the analysis' reasons


def rank_test(spelling: tuple[str, str], name: str, found: list[int], at_least: bool = False) -> str:
    """The run-time check that ``name`` holds a value with one of the ranks ``found``, as the
    check of a declared rank spells it (:meth:`DirectRewriter._declared_ranks
    <pforge.transpile.backends.direct.emitter.DirectRewriter._declared_ranks>`, widened by
    :func:`pforge.transpile.versioning.widen_declared_ranks`); ``at_least``: any rank from
    ``found[0]`` up.

    ``spelling`` is ``(module, style)``:

    - ``("np", "array")``, a test in front of NumPy's batched code, the loop kept for where it
      fails: ``type(x) is np.ndarray and x.ndim == 2`` for one axis or more (only an ndarray: a
      matrix's rows are matrices, a masked array's sums skip what the loop's do not, and
      ``np.ndim`` of a ragged list raises), ``np.ndim(x) == 0`` for a number (several ranks:
      :func:`pforge.transpile.versioning._rank_check`);
    - ``("tf", "assert")``, a statement that raises where the rank is not the declared one:
      ``tf.debugging.assert_rank(x, 2)``, ``tf.debugging.assert_rank_in(x, (1, 2))``,
      ``tf.debugging.assert_rank_at_least(x, 2)``. TensorFlow decides it as ``tf.function``
      traces (every rank is known then), at no cost per call. A loop kept beside TensorFlow's
      batched code would be traced too, where a Python list it appends to cannot leave the
      graph's ``while`` loop, so the declaration is enforced instead, as ``input_signature``
      enforces a signature.
    """
    module, style = spelling
    if style == "assert":
        if at_least:
            return f"{module}.debugging.assert_rank_at_least({name}, {found[0]})"
        if len(found) == 1:
            return f"{module}.debugging.assert_rank({name}, {found[0]})"
        return f"{module}.debugging.assert_rank_in({name}, ({', '.join(map(str, found))}))"
    if at_least:
        return f"type({name}) is {module}.ndarray and {name}.ndim >= {found[0]}"
    return f"type({name}) is {module}.ndarray and {name}.ndim == {found[0]}" if found[0] \
        else f"{module}.ndim({name}) == 0"


def own_rank_asserts(result) -> set[str]:
    """``gast.dump`` of each declared rank's ``tf.debugging.assert_rank`` call in ``result``'s
    statements (:func:`rank_test`), which read the name only to check it."""
    if result.rank_spelling[1] != "assert":
        return set()
    return {gast.dump(check) for check, _ in result.declared_ranks.values()}


def _loads(node) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _stores(stmts) -> set[str]:
    found = set()
    for stmt in stmts:
        for n in gast.walk(stmt):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                found.add(n.id)
    return found


_LIST_RETURNING = {"tensorflow.unstack", "tensorflow.split", "numpy.split", "numpy.array_split",
                   "tensorflow.nest.flatten", "tensorflow.dynamic_partition", "tensorflow.meshgrid"}


#: why a count of Python ints under a per-iteration test stays a loop (TensorFlow code)
COUNTED_UNDER_A_TEST = ("`{name}` counts Python ints under a per-iteration test: the loop keeps it a Python int, "
                        "which mixes with float tensors (`total / {name}`); the batched count would be an int32 "
                        "tensor, which does not")


def bound_to_sequence(ctx, name_node, within=None) -> bool:
    """A reaching definition of ``name_node`` (under ``within``, if given) binds a Python list or
    tuple: a display, a list comprehension, ``list(...)``/``tuple(...)``/``sorted(...)``, or a
    library call that returns a list (``tf.unstack``). A symbolic index cannot select from it,
    and ``tape.gradient`` over it returns a list.
    """
    inside = {id(n) for n in gast.walk(within)} if within is not None else None
    for definition in ctx.definitions_of(name_node):
        if inside is not None and id(definition.node) not in inside:
            continue
        _, value = analysis._binding(ctx, definition.node)
        if isinstance(value, (gast.List, gast.Tuple, gast.ListComp)) or isinstance(value, gast.Call) and (
                ctx.imports.resolve(value.func) in _LIST_RETURNING | {"builtins.list", "builtins.tuple",
                                                                      "builtins.sorted"}):
            return True
    return False


def persistent_tape(call: gast.Call) -> bool:
    """``tf.GradientTape(persistent=True)``: a tape that gives more than one set of gradients."""
    return any(k.arg == "persistent" and isinstance(k.value, gast.Constant) and k.value.value is True
               for k in call.keywords)


def single_use_tapes(ctx, nodes) -> dict[str, list[gast.Call]]:
    """Each ``with tf.GradientTape() as tape`` among ``nodes`` that is not ``persistent=True``,
    with the ``tape.gradient``/``jacobian``/``batch_jacobian`` calls among ``nodes`` (such a tape
    computes one set of gradients; TensorFlow raises on the second)."""
    tapes = {}
    for node in nodes:
        if isinstance(node, gast.With):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, gast.Call) and (ctx.imports.resolve(call.func) or "").endswith("GradientTape") \
                        and isinstance(item.optional_vars, gast.Name) and not persistent_tape(call):
                    tapes[item.optional_vars.id] = []
    for node in nodes:
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in ("gradient", "jacobian", "batch_jacobian") \
                and isinstance(node.func.value, gast.Name) and node.func.value.id in tapes:
            tapes[node.func.value.id].append(node)
    return tapes


def _in_order(start, stop, sign, ctx) -> bool:
    """``range(start, stop)`` stepping by ``sign`` surely does not run backwards."""
    first, last = constant_int(start), constant_int(stop)
    if first is not None and last is not None:
        return (last - first) * sign >= 0
    return first == 0 and sign == 1 and _nonnegative(stop, ctx)


def _nonnegative(node, ctx) -> bool:
    """A bound that cannot be negative: a constant >= 0, ``len(...)``, ``x.shape[k]``,
    ``tf.shape(x)[k]``, one of those floor-divided by a positive constant, or a name bound only
    to one of those."""
    if isinstance(node, gast.Name):
        defs = ctx.definitions_of(node)
        if defs and all(isinstance(d.node, gast.Name) and shape_source(ctx, d.node) is not None for d in defs):
            return True  # `n, d = x.shape`, `n = x.ndim`: a length or a count
        values = [analysis._binding(ctx, d.node)[1] for d in defs]
        return bool(values) and all(v is not None and _nonnegative(v, ctx) for v in values)
    value = constant_int(node)
    if value is not None:
        return value >= 0
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.FloorDiv):  # `len(x) // 2`
        divisor = constant_int(node.right)
        return divisor is not None and divisor > 0 and _nonnegative(node.left, ctx)
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == "len":
        return True
    if isinstance(node, gast.Subscript):
        base = node.value
        return (isinstance(base, gast.Attribute) and base.attr == "shape") or (
            isinstance(base, gast.Call) and isinstance(base.func, gast.Attribute) and base.func.attr == "shape")
    return False


#: methods of an array that return an array
_ARRAY_METHODS = {"astype", "copy", "reshape", "transpose", "flatten", "ravel", "squeeze", "conj", "clip"}


def _evidently_array(ctx, function, seq, _seen=frozenset(), at=None) -> bool:
    """True when ``seq`` must be an array or tensor rather than a Python list.

    Evidence: it is made by a TensorFlow or NumPy call, or (for a name) the function binds it
    from such a call, or reads its ``.shape``/``.dtype``/``.ndim`` on every path to ``seq``,
    before it (:func:`_runs_before`: a read under an ``if``, or after the loop, may never run
    for a list). For a name, only the bindings that reach ``seq`` count (beniget's reaching
    definitions): after ``x = a``, a read of ``x.ndim``, then ``x = b``, ``x`` is ``b``, which
    that read says nothing about (pforge's own run-time checks read ``x.ndim`` of the binding
    their loop sees), and each binding that reaches ``seq`` must be from such a call. Where
    the bindings are not known (a global, a node the chains do not hold: then ``at`` is
    where the value is used, the loop), a read counts only for a name bound once.
    """
    if isinstance(seq, gast.Call):
        callee = ctx.imports.resolve(seq.func) or ""
        if not callee and isinstance(seq.func, gast.Attribute) and seq.func.attr in _ARRAY_METHODS:
            return _evidently_array(ctx, function, seq.func.value, _seen, at)  # `np.zeros(n).astype(int)`
        return callee.startswith(("tensorflow.", "numpy.")) and callee not in _LIST_RETURNING
    if not isinstance(seq, gast.Name) or function is None:
        return False
    use = seq if id(seq) in ctx.parents else at
    reaching = _reaching(ctx, seq)
    # (a binding from the name itself, `x = x.astype(int)`, follows the binding before it)
    key = seq.id if reaching is None else frozenset(reaching)
    if key in _seen:
        return False
    bindings = [node for node in gast.walk(function) if isinstance(node, gast.Assign)
                and any(isinstance(t, gast.Name) and t.id == seq.id for t in node.targets)]
    once = len([n for n in gast.walk(function) if isinstance(n, gast.Name) and n.id == seq.id
                and isinstance(n.ctx, (gast.Store, gast.Del, gast.Param))]) <= 1
    for node in gast.walk(function):
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "dtype", "ndim") \
                and isinstance(node.value, gast.Name) and node.value.id == seq.id \
                and use is not None and _runs_before(ctx, node, use):
            read = _reaching(ctx, node.value)
            if reaching is None and once or reaching is not None and read is not None and reaching == read:
                # (that read sees every binding `seq` may hold, and no binding comes between:
                # `n = x.shape[0]; x = list(x)` in an outer loop's body reaches the read along
                # the outer loop's back edge, but is all that reaches `seq`; helper-69)
                return True
    # (`x += t` updates the array `x` is in place and binds that array again: it holds what
    # the other bindings do; an augmented list is a list, so they decide)
    updated = {id(n.target) for n in gast.walk(function) if isinstance(n, gast.AugAssign)
               and isinstance(n.target, gast.Name) and n.target.id == seq.id}
    if reaching is None:  # (each binding from such a call, and no other: a parameter, a loop's target)
        stores = [n for n in gast.walk(function) if isinstance(n, gast.Name) and n.id == seq.id
                  and isinstance(n.ctx, (gast.Store, gast.Del, gast.Param)) and id(n) not in updated]
        return bool(bindings) and len(stores) == sum(len(b.targets) for b in bindings) and all(
            _evidently_array(ctx, function, b.value, _seen | {key}, b) for b in bindings)
    bound = {id(t): b for b in bindings for t in b.targets if isinstance(t, gast.Name) and t.id == seq.id}
    made = [r for r in reaching if r not in updated]
    return bool(made) and all(r in bound for r in made) and all(
        _evidently_array(ctx, function, bound[r].value, _seen | {key}, bound[r]) for r in made)


def _runs_before(ctx, read: gast.AST, use: gast.AST) -> bool:
    """Whether ``read`` is evaluated on every path of its function that reaches ``use``,
    before it: ``read`` is evaluated whenever its statement runs (not in an ``and``/``or``
    past the first operand, a conditional expression's arms, a lambda or a comprehension, or
    a compound statement's body: only its header runs at once; nor in an ``assert``, which
    ``python -O`` leaves out), and that statement lies before ``use`` in a block that holds
    ``use``, or is the statement whose header it is."""
    node, parent = read, ctx.parents.get(id(read))
    while not isinstance(parent, gast.stmt):
        if parent is None or isinstance(parent, (gast.Lambda, gast.comprehension, gast.ListComp, gast.SetComp,
                                                 gast.DictComp, gast.GeneratorExp)) \
                or isinstance(parent, gast.BoolOp) and parent.values[0] is not node \
                or isinstance(parent, gast.IfExp) and parent.test is not node:
            return False
        node, parent = parent, ctx.parents.get(id(parent))
    stmt = parent
    if isinstance(stmt, (gast.If, gast.While)) and node is not stmt.test \
            or isinstance(stmt, (gast.For, gast.AsyncFor)) and node is not stmt.iter \
            or isinstance(stmt, (gast.With, gast.AsyncWith)) and not any(node is item for item in stmt.items) \
            or isinstance(stmt, (gast.Try, gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Match,
                                 gast.Assert)):  # (`python -O` runs no `assert`)
        return False
    holder = ctx.parents.get(id(stmt))
    block = next((getattr(holder, f) for f in getattr(holder, "_fields", ()) if isinstance(getattr(holder, f), list)
                  and any(s is stmt for s in getattr(holder, f))), [])
    later = block[next(k for k, s in enumerate(block) if s is stmt) + 1:] if block else []
    up = use
    while up is not None:
        if up is stmt or any(s is up for s in later):
            return True  # (the header of the statement `use` is in, or a statement before it)
        up = ctx.parents.get(id(up))
    return False


def _reaching(ctx, name: gast.Name) -> set[int] | None:
    """The ids of the nodes binding ``name`` where it is read (beniget's reaching definitions),
    or None where they are not known."""
    try:
        found = ctx.definitions_of(name)
    except analysis.WholeModuleNeeded:
        return None
    return {id(d.node) for d in found} or None
