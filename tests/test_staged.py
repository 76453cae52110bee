"""``@pforge.vectorize``: one rewrite per input signature, staged at the first call.

Every test first asserts what ran (a rewrite, or the function as written, and why), then
compares the numbers with the undecorated function on the same inputs.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_same_numbers, case_files, shared_cases

import pforge
from pforge.runtime import staged as staged_module
from pforge.runtime.loader import load_module
from pforge.runtime.staged import MismatchError, PforgeWarning, StagedFunction

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "samples").glob("*.py"))
REFUSED_SAMPLES = {"logging_refused", "rnn_refused"}  # their loops are not independent


def _load(name):
    """tests/data/NAME.py, loaded afresh (each test gets empty caches)."""
    path = ROOT / "tests" / "data" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _programs():
    return _load("staged_programs")


def _undecorated(staged):
    return staged.python_function


def _rewritten(entry):
    """The entry runs pforge's rewrite: a compiled function, not the one as written."""
    assert entry.rewritten, entry.reason or [r.message for r in entry.remarks]
    assert entry.transpiled and entry.reason == ""
    assert "pforge: vectorized loop" in entry.code
    return entry


# -- one rewrite per signature ---------------------------------------------------------------------


def test_a_numpy_function_is_rewritten_once_for_every_batch_size():
    sp = _programs()
    rng = np.random.default_rng(0)
    for n in (5, 9, 1, 40):
        x = rng.random((n, 3))
        assert_same_numbers(sp.row_norms_loop(x, 2.0), sp.row_norms(x, 2.0))
    [entry] = sp.row_norms.signatures
    _rewritten(entry)
    assert "for i in" not in entry.code
    assert entry.description == "x: <f8 ndarray rank 2, scale: float"
    stats = sp.row_norms.stats
    assert (stats.signatures, stats.transpiles, stats.calls, stats.traces) == (1, 1, 4, 0)
    assert stats.transpile_s > 0


def test_a_new_rank_dtype_or_kind_is_a_new_signature():
    sp = _programs()
    x = np.random.default_rng(1).random((4, 3))
    sp.row_norms(x)
    sp.row_norms(x.astype(np.float32))  # dtype
    sp.row_norms(x[:, :, None])  # rank
    sp.row_norms(x, 2)  # an int scale, not a float
    sp.row_norms(x, scale=2)  # the same signature as the call before
    assert sp.row_norms.stats.transpiles == 4
    for entry in sp.row_norms.signatures:
        assert entry.calls >= 1
    assert_same_numbers(sp.row_norms_loop(x[:, :, None]), sp.row_norms(x[:, :, None]))


def test_defaults_and_keywords_give_the_loop_results():
    sp = _programs()
    x = np.random.default_rng(2).random((6, 2))
    assert_same_numbers(sp.row_norms_loop(x), sp.row_norms(x))
    assert_same_numbers(sp.row_norms_loop(x, scale=3.0), sp.row_norms(x=x, scale=3.0))
    with pytest.raises(TypeError):
        sp.row_norms(x, 1.0, 2.0)  # raised as the function raises it


def test_a_tensorflow_sample_is_transpiled_once_and_traced_at_most_twice(tf):
    module = load_module(str(ROOT / "samples" / "dense_per_example.py"))
    fn = pforge.vectorize(module.dense_relu)
    w, b = tf.random.normal([4, 3], seed=1), tf.random.normal([3], seed=2)
    for n in (8, 16, 3, 33):
        x = tf.random.normal([n, 4], seed=n)
        assert_same_numbers(module.dense_relu(x, w, b), fn(x, w, b))
    [entry] = fn.signatures
    _rewritten(entry)
    assert entry.staged
    # traced for the first shape, then once more, with dimensions unknown, for all the others
    assert fn.stats.transpiles == 1 and fn.stats.traces == 2 and fn.stats.first_call_s > 0
    assert "tf.linalg.matmul(x, w)" in entry.code
    # a tensor's rank is the signature's, as it is `tf.function`'s: the docstring's ranks, which
    # `pforge transpile` asserts (`tf.debugging.assert_rank(x, 2)`), need no assertion here
    assert "assert_rank" not in entry.code, entry.code


def test_a_sample_with_scalar_arguments_runs_staged(tf):
    module = load_module(str(ROOT / "samples" / "filter_rows.py"))
    fn = pforge.vectorize(module.select_peaked_rows)
    args, kwargs = module.example_inputs(0)["select_peaked_rows"], {}
    if isinstance(args, dict):
        args, kwargs = (), args
    want = module.select_peaked_rows(*args, **kwargs)
    assert_same_numbers(want, fn(*args, **kwargs))
    entry = fn.entry(*args, **kwargs)
    _rewritten(entry)
    assert entry.staged and 1 <= entry.traces <= 2


# -- where the decorated function lives ------------------------------------------------------------


def test_a_method_with_a_private_attribute():
    sp = _programs()
    scaler = sp.Scaler(2.5)
    x = np.random.default_rng(3).random((5, 4))
    got = scaler.norms(x)
    _rewritten(scaler.norms.entry(x))
    assert "self.__factor" in scaler.norms.code(x)  # the rewrite reads the mangled name
    assert_same_numbers(2.5 * np.abs(x).sum(axis=1), got)
    assert isinstance(sp.Scaler.norms, StagedFunction)


def test_a_closure_shares_its_cells_with_the_function_as_written():
    sp = _programs()
    offset_rows, set_offset = sp.make_offset_rows(1.0)
    x = np.random.default_rng(4).random((3, 2))
    assert_same_numbers((x * x).sum(axis=1) + 1.0, offset_rows(x))
    _rewritten(offset_rows.entry(x))
    set_offset(100.0)  # `nonlocal offset`: the rewrite sees the new value
    assert_same_numbers((x * x).sum(axis=1) + 100.0, offset_rows(x))


def test_a_function_that_writes_its_argument_writes_the_same_object():
    sp = _programs()
    rng = np.random.default_rng(5)
    x, s = rng.random((6, 3)), rng.random(6)
    want = x * s[:, None]
    assert sp.scale_rows_in_place(x, s) is None
    _rewritten(sp.scale_rows_in_place.signatures[0])
    assert sp.scale_rows_in_place.signatures[0].verified  # verify="first" compared the written x
    assert_same_numbers(want, x)


def test_arguments_that_share_memory_run_as_written():
    sp = _programs()
    a = np.arange(5.0)
    want = _undecorated(sp.shift_into)(a.copy(), a.copy())
    got = sp.shift_into(a, a)
    entry = sp.shift_into.signatures[0]
    assert entry.fn is _undecorated(sp.shift_into) and entry.rewritten == ()
    assert entry.reason == "`dst` and `src` share memory"
    assert_same_numbers(want, got)
    sp.shift_into(np.zeros(5), np.arange(5.0))
    _rewritten(sp.shift_into.signatures[1])  # apart, the same function is rewritten


def test_a_loop_that_raises_still_raises():
    """`range(n)` past the end of `x`: the loop raises IndexError, and so does the rewrite
    (its bound check runs the loop)."""
    sp = _programs()
    _rewritten(sp.first_n.entry(np.arange(3.0), 2))
    assert "n <= x.shape[0]" in sp.first_n.code(np.arange(3.0), 2)
    with pytest.raises(IndexError):
        sp.first_n(np.arange(3.0), 5)
    assert_same_numbers(np.array([0.0, 2.0]), sp.first_n(np.arange(3.0), 2))


def test_a_python_list_argument():
    sp = _programs()
    values = [1.0, 2.5, -3.0]
    assert sp.list_sum_of_squares(values) == pytest.approx(1.0 + 6.25 + 9.0)
    entry = sp.list_sum_of_squares.signatures[0]
    _rewritten(entry)
    assert entry.description == "values: list of rank 1"
    assert sp.list_sum_of_squares([1, 2]) == 5  # a list of ints is another signature
    assert len(sp.list_sum_of_squares.signatures) == 2


def test_a_loop_that_is_not_independent_runs_as_written():
    sp = _programs()
    x = np.arange(4.0)
    want = np.zeros(4)
    for i in range(1, 4):
        want[i] = np.tanh(want[i - 1]) + i
    assert_same_numbers(want, sp.running_total(x))
    [entry] = sp.running_total.signatures
    assert entry.fn is _undecorated(sp.running_total) and entry.transpiled
    assert entry.reason == "no loop of the function was rewritten"
    assert any(r.code.startswith("PF2") for r in entry.remarks)


def test_another_decorator_below_is_reported_and_left():
    sp = _programs()
    x = np.ones((2, 3))
    with pytest.warns(PforgeWarning, match="must be the innermost decorator"):
        got = sp.wrapped_norms(x)
    assert_same_numbers(np.array([3.0, 3.0]), got)
    assert sp.wrapped_norms.signatures[0].reason.endswith("must be the innermost decorator")


def test_a_function_without_source_warns_and_runs_as_written():
    namespace = {"np": np}
    exec(textwrap.dedent("""
        def total(x):
            s = 0.0
            for v in x:
                s += v
            return s
        """), namespace)
    fn = pforge.vectorize(namespace["total"])
    with pytest.warns(PforgeWarning, match="its source cannot be read"):
        assert fn(np.arange(4.0)) == 6.0
    assert fn.signatures[0].fn is namespace["total"]
    lam = pforge.vectorize(lambda x: x + 1)
    with pytest.warns(PforgeWarning, match="a lambda has no statements"):
        assert lam(1) == 2


def test_bad_options_and_non_functions_are_refused():
    with pytest.raises(ValueError, match="unknown backend"):
        pforge.vectorize(backend="fast")
    with pytest.raises(ValueError, match="unknown verify"):
        pforge.vectorize(verify="sometimes")
    with pytest.raises(TypeError, match="expects a function, got int"):
        pforge.vectorize(3)
    wrapped = pforge.vectorize(len)  # a callable that is no Python function runs as written
    with pytest.warns(PforgeWarning, match="it is a builtin_function_or_method, not a function"):
        assert wrapped([1, 2]) == 2


# -- verification ------------------------------------------------------------------------------------


def _sabotaged(monkeypatch):
    """Makes every rewrite negate the scale of row_norms (a wrong rewrite to catch)."""
    from pforge.transpile import pipeline

    real = pipeline.transpile_source

    def wrong(*args, **kwargs):
        result = real(*args, **kwargs)
        return type(result)(result.filename, result.source, result.code.replace(") * scale", ") * -scale"),
                            result.plans)

    monkeypatch.setattr(pipeline, "transpile_source", wrong)


def test_verify_first_raises_on_a_wrong_rewrite(monkeypatch):
    _sabotaged(monkeypatch)
    sp = _programs()
    checked = pforge.vectorize(_undecorated(sp.row_norms), verify="first")
    x = np.random.default_rng(6).random((4, 2)) + 0.1
    assert "* -scale" in checked.code(x, 2.0)
    with pytest.raises(MismatchError, match=r"row_norms .*line\(s\) 17 differs from the loop: result"):
        checked(x, 2.0)


def test_verify_fallback_keeps_the_loop(monkeypatch):
    _sabotaged(monkeypatch)
    sp = _programs()
    checked = pforge.vectorize(_undecorated(sp.row_norms), verify="first", on_mismatch="fallback")
    x = np.random.default_rng(7).random((4, 2)) + 0.1
    with pytest.warns(PforgeWarning, match="runs as written from now on"):
        assert_same_numbers(sp.row_norms_loop(x, 2.0), checked(x, 2.0))
    entry = checked.signatures[0]
    assert entry.fn is checked.python_function
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same_numbers(sp.row_norms_loop(x, 2.0), checked(x, 2.0))


def test_verify_always_compares_every_call(monkeypatch):
    sp = _programs()
    checked = pforge.vectorize(_undecorated(sp.row_norms), verify="always")
    x = np.random.default_rng(8).random((4, 2))
    calls = []
    real = staged_module.StagedFunction._verified
    monkeypatch.setattr(staged_module.StagedFunction, "_verified",
                        lambda self, *a: calls.append(1) or real(self, *a))
    for _ in range(3):
        assert_same_numbers(sp.row_norms_loop(x), checked(x))
    assert len(calls) == 3 and checked.signatures[0].verified
    _rewritten(checked.signatures[0])


# -- the cache -----------------------------------------------------------------------------------------


def test_staging_is_thread_safe(monkeypatch):
    from pforge.transpile import pipeline

    real, count = pipeline.transpile_source, []

    def counted(*args, **kwargs):
        count.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "transpile_source", counted)
    sp = _programs()
    x = np.random.default_rng(9).random((8, 3))
    want = sp.row_norms_loop(x)
    results, start = [], threading.Barrier(8)

    def call():
        start.wait()
        results.append(sp.row_norms(x))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(count) == 1 and len(results) == 8
    for got in results:
        assert_same_numbers(want, got)


def test_too_many_signatures_warn_once():
    sp = _programs()
    x = np.ones((2, 2))
    dtypes = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8]
    with pytest.warns(PforgeWarning, match="was staged for 6 input signatures") as record:
        for dtype in dtypes:
            sp.row_norms(x.astype(dtype))
    assert sum("input signatures" in str(w.message) for w in record) == 1


def test_numpy_code_never_imports_tensorflow():
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / 'tests' / 'data')!r})
        import numpy as np
        import staged_programs as sp
        out = sp.row_norms(np.ones((3, 4)))
        assert sp.row_norms.signatures[0].rewritten, sp.row_norms.signatures[0].reason
        assert np.allclose(out, 2.0)
        assert "tensorflow" not in sys.modules
        print("ok")
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# -- samples and shared cases --------------------------------------------------------------------------


def _through_decorator(path: Path, func: str):
    """(the function's result, the decorated result, the entry that ran) on the file's inputs."""
    from pforge.runtime import targets

    module = load_module(str(path))
    make = targets.input_maker(module, func, (), 0, str(path), True)
    fn = getattr(module, func)
    args, kwargs = make()
    want = fn(*args, **kwargs)
    decorated = pforge.vectorize(fn)
    args, kwargs = make()
    got = decorated(*args, **kwargs)
    return want, got, decorated.signatures[0], getattr(module, "TOL", None)


@pytest.mark.parametrize("path", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_every_sample_through_the_decorator(path, tf):
    from pforge.runtime import targets

    for func in targets.functions_in(str(path)):
        want, got, entry, tol = _through_decorator(path, func)
        if path.stem in REFUSED_SAMPLES:
            assert entry.rewritten == () and entry.fn.__name__ == func
        else:
            _rewritten(entry)
            # TensorFlow code runs under tf.function, NumPy code as it is
            assert entry.staged == ("import tensorflow" in path.read_text())
        assert_same_numbers(want, got, tol)


def _vectorizable(path: Path) -> bool:
    import ast

    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "EXPECT":
            return ast.literal_eval(node.value)["vectorizable"]
    raise AssertionError(f"{path.name} has no EXPECT")


@pytest.mark.parametrize("path", case_files() or [None], ids=[p.stem for p in case_files()] or ["no-cases"])
def test_every_shared_case_through_the_decorator(path):
    if path is None:
        shared_cases()  # skips saying why; fails in CI
    if any(line.startswith("import tensorflow") for line in path.read_text().splitlines()):
        pytest.importorskip("tensorflow")
    want, got, entry, tol = _through_decorator(path, "original")
    if _vectorizable(path):
        _rewritten(entry)
    else:
        assert entry.rewritten == () and entry.fn.__name__ == "original"
    assert_same_numbers(want, got, tol)


# -- what the function reads without binding it ------------------------------------------------------


def test_a_module_global_read_in_the_loop():
    sp = _programs()
    x = np.random.default_rng(10).random((5, 4))
    assert_same_numbers(x @ sp.WEIGHTS, sp.weighted_rows(x))
    entry = _rewritten(sp.weighted_rows.signatures[0])
    assert entry.description.endswith("; reads WEIGHTS: <f8 ndarray rank 1")
    sp.WEIGHTS = np.ones((4, 1))  # rebound with another rank: staged again for it
    got = sp.weighted_rows(x)
    assert len(sp.weighted_rows.signatures) == 2
    assert_same_numbers(_undecorated(sp.weighted_rows)(x), got)


def test_an_instance_attribute_read_in_the_loop():
    sp = _programs()
    rng = np.random.default_rng(11)
    layer, xs = sp.Layer(rng.random((3, 4))), rng.random((6, 4))
    assert_same_numbers(np.tanh(xs @ layer.w.T), layer.forward(xs))
    entry = _rewritten(layer.forward.entry(xs))
    assert "self.w" in entry.code and "for x in xs" not in entry.code.split("else:")[0]  # kept for no rows
    assert entry.description.endswith("; reads self.w: <f8 ndarray rank 2")
    other = sp.Layer(rng.random((2, 4)))  # another instance, same kinds: the same rewrite
    assert_same_numbers(np.tanh(xs @ other.w.T), other.forward(xs))
    assert len(sp.Layer.forward.signatures) == 1


def test_a_closure_variable_read_in_the_loop():
    sp = _programs()
    scaled, set_k = sp.make_scaled(2.0)
    x = np.random.default_rng(12).random((3, 4))
    assert_same_numbers(2.0 * x, scaled(x))
    _rewritten(scaled.signatures[0])
    set_k(np.arange(4.0))  # now a row: another signature, and the rewrite broadcasts it
    assert_same_numbers(x * np.arange(4.0), scaled(x))
    assert len(scaled.signatures) == 2
    _rewritten(scaled.signatures[1])


def test_a_global_that_shares_memory_with_an_argument_runs_as_written():
    sp = _programs()
    weights = sp.WEIGHTS
    x = np.tile(weights, (3, 1))
    got = sp.weighted_rows(weights[None, :])  # a view of the global itself
    entry = sp.weighted_rows.signatures[0]
    assert entry.reason == "`x` and `WEIGHTS` share memory" and entry.fn is _undecorated(sp.weighted_rows)
    assert_same_numbers(np.array([weights @ weights]), got)
    assert_same_numbers(x @ weights, sp.weighted_rows(x))


# -- the command line ----------------------------------------------------------------------------------


def test_verify_runs_a_file_through_the_decorator(tf):
    import json

    from conftest import assert_exit, invoke

    result = invoke("verify", ROOT / "samples" / "dense_per_example.py", "--decorated", "--json")
    assert_exit(result, 0)
    [row] = json.loads(result.stdout)["results"]
    assert row["status"] == "ok" and row["loops_vectorized"] == 1 and row["max_abs_err"] < 1e-4
    assert row["note"].startswith("@pforge.vectorize, first call: transpile ")
    refused = invoke("verify", ROOT / "samples" / "rnn_refused.py", "--decorated", "--json")
    assert_exit(refused, 0)
    [row] = json.loads(refused.stdout)["results"]
    assert row["status"] == "unchanged" and row["loops_vectorized"] == 0
    assert row["note"].startswith("@pforge.vectorize ran it as written: no loop of the function was rewritten")


@pytest.mark.gpu
def test_a_staged_rewrite_runs_on_the_gpu_and_in_a_device_scope(tf):
    """Where TensorFlow sees a GPU the rewrite runs there; a device scope still places it."""
    if not tf.config.list_physical_devices("GPU"):
        pytest.skip("needs a GPU; TensorFlow sees none")
    module = load_module(str(ROOT / "samples" / "dense_per_example.py"))
    fn = pforge.vectorize(module.dense_relu)
    x, w, b = tf.random.normal([64, 32]), tf.random.normal([32, 16]), tf.random.normal([16])
    got = fn(x, w, b)
    _rewritten(fn.signatures[0])
    assert "GPU" in got.device
    with tf.device("/CPU:0"):
        on_cpu = fn(tf.identity(x), w, b)
    assert "CPU" in on_cpu.device
    assert_same_numbers(module.dense_relu(x, w, b), got)
    assert_same_numbers(module.dense_relu(x, w, b), on_cpu)


# -- what a new user found (each was a wrong result or a crash) --------------------------------------


def _tf_programs():
    return _load("staged_tf_programs")


def test_tensorflow_code_that_reads_a_shape_is_traced_per_shape(tf):
    tp = _tf_programs()
    pred, target = tf.ones((1, 3)), tf.zeros((4, 3)) + tf.range(4.0)[:, None]
    assert float(tp.squared_error(pred, target)) == float(_undecorated(tp.squared_error)(pred, target)) == 3.0
    entry = _rewritten(tp.squared_error.signatures[0])
    assert entry.staged and "pred.shape[0]" in entry.code
    for n in (2, 3):
        p = tf.ones((n, 3))
        assert_same_numbers(_undecorated(tp.squared_error)(p, target), tp.squared_error(p, target))
    assert tp.squared_error.stats.transpiles == 1 and entry.traces == 3  # one per shape, as tf.function


def test_a_rebound_closure_number_is_traced_again(tf):
    tp = _tf_programs()
    scaled, set_s = tp.make_scaled(2.0)
    x = tf.ones((2, 3))
    assert_same_numbers(2.0 * x, scaled(x))
    _rewritten(scaled.signatures[0])
    set_s(3.0)  # tf.function froze 2.0 in its trace: a new value traces again
    assert_same_numbers(3.0 * x, scaled(x))
    assert len(scaled.signatures) == 1 and scaled.stats.transpiles == 1 and scaled.stats.traces == 2


def test_an_object_argument_is_not_traced(tf):
    tp = _tf_programs()
    config, x = tp.Config(2.0), tf.ones((2, 3))
    assert_same_numbers(2.0 * x, tp.scaled_by_config(x, config))
    entry = tp.scaled_by_config.signatures[0]
    assert entry.rewritten and not entry.staged  # tf.function would miss the change below
    config.scale = 5.0
    assert_same_numbers(5.0 * x, tp.scaled_by_config(x, config))


def test_a_numpy_array_of_another_dtype_beside_tensors_runs_as_written(tf):
    tp = _tf_programs()
    x, w = tf.ones((3, 2)), np.array([1.0, 2.0, 3.0])
    assert_same_numbers(_undecorated(tp.weighted_sums)(x, w), tp.weighted_sums(x, w))
    assert tp.weighted_sums.signatures[0].reason == (
        "`w` is a NumPy array of float64 beside float32 tensors; pass it as a tensor of their dtype")
    assert_same_numbers(_undecorated(tp.weighted_sums)(x, tp.WEIGHTS), tp.weighted_sums(x, tp.WEIGHTS))


def test_a_ragged_tensor_runs_as_written(tf):
    tp = _tf_programs()
    x = tf.ragged.constant([[1.0, 2.0], [3.0]])
    assert_same_numbers(np.array([3.0, 3.0], np.float32), tp.ragged_row_sums(x))
    assert tp.ragged_row_sums.signatures[0].reason == "`x` is a tf.RaggedTensor"


def test_a_helper_replaced_since_import_runs_as_written(monkeypatch):
    sp = _programs()
    x = np.arange(3.0)
    assert_same_numbers(2.0 * x, sp.scaled_by_helper(x))
    _rewritten(sp.scaled_by_helper.signatures[0])
    monkeypatch.setattr(sp, "scale", lambda v: v * 3.0)
    assert_same_numbers(3.0 * x, sp.scaled_by_helper(x))
    entry = sp.scaled_by_helper.signatures[1]
    assert entry.reason.startswith("`scale` is not the function its module's source defines")


def test_an_array_inside_a_list_argument_shares_memory():
    sp = _programs()
    a = np.arange(5.0)
    want = _undecorated(sp.shift_from_list)(a.copy(), [a.copy()])
    want_shared = a.copy()
    _undecorated(sp.shift_from_list)(want_shared, [want_shared])
    got = a.copy()
    sp.shift_from_list(got, [got])
    assert sp.shift_from_list.signatures[0].reason == "`out` and `sources` share memory"
    assert_same_numbers(want_shared, got)
    assert_same_numbers(want, sp.shift_from_list(a.copy(), [a.copy()]))


def test_a_python_list_keeps_python_semantics():
    sp = _programs()
    assert sp.doubled_rows([[1.0, 2.0]]).tolist() == [[1.0, 2.0, 1.0, 2.0]]  # list * 2 repeats
    assert_same_numbers(np.array([[2.0, 4.0]]), sp.doubled_rows(np.array([[1.0, 2.0]])))
    _rewritten(sp.doubled_rows.signatures[1])


def test_static_and_class_methods_under_the_decorator():
    sp = _programs()
    x = np.arange(6.0).reshape(3, 2)
    assert_same_numbers((x * x).sum(axis=1), sp.Kinds.norms(x))
    assert_same_numbers((x * x).sum(axis=1), sp.Kinds().norms(x))
    assert_same_numbers(np.abs(x).sum(axis=1), sp.Kinds.named_norms(x))
    _rewritten(sp.Kinds.__dict__["norms"].__func__.signatures[0])
    _rewritten(sp.Kinds.__dict__["named_norms"].__func__.signatures[0])


def test_verify_skips_a_result_that_is_not_data():
    sp = _programs()
    x = np.arange(6.0).reshape(3, 2)
    with pytest.warns(PforgeWarning, match="cannot verify rows_in_a_box: it returns a Box"):
        box = sp.rows_in_a_box(x)
    assert_same_numbers(x.sum(axis=1), box.value)


def test_numpy_values_in_tensorflow_code_run_eagerly(tf):
    """`tf.function` would turn an array argument into a tensor (`x.mean()` fails) and a NumPy
    float64 scalar into a float64 tensor beside float32 ones: the rewrite runs, unstaged."""
    tp = _tf_programs()
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    for temperature in (np.sqrt(4.0), 2.0):
        want = _undecorated(tp.centred_rows)(x, temperature)
        got = tp.centred_rows(x, temperature)
        entry = tp.centred_rows.signatures[-1]
        assert entry.rewritten and not entry.staged
        assert_same_numbers(want, got)


def test_called_from_a_tf_function_it_is_not_converted_by_autograph(tf, caplog):
    tp = _tf_programs()

    @tf.function
    def caller(x):
        return tp.squared_error(x, x + 1.0)

    assert float(caller(tf.ones((2, 3)))) == 6.0
    assert not [r for r in caplog.records if "could not transform" in r.getMessage()
                and "StagedFunction" in r.getMessage()]
    _rewritten(tp.squared_error.signatures[0])
