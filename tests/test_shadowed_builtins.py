"""A builtin's name bound by the code (a parameter, a local, a module global, an import) is
not the builtin where that binding is seen: `ImportMap.resolve` gives None there, and the
builtin elsewhere (a class body's names are not seen in its methods)."""

import ast

import gast
import pytest

from pforge.transpile.frontend import ImportMap, shadowed_builtin_reads

CASES = [
    # (source, the line of the read of `max`, whether it means the builtin)
    ("def f(x):\n    return max(x, 0)\n", 2, True),
    ("def f(x, max):\n    return max(x, 0)\n", 2, False),
    ("def f(x):\n    max = min\n    return max(x, 0)\n", 3, False),
    ("def f(x):\n    y = max(x, 0)\n    max = min\n    return y\n", 2, False),  # (a local: raises before)
    ("max = min\ndef f(x):\n    return max(x, 0)\n", 3, False),
    ("def g():\n    max = min\ndef f(x):\n    return max(x, 0)\n", 4, True),
    ("def f(x):\n    max = min\n    def g(y):\n        return max(y, 0)\n    return g\n", 4, False),
    ("def f(x):\n    g = lambda max: max(x, 0)\n    return g\n", 2, False),
    ("class A:\n    def max(self):\n        return 1\n    def f(self, x):\n        return max(x, 0)\n", 5, True),
    ("class A:\n    max = min\n    y = max(1, 2)\n", 3, False),
    ("from numpy import max\ndef f(x):\n    return max(x, 0)\n", 3, False),
    ("def f(x):\n    for max in x:\n        pass\n    return max(x, 0)\n", 4, False),
    ("def f(x):\n    try:\n        pass\n    except ValueError as max:\n        pass\n    return max(x, 0)\n", 6, False),
    ("def f(x):\n    return [max(v, 0) for v in x]\n", 2, True),
    # a star import binds what its module exports: NumPy's `max`, none of math's but `pow`
    ("from numpy import *\ndef f(x):\n    return max(x, 0)\n", 3, False),
    ("from math import *\ndef f(x):\n    return max(x, 0)\n", 3, True),
    ("from mystery import *\ndef f(x):\n    return max(x, 0)\n", 3, False),
    ("def f(x):\n    match x:\n        case {**max}:\n            pass\n    return max(x, 0)\n", 5, False),
]


def _reads(tree, line):
    return [n for n in gast.walk(tree) if isinstance(n, gast.Name) and n.id == "max"
            and isinstance(n.ctx, gast.Load) and n.lineno == line]


@pytest.mark.parametrize("source, line, builtin", CASES)
def test_a_bound_name_is_not_the_builtin(source, line, builtin):
    tree = gast.parse(source)
    imports = ImportMap.from_module(tree)
    reads = _reads(tree, line)
    assert reads
    for read in reads:
        resolved = imports.resolve(read)
        assert (resolved == "builtins.max") == builtin, (resolved, source)
    # the `ast` tree (the outline's) gives the same positions
    assert shadowed_builtin_reads(ast.parse(source)) == shadowed_builtin_reads(tree)
