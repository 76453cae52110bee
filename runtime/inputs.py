"""Builds call arguments: from --arg specs, example_inputs() or make_inputs()."""

import dataclasses
import inspect
import re

TENSOR_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")

_SPEC = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(.*?)\s*$")
_TENSOR = re.compile(r"^(\w+)\s*\[([^\]]*)\]$")
_TYPED_SCALAR = re.compile(r"^(int|float)\s*:\s*(\S+)$")
_HELP = ("expected NAME=DTYPE[d0,d1,...] (DTYPE one of " + ", ".join(TENSOR_DTYPES)
         + "; [] for a scalar), NAME=int:5, NAME=float:0.1, NAME=5 or NAME=0.1")


@dataclasses.dataclass(frozen=True)
class ArgSpec:
    """One argument parsed from ``--arg``.

    Attributes:
      name: the parameter name; the argument is passed by keyword.
      dtype: a tensor dtype from ``TENSOR_DTYPES``, or ``"int"`` / ``"float"``
        for a Python scalar.
      shape: the tensor shape, ``()`` for a scalar tensor; ``None`` for a
        Python scalar.
      value: the Python scalar's value; ``None`` for a tensor.
    """

    name: str
    dtype: str
    shape: tuple[int, ...] | None = None
    value: int | float | None = None


def parse_arg_spec(text):
    """Parses one argument spec.

    Examples: ``x=float32[64,32]`` (a random tensor of shape [64, 32]),
    ``t=float32[]`` (a scalar tensor), ``n=int:5`` or ``n=5`` (the Python int
    5), ``lr=float:0.1`` or ``lr=0.1`` (the Python float 0.1).

    Args:
      text: the spec.

    Returns:
      An ``ArgSpec``.

    Raises:
      ValueError: the spec is malformed; the message quotes it and shows the
        expected forms.
    """
    match = _SPEC.match(text)
    if not match:
        raise ValueError(f"bad --arg {text!r}: {_HELP}")
    name, rhs = match.groups()
    tensor = _TENSOR.match(rhs)
    if tensor:
        dtype, dims = tensor.groups()
        if dtype not in TENSOR_DTYPES:
            raise ValueError(f"bad --arg {text!r}: unknown dtype {dtype!r}; {_HELP}")
        return ArgSpec(name, dtype, _parse_shape(text, dims))
    typed = _TYPED_SCALAR.match(rhs)
    kind, literal = typed.groups() if typed else (None, rhs)
    for cast in ((int, float) if kind is None else ({"int": int, "float": float}[kind],)):
        try:
            return ArgSpec(name, cast.__name__, value=cast(literal))
        except ValueError:
            continue
    raise ValueError(f"bad --arg {text!r}: {_HELP}")


def _parse_shape(text, dims):
    if not dims.strip():
        return ()
    try:
        shape = tuple(int(d) for d in dims.split(","))
    except ValueError:
        raise ValueError(f"bad --arg {text!r}: shape must be integers, {_HELP}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"bad --arg {text!r}: negative dimension in shape")
    return shape


def random_value(spec, rng, as_tensor=True):
    """Draws one argument value for a spec.

    Floats are standard normal, ints uniform in [0, 10), bools fair coins.

    Args:
      spec: an ``ArgSpec``.
      rng: a ``numpy.random.Generator``.
      as_tensor: return a ``tf.Tensor`` (imports TensorFlow) rather than a
        numpy array. Python scalars are returned as they are either way.

    Returns:
      A tensor or array of ``spec.shape`` and ``spec.dtype``, or the scalar.
    """
    import numpy as np  # noqa: PLC0415 - keep pforge import light

    if spec.shape is None:
        return spec.value
    if spec.dtype.startswith("float"):
        array = rng.standard_normal(spec.shape).astype(spec.dtype)
    elif spec.dtype.startswith("int"):
        array = rng.integers(0, 10, size=spec.shape).astype(spec.dtype)
    else:
        array = rng.random(spec.shape) < 0.5
    array = np.asarray(array)
    if not as_tensor:
        return array
    from pforge.runtime._tf import tensorflow  # noqa: PLC0415

    return tensorflow().constant(array)


def spec_inputs(specs, seed=0, as_tensor=True):
    """Builds keyword arguments from parsed specs, in order, from one seed.

    Args:
      specs: a sequence of ``ArgSpec``.
      seed: seed of the ``numpy.random.default_rng`` the values come from.
      as_tensor: see ``random_value``.

    Returns:
      ``(args, kwargs)``: an empty tuple and a dict name -> value.
    """
    import numpy as np  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    return (), {s.name: random_value(s, rng, as_tensor) for s in specs}


def as_call_args(value):
    """Turns an input-builder result into ``(args, kwargs)``.

    A tuple is ``*args``, a dict is ``**kwargs``, anything else one argument.
    """
    if isinstance(value, tuple):
        return value, {}
    if isinstance(value, dict):
        return (), dict(value)
    return (value,), {}


def call_builder(builder, seed):
    """Calls ``example_inputs`` / ``make_inputs``, passing ``seed`` if it takes one."""
    try:
        params = inspect.signature(builder).parameters
    except (TypeError, ValueError):
        params = {}
    takes_seed = "seed" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return builder(seed=seed) if takes_seed else builder()


def has_example_inputs(module):
    """Whether the module follows the ``example_inputs(seed=0)`` convention."""
    return callable(getattr(module, "example_inputs", None))


def has_case_inputs(module):
    """Whether the module follows the shared-cases ``make_inputs``/``original`` convention."""
    return callable(getattr(module, "make_inputs", None)) and callable(
        getattr(module, "original", None))


def input_maker(module, func, specs=(), seed=0, as_tensor=True):
    """Returns a function that builds fresh arguments for ``module.func``.

    Call it once per run: the functions under test may mutate their inputs.
    Precedence: ``specs`` if given; else ``module.example_inputs(seed)[func]``;
    else ``module.make_inputs(seed)`` when ``func == "original"``.

    Args:
      module: the loaded original module (its builders are the user's, not
        transpiled ones).
      func: the function name.
      specs: parsed ``ArgSpec``s from ``--arg``.
      seed: passed to the builder.
      as_tensor: see ``random_value``.

    Returns:
      A zero-argument callable returning ``(args, kwargs)``.

    Raises:
      LookupError: no way to build inputs for ``func``; the message says what
        to define.
    """
    if specs:
        return lambda: spec_inputs(specs, seed, as_tensor)
    if has_example_inputs(module):
        first = call_builder(module.example_inputs, seed)
        if isinstance(first, dict) and func in first:
            def make():
                return as_call_args(call_builder(module.example_inputs, seed)[func])
            return make
    if func == "original" and has_case_inputs(module):
        return lambda: as_call_args(call_builder(module.make_inputs, seed))
    raise LookupError(
        f"no inputs for {func!r}: pass --arg NAME=DTYPE[SHAPE] options, or define "
        f"example_inputs(seed=0) returning {{{func!r}: (args...)}}")
