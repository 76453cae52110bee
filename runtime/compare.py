"""Compares two results leaf by leaf: nested sequences, dicts, tensors, arrays, scalars."""

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Outcome of ``compare``.

    Attributes:
      ok: every leaf matches within tolerance and the structures agree.
      max_abs_err: max of ``|a - b|`` over all elements (``inf`` on a
        structure/shape/dtype-kind mismatch or a NaN in only one side).
      max_rel_err: max of ``|a - b| / |a|`` over elements where ``a != 0``
        (``a`` is the first argument, the reference).
      message: the first mismatch, with its location (e.g.
        ``out[1]['k']: shape (3,) vs (4,)``); empty when ok.
    """

    ok: bool
    max_abs_err: float
    max_rel_err: float
    message: str = ""


_KINDS = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}


def compare(a, b, rtol=1e-4, atol=1e-5):
    """Compares ``b`` against the reference ``a``.

    Tuples and lists are interchangeable sequences; dicts must have the same
    keys; tensors, ``tf.Variable``s (via ``.numpy()``), ragged tensors (via
    ``.to_list()``), numpy arrays and Python scalars are leaves. A numeric
    leaf matches when ``|a - b| <= atol + rtol * |a|`` elementwise (NaN equals
    NaN); bool leaves must be equal; other leaves compare with ``==``.

    Args:
      a: the reference (the original code's result).
      b: the result under test (the generated code's).
      rtol: relative tolerance (unitless).
      atol: absolute tolerance (units of the values).

    Returns:
      A ``Comparison``.
    """
    state = _State(rtol, atol)
    state.visit(a, b, "out")
    return Comparison(state.message == "" and state.ok, state.abs_err, state.rel_err,
                      state.message)


class _State:
    def __init__(self, rtol, atol):
        self.rtol, self.atol = rtol, atol
        self.ok, self.abs_err, self.rel_err, self.message = True, 0.0, 0.0, ""

    def fail(self, where, why, structural=True):
        self.ok = False
        if structural:
            self.abs_err = self.rel_err = math.inf
        if not self.message:
            self.message = f"{where}: {why}"

    def visit(self, a, b, where):
        a, b = _unwrap(a), _unwrap(b)
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                return self.fail(where, f"{_kind(a)} vs {_kind(b)}")
            if set(a) != set(b):
                return self.fail(where, f"keys {sorted(map(repr, a))} vs {sorted(map(repr, b))}")
            for key in a:
                self.visit(a[key], b[key], f"{where}[{key!r}]")
            return None
        if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
            if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
                return self.fail(where, f"{_kind(a)} vs {_kind(b)}")
            if len(a) != len(b):
                return self.fail(where, f"{len(a)} vs {len(b)} items")
            for i, (x, y) in enumerate(zip(a, b)):
                self.visit(x, y, f"{where}[{i}]")
            return None
        return self.leaf(a, b, where)

    def leaf(self, a, b, where):
        import numpy as np  # noqa: PLC0415 - keep pforge import light

        x, y = np.asarray(a), np.asarray(b)
        kx, ky = _KINDS.get(x.dtype.kind), _KINDS.get(y.dtype.kind)
        if kx is None or ky is None:
            if kx != ky or not _equal_objects(a, b):
                self.fail(where, f"{a!r} vs {b!r}")
            return None
        if kx != ky:
            return self.fail(where, f"dtype {x.dtype} ({kx}) vs {y.dtype} ({ky})")
        if x.shape != y.shape:
            return self.fail(where, f"shape {x.shape} vs {y.shape}")
        if x.size == 0:
            return None
        if kx == "complex":
            x, y = x.astype(np.complex128), y.astype(np.complex128)
        else:
            x, y = x.astype(np.float64), y.astype(np.float64)
        same = (x == y) | (np.isnan(x) & np.isnan(y))
        with np.errstate(invalid="ignore", divide="ignore"):
            diff = np.where(same, 0.0, np.abs(x - y))
            diff = np.where(np.isnan(diff), np.inf, diff)
            scale = np.abs(x)
            finite = np.isfinite(scale) & (scale > 0)
            rel = np.where(finite, diff / np.where(finite, scale, 1.0), 0.0)
        self.abs_err = max(self.abs_err, float(diff.max()))
        self.rel_err = max(self.rel_err, float(rel.max()))
        tol = 0.0 if kx == "bool" else self.atol + self.rtol * np.where(finite, scale, 0.0)
        bad = diff > tol
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            self.fail(where, f"{int(bad.sum())} of {x.size} elements differ; first at "
                             f"{list(index)}: {x[index]} vs {y[index]}", structural=False)
        return None


def _unwrap(value):
    """Turns TensorFlow values into numpy / Python without importing TensorFlow."""
    if hasattr(value, "flat_values") and hasattr(value, "to_list"):  # tf.RaggedTensor
        return value.to_list()
    if hasattr(value, "dense_shape") and hasattr(value, "indices"):  # tf.SparseTensor
        from pforge.runtime._tf import tensorflow  # noqa: PLC0415

        return tensorflow().sparse.to_dense(value).numpy()
    if hasattr(value, "numpy") and callable(value.numpy) and not _is_numpy(value):
        return value.numpy()  # tf.Tensor, tf.Variable
    return value


def _is_numpy(value):
    return type(value).__module__.split(".")[0] == "numpy"


def _kind(value):
    return type(value).__name__


def _equal_objects(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - ambiguous truth values etc. count as unequal
        return False
