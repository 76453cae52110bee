"""Loads, runs, verifies and benchmarks original and transpiled code.

Importing this package does not import TensorFlow; the functions that need it
import it on first use. ``compare`` is not re-exported here, so that
``pforge.runtime.compare`` stays the module: use
``from pforge.runtime.compare import compare``.
"""

import importlib

#: Where each public name lives; modules load on first use (PEP 562), so the CLI's start-up
#: does not pay for the runtime when it only checks files.
_HOMES = {
    "BenchResult": "bench", "VariantTiming": "bench", "bench_function": "bench", "bench_path": "bench",
    "Comparison": "compare", "ArgSpec": "inputs", "input_maker": "inputs",
    "parse_arg_spec": "inputs", "spec_inputs": "inputs", "RuntimeLoadError": "loader",
    "load_module": "loader", "TargetError": "targets", "Timing": "timing", "pick_device": "timing",
    "time_call": "timing", "time_interleaved": "timing", "VerifyInputError": "verify",
    "VerifyResult": "verify", "functions_in": "verify", "verify_function": "verify",
    "verify_path": "verify",
}


def __getattr__(name):
    if name in _HOMES:
        return getattr(importlib.import_module(f"pforge.runtime.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'pforge.runtime' has no attribute {name!r}")


__all__ = [
    "ArgSpec", "BenchResult", "Comparison", "RuntimeLoadError", "TargetError", "Timing",
    "VariantTiming", "VerifyInputError", "VerifyResult", "bench_function", "bench_path",
    "functions_in", "input_maker", "load_module", "parse_arg_spec", "pick_device",
    "spec_inputs", "time_call", "time_interleaved", "verify_function", "verify_path",
]
