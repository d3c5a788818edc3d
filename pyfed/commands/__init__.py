"""Command front ends of ``pyfed``: one module per subcommand, each with ``register(subparsers)``
(adds its parser, sets ``func=run``) and ``run(args) -> int`` (the exit status). Front ends
parse and validate arguments, call the engines and render tables, plots and files; engines
never print. :mod:`pyfed.cli` only dispatches."""

from __future__ import annotations

import sys

from rich.console import Console

#: Subcommand modules, in the order of ``pyfed --help``.
SUBCOMMAND_MODULES: list[str] = ["pyfed.commands.check", "pyfed.commands.search", "pyfed.commands.lean",
                                 "pyfed.commands.tightness", "pyfed.commands.worst_case",
                                 "pyfed.commands.experiment"]

#: Rich style of each verdict status.
STYLE = {"holds": "bold green", "violated": "bold red", "inconclusive": "bold yellow"}


def make_console() -> Console:
    """A rich console; when the output is not a terminal (a file, CI log) use 140 columns so
    numbers in tables are not wrapped."""
    return Console() if sys.stdout.isatty() else Console(width=140)


def make_progress(*columns):
    """A transient rich progress display on stderr (so stdout stays the report), for long work.
    When stderr is not a terminal (a pipe, a CI log) it is disabled: nothing is written there,
    so a one-line error message stays one line."""
    from rich.progress import Progress

    console = Console(stderr=True)
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)
