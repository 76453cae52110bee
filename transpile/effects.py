"""Classifies calls in a loop body by effect: pure, side-effecting, random, host conversion, unknown.

The tables name APIs by their resolved dotted path (``tensorflow.print``), so import aliases do
not matter. Functions defined in the same module are analysed by walking their bodies
(interprocedurally, with recursion guarded).
"""

from __future__ import annotations

from dataclasses import dataclass

import gast

from pforge.transpile.frontend import ImportMap

PURE = "pure"
EFFECT = "effect"        # PF205
RANDOM = "random"        # PF208
HOST = "host"            # PF209
UNKNOWN = "unknown"      # PF210

_EFFECT_CALLS = {
    "builtins.print", "builtins.open", "builtins.input", "builtins.exec", "builtins.eval",
    "builtins.setattr", "builtins.delattr", "builtins.breakpoint", "builtins.next",
    "tensorflow.print", "tensorflow.Variable", "tensorflow.io.write_file",
    "numpy.save", "numpy.savez", "numpy.savetxt", "numpy.savez_compressed",
    "warnings.warn", "sys.stdout.write", "sys.stderr.write",
    # NumPy functions that write into an argument
    "numpy.copyto", "numpy.put", "numpy.place", "numpy.putmask", "numpy.fill_diagonal",
    "numpy.put_along_axis",
}
_EFFECT_PREFIXES = ("logging.", "tensorflow.summary.", "tensorflow.io.gfile.", "os.", "shutil.",
                    "subprocess.", "time.sleep", "pickle.dump", "json.dump", "tensorflow.compat.v1.assign")
_RANDOM_PREFIXES = ("numpy.random.", "random.", "tensorflow.random.", "tensorflow.compat.v1.random.")
_STATELESS_RANDOM = ("tensorflow.random.stateless_", "tensorflow.random.experimental.stateless_",
                     "tensorflow.random.experimental.index_shuffle")
_PURE_PREFIXES = ("tensorflow.", "numpy.", "math.", "operator.", "functools.reduce",
                  "itertools.product", "builtins.")

#: Methods that mutate their receiver; allowed only on values private to one iteration.
MUTATING_METHODS = frozenset({
    "assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub",
    "scatter_nd_update", "scatter_nd_add", "scatter_max", "scatter_min", "batch_scatter_update",
    "append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add",
    "discard", "sort", "reverse", "fill", "put", "itemset", "resize", "write", "writelines",
    "flush", "close", "popitem", "partition",
})
HOST_METHODS = frozenset({"numpy", "item", "tolist"})
RANDOM_METHODS = frozenset({"normal", "uniform", "integers", "random", "choice", "shuffle",
                            "permutation", "standard_normal", "binomial", "poisson",
                            "truncated_normal", "make_seeds", "exponential"})
PURE_METHODS = frozenset({
    # array / tensor methods
    "mean", "sum", "max", "min", "prod", "std", "var", "argmax", "argmin", "any", "all", "copy",
    "reshape", "astype", "transpose", "dot", "flatten", "ravel", "squeeze", "clip", "round",
    "cumsum", "cumprod", "nonzero", "conj", "get_shape", "nbytes", "swapaxes", "take", "diagonal",
    "trace", "repeat", "__getitem__", "count", "index", "ptp", "compress", "sorted",
    # TensorArray reads, tapes, variables read without writing
    "read", "stack", "gather", "concat", "size", "read_value", "value", "gradient", "jacobian",
    "batch_jacobian", "watch", "stop_recording", "numpy_function",
    # strings and dicts
    "format", "join", "split", "strip", "lower", "upper", "startswith", "endswith", "get", "keys",
    "values", "items", "replace",
})


@dataclass(frozen=True)
class CallEffect:
    """The effect of one call: its class and a short description of why."""

    kind: str
    what: str


class EffectAnalyzer:
    """Classifies calls; remembers the verdict for each same-module function it walks.

    Args:
        imports: the module's import aliases.
        functions: module-level (and nested) function definitions by name; used when a name
            is defined by exactly one ``def`` and ``definition`` cannot say which one.
        definition: maps a called name (a ``gast.Name`` load) to the ``def`` or ``lambda`` its
            def-use chain reaches, or None; this is how two nested functions of one name in
            different functions are told apart.
    """

    def __init__(self, imports: ImportMap, functions: dict[str, gast.FunctionDef],
                 definition=None):
        self.imports = imports
        self.functions = functions
        self.definition = definition or (lambda name_node: None)
        self._memo: dict[int, CallEffect] = {}

    def classify(self, call: gast.Call) -> CallEffect:
        func = call.func
        name = self.imports.resolve(func)
        if any(k.arg == "out" for k in call.keywords):
            return CallEffect(EFFECT, f"{gast.unparse(func).strip()}(..., out=...)")
        if name is not None and name.startswith("numpy.") and name.endswith(".at"):
            return CallEffect(EFFECT, name.replace("numpy.", "np."))
        if name is not None:
            return self._classify_name(name)
        if isinstance(func, gast.Attribute):
            method = func.attr
            if method in HOST_METHODS:
                return CallEffect(HOST, f".{method}()")
            if method in MUTATING_METHODS:
                return CallEffect(EFFECT, f".{method}()")
            if method in RANDOM_METHODS:
                return CallEffect(RANDOM, f".{method}()")
            if method in PURE_METHODS:
                return CallEffect(PURE, f".{method}()")
            return CallEffect(UNKNOWN, f".{method}()")
        if isinstance(func, gast.Name):
            fdef = self.definition(func) or self.functions.get(func.id)
            if fdef is not None:
                return self._classify_local(func.id, fdef)
        what = gast.unparse(func).strip() if not isinstance(func, gast.Name) else func.id
        return CallEffect(UNKNOWN, what)

    def _classify_name(self, name: str) -> CallEffect:
        if name in _EFFECT_CALLS or name.startswith(_EFFECT_PREFIXES):
            return CallEffect(EFFECT, name.replace("builtins.", "").replace("tensorflow.", "tf."))
        if name.startswith(_STATELESS_RANDOM):
            return CallEffect(PURE, name)
        if name.startswith(_RANDOM_PREFIXES):
            return CallEffect(RANDOM, name.replace("tensorflow.", "tf.").replace("numpy.", "np."))
        if name.startswith(_PURE_PREFIXES):
            return CallEffect(PURE, name)
        return CallEffect(UNKNOWN, name)

    def _classify_local(self, fname: str, fdef) -> CallEffect:
        """The effect of calling a same-module function or lambda: what its body does to state
        outside it (its arguments' contents, closure cells, globals) and what it calls.
        Recursion is guarded by assuming the function pure while its body is walked."""
        key = id(fdef)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = CallEffect(PURE, fname)
        verdict = CallEffect(PURE, fname)
        args = fdef.args
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs
                  + [a for a in (args.vararg, args.kwarg) if a is not None] if isinstance(a, gast.Name)}
        declared = {n for node in gast.walk(fdef) if isinstance(node, (gast.Global, gast.Nonlocal))
                    for n in node.names}
        local = {n.id for n in gast.walk(fdef) if isinstance(n, gast.Name)
                 and isinstance(n.ctx, gast.Store)} - params - declared
        for node in gast.walk(fdef):
            if isinstance(node, (gast.Global, gast.Nonlocal)):
                verdict = CallEffect(EFFECT, f"{fname} (writes a global or nonlocal name at line {node.lineno})")
            elif isinstance(node, (gast.Attribute, gast.Subscript)) and isinstance(node.ctx, gast.Store):
                base = node.value
                while isinstance(base, (gast.Attribute, gast.Subscript)):
                    base = base.value
                if isinstance(node, gast.Attribute) or not isinstance(base, gast.Name) \
                        or base.id in params:
                    verdict = CallEffect(EFFECT, f"{fname} (mutates its input at line {node.lineno})")
                elif base.id not in local:
                    verdict = CallEffect(EFFECT, f"{fname} (writes `{base.id}`, state outside it, "
                                                 f"at line {node.lineno})")
            elif isinstance(node, gast.Call):
                inner = self.classify(node)
                if inner.kind == EFFECT and isinstance(node.func, gast.Attribute) and \
                        node.func.attr in MUTATING_METHODS and isinstance(node.func.value, gast.Name) \
                        and node.func.value.id in local:
                    continue  # mutating a local of the callee is invisible outside it
                if inner.kind != PURE:
                    verdict = CallEffect(inner.kind, f"{fname} (calls {inner.what} at line {node.lineno})")
            if verdict.kind != PURE:
                break
        self._memo[key] = verdict
        return verdict
