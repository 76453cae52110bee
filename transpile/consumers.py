"""The calls that read a list of per-iteration values as one array, by resolved name. A
module of its own, without gast, so the outline (``transpile/outline.py``) can filter on the
same names the analysis uses."""

from __future__ import annotations

#: Consumers of a collector after the loop: resolved callee -> kind of result.
CONSUMERS = {
    "tensorflow.stack": "stack", "tensorflow.convert_to_tensor": "stack",
    "tensorflow.constant": "stack", "tensorflow.concat": "concat",
    "numpy.stack": "stack", "numpy.array": "stack", "numpy.asarray": "stack",
    "numpy.concatenate": "concat", "numpy.vstack": "concat",
}

#: NumPy functions that read their first argument as an array (``np.asarray`` of it): a list
#: of per-iteration values and the array stacking them give the same result.
ARRAY_READERS = frozenset(f"numpy.{name}" for name in (
    "argmax", "argmin", "max", "min", "amax", "amin", "sum", "mean", "std", "var", "median", "prod",
    "any", "all", "sort", "argsort", "unique", "cumsum", "cumprod", "percentile", "quantile",
    "average", "ptp", "nanmax", "nanmin", "nansum", "nanmean", "hstack", "column_stack",
    "linalg.norm", "count_nonzero", "flatnonzero", "nonzero", "isnan", "isfinite", "round", "abs"))

#: Python's reductions over an iterable: over the array they add (or compare) the same items
#: in the same order as over the list (``sum(xs)`` folds from the left either way).
BUILTIN_READERS = frozenset({"builtins.sum", "builtins.max", "builtins.min"})
