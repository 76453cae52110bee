"""Expands the paths given to ``pforge check`` into the Python files to analyse.

Folders are walked in sorted order, skipping what ``exclude``/``extend-exclude`` match and
what the ``.gitignore`` files on the way (from the project root down) ignore. Files named
explicitly are always checked, and folders named explicitly always walked, unless
``force_exclude`` is set (pre-commit passes every staged file by name, so the hook needs it
to honour ``exclude``). Patterns are gitignore
patterns matched by pathspec against the path relative to ``Settings.root``.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pathspec

from pforge.cli.config import Settings


class _Ignores:
    """The exclude patterns plus every ``.gitignore`` met so far, each relative to its folder."""

    def __init__(self, settings: Settings):
        self.root = settings.root
        self.exclude = pathspec.GitIgnoreSpec.from_lines(
            list(settings.exclude) + list(settings.extend_exclude))
        self.gitignores: dict[str, pathspec.GitIgnoreSpec | None] = {}

    def excluded(self, path: str, is_dir: bool) -> bool:
        path = os.path.abspath(path)
        rel = _relative(path, self.root)
        if rel == ".":
            return False
        if rel is not None and self.exclude.match_file(rel + ("/" if is_dir else "")):
            return True
        return self.exclude.match_file(os.path.basename(path) + ("/" if is_dir else ""))

    def gitignored(self, path: str, is_dir: bool) -> bool:
        path = os.path.abspath(path)
        folder = os.path.dirname(path)
        ignored = False
        # Deeper .gitignore files override shallower ones, as in git.
        for base in _ancestors(folder, self.root):
            spec = self._spec(base)
            if spec is None:
                continue
            rel = os.path.relpath(path, base).replace(os.sep, "/") + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                ignored = result.include
        return ignored

    def _spec(self, folder: str) -> pathspec.GitIgnoreSpec | None:
        if folder not in self.gitignores:
            spec = None
            name = os.path.join(folder, ".gitignore")
            if os.path.isfile(name):
                try:
                    with open(name, encoding="utf-8", errors="replace") as fh:
                        spec = pathspec.GitIgnoreSpec.from_lines(fh)
                except OSError:
                    spec = None
            self.gitignores[folder] = spec
        return self.gitignores[folder]


def _relative(path: str, root: str) -> str | None:
    rel = os.path.relpath(path, root)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return None
    return rel.replace(os.sep, "/")


def _ancestors(folder: str, root: str) -> list[str]:
    """Folders from ``root`` (or the file system root when outside it) down to ``folder``."""
    chain = []
    while True:
        chain.append(folder)
        if folder == root:
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            chain = [c for c in chain if _relative(c, root) is not None] or chain[:1]
            break
        folder = parent
    return chain[::-1]


def python_files(paths: list[str], settings: Settings, *, force_exclude: bool = False) -> list[str]:
    """The files to check, in the order given (folders expanded in sorted order), no duplicates.

    Args:
        paths: files and folders as the user typed them; results keep that spelling
            (``pkg`` gives ``pkg/sub/a.py``).
        settings: exclusion patterns and the project root.
        force_exclude: apply ``exclude`` to files named explicitly too.
    Returns:
        Paths of ``.py`` files. A path that does not exist or is not a file is kept, so the
        analysis reports it as bad input.
    """
    ignores = _Ignores(settings)
    found: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            if not (force_exclude and ignores.excluded(path, False)):
                found.append(path)
            continue
        inside = ignores
        if ignores.excluded(path, True) or ignores.gitignored(path, True):
            if force_exclude:
                continue
            # A folder named explicitly is walked even when it is excluded or ignored (ruff does
            # the same): only what lies below it is matched, relative to it.
            inside = _Ignores(replace(settings, root=os.path.abspath(path)))
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not _skip(inside, os.path.join(folder, d), True))
            if folder.startswith("." + os.sep):
                folder = folder[2:]  # "./pkg/a.py" reads as "pkg/a.py", as in ruff
            found += [os.path.join(folder, f) if folder != "." else f for f in sorted(files)
                      if f.endswith(".py") and not _skip(inside, os.path.join(folder, f), False)]
    return list(dict.fromkeys(found))


def _skip(ignores: _Ignores, path: str, is_dir: bool) -> bool:
    return ignores.excluded(path, is_dir) or ignores.gitignored(path, is_dir)
