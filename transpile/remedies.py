"""What would make a loop rewritable: the remedy a PF301 note ends with.

The direct backend refuses a vectorizable loop with a reason in its own terms (``a loop index
after a slice``); a user needs the change to the code, or the fact to declare, that removes
the obstacle. Each entry of :data:`REMEDIES` matches a family of reasons and says that change
in the user's terms, in the style of the fixes Clippy and ruff suggest. A reason no entry
knows gets :data:`GENERAL`, which names where the batched forms are listed. A reason that
already says what to do (``declare it in the docstring``) gets nothing more.
"""

from __future__ import annotations

import re

#: phrases of reasons that carry their own remedy
_SELF_REMEDIED = ("declare it in the docstring", "assign it to a name first", "is inlined when its body",
                  "pass `--shapes", "add `# pforge: pure`", "to rewrite it,", "(--backend auto or direct)")

#: ``(pattern, remedy)``: the first pattern :func:`re.search` finds in the reason gives the
#: remedy, formatted with the pattern's named groups
REMEDIES: tuple[tuple[re.Pattern, str], ...] = tuple((re.compile(p), r) for p, r in (
    (r"no batching rule for `(?P<name>(numpy|math|tensorflow|scipy)\.[\w.]+)`",
     "compute it with functions that have batching rules (`pforge rule PF301` lists them), or "
     "once before the loop where its arguments are the same on every iteration"),
    (r"no batching rule for `(?P<name>[A-Za-z_]\w*)`$",
     "make `{name}` a module-level `def` whose body binds names and returns one expression, "
     "so that pforge inlines it, or compute it with functions that have batching rules "
     "(`pforge rule PF301` lists them)"),
    (r"no batching rule for `method\.(?P<name>\w+)`",
     "call a NumPy function in place of the method `.{name}()` (`pforge rule PF301` lists those "
     "with batching rules)"),
    (r"rank[s]? (of [^:]* )?(is|are) unknown|of unknown rank|of known rank",
     "declare the ranks in the docstring (`Args: x: [n, d].`) or pass `--shapes x=2`"),
    (r"a write into `(?P<name>\w+)",
     "make `{name}` a NumPy array (`{name} = np.zeros((n, m))`) rather than a list"),
    (r"a list of per-iteration values outside `stack`/`concat`|line \d+: a list of items",
     "build the array with `np.stack([...])` where an array of the values is meant"),
    (r"a loop index after a slice",
     "index with the loop index before any slice (`x[i, :]`), or move that axis to the front "
     "once before the loop (`x = np.moveaxis(x, -1, 0)`)"),
    (r"a `ListComp` on per-iteration values",
     "assign the comprehension to a name in the loop body (`d = [... for r in rows]`), which "
     "pforge unfolds into an inner loop"),
    (r"the same on every iteration, is computed from per-iteration values|"
     r"an invariant value computed from",
     "compute that value once before the loop"),
    (r"holds items before it or is read more than once after it",
     "start the list empty just before the inner loop and read it once after it (bind "
     "`a = np.array(lst)` and use `a`)"),
    (r"gets more than one value per iteration",
     "bind each value to a name of its own"),
    (r"an expression statement \(a call for its effect\)",
     "return the call's result and assign it, or move the call out of the loop"),
    (r"a slice whose bounds differ per\s+iteration|a loop bound that varies per iteration",
     "read the slice only through `np.sum`, `np.mean` or `len` (batched as a mask over one "
     "`np.arange`), or pad the rows to one length before the loop"),
    (r"rows selected per iteration",
     "read the selection only through `np.sum`, `np.mean` or `len` (also along `axis=0`)"),
    (r"a Python number on some iterations and a NumPy value on others|values of two kinds|"
     r"a value of two kinds|branches of two kinds",
     "make every branch the same kind of number: `float(...)` of the NumPy value, or "
     "`np.float64(...)` of the Python number"),
    (r"(^|: )a while loop$",
     "write it as a `for` loop over `range(...)`"),
    (r"the loop mixes NumPy and TensorFlow",
     "use one of the two libraries in the loop body"),
    (r"tensorflow is not imported under a plain name",
     "import TensorFlow as `import tensorflow as tf`"),
    (r"a plain-Python loop in a module that does not import numpy",
     "import NumPy in the module (`import numpy as np`); the rewrite is NumPy code"),
    (r"appends to `(?P<name>\w+)`, which is not a collector|appends to .* a value that does not",
     "append to a list made empty just before the loop, read only after it"),
    (r"is a running value \(a scan\)|an exclusive scan|array recurrence",
     "write the running value with `np.cumsum`/`np.cumprod` where it is a sum or product"),
    (r"a random draw has no batching rule",
     "draw every iteration's numbers at once before the loop (`rng.standard_normal((n, d))`)"),
    (r"is used as a Python list after the loop",
     "read the list as an array after the loop (`np.stack(out)` or `np.array(out)`)"),
    (r"a term that does not (depend on|vary along) the loop|coefficients that do not vary",
     "multiply the loop-invariant term by the trip count outside the loop"),
))

#: the remedy of a reason no entry of :data:`REMEDIES` knows
GENERAL = ("write the body with the functions and forms that batch (`pforge rule PF301` lists "
           "them); `pforge explain` shows what pforge knows of each value")


def remedy(reason: str) -> str | None:
    """The change that would make a loop refused for ``reason`` rewritable, in the user's
    terms; None where ``reason`` says it already.

    Args:
        reason: a direct-backend reason (the text of its ``Unsupported``), without the ranks
            pforge inferred.
    """
    if any(phrase in reason for phrase in _SELF_REMEDIED):
        return None
    for pattern, text in REMEDIES:
        found = pattern.search(reason)
        if found:
            return text.format(**{k: v for k, v in found.groupdict().items() if v is not None})
    return GENERAL


def with_remedy(reason: str) -> str:
    """``reason``, then ``; to rewrite it, <remedy>`` (:func:`remedy`)."""
    core = reason.split(" (with the ranks inferred from the code:")[0]
    found = remedy(core)
    return reason if found is None else f"{reason}; to rewrite it, {found}"
