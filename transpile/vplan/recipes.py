"""The vocabulary of a vector plan: values and recipes, after LLVM's VPlan (VPlan.h).

A plan is the ordered list of operations that replaces one loop nest, each over the whole
iteration space. Recipes are frozen records; the builder (:mod:`.build`) makes every decision
they record, and the printers (the pfor and direct backends) only spell them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Value:
    """A named value of the plan.

    Attributes:
        name: the user's name (or the plan's, for a mask).
        stacked: one value per iteration (a leading loop axis per enclosing level), or one
            value for the whole loop (unstacked).
        rank: the rank of one iteration's value where known, else None.
    """

    name: str
    stacked: bool
    rank: int | None = None

    def describe(self) -> str:
        rank = "" if self.rank is None else f", rank {self.rank}"
        return f"{self.name}: {'stacked' if self.stacked else 'unstacked'}{rank}"


@dataclass(frozen=True)
class Recipe:
    """Base of every recipe: the source line, and the mask it runs under (None: every
    iteration)."""

    line: int
    mask: str | None

    kind = "recipe"

    def text(self) -> str:  # pragma: no cover - every recipe overrides it
        raise NotImplementedError

    def format(self) -> str:
        under = f"  [under {self.mask}]" if self.mask else ""
        return f"{self.kind:<10} {self.text()}{under}"


@dataclass(frozen=True)
class Widen(Recipe):
    """``target = expr`` computed for every iteration at once (stacked), or once before the
    loop when nothing in it varies (unstacked: ``hoisted``)."""

    target: str
    expr: str
    stacked: bool
    kind = "widen"

    def text(self):
        return f"{self.target} = {self.expr}" + ("" if self.stacked else "  (unstacked: computed once)")


@dataclass(frozen=True)
class MaskOp(Recipe):
    """A mask from an ``if`` test (``continue`` guards are tests too, negated).

    ``hoisted``: the tests of an ``if``/``elif`` chain whose branches write what a test reads
    are all computed before the first branch, as the loop evaluates each test before its
    branch writes. ``parent``: the enclosing mask this one is combined with (``and``).
    """

    name: str
    test: str
    negated: bool = False
    hoisted: bool = False
    kind = "mask"

    def text(self):
        test = f"not ({self.test})" if self.negated else self.test
        return f"{self.name} = {test}" + ("  (hoisted: the chain writes what it tests)" if self.hoisted else "")


@dataclass(frozen=True)
class Blend(Recipe):
    """The select that replaces a phi after if-conversion: ``name = where(mask, then, else)``.

    ``then``/``otherwise`` are ``"branch"`` (the value the branch bound) or ``"old"`` (the
    value the name had before the ``if``), the explicit old value.
    """

    name: str
    test: str
    then: str
    otherwise: str
    kind = "blend"

    def text(self):
        side = {"branch": "{} of the branch", "old": "old {}"}
        return (f"{self.name} = where({self.test}, {side[self.then].format(self.name)}, "
                f"{side[self.otherwise].format(self.name)})")


@dataclass(frozen=True)
class Reduce(Recipe):
    """``name ⊕= term`` over every iteration: operator, identity and signed term."""

    name: str
    op: str
    term: str
    identity: str | None
    kind = "reduce"

    def text(self):
        ident = f", identity {self.identity}" if self.identity is not None else ", no identity"
        return f"{self.name} <- {self.op} of {self.term}{ident}"


@dataclass(frozen=True)
class Scan(Recipe):
    """``name ⊕= term`` whose running values the body reads: a prefix scan over the terms,
    starting from ``name``'s value before the loop (``inclusive``: reads see this iteration's
    term)."""

    name: str
    op: str
    term: str
    inclusive: bool
    kind = "scan"

    def text(self):
        return (f"{self.name} <- running {self.op} of {self.term} "
                f"({'inclusive' if self.inclusive else 'exclusive'}), {self.name} stacked")


@dataclass(frozen=True)
class ArgReduce(Recipe):
    """``if v > best: best, idx = v, i``: where the extreme of ``value`` was reached (``name``
    None: ``if v > best: best = v``, the extreme alone, which NaN terms never reach)."""

    name: str | None
    value: str
    op: str
    first: bool
    kind = "argreduce"

    def text(self):
        if self.name is None:
            return f"{self.value} <- {self.op} of the terms that beat it (NaN never does)"
        return f"{self.name} <- arg{self.op} of {self.value} ({'first' if self.first else 'last'} on ties)"


@dataclass(frozen=True)
class Collect(Recipe):
    """``name.append(value)``: a map (every iteration), a filter (masked iterations dropped)
    or a select (one append in each branch, blended)."""

    name: str
    value: str
    how: str
    kind = "collect"

    def text(self):
        return f"{self.name} <- {self.how} of {self.value}"


@dataclass(frozen=True)
class Gather(Recipe):
    """A read ``base[index]`` whose index is stacked but not the loop index itself."""

    base: str
    index: str
    kind = "gather"

    def text(self):
        return f"{self.base}[{self.index}]"


@dataclass(frozen=True)
class Scatter(Recipe):
    """A write ``base[index] = value`` (``combine`` None) or ``base[index] ⊕= value``:
    colliding indices combine with the operator's ``np.<ufunc>.at``."""

    base: str
    index: str
    value: str
    combine: str | None
    kind = "scatter"

    def text(self):
        how = "store" if self.combine is None else f"combine with {self.combine}"
        return f"{self.base}[{self.index}] <- {self.value} ({how})"


@dataclass(frozen=True)
class InnerLoop(Recipe):
    """An inner loop: ``vectorized`` (one more loop axis; ``ragged`` when its trip count
    varies per outer iteration, padded and masked) or ``sequential`` (kept as a loop over its
    ``carried`` state)."""

    mode: str
    space: str
    carried: tuple[str, ...] = ()
    ragged: bool = False
    body: tuple[Recipe, ...] = ()
    kind = "loop"

    def text(self):
        extra = " (ragged: padded to the longest and masked)" if self.ragged else ""
        if self.mode == "sequential":
            extra = f" carrying {', '.join(self.carried) or 'nothing'}"
        return f"{self.mode} {self.space}{extra}"


@dataclass(frozen=True)
class Snapshot(Recipe):
    """Node splitting: a copy of ``name`` made before the loop, which the ``reads`` (a later
    statement's reads of elements that a later iteration overwrites) take their values from."""

    name: str
    reads: tuple[str, ...]
    kind = "snapshot"

    def text(self):
        return f"copy of {self.name} before the loop, read by {', '.join(self.reads)}"


@dataclass(frozen=True)
class Opaque(Recipe):
    """A statement the plan keeps whole (a GradientTape block, a TensorArray write)."""

    what: str
    kind = "keep"

    def text(self):
        return self.what


@dataclass(frozen=True)
class Plan:
    """The vector plan of one loop nest: its values and its recipes, in order.

    Attributes:
        line: the loop's line.
        space: the iteration space (``i in range(n)``).
        values: every name the body binds or reads from the loop, stacked or unstacked.
        recipes: the operations, in an order the dependence analysis proved legal.
    """

    line: int
    space: str
    values: tuple[Value, ...]
    recipes: tuple[Recipe, ...] = field(default_factory=tuple)

    def format(self) -> list[str]:
        """The plan as text, one line per recipe (what ``pforge explain --plan`` prints)."""
        lines = [f"plan for the loop at line {self.line}: {self.space}"]
        if self.values:
            lines.append("  values: " + "; ".join(v.describe() for v in self.values))
        lines += _recipe_lines(self.recipes, "  ")
        return lines


def _recipe_lines(recipes, indent) -> list[str]:
    lines = []
    for recipe in recipes:
        lines.append(f"{indent}{recipe.line:>4}  {recipe.format()}")
        if isinstance(recipe, InnerLoop):
            lines += _recipe_lines(recipe.body, indent + "      ")
    return lines
