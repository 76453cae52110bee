"""Per-iteration ranks: where the direct backend learns the rank of each array it batches.

Sources, strongest first: the ``shapes`` option (``--shapes x=2,w=2``, or ranks probed from
``example_inputs()``), ``tf.function(input_signature=[tf.TensorSpec([None, 64])...])``,
annotations (jaxtyping ``Float[tf.Tensor, "n d"]``, or ``x: tf.Tensor  # [n, d]``), and the
docstring's parameter section in Google, numpydoc or Sphinx style (``x: float32 [batch,
features].``, ``x : ndarray of shape (n, d)``, ``:type x: ndarray, shape (n,)``, ``scalar``).
Dimension names, when a source gives them, prove two arrays have the same length
(``x: [batch, d]`` and ``y: [batch, d]``), so ``zip(x, y)`` and ``y[i]`` need no slicing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, replace

import gast


@dataclass(frozen=True)
class Shape:
    """The rank of a value and, when known, a name per dimension (None where unnamed)."""

    rank: int
    dims: tuple[str | None, ...] | None = None
    sequence: bool = False  # a Python list/tuple: must go through asarray before batching
    inferred: bool = False  # inferred from the code's use of it: may be a list, so asarray it
    #: declared by a docstring, which gives the rank but does not say the value is no list
    #: (``array_like``, or nothing): a batched code that takes it as an array checks that
    may_be_list: bool = False
    #: the code itself proves the rank (``range(n)`` takes no array of one axis or more, a
    #: ``tf.function`` input signature rejects another): no run-time check needs to; a rank a
    #: docstring, an annotation, ``--shapes`` or ``--probe`` gives is the user's word, and the
    #: batched code that rests on it checks it first
    proven: bool = False

    def dim(self, k: int) -> str | None:
        if self.dims is None or k >= len(self.dims):
            return None
        return self.dims[k]


_BRACKETS = re.compile(r"\[([^\[\]]*)\]")
_ARG_LINE = re.compile(r"^(\s*)(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


#: the word a bracketed shape follows: a dtype or tensor/array/shape (``float32 [n, d]``,
#: ``tensor of shape [n]``), right before the bracket: in ``float, in [0, 1]`` the bracket
#: is an interval
_ARRAY_WORDS = re.compile(r"\b((b?float|u?int|complex|bool)\d*|tensors?|arrays?|ndarray|shape|size)\s*$", re.I)


def _dims_from_text(text: str) -> Shape | None:
    """``float32 [n, d]`` -> rank 2 with dims ``n, d``; ``scalar`` -> rank 0.

    The bracket must stand alone (``list[int]`` is a type, not a shape) and, unless it opens
    the text, follow a dtype or the word tensor/array/shape.
    """
    match = _BRACKETS.search(text)
    if match is not None:
        before = text[:match.start()]
        if (before and not before[-1].isspace()) or (before.strip() and not _ARRAY_WORDS.search(before)):
            match = None
    if match is None:
        if re.search(r"\bscalar\b", text):
            return Shape(0, ())
        return None
    inner = match.group(1).strip()
    if not inner:
        return Shape(0, ())
    parts = [p.strip() for p in inner.split(",")]
    if any(p in ("...", "") or p.startswith("*") for p in parts):
        return None
    return Shape(len(parts), tuple(p if re.fullmatch(r"[A-Za-z_]\w*", p) else None for p in parts))


_PAREN_SHAPE = re.compile(r"(?:\bshape\s*=?\s*|^\s*)\(([^()]*)\)(?=(?:\s*(?:,|\.|$))|\s+(?:\w+\s+)?"
                          r"(?:nd)?(?:array|array_like|tensor|matrix|vector)s?\b)", re.I)
_SCALAR_TYPE = re.compile(r"(?:float|int|bool|complex|scalar|number|np\.(?:float|int)\d*|numbers?\.\w+)"
                          r"(?:\s*,\s*optional)?", re.I)


#: a description that starts with a scalar type as a word of its own (``float, in [0, 1]``)
_LEADING_SCALAR = re.compile(r"\s*(?:float|int|bool|complex|number)(?:\s*[,.;]|\s*$)", re.I)


def _dims_from_styles(type_name: str | None, description: str | None) -> Shape | None:
    """A shape written as numpydoc, Google or Sphinx docstrings write it.

    ``ndarray of shape (n, d)``, ``(n, d) array_like``, ``ndarray, shape (n,)``,
    ``array of shape (d,)`` (parentheses after the word shape, or before an array word), the
    bracket forms of :func:`_dims_from_text`, and a scalar type (``float``, ``int``).
    """
    for text in (type_name or "", description or ""):
        shape = _dims_from_text(text)
        if shape is not None:
            return shape
        match = _PAREN_SHAPE.search(text)
        if match is not None:
            parts = [p.strip() for p in match.group(1).split(",")]
            if parts and parts[-1] == "":
                parts = parts[:-1]  # (n,) is rank 1
            if not parts or any(p in ("...", "") or p.startswith("*") for p in parts):
                continue
            return Shape(len(parts), tuple(p if re.fullmatch(r"[A-Za-z_]\w*", p) else None for p in parts))
    if type_name and _SCALAR_TYPE.fullmatch(type_name.strip()):
        return Shape(0, ())
    if description and _LEADING_SCALAR.match(description):
        return Shape(0, ())  # Google style with the type leading the text: `gamma: float, the discount.`
    return None


def _styled_docstring_shapes(doc: str, params: set[str]) -> dict[str, Shape]:
    """Shapes from numpydoc, Google and Sphinx parameter sections, read with docstring-parser."""
    import docstring_parser  # noqa: PLC0415 - only rewrites read docstrings this way

    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        return {}
    found = {}
    for param in parsed.params:
        if param.arg_name in params:
            shape = _dims_from_styles(param.type_name, param.description)
            if shape is not None:
                found[param.arg_name] = shape
    return found


def docstring_shapes(fdef: gast.FunctionDef) -> dict[str, Shape]:
    """Shapes from the parameter section of a docstring: Google (``Args:`` with ``x: float32
    [n, d].`` or ``x (np.ndarray): [n, d]``), numpydoc (``x : ndarray of shape (n, d)``,
    ``x : (n, d) array_like``) and Sphinx (``:type x: ndarray, shape (n,)``). The styles are
    told apart by docstring-parser (https://github.com/rr-/docstring_parser).

    >>> import gast
    >>> f = gast.parse('def f(x, s):\\n    \\'\\'\\'Doc.\\n\\n    Args:\\n      x: float32 [n, d].\\n'
    ...                '      s: float32 scalar.\\n    \\'\\'\\'\\n').body[0]
    >>> sorted((k, v.rank, v.dims) for k, v in docstring_shapes(f).items())
    [('s', 0, ()), ('x', 2, ('n', 'd'))]
    """
    if not (fdef.body and isinstance(fdef.body[0], gast.Expr)
            and isinstance(fdef.body[0].value, gast.Constant) and isinstance(fdef.body[0].value.value, str)):
        return {}
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs if isinstance(a, gast.Name)}
    found: dict[str, Shape] = {}
    in_args, indent = False, None
    for line in fdef.body[0].value.value.splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            in_args, indent = True, None
            continue
        if not in_args:
            continue
        if stripped and not line.startswith(" ") or stripped.endswith(":") and stripped[:-1].isalpha():
            in_args = False
            continue
        match = _ARG_LINE.match(line)
        if match is None:
            continue
        if indent is None:
            indent = len(match.group(1))
        if len(match.group(1)) != indent:
            continue
        name = match.group(2)
        if name in params:
            shape = _dims_from_text(match.group(4))
            if shape is not None:
                found[name] = shape
    styled = _styled_docstring_shapes(fdef.body[0].value.value, params)
    return {name: replace(shape, may_be_list=True) if shape.rank else shape
            for name, shape in {**styled, **found}.items()}


def annotation_shapes(fdef: gast.FunctionDef, lines: list[str]) -> dict[str, Shape]:
    """Shapes from jaxtyping annotations and ``# [n, d]`` comments on annotated parameters."""
    found: dict[str, Shape] = {}
    for arg in fdef.args.args + fdef.args.kwonlyargs:
        ann = getattr(arg, "annotation", None)
        if ann is None:
            continue
        if isinstance(ann, gast.Subscript) and isinstance(ann.slice, gast.Tuple) and len(ann.slice.elts) == 2:
            spec = ann.slice.elts[1]
            if isinstance(spec, gast.Constant) and isinstance(spec.value, str):
                parts = spec.value.split()
                if not any(p.startswith(("*", "...", "#")) or p == "..." for p in parts):
                    found[arg.id] = Shape(len(parts), tuple(p if p.isidentifier() else None for p in parts))
                continue
        line = lines[arg.lineno - 1] if 0 < arg.lineno <= len(lines) else ""
        if "#" in line:
            shape = _dims_from_text(line.split("#", 1)[1])
            if shape is not None:
                found[arg.id] = shape
    return found


def signature_shapes(ctx, fdef: gast.FunctionDef) -> dict[str, Shape]:
    """Shapes from ``tf.function(input_signature=[tf.TensorSpec(shape, dtype), ...])``."""
    found: dict[str, Shape] = {}
    for dec in fdef.decorator_list:
        if not isinstance(dec, gast.Call) or ctx.imports.resolve(dec.func) != "tensorflow.function":
            continue
        sig = next((k.value for k in dec.keywords if k.arg == "input_signature"), None)
        if not isinstance(sig, (gast.List, gast.Tuple)):
            continue
        params = [a.id for a in fdef.args.args]
        if params and params[0] == "self":
            params = params[1:]
        for name, spec in zip(params, sig.elts):
            if not isinstance(spec, gast.Call):
                continue
            shape = spec.args[0] if spec.args else next((k.value for k in spec.keywords if k.arg == "shape"), None)
            try:
                value = ast.literal_eval(gast.unparse(shape).strip()) if shape is not None else None
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, (list, tuple)):
                found[name] = Shape(len(value))
    return found


_RANGES = ("builtins.range", "tensorflow.range")
_INT_OPS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)


def range_scalars(ctx, fdef: gast.FunctionDef) -> dict[str, Shape]:
    """Parameters the code proves are scalars: those passed to ``range()`` (or ``tf.range``),
    alone or in integer arithmetic (``range(0, n, inc)``, ``range(window - 1)``).

    ``range`` takes only integers and 0-d arrays (a one-element 1-D array raises), and ``+``,
    ``-``, ``*``, ``//``, ``%`` of an array stay arrays, so every such name has rank 0.
    """
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs if isinstance(a, gast.Name)}
    rebound = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    found: dict[str, Shape] = {}
    for node in _always_evaluated(fdef.body):
        if isinstance(node, gast.Call) and ctx.imports.resolve(node.func) in _RANGES and not node.keywords:
            for arg in node.args:
                for name in _integer_operands(arg) & params - rebound:
                    found[name] = Shape(0, ())
    return found


def _always_evaluated(stmts: list[gast.stmt]):
    """The nodes of ``stmts`` that run wherever the function's body runs through them: not in
    a nested function, lambda or class (another scope, called or not), not under an ``if``,
    ``while``, ``try`` or ``match`` body (which may not run: ``if verbose: range(n)``), not after
    a ``return`` or ``raise`` of their block, and not in an operand that may not be evaluated
    (a conditional expression's branches, an ``and``/``or``'s later operands, a comprehension's
    element and later ``for``s). A ``for`` loop's body counts, as its header does: a range in
    it proves its names for the loops it runs with (helper-72)."""
    for stmt in stmts:
        yield from _evaluated(stmt)
        if isinstance(stmt, (gast.Return, gast.Raise)):
            return


def _evaluated(node):
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
        return
    yield node
    if isinstance(node, (gast.For, gast.AsyncFor)):
        yield from _evaluated(node.target)
        yield from _evaluated(node.iter)
        yield from _always_evaluated(node.body)
    elif isinstance(node, (gast.If, gast.While)):
        yield from _evaluated(node.test)
    elif isinstance(node, (gast.With, gast.AsyncWith)):
        for item in node.items:
            yield from _evaluated(item)
        yield from _always_evaluated(node.body)
    elif isinstance(node, (gast.Try, gast.Match)):
        return
    elif isinstance(node, gast.IfExp):
        yield from _evaluated(node.test)
    elif isinstance(node, gast.BoolOp):
        yield from _evaluated(node.values[0])
    elif isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
        yield from _evaluated(node.generators[0].iter)
    else:
        for child in gast.iter_child_nodes(node):
            yield from _evaluated(child)


def _integer_operands(node) -> set[str]:
    if isinstance(node, gast.Name):
        return {node.id}
    if isinstance(node, gast.BinOp) and isinstance(node.op, _INT_OPS):
        return _integer_operands(node.left) | _integer_operands(node.right)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _integer_operands(node.operand)
    return set()


def parameter_shapes(ctx, fdef: gast.FunctionDef | None, option: dict | None) -> dict[str, Shape]:
    """The known shapes of ``fdef``'s parameters, from every source, strongest last-applied."""
    if fdef is None:
        return {}
    found: dict[str, Shape] = {}
    proofs = range_scalars(ctx, fdef) | signature_shapes(ctx, fdef)
    found.update(proofs)
    found.update(docstring_shapes(fdef))
    found.update(annotation_shapes(fdef, ctx.lines))
    found.update(signature_shapes(ctx, fdef))
    # (a declaration the code proves as well is proven: `n: int` passed to `range`)
    found = {name: replace(shape, proven=True) if name in proofs and proofs[name].rank == shape.rank else shape
             for name, shape in found.items()}
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs if isinstance(a, gast.Name)}
    from pforge.transpile.analysis.nodes import in_a_namesake  # noqa: PLC0415 - analysis imports this module

    namesake = bool(option) and in_a_namesake(ctx, fdef)  # (`f.x` names the outer `f`'s `x`)
    for key, rank in (option or {}).items():
        func, _, name = key.rpartition(".")
        if func and (func != fdef.name or namesake):
            continue
        if name in params and isinstance(rank, tuple) and rank[:1] == ("sequence",):
            found[name] = Shape(rank[1], None, sequence=True)
        elif name in params and isinstance(rank, tuple) and rank[:1] == ("inferred",):
            found.setdefault(name, Shape(rank[1], None, inferred=True))
        elif name in params and isinstance(rank, tuple) and rank[:1] == ("checked",):
            # (a rank whose check the caller writes itself: rank inference's, of an array the loop writes)
            known = found.get(name)
            found[name] = replace(known if known is not None and known.rank == rank[1] else Shape(rank[1]), proven=True)
        elif name in params and isinstance(rank, tuple) and rank[:1] == ("trial",):
            # (another rank, as it were declared where the one given was: what the batched code
            # would be for it, `versioning.widen_declared_ranks`)
            known = found.get(name)
            found[name] = Shape(rank[1]) if known is None else replace(known, rank=rank[1], dims=None)
        elif name in params and isinstance(rank, int):
            known = found.get(name)
            found[name] = known if known is not None and known.rank == rank else Shape(rank)
    return found


def literal_rank(node) -> int | None:
    """The rank of a literal list/tuple of numbers (``[(1, 2), (3, 4)]`` -> 2), else None."""
    if isinstance(node, gast.Constant) and isinstance(node.value, (int, float, bool)):
        return 0
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return literal_rank(node.operand)
    if isinstance(node, (gast.List, gast.Tuple)) and node.elts:
        ranks = {literal_rank(e) for e in node.elts}
        if len(ranks) == 1 and None not in ranks:
            return ranks.pop() + 1
    return None


def parse_shapes_option(text: str) -> dict[str, int]:
    """``"x=2,w=2"`` -> ``{"x": 2, "w": 2}`` (a name may be qualified: ``f.x=2``).

    Raises:
        ValueError: an entry that is not ``NAME=RANK``.
    """
    found: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, rank = part.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][\w.]*", name.strip()) or not rank.strip().isdigit():
            raise ValueError(f"--shapes: expected NAME=RANK, got {part!r}")
        found[name.strip()] = int(rank)
    return found


def unknown_shape_names(source: str, shapes: dict) -> list[str]:
    """The keys of a ``--shapes`` option that name nothing in ``source``: a key ``x`` must be a
    parameter or a local variable of some function, ``f.x`` one of the function ``f``.

    Args:
        source: the module's text (already known to parse).
        shapes: ``{"x": 2, "f.w": 1}``.
    Returns:
        The unknown keys, in the option's order.
    """
    tree = ast.parse(source)
    names: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
            bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
            bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            names.setdefault(node.name, set()).update(bound)
    everywhere = set().union(*names.values()) if names else set()
    unknown = []
    for key in shapes:
        func, _, name = key.rpartition(".")
        if name not in (names.get(func, set()) if func else everywhere):
            unknown.append(key)
    return unknown


def free_shapes(fdef: gast.FunctionDef | None, option: dict | None) -> dict[str, Shape]:
    """Ranks the ``shapes`` option gives to what ``fdef`` reads but never binds: closure
    variables and module globals (``f.k``), and attributes of a name (``f.self.w``).

    ``pforge.vectorize`` passes them: at a call it knows the value of every closure cell,
    global and instance attribute the function reads. Keys are qualified by the function
    (``f.``); ``Shape.sequence`` marks a Python list.
    """
    if fdef is None or not option:
        return {}
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs if isinstance(a, gast.Name)}
    stored = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    found = {}
    for key, rank in option.items():
        func, _, name = key.partition(".")
        if func != fdef.name or not name:
            continue
        base, _, attr = name.partition(".")
        if base in stored or "." in attr or (not attr and base in params):
            continue  # a name the function binds (or an attribute of one); a parameter
        if isinstance(rank, int):
            found[name] = Shape(rank)
        elif isinstance(rank, tuple) and rank[:1] == ("sequence",):
            found[name] = Shape(rank[1], None, sequence=True)
    return found


def local_shapes(fdef: gast.FunctionDef | None, option: dict | None) -> dict[str, Shape]:
    """Ranks the ``shapes`` option gives to local variables of ``fdef`` (``--shapes h=1`` or
    ``--shapes f.h=1``); parameters are :func:`parameter_shapes`' business."""
    if fdef is None:
        return {}
    params = {a.id for a in fdef.args.args + fdef.args.kwonlyargs if isinstance(a, gast.Name)}
    stored = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    found = {}
    for key, rank in (option or {}).items():
        func, _, name = key.rpartition(".")
        if (not func or func == fdef.name) and name in stored - params and isinstance(rank, int):
            found[name] = Shape(rank)
        elif (not func or func == fdef.name) and name in stored - params and isinstance(rank, tuple) \
                and rank[:1] == ("inferred",):
            found[name] = Shape(rank[1], None, inferred=True)
    return found
