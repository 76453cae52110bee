"""Finds and validates the ``[tool.pforge]`` table of ``pyproject.toml``.

Discovery follows black (``black/files.py: find_project_root``): from the common parent of
the paths given, walk up to the first folder holding ``.git``, ``.hg`` or a
``pyproject.toml`` with a ``[tool.pforge]`` table; that folder is the project root, and its
``pyproject.toml`` (if any) the configuration. ``--config FILE`` names the file instead (its
``[tool.pforge]`` table, or the whole file when it has none, like ``ruff.toml``);
``--isolated`` ignores every configuration file. Patterns in the file are relative to the
folder that holds it. Unknown keys and bad values raise :class:`ConfigError` naming the key.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, replace

from pforge.transpile import RULES
from pforge.transpile.pipeline import LINE_LENGTH_MAX

#: Folders never walked unless ``exclude`` is set (like ruff's default ``exclude``); ``.*/``
#: skips every hidden folder (``.git``, ``.venv``, ``.tox``, ...).
DEFAULT_EXCLUDE = (".*/", "venv/", "__pycache__/", "node_modules/", "build/", "dist/",
                   "site-packages/", "*.egg-info/")

BACKENDS = ("auto", "pfor", "direct")
TARGETS = ("auto", "tensorflow")


class ConfigError(Exception):
    """A configuration file or option is invalid; ``str()`` is one line naming file and key."""


@dataclass(frozen=True)
class Settings:
    """The options of one ``pforge check`` run, after the file and the command line.

    Attributes:
        root: absolute folder that relative patterns (``exclude``, ``per-file-ignores``)
            are matched from: the configuration file's folder, else the project root.
        config_file: the file the settings came from, or None.
        select, ignore: code prefixes (``PF1``, ``PF101``; ``ALL`` is every code). A code is
            reported when the longest prefix that matches it is selected (ignore wins a tie).
        exclude: gitignore-style patterns of paths never checked (replaces the default).
        extend_exclude: patterns added to ``exclude``.
        per_file_ignores: ``(pattern, codes)`` pairs: codes ignored in files matching it.
        backend: ``auto``, ``pfor`` or ``direct``; None when not configured (the transpiler's
            default is used).
        target: ``auto`` or ``tensorflow``.
        shapes: ``(name, rank)`` pairs, the ranks ``check --fix`` rewrites with (``[tool.pforge]
            shapes = {x = 2, "f.w" = 1}``, or ``--shapes``), as ``transpile --shapes`` takes them.
        ignore_always: code prefixes ignored whatever is selected (``--ignore`` on the command
            line: a later layer than the file's ``select``, as in ruff, so ``--ignore ALL``
            silences everything).
        line_length: the longest line the code ``--fix`` writes may have (characters):
            ``[tool.pforge] line-length`` or ``--line-length``; None: the formatter's
            (:func:`formatter_line_length`), else the file's own.
    """

    root: str
    config_file: str | None = None
    select: tuple[str, ...] = ("PF1",)
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    backend: str | None = None
    target: str = "auto"
    shapes: tuple[tuple[str, int], ...] = ()
    ignore_always: tuple[str, ...] = ()
    line_length: int | None = None

    def selects(self, code: str) -> bool:
        """True when ``code`` is reported: its longest matching prefix is in ``select``."""
        if _longest(self.ignore_always, code) >= 0:
            return False
        return _longest(self.select, code) > _longest(self.ignore, code)


def _longest(prefixes: tuple[str, ...], code: str) -> int:
    return max((len(_prefix(p)) for p in prefixes if code.startswith(_prefix(p))), default=-1)


def _prefix(code: str) -> str:
    return "" if code == "ALL" else code


def find_project_root(paths: list[str]) -> tuple[str, str | None]:
    """The project root of ``paths`` and its ``pyproject.toml`` when that has ``[tool.pforge]``.

    Returns:
        ``(root, config_file)``; the root is the file system root's child-most common folder
        when no marker is found, and ``config_file`` is None when no configuration applies.
    Raises:
        ConfigError: a ``pyproject.toml`` on the way up is not valid TOML.
    """
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    common = os.path.commonpath(absolute)
    if not os.path.isdir(common):
        common = os.path.dirname(common)
    directory = common
    while True:
        candidate = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(candidate) and "pforge" in _tools(_read_toml(candidate), candidate):
            return directory, candidate
        if any(os.path.exists(os.path.join(directory, m)) for m in (".git", ".hg")):
            return directory, None
        parent = os.path.dirname(directory)
        if parent == directory:
            return common, None
        directory = parent


def load_settings(paths: list[str], *, config: str | None = None,
                  isolated: bool = False) -> Settings:
    """Settings for checking ``paths``: defaults, then the discovered or given configuration.

    Raises:
        ConfigError: the file is missing or not TOML, a key is unknown, or a value is bad.
    """
    if isolated:
        return Settings(root=os.getcwd())
    if config is not None:
        if not os.path.isfile(config):
            raise ConfigError(f"{config}: no such configuration file")
        data = _read_toml(config)
        table = data["tool"]["pforge"] if "pforge" in _tools(data, config) else data
        return _validate(table, os.path.dirname(os.path.abspath(config)), config)
    root, found = find_project_root(paths)
    if found is None:
        return Settings(root=root)
    return _validate(_read_toml(found)["tool"]["pforge"], root, found)


def _read_toml(path: str) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # (TOML is UTF-8)
        raise ConfigError(f"{path}: not valid TOML: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _tools(data: dict, path: str) -> dict:
    """The ``[tool]`` table of a ``pyproject.toml`` (empty where there is none).

    Raises:
        ConfigError: ``tool`` is there but is no table.
    """
    tools = data.get("tool", {})
    if not isinstance(tools, dict):
        raise ConfigError(f"{path}: tool must be a table, got {tools!r}")
    return tools


_KEYS = ("select", "ignore", "exclude", "extend-exclude", "per-file-ignores", "backend", "target", "shapes",
         "line-length")



def _validate(table: object, root: str, path: str) -> Settings:
    where = f"{path}: [tool.pforge]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}; known keys: {', '.join(_KEYS)}")
    settings = Settings(root=root, config_file=path)
    changes: dict = {}
    for key in ("select", "ignore"):
        if key in table:
            changes[key] = tuple(_codes(table[key], f"{where} {key}"))
    for key in ("exclude", "extend-exclude"):
        if key in table:
            changes[key.replace("-", "_")] = tuple(_strings(table[key], f"{where} {key}"))
    if "per-file-ignores" in table:
        value = table["per-file-ignores"]
        if not isinstance(value, dict):
            raise ConfigError(f"{where} per-file-ignores: expected a table of pattern = [codes], "
                              f"got {type(value).__name__}")
        changes["per_file_ignores"] = tuple(
            (pattern, tuple(_codes(codes, f"{where} per-file-ignores {pattern!r}")))
            for pattern, codes in value.items())
    if "shapes" in table:
        value = table["shapes"]
        if not isinstance(value, dict) or not all(
                isinstance(k, str) and re.fullmatch(r"[A-Za-z_][\w.]*", k) and type(v) is int and v >= 0
                for k, v in value.items()):
            raise ConfigError(f"{where} shapes: expected a table of NAME = RANK (a name such as x or "
                              f"f.x, a rank 0 or more), got {value!r}")
        changes["shapes"] = tuple(value.items())
    if "line-length" in table:
        changes["line_length"] = line_length(table["line-length"], f"{where} line-length")
    for key, allowed in (("backend", BACKENDS), ("target", TARGETS)):
        if key in table:
            value = table[key]
            if value not in allowed:
                raise ConfigError(f"{where} {key}: expected one of {', '.join(allowed)}, "
                                  f"got {value!r}")
            changes[key] = value
    return replace(settings, **changes)


def line_length(value: object, where: str) -> int:
    """Validates a line length: a whole number from 1 to :data:`LINE_LENGTH_MAX`.

    Raises:
        ConfigError: anything else, naming ``where`` (a file and key, or an option).
    """
    if type(value) is not int or not 1 <= value <= LINE_LENGTH_MAX:
        raise ConfigError(f"{where}: expected a whole number from 1 to {LINE_LENGTH_MAX}, got {value!r}")
    return value


#: where a formatter's line length is set, in the order ruff reads its files in one folder,
#: and in one ``pyproject.toml`` pforge's own setting first, then ruff's, then black's
_FORMATTER_FILES = (".ruff.toml", "ruff.toml", "pyproject.toml")
_PYPROJECT_TABLES = ("pforge", "ruff", "black")


def formatter_line_length(path: str) -> int | None:
    """The line length the project of ``path`` formats its code to, or None where it sets none.

    From the folder of ``path`` up to the repository root (the first folder holding ``.git``
    or ``.hg``), the nearest formatter configuration gives it, as ruff
    (https://docs.astral.sh/ruff/configuration/) and black (``black/files.py:
    find_pyproject_toml``) find theirs, so the code pforge writes is the code the formatter
    leaves as it is: a ``.ruff.toml`` or ``ruff.toml``, or a ``pyproject.toml`` with a
    ``[tool.pforge]`` line length or a ``[tool.ruff]`` or ``[tool.black]`` table (in that
    order). The search stops at the first such file: its ``line-length`` (in a
    ``pyproject.toml``, that of the first of those tables that sets one), or None where it sets
    none, so a parent folder's setting is not taken for a project that configures its own
    formatter; a ``pyproject.toml`` with none of those tables does not stop it.

    Raises:
        ConfigError: such a file is not valid TOML, or its ``line-length`` is not a whole number
            from 1 to :data:`LINE_LENGTH_MAX` (naming file and table).
    """
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        for name in _FORMATTER_FILES:
            candidate = os.path.join(folder, name)
            if not os.path.isfile(candidate):
                continue
            data = _read_toml(candidate)
            if name != "pyproject.toml":
                return line_length(data["line-length"], f"{candidate}: line-length") if "line-length" in data else None
            tools = _tools(data, candidate)
            for tool in _PYPROJECT_TABLES:
                table = tools.get(tool)
                if isinstance(table, dict) and "line-length" in table:
                    return line_length(table["line-length"], f"{candidate}: [tool.{tool}] line-length")
            if any(isinstance(tools.get(tool), dict) for tool in ("ruff", "black")):
                return None  # (a formatter configured here, at its default: the file's own)
        parent = os.path.dirname(folder)
        if parent == folder or any(os.path.exists(os.path.join(folder, m)) for m in (".git", ".hg")):
            return None
        folder = parent


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return value


def _codes(value: object, where: str) -> list[str]:
    """Validates code prefixes: each must be ``ALL`` or a prefix of a known remark code."""
    if isinstance(value, str):
        value = [value]
    for code in _strings(value, where):
        if code != "ALL" and not (code.startswith("PF") and any(c.startswith(code) for c in RULES)):
            raise ConfigError(f"{where}: unknown code {code!r}; expected ALL or a prefix of a "
                              f"remark code such as PF1, PF101 (see `pforge rule`)")
    return value


def parse_codes(option: str | None, name: str) -> tuple[str, ...] | None:
    """Splits a ``--select``/``--ignore`` value (``PF101,PF2``); None when not given.

    Raises:
        ConfigError: an unknown code, naming the option.
    """
    if option is None:
        return None
    return tuple(_codes([c.strip() for c in option.split(",") if c.strip()], name))
