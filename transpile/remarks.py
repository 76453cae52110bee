"""The remark catalogue: stable codes for every verdict, with their documentation.

``PF1xx`` codes say a loop can be vectorized (the pattern); ``PF2xx`` codes say why a loop
cannot be (the dependence or effect that blocks it); ``PF3xx`` codes are notes about what the
backend did or could not do. Codes never change meaning once published (like ruff's).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """Documentation of one remark code (``pforge rule CODE`` prints it)."""

    code: str
    name: str
    summary: str
    explanation: str
    example_bad: str
    example_good: str


@dataclass(frozen=True)
class Remark:
    """One finding at a source position.

    Attributes:
        code: a catalogue code such as ``PF101``.
        message: one line: what was found, on which variable, between which lines, what to do.
        lineno, col: 1-based line and 1-based column of the loop or the offending node.
    """

    code: str
    message: str
    lineno: int
    col: int

    @property
    def vectorizable(self) -> bool:
        return self.code.startswith("PF1")

    def format(self, path: str) -> str:
        return f"{path}:{self.lineno}:{self.col}: {self.code} {self.message}"


RULES: dict[str, Rule] = {}


def _rule(code, name, summary, explanation, bad, good):
    assert code not in RULES, f"remark {code} registered twice"
    RULES[code] = Rule(code, name, summary, explanation.strip(), bad.strip(), good.strip())


_rule("PF101", "vectorizable-map",
      "The loop's iterations are independent: it is a map over its iteration space.",
      """
Each iteration reads loop-invariant values and its own element, and writes only its own
output (a list it appends to, an indexed slot, a TensorArray entry). The loop can be replaced
by one batched computation over a new leading axis (pfor, arXiv:1903.04243). Loops written as
expressions count too: a list or dict comprehension over array values, and `tf.map_fn` with a
pure function (rewritten as `tf.vectorized_map`). An indexed output that is an argument of
the function is named: the caller's array is updated in place, and the rewrite keeps that.
""", """
outs = []
for i in range(x.shape[0]):
    outs.append(tf.nn.relu(tf.linalg.matvec(w, x[i], transpose_a=True)))
y = tf.stack(outs)
""", """
y = tf.nn.relu(tf.linalg.matmul(x, w))    # what `pforge transpile` writes (direct backend)
""")
_rule("PF102", "vectorizable-reduction",
      "The loop accumulates with an associative operator: it is a reduction.",
      """
`s += e`, `s = s * e`, `s = tf.maximum(s, e)`, `n += 1` under an `if`: each iteration only
combines its own term into the accumulator, so the terms can be computed in a batch and
reduced along the loop axis. Floating-point sums are reassociated, so the last bits may
differ from the loop's left-to-right order. Argmax/argmin tracking
(`if v > best: best, idx = v, i`) is a `max` reduction plus the first iteration that reached
it (`>=` keeps the last, as the loop does).
""", """
total = 0.0
for i in range(n):
    total += tf.reduce_sum(tf.square(pred[i] - target[i]))
""", """
total = 0.0 + tf.reduce_sum(tf.square(pred[:n] - target[:n]))
""")
_rule("PF103", "vectorizable-filter",
      "The loop keeps the elements that pass a per-element test: a mask and a compaction.",
      """
`if cond: out.append(e)` collects a data-dependent number of elements, in loop order. It is
`tf.boolean_mask` (or `np.nonzero`) of the batched values with the batched test. Written into
an array by a counter instead (a pack, `if cond: out[k] = e; k += 1`, or `k += 1` first: TSVC
s341), it is the same mask: NumPy code writes the kept values into the slice from `k` on and
moves `k` past them, where `out` is an array and `k` an integer that starts at an index of 0
or more (checked at run time).
""", """
kept = []
for i in range(x.shape[0]):
    if tf.reduce_max(x[i]) > 0.5:
        kept.append(x[i])
kept = tf.stack(kept)
""", """
kept = tf.boolean_mask(x, tf.reduce_max(x, axis=-1) > 0.5)
""")
_rule("PF104", "vectorizable-scatter-add",
      "Iterations may update the same element, but only with `+=`, which commutes.",
      """
`counts[idx] += 1` where several iterations can hit the same index is a scatter-add
(`tf.tensor_scatter_nd_add`, `np.add.at`), which is correct with repeated indices. A plain
fancy-indexed `counts[idxs] += 1` is not: it loses colliding updates.
""", """
for k in range(n):
    counts[labels[k]] += 1
""", """
np.add.at(counts, labels[:n], 1)
""")
_rule("PF105", "vectorizable-per-example-gradient",
      "Each iteration runs its own GradientTape: per-example gradients or jacobian rows.",
      """
A tape inside the body differentiates one example (or one output entry) at a time. A batched
tape over the summed loss would return the SUM of the gradients; `tf.vectorized_map` over the
body returns the per-example stack, as the loop does (38x faster on GPU for an LSTM in the
pfor paper). When the loop indices only select the entry to differentiate (`y_i = y[i]`, or
`g[i, j]` in a nest, under the tape, everything else loop-invariant: rows of a Jacobian), the
direct backend records the forward pass once and writes `tape.jacobian(y, x)`; where `y` is
elementwise steps over `tf.linalg.matvec(w, x)` (a dense layer), it writes the Jacobian in
closed form, `(1.0 - tf.square(y))[:, tf.newaxis] * w` for `tanh`, under a test that keeps
`tape.jacobian` where the tape would see otherwise (an unsafe fix: a NaN in one row stays in
that row, where the loop's backward pass spreads it to all).
""", """
grads = []
for i in range(x.shape[0]):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(tf.linalg.matvec(w, x[i], transpose_a=True)))
    grads.append(tape.gradient(loss, w))
grads = tf.stack(grads)
""", """
def per_example(x_i):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(tf.linalg.matvec(w, x_i, transpose_a=True)))
    return tape.gradient(loss, w)

grads = tf.vectorized_map(per_example, x)
""")
_rule("PF106", "vectorizable-scan",
      "A running value the body also reads: a prefix scan.",
      """
`s += e` (or `s *= e`, `s = np.maximum(s, e)`) where the body also reads `s`: each iteration
needs the total of the ones before it, yet the totals are a prefix scan of the terms, which
a library computes in one call (Blelloch, "Prefix sums and their applications", 1990). A read
after the update sees the running value with this iteration's term (inclusive), a read
before it the value without (exclusive). For NumPy loops whose reads are inclusive, the
direct backend writes `ufunc.accumulate` over the running value followed by the batched
terms, which adds in the loop's own order and dtype, so the values are the loop's, bit for
bit: O(n) work. An exclusive read that is only stored (`starts[i] = total` before `total +=
counts[i]`: the offsets of a ragged array) takes the running values before each term, the
first stored again from the start itself; any other exclusive read stays a loop (its first
value is the start itself, of another kind than the running values). A complex product
steps in order (an array's complex multiply rounds otherwise than the scalar one).

An array recurrence, `a[i] = a[i - 1] + b[i]` (also `*`, `np.maximum`, `np.minimum` and the
linear form below), reads the element the iteration before wrote; carried in a name
(scalar replacement; Allen and Kennedy 2001, section 8.3) it is a scan that starts from the
element before the first write. The loop stores each value into `a` and reads it back, so
the running values are kept in `a`'s dtype: where the terms would widen them (int32
elements, float terms) the steps run in order. In TensorFlow code a sum or product becomes
`tf.math.cumsum`/`tf.math.cumprod` over `[s, terms]` (an unsafe fix: TensorFlow's order,
parallel on a GPU, may differ in the last bits; O(n) work, O(log n) depth on a GPU), and
over the terms alone where `s` starts at the literal 0 (1 for a product), for terms of any
rank; a read before the update that only appends `s` to a stacked list takes
`exclusive=True`, and a loop counting down over `x[::-1]` scans `x` with `reverse=True`
(rewards-to-go: `tf.math.cumsum(r, axis=0, reverse=True)`; `tf.stack(out[::-1])` then reads
the values in `x`'s order). A maximum, minimum or linear recurrence becomes `tf.scan` (with
`reverse=True` walking backwards), which runs the loop's own steps in order inside the
graph: O(n) work and depth. With no rank known, any of these from a start that is not its
identity is `tf.scan` over the rows the step reads, the loop's own update on one row; a step
that needs the rows' values (`float(x[t])`, `.numpy()`, NumPy calls) stays a loop.

A first-order linear recurrence `s = a * s + b` (exponential smoothing, discounted returns
walked backwards, an AR(1) filter) is a scan too: the maps `s -> a * s + b` compose
associatively, so it runs as a blocked scan (Blelloch 1990): each block of 16 values is
scanned by one product with the Toeplitz matrix of the powers of `a` (of 4, in lanes, where
`a` varies per step), the block ends by log2(n / 16) rounds of recursive doubling (Hillis and
Steele 1986), and each block then takes in the end before it (walked backwards with one
coefficient, in the array's own order: the block after it). O(n) work, O(log n) depth;
products of the coefficients, never a division; where a power overflows or meets an
infinity the steps run in order. Its rounding differs from the loop's order in the last
bits: an unsafe fix.
""", """
s = 0.0
for i in range(x.shape[0]):
    s += x[i] * w[i]
    out[i] = s
""", """
s_steps = np.empty(x.shape[0] + 1, np.result_type(s, x * w))
s_steps[0] = s
s_steps[1:] = x * w
np.add.accumulate(s_steps, out=s_steps)
out[:x.shape[0]] = s_steps[1:]
s = s_steps[-1]
""")
_rule("PF201", "loop-carried-scalar",
      "A variable is read before it is written in the same iteration: a loop-carried dependence.",
      """
The value read in iteration k was written by iteration k-1, so the iterations must run in
order. If the update is an associative scan, `tf.scan` (or a closed form) can still replace
the loop; pforge leaves it as it is.
""", """
h = h0
for t in range(x.shape[0]):
    h = tf.tanh(tf.linalg.matvec(u, h) + x[t])
""", """
hs = tf.scan(lambda h, x_t: tf.tanh(tf.linalg.matvec(u, h) + x_t), x, initializer=h0)
""")
_rule("PF202", "loop-carried-element",
      "An iteration reads an element that an earlier iteration wrote (a flow dependence).",
      """
`out[i] = f(out[i - 1])` reads the value written one iteration earlier (distance 1). The
shifted-slice rewrite `out[1:] = f(out[:-1])` runs but reads the OLD values: it computes a
different result. Reading a LATER element (`a[i] = a[i + 1]`) is fine: whole-array semantics
read it before any write.
""", """
for i in range(1, n):
    smooth[i] = (smooth[i - 1] * 13 + obs[i]) / 14
""", """
for i in range(n - 1):
    a[i] = a[i + 1] + b[i]      # reads only elements no earlier iteration wrote
""")
_rule("PF203", "unproven-subscripts",
      "pforge cannot prove that different iterations touch different elements.",
      """
The written index is not an injective affine function of the loop variable (for example it
is computed from data, or the loop variable does not appear in it), or a read of the same
array uses an index whose distance to the write is unknown. Several iterations may write the
same element, or read one another's results. Two names of one array (`b = a`) are followed
back to one array before the test; a view (`b = a[1:]`, `a.T`, `a.reshape(...)`) written while
the other name is read is reported here, since the element mapping between them is not
modelled: make a copy.
""", """
for i in range(n):
    out[idx[i]] = x[i]          # two i with equal idx[i] collide
""", """
for i in range(n):
    out[i] = x[idx[i]]          # data-dependent READS are fine
""")
_rule("PF204", "early-exit",
      "The body can leave the loop early (`break`, `return`, `yield`, `raise`, `assert`).",
      """
Whether iteration k runs depends on what earlier iterations found, so they cannot all run at
once. A failing `assert` or `raise` stops the loop at the first bad element; check the whole
batch before or after the loop instead.
""", """
for i in range(n):
    if x[i] < 0:
        break
""", """
first_negative = tf.argmax(x < 0)
""")
_rule("PF205", "side-effect",
      "The body has an observable side effect whose order matters.",
      """
`print`, `tf.print`, logging, file I/O, `.assign*` on a variable, `list.append` (or
`list.insert(0, e)`) to a list that is not a simple collector: vectorizing would merge or
reorder these effects. A collector takes every item at the end (`append`) or every item at
the front (`insert(0, e)`), not both.
""", """
for i in range(x.shape[0]):
    tf.print("row", i, x[i])
    out.append(x[i] * 2.0)
""", """
for i in range(x.shape[0]):
    out.append(x[i] * 2.0)
""")
_rule("PF206", "non-local-write",
      "The body writes an attribute, a global or a closure cell.",
      """
Such writes are visible outside the loop in iteration order; pforge does not vectorize them.
""", """
for i in range(n):
    self.last = x[i]
""", """
last = x[n - 1]
""")
_rule("PF207", "data-dependent-while",
      "A `while` loop whose exit depends on values computed in the loop.",
      """
The trip count is decided by the data (a convergence test), so there is no iteration space
to vectorize. A counted `while j < n: ...; j += 1` is understood as `for j in range(n)`.
""", """
while abs(guess * guess - a) > tol:
    guess = 0.5 * (guess + a / guess)
""", """
j = 0
while j < n:
    acc = acc + row[j]
    j += 1
""")
_rule("PF208", "random-draw",
      "The body draws random numbers from a stateful generator.",
      """
A batched draw gives different numbers than the loop's sequence of draws. Use stateless
random ops with a per-iteration seed, or accept different numbers explicitly: a
`# pforge: random-ok` comment on the line opts the draw in (the loop is then vectorizable, and
`check --fix` treats the rewrite as unsafe).
""", """
for i in range(n):
    noise.append(tf.random.normal([d]))
""", """
noise = tf.random.stateless_normal([n, d], seed=[1, 2])
""")
_rule("PF209", "host-conversion",
      "The body converts a tensor to a Python value (`.numpy()`, `.item()`).",
      """
Graph code cannot leave the graph to look at a value; vectorized code runs as graph code.
`int(t)` and `float(t)` are rewritten as `tf.cast`; `.numpy()` is not.
""", """
for i in range(n):
    out.append(x[i].numpy() * 2)
""", """
for i in range(n):
    out.append(x[i] * 2)
""")
_rule("PF210", "unknown-callee",
      "The body calls a function whose purity pforge cannot establish.",
      """
A function defined in the same module is analysed; other callees are unknown. If the callee
is pure (no side effects, no state), say so with a `# pforge: pure` comment on the line of
the call and pforge will trust it.
""", """
for i in range(n):
    out.append(model_step(x[i]))
""", """
for i in range(n):
    out.append(model_step(x[i]))  # pforge: pure
""")
_rule("PF211", "unsupported-construct",
      "The body uses a construct pforge does not analyse (try, del, nested def, global, ...).",
      """
pforge proves independence only for constructs it models; anything else keeps the loop as it
is rather than risk a wrong rewrite.
""", """
for i in range(n):
    try:
        out.append(f(x[i]))
    except ValueError:
        pass
""", """
for i in range(n):
    out.append(f(x[i]))
""")
_rule("PF212", "live-out-private",
      "A value computed in the body is used after the loop (its last iteration's value).",
      """
After the loop the name holds the value from the last iteration that bound it. Where one
statement every iteration runs binds it (no `continue` before it, no `if` around it), that is
the last iteration's value, and the rewrite binds the name to the batched values, then to their
last (`h = h[-1]`; OpenMP's `lastprivate`, scalar expansion with the last value copied out:
Allen and Kennedy 2001, section 5.5), where the loop runs at all. Bound by one statement under
tests only and read nowhere in the body (`if a[i] < 0: j = i`, TSVC s331), it holds the value of
the last iteration whose tests held: in NumPy code the rewrite finds that iteration
(`np.flatnonzero(mask)[-1]`) and leaves the name as it was where there is none. Bound by more
than one statement, the last value is that of an iteration only the loop knows, and the loop
stays. The loop variable read after the loop takes the last index of the range
(`i = n - 1`; `i = 0` walked backwards; `range(a, b, s)[-1]`, the same Python int, for
other steps and bounds) or the last row of the sequence (`row = x[-1]`, the same object), where
the loop runs. The index of `np.arange` or `tf.range` (an array scalar, a tensor), a row
unpacked (`for a, b in pairs`), and the variable of an inner loop read by the outer one stay.
""", """
for i in range(n):
    h = x[i] * 2
    if x[i] > 0:
        h = x[i]
y = h + 1
""", """
for i in range(n):
    out.append(x[i] * 2)
""")
_rule("PF213", "unsupported-iteration-space",
      "The loop's iteration space is not one pforge models.",
      """
pforge understands `range`, `tf.range`, rows of a tensor or array (also walked backwards,
`reversed(x)`), `enumerate`, `zip`, and counted `while` loops. Iterating a generator, a dict,
or unpacking rows in an unusual way keeps the loop as it is.
""", """
for key, value in table.items():
    out.append(value * 2)
""", """
for i in range(values.shape[0]):
    out.append(values[i] * 2)
""")
_rule("PF301", "not-rewritten",
      "The loop can be vectorized, but this backend does not rewrite it (the note says why).",
      """
The analysis proved the iterations independent, but the chosen backend cannot express the
rewrite yet (for example a NumPy loop, which needs the direct backend). The loop is left
exactly as it was. The note names the value or op in the way, and ends with what would make
the loop rewritable ("to rewrite it, ..."): a rank to declare, a value to compute before the
loop, a list to make an array, or the body written with functions that have batching rules.
""", """
# (a note, not a failure)
""", """
# (a note, not a failure)
""")
