"""A pytest plugin for mutation runs (``-p fastest_first``): the tests a mutant reaches run
shortest first, by the durations mutmut recorded when it found which tests reach which
function (``mutmut-stats.json``, in the folder the mutants run in). mutmut stops a mutant's
run at its first failing test (``-x``), so a killed mutant is found by its quickest killer
instead of after whichever slow tests the set's order put first; a surviving mutant still
runs them all. Without the file (mutmut's own run that records them) the order is pytest's."""

import json
from pathlib import Path


def pytest_collection_modifyitems(session, config, items):
    stats = Path("mutmut-stats.json")
    if not stats.exists():
        return
    durations = json.loads(stats.read_text()).get("duration_by_test", {})
    items[:] = sorted(items, key=lambda item: durations.get(item.nodeid, float("inf")))
