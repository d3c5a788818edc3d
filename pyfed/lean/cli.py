"""``pyfed lean [--out DIR] [--check] [--drift]``: render the Lean test library.

* default: (re)write ``<DIR>/PyfedTest/Generated/*.lean`` and ``<DIR>/PyfedTest.lean``;
* ``--check``: write nothing; exit 1 if the committed files differ from a fresh rendering;
* ``--drift``: also run the Lean <-> pyfed.theory drift check (exit 1 on a mismatch).

``DIR`` is the Lean source directory (default: the repository's ``lean/``).
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["register", "run"]


def register(subparsers) -> None:
    """Add the ``lean`` subcommand to an argparse ``subparsers`` object (sets ``func=run``)."""
    p = subparsers.add_parser(
        "lean", help="render the Lean test instances (lean/PyfedTest/Generated)",
        description="Render lean/PyfedTest/Generated/*.lean from pyfed's exact values.")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="Lean source directory holding PyfedTest/ (default: the repository's lean/)")
    p.add_argument("--check", action="store_true",
                   help="do not write; exit 1 if committed files differ from a fresh rendering")
    p.add_argument("--drift", action="store_true",
                   help="also check the Lean arithmetic definitions against pyfed.theory")
    p.set_defaults(func=run)


def run(args) -> int:
    """Execute ``pyfed lean``; returns the process exit code (0 ok, 1 out of date / drift)."""
    from . import drift, render

    lean_dir = Path(args.out) if getattr(args, "out", None) else render.default_lean_dir()
    code = 0
    if getattr(args, "check", False):
        stale = render.check_all(lean_dir)
        if stale:
            print("out of date (run `pyfed lean`): " + ", ".join(stale), file=sys.stderr)
            code = 1
        else:
            print(f"generated Lean files in {lean_dir} are up to date")
    else:
        for path in render.write_all(lean_dir):
            print(f"wrote {path}")
    if getattr(args, "drift", False):
        bad = drift.check_drift()
        if bad:
            for m in bad:
                print(f"drift: {m}", file=sys.stderr)
            code = 1
        else:
            print("drift check: Lean definitions agree with pyfed.theory")
    return code
