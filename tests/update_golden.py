"""Regenerates the golden files: ``.venv/bin/python -m tests.update_golden`` (or ``make golden``).

``tests/test_samples.py`` compares the code pforge generates for each sample in ``samples/``
with ``tests/golden/NAME.py`` (pfor backend) and ``tests/golden/direct/NAME.py`` (direct
backend), and never writes them. When the generated code changes on purpose, run this, read
``git diff tests/golden`` and commit the files whose new text is right.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GOLDEN = ROOT / "tests" / "golden"
#: the golden folder of each backend
FOLDERS = {"pfor": GOLDEN, "direct": GOLDEN / "direct"}


def sample_files():
    return sorted(SAMPLES.glob("*.py"))


def generated(path, backend):
    """The code pforge generates for the sample at ``path`` with ``backend``: the golden text."""
    from pforge.transpile import transpile_source

    return transpile_source(path.read_text(), str(path.relative_to(path.parent.parent)),
                            backend=backend).code


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.update_golden",
                                     description="Rewrite tests/golden/ from what pforge generates now.")
    parser.add_argument("samples", nargs="*", metavar="NAME",
                        help="only these samples (file names in samples/, with or without .py)")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    paths = sample_files()
    if args.samples:
        wanted = {name.removesuffix(".py") for name in args.samples}
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            parser.error(f"no such sample in samples/: {', '.join(sorted(unknown))}")
        paths = [p for p in paths if p.stem in wanted]
    changed = 0
    for path in paths:
        for backend, folder in FOLDERS.items():
            golden = folder / path.name
            code = generated(path, backend)
            if golden.is_file() and golden.read_text() == code:
                continue
            folder.mkdir(parents=True, exist_ok=True)
            golden.write_text(code)
            changed += 1
            print(f"wrote {golden.relative_to(ROOT)}")
    stale = sorted(g for folder in FOLDERS.values() for g in folder.glob("*.py")
                   if not (SAMPLES / g.name).is_file())
    for golden in stale:
        print(f"no sample for {golden.relative_to(ROOT)} (remove it if the sample is gone)")
    print(f"{changed} of {len(paths) * len(FOLDERS)} golden files changed; review them with "
          "`git diff tests/golden`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
