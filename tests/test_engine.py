"""Tests of ``cli/engine``: the outcome cache, the process pool, and internal errors.

The analysis is counted by wrapping ``pipeline.transpile_source`` (what the engine calls on a cache miss); with ``jobs=1`` it runs in
this process, so the count is exact.
"""

from __future__ import annotations

import glob
import json
import os

import pytest
from conftest import DENSE
from typer.testing import CliRunner

from pforge.cli import engine
from pforge.cli.engine import FileOutcome, check_files
from pforge.cli.main import app
from pforge.transpile import pipeline



@pytest.fixture
def calls(monkeypatch):
    """Counts the files actually analysed (not answered from the cache)."""
    seen = []
    real = pipeline.transpile_source

    def counting(text, path, **kwargs):
        seen.append(path)
        return real(text, path, **kwargs)

    monkeypatch.setattr(pipeline, "transpile_source", counting)
    return seen


def make(tmp_path, count=3, text=DENSE):
    paths = []
    for k in range(count):
        path = tmp_path / f"m{k}.py"
        path.write_text(text)
        paths.append(str(path))
    return paths


def entries(cache):
    return sorted(glob.glob(os.path.join(cache, "*", "*", "*.json")))


def test_second_run_comes_from_the_cache(tmp_path, calls):
    paths = make(tmp_path)
    cache = str(tmp_path / "cache")
    first = check_files(paths, cache_dir=cache, jobs=1)
    assert calls == paths and len(entries(cache)) == 3
    assert all(o.remarks and o.remarks[0].code == "PF101" for o in first)
    calls.clear()
    second = check_files(paths, cache_dir=cache, jobs=1)
    assert calls == [] and second == first
    assert os.path.exists(os.path.join(cache, "CACHEDIR.TAG"))
    assert open(os.path.join(cache, ".gitignore")).read().endswith("*\n")


def test_cache_misses_on_changed_content_options_and_path(tmp_path, calls):
    paths = make(tmp_path, 2)
    cache = str(tmp_path / "cache")
    check_files(paths, cache_dir=cache, jobs=1)
    calls.clear()
    with open(paths[0], "a") as fh:
        fh.write("\n# edited\n")
    check_files(paths, cache_dir=cache, jobs=1)
    assert calls == [paths[0]]
    calls.clear()
    check_files(paths, cache_dir=cache, jobs=1, options_key="target=py312")
    assert calls == paths
    calls.clear()
    copy = str(tmp_path / "copy.py")  # same bytes, another path: errors name the path
    with open(copy, "w") as fh:
        fh.write(DENSE)
    check_files([copy], cache_dir=cache, jobs=1)
    assert calls == [copy]


def test_errors_are_cached_with_their_message(tmp_path, calls):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n    pass\n")
    cache = str(tmp_path / "cache")
    first = check_files([str(bad)], cache_dir=cache, jobs=1)
    calls.clear()
    second = check_files([str(bad)], cache_dir=cache, jobs=1)
    assert calls == [] and second == first
    assert first[0].error.startswith(f"{bad}:1:") and "syntax error" in first[0].error


@pytest.mark.parametrize("garbage", [b"", b"{not json", b"[1, 2]", b'{"path": 3}',
                                     b'{"path": "x", "error": null, "remarks": [{"code": 1}]}',
                                     b'{"error": null, "remarks": [{"code": 1, "message": "m", '
                                     b'"lineno": 1, "col": 1}], "path": "PATH"}',
                                     b"\xff\xfe\x00"])
def test_a_corrupt_entry_is_a_miss_and_is_rewritten(tmp_path, calls, garbage):
    paths = make(tmp_path, 1)
    cache = str(tmp_path / "cache")
    good = check_files(paths, cache_dir=cache, jobs=1)
    (entry,) = entries(cache)
    with open(entry, "wb") as fh:
        fh.write(garbage.replace(b"PATH", paths[0].encode()))
    calls.clear()
    again = check_files(paths, cache_dir=cache, jobs=1)
    assert calls == paths and again == good
    with open(entry) as fh:
        assert json.load(fh)["path"] == paths[0]


def test_an_unusable_cache_folder_only_costs_speed(tmp_path, calls):
    paths = make(tmp_path, 1)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    outcomes = check_files(paths, cache_dir=str(blocker / "cache"), jobs=1)
    assert outcomes[0].remarks and outcomes[0].error is None


def test_no_temporary_files_are_left(tmp_path):
    paths = make(tmp_path, 5)
    cache = str(tmp_path / "cache")
    check_files(paths, cache_dir=cache, jobs=1)
    leftovers = [f for _, _, files in os.walk(cache) for f in files if f.startswith(".tmp-")]
    assert leftovers == [] and len(entries(cache)) == 5


def test_an_internal_error_is_that_files_error_line_and_is_not_cached(tmp_path, monkeypatch):
    paths = make(tmp_path, 3)
    real = pipeline.transpile_source

    def broken(text, path, **kwargs):
        if path == paths[1]:
            raise KeyError("boom")
        return real(text, path, **kwargs)

    monkeypatch.setattr(pipeline, "transpile_source", broken)
    cache = str(tmp_path / "cache")
    outcomes = check_files(paths, cache_dir=cache, jobs=1)
    assert [o.path for o in outcomes] == paths
    assert outcomes[0].remarks and outcomes[2].remarks
    assert outcomes[1].remarks == ()
    assert outcomes[1].error.startswith(f"{paths[1]}: internal error (KeyError: 'boom')")
    assert "please report" in outcomes[1].error
    assert len(entries(cache)) == 2


def _where(path, backend="auto", target="auto", shapes=None):
    """Stands in for check_file in the workers: says which process did the work."""
    return FileOutcome(path, (), f"pid {os.getpid()}")


def test_many_files_are_spread_over_processes_in_order(tmp_path, monkeypatch):
    paths = make(tmp_path, 12)
    serial = check_files(paths, jobs=1)
    parallel = check_files(paths, jobs=2)
    assert parallel == serial and [o.path for o in parallel] == paths
    monkeypatch.setattr(engine, "check_file", _where)
    pids = {o.error for o in check_files(paths, jobs=2)}
    assert f"pid {os.getpid()}" not in pids and len(pids) >= 1


def test_few_files_stay_in_this_process(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "check_file", _where)
    outcomes = check_files(make(tmp_path, 2), jobs=8)
    assert {o.error for o in outcomes} == {f"pid {os.getpid()}"}


def test_project_root_and_default_cache_dir(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    inner = tmp_path / "src" / "pkg"
    inner.mkdir(parents=True)
    assert engine.project_root(str(inner)) == str(tmp_path)
    monkeypatch.delenv("PFORGE_CACHE_DIR", raising=False)
    assert engine.default_cache_dir(str(inner)) == str(tmp_path / ".pforge_cache")
    monkeypatch.setenv("PFORGE_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert engine.default_cache_dir(str(inner)) == str(tmp_path / "elsewhere")


def test_cli_cache_and_no_cache(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    path = make(tmp_path, 1)[0]
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PFORGE_CACHE_DIR", raising=False)
    result = CliRunner().invoke(app, ["check", "--no-cache", path])
    assert result.exit_code == 1 and "PF101" in result.output
    assert not (tmp_path / ".pforge_cache").exists()
    result = CliRunner().invoke(app, ["check", "--jobs", "1", path])
    assert result.exit_code == 1 and "PF101" in result.output
    assert entries(str(tmp_path / ".pforge_cache"))
    again = CliRunner().invoke(app, ["check", path])
    assert again.output == result.output and again.exit_code == 1


def test_cli_rejects_zero_jobs(tmp_path):
    result = CliRunner().invoke(app, ["check", "--jobs", "0", make(tmp_path, 1)[0]])
    assert result.exit_code == 2 and "--jobs" in result.output


def test_entries_of_other_versions_are_removed(tmp_path):
    cache = tmp_path / "cache"
    stale = cache / "0123456789abcdef" / "ab"
    stale.mkdir(parents=True)
    (stale / "x.json").write_text("{}")
    mine = cache / "notes"
    mine.mkdir()
    check_files(make(tmp_path, 1), cache_dir=str(cache), jobs=1)
    assert not (cache / "0123456789abcdef").exists()
    assert mine.exists() and (cache / engine.fingerprint()).is_dir()
