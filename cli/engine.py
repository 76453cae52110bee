"""Runs the analysis over many files for ``pforge check``: a content cache and a process pool.

One function, :func:`check_files`, turns a list of paths into one :class:`FileOutcome` per
path, in the order given. Presentation (output formats, selection of codes, suppressions)
is the caller's; this module only analyses.

Outcomes are cached like ruff's ``.ruff_cache``: one small JSON file per analysed file, keyed
by the file's bytes, its path, the analysis options and a fingerprint of pforge itself (its
version and the source of ``pforge.transpile``), so any change to one of them misses. Entries
are written atomically; an entry that cannot be read or decoded counts as a miss, never as an
error. Files that miss are analysed in worker processes when there are enough of them.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass

from pforge.transpile import Remark, SourceError

#: Environment variable that moves the cache (as ``RUFF_CACHE_DIR`` does for ruff).
CACHE_ENV = "PFORGE_CACHE_DIR"
CACHE_NAME = ".pforge_cache"
#: Fewer files than this are analysed in this process: starting workers costs more.
MIN_FILES_PER_WORKER = 4


@dataclass(frozen=True)
class FileOutcome:
    """What the analysis found in one file.

    Attributes:
        path: as given.
        remarks: every remark of every loop unit, in source order (PF1xx, PF2xx and PF3xx).
        error: one line ``FILE:LINE:COL: message`` when the file could not be read or
            parsed, or the analysis failed (then ``remarks`` is empty), else None.
    """

    path: str
    remarks: tuple[Remark, ...] = ()
    error: str | None = None


def check_file(path: str, backend: str = "auto", target: str = "auto", shapes: dict | None = None) -> FileOutcome:
    """Analyses one file (the rewrite is planned, not written); bad input becomes ``error``.

    An unexpected exception inside pforge also becomes ``error`` (an internal error to
    report), so one file can never stop the others.
    """
    from pforge.transpile import transpile_source  # noqa: PLC0415 - only on a cache miss
    from pforge.transpile.frontend import read_source  # noqa: PLC0415

    try:
        source = read_source(path)
        result = transpile_source(source.text, path, backend=backend, target=target, shapes=shapes or None)
    except SourceError as exc:
        return FileOutcome(path, (), str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug in pforge must not stop the run
        return FileOutcome(path, (), internal_error(path, exc))
    return FileOutcome(path, result.remarks)


def internal_error(path: str, exc: BaseException) -> str:
    """The error line for a bug in pforge met while analysing ``path``."""
    return (f"{path}: internal error ({type(exc).__name__}: {exc}); this is a bug in pforge, "
            "please report it with this file")


def check_files(paths: list[str], *, cache_dir: str | None = None, jobs: int | None = None,
                options_key: str = "", backend: str = "auto", target: str = "auto",
                shapes: dict | None = None) -> list[FileOutcome]:
    """Analyses each file; one outcome per path, in the order given. Never raises for bad input.

    Args:
        paths: files to analyse (folders are the caller's to expand).
        cache_dir: folder of the outcome cache (see :func:`default_cache_dir`); None: no cache.
        jobs: worker processes; None: one per CPU available; 1: analyse in this process.
        options_key: any further option that changes the outcomes (part of the cache key).
        backend, target, shapes: passed to :func:`~pforge.transpile.transpile_source`.
    Returns:
        ``[FileOutcome]``, ``len(paths)`` long, ``outcomes[i].path == paths[i]``.
    """
    ranks = ",".join(f"{k}={v}" for k, v in sorted((shapes or {}).items()))
    cache = _Cache.open(cache_dir, f"{backend}\0{target}\0{ranks}\0{options_key}") if cache_dir else None
    outcomes: list[FileOutcome | None] = [None] * len(paths)
    keys: list[str | None] = [None] * len(paths)
    todo: list[int] = []
    for i, path in enumerate(paths):
        if cache is not None:
            keys[i] = cache.key(path)
            outcomes[i] = cache.get(keys[i], path)
        if outcomes[i] is None:
            todo.append(i)
    workers = _workers(jobs, len(todo))
    analyse = functools.partial(check_file, backend=backend, target=target, shapes=shapes)
    if workers > 1:
        done = _in_pool([paths[i] for i in todo], analyse, workers)
    else:
        done = [analyse(paths[i]) for i in todo]
    for i, outcome in zip(todo, done, strict=True):
        outcomes[i] = outcome
        if cache is not None and keys[i] is not None and not _is_internal(outcome):
            cache.put(keys[i], outcome)
    return outcomes  # type: ignore[return-value]


def _is_internal(outcome: FileOutcome) -> bool:
    return outcome.error is not None and ": internal error (" in outcome.error


def _workers(jobs: int | None, files: int) -> int:
    if jobs is None:
        try:
            jobs = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            jobs = os.cpu_count() or 1
    return max(1, min(jobs, files // MIN_FILES_PER_WORKER))


def _in_pool(paths: list[str], analyse, workers: int) -> list[FileOutcome]:
    """``[analyse(p) for p in paths]`` in ``workers`` processes, largest files first."""
    import concurrent.futures  # imported here: a pre-commit run on a few files never needs it
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    def size(path):
        try:
            return os.stat(path).st_size
        except OSError:
            return 0

    order = sorted(range(len(paths)), key=lambda i: -size(paths[i]))
    # fork starts workers with pforge already imported; elsewhere spawn is the only option.
    forks = "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"
    method = "fork" if forks else "spawn"
    results: list[FileOutcome | None] = [None] * len(paths)
    try:
        pool = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context(method), initializer=_worker_init)
    except OSError:
        pool = None  # no processes to be had: everything runs here
    if pool is not None:
        try:
            futures = {pool.submit(analyse, paths[i]): i for i in order}
            for future in concurrent.futures.as_completed(futures):
                i = futures[future]
                try:
                    results[i] = future.result()
                except Exception as exc:  # noqa: BLE001 - e.g. a worker killed by the system
                    results[i] = FileOutcome(paths[i], (), internal_error(paths[i], exc))
        except (OSError, BrokenProcessPool):
            pass  # whatever is left runs here
        finally:
            # On Ctrl-C, do not wait for the files not yet started.
            pool.shutdown(wait=True, cancel_futures=True)
    return [r if r is not None else analyse(paths[i]) for i, r in enumerate(results)]


def _worker_init() -> None:
    # Parsing builds millions of short-lived nodes and no reference cycles worth chasing:
    # collecting rarely saves ~15% of a worker's time. Imported modules are frozen out of it.
    import gc

    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


# ---------------------------------------------------------------------------------------------
# Cache


def project_root(start: str | None = None) -> str:
    """The nearest folder at or above ``start`` (default: the working folder) that holds a
    ``pyproject.toml`` or a ``.git``; ``start`` itself when there is none."""
    here = os.path.abspath(start or os.getcwd())
    folder = here
    while True:
        if os.path.exists(os.path.join(folder, "pyproject.toml")) or \
                os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return here
        folder = parent


def default_cache_dir(start: str | None = None) -> str:
    """``$PFORGE_CACHE_DIR`` when set, else ``.pforge_cache`` in the :func:`project_root`."""
    return os.environ.get(CACHE_ENV) or os.path.join(project_root(start), CACHE_NAME)


@functools.lru_cache(maxsize=1)
def fingerprint() -> str:
    """pforge's version and a hash of the source of ``pforge.transpile`` (16 hex digits).

    The source is hashed too, so that a cache never outlives a change to the analysis, even
    in a development install whose version number stays the same.
    """
    from importlib import metadata

    import pforge.transpile

    try:
        version = metadata.version("pforge")
    except metadata.PackageNotFoundError:
        version = "unknown"
    digest = hashlib.sha256(version.encode())
    root = os.path.dirname(pforge.transpile.__file__)
    for folder, dirs, files in sorted(os.walk(root)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as fh:
                    digest.update(name.encode() + b"\0" + fh.read())
    return digest.hexdigest()[:16]


class _Cache:
    """One JSON file per outcome under ``<folder>/<fingerprint>/<key[:2]>/<key>.json``."""

    def __init__(self, folder: str, options: str):
        self.folder = folder
        self.options = options

    @classmethod
    def open(cls, root: str, options: str) -> "_Cache | None":
        current = fingerprint()
        folder = os.path.join(root, current)
        try:
            os.makedirs(folder, exist_ok=True)
            _mark_cache_root(root)
            for name in os.listdir(root):  # entries of other pforge versions never hit again
                if name != current and re.fullmatch(r"[0-9a-f]{16}", name):
                    shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        except OSError:
            return None  # an unwritable cache folder only costs speed
        return cls(folder, options)

    def key(self, path: str) -> str | None:
        """The key of ``path``'s current bytes, or None when it cannot be read (not cached)."""
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None  # a folder, a FIFO, a device: the analysis says what is wrong
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        digest = hashlib.sha256(self.options.encode() + b"\0" + os.fsencode(path) + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _file(self, key: str) -> str:
        return os.path.join(self.folder, key[:2], key + ".json")

    def get(self, key: str | None, path: str) -> FileOutcome | None:
        if key is None:
            return None
        try:
            with open(self._file(key), encoding="utf-8") as fh:
                entry = json.load(fh)
            remarks = tuple(Remark(**fields) for fields in entry["remarks"])
            error = entry["error"]
            if entry["path"] != path or not (error is None or isinstance(error, str)) \
                    or not all(_well_typed(r) for r in remarks):
                return None
            return FileOutcome(path, remarks, error)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None  # missing or corrupt: analyse again

    def put(self, key: str, outcome: FileOutcome) -> None:
        entry = {"path": outcome.path, "error": outcome.error,
                 "remarks": [dataclasses.asdict(r) for r in outcome.remarks]}
        target = self._file(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=os.path.dirname(target))
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(entry, fh, separators=(",", ":"))
                os.replace(tmp, target)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass  # a full disk or a read-only folder only costs speed


_SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def _well_typed(obj) -> bool:
    """Each field holds a value of its declared type (for the simple types a remark has)."""
    for f in dataclasses.fields(obj):
        expected = _SCALARS.get(str(f.type).replace(" | None", ""))
        value = getattr(obj, f.name)
        if expected is not None and not isinstance(value, expected) and \
                not (value is None and "None" in str(f.type)):
            return False
    return True


def _mark_cache_root(root: str) -> None:
    """Marks the cache as one (CACHEDIR.TAG) and keeps it out of git, as ruff does."""
    tag = os.path.join(root, "CACHEDIR.TAG")
    if not os.path.exists(tag):
        with open(tag, "w", encoding="ascii") as fh:
            fh.write("Signature: 8a477f597d28d172789f06886806bc55\n"
                     "# This file is a cache directory tag created by pforge.\n")
    ignore = os.path.join(root, ".gitignore")
    if not os.path.exists(ignore):
        with open(ignore, "w", encoding="ascii") as fh:
            fh.write("# Automatically created by pforge.\n*\n")
