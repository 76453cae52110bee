"""Loads, runs, verifies and benchmarks original and transpiled code.

Importing this package does not import TensorFlow; the functions that need it
import it on first use. ``compare`` is not re-exported here, so that
``pforge.runtime.compare`` stays the module: use
``from pforge.runtime.compare import compare``.
"""

from pforge.runtime.bench import BenchResult, VariantTiming, bench_function, bench_path
from pforge.runtime.compare import Comparison
from pforge.runtime.inputs import ArgSpec, input_maker, parse_arg_spec, spec_inputs
from pforge.runtime.loader import RuntimeLoadError, load_module
from pforge.runtime.targets import TargetError
from pforge.runtime.timing import Timing, pick_device, time_call, time_interleaved
from pforge.runtime.verify import (VerifyInputError, VerifyResult, functions_in, verify_function,
                                   verify_path)

__all__ = [
    "ArgSpec", "BenchResult", "Comparison", "RuntimeLoadError", "TargetError", "Timing",
    "VariantTiming", "VerifyInputError", "VerifyResult", "bench_function", "bench_path",
    "functions_in", "input_maker", "load_module", "parse_arg_spec", "pick_device",
    "spec_inputs", "time_call", "time_interleaved", "verify_function", "verify_path",
]
