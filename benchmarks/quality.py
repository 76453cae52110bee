"""Measures how close each rewrite is to the code an expert writes: its length, speed and peak
memory against the file's hand-written reference, side by side in one run.

    python benchmarks/quality.py [PATH ...] [--scale K] [--repeats 15] [--seed 0] [--fast-math]

PATH is a file or a directory of files (default ``samples/``) in either input convention
``pforge verify`` reads: functions named by ``example_inputs(seed)`` with references
``reference_<func>``, or a case file with ``original``, ``make_inputs(seed)`` and
``reference``. Every function that has a reference is transpiled as ``pforge bench`` does it
(``--backend auto``, ranks from the file's inputs), and for each the table gives:

- **tokens**: Python tokens of the rewritten function over those of the reference. Both are
  counted from ``ast.unparse`` of the function without its docstring, so comments, blank
  lines and line wrapping do not count, and both are spelled the same way. A rewrite
  versioned behind run-time checks counts its fallback loop too: a reviewer reads it. The
  **arm** column counts the batched code alone: the function with each versioned ``if`` (the
  statement under a ``# pforge:`` marker) replaced by its first branch, as it would read if
  the facts the checks test were proven, so the idioms and the checks can be told apart. The
  **stg** column counts what ``pforge.vectorize`` generates for the file's inputs (NumPy code):
  the checks that the call signature decides are gone from it (``transpile.specialize``); its
  result is compared with the loop's too.
- **time**: median seconds per call of the loop, the rewrite and the reference, timed
  interleaved on fresh inputs (``pforge.runtime.timing.time_interleaved``), and the rewrite's
  median over the reference's. For TensorFlow code the reference runs under ``tf.function``,
  as the rewrite does (and as ``pforge bench`` times it); the loop runs as written.
- **memory**: the peak of the memory a call allocates beyond its inputs (``tracemalloc``,
  which NumPy reports its arrays to), for the loop, the rewrite and the reference, and the
  rewrite's peak over the reference's and over the loop's. TensorFlow allocates outside
  ``tracemalloc``: for TensorFlow code the columns are ``-``.

``--scale K`` multiplies every integer default of the input builder's parameters except
``seed`` (``example_inputs(seed=0, steps=10_000)`` runs with ``steps=10_000 * K``); a
builder with no such parameter runs at its own sizes, and the size column says ``as given``.
The last lines give the geometric mean of the token ratios over the rewritten functions, and
the functions left as loops (not counted). Exit status 0, or 1 when a rewrite's result
differs from the loop's.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import inspect
import io
import math
import os
import pathlib
import sys
import tokenize
import tracemalloc

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT.parent))

from pforge.runtime import targets  # noqa: E402
from pforge.runtime.compare import compare  # noqa: E402
from pforge.runtime.loader import load_module  # noqa: E402
from pforge.runtime.staged import vectorize  # noqa: E402
from pforge.runtime.timing import time_interleaved  # noqa: E402
from pforge.transpile.frontend import marker_above, source_lines  # noqa: E402

#: Tokens that carry no code: layout, comments and the file's ends.
_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
           tokenize.ENCODING, tokenize.ENDMARKER}


@dataclasses.dataclass(frozen=True)
class Row:
    """One function's measurements.

    Attributes:
      name: ``file::function``.
      size: the builder's scaled parameters (``steps=20000``), or ``as given``.
      rewritten: whether the transpiler changed the function.
      tokens: ``(rewrite, reference)`` token counts.
      arm_tokens: the rewrite's tokens with each versioned ``if`` replaced by its batched
        branch (:func:`batched_arm`).
      seconds: ``(loop, rewrite, reference)`` median seconds per call.
      peak: ``(loop, rewrite, reference)`` peak bytes allocated by one call beyond its
        inputs, or ``None`` each for TensorFlow code.
      error: the rewrite's largest absolute difference from the loop (``inf`` when the
        structures differ).
      ok: whether the rewrite's result (and the staged one's) equals the loop's within the
        tolerances.
      staged_tokens: the tokens of the function ``pforge.vectorize`` generates for the
        file's inputs, or None (TensorFlow code, or nothing rewritten there).
    """

    name: str
    size: str
    rewritten: bool
    tokens: tuple[int, int]
    seconds: tuple[float, float, float]
    peak: tuple[int | None, int | None, int | None]
    error: float
    ok: bool
    arm_tokens: int = 0
    staged_tokens: int | None = None

    @property
    def token_ratio(self) -> float:
        """Rewrite tokens over reference tokens."""
        return self.tokens[0] / self.tokens[1]

    @property
    def arm_ratio(self) -> float:
        """Tokens of the rewrite's batched code (:func:`batched_arm`) over reference tokens."""
        return self.arm_tokens / self.tokens[1]

    @property
    def staged_ratio(self) -> float | None:
        """Tokens of the staged rewrite over reference tokens, or None."""
        return None if self.staged_tokens is None else self.staged_tokens / self.tokens[1]


def code_tokens(function_source: str) -> int:
    """The number of Python tokens of one function, its docstring left out.

    The source is parsed and unparsed first (``ast.unparse``), so comments, blank lines,
    wrapping and redundant parentheses do not count.

    Raises:
      SyntaxError: the source is not a function definition.
    """
    tree = ast.parse(function_source)
    fn = tree.body[0]
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise SyntaxError("expected one function definition")
    if ast.get_docstring(fn, clean=False) is not None:
        fn.body = fn.body[1:] or [ast.Pass()]
    text = ast.unparse(fn)
    return sum(1 for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _LAYOUT)


def batched_arm(function_source: str) -> str:
    """``function_source`` with each versioned ``if`` (the statement right after a line with a
    ``# pforge:`` marker) replaced by its first branch: the batched code, without the checks
    in front and the loop kept for inputs they refuse.

    Raises:
      SyntaxError: the source is not a function definition.
    """
    tree = ast.parse(function_source)
    lines = source_lines(function_source)

    class Arm(ast.NodeTransformer):
        def visit_If(self, node):
            self.generic_visit(node)
            return node.body if marker_above(lines, node.lineno).startswith(
                ("# pforge: vectorized loop", "# pforge: index set split", "# pforge: loop distributed")) else node

    return ast.unparse(Arm().visit(tree))


def function_source(text: str, name: str) -> str:
    """The source of the module-level function ``name`` in ``text``.

    Raises:
      LookupError: there is no such function.
    """
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ast.get_source_segment(text, node)
    raise LookupError(f"no function {name!r}")


def _reference_name(module, func):
    names = [f"reference_{func}"] + (["reference"] if func == "original" else [])
    return next((name for name in names if callable(getattr(module, name, None))), None)


def _scale_builder(module, scale):
    """Replaces the module's input builder by one with its integer defaults times ``scale``;
    returns the scaled parameters as text (``as given`` when there are none)."""
    for attr in ("example_inputs", "make_inputs"):
        builder = getattr(module, attr, None)
        if callable(builder):
            break
    else:
        return "as given"
    defaults = {k: p.default for k, p in inspect.signature(builder).parameters.items()
                if k != "seed" and type(p.default) is int}
    sizes = {k: v * scale for k, v in defaults.items()}
    if sizes and scale != 1:
        setattr(module, attr, functools.partial(builder, **sizes))
    return ", ".join(f"{k}={v}" for k, v in sizes.items()) or "as given"


def _peak(fn, make_args):
    """Peak bytes one call allocates beyond its (already built) inputs."""
    args, kwargs = make_args()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn(*args, **kwargs)
        return max(0, tracemalloc.get_traced_memory()[1] - base)
    finally:
        tracemalloc.stop()


def measure(path, func, *, scale=1, repeats=15, seed=0, fast_math=False):
    """Measures one function against its reference; see the module docstring.

    Returns:
      A ``Row``, or ``None`` when the file has no reference for ``func``.

    Raises:
      TargetError: the file or its inputs cannot be used (as ``pforge bench``).
    """
    path = os.fspath(path)
    text = targets.read(path)
    original = targets.load_original(path)
    ref_name = _reference_name(original, func)
    if ref_name is None:
        return None
    size = _scale_builder(original, scale)
    ranks = targets.ranks_for(original, func, path, (), None, None)
    result = targets.transpile(text, path, "auto", ranks, fast_math=fast_math)
    plans = targets.plans_of(result, func)
    tree = targets.parse(text, path)
    numpy = targets.is_numpy(plans, tree)
    generated = load_module(path, source=result.code, variant="quality")
    rewrite_fn = targets.resolve(generated, func, path)
    rewritten_src = function_source(result.code, func)
    rewritten = rewritten_src != function_source(text, func)
    tokens = (code_tokens(rewritten_src), code_tokens(function_source(text, ref_name)))
    arm_tokens = code_tokens(batched_arm(rewritten_src))
    loop, reference = targets.resolve(original, func, path), getattr(original, ref_name)
    with targets.on_device("cpu", numpy=numpy) as (_, has_tf):
        if has_tf and not numpy:
            # (the rewrite of TensorFlow code is staged, `@tf.function`: the reference too, as
            # `pforge bench` times it, so the ratio compares two graphs, not a graph and eager ops)
            from pforge.runtime._tf import tensorflow  # noqa: PLC0415 - lazy

            reference = tensorflow().function(reference)
        make_args = targets.input_maker(original, func, (), seed, path, as_tensor=has_tf)
        want, _ = targets.call_original(loop, make_args, path, func)
        args, kwargs = make_args()
        match = compare(want, rewrite_fn(*args, **kwargs))
        staged_tokens = None
        if numpy:
            staged = vectorize(loop)
            args, kwargs = make_args()
            entry = staged.entry(*args, **kwargs)
            if entry.rewritten:
                staged_tokens = code_tokens(function_source(entry.code, func))
                staged_match = compare(want, staged(*args, **kwargs))
                ok_staged = staged_match.ok
            else:
                ok_staged = True
        else:
            ok_staged = True
        fns = [loop, rewrite_fn, reference]
        timings = time_interleaved(fns, make_args, repeats, 2, budget_s=3.0, each=True)
        peaks = (tuple(None for _ in fns) if has_tf
                 else tuple(_peak(f, make_args) for f in fns))
    return Row(f"{os.path.basename(path)}::{func}", size, rewritten, tokens,
               tuple(t.median_s for t in timings), peaks, match.max_abs_err, match.ok and ok_staged, arm_tokens,
               staged_tokens)


def _files(paths):
    for p in paths:
        if os.path.isdir(p):
            yield from sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".py"))
        else:
            yield p


def _ms(seconds):
    return f"{seconds * 1e3:.3f}"


def _mb(peak):
    return "-" if peak is None else f"{peak / 2**20:.2f}"


def _times(a, b):
    return "-" if a is None or b is None or not b else f"{a / b:.2f}"


def table(rows):
    """The report's lines for ``rows`` (see the module docstring)."""
    head = (f"{'function':52} {'size':>14} {'tok':>5} {'ref':>5} {'tok×':>5} {'arm×':>5} {'stg×':>5} "
            f"{'loop ms':>9} {'rewr ms':>9} {'ref ms':>9} {'t×ref':>6} "
            f"{'loop MB':>8} {'rewr MB':>8} {'ref MB':>8} {'m×ref':>6} {'m×loop':>6}  result")
    lines = [head]
    for r in rows:
        (tl, tr, tf), (ml, mr, mf) = r.seconds, r.peak
        lines.append(
            f"{r.name:52} {r.size:>14} {r.tokens[0]:>5} {r.tokens[1]:>5} {r.token_ratio:>5.2f} {r.arm_ratio:>5.2f} "
            f"{'-' if r.staged_ratio is None else f'{r.staged_ratio:.2f}':>5} "
            f"{_ms(tl):>9} {_ms(tr):>9} {_ms(tf):>9} {tr / tf:>6.2f} "
            f"{_mb(ml):>8} {_mb(mr):>8} {_mb(mf):>8} {_times(mr, mf):>6} {_times(mr, ml):>6}  "
            + ("ok" if r.ok else f"MISMATCH (error {r.error:.1e})")
            + ("" if r.rewritten else ", left as a loop"))
    done = [r for r in rows if r.rewritten]
    if done:
        geo = math.exp(sum(math.log(r.token_ratio) for r in done) / len(done))
        worst = max(done, key=lambda r: r.token_ratio)
        arm = math.exp(sum(math.log(r.arm_ratio) for r in done) / len(done))
        worst_arm = max(done, key=lambda r: r.arm_ratio)
        lines.append(f"batched code alone (arm×): geometric mean {arm:.2f}, worst {worst_arm.arm_ratio:.2f} "
                     f"({worst_arm.name})")
        staged = [r for r in done if r.staged_ratio is not None]
        if staged:
            geo_staged = math.exp(sum(math.log(r.staged_ratio) for r in staged) / len(staged))
            worst_staged = max(staged, key=lambda r: r.staged_ratio)
            lines.append(f"staged for the inputs' signature (stg×), over {len(staged)} NumPy functions: geometric "
                         f"mean {geo_staged:.2f}, worst {worst_staged.staged_ratio:.2f} ({worst_staged.name})")
        lines.append(f"tokens of rewrite / tokens of reference over {len(done)} rewritten: "
                     f"geometric mean {geo:.2f}, worst {worst.token_ratio:.2f} ({worst.name})")
    left = [r.name for r in rows if not r.rewritten]
    if left:
        lines.append(f"left as loops, not counted ({len(left)}): {', '.join(left)}")
    return lines


def main(argv=None):
    """Runs the benchmark; returns the exit status (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=[str(ROOT / "samples")])
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fast-math", action="store_true",
                        help="transpile as `pforge transpile --fast-math` does")
    args = parser.parse_args(argv)
    rows = []
    for path in _files(args.paths):
        try:
            names = targets.functions_in(path)
        except targets.TargetError as exc:
            print(f"skipped: {exc}", file=sys.stderr)
            continue
        for func in names:
            try:
                row = measure(path, func, scale=args.scale, repeats=args.repeats, seed=args.seed,
                              fast_math=args.fast_math)
            except targets.TargetError as exc:
                print(f"skipped: {exc}", file=sys.stderr)
                continue
            if row is not None:
                rows.append(row)
                print(table([row])[1], flush=True)
    print()
    print("\n".join(table(rows)))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
