"""Times calls (median over repeats, plus the first, tracing call) and picks the device."""

import dataclasses
import random
import statistics
import sys
import time


@dataclasses.dataclass(frozen=True)
class Timing:
    """Wall-clock timing of one function.

    Attributes:
      median_s: median seconds per call over the timed repeats.
      first_s: seconds of the first call (includes ``tf.function`` tracing).
      repeats: how many timed calls the median is over.
    """

    median_s: float
    first_s: float
    repeats: int


DEVICES = ("auto", "cpu", "gpu")


def pick_device(which="auto"):
    """Chooses where to run: the first GPU if TensorFlow sees one, else the CPU.

    Enables memory growth on the GPU (when still possible) so that pforge
    does not reserve all of its memory.

    Args:
      which: ``"auto"`` (GPU when there is one), ``"cpu"`` or ``"gpu"``.

    Returns:
      ``(device, label)``, e.g. ``("/GPU:0", "GPU: NVIDIA H200")`` or
      ``("/CPU:0", "CPU (no GPU visible)")``; with ``which="cpu"`` the label
      is ``"CPU"``.

    Raises:
      ValueError: ``which`` is not one of ``DEVICES``.
      LookupError: ``which`` is ``"gpu"`` and TensorFlow sees no GPU.
      ImportError: TensorFlow is not installed.
    """
    if which not in DEVICES:
        raise ValueError(f"unknown device {which!r}; expected one of {', '.join(DEVICES)}")
    from pforge.runtime._tf import tensorflow  # noqa: PLC0415 - lazy

    tf = tensorflow()
    if which == "cpu":
        return "/CPU:0", "CPU"
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        if which == "gpu":
            raise LookupError("--device gpu: TensorFlow sees no GPU")
        return "/CPU:0", "CPU (no GPU visible)"
    try:
        tf.config.experimental.set_memory_growth(gpus[0], True)
    except (RuntimeError, ValueError):  # already initialized
        pass
    try:
        name = tf.config.experimental.get_device_details(gpus[0]).get("device_name")
    except (RuntimeError, ValueError):
        name = None
    return "/GPU:0", f"GPU: {name or gpus[0].name}"


def sync():
    """Waits for queued device work; a no-op unless TensorFlow is loaded.

    TensorFlow runs GPU ops asynchronously, so a call can return before its
    kernels finish; timing without a sync would measure only the launch.
    """
    tf = sys.modules.get("tensorflow")
    barrier = getattr(getattr(getattr(tf, "test", None), "experimental", None),
                      "sync_devices", None)
    if barrier is not None:
        barrier()


def timed_call(fn, args=(), kwargs=None):
    """Calls ``fn(*args, **kwargs)`` once, synchronized.

    Returns:
      ``(result, seconds)``.
    """
    sync()
    start = time.perf_counter()
    result = fn(*args, **(kwargs or {}))
    sync()
    return result, time.perf_counter() - start


def time_interleaved(fns, make_args, repeats=20, warmup=2, budget_s=None, each=False):
    """Times several functions on the same inputs, alternating between them.

    Round r calls every function once, in an order drawn afresh each round
    (seeded, so a run repeats): drift and noise (clock boost, other
    processes) hit all of them alike, and no function always runs right
    after the same one. A fixed order, even one reversed on odd rounds,
    times a fast function that always follows a slow Python loop with the
    caches and branch predictors that loop left behind (a hundred NumPy
    calls on 10,000 values measured about 10 % slower there than the same
    code timed after another fast function, in one run).
    Arguments come fresh from ``make_args`` before each call, outside the
    clock, since functions may mutate their inputs. The first call of each
    function is timed on its own; ``warmup`` untimed rounds follow.

    Args:
      fns: the functions to time.
      make_args: zero-argument callable returning ``(args, kwargs)``.
      repeats: timed calls per function (at least 1).
      warmup: untimed rounds after the first calls.
      budget_s: if given, fewer repeats (but at least 3) when ``repeats``
        rounds would take longer than this many seconds, judged from the
        last warmup round (or the first calls when ``warmup`` is 0).
      each: apply ``budget_s`` to each function on its own: a slow function
        gets fewer repeats (taken in the first rounds, still interleaved
        with the others) while fast ones keep all ``repeats``.

    Returns:
      A list of ``Timing``, one per function, in the order of ``fns``.
    """
    last = [timed_call(fn, *make_args())[1] for fn in fns]
    firsts = list(last)
    for _ in range(warmup):
        last = [timed_call(fn, *make_args())[1] for fn in fns]
    repeats = max(1, int(repeats))
    counts = [repeats] * len(fns)
    if budget_s is not None:
        spent = last if each else [sum(last)] * len(fns)
        counts = [min(repeats, max(3, int(budget_s / s))) if s > 0 else repeats for s in spent]
    samples = [[] for _ in fns]
    order, shuffle = list(range(len(fns))), random.Random(0).shuffle
    for r in range(max(counts, default=0)):
        shuffle(order)
        for k in order:
            if r < counts[k]:
                samples[k].append(timed_call(fns[k], *make_args())[1])
    return [Timing(statistics.median(s), first, n)
            for s, first, n in zip(samples, firsts, counts)]


def time_call(fn, make_args, repeats=20, warmup=2):
    """Times one function: see ``time_interleaved``.

    Args:
      fn: the function.
      make_args: zero-argument callable returning ``(args, kwargs)``.
      repeats: timed calls.
      warmup: untimed calls after the first.

    Returns:
      A ``Timing`` (seconds).
    """
    return time_interleaved([fn], make_args, repeats, warmup)[0]
