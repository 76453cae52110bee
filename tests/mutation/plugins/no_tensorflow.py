"""A pytest plugin for mutation runs (``-p no_tensorflow``): TensorFlow cannot be imported, so
the tests that need it skip (``pytest.importorskip``). mutmut forks one process per mutant
from a parent that ran the suite once, and TensorFlow's threads do not survive a fork."""

import sys

sys.modules["tensorflow"] = None
