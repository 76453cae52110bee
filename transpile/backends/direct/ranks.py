"""Moved to :mod:`pforge.transpile.ranks` (ranks are an analysis both backends and the plan read)."""

from pforge.transpile.ranks import *  # noqa: F401,F403
from pforge.transpile.ranks import (Shape, annotation_shapes, docstring_shapes, literal_rank,  # noqa: F401
                                    parameter_shapes, parse_shapes_option, signature_shapes)
