"""Command front ends of ``pyfed``: one module per subcommand, each with ``register(subparsers)``
(adds its parser, sets ``func=run``) and ``run(args) -> int`` (the exit status). Front ends
parse and validate arguments, call the engines and render tables, plots and files; engines
never print. :mod:`pyfed.cli` only dispatches."""

from __future__ import annotations

import os
import sys

from rich.console import Console

#: Subcommand modules, in the order of ``pyfed --help``.
SUBCOMMAND_MODULES: list[str] = ["pyfed.commands.check", "pyfed.commands.search", "pyfed.commands.lean",
                                 "pyfed.commands.tightness", "pyfed.commands.constant_profile",
                                 "pyfed.commands.worst_case",
                                 "pyfed.commands.experiment", "pyfed.commands.conform"]

#: Rich style of each verdict status.
STYLE = {"holds": "bold green", "violated": "bold red", "inconclusive": "bold yellow"}


#: Width of reports written to a pipe or file (no terminal, COLUMNS unset); rich would use 80.
PIPE_WIDTH = 140


def make_console() -> Console:
    """A rich console for a command's report on stdout: the terminal's width on a terminal;
    otherwise (a pipe, a file, a CI log) ``COLUMNS`` when it is set to a positive integer, else
    :data:`PIPE_WIDTH` columns, so tables are not folded into narrow stacks. Free text printed
    through :func:`print_line` is then not hard-wrapped (the log viewer wraps it)."""
    if sys.stdout.isatty():
        return Console()
    cols = os.environ.get("COLUMNS", "").strip()
    if cols.isdigit() and int(cols) > 0:
        return _LogConsole(width=int(cols))
    return _LogConsole(width=PIPE_WIDTH)


class _LogConsole(Console):
    """The console off a terminal: tables at the console's width, text printed as one physical
    line per line (``soft_wrap`` for plain strings, unless a caller asks otherwise)."""

    def print(self, *objects, **kwargs):
        if objects and all(isinstance(o, str) for o in objects):
            kwargs.setdefault("soft_wrap", True)
        super().print(*objects, **kwargs)


def print_line(console: Console, text, **kwargs) -> None:
    """Print one line of free text (markup allowed): word-wrapped on a terminal, one physical
    line otherwise (no newlines inserted into a pipe or log)."""
    kwargs.setdefault("soft_wrap", not console.is_terminal)
    console.print(text, **kwargs)


def make_progress(*columns):
    """A transient rich progress display on stderr (so stdout stays the report), for long work.
    When stderr is not a terminal (a pipe, a CI log) it is disabled: nothing is written there,
    so a one-line error message stays one line."""
    from rich.progress import Progress

    console = Console(stderr=True)
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)
