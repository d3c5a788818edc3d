"""Command line: ``pyfed check | search | lean | tightness | worst-case``.

A thin dispatcher: each subcommand's front end lives in :mod:`pyfed.commands` and exposes
``register(subparsers)``; this module builds the parser and maps errors to exit statuses.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .commands import SUBCOMMAND_MODULES
from .errors import InputError


def build_parser() -> argparse.ArgumentParser:
    """The ``pyfed`` argument parser with every subcommand of :data:`SUBCOMMAND_MODULES`."""
    parser = argparse.ArgumentParser(
        prog="pyfed",
        description="Verification companion for federated optimization theory (SCAFFOLD, FedAvg, Local SGD): "
                    "honest verdicts (holds / violated / inconclusive) on the Lean statements.")
    parser.add_argument("--version", action="version", version=f"pyfed {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for mod in SUBCOMMAND_MODULES:
        importlib.import_module(mod).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pyfed`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"pyfed: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
