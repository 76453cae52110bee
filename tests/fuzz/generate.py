"""Generates random loop programs whose verdict is known by construction (Csmith-style).

A program is one function with one ``for`` loop over an index ``i``, whose body is a
sequence of *fragments*. Each fragment is a small idiom (a map, a branch that tests what it
writes, a reduction written one of many ways, a scatter-add with repeated indices, a nest
with a carried inner loop, a planted dependence, ...) and says what a correct analysis must
decide about it:

- ``vectorize``: the iterations are independent; a rewrite is expected (when ranks are known)
  and must behave like the loop;
- ``either``: independent only after statement reordering, or a recurrence with a parallel
  form (a scan); refusing is right, and so is a rewrite that behaves like the loop;
- ``refuse``: a planted loop-carried dependence or effect (a carried scalar, a previous
  output, an in-place stencil, colliding writes, ``break``/``return``, ``print``, global and
  attribute writes, random draws, aliased views and list rows); calling it vectorizable is a
  wrong verdict.

A program's verdict is the strictest of its fragments'. Programs are built from a
``random.Random`` seeded with the program's number, so a seed reproduces a program exactly,
and the reducer (:mod:`tests.fuzz.reduce`) can drop fragments and re-render.

The approach follows Csmith (Yang et al., "Finding and Understanding Bugs in C Compilers",
PLDI 2011): generate programs whose meaning is defined, run them through the compiler under
test and through a reference (here the loop itself), and compare every observable.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

VECTORIZE, EITHER, REFUSE = "vectorize", "either", "refuse"
_STRICTNESS = {VECTORIZE: 0, EITHER: 1, REFUSE: 2}

#: Inputs every program may read. ``n`` is the trip count, ``m`` an inner extent.
#: name -> (rank, kind) with kind one of float, int (indices into [0, n)), scalar.
INPUTS = {
    "x": (1, "float"), "y": (1, "float"), "d": (1, "float"), "idx": (1, "index"),
    "m2": (2, "float"), "c": (0, "scalar"), "box": (None, "object"), "g": (2, "grid"),
    "shp": (None, "shape"),
}


@dataclass(frozen=True)
class Fragment:
    """One idiom of a loop body.

    Attributes:
        kind: a short label (``reduction s -= t``), used to count outcomes by kind.
        expect: ``vectorize``, ``either`` or ``refuse`` (see the module docstring).
        body: the lines inside the loop, indented relative to the body.
        setup: lines before the loop (function level).
        after: lines after the loop, before the ``return``.
        outputs: the expressions returned (function level, after ``after``).
        reads: the inputs it reads (keys of ``INPUTS``).
        back, ahead: the largest offsets ``i - back`` / ``i + ahead`` it indexes inputs at,
            so the loop's range keeps every access in bounds.
        lists_ok: the fragment still runs when ``x`` and ``y`` are Python lists.
        first: the fragment must be the first of the body (a ``continue`` guard).
        globals: module-level names the function declares ``global``.
        helpers: module-level lines before ``def f`` (a helper function it calls).
        fast_math: the program is transpiled with ``fast_math=True`` (``--fast-math``).
    """

    kind: str
    expect: str
    body: tuple[str, ...]
    setup: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    reads: frozenset[str] = frozenset()
    back: int = 0
    ahead: int = 0
    lists_ok: bool = True
    first: bool = False
    globals: tuple[str, ...] = ()
    helpers: tuple[str, ...] = ()
    fast_math: bool = False


@dataclass(frozen=True)
class Program:
    """A generated loop program.

    Attributes:
        seed: the number it was generated from.
        library: ``numpy`` or ``tensorflow``.
        fragments: the body, in order.
        descending: the loop counts down (``range(hi, lo - 1, -1)``, or ``reversed(range(lo, hi + 1))``
            with ``spelled_reversed``).
        by_len: the trip count is ``len(x)`` (always for NumPy), not ``x.shape[0]``, so the loop
            accepts Python lists.
    """

    seed: int
    library: str
    fragments: tuple[Fragment, ...]
    descending: bool = False
    by_len: bool = True
    spelled_reversed: bool = False

    @property
    def expect(self) -> str:
        return max((f.expect for f in self.fragments), key=_STRICTNESS.__getitem__)

    @property
    def fast_math(self) -> bool:
        return any(f.fast_math for f in self.fragments)

    @property
    def memory_bound(self) -> float | None:
        """The ``memory_bound`` it is transpiled with: for half the programs one byte, so that a
        strip-mined rewrite runs one row per strip (the fuzzer's inputs are far below the
        default bound, which would make every strip the whole range)."""
        return 2.0 ** -20 if random.Random(self.seed * 17 + 3).random() < 0.5 else None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(f.kind for f in self.fragments)

    @property
    def params(self) -> tuple[str, ...]:
        used = set().union(*(f.reads for f in self.fragments)) | {"x"}
        return tuple(name for name in INPUTS if name in used)

    @property
    def lists_ok(self) -> bool:
        if self.library == "tensorflow" and (not self.by_len or "idx" in self.params):
            return False  # a list indexed by a tensor raises in the loop itself
        return all(f.lists_ok for f in self.fragments)

    def source(self) -> str:
        """The program as a module: imports, globals, and ``def f(...)``."""
        np = self.library == "numpy"
        lines = ["import math", "", "import numpy as np"] if np else ["import tensorflow as tf"]
        lines.append("")
        globals_ = sorted({g for f in self.fragments for g in f.globals})
        lines += [f"{g} = 0" for g in globals_]
        if globals_:
            lines.append("")
        for frag in self.fragments:
            if frag.helpers:
                lines += list(frag.helpers) + ["", ""]
        lines.append(f"def f({', '.join(self.params)}):")
        if globals_:
            lines.append(f"    global {', '.join(globals_)}")
        back = max(f.back for f in self.fragments)
        ahead = max(f.ahead for f in self.fragments)
        length = "len(x)" if np or self.by_len else "x.shape[0]"
        stop = f"{length} - {ahead}" if ahead else length
        # the index of the iteration before the first (a start `w = x[-1]` is `E` of it)
        before = f"({stop})" if self.descending else str(back - 1)
        for frag in self.fragments:
            lines += [f"    {line}".replace("__BEFORE__", before) for line in frag.setup]
        if self.descending and self.spelled_reversed:
            lines.append(f"    for i in reversed(range({back}, {stop})):" if back else f"    for i in reversed(range({stop})):")
        elif self.descending:
            lines.append(f"    for i in range({stop} - 1, {back - 1}, -1):")
        else:
            lines.append(f"    for i in range({back}, {stop}):" if back else f"    for i in range({stop}):")
        for frag in self.fragments:
            lines += [f"        {line}" for line in frag.body]
        for frag in self.fragments:
            lines += [f"    {line}" for line in frag.after]
        outputs = [o for f in self.fragments for o in f.outputs]
        lines.append(f"    return {', '.join(outputs)}" if outputs else "    return None")
        return "\n".join(lines) + "\n"

    def without(self, index: int) -> "Program":
        return replace(self, fragments=self.fragments[:index] + self.fragments[index + 1:])


@dataclass
class _Builder:
    """Draws expressions and fragments for one program; ``k`` numbers the fragment's names."""

    rng: random.Random
    library: str
    descending: bool = False
    k: int = 0
    reads: set[str] = field(default_factory=set)
    back: int = 0
    ahead: int = 0
    #: fragment number -> its TensorFlow list is built from the front (``insert(0, e)``)
    front: dict[int, bool] = field(default_factory=dict)

    @property
    def np(self) -> bool:
        return self.library == "numpy"

    @property
    def lib(self) -> str:
        return "np" if self.np else "tf"

    # -- expressions ----------------------------------------------------------------------------

    def atom(self, shifted: bool = True) -> str:
        r = self.rng.random()
        if r < 0.35:
            return "x[i]"
        if r < 0.55:
            self.reads.add("y")
            return "y[i]"
        if r < 0.65 and shifted:
            off = self.rng.choice((1, 2))
            if self.rng.random() < 0.5:
                self.back = max(self.back, off)
                return f"x[i - {off}]"
            self.ahead = max(self.ahead, off)
            return f"x[i + {off}]"
        if r < 0.75:
            self.reads.add("c")
            return "c"
        if r < 0.82 and self.np:
            return "i"
        if r < 0.86 and self.np:  # an element of the matrix through an ellipsis
            self.reads.add("m2")
            return self.rng.choice(("m2[i, ..., 0]", "m2[i][..., -1]", "m2[..., 0][i]", "m2[i, ...][-1]",
                                    "m2[..., i, 0]"))
        return self.rng.choice(("2.0", "0.5", "1.5", "3.0"))

    def expr(self, depth: int = 2) -> str:
        """A per-iteration float expression over the inputs at ``i`` (and shifted reads)."""
        if depth <= 0 or self.rng.random() < 0.3:
            return self.atom()
        r = self.rng.random()
        if r < 0.55:
            op = self.rng.choice(("+", "-", "*", "-", "+"))
            return f"({self.expr(depth - 1)} {op} {self.expr(depth - 1)})"
        if r < 0.7:
            return f"-{self.expr(depth - 1)}"
        if r < 0.85:
            fn = self.rng.choice(("abs", "tanh", "sin"))
            if self.np and fn != "abs" and self.rng.random() < 0.3:  # a Python `math` call
                return f"math.{fn}({self.expr(depth - 1)})"
            return f"{self.lib}.{fn}({self.expr(depth - 1)})"
        fn = self.rng.choice(("maximum", "minimum"))
        return f"{self.lib}.{fn}({self.expr(depth - 1)}, {self.expr(depth - 1)})"

    def test(self) -> str:
        cmp = self.rng.choice((">", "<", ">=", "<="))
        bound = self.rng.choice(("0.0", "0.5", "-0.5", "c"))
        if bound == "c":
            self.reads.add("c")
        return f"{self.expr(1)} {cmp} {bound}"

    # -- fragments -----------------------------------------------------------------------------

    def fragment(self, kind: str) -> Fragment:
        self.k += 1
        self.reads, self.back, self.ahead = set(), 0, 0
        frag = getattr(self, "_" + kind.replace("-", "_"))(self.k)
        reads = frozenset(self.reads | set(frag.reads))
        return replace(frag, reads=reads, back=max(self.back, frag.back), ahead=max(self.ahead, frag.ahead))

    def _out(self, k):
        if self.np:
            if self.rng.random() < 0.25:  # sized by a shape the code does not show the length of
                return (f"o{k} = np.zeros(np.shape(x))",), f"o{k}"
            if self.rng.random() < 0.12:  # by a shape argument: `n`, `(n,)`, `[n]`, or rows `(n, 2)`
                self.reads.add("shp")
                return (f"o{k} = np.zeros(shp)",), f"o{k}"
            return (f"o{k} = np.zeros(len(x))",), f"o{k}"
        return (f"o{k} = []",), f"o{k}"

    def _write(self, k, value):
        if self.np:
            return f"o{k}[i] = {value}"
        # (every item put at the front, `o.insert(0, e)`: the stack reversed)
        return f"o{k}.insert(0, {value})" if self._front(k) else f"o{k}.append({value})"

    def _front(self, k) -> bool:
        """Whether fragment ``k``'s list takes its items at the front (one draw per fragment)."""
        return self.front.setdefault(k, self.rng.random() < 0.15)

    def _result(self, k):
        return (f"o{k}",) if self.np else (f"tf.stack(o{k})",)

    def _map(self, k):
        setup, _ = self._out(k)
        return Fragment("map", VECTORIZE, (self._write(k, self.expr()),), setup, outputs=self._result(k))

    def _private(self, k):
        setup, _ = self._out(k)
        return Fragment("private", VECTORIZE,
                        (f"t{k} = {self.expr()}", self._write(k, f"t{k} * {self.expr(1)} + t{k}")),
                        setup, outputs=self._result(k))

    def _branch(self, k):
        """if/elif/else assigning a private on every path."""
        setup, _ = self._out(k)
        body = [f"if {self.test()}:", f"    v{k} = {self.expr()}"]
        if self.rng.random() < 0.5:
            body += [f"elif {self.test()}:", f"    v{k} = {self.expr()}"]
        body += ["else:", f"    v{k} = {self.expr()}", self._write(k, f"v{k}")]
        return Fragment("if/elif/else private", VECTORIZE, tuple(body), setup, outputs=self._result(k))

    def _branch_partial(self, k):
        """A private assigned and read on one path only."""
        setup, _ = self._out(k)
        body = (f"if {self.test()}:", f"    p{k} = {self.expr()}", f"    {self._write(k, f'p{k} * 2.0')}")
        if not self.np:
            body += ("else:", f"    {self._write(k, '0.0')}")
        return Fragment("private on one path", VECTORIZE, body, setup, outputs=self._result(k))

    def _branch_inplace(self, k):
        """if/elif/else that tests the array it writes (NumPy: ``d`` updated in place)."""
        if not self.np:
            return self._branch(k)
        t = self.rng.choice((">", "<"))
        body = [f"if d[i] {t} 0:", f"    d[i] = {self.expr(1)}"]
        if self.rng.random() < 0.6:
            bound = self.rng.choice(("0.5", "-0.5", "c"))
            if bound == "c":
                self.reads.add("c")
            body += [f"elif d[i] {t} {bound}:", "    d[i] = -d[i]"]
        if self.rng.random() < 0.8:
            body += ["else:", f"    d[i] = d[i] * 2.0 + {self.expr(1)}"]
        return Fragment("if/elif/else on what it writes", VECTORIZE, tuple(body), outputs=("d",),
                        reads=frozenset({"d"}))

    def _filter(self, k):
        """A collector appended to under a per-iteration test only (a filter); in NumPy code
        also returned as the list itself, whose items must keep the loop's types."""
        if self.np and self.rng.random() < 0.4:
            body = (f"if {self.test()}:", f"    f{k}.append({self.expr()})") if self.rng.random() < 0.5 \
                else (f"f{k}.append({self.expr()})",)
            if self.rng.random() < 0.4:  # items before the loop and after it: the list is extended
                return Fragment("list extended", VECTORIZE, body, (f"f{k} = [0.5]",), after=(f"f{k}.append(c)",),
                                outputs=(f"f{k}",), reads=frozenset({"c"}))
            return Fragment("list used as a list", VECTORIZE, body, (f"f{k} = []",), outputs=(f"f{k}",))
        consumer = "np.array" if self.np else "tf.stack"
        if self.rng.random() < 0.3:  # built from the front: the filtered items last first
            return Fragment("filter from the front", VECTORIZE, (f"if {self.test()}:", f"    f{k}.insert(0, {self.expr()})"),
                            (f"f{k} = []",), outputs=(f"{consumer}(f{k})",))
        return Fragment("filter", VECTORIZE, (f"if {self.test()}:", f"    f{k}.append({self.expr()})"),
                        (f"f{k} = []",), outputs=(f"{consumer}(f{k})",))

    def _pack(self, k):
        """A pack (stream compaction into an array by a counter): ``if t: j += 1; p[j] = v``, or
        the write first, from a start that may be negative (the loop then writes from the end:
        the rewrite's check sends it to the loop) into an array that may be too short (the loop
        raises). Look-alikes that stay loops: the counter read elsewhere, the increment and the
        write under two tests, two steps per count."""
        if not self.np:
            return self._filter(k)
        start, extra = self.rng.choice(("0", "-1", "2", "-3")), self.rng.choice(("0", "3"))
        setup = (f"p{k} = np.zeros(len(x) + {extra})", f"j{k} = {start}")
        write, count = f"p{k}[j{k}] = {self.expr()}", f"j{k} += 1"
        r = self.rng.random()
        if r < 0.15:
            return Fragment("pack look-alike: counter read", REFUSE,
                            (f"if {self.test()}:", f"    {count}", f"    p{k}[j{k}] = j{k} * 0.5"), setup,
                            outputs=(f"p{k}", f"j{k}"))
        if r < 0.25:
            return Fragment("pack look-alike: two tests", REFUSE,
                            (f"if {self.test()}:", f"    {count}", f"if {self.test()}:", f"    {write}"), setup,
                            outputs=(f"p{k}", f"j{k}"))
        if r < 0.3:
            return Fragment("pack look-alike: two steps", REFUSE,
                            (f"if {self.test()}:", f"    {write}", f"    j{k} += 2"), setup, outputs=(f"p{k}", f"j{k}"))
        body = (count, write) if self.rng.random() < 0.5 else (write, count)
        return Fragment("pack", EITHER, (f"if {self.test()}:",) + tuple("    " + b for b in body), setup,
                        outputs=(f"p{k}", f"j{k}"))

    def _guard(self, k):
        """``continue`` under a per-iteration test, first in the body."""
        return Fragment("continue guard", VECTORIZE, (f"if {self.test()}:", "    continue"), first=True)

    def _reduction(self, k):
        a, b = self.expr(1), self.expr(1)
        form = self.rng.choice(("s += a - b", "s = s - t", "s = t + s", "s -= t", "s += t",
                                "s = s + a - b", "s -= a - b", "s = max(s, t)", "s = min(s, t)",
                                "s *= t", "s = s * t", "s = np.logaddexp(s, t)", "s = s - a - b", "s = s * t * t"))
        if "logaddexp" in form:  # a log-space sum (NumPy only); TensorFlow gets a plain sum
            if not self.np:
                return Fragment("reduction s += t", VECTORIZE, (f"s{k} += {b}",), (f"s{k} = 0.0",),
                                outputs=(f"s{k}",))
            return Fragment(f"reduction {form}", VECTORIZE, (f"s{k} = np.logaddexp(s{k}, {b})",),
                            (f"s{k} = -np.inf",), outputs=(f"s{k}",))
        init = {"max": "-1e9", "min": "1e9", "*": "1.0"}
        start = next((v for key, v in init.items() if key in form), "0.0")
        if "*" in form:
            b = f"(1.0 + 0.1 * {self.lib}.tanh({a}))"
        template = form.replace("s", "{s}").replace("a - b", "{a} - {b}").replace("t", "{b}")
        if form == "s = s * t * t":  # (a product chain: two factors near 1)
            template = "{s} = {s} * {b} * (1.0 + 0.1 * " + self.lib + ".tanh({a}))"
        if not self.np:
            template = template.replace("max(", "tf.maximum(").replace("min(", "tf.minimum(")
        stmt = template.format(s=f"s{k}", a=a, b=b)
        return Fragment(f"reduction {form}", VECTORIZE, (stmt,), (f"s{k} = {start}",), outputs=(f"s{k}",))

    def _scan(self, k):
        """A running value the body also reads (a prefix scan), read after its update
        (inclusive), before it (exclusive) or both; a first-order linear recurrence
        (``s = a * s + t``); or a look-alike: the update under an ``if``,
        a term computed in the body that an earlier read would need, a nonlinear or
        second-order recurrence."""
        t = self.expr(1)
        form = self.rng.choice(("s += t", "s = s + t", "s = t + s", "s -= t", "s = s - t", "s *= t",
                                "s = lib.maximum(s, t)", "s = lib.minimum(s, t)", "s = lib.maximum(t, s)",
                                "s = s + t + u", "s = s - t + u"))  # (update chains: terms added first)
        start = {"*": "1.0", "maximum": "-1e9", "minimum": "1e9"}
        # (0.1 is no float32: a start converted through float32 would be off in float64 code)
        init = next((v for key, v in start.items() if key in form), self.rng.choice(("0.0", "1.5", "0", "0.1")))
        if "*" in form:
            t = f"(1.0 + 0.1 * {self.lib}.tanh({t}))"
        s = f"s{k}"
        u = self.expr(1) if "u" in form.split() else ""
        update = " ".join({"s": s, "t": t, "u": u, "s,": f"{s},", "t)": f"{t})"}.get(word, word) for word in form.split())
        update = update.replace("lib.maximum(s,", f"{self.lib}.maximum({s},").replace(
            "lib.minimum(s,", f"{self.lib}.minimum({s},")
        if form == "s = lib.maximum(t, s)":  # the term first: the zero's sign is the loop's own
            update = f"{s} = {self.lib}.maximum({t}, {s})"
        read = self.rng.choice((f"{s}", f"{s} * 2.0", f"{s} - {self.expr(0)}"))
        if self.np:
            setup, write = (f"{s} = {init}", f"o{k} = np.zeros(len(x))"), f"o{k}[i] = {read}"
            outputs = (f"o{k}", s)
        else:
            setup, write = (f"{s} = {init}", f"o{k} = []"), self._write(k, read)
            # the list stacked as it was appended, or reversed (`tf.stack(o[::-1])`, the loop
            # counting down: rewards-to-go in the rewards' order)
            outputs = (f"tf.stack(o{k}{'[::-1]' if self.rng.random() < 0.3 else ''})", s)
        r = self.rng.random()
        if r < 0.2:  # a first-order linear recurrence, read after its update or only after the loop
            coef = self.rng.choice(("0.5", "c", f"{self.lib}.tanh(x[i])", "(1.0 - 0.25)", f"{self.lib}.sin(y[i])"))
            self.reads.add("c" if coef == "c" else "y" if "y[" in coef else "x")
            first = ()
            if self.rng.random() < 0.3:  # the term computed first (forward substitution into a tf.scan step)
                first, t = (f"u{k} = {t}",), f"u{k}"
            spelled = self.rng.choice((f"{s} = {coef} * {s} + {t}", f"{s} = {s} * {coef} - {t}",
                                       f"{s} = {t} + {coef} * {s}", f"{s} = {t} - {s} * {coef}",
                                       # (the running value one factor of a product: `gamma * s * mask`)
                                       f"{s} = {t} + 0.5 * {s} * {coef}"))
            body = first + ((spelled, write) if self.rng.random() < 0.7 else (spelled,))
            written = write in body
            if written and self.rng.random() < 0.5:
                outputs = outputs[:1]  # (the values only: TensorFlow scans them whatever their rank)
            return Fragment("linear recurrence", EITHER, body, setup if written else setup[:1],
                            outputs=outputs if written else (s,))
        if r < 0.45:
            return Fragment(f"scan {form}, inclusive", EITHER, (update, write), setup, outputs=outputs)
        if r < 0.7:
            return Fragment(f"scan {form}, exclusive", EITHER, (write, update), setup, outputs=outputs)
        if r < 0.8:
            return Fragment("scan, both reads", EITHER, (write, update, write.replace(f"o{k}", f"p{k}")),
                            (*setup, setup[1].replace(f"o{k}", f"p{k}")),
                            outputs=(*outputs, outputs[0].replace(f"o{k}", f"p{k}")))
        if r < 0.87:
            return Fragment("scan under an if", EITHER, (f"if {self.test()}:", f"    {update}", write), setup,
                            outputs=outputs)
        if r < 0.93:
            return Fragment("scan of a term the body computes, read first", EITHER,
                            (f"t{k} = {t}", write, f"{s} += t{k}"), setup, outputs=outputs)
        if r < 0.97:
            return Fragment("nonlinear recurrence", REFUSE, (f"{s} = {s} * {s} * 0.5 + {t}", write), setup,
                            outputs=outputs)
        return Fragment("second-order recurrence", REFUSE,
                        (f"{s}, q{k} = q{k}, {s} * 0.5 + q{k} * 0.25 + {t}", write), (*setup, f"q{k} = 1.0"),
                        outputs=outputs)

    def _tuple_reduction(self, k):
        """``s, q = s + a, q + b``: two reductions in one statement; or a look-alike whose
        values read each other's names (a second-order recurrence)."""
        a, b = self.expr(1), self.expr(1)
        if self.rng.random() < 0.3:
            return Fragment("tuple recurrence", REFUSE, (f"s{k}, q{k} = q{k} + {a}, s{k} * 0.5",),
                            (f"s{k}, q{k} = 0.0, 1.0",), outputs=(f"s{k}", f"q{k}"))
        return Fragment("tuple reductions", VECTORIZE, (f"s{k}, q{k} = s{k} + {a}, {b} + q{k}",),
                        (f"s{k}, q{k} = 0.0, 1.0",), outputs=(f"s{k}", f"q{k}"))

    def _stack_axis(self, k):
        """NumPy rows collected and stacked or joined along another axis (linspace rows or pairs)."""
        if not self.np:
            return self._map(k)
        a, b = self.expr(1), self.expr(1)
        item = self.rng.choice((f"np.linspace({a}, {b}, 3)", f"np.stack([{a}, {b}])",
                                f"np.linspace({a}, 1.5, 4, endpoint=False)"))
        consumer = self.rng.choice((f"np.stack(c{k}, axis=1)", f"np.stack(c{k}, axis=-1)",
                                    f"np.concatenate(c{k}, axis=0)", f"np.stack(c{k})"))
        return Fragment("rows stacked on another axis", VECTORIZE, (f"c{k}.append({item})",),
                        (f"c{k} = []",), outputs=(consumer,))

    def _count(self, k):
        """``n += 1`` under a test; in TensorFlow code also a mean, ``t / n``, where the loop's count
        is a Python int: counted on every iteration it is the trip count, under a test the loop
        stays (a batched count would be an int32 tensor, which a float tensor cannot divide); the
        oracle's run of both is the check."""
        if self.np or self.rng.random() < 0.5:
            return Fragment("count", VECTORIZE, (f"if {self.test()}:", f"    n{k} += 1"), (f"n{k} = 0",),
                            outputs=(f"n{k}",))
        term = self.expr(1)
        if self.rng.random() < 0.5:
            return Fragment("mean with a Python count", VECTORIZE, (f"t{k} += {term}", f"n{k} += 1"),
                            (f"t{k}, n{k} = tf.zeros([]), 0",), outputs=(f"t{k} / (n{k} + 1)",))
        return Fragment("mean with a Python count under a test", EITHER,  # (the printers keep the loop)
                        (f"if {self.test()}:", f"    t{k} += {term}", f"    n{k} += 1"),
                        (f"t{k}, n{k} = tf.zeros([]), 0",), outputs=(f"t{k} / (n{k} + 1)",))

    def _argmax(self, k):
        """``if v > best: best = v; at = i``: with ties (rounded terms) one time in two, a start
        value no term may beat one time in five, and the element recorded instead of the index;
        sometimes no index at all (``if v > best: best = v``), from a start that may be NaN."""
        cmp = self.rng.choice((">", ">=", "<", "<="))
        start = "-1e9" if cmp in (">", ">=") else "1e9"
        if self.rng.random() < 0.2:
            start = "1e9" if cmp in (">", ">=") else "-1e9"  # nothing beats it: both keep their values
        value = self.expr(1)
        if self.rng.random() < 0.5:
            value = f"{self.lib}.round({value})"  # ties: the first (`>`) or last (`>=`) wins
        index = "i"
        if self.np and self.rng.random() < 0.3:
            index = "x[i]"
            self.reads.add("x")
        if self.rng.random() < 0.3:  # no index: the extreme of the terms that beat the start
            if self.rng.random() < 0.5:
                start = self.rng.choice(("x[0]", "float('nan')", "0.0"))
                self.reads.add("x")
            body = (f"v{k} = {value}", f"if v{k} {cmp} best{k}:", f"    best{k} = v{k}")
            return Fragment(f"if-reduction {cmp}", VECTORIZE, body, (f"best{k} = {start}",), outputs=(f"best{k}",))
        body = (f"v{k} = {value}", f"if v{k} {cmp} best{k}:", f"    best{k} = v{k}", f"    at{k} = {index}")
        if self.np and self.rng.random() < 0.3:  # more values taken where it is reached
            extra = self.rng.choice((f"{self.expr(1)} * 2.0", "m2[i]", "c", "'found'"))
            if "m2" in extra:
                self.reads.add("m2")
            return Fragment(f"arg reduction {cmp} with payloads", VECTORIZE, body + (f"    w{k} = {extra}",),
                            (f"best{k} = {start}", f"at{k} = -1", f"w{k} = None"), outputs=(f"best{k}", f"at{k}", f"w{k}"))
        return Fragment(f"arg reduction {cmp}", VECTORIZE, body, (f"best{k} = {start}", f"at{k} = -1"),
                        outputs=(f"best{k}", f"at{k}"))

    def _masked_write(self, k):
        """``sel = np.where(cond on y)``; ``q[i, sel] = f(y[sel])``: a write at the positions a
        per-iteration mask selects, sometimes under a per-iteration ``if`` (NumPy only)."""
        if not self.np:
            return self._map(k)
        self.reads.update({"x", "y"})
        cond = self.rng.choice(("np.logical_and(x[i] - 0.5 < y, y < x[i] + 0.5)", "y > x[i]", "y <= c"))
        if "c" in cond.split():
            self.reads.add("c")
        value = self.rng.choice(("2.0 * (y[sel{k}] - x[i])", "1.0", "y[sel{k}] * y[sel{k}] + x[i]")).format(k=k)
        columns = self.rng.random() < 0.3  # `q[sel, i]`: the loop index on the second axis
        write = f"q{k}[sel{k}, i] = {value}" if columns else f"q{k}[i, sel{k}] = {value}"
        body = [f"sel{k} = np.where({cond})" if self.rng.random() < 0.5 else f"sel{k} = {cond}"]
        if self.rng.random() < 0.3:
            body += [f"if x[i] > 0.0:", f"    {write}"]
        else:
            body.append(write)
        if self.rng.random() < 0.3:  # a second mask on the same name, written after the first
            body += [f"sel{k} = np.where(y < x[i])", f"q{k}[sel{k}, i] = -1.0" if columns else f"q{k}[i, sel{k}] = -1.0"]
        shape = "(len(y), len(x))" if columns else "(len(x), len(y))"
        return Fragment("masked write", VECTORIZE, tuple(body), (f"q{k} = np.zeros({shape})",),
                        outputs=(f"q{k}",), lists_ok=False)

    def _selection(self, k):
        """``len(x[x > x[i]])``, ``np.mean(y[mask])``, ``np.sum(m2[np.where(m2 > t)])``: an
        invariant array selected by a per-iteration boolean mask, read by a count, sum or mean
        (NumPy only)."""
        if not self.np:
            return self._map(k)
        setup, _ = self._out(k)
        base = self.rng.choice(("x", "y", "m2"))
        self.reads.update({base, "x"})
        test = f"{base} {self.rng.choice(('>', '<=', '<'))} x[i]"
        if self.rng.random() < 0.25:  # a band of the array's own elements, `~` of a test
            test = f"({base} > x[i] - 1.0) & ~({base} > x[i] + c)"
            self.reads.add("c")
        mask = test if self.rng.random() < 0.6 else f"np.where({test})"
        how = self.rng.choice(("len", "np.sum", "np.mean", "count", "ragged"))
        if how == "ragged":  # a slice whose bounds differ per iteration, negative ones included
            self.reads.add("idx")
            lo = self.rng.choice(("idx[i]", "idx[i] - 2", "", "i"))
            hi = self.rng.choice(("idx[i] + 1", "", "-idx[i]", "i + 1")) if lo else "idx[i]"
            if self.rng.random() < 0.5:
                self.reads.add("m2")
                fn = self.rng.choice(("np.sum", "np.mean"))
                body = (f"r{k} = {fn}(m2[:, {lo}:{hi}], axis=1)",
                        self._write(k, f"r{k}[0] if len(r{k}) > 0 else 0.0"))
            else:
                body = (self._write(k, f"np.sum({base if base != 'm2' else 'x'}[{lo}:{hi}])"),)
            return Fragment("selection ragged slice", VECTORIZE, body, setup, outputs=self._result(k),
                            lists_ok=False)
        if how == "count":
            body = (f"sel{k} = {base}[{mask}]", self._write(k, f"len(sel{k}) + np.sum(sel{k})"))
        elif how == "np.mean":  # an empty selection's mean is NaN (with a warning) in both
            body = (f"sel{k} = {base}[{mask}]",
                    self._write(k, f"np.mean(sel{k}) if len(sel{k}) > 0 else 0.0"))
        else:
            body = (self._write(k, f"{how}({base}[{mask}])"),)
        return Fragment(f"selection {how}", VECTORIZE, body, setup, outputs=self._result(k), lists_ok=False)

    def _gather(self, k):
        setup, _ = self._out(k)
        return Fragment("gather", VECTORIZE, (self._write(k, f"x[idx[i]] * {self.expr(1)}"),), setup,
                        outputs=self._result(k), reads=frozenset({"idx"}))

    def _window(self, k):
        """``o[i] = np.sum(x[i - 1:i + 2])``: a sliding window, inside the array on every
        iteration (the loop's range keeps it there) or, one time in three, not (a window cut
        short at an end, or one wrapping around from the start): the rewrite must then run the
        loop."""
        if not self.np:
            return self._map(k)
        lo_off, hi_off = self.rng.choice((0, 1, 2)), self.rng.choice((1, 2, 3))
        if self.rng.random() < 0.67:
            self.back, self.ahead = max(self.back, lo_off), max(self.ahead, hi_off - 1)
        arr = self.rng.choice(("x", "y"))
        self.reads.add(arr)
        fn = self.rng.choice(("np.sum", "np.max", "np.mean", "np.min"))
        lo = f"i - {lo_off}" if lo_off else "i"
        value = f"{fn}({arr}[{lo}:i + {hi_off}])"
        if self.rng.random() < 0.5:
            value = f"{fn}({arr}[{lo}:i + {hi_off}] * {self.expr(1)})"
        setup, _ = self._out(k)
        return Fragment("sliding window", VECTORIZE, (self._write(k, value),), setup, outputs=self._result(k))

    def _scatter_add(self, k):
        if not self.np:
            return self._gather(k)
        v = self.expr(1)
        if self.rng.random() < 0.5:
            # (or as many as the shape argument says, `n` or rows `(n, 2)`: `idx` is within `n`)
            made = "np.zeros(shp)" if self.rng.random() < 0.25 else "np.zeros(len(x) + 1)"
            return Fragment("scatter-add +=", VECTORIZE, (f"h{k}[idx[i]] += {v}",), (f"h{k} = {made}",),
                            outputs=(f"h{k}",), reads=frozenset({"idx", "shp"} if "shp" in made else {"idx"}))
        return Fragment("scatter-add h = h + v", EITHER, (f"h{k}[idx[i]] = h{k}[idx[i]] + {v}",),
                        (f"h{k} = np.zeros(len(x) + 1)",), outputs=(f"h{k}",), reads=frozenset({"idx"}))

    def _nest_carried(self, k):
        """An inner loop whose accumulator is carried (kept sequential), or triangular."""
        setup, _ = self._out(k)
        idx = "m2[i, j]" if self.np else "m2[i][j]"
        ext = "m2.shape[1]"
        r = self.rng.random()
        if self.np and r < 0.2:
            # carried through the elements of a row only: a loop over `j` whose body is batched
            # over every `i` (outer-loop vectorization), with a temporary private to each step
            step = f"np.tanh(q{k}[i, j - 1]) * 0.5 + {idx}"
            inner = (f"for j in range(1, {ext}):",) + ((f"    u{k} = {idx} * {self.atom(False)}",
                                                        f"    q{k}[i, j] = np.tanh(q{k}[i, j - 1]) * u{k}")
                                                       if self.rng.random() < 0.4 else (f"    q{k}[i, j] = {step}",))
            return Fragment("nest, inner carried by elements", VECTORIZE, inner, (f"q{k} = np.zeros(np.shape(m2))",),
                            outputs=(f"q{k}",), reads=frozenset({"m2"}))
        if r < 0.3:
            inner = (f"a{k} = 0.0", f"for j in range({ext}):", f"    a{k} = a{k} * 0.5 + {idx}",
                     self._write(k, f"a{k}"))
            kind = "nest, carried inner"
        elif r < 0.5:  # a temporary private to each inner iteration
            inner = (f"a{k} = 0.0", f"for j in range({ext}):", f"    u{k} = {idx} * {self.atom(False)}",
                     f"    a{k} = a{k} * 0.5 + u{k}", self._write(k, f"a{k}"))
            kind = "nest, carried inner with a temporary"
        elif r < 0.75:
            inner = (f"a{k} = 0.0", "for j in range(i):", f"    a{k} += {idx} * {self.atom(False)}",
                     self._write(k, f"a{k}"))
            kind = "nest, triangular inner"
        else:  # a reduction over the inner loop under a per-iteration test, on one or both paths
            cmp = self.rng.choice((">", "<"))
            inner = [f"a{k} = 0.0", f"for j in range({ext}):", f"    if {idx} {cmp} 0.0:",
                     f"        a{k} += {idx} * {self.atom(False)}"]
            if self.rng.random() < 0.5:
                inner += ["    else:", f"        a{k} -= {self.atom(False)}"]
            inner = tuple(inner) + (self._write(k, f"a{k}"),)
            kind = "nest, masked inner reduction"
        return Fragment(kind, VECTORIZE, inner, setup, outputs=self._result(k), reads=frozenset({"m2"}))

    def _pair(self, k):
        """Two statements where the second reads a forward or backward offset of the first's writes."""
        if not self.np:
            return self._private(k)
        off = self.rng.choice((1, -1))
        read = f"a{k}[i + 1]" if off == 1 else f"a{k}[i - 1]"
        write = f"a{k}[i] = {self.expr(1)}"
        use = f"b{k}[i] = {read} * 2.0 + {self.expr(1)}"
        body = (write, use) if self.rng.random() < 0.5 else (use, write)
        return Fragment("statement order", EITHER, body,
                        (f"a{k} = np.array(x, dtype=float)", f"b{k} = np.zeros(len(x))"),
                        outputs=(f"a{k}", f"b{k}"), back=1 if off == -1 else 0, ahead=1 if off == 1 else 0)

    def _linearized(self, k):
        """A nest writing a flat buffer at ``i * w + j``, ``j`` over ``range(w)``: each ``i``
        owns a block (delinearization). Spelled with the product in any order, through a
        private index, or with a counter ``t += 1`` (induction-variable substitution; it
        stays a recurrence where the loop counts down); one time in five the blocks overlap
        (``i * (w - 1) + j``), a planted output dependence."""
        if not self.np:
            return self._map(k)
        width = self.rng.choice(("m2.shape[1]", f"w{k}"))
        setup = [f"q{k} = np.zeros(len(x) * m2.shape[1] + 1)"]
        if width == f"w{k}":
            setup.insert(0, f"w{k} = m2.shape[1]")
        value = f"m2[i, j] * {self.expr(1)}"
        head = f"for j in range({width}):"
        if self.rng.random() < 0.2:
            return Fragment("linearized, overlapping blocks", REFUSE, (head, f"    q{k}[i * ({width} - 1) + j] = {value}"),
                            tuple(setup), outputs=(f"q{k}",), reads=frozenset({"m2"}))
        how = self.rng.choice(("i * W + j", "W * i + j", "j + i * W", "private", "counter", "flat counter"))
        if how == "flat counter":  # one level: t is i minus the first index
            return Fragment("linearized, flat counter", EITHER, (f"q{k}[t{k}] = {self.expr(1)}", f"t{k} += 1"),
                            tuple(setup[-1:]) + (f"t{k} = 0",), outputs=(f"q{k}",), reads=frozenset({"m2"}))
        if how == "counter":
            setup.append(f"t{k} = 0")
            body = (head, f"    q{k}[t{k}] = {value}", f"    t{k} += 1")
            return Fragment("linearized, counter", EITHER, body, tuple(setup), outputs=(f"q{k}",),
                            reads=frozenset({"m2"}))
        if how == "private":
            body = (head, f"    t{k} = i * {width} + j", f"    q{k}[t{k}] = {value}")
        else:
            body = (head, f"    q{k}[{how.replace('W', width)}] = {value}")
        return Fragment(f"linearized, {how}", VECTORIZE, body, tuple(setup), outputs=(f"q{k}",),
                        reads=frozenset({"m2"}))

    def _comprehension(self, k):
        """A map in the loop, and after it a list comprehension over the inputs read as an array
        (``np.array``, ``np.sum``, ``sum``, ``max``, ``np.stack``): rewritten where the batched
        value reads as the list would. Look-alikes it must not change: items that are Python
        numbers on some iterations and NumPy values on others (``np.array``'s dtype then depends
        on the data), and an index name the function uses for something else."""
        frag = self._map(k)
        if not self.np:
            return frag
        name = "j" if self.rng.random() < 0.4 else f"j{k}"
        form = self.rng.choice(("range", "rows", "enumerate"))
        scale = self.rng.choice(("2.0", "0.5", "c"))
        if scale == "c":
            self.reads.add("c")
        item = self.rng.choice((f"x[{name}] * {scale}", f"np.tanh(x[{name}]) + 1.0",
                                f"x[{name}] if x[{name}] > 0 else 0", f"abs(x[{name}]) * 2.0",
                                f"m2[{name}] * 2.0", f"float(x[{name}] > 0.5)"))
        if "m2" in item:
            self.reads.add("m2")
        if form == "range":
            head = f"for {name} in range(len(x))"
        elif form == "rows":
            source = "m2" if "m2" in item else "x"
            item = item.replace(f"{source}[{name}]", f"r{k}").replace(f"x[{name}]", f"x[0]")
            # (walked backwards too: the rows of `x[::-1]`)
            head = f"for r{k} in reversed({source})" if self.rng.random() < 0.3 else f"for r{k} in {source}"
        else:
            head = f"for {name}, r{k} in enumerate(x)"
            item = f"({item}) + r{k}"
        consumer = self.rng.choice(("np.array({})", "np.sum({})", "sum({})", "max({})", "np.mean({}, axis=0)",
                                    "np.stack({})", "np.asarray({})"))
        if "m2" in item and consumer == "max({})":
            consumer = "np.max({})"
        after = (f"c{k} = {consumer.format(f'[{item} {head}]')}",)
        return replace(frag, after=frag.after + after, outputs=frag.outputs + (f"c{k}",), lists_ok=False)

    def _zip(self, k):
        """A map in the loop, and after it a second loop over ``zip`` of two sequences that may
        differ in length (``x`` and ``x[1:]``, or a row of one): ``zip`` stops at the shortest,
        where ``tf.vectorized_map`` raises for elems of unequal lengths and broadcasts one of
        length 1 (finding F4)."""
        frag = self._map(k)
        lib = "np" if self.np else "tf"
        first, second = self.rng.choice((("x", "y"), ("x", "x[1:]"), ("x[1:]", "y"), ("x", "y[:1]"),
                                         ("x[:1]", "y"), ("y[::2]", "x"), ("x", "x")))
        self.reads.update(n for n in ("x", "y") if n in first + second)
        if "c" in (item := self.rng.choice((f"{lib}.tanh(a{k}) * b{k}", f"a{k} - b{k} * 2.0", f"a{k} * b{k} + c"))):
            self.reads.add("c")
        stack = "np.array" if self.np else "tf.stack"
        after = (f"z{k} = []", f"for a{k}, b{k} in zip({first}, {second}):", f"    z{k}.append({item})")
        return replace(frag, kind=f"{frag.kind}; zip({first}, {second})", after=frag.after + after,
                       outputs=frag.outputs + (f"{stack}(z{k})",))

    def _first_assign(self, k):
        """``if i == 0: s = t`` / ``else: s += t``: a reduction of the terms alone where the loop
        starts at 0; where it starts elsewhere or counts down, ``i == 0`` is no first iteration
        and ``s`` restarts mid-loop (a recurrence)."""
        term = self.expr(1)
        op = self.rng.choice(("+=", "*="))
        update = f"s{k} {op} {term}" if self.rng.random() < 0.7 else f"s{k} = s{k} {op[0]} ({term})"
        return Fragment(f"first-assign {op}", EITHER, ("if i == 0:", f"    s{k} = {term}", "else:", f"    {update}"),
                        (f"s{k} = 0.5",), outputs=(f"s{k}",))

    def _helper(self, k):
        """A module-level helper called on each element: its ``if``s on a flag passed as a
        constant, on ``v.ndim`` and on ``type(v)``, a tuple assignment and an update are
        decided or bound for the call (partial evaluation); a flag computed from the data
        leaves the call as it is."""
        if not self.np:
            return self._map(k)
        flag = self.rng.choice(("True", "False", "x[i] > 0"))
        test = self.rng.choice(("flag", "not flag", "v.ndim == 0 and flag", "type(v) is float or flag"))
        helper = (f"def h{k}(v, w, flag=False):",
                  f"    a, b = v * 2.0, w + 1.0",
                  f"    b += 0.5",
                  f"    if {test}:",
                  f"        return np.tanh(a) * b",
                  f"    return a - b")
        setup, _ = self._out(k)
        call = f"h{k}(x[i], {self.expr(0)}, flag={flag})" if self.rng.random() < 0.7 else f"h{k}(x[i], c, {flag})"
        self.reads.add("c")
        return Fragment(f"helper, flag {flag}", VECTORIZE, (self._write(k, call),), setup, outputs=self._result(k),
                        lists_ok=False, helpers=helper)

    def _local_helper(self, k):
        """A helper defined in ``f`` before the loop, a closure over ``c``, called on each
        element, or with ``*m2[i, :2]`` (two items per row: one row of another length raises
        the loop's ``TypeError``)."""
        if not self.np:
            return self._map(k)
        self.reads.add("c")
        spread = self.rng.random() < 0.4
        if spread:
            self.reads.add("m2")
        setup, _ = self._out(k)
        helper = (f"def g{k}(v, w):", f"    return {self.rng.choice(('np.tanh(v)', 'v * v', 'abs(v)'))} * w + c")
        call = f"g{k}(*m2[i, :2])" if spread else f"g{k}(x[i], {self.expr(1)})"
        return Fragment("local helper" + (", *row" if spread else ""), VECTORIZE, (self._write(k, call),),
                        helper + setup, outputs=self._result(k), lists_ok=False)

    def _list_row(self, k):
        """``q[i] = [a, b]``: a row written as a list of per-iteration values (Python ints from
        ``i`` beside NumPy floats), each item converted into the row's dtype on its own."""
        if not self.np:
            return self._map(k)
        dtype = self.rng.choice(("float", "np.int64", "np.float32"))
        items = [self.expr(1), self.rng.choice(("i", "i * 3", self.expr(1), "-1"))]
        self.rng.shuffle(items)
        return Fragment("list row", VECTORIZE, (f"q{k}[i] = [{items[0]}, {items[1]}]",),
                        (f"q{k} = np.zeros((len(x), 2), dtype={dtype})",), outputs=(f"q{k}",))

    def _default_arm(self, k):
        """A gather or a value beside a Python number in a conditional expression (``t if c
        else -1``, ``0.1``), or written under an ``if`` into an int64 array: the number keeps
        its own kind, and the array's untouched elements stay exact."""
        if not self.np:
            return self._map(k)
        default = self.rng.choice(("-1", "0.1", "0", "-0.5", "1e300"))
        value = self.rng.choice((f"x[idx[i]]", "x[i]", self.expr(1)))
        if self.rng.random() < 0.5:
            setup, _ = self._out(k)
            return Fragment("default arm", VECTORIZE, (self._write(k, f"{value} if {self.test()} else {default}"),),
                            setup, outputs=self._result(k), reads=frozenset({"idx"}))
        body = (f"if {self.test()}:", f"    z{k}[i] = {value}")
        return Fragment("write under a test into int64", VECTORIZE, body,
                        (f"z{k} = np.full(len(x), 2 ** 53 + 1)",), outputs=(f"z{k}",), reads=frozenset({"idx"}))

    def _mixed_arithmetic(self, k):
        """Arithmetic on a value that is a Python number on some iterations and a NumPy value on
        others (``(x[i] if c else 0.1) * 3``, ``max(v[i], 300) * 2``), the NumPy side perhaps of a
        narrow dtype: each iteration computes in its own value's dtype."""
        if not self.np:
            return self._map(k)
        dtype = self.rng.choice(("float", "float", "np.float32", "np.int64", "np.uint8", "np.int8"))
        # (or an array of another dtype: `x[i] if c else y[i]` of uint8 and int64)
        default = self.rng.choice(("-1", "0.1", "0", "300", "2 ** 60", "-0.5", f"w{k}[i]", f"w{k}[i]"))
        other = self.rng.choice(("float", "np.float32", "np.int64", "np.uint8", "np.int8", "bool"))
        arm = self.rng.choice((f"v{k}[i]", self.expr(1), f"v{k}[idx[i]]"))
        value = self.rng.choice((f"({arm} if {self.test()} else {default}) * 3 + 1",
                                 f"np.sqrt(np.abs({arm} if {self.test()} else {default}))",
                                 f"max({arm}, {default}) * 2",
                                 f"abs(min({arm}, {default}))",
                                 f"({arm} if {self.test()} else {default}) - ({self.expr(1)} if {self.test()} else 0.5)"))
        reads = (f"v{k} = (np.asarray(x) * 7).astype({dtype})", f"w{k} = (np.asarray(x) * 5).astype({other})")
        if self.rng.random() < 0.3:
            # summed: the loop's running value takes each term's own kind
            start = self.rng.choice(("0", "0.0"))
            term = self.rng.choice((f"{arm} if {self.test()} else {default}", f"max({arm}, {default})",
                                    f"abs({arm} if {self.test()} else {default})"))
            return Fragment("mixed arithmetic summed", VECTORIZE, (f"s{k} += {term}",), reads + (f"s{k} = {start}",),
                            outputs=(f"s{k}",), reads=frozenset({"idx"}))
        if self.rng.random() < 0.25:
            # collected as they are: `np.array` of the loop's list holds ints where every
            # iteration's `max(v[i], -0.5)` is an int of `v` (one float among them: floats)
            value = self.rng.choice((f"max({arm}, {default})", f"min({arm}, {default})",
                                     f"{arm} if {self.test()} else {default}"))
            return Fragment("mixed values collected", VECTORIZE, (f"c{k}.append({value})",),
                            reads + (f"c{k} = []",), outputs=(f"np.array(c{k})",), reads=frozenset({"idx"}))
        setup, _ = self._out(k)
        return Fragment("mixed arithmetic", VECTORIZE, (self._write(k, value),),
                        (f"v{k} = (np.asarray(x) * 7).astype({dtype})",
                         f"w{k} = (np.asarray(x) * 5).astype({other})") + setup, outputs=self._result(k),
                        reads=frozenset({"idx"}))

    def _conditional_update(self, k):
        """``if c: u[i] = u[i] + v`` (or ``*=``, ``-=``) of an array of some dtype, whose other
        elements (-0.0, ints past 2**53) must stay as they are; ``v`` perhaps a Python int the
        dtype cannot hold (``u[i] + 300`` of int8 raises where the loop computes it)."""
        if not self.np:
            return self._map(k)
        dtype, init = self.rng.choice((("np.uint64", "2 ** 63 + 5"), ("np.int64", "2 ** 53 + 1"),
                                       ("np.float32", "-0.0"), ("float", "-0.0"), ("np.int8", "100")))
        update = self.rng.choice((f"u{k}[i] = u{k}[i] + 7", f"u{k}[i] *= 3", f"u{k}[i] = u{k}[i] + i",
                                  f"u{k}[i] -= {self.expr(1)}", f"u{k}[i] = u{k}[i] + 0.1",
                                  # (a Python int the dtype may not hold: NumPy raises, where the
                                  # loop computes it only on the iterations the test takes)
                                  f"u{k}[i] = u{k}[i] + 300", f"u{k}[i] = u{k}[i] * -1",
                                  f"u{k}[i] = (u{k}[i] - 2 ** 40) if {self.test()} else u{k}[i]"))
        test = self.test()
        if any(t in update for t in ("300", "-1", "2 ** 40")) and self.rng.random() < 0.5:
            test = "x[i] > 50.0"  # (no iteration takes it: the loop never computes the update)
        return Fragment("conditional update", VECTORIZE, (f"if {test}:", f"    {update}"),
                        (f"u{k} = np.full(len(x), {init}, dtype={dtype})",), outputs=(f"u{k}",))

    def _inner_of_carried(self, k):
        """An outer loop kept for a carried value, with an inner loop batched on its own: each
        run of it reads the outer iteration's values."""
        if not self.np:
            return self._carried(k)
        body = (f"h{k} = np.sin(h{k}) * 0.5 + x[i]", "for j in range(3):",
                f"    m{k}[i, j] = h{k} * j + {self.expr(1)}")
        return Fragment("inner loop of a carried one", REFUSE, body,
                        (f"h{k} = 0.0", f"m{k} = np.zeros((len(x), 3))"), outputs=(f"h{k}", f"m{k}"))

    def _grid(self, k):
        """``if g[i][j] > t: g[i][j] = v``: a grid, on odd draws a list of lists of Python ints
        or floats (an array otherwise), written element by element with a number that may not
        be of the grid's type (the loop then runs), batched on an array copy whose numbers go
        back into the row lists (NumPy)."""
        if not self.np:
            return self._map(k)
        self.reads.add("g")
        test = self.rng.choice(("g[i][j] > 1", "g[i][j] == 0", "g[i][j] < c", "g[i][j] <= x[i]"))
        if "c" in test or "x[i]" in test:
            self.reads.update({"c", "x"})
        value = self.rng.choice(("0", "1", "0.0", "-1.5", "g[i][j]"))
        body = ("for j in range(3):", f"    if {test}:", f"        g[i][j] = {value}")
        return Fragment("grid", VECTORIZE, body, (), outputs=("g",))

    def _contraction(self, k):
        """``q[i, j] = np.sum(m2[i] * m2[j])`` in a nest, or ``o[i] = np.sum(x[i] * m2[i])``, or
        ``q[i] = np.sum(m2 * m2[i], axis=1)``: a sum of a product whose factors vary along
        different loop axes or have different ranks, which the direct backend writes as
        ``np.einsum`` for float arrays (checked in front; the grid ``g`` is ints on half the
        draws, where the loop runs). Look-alikes: factors of one shape (``m2[i] * m2[i]``),
        a computed factor (``np.abs(m2[j] - 1)``), a Python number (``x[i] * 2.0``)."""
        if not self.np:
            return self._map(k)
        shape = self.rng.choice(("nest", "nest", "flat", "axis"))
        if shape == "axis":
            self.reads.update({"m2", "x"})
            other = self.rng.choice(("m2", "-m2", "m2[0]"))
            if other == "m2[0]":
                body = (f"o{k}[i] = np.sum(m2[i] * m2[0] * x[i])",)
                return Fragment("contraction, invariant row", VECTORIZE, body, (f"o{k} = np.zeros(len(x))",),
                                outputs=(f"o{k}",))
            axis = self.rng.choice(("1", "-1", "0"))
            body = (f"q{k}[i] = np.sum({other} * m2[i], axis={axis})",)
            return Fragment("contraction over one axis", VECTORIZE, body, (f"q{k} = np.zeros((len(x), len(x)))",),
                            outputs=(f"q{k}",))
        rows = self.rng.choice(("m2", "m2", "g"))
        self.reads.update({rows, "x"})
        pool = [f"{rows}[i]", f"{rows}[j]", f"-{rows}[j]", "x[i]", "x[j]", f"{rows}[i]"]
        if shape == "flat":
            pool = [f"{rows}[i]", f"{rows}[i]", "x[i]", f"-{rows}[i]", "y[i]"]
            self.reads.add("y")
        count = self.rng.choice((2, 2, 3))
        terms = [self.rng.choice(pool) for _ in range(count)]
        look = self.rng.random()
        if look < 0.15:
            terms[-1] = f"np.abs({terms[-1]} - 1)"
        elif look < 0.25:
            terms.append("2.0")
        value = f"np.sum({' * '.join(terms)})" if self.rng.random() < 0.75 else f"({' * '.join(terms)}).sum()"
        if shape == "flat":
            return Fragment("contraction, one level", VECTORIZE, (f"o{k}[i] = {value}",), (f"o{k} = np.zeros(len(x))",),
                            outputs=(f"o{k}",))
        body = ("for j in range(len(x)):", f"    q{k}[i, j] = {value}")
        return Fragment("contraction, nest", VECTORIZE, body, (f"q{k} = np.zeros((len(x), len(x)))",),
                        outputs=(f"q{k}",))

    def _masked_sum(self, k):
        """A group sum in a nest: ``if idx[j] == i: q[i] += m2[j]`` (a row update, ``-=`` too),
        the same into a running row (``s = s + m2[j]``, then ``q[i] = s``), or the rows a test
        selects (``m2[x > x[i]].sum(axis=0)``, ``np.compress(..., axis=0).mean(axis=0)``). The
        direct backend contracts the test with the rows (``np.einsum``, the one-hot product)
        where the rows are finite floats, checked in front: ``w`` holds an infinity on some
        draws, where the loop must run (``0 * inf`` is nan). Look-alikes the contraction must
        leave: computed terms (``2.0 * m2[j]``), terms of one loop's axis only (``y[j]``)."""
        if not self.np:
            return self._map(k)
        self.reads.update({"x", "m2"})
        rows = self.rng.choice(("m2", "m2", "w"))
        setup = (f"w{k} = np.where(np.abs(m2) > 2.0, np.inf, m2)",) if rows == "w" else ()
        rows = f"w{k}" if rows == "w" else rows
        form = self.rng.choice(("update", "update", "running", "select"))
        if form == "select":
            test = self.rng.choice(("x > x[i]", "idx == i % 3", "(x < x[i]) & (x > x[i] - 1.0)"))
            if "idx" in test:
                self.reads.add("idx")
            how = self.rng.choice(("sum", "mean"))
            chosen = self.rng.choice((f"{rows}[{test}]", f"np.compress({test}, {rows}, axis=0)"))
            # (the mean of no row is nan in the loop and the rewrite alike)
            body = (f"sel{k} = {chosen}", f"q{k}[i] = sel{k}.{how}(axis=0) if len(sel{k}) > 0 else 0.0")
            if self.rng.random() < 0.5:
                body = (f"sel{k} = {chosen}", f"q{k}[i] = np.{how}(sel{k}, axis=0)")
            return Fragment(f"masked sum, selected rows {how}", VECTORIZE, body,
                            setup + (f"q{k} = np.zeros((len(x), {rows}.shape[1]))",), outputs=(f"q{k}",))
        test = self.rng.choice(("idx[j] == i", "x[j] > x[i]", "idx[j] % 3 == i % 3", "x[j] < x[i] and x[j] > -1.0"))
        if "idx" in test:
            self.reads.add("idx")
        term = self.rng.choice((f"{rows}[j]", f"{rows}[j]", f"-{rows}[j]", f"2.0 * {rows}[j]", "y[j]"))
        if term == "y[j]":
            self.reads.add("y")
        width = "" if term == "y[j]" else f", {rows}.shape[1]"
        op = self.rng.choice(("+", "-"))
        if self.rng.random() < 0.25:
            # a loop the terms do not vary along, summed too (`idx[j] >= g` passes for several
            # `g`: each pass adds the row again, where an `or` of the test would add it once)
            self.reads.add("idx")
            body = ("for j in range(len(x)):", "    for g in range(3):", f"        if {self.rng.choice(('idx[j] >= g + i % 3', 'idx[j] != g - i', 'x[j] > g - x[i]'))}:",
                    f"            q{k}[i] {op}= {term}")
            return Fragment("masked sum, a loop the terms lack", VECTORIZE, body,
                            setup + (f"q{k} = np.zeros((len(x){width}))",), outputs=(f"q{k}",))
        if form == "running":
            start = "0.0" if term == "y[j]" else f"np.zeros({rows}.shape[1])"
            body = (f"s{k} = {start}", "for j in range(len(x)):", f"    if {test}:",
                    f"        s{k} = s{k} {op} {term}", f"q{k}[i] = s{k}")
        else:
            body = ("for j in range(len(x)):", f"    if {test}:", f"        q{k}[i] {op}= {term}")
        return Fragment(f"masked sum, {form}", VECTORIZE, body, setup + (f"q{k} = np.zeros((len(x){width}))",),
                        outputs=(f"q{k}",))

    def _interchange(self, k):
        """A nest whose inner loop stays a loop (``q[i, j]`` reads ``q[i, j - 1]``, or ``j``
        indexes a whole row), reading the row the next outer iteration writes: the batched
        code runs the inner loop outermost (loop interchange), so a read at ``j`` of what the
        next row holds at ``j - 1`` must see it as it was before the loop (a ``(<, >)``
        anti-dependence; helper-39). Reads at the same ``j``, or ahead of it, need no copy."""
        if not self.np:
            return self._map(k)
        self.reads.add("m2")
        how = self.rng.choice(("row", "row max", "prefix", "row", "behind", "same", "ahead"))
        if how in ("row", "row max", "prefix"):  # (the inner loop reads a whole row: it stays a loop)
            value = {"row": f"np.sum(q{k}[i + 1] * m2[j])", "row max": f"np.max(q{k}[i + 1]) + m2[i, j]",
                     "prefix": f"np.mean(q{k}[i + 1, :j + 1])"}[how]
            body = ("for j in range(len(x)):", f"    q{k}[i, j] = {value}")
        else:  # (an array recurrence along the row: refused, or rewritten as it may be)
            read = {"behind": f"q{k}[i + 1, j - 1]", "same": f"q{k}[i + 1, j]", "ahead": f"q{k}[i + 1, j + 1]"}[how]
            body = ("for j in range(1, len(x) - 1):", f"    q{k}[i, j] = q{k}[i, j - 1] * 0.5 + {read}")
        return Fragment(f"interchange, {how}", EITHER, body, (f"q{k} = np.array(m2)",), outputs=(f"q{k}",),
                        ahead=1)

    def _triangle(self, k):
        """``for j in range(i + c): t[i, j] = v`` (or ``range(i + c, len(x))``) into
        ``t = np.zeros(...)``: a triangular iteration space, written as ``np.tril(v, c - 1)``
        (``np.triu(v)``) where every cell it skips keeps its 0; a start from ``idx[i]`` (which
        may be negative, so two ``j`` may write one cell) is masked or left. Look-alikes that must keep the ``where`` with the old cells: an array of ones, a
        second store into ``t`` (a cell of the first column, which the triangle's zeros would
        overwrite), an ``if`` in the inner loop, and an int array that casts the values."""
        if not self.np:
            return self._map(k)
        self.reads.update({"x", "m2"})
        header = self.rng.choice(("i", "i + 1", "1 + i", "i - 1", "i + 2", "i - 2", "i, len(x)", "i + 1, len(x)",
                                  "1 + i, len(x)", "i - 2, len(x)", "idx[i], len(x)"))
        if header == "idx[i], len(x)":  # (negative starts wrap, two j may write one cell)
            self.reads.add("idx")
        value = self.rng.choice(("x[i] * x[j]", "x[j] - x[i] * 2.0", "m2[i, j] + x[i]", "np.sum(m2[i] * m2[j])",
                                 "x[i] * j", "np.exp(-(x[i] - x[j]) ** 2)"))
        maker = self.rng.choice(("np.zeros((len(x), len(x) + 2))", "np.zeros((len(x), len(x) + 2))",
                                 "np.zeros_like(m2, shape=(len(x), len(x) + 2))", "np.ones((len(x), len(x) + 2))",
                                 "np.zeros((len(x), len(x) + 2), dtype=np.int64)"))
        body = [f"for j in range({header}):", f"    t{k}[i, j] = {value}"]
        look = self.rng.random()
        if look < 0.15:
            body = [f"t{k}[i, 0] = 7.0"] + body
        elif look < 0.3:
            body[1:] = [f"    if x[j] > 0.0:", f"    {body[1]}"]
        return Fragment("triangle", EITHER if "idx" in header else VECTORIZE, tuple(body), (f"t{k} = {maker}",),
                        outputs=(f"t{k}",), ahead=1 if header == "i + 2" else 0)

    def _symmetric(self, k):
        """``t[i, j] = v; t[j, i] = ...`` over a triangle (``range(i + 1, n)``, ``range(i)``,
        ``range(i, n)``): the two halves never meet in two iterations, which only the loops'
        bounds show (the symbolic dependence test). Planted: the full square, where ``t[0, 1]``
        is written at ``i = 0`` and at ``i = 1``, and ``range(i - 1, n)``, whose two halves
        overlap on the band around the diagonal."""
        if not self.np:
            return self._map(k)
        self.reads.update({"x", "m2"})
        header = self.rng.choice(("i + 1, len(x)", "i + 1, len(x)", "i", "i, len(x)", "len(x)", "i - 1, len(x)"))
        value = self.rng.choice(("x[i] * x[j]", "x[i] - x[j]", "np.sum(m2[i] * m2[j])", "m2[i, j] + 1.0"))
        second = self.rng.choice((f"t{k}[i, j]", "v", f"t{k}[i, j] * 2.0"))
        body = ("for j in range(" + header + "):", f"    v = {value}", f"    t{k}[i, j] = v", f"    t{k}[j, i] = {second}")
        planted = header in ("len(x)", "i - 1, len(x)")
        return Fragment("symmetric fill, planted overlap" if planted else "symmetric fill", REFUSE if planted else VECTORIZE,
                        body, (f"t{k} = np.zeros((len(x), len(x)))",), outputs=(f"t{k}",))

    def _fixed_element(self, k):
        """``o[i] = o[m] * 0.5 + e`` with ``m`` a fixed element (the weak-zero SIV test): no
        dependence where the header keeps ``m`` out of the iterations, an anti-dependence where
        ``m`` is the last one and the read runs first, a flow dependence otherwise (the first
        element, the middle, or a read after the write); the oracle's runs are the check."""
        if not self.np:
            return self._map(k)
        m = self.rng.choice(("0", "len(x) - 1", "len(x) // 2", "len(x) - 2", "1"))
        setup = (f"o{k} = np.zeros(len(x)) + 1.0",)
        if self.rng.random() < 0.3:
            # the element (or the array, or a view of it) bound to a name before the loop and
            # read whole: a copy where the indices select one number, else what the writes change
            rows = self.rng.random() < 0.5
            if rows:
                setup = (f"o{k} = np.zeros((len(x), 2)) + np.arange(1.0, 3.0)",)
            bound = self.rng.choice((f"o{k}[{m}]", f"o{k}", f"o{k}[{m}:]", f"o{k}[{m}, ...]", f"o{k}[..., 0]")
                                    + ((f"o{k}[{m}, 1]", f"o{k}[{m}][0]", f"o{k}.T") if rows else ()))
            use = self.rng.choice((f"w{k}", f"np.sum(w{k})", f"w{k}.max()"))
            bind = (f"w{k} = {bound}",)
            r = self.rng.random()
            if r < 0.15:  # a binding that reaches the loop on one path of two
                bind = (f"if len(x) > 3:", f"    w{k} = {bound}", "else:", f"    w{k} = np.ones(2)")
            elif r < 0.3:  # a binding pforge cannot follow (the call returns its `out`)
                bind = (f"w{k} = np.add(o{k}, 0.0, out=o{k})",)
            elif r < 0.45:  # written through the other name, the array read whole by its own
                body = (f"w{k}[i] = w{k}[i] * 0.5 - np.sum(o{k}) + {self.expr(1)}",)
                return Fragment("written through a name bound to the array", EITHER, body,
                                setup + (f"w{k} = o{k}",), outputs=(f"o{k}",))
            body = (f"o{k}[i] = o{k}[i] * 0.5 - {use} + {self.expr(1)}",)
            return Fragment("fixed element bound to a name", EITHER, body, setup + bind, outputs=(f"o{k}",))
        if self.rng.random() < 0.7:
            body = (f"o{k}[i] = o{k}[{m}] * 0.5 + {self.expr(1)}",)
        else:
            body = (f"o{k}[i] = {self.expr(1)}", f"t{k} = o{k}[{m}] * 2.0")
            setup += (f"t{k} = 0.0",)
            return Fragment("fixed element read after the write", EITHER, body, setup, outputs=(f"o{k}", f"t{k}"))
        return Fragment("fixed element", EITHER, body, setup, outputs=(f"o{k}",))

    def _row_view(self, k):
        """A row of a 2-D array bound in the body before the body writes the row: in the loop the
        name is a view, which sees the write (b94), where one element is a copy, as is
        ``.copy()``; or a name an inner loop binds on every iteration, read after it: the inner
        loop's last value (b95)."""
        if not self.np:
            return self._map(k)
        setup = (f"A{k} = np.outer(np.asarray(x, dtype=float), np.arange(1.0, 3.0))", f"B{k} = np.zeros((len(x), 2))")
        if self.rng.random() < 0.6:
            bind = self.rng.choice((f"A{k}[i]", f"A{k}[i][::-1]", f"A{k}[i, 0:1]", f"A{k}[i, 0]", f"A{k}[i].copy()",
                                    f"A{k}[i] * 1.0"))
            write = self.rng.choice((f"A{k}[i] = A{k}[i] * 2.0", f"A{k}[i, 0] = {self.expr(1)}", f"A{k}[i] += 1.0"))
            body = (f"t{k} = {bind}", write, f"B{k}[i] = t{k}")
            return Fragment("row bound, then written", EITHER, body, setup, outputs=(f"A{k}", f"B{k}"))
        last = self.rng.choice((f"A{k}[i, j{k}] * 2.0", f"A{k}[i, j{k}] + {self.expr(1)}"))
        body = (f"u{k} = 0.0", f"for j{k} in range(2):", f"    u{k} = {last}", f"B{k}[i] = u{k}")
        return Fragment("inner loop's last value read after it", EITHER, body, setup, outputs=(f"B{k}",))

    def _crossing(self, k):
        """``o[i] = o[len(x) - 1 - i] * 0.5 + e`` (the weak-crossing SIV test, TSVC s281): the
        loop is split where the two indices cross; also through a private and with a second
        array written from the first. Look-alikes that stay loops: two reads crossing at two
        points, and a read crossing one index over from the write (``o[i + 1]``)."""
        if not self.np:
            return self._map(k)
        setup = (f"o{k} = np.array(x, dtype=float)",)
        mirror = f"o{k}[len(x) - 1 - i]"
        r = self.rng.random()
        if r < 0.15:
            return Fragment("crossing look-alike: two points", REFUSE,
                            (f"o{k}[i] = {mirror} + o{k}[len(x) - 2 - i] * 0.0 + {self.expr(1)}",),
                            setup, outputs=(f"o{k}",), ahead=1)
        if r < 0.45:
            body = (f"u{k} = {mirror} + {self.expr(1)}", f"o{k}[i] = u{k} - 1.0", f"p{k}[i] = u{k}")
            return Fragment("crossing through a private", EITHER, body, setup + (f"p{k} = np.zeros(len(x))",),
                            outputs=(f"o{k}", f"p{k}"))
        return Fragment("crossing", EITHER, (f"o{k}[i] = {mirror} * 0.5 + {self.expr(1)}",), setup, outputs=(f"o{k}",))

    def _reached_invariant(self, k):
        """An invariant the loop evaluates only where a per-iteration test lets it (an ``if``, an
        arm of a conditional expression, an operand after an invariant one in ``and``): an
        element that may not exist (``d[len(x) // 2 + 1]``, ``m2[i, 3]``), a division by a
        number that may be 0, a call that may raise. A test no element passes (``x[i] > 1.2`` of
        a short ``x``) leaves the loop returning where batched code that evaluates the invariant
        once would raise ``IndexError`` or ``ZeroDivisionError``."""
        if not self.np:
            return self._map(k)
        setup, _ = self._out(k)
        self.reads.update({"x", "d", "m2", "c"})
        inv = self.rng.choice(("d[len(x) // 2 + 1]", "d[-3]", "m2[i, len(x) - 4]", "m2[i][3]", "d[0] / 2.0",
                               "1.0 / (len(x) - 3)", "c / (c - c)", "x[len(x) - 1] * c", "np.sqrt(c)",
                               "abs(c) ** -1", "m2[2, 1]", "np.sum(d[:len(x) // 2] * x)", "c ** 2",
                               "np.sum(-(d > 0))", "d[::len(x) // 4].sum()"))
        test = self.rng.choice(("x[i] > 1.2", "d[i] < -1.2", "x[i] > c + 1.0"))
        form = self.rng.choice(("if", "ifexp", "and", "elif"))
        if form == "if":
            body = (f"if {test}:", f"    {self._write(k, f'x[i] + {inv}')}")
        elif form == "ifexp":
            body = (self._write(k, f"x[i] * 2.0 if not ({test}) else {inv}"),)
        elif form == "and":
            body = (f"if len(x) > 2 and x[i] > {inv}:", f"    {self._write(k, 'x[i]')}")
        else:
            body = (f"if x[i] < 0.0:", f"    {self._write(k, '-x[i]')}", f"elif {test}:",
                    f"    {self._write(k, f'{inv} * x[i]')}")
        return Fragment("invariant reached under a test", EITHER, body, setup, outputs=self._result(k))

    def _distance(self, k):
        """``t[i, j] = np.sum((a[i] - b[j]) ** 2)`` over rows of two arrays, transpiled with
        ``--fast-math``: the expansion ``|a|**2 + |b|**2 - 2 a.b`` (equal to the loop to
        rounding; the squared distances keep the oracle's tolerance where a row meets itself).
        Look-alikes whose checks must run the loop: rows of length 1 (the loop's ``-``
        broadcasts them), int rows, a float32 array beside float64; and forms the expansion
        does not apply to: one loop's row twice, a row against a column."""
        if not self.np:
            return self._map(k)
        self.reads.update({"x", "m2"})
        other = self.rng.choice(("m2", "h", "h", "m2[:, :1]", "np.round(m2 * 3).astype(np.int64)",
                                 "m2.astype(np.float32)"))
        setup = (f"h{k} = m2[::-1] * 0.5" if other == "h" else f"h{k} = {other}",
                 f"t{k} = np.zeros((len(x), len(x)))")
        square = self.rng.choice(("(m2[i] - h{k}[j]) ** 2", "np.square(h{k}[j] - m2[i])", "d * d", "norm"))
        total = f"np.linalg.norm(m2[i] - h{k}[j]) ** 2" if square == "norm" else f"np.sum({square.format(k=k)})"
        body = ["for j in range(len(x)):", f"    t{k}[i, j] = {total}"]
        if square == "d * d":
            body.insert(1, f"    d = m2[i] - h{k}[j]")
        if self.rng.random() < 0.15:
            body[-1] = body[-1].replace(f"h{k}[j]", f"h{k}[i]")  # one loop's rows
        return Fragment("squared distance", VECTORIZE, tuple(body), setup, outputs=(f"t{k}",), fast_math=True)

    def _pairwise(self, k):
        """``t[i, j] = f(a[i] - b[j])`` over rows of two arrays, with no contraction (an L1 or
        an L2 distance, a max, a Gaussian kernel), or an outer product of each row with itself:
        the batched value holds ``n × m`` rows (``n × d × d`` values), more than any array the
        loop reads or writes, so the rewrite runs in strips of rows (one row per strip under
        the fuzzer's one-byte ``memory_bound``). Variants read the rows through a private, write
        a row of the output, or start the range at 1; the second array is a view, a copy, the
        first array itself, a list (converted per strip: not strip-mined), or one the loop writes
        (then refused or rewritten as it may be). A third of them reduce instead: a sum, a
        product, a maximum or a count over both loops, or a sum whose first iteration assigns."""
        if not self.np:
            return self._map(k)
        self.reads.update({"x", "m2"})
        other = self.rng.choice(("a{k}", "h", "h", "a{k}[::-1]", "a{k}[:, ::-1] * 2.0", "m2")).format(k=k)
        setup = [f"a{k} = np.asarray(m2, dtype=float)",  # (an array: a list would be converted per strip)
                 f"h{k} = a{k}[::-1] * 0.5" if other == "h" else f"h{k} = {other}"]
        value = self.rng.choice(("np.sum(np.abs(a{k}[i] - h{k}[j]))", "np.sqrt(np.sum((a{k}[i] - h{k}[j]) ** 2))",
                                 "np.max(a{k}[i] - h{k}[j])", "np.exp(-np.sum(np.square(a{k}[i] - h{k}[j])))",
                                 "np.sum(np.minimum(a{k}[i], h{k}[j]))", "outer")).format(k=k)
        start = self.rng.choice(("", "", "1, "))
        if value == "outer":  # (n rows of d x d values)
            setup.append(f"t{k} = np.zeros(len(x))")
            body = [f"t{k}[i] = np.sum(np.outer(a{k}[i], h{k}[i]) * 0.5)"]
            if start:
                body = [f"if i > 0:", f"    {body[0]}"]
            return Fragment("pairwise outer", EITHER, tuple(body), tuple(setup), outputs=(f"t{k}",))
        if self.rng.random() < 0.3:
            # a reduction over both loops, or from the outer loop's first iteration: strips
            # add, multiply or compare their own values into the running one
            op = self.rng.choice(("add", "mul", "max", "count", "first"))
            if op == "first":
                body = ["if i == 0:", f"    s{k} = np.sum(np.outer(a{k}[i], h{k}[i]))", "else:",
                        f"    s{k} += np.sum(np.outer(a{k}[i], h{k}[i]))"]
                return Fragment("pairwise reduction, first assigned", EITHER, tuple(body), tuple(setup),
                                outputs=(f"s{k}",))
            start_value, update = {
                "add": ("0.0", f"s{k} += {value}"), "mul": ("1.0", f"s{k} *= 1.0 + 0.01 * {value}"),
                "max": ("-np.inf", f"s{k} = np.maximum(s{k}, {value})"),
                "count": ("0", f"s{k} += int(np.sum(np.abs(a{k}[i] - h{k}[j]) < 0.5))")}[op]
            setup.append(f"s{k} = {start_value}")
            body = [f"for j in range({start}len(x)):", f"    {update}"]
            return Fragment(f"pairwise reduction, {op}", EITHER, tuple(body), tuple(setup), outputs=(f"s{k}",))
        setup.append(f"t{k} = np.zeros((len(x), len(x)))")
        how = self.rng.random()
        if how < 0.2:
            body = [f"for j in range({start}len(x)):", f"    r = a{k}[i] - h{k}[j]", f"    t{k}[i, j] = np.sum(r * r)"]
        elif how < 0.3:
            body = [f"t{k}[i, :] = 1.0", f"for j in range({start}len(x)):", f"    t{k}[i, j] = {value}"]
        else:
            body = [f"for j in range({start}len(x)):", f"    t{k}[i, j] = {value}"]
        if self.rng.random() < 0.1:
            setup[1] = f"h{k} = t{k}"  # (reads what the loop writes)
            setup[1:] = setup[:0:-1]
        return Fragment("pairwise", EITHER, tuple(body), tuple(setup), outputs=(f"t{k}",))

    def _kept_running(self, k):
        """A running minimum or maximum an inner loop keeps as a loop (each inner iteration reads
        what the one before it bound), private to each outer iteration (``m = np.inf`` in the
        body), updated under a test on it: ``if d < m: m = d; o[i] = j`` (the nearest ``j``),
        ``o[i] += 1`` (a count of records) or ``o[i] = m`` after the loop; sometimes the test
        reads something else than the running value, or an ``else`` decays it. The batched
        inner loop must merge the running value after the ``if`` (helper-43: it was taken for a
        name local to the branch, and never updated)."""
        if not self.np:
            return self._map(k)
        self.reads.update({"x", "y"})
        op = self.rng.choice(("<", "<=", ">", ">="))
        start = self.rng.choice(("np.inf" if op in ("<", "<=") else "-np.inf", "x[i]", "0.0"))
        value = self.rng.choice(("abs(x[i] - y[j])", "x[i] * y[j]", "(x[i] - y[j]) ** 2", "y[j] + 0.5 * x[i]"))
        test = self.rng.choice((f"d{k} {op} m{k}", f"d{k} {op} m{k}", f"y[j] {op} m{k}"))
        record = self.rng.choice(("index", "count", "value"))
        body = [f"m{k} = {start}", "for j in range(len(y)):", f"    d{k} = {value}", f"    if {test}:",
                f"        m{k} = d{k}"]
        body += {"index": [f"        o{k}[i] = j"], "count": [f"        o{k}[i] += 1"], "value": []}[record]
        if self.rng.random() < 0.25:
            body += ["    else:", f"        m{k} = m{k} * 0.5"]
        if record == "value":
            body.append(f"o{k}[i] = m{k}")
        maker = f"np.zeros(len(x), dtype=np.int64)" if record == "index" and self.rng.random() < 0.5 \
            else "np.zeros(len(x))"
        return Fragment(f"kept running {record}", EITHER, tuple(body), (f"o{k} = {maker}",), outputs=(f"o{k}",))

    def _list_of_lists(self, k):
        """``row = []; for j ...: row.append(v); L.append(row)``, then ``np.array(L)``: each row is
        the inner loop's batched value (NumPy); as the list itself, ``L`` is left."""
        if not self.np:  # (TensorFlow: the list of lists converted; `j` stays out of the arithmetic)
            body = (f"row{k} = []", "for j in range(3):", f"    row{k}.append({self.expr(1)} + x[i])",
                    f"L{k}.append(row{k})")
            consumer = self.rng.choice((f"tf.convert_to_tensor(L{k})", f"tf.stack(L{k})"))
            return Fragment("list of lists", VECTORIZE, body, (f"L{k} = []",), outputs=(consumer,))
        body = (f"row{k} = []", "for j in range(3):", f"    row{k}.append({self.expr(1)} * j + x[i])",
                f"L{k}.append(row{k})")
        return Fragment("list of lists", VECTORIZE, body, (f"L{k} = []",), outputs=(f"np.array(L{k})",))

    def _inner_comprehension(self, k):
        """A list comprehension in the body, over a range, unfolded as an inner loop: its
        variable sometimes the loop's own name (``i``, then its own in the element), sometimes
        filtered; the list read as one array (``np.max``), appended as a row, or stacked."""
        var = self.rng.choice(("j", "j", "i"))
        # (TensorFlow: a range's index is int32, a number only as an index)
        elt = f"{self.expr(1)} * {var} + x[i]" if self.np else f"{self.expr(1)} + x[{var}]"
        ifs = f" if {var} != 1" if self.rng.random() < 0.3 else ""
        comp = f"lc{k} = [{elt} for {var} in range(3){ifs}]"
        if not self.np:
            setup, _ = self._out(k)
            return Fragment("inner comprehension", VECTORIZE, (comp, self._write(k, f"tf.stack(lc{k})")), setup,
                            outputs=self._result(k))
        use = self.rng.choice(("row", "max", "argmax", "sum"))
        if use == "row":
            return Fragment("inner comprehension", VECTORIZE, (comp, f"L{k}.append(lc{k})"), (f"L{k} = []",),
                            outputs=(f"np.array(L{k})",))
        setup, _ = self._out(k)
        return Fragment("inner comprehension", VECTORIZE, (comp, self._write(k, f"np.{use}(lc{k})")), setup,
                        outputs=self._result(k))

    def _shape_read(self, k):
        """A sum into a new array, updated in place, whose body reads the accumulator's shape
        (``np.ones(np.shape(acc))``): no dependence. Rebound (``acc = acc + t``) instead, the
        read may be a dependence, and either verdict is right."""
        if not self.np:
            return self._reduction(k)
        width = self.rng.choice((1, 3))
        read = self.rng.choice((f"np.ones(np.shape(acc{k}))", f"np.ones(acc{k}.shape)", f"np.ones(len(acc{k}))"))
        body = [f"p{k} = {read} * {self.expr(1)}"]
        if self.rng.random() < 0.3:
            body.append(f"p{k}[0] = -p{k}[0]")
        if self.rng.random() < 0.75:
            return Fragment("shape read of an accumulator", VECTORIZE, tuple(body + [f"acc{k} += p{k}"]),
                            (f"acc{k} = np.zeros({width})",), outputs=(f"acc{k}",))
        return Fragment("shape read of a rebound accumulator", EITHER, tuple(body + [f"acc{k} = acc{k} + p{k}"]),
                        (f"acc{k} = np.zeros({width})",), outputs=(f"acc{k}",))

    def _wrap_around(self, k):
        """``w = E`` last in the body, read before it: iteration ``k`` reads ``E`` of ``k - 1``
        (the first the value before the loop). A planted look-alike reads itself nonlinearly
        (``w = sin(w) + x[i]``, a carried value) and must be refused."""
        init = self.rng.choice(("0.0", "c", "-1", "2", "previous", "previous"))
        if init == "c":
            self.reads.add("c")
        e = self.rng.choice(("x[i]", "x[i] * 2.0", "i", "y[i] + c", "np.tanh(x[i])", "x[i - 1]" if self.np else "x[i]"))
        if init == "previous":
            # `E` of the iteration before the first (`w = x[-1]`, a circular difference): every
            # iteration reads `E(i - 1)` then, the first too
            init = re.sub(r"\bi\b", "__BEFORE__", e)
        if "y[" in e:
            self.reads |= {"y", "c"}
        if "i - 1" in e:
            self.back = max(self.back, 1)
        setup, _ = self._out(k)
        use = self.rng.choice((f"w{k} * {self.expr(1)}", f"w{k} + x[i]", f"{self.lib}.maximum(w{k}, x[i])"))
        planted = self.rng.random() < 0.15
        body = (self._write(k, use), f"w{k} = {self.lib}.sin(w{k}) + x[i]") if planted \
            else (self._write(k, use), f"w{k} = {e}")
        return Fragment("carried look-alike" if planted else "wrap-around", REFUSE if planted else VECTORIZE,
                        body, (f"w{k} = {init}",) + setup, outputs=self._result(k))

    # -- planted dependences ------------------------------------------------------------------

    def _carried(self, k):
        fn = "np.sin" if self.np else "tf.sin"
        return Fragment("carried scalar", REFUSE, (f"h{k} = {fn}(h{k}) * 0.5 + {self.expr(1)}",),
                        (f"h{k} = 0.0",), outputs=(f"h{k}",))

    def _affine(self, k):
        """``p[i] = a_i * p[i - 1] + b_i`` (an account's balance): one coefficient per iteration,
        so the tree of affine maps, computed in the rows it writes where ``p`` is made before
        the loop and the steps compute in its dtype (``_values_in_place``); ``p`` made in other
        dtypes, seen another way (a view bound before the loop, a read of another element),
        or walked downwards, where the values get an array of their own or the loop stays."""
        if not self.np:
            return self._carried(k)
        prev, offsets = ("i + 1", {"ahead": 1}) if self.descending else ("i - 1", {"back": 1})
        p = f"p{k}[{prev}]"
        coef = self.rng.choice((f"(1.0 + 0.01 * {self.expr(1)})", "np.tanh(x[i])", "x[i]", f"(0.5 + 0.1 * {self.expr(0)})"))
        value = self.rng.choice((f"{coef} * {p} + {self.expr(1)}", f"{p} * {coef} - {self.expr(1)}",
                                 f"{self.expr(1)} - {coef} * {p}"))
        made = self.rng.choice(("np.zeros(len(x))", "np.zeros(len(x))", "np.ones(len(x), np.float32)",
                                "np.zeros(len(x), dtype=int)", "np.full(len(x), 0.5)", "np.ones(len(x), np.complex64)"))
        # (no np.empty: the rows the loop does not reach would hold whatever memory held)
        start = self.rng.choice(("1.5", "c", "-2", "0.25"))
        if start == "c":
            self.reads.add("c")
        setup = (f"p{k} = {made}", f"p{k}[{'-1' if self.descending else '0'}] = {start}")
        outputs = (f"p{k}",)
        seen = self.rng.random()
        if seen < 0.15:  # a view of the rows bound before the loop: it sees them as they are written
            setup += (f"v{k} = p{k}[1:]",)
            outputs += (f"v{k}",)
        elif seen < 0.25:  # another element read: no scan
            value = f"{value} + 0.0 * p{k}[0]"
        return Fragment("affine recurrence on an array", EITHER, (f"p{k}[i] = {value}",), setup, outputs=outputs,
                        **offsets)

    def _prefix(self, k):
        """Reads the output of the iteration that ran before (``i - 1``, or ``i + 1`` counting down)."""
        if not self.np:
            return self._carried(k)
        prev, offsets = ("i + 1", {"ahead": 1}) if self.descending else ("i - 1", {"back": 1})
        if self.rng.random() < 0.6:
            # an array recurrence (scalar replacement makes it a scan): a sum, a difference, a
            # product, a running maximum, a linear recurrence, read before the write too
            t, p = self.expr(1), f"p{k}[{prev}]"
            value = self.rng.choice((f"{p} + {t}", f"{t} + {p}", f"{p} - {t}",
                                     f"{p} * (1.0 + 0.1 * np.tanh({t}))", f"np.maximum({p}, {t})",
                                     f"np.minimum({p}, {t})", f"0.5 * {p} + {t}", f"{t} - {p} * c"))
            if self.rng.random() < 0.3:  # in place: the array's own element is the term
                own = f"p{k}[i]"
                value = self.rng.choice((f"{p} + {own}", f"{own} + {p}", f"{p} - {own}", f"np.maximum({p}, {own})",
                                         f"np.minimum({p}, {own})", f"{p} * {own}"))
            if "c" in value.split():
                self.reads.add("c")
            start = self.rng.choice(("np.zeros(len(x))", "np.arange(len(x)) * 0.5", "np.ones(len(x), np.float32)",
                                     "np.arange(len(x))"))
            body = (f"p{k}[i] = {value}",)
            if self.rng.random() < 0.2:  # augmented (TSVC s321), and look-alikes `-=`, `/=` that stay loops
                body = (f"p{k}[i] {self.rng.choice(('+=', '+=', '*=', '-=', '/='))} "
                        f"{self.rng.choice((p, f'{p} * {t}', f'{t} * {p}', f'{p} + {t}'))}",)
            setup = (f"p{k} = {start}",)
            outputs = (f"p{k}",)
            if self.rng.random() < 0.3:
                body = (f"q{k}[i] = {p} * 2.0",) + body
                setup += (f"q{k} = np.zeros(len(x))",)
                outputs += (f"q{k}",)
            elif self.rng.random() < 0.4:
                # through another array (TSVC s323): `q[i] = p[i - 1] + t; p[i] = q[i] + u` is the
                # chain `p[i] = p[i - 1] + t + u` (forward substitution); look-alikes: another
                # operator, a statement between that changes what q's value reads, q's old
                # element, a scan of p whose term is q (fed by p's previous element: b89)
                op, other = self.rng.choice((("+", "+"), ("+", "+"), ("*", "*"), ("+", "*"), ("-", "+")))
                u = self.expr(1)
                body = (f"q{k}[i] = {p} {op} {t}",)
                if self.rng.random() < 0.15:
                    body += (f"p{k}[{prev}] = {p} + 0.0",)
                read = f"q{k}[{self.rng.choice(('i', 'i', 'i', prev))}]"
                if self.rng.random() < 0.3:  # a term the body stores (b90): before, or for the next iteration
                    u = f"r{k}[i]"
                    setup += (f"r{k} = np.asarray(x, dtype=float) * 0.5",)
                    outputs += (f"r{k}",)
                    ahead = "i - 1" if self.descending else "i + 1"
                    store = self.rng.choice(((f"r{k}[i] *= 2.0",), (f"r{k}[i] = {self.expr(1)}",),
                                             ("if i + 1 < len(x):", f"    r{k}[{ahead}] = {self.expr(1)}")))
                    body = store + body if self.rng.random() < 0.5 else body + store
                if self.rng.random() < 0.25:  # the term reads what the exclusive read wrote (b89): no scan
                    body += (f"p{k}[i] = {p} {other} {read}",)
                else:
                    body += (f"p{k}[i] = {read} {other} {u}",)
                zeros = self.rng.choice(("np.zeros(len(x))", "np.zeros(len(x), np.float32)", "np.zeros(len(x), int)"))
                setup += (f"q{k} = {zeros}",)
                outputs += (f"q{k}",)
            return Fragment("previous output (a recurrence)", EITHER, body, setup, outputs=outputs, **offsets)
        return Fragment("previous output", REFUSE, (f"p{k}[i] = np.tanh(p{k}[{prev}]) + {self.expr(1)}",),
                        (f"p{k} = np.ones(len(x))",), outputs=(f"p{k}",), **offsets)

    def _distributed(self, k):
        """A recurrence no form batches (``q[i] = tanh(q[i - 1] * t) + u``) beside a statement
        reading its array: loop distribution runs the recurrence as a loop of its own and the
        reading statement as whole arrays, after it where it reads the previous iteration's
        element (whichever statement comes first in the body), before it where it reads the
        element a later iteration overwrites (the old value); a scalar of the inputs both read
        is computed in each piece. Planted look-alikes read both (a cycle), or pass the
        element through a scalar (which ties the reading statements into one piece)."""
        if not self.np:
            return self._map(k)
        prev, ahead = ("i + 1", "i - 1") if self.descending else ("i - 1", "i + 1")
        setup = (f"q{k} = np.asarray(x, dtype=float) * 0.5", f"o{k} = np.zeros(len(x))")
        carried = f"q{k}[i] = np.tanh(q{k}[{prev}] * {self.expr(1)}) + {self.expr(1)}"
        shape = self.rng.random()
        if shape < 0.3:
            read = f"o{k}[i] = q{k}[{prev}] * {self.expr(1)}"
        elif shape < 0.55:
            read = f"o{k}[i] = q{k}[{ahead}] + {self.expr(1)}"
        elif shape < 0.65:
            read = f"o{k}[i] = q{k}[i] - q{k}[{ahead}]"
        elif shape < 0.85:  # a scalar of the inputs both statements read: each piece computes it
            body = (f"t{k} = {self.expr(1)} * 2.0", f"q{k}[i] = np.tanh(q{k}[{prev}] * t{k}) + 0.5",
                    f"o{k}[i] = t{k} + {self.expr(1)}")
            return Fragment("loop distribution, a scalar computed in each piece", EITHER, body, setup,
                            outputs=(f"o{k}", f"q{k}"), back=1, ahead=1)
        else:
            body = (f"t{k} = q{k}[{prev}] * 2.0", carried, f"o{k}[i] = t{k} + {self.expr(1)}")
            return Fragment("distribution look-alike", EITHER, body, setup, outputs=(f"o{k}", f"q{k}"),
                            back=1, ahead=1)
        body = (carried, read) if self.rng.random() < 0.5 else (read, carried)
        if self.rng.random() < 0.3:  # under one test of the inputs: split into one `if` per statement
            body = (f"if {self.test()}:", f"    {body[0]}", *(("else:",) if self.rng.random() < 0.5 else ()),
                    f"    {body[1]}")
            return Fragment("loop distribution of an if", EITHER, body, setup, outputs=(f"o{k}", f"q{k}"),
                            back=1, ahead=1)
        return Fragment("loop distribution", EITHER, body, setup, outputs=(f"o{k}", f"q{k}"), back=1, ahead=1)

    def _reordered(self, k):
        """``o[i] = q[i - 1] * ...`` before ``q[i] = ...``: the read sees what the previous
        iteration wrote, which whole-array execution gives where the write runs first
        (statement reordering); a private between them keeps its order. Planted look-alikes
        read ``q[i + 1]`` too (an element a later iteration writes: old, which the reordered
        write would make new) or feed the write from the read's statement (a cycle)."""
        if not self.np:
            return self._map(k)
        setup = (f"q{k} = np.asarray(x, dtype=float) * 0.5", f"o{k} = np.zeros(len(x))")
        shape = self.rng.random()
        # (a planted read of both neighbours: one is written by an earlier iteration whichever
        # way the loop counts, the other by a later one, or the write reads the read's result)
        if shape < 0.15:
            body = (f"o{k}[i] = q{k}[i - 1] + q{k}[i + 1]", f"q{k}[i] = {self.expr(1)}")
            return Fragment("reordering look-alike", REFUSE, body, setup, outputs=(f"o{k}", f"q{k}"),
                            back=1, ahead=1)
        if shape < 0.3:
            body = (f"o{k}[i] = (q{k}[i - 1] + q{k}[i + 1]) * 2.0", f"q{k}[i] = o{k}[i] + {self.expr(1)}")
            return Fragment("reordering cycle", REFUSE, body, setup, outputs=(f"o{k}", f"q{k}"), back=1, ahead=1)
        if shape < 0.6:
            body = (f"t{k} = q{k}[i - 1] * {self.expr(1)}", f"q{k}[i] = {self.expr()}", f"o{k}[i] = t{k} + 1.0")
        else:
            body = (f"o{k}[i] = q{k}[i - 1] * {self.expr(1)}", f"q{k}[i] = {self.expr()}")
        return Fragment("statement reordering", VECTORIZE, body, setup, outputs=(f"o{k}", f"q{k}"), back=1)

    def _derived_write(self, k):
        """``j += 2; o[j] = ...``: a write at a derived induction variable that starts at a
        constant, read as ``j0 + (i + 1) * 2`` (induction-variable substitution); sometimes the
        output is also read there after the update. A planted start below zero may wrap around
        onto elements other iterations write."""
        if not self.np:
            return self._map(k)
        planted = self.rng.random() < 0.2
        start = self.rng.choice(("-9", "-7")) if planted else self.rng.choice(("-1", "0", "3"))
        step = self.rng.choice(("2", "3"))
        self.reads.add("x")  # (a value that varies: one constant stored everywhere collides harmlessly)
        if self.rng.random() < 0.4:  # two updates per iteration (TSVC's s127), or two that collide
            # (`j += 2; o[j]; j -= 1; o[j]` writes o[i + 2] twice, the later iteration's in the
            # later statement: vectorizable; `j -= 1; o[j]; j += 2; o[j]` writes o[i + 3] at
            # iteration i + 4 in the earlier statement: a collision whole-array order gets wrong)
            collide = self.rng.random() < 0.3
            first, second = ("-1", "2") if collide else self.rng.choice(
                (("1", "1"), ("1", "2"), ("2", "1"), ("2", "-1")))
            start = "4" if collide else start
            body = (f"j{k} += {first}", f"o{k}[j{k}] = x[i] + {self.expr(1)}", f"j{k} += {second}",
                    f"o{k}[j{k}] = x[i] * {self.expr(1)}")
            setup = (f"j{k} = {start}", f"o{k} = np.zeros(4 * len(x) + 12)")
            expect = REFUSE if planted or collide else VECTORIZE
            return Fragment("two updates look-alike" if expect == REFUSE else "two updates", expect, body, setup,
                            outputs=(f"o{k}", f"j{k}"))
        body = (f"j{k} += {step}", f"o{k}[j{k}] = x[i] + {self.expr(1)}")
        if self.rng.random() < 0.3:
            body += (f"p{k}[i] = o{k}[j{k}] * 0.5",)
        setup = (f"j{k} = {start}", f"o{k} = np.zeros(3 * len(x) + 4)", f"p{k} = np.zeros(len(x))")
        return Fragment("derived write look-alike" if planted else "derived write", REFUSE if planted else VECTORIZE,
                        body, setup, outputs=(f"o{k}", f"p{k}"))

    def _dtype_edge(self, k):
        """Values whose kind decides the loop's result, where a batched value of one dtype
        would compute otherwise: sums of Python ints past int64 and of int8 or uint64 values
        (at the top and in an inner loop), ``int()`` of floats past int64, a sign under a test
        no bool takes, a derived induction variable beside int8 values, an index difference
        divided by uint8 values, the square of a bool."""
        if not self.np:
            return self._map(k)
        self.reads.add("x")
        shape = self.rng.randrange(8)
        if shape == 0:  # a list of Python ints (a local of no known kind) summed or multiplied
            op, start = self.rng.choice((("+=", "0"), ("*=", "1"), ("-=", "0")))
            setup = (f"b{k} = [int(t * 1000) * 2 ** 60 + 1 for t in np.asarray(x).tolist()]", f"s{k} = {start}")
            return Fragment("python-int reduction", VECTORIZE, (f"s{k} {op} b{k}[i]",), setup, outputs=(f"s{k}",))
        if shape == 1:  # an inner accumulator of int8 or uint64 values
            dtype = self.rng.choice(("np.int8", "np.uint64", "bool"))
            self.reads.add("m2")
            setup = (f"w{k} = (np.asarray(m2) * 90).astype({dtype})", f"o{k} = np.zeros(len(x))")
            body = (f"a{k} = {self.rng.choice(('0', '0.0', '1'))}", f"for j in range(w{k}.shape[1]):",
                    f"    a{k} {self.rng.choice(('+=', '*='))} w{k}[i, j]", f"o{k}[i] = a{k}")
            return Fragment("inner typed accumulator", VECTORIZE, body, setup, outputs=(f"o{k}",))
        if shape == 2:  # int() of floats past int64 (and NaN lanes a test skips)
            setup = (f"o{k} = []", f"g{k} = np.asarray(x) * 1e19")
            body = (f"if g{k}[i] == g{k}[i]:", f"    o{k}.append(int(g{k}[i]))") if self.rng.random() < 0.5 else \
                (f"o{k}.append(int(g{k}[i]))",)
            return Fragment("int past int64", VECTORIZE, body, setup, outputs=(f"o{k}",))
        if shape == 3:  # a sign under a test no bool passes
            setup = (f"f{k} = np.asarray(x) > 0", f"o{k} = np.zeros(len(x))")
            return Fragment("masked sign of bools", VECTORIZE, (f"if f{k}[i] < 0:", f"    o{k}[i] = -f{k}[i]"),
                            setup, outputs=(f"o{k}",))
        if shape == 4:  # a derived induction variable beside int8 or float32 values
            dtype = self.rng.choice(("np.int8", "np.float32", "float"))
            setup = (f"j{k} = {self.rng.choice(('0', '5', '-3'))}", f"v{k} = (np.asarray(x) * 50).astype({dtype})",
                     f"o{k} = np.zeros(len(x))")  # (float64: an int8 product's wrap shows)
            body = (f"j{k} += {self.rng.choice(('1', '2'))}", f"o{k}[i] = v{k}[i] * j{k}")
            return Fragment("derived value", VECTORIZE, body, setup, outputs=(f"o{k}",))
        if shape == 5:  # an index difference over uint8 or float32 values
            self.reads.add("c")
            dtype = self.rng.choice(("np.uint8", "np.float32", "np.int16"))
            setup = (f"u{k} = (np.abs(np.asarray(x)) * 9 + 1).astype({dtype})", f"o{k} = np.zeros(len(x))")
            shift = self.rng.choice(("3", "int(c * 10)"))
            return Fragment("index difference divided", VECTORIZE, (f"o{k}[i] = (i - {shift}) / u{k}[i]",), setup,
                            outputs=(f"o{k}",))
        if shape == 6:  # the square of a bool, collected
            setup = (f"f{k} = np.asarray(x) > 0", f"o{k} = []")
            return Fragment("square of bools", VECTORIZE, (f"o{k}.append(f{k}[i] ** 2 * 200)",), setup,
                            outputs=(f"o{k}",))
        # a sum of Python floats (a list) returned as a number
        setup = (f"h{k} = [float(t) for t in np.asarray(x).tolist()]", f"s{k} = 0.0")
        return Fragment("python-float sum", VECTORIZE, (f"s{k} = s{k} + h{k}[i] * 2",), setup, outputs=(f"s{k}",))

    def _entry_offset(self, k):
        """``q[i] = q[i + off] + ...`` with ``off`` an int constant bound before the loop: read as
        ``q[i + 1]`` (an anti-dependence, vectorizable) by constant propagation; with ``off = -1``
        a planted flow dependence (each iteration reads the previous one's write; counting down,
        ``off = 1``)."""
        if not self.np:
            return self._map(k)
        planted = self.rng.random() < 0.35
        offset = self.rng.choice((-1, -2)) if planted else self.rng.choice((0, 1, 2))
        if self.descending:  # (counting down, `q[i + 1]` is the element the previous iteration wrote)
            offset = -offset
        setup = (f"off{k} = {offset}", f"q{k} = np.array(x, dtype=float)")
        body = (f"q{k}[i] = q{k}[i + off{k}] * 0.5 + {self.expr(1)}",)
        return Fragment("entry-constant offset look-alike" if planted else "entry-constant offset",
                        REFUSE if planted else VECTORIZE, body, setup, outputs=(f"q{k}",),
                        back=max(0, -offset), ahead=max(0, offset))

    def _symbolic_offset(self, k):
        """``q[i + s] = q[i] * 0.5 + ...`` with ``s`` computed before the loop (no constant the
        analysis can read): a distance that depends on ``s``, checked at run time (no
        dependence where ``s >= n``); an ``s`` below the trip count, or negative (indices that
        wrap around), is a real dependence, which the check must send to the loop."""
        if not self.np:
            return self._map(k)
        shift = self.rng.choice(("len(x)", "len(x) + 1", "2 * len(x) + 1", "min(len(x), 1)", "-len(x)",
                                 "len(x) // 2"))
        safe = shift in ("len(x)", "len(x) + 1", "2 * len(x) + 1")
        setup = (f"s{k} = {shift}", f"q{k} = np.array(np.concatenate([x, x, x, [1.0, 2.0, 3.0]]), dtype=float)")
        body = (f"q{k}[i + s{k}] = q{k}[i] * 0.5 + {self.expr(1)}",)
        return Fragment("symbolic offset" if safe else "symbolic offset look-alike", VECTORIZE if safe else EITHER,
                        body, setup, outputs=(f"q{k}",))

    def _read_then_write(self, k):
        """A value read from an element before the loop writes that element (a swap, ``old =
        q[i]; q[i] = ...; o[i] = old + q[i]``, a collected or summed old value): the batched
        code must read it before its write, not the array after."""
        if not self.np:
            return self._map(k)
        setup = (f"q{k} = np.array(x, dtype=float)", f"r{k} = np.array(x, dtype=float) * 2.0")
        shape = self.rng.randrange(4)
        if shape == 0:
            body = (f"t{k} = q{k}[i]", f"q{k}[i] = r{k}[i]", f"r{k}[i] = t{k}")
            return Fragment("swap", VECTORIZE, body, setup, outputs=(f"q{k}", f"r{k}"))
        if shape == 1:
            body = (f"t{k} = q{k}[i]", f"q{k}[i] = {self.expr(1)}", f"r{k}[i] = t{k} + q{k}[i]")
            return Fragment("old value", VECTORIZE, body, setup, outputs=(f"q{k}", f"r{k}"))
        if shape == 2:
            body = (f"o{k}.append(q{k}[i])", f"q{k}[i] = 0.0")
            return Fragment("collected old value", VECTORIZE, body, setup + (f"o{k} = []",),
                            outputs=(f"q{k}", f"np.array(o{k})"))
        body = (f"t{k} = q{k}[i]", f"q{k}[i] = {self.expr(1)}", f"s{k} += t{k}")
        return Fragment("summed old value", VECTORIZE, body, setup + (f"s{k} = 0.0",), outputs=(f"q{k}", f"s{k}"))

    def _ordered_writes(self, k):
        """Two writes that touch one element in two iterations (``o[i + 1] = ...`` then ``o[i] =
        ...``, TSVC's s2244): vectorizable where the later iteration's write is the later
        statement (counting down, the other way round); the other order is an output dependence
        whole-array execution of the loop as written would get wrong, which loop distribution
        resolves by running the later statement's loop first (or the loop stays whole)."""
        if not self.np:
            return self._map(k)
        planted = self.rng.random() < 0.35
        ahead, here = f"o{k}[i + 1] = {self.expr(1)}", f"o{k}[i] = {self.expr(1)} * 2.0"
        right = (here, ahead) if self.descending else (ahead, here)
        body = right[::-1] if planted else right
        return Fragment("ordered writes, the other order" if planted else "ordered writes", EITHER if planted else VECTORIZE,
                        body, (f"o{k} = np.zeros(len(x) + 2)",), outputs=(f"o{k}",))

    def _stencil(self, k):
        if not self.np:
            return self._carried(k)
        return Fragment("in-place stencil", REFUSE, ("d[i] = (d[i - 1] + d[i + 1]) * 0.5",), outputs=("d",),
                        reads=frozenset({"d"}), back=1, ahead=1)

    def _collide(self, k):
        if not self.np:
            return self._carried(k)
        # a value that varies (one constant in every write would collide harmlessly)
        return Fragment("colliding scatter", REFUSE, (f"h{k}[idx[i]] = x[i] + {self.expr(1)}",),
                        (f"h{k} = np.zeros(len(x) + 1)",), outputs=(f"h{k}",), reads=frozenset({"idx"}))

    def _break(self, k):
        return Fragment("break", REFUSE, (f"if {self.test()}:", "    break"))

    def _return(self, k):
        return Fragment("return", REFUSE, (f"if {self.test()}:", "    return -1.0"))

    def _print(self, k):
        return Fragment("print", REFUSE, (f"print('it', i)",))

    def _global(self, k):
        return Fragment("global write", REFUSE, (f"if {self.test()}:", "    COUNT += 1"), globals=("COUNT",))

    def _attribute(self, k):
        return Fragment("attribute write", REFUSE, (f"box.total = box.total + {self.expr(1)}",),
                        reads=frozenset({"box"}))

    def _random(self, k):
        setup, _ = self._out(k)
        draw = "np.random.rand()" if self.np else "tf.random.uniform([])"
        return Fragment("random draw", REFUSE, (self._write(k, f"{self.expr(1)} + {draw}"),), setup,
                        outputs=self._result(k))

    def _view(self, k):
        if not self.np:
            return self._carried(k)
        return Fragment("aliased view", REFUSE, (f"w{k}[i] = d[i] * 2.0",), (f"w{k} = d[1:]",),
                        outputs=("d",), reads=frozenset({"d"}), ahead=1, lists_ok=False)

    def _alias(self, k):
        """Writes through a second name of an argument what the next iteration reads."""
        if not self.np:
            return self._carried(k)
        prev, offsets = ("i + 1", {"ahead": 1}) if self.descending else ("i - 1", {"back": 1})
        return Fragment("aliased name", REFUSE, (f"e{k}[i] = d[{prev}] * 0.5 + {self.expr(1)}",),
                        (f"e{k} = d",), outputs=("d",), reads=frozenset({"d"}), **offsets)

    def _block(self, k):
        """Each iteration writes its own block of a longer array (pooling, block averages):
        ``q[b*i:b*(i + 1)]`` with the stride a name, or ``q[2*i:2*i + 2]``; the block may be
        read back in the same statement, or only read, by a reduction."""
        if not self.np:
            return self._map(k)
        width = self.rng.choice((1, 2, 3))
        named = self.rng.random() < 0.6
        block = f"b{k} * i:b{k} * (i + 1)" if named else f"{width} * i:{width} * i + {width}"
        setup = ((f"b{k} = {width}",) if named else ()) + (f"q{k} = np.arange({width} * len(x)) * 0.5",)
        r = self.rng.random()
        if r < 0.35:
            return Fragment("own block", VECTORIZE, (f"q{k}[{block}] = {self.expr()}",), setup, outputs=(f"q{k}",))
        if r < 0.7:
            return Fragment("own block, read back", VECTORIZE,
                            (f"q{k}[{block}] = q{k}[{block}] * {self.expr(1)} + 1.0",), setup, outputs=(f"q{k}",))
        return Fragment("own block, reduced", VECTORIZE, (f"o{k}[i] = np.max(q{k}[{block}]) + {self.expr(1)}",),
                        setup + (f"o{k} = np.zeros(len(x))",), outputs=(f"o{k}",))

    def _masked_private(self, k):
        """An array the iteration allocates, written at positions a per-iteration mask selects
        (``a = np.abs(m2[i]) * 1.5; a[a > 0.5] = v``), in the body or in a helper; through a
        view of the argument's row instead, the write changes the argument (EITHER: each
        iteration writes its own row)."""
        if not self.np:
            return self._map(k)
        value = self.rng.choice((self.expr(1), "0.0", "-1"))
        cut = self.rng.choice(("0.5", "c", "x[i]"))
        if cut == "c":
            self.reads.add("c")
        if self.rng.random() < 0.25:
            body = (f"a{k} = m2[i]", f"a{k}[a{k} > {cut}] = {value}", self._write(k, f"np.sum(a{k})"))
            setup, _ = self._out(k)
            return Fragment("masked write through a view", EITHER, body, setup, outputs=self._result(k) + ("m2",),
                            reads=frozenset({"m2"}))
        setup, _ = self._out(k)
        if self.rng.random() < 0.4:
            helper = (f"def _clip{k}(row, cut, value):", "    a = np.abs(row) * 1.5", "    a[a > cut] = value",
                      "    return a")
            body = (self._write(k, f"np.sum(_clip{k}(m2[i], {cut}, {value}))"),)
            return Fragment("masked private in a helper", VECTORIZE, body, setup, outputs=self._result(k),
                            reads=frozenset({"m2"}), helpers=helper)
        body = (f"a{k} = np.abs(m2[i]) * 1.5", f"a{k}[a{k} > {cut}] = {value}", self._write(k, f"np.sum(a{k})"))
        return Fragment("masked private", VECTORIZE, body, setup, outputs=self._result(k), reads=frozenset({"m2"}))

    def _mark(self, k):
        """One constant stored at data-chosen positions that collide (``seen[idx[i]] = 1.0``),
        perhaps under a test: the order of the writes makes no difference."""
        if not self.np:
            return self._map(k)
        value = self.rng.choice(("1.0", "-2.5", "0.0"))
        body = (f"h{k}[idx[i]] = {value}",)
        if self.rng.random() < 0.4:
            body = (f"if {self.test()}:", f"    h{k}[idx[i]] = {value}")
        return Fragment("one constant scattered", VECTORIZE, body, (f"h{k} = np.full(len(x) + 1, 3.0)",),
                        outputs=(f"h{k}",), reads=frozenset({"idx"}))

    def _guarded_read(self, k):
        """A read the loop makes only where a test lets it: past the end (``x[i + 1]`` where
        ``i + 1 < len(x)``), at an index the data choose, or in a later operand of ``and``, an
        ``elif`` test or one arm of a conditional expression. Batched code that reads every
        iteration's element would raise ``IndexError`` where the loop returns."""
        if not self.np:
            return self._map(k)
        setup, _ = self._out(k)
        nxt = "i - 1" if self.descending else "i + 1"
        inside = "i - 1 >= 0" if self.descending else "i + 1 < len(x)"
        far = f"(idx[i] + len(x) - 2)"
        self.reads.add("idx")
        form = self.rng.choice(("if", "and", "ifexp", "elif", "data"))
        e = self.expr(1)
        if form == "if":
            body = (f"if {inside}:", f"    {self._write(k, f'x[{nxt}] * {e}')}")
        elif form == "and":
            body = (f"if {inside} and x[{nxt}] > {e}:", f"    {self._write(k, f'x[{nxt}]')}",
                    "else:", f"    {self._write(k, e)}")
        elif form == "ifexp":
            body = (self._write(k, f"x[{nxt}] - {e} if {inside} else {e}"),)
        elif form == "elif":
            body = (f"if not ({inside}):", f"    {self._write(k, '-1.0')}", f"elif x[{nxt}] > 0.0:",
                    f"    {self._write(k, f'x[{nxt}] + {e}')}", "else:", f"    {self._write(k, e)}")
        else:  # an index the data choose, past the end for some
            body = (f"if {far} < len(x):", f"    {self._write(k, f'x[{far}] * {e}')}")
        return Fragment(f"guarded read ({form})", VECTORIZE, body, setup, outputs=self._result(k))

    def _marks(self, k):
        """Two constants at data-chosen positions that collide: the last write wins."""
        if not self.np:
            return self._carried(k)
        return Fragment("two constants scattered", REFUSE,
                        (f"if {self.test()}:", f"    h{k}[idx[i]] = 1.0", "else:", f"    h{k}[idx[i]] = 2.0"),
                        (f"h{k} = np.zeros(len(x) + 1)",), outputs=(f"h{k}",), reads=frozenset({"idx"}))

    def _overlap(self, k):
        """Blocks that meet: a window one longer than its stride (two iterations write one
        element), or the next block read, which a later iteration overwrites (counting down,
        an earlier one wrote it: a flow dependence)."""
        if not self.np:
            return self._carried(k)
        setup = (f"b{k} = 2", f"q{k} = np.arange(2 * len(x) + 4) * 0.5")
        if self.rng.random() < 0.5:
            # a value that varies: one constant in every write would overlap harmlessly
            return Fragment("overlapping blocks", REFUSE, (f"q{k}[b{k} * i:b{k} * i + b{k} + 1] = x[i] + {self.expr(1)}",),
                            setup, outputs=(f"q{k}",))
        return Fragment("next block read", REFUSE if self.descending else EITHER,
                        (f"q{k}[b{k} * i:b{k} * (i + 1)] = q{k}[b{k} * (i + 1):b{k} * (i + 2)] + {self.expr(1)}",),
                        setup, outputs=(f"q{k}",))

    def _column_scatter(self, k):
        """``G[:, j] += R[i]`` or ``G[:, c[i]] -= R[i]`` in a loop over ``j`` under a test of
        ``i`` and ``j`` (a linear SVM's gradient): updates along the second axis, some at
        colliding columns; and ``H[c[i]] += R[i]`` there, whose index varies along ``i`` only."""
        if not self.np:
            return self._map(k)
        self.reads.add("x")
        # (updates of another dtype than G's: a negated uint8 wraps, a bool raises)
        dtype = self.rng.choice(("float", "float", "np.float32", "np.uint8", "np.int8", "bool"))
        test = self.rng.choice((f"j != c{k}[i] and {self.test()}", f"{self.expr(1)} > j - 1.5", f"j != c{k}[i]",
                                f"{self.expr(1)} >= R{k}[i, 0] * j"))
        update = self.rng.choice((f"G{k}[:, j] += R{k}[i]", f"G{k}[:, c{k}[i]] -= R{k}[i]",
                                  f"H{k}[c{k}[i]] += R{k}[i]", f"G{k}[:, j] -= R{k}[i] * j",
                                  f"G{k}[:, c{k}[i]] += {self.expr(1)}"))
        body = ("for j in range(3):", f"    if {test}:", f"        {update}")
        setup = (f"c{k} = (np.arange(len(x)) * 7) % 3",
                 f"R{k} = (np.stack([np.asarray(x, dtype=float), np.asarray(x, dtype=float) * 2 - 1], axis=1)"
                 f" * (1 if {dtype} in (float, np.float32) else 3)).astype({dtype})",
                 f"G{k} = np.zeros((2, 3))", f"H{k} = np.zeros((3, 2))")
        return Fragment("column scatter", VECTORIZE, body, setup, outputs=(f"G{k}", f"H{k}"))

    def _constant_branch(self, k):
        """``r = 0`` before the loop and ``if r != 0: r = E`` in it: the branch never runs, so
        ``r`` stays 0 on every iteration. A planted look-alike's test also holds for some data
        (``r != 0 or x[i] > 0``): ``r`` is carried."""
        planted = self.rng.random() < 0.3
        test = f"r{k} != 0" + (f" or x[i] > {self.rng.choice(('0.0', '0.5', '-0.5'))}" if planted else "")
        setup, _ = self._out(k)
        body = (f"if {test}:", f"    r{k} = {self.expr(1)}", self._write(k, f"{self.expr(1)} + r{k}"))
        return Fragment("carried branch look-alike" if planted else "constant branch", REFUSE if planted else VECTORIZE,
                        body, (f"r{k} = 0",) + setup, outputs=self._result(k) + (f"r{k}",))

    def _invariant_choice(self, k):
        """``a if c > 0.5 else b`` of per-iteration arms with an invariant test: every
        iteration takes the same arm. One arm is sometimes invariant (``x[i] if c > 0.5 else
        0.5``: the arm taken is one number on every iteration), and the value is sometimes
        summed (``s += ...``), where a batched single number would be one term."""
        self.reads.add("c")
        arms = [self.expr(1), self.expr(1)]
        if self.rng.random() < 0.4:
            arms[self.rng.randrange(2)] = self.rng.choice(("0.5", "c", "c * 0.5", "-c"))
        value = f"({arms[0]} if c > 0.5 else {arms[1]})"
        if self.rng.random() < 0.3:
            return Fragment("invariant choice summed", VECTORIZE, (f"s{k} += {value}",), (f"s{k} = 0.0",),
                            outputs=(f"s{k}",))
        setup, _ = self._out(k)
        return Fragment("invariant choice", VECTORIZE, (self._write(k, f"{value} * 2"),), setup,
                        outputs=self._result(k))

    def _invariant_if(self, k):
        """An ``if`` at the top of the body whose test is the same on every iteration (``if c >
        0.5:``): the loop is rewritten once per outcome (unswitched). The branches write, bind a
        private, add to a running sum or hold a per-iteration ``if``; sometimes one has no
        ``else``. A planted look-alike tests a name the loop binds after it: carried."""
        self.reads.add("c")
        setup, _ = self._out(k)
        test = self.rng.choice(("c > 0.5", "not c > 0.5", "c > 0.5 and c < 2.0", "c <= -0.5 or c > 1.0"))
        if self.rng.random() < 0.2:
            body = (f"if q{k} > 0.5:", f"    {self._write(k, self.expr())}", "else:",
                    f"    {self._write(k, self.expr())}", f"q{k} = x[i]")
            return Fragment("invariant if look-alike", REFUSE, body, setup + (f"q{k} = 0.0",),
                            outputs=self._result(k) + (f"q{k}",))
        form = self.rng.random()
        if form < 0.3:
            body = (f"if {test}:", f"    {self._write(k, self.expr())}", "else:", f"    {self._write(k, self.expr())}")
        elif form < 0.5:
            body = (f"t{k} = {self.expr()}", f"if {test}:", f"    t{k} = t{k} * {self.expr(1)}",
                    self._write(k, f"t{k} + 1.0"))
        elif form < 0.7:
            body = (f"if {test}:", f"    s{k} += {self.expr()}", self._write(k, self.expr(1)))
            return Fragment("invariant if", VECTORIZE, body, setup + (f"s{k} = 0.0",),
                            outputs=self._result(k) + (f"s{k}",))
        else:
            body = (f"if {test}:", f"    if {self.test()}:", f"        {self._write(k, self.expr())}",
                    "    else:", f"        {self._write(k, self.expr(1))}", "else:", f"    {self._write(k, self.expr())}")
        return Fragment("invariant if", VECTORIZE, body, setup, outputs=self._result(k))

    def _live_invariant(self, k):
        """``s = len(x) * 2 + c`` in the loop, read after it: the same on every iteration, its
        last value is computed once. ``s = x[i] * 0.5`` (before or after the write) is the last
        iteration's value (``lastprivate``), and so is the loop index ``i`` read after it; a
        planted look-alike binds it under a test only, the value of the last iteration that
        passed it. The values go into an array or into a list whose items read ``s`` or ``i``
        (the batched list is bound after the level: the names must still hold every
        iteration's values there)."""
        r = self.rng.random()
        self.reads.add("c")
        setup, _ = self._out(k)
        result = self._result(k)
        if self.rng.random() < 0.4:  # a list the batched code binds after the level, reading its names
            setup, result = (f"o{k} = []",), (f"{self.lib}.stack(o{k})" if self.np else f"tf.stack(o{k})",)
            write = f"o{k}.append({self.expr()} + {self.rng.choice((f's{k}', 'i' if self.np else '1.0'))})"
        else:
            write = self._write(k, self.expr())
        if r < 0.3:
            bind = f"s{k} = {self.expr()}"
            return Fragment("last value", VECTORIZE, (bind, write) if f"s{k})" in write or self.rng.random() < 0.5
                            else (write, bind), setup + (f"s{k} = -1",), outputs=result + (f"s{k}",))
        if f"s{k})" in write:
            write = write.replace(f"+ s{k})", "+ 1.0)")
        if r < 0.4:  # the loop's own index: the range's last (its lowest walked backwards)
            before = ("i = -7",) if self.rng.random() < 0.5 else ()
            return Fragment("loop variable", VECTORIZE, (write,), setup + before, outputs=result + ("i",))
        if r < 0.5:
            # the value of the last iteration whose test held (a conditional lastprivate); a
            # look-alike reads it in the body too (then it carries from iteration to iteration)
            value = self.rng.choice(("x[i] * 0.5", "i", self.expr()))
            if self.rng.random() < 0.25:
                return Fragment("last value under a test, read in the body", REFUSE,
                                (f"t{k} = s{k} + 1.0", write, f"if {self.test()}:", f"    s{k} = {value}"),
                                setup + (f"s{k} = -1",), outputs=result + (f"s{k}", f"t{k}"))
            return Fragment("last value under a test", VECTORIZE, (write, f"if {self.test()}:", f"    s{k} = {value}"),
                            setup + (f"s{k} = -1",), outputs=result + (f"s{k}",))
        return Fragment("live invariant", VECTORIZE, (write, f"s{k} = len(x) * 2 + c"), setup + (f"s{k} = -1",),
                        outputs=result + (f"s{k}",))

    def _linear(self, k):
        """A first-order linear recurrence on its own, as ML and finance code spell it:
        exponential smoothing, discounted returns (with a descending loop), an AR(1) with a
        coefficient per step, an account's balance. One coefficient for every iteration (a
        literal, an invariant, an expression of invariants) or one per iteration; offsets of
        one row or of rows times an invariant (``c * x[i]``: read forwards when the loop
        counts down); each of the four spellings; read in the body or only after the loop.
        Look-alikes: the running value squared (nonlinear), one step back too (second order), or
        a coefficient from a helper with a side effect (it logs each value it is given)."""
        lib, s = self.lib, f"s{k}"
        self.reads.add("c")
        coef = self.rng.choice(("0.5", "c", "(1.0 - c)", "0.99", "(0.5 + 0.25)",
                                f"{lib}.tanh(x[i])", f"(0.9 + 0.1 * {lib}.sin(y[i]))"))
        if "y[" in coef:
            self.reads.add("y")
        offset = self.rng.choice(("x[i]", "c * x[i]", "x[i] * 2.0 + c", "-x[i]", self.expr(1)))
        spelled = self.rng.choice((f"{s} = {coef} * {s} + {offset}", f"{s} = {offset} + {coef} * {s}",
                                   f"{s} = {s} * {coef} - ({offset})", f"{s} = {offset} - {coef} * {s}"))
        init = self.rng.choice(("0.0", "1.5", "0", "c"))
        r = self.rng.random()
        if r < 0.1:  # nonlinear: the running value squared
            spelled, expect, kind = f"{s} = {coef} * {s} * {s} + {offset}", REFUSE, "linear look-alike, squared"
        elif r < 0.18:  # second order: the value before the last too
            spelled, expect, kind = f"{s}, p{k} = {coef} * {s} + p{k} + {offset}, {s}", REFUSE, \
                "linear look-alike, second order"
        elif r < 0.26:  # a data-dependent coefficient with a side effect: the log's order is observable
            spelled, expect, kind = f"{s} = g{k}(x[i], seen{k}) * {s} + {offset}", REFUSE, \
                "linear look-alike, coefficient with an effect"
        else:
            expect, kind = EITHER, "linear recurrence alone"
        setup = (f"{s} = {init}", f"p{k} = 0.0") if "p{k}".format(k=k) in spelled else (f"{s} = {init}",)
        helpers, logged = (), ()
        if "seen" in spelled:
            helpers = (f"def g{k}(v, seen):", "    seen.append(float(v))", "    return 0.5 + 0.1 * v")
            setup, logged = setup + (f"seen{k} = []",), (f"seen{k}",)
        if self.rng.random() < 0.3:
            return Fragment(kind, expect, (spelled,), setup, outputs=(s,) + logged, helpers=helpers)
        out_setup, _ = self._out(k)
        read = self.rng.choice((s, f"{s} * 2.0"))
        return Fragment(kind, expect, (spelled, self._write(k, read)), setup + tuple(out_setup),
                        outputs=self._result(k) + (s,) + logged, helpers=helpers)

    def _rows(self, k):
        if not self.np:
            return self._carried(k)
        return Fragment("aliased list rows", REFUSE,
                        ("for j in range(3):", f"    r{k}[i][j] = {self.expr(1)} * j"),
                        (f"r{k} = [[0.0] * 3] * len(x)",), outputs=(f"np.array(r{k})",))


#: (fragment kind, weight) for independent bodies and planted dependences
INDEPENDENT = (("map", 4), ("private", 2), ("branch", 3), ("branch-partial", 2), ("branch-inplace", 3),
               ("reduction", 5), ("count", 1), ("argmax", 2), ("gather", 2), ("scatter-add", 2),
               ("nest-carried", 2), ("pair", 2), ("prefix", 1), ("filter", 2), ("window", 2),
               ("selection", 2), ("masked-write", 1), ("tuple-reduction", 2), ("stack-axis", 2),
               ("linearized", 2), ("comprehension", 2), ("helper", 2), ("first-assign", 2), ("scan", 3),
               ("block", 2), ("mark", 1), ("masked-private", 2), ("guarded-read", 2), ("local-helper", 2),
               ("list-row", 1), ("default-arm", 2), ("wrap-around", 2),
               ("list-of-lists", 1), ("mixed-arithmetic", 2), ("conditional-update", 2), ("column-scatter", 2),
               ("constant-branch", 2), ("invariant-choice", 2), ("live-invariant", 2), ("invariant-if", 2),
               ("reordered", 2), ("derived-write", 2), ("dtype-edge", 3), ("entry-offset", 2),
               ("symbolic-offset", 2), ("read-then-write", 2),
               ("ordered-writes", 2), ("inner-comprehension", 2), ("shape-read", 2), ("grid", 2),
               ("distributed", 3), ("fixed-element", 2), ("contraction", 3),
               ("interchange", 2), ("triangle", 3), ("symmetric", 2), ("reached-invariant", 3),
               ("distance", 2), ("kept-running", 2), ("pairwise", 3), ("pack", 2), ("crossing", 2),
               ("row-view", 2), ("linear", 3), ("masked-sum", 3), ("affine", 2), ("zip", 2))
DEPENDENT = (("carried", 2), ("inner-of-carried", 1), ("prefix", 1), ("stencil", 1), ("collide", 1), ("break", 1), ("return", 1),
             ("print", 1), ("global", 1), ("attribute", 1), ("random", 1), ("view", 1), ("rows", 1),
             ("alias", 1), ("overlap", 1), ("marks", 1))


def _pick(rng, table):
    kinds, weights = zip(*table)
    return rng.choices(kinds, weights)[0]


def generate(seed: int) -> Program:
    """The program numbered ``seed``: same seed, same program.

    About a third of programs plant a dependence; one in four starts with a ``continue``
    guard; half are TensorFlow.
    """
    rng = random.Random(seed)
    library = "numpy" if rng.random() < 0.5 else "tensorflow"
    descending = rng.random() < 0.15
    b = _Builder(rng, library, descending)
    frags = [b.fragment(_pick(rng, INDEPENDENT)) for _ in range(rng.choice((1, 1, 2, 2, 3)))]
    if rng.random() < 0.33:
        frags.insert(rng.randrange(len(frags) + 1), b.fragment(_pick(rng, DEPENDENT)))
    if rng.random() < 0.25:
        frags.insert(0, b.fragment("guard"))
    return Program(seed, library, tuple(frags), descending=descending,
                   by_len=library == "numpy" or rng.random() < 0.5,
                   spelled_reversed=random.Random(seed * 31 + 7).random() < 0.5)
