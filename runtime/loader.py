"""Executes a Python file, or transpiled text for it, as a fresh module."""

import itertools
import linecache
import os
import sys
import types

_counter = itertools.count()


class RuntimeLoadError(Exception):
    """User code raised while it was being imported.

    Attributes:
      path: the file whose import failed.
    """

    def __init__(self, path, cause):
        self.path = str(path)
        detail = f"{type(cause).__name__}: {cause}"
        super().__init__(f"{self.path}: error while importing: {detail}")


def generated_filename(path, variant=""):
    """Returns the filename under which transpiled text for ``path`` runs.

    ``foo/bar.py`` -> ``foo/bar.pforge.py``, or ``foo/bar.pforge-direct.py``
    with ``variant="direct"``. A distinct name keeps the sources apart in
    ``linecache``: AutoGraph (``tf.function``) reads a function's source
    through ``linecache`` when it first traces, so registering the generated
    text under the original name (or two generated texts under one name)
    would make it convert the wrong code.
    """
    root, ext = os.path.splitext(os.path.abspath(path))
    suffix = f"-{_identifier(variant)}" if variant else ""
    return f"{root}.pforge{suffix}{ext or '.py'}"


def load_module(path, source=None, name=None, variant=""):
    """Executes a Python file as a new module object.

    The module is in ``sys.modules`` only while its body runs (dataclasses and
    pickling look it up there); afterwards that entry is removed again, as are
    modules the file imported from its own directory, so the next load sees
    fresh copies. Third-party modules it imported (tensorflow, numpy) stay
    loaded: re-importing them is slow and, for TensorFlow, unsafe. The file's
    directory is on ``sys.path`` during the exec, and no bytecode is written.

    Args:
      path: the Python file (str or PathLike).
      source: text to run instead of the file's contents, e.g. the transpiled
        code. It runs under ``generated_filename(path)``, registered in
        ``linecache`` so tracebacks and ``inspect.getsource`` show it.
      name: module name; default a unique ``_pforge_<stem>_<n>``.
      variant: tells apart several texts for one file (``"pfor"``,
        ``"direct"``) that are loaded side by side; see ``generated_filename``.

    Returns:
      The executed ``types.ModuleType``.

    Raises:
      FileNotFoundError: ``source`` is None and the file does not exist.
      RuntimeLoadError: the code raised (including ``SyntaxError`` and
        ``SystemExit``) while executing.
    """
    path = os.path.abspath(os.fspath(path))
    if source is None:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        filename = path
    else:
        if isinstance(source, bytes):
            source = source.decode("utf-8")
        filename = generated_filename(path, variant)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = name or f"_pforge_{_identifier(stem)}_{next(_counter)}"
    module = types.ModuleType(name)
    module.__file__ = filename
    folder = os.path.dirname(path)

    before = set(sys.modules)
    saved_path = list(sys.path)
    saved_bytecode = sys.dont_write_bytecode
    sys.path.insert(0, folder)
    sys.dont_write_bytecode = True
    sys.modules[name] = module
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 - running user code is the point
    except (Exception, SystemExit) as exc:
        raise RuntimeLoadError(path, exc) from exc
    finally:
        sys.modules.pop(name, None)
        _forget_local_modules(before, folder)
        sys.path[:] = saved_path
        sys.dont_write_bytecode = saved_bytecode
    return module


def _identifier(text):
    return "".join(c if c.isalnum() else "_" for c in text)


def _forget_local_modules(before, folder):
    # Only modules found through ``folder`` (its own .py files and packages);
    # a library installed below it, e.g. in a .venv, must stay loaded.
    for key in set(sys.modules) - before:
        top = key.partition(".")[0]
        local = os.path.join(folder, top)
        if os.path.isdir(local) or os.path.isfile(local + ".py"):
            file = getattr(sys.modules.get(key), "__file__", None) or ""
            if os.path.abspath(file).startswith(local):
                del sys.modules[key]
