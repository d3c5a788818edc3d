"""Command front ends of ``pyfed``: one module per subcommand, each with ``register(subparsers)``
(adds its parser, sets ``func=run``) and ``run(args) -> int`` (the exit status). Front ends
parse and validate arguments, call the engines and render tables, plots and files; engines
never print. :mod:`pyfed.cli` only dispatches.

A front end imports the engines it calls inside the functions that call them, not at the top of
its module: ``pyfed CMD --help`` and a usage error (exit 2, before any computation) then load no
engine and no numerical library. Everything else in pyfed imports at the top."""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

#: Subcommands in the order of ``pyfed --help``: (name, module, one-line help). The help line is
#: kept here, and each module's ``register`` uses it, so that ``pyfed --help`` lists every command
#: without importing any of them (:func:`pyfed.cli.build_parser` registers only the one chosen).
SUBCOMMANDS: list[tuple[str, str, str]] = [
    ("check", "pyfed.commands.check",
     "verdicts on the SCAFFOLD and FedAvg theorems over the default suite, or on the theorems of a Lean file "
     "(pyfed check PATH.lean)"),
    ("search", "pyfed.commands.search", "adversarial counterexample search for one statement (JSON export)"),
    ("lean", "pyfed.commands.lean", "render the Lean test instances (lean/PyfedTest/Generated), or check them"),
    ("tightness", "pyfed.commands.tightness", "exact LHS/RHS of the convex SCAFFOLD bound as h crosses 1/(81 beta)"),
    ("profile", "pyfed.commands.constant_profile",
     "two-sided constant profile: witnesses and exact PEP certificates"),
    ("worst-case", "pyfed.commands.worst_case",
     "PEP worst case of deterministic SCAFFOLD over the whole function class (sweep over h, K, mu)"),
    ("experiment", "pyfed.commands.experiment",
     "reproduce the SCAFFOLD paper's heterogeneity experiment (Table 3) on scikit-learn's digits"),
    ("conform", "pyfed.commands.conform",
     "does an implementation (an adapter exposing one round of it) produce runs of FedAvg / FedProx / SCAFFOLD / "
     "Local SGD? exact comparison with the algorithm's law on rational quadratic instances"),
]

#: The one-line help of each subcommand (``pyfed --help``).
COMMAND_HELP: dict[str, str] = {name: text for name, _, text in SUBCOMMANDS}

#: Rich style of each verdict status.
STYLE = {"holds": "bold green", "violated": "bold red", "inconclusive": "bold yellow"}


#: Width of reports written to a pipe or file (no terminal, COLUMNS unset); rich would use 80.
PIPE_WIDTH = 140


def make_console(stream=None) -> Console:
    """A rich console for a command's report on stdout (or ``stream``: standard error when a
    report goes to standard output): the terminal's width on a terminal;
    otherwise (a pipe, a file, a CI log) ``COLUMNS`` when it is set to a positive integer, else
    :data:`PIPE_WIDTH` columns, so tables are not folded into narrow stacks. Free text printed
    through :func:`print_line` is then not hard-wrapped (the log viewer wraps it)."""
    out = sys.stdout if stream is None else stream
    extra = {} if stream is None else {"file": stream}
    if out.isatty():
        from rich.console import Console

        return Console(**extra)
    cols = os.environ.get("COLUMNS", "").strip()
    if cols.isdigit() and int(cols) > 0:
        return _log_console_class()(width=int(cols), **extra)
    return _log_console_class()(width=PIPE_WIDTH, **extra)


@functools.cache
def _log_console_class():
    """The console class off a terminal (rich is imported when a report is first printed)."""
    from rich.console import Console

    class _LogConsole(Console):
        """The console off a terminal: tables at the console's width, text printed as one physical
        line per line (``soft_wrap`` for plain strings, unless a caller asks otherwise)."""

        def print(self, *objects, **kwargs):
            if objects and all(isinstance(o, str) for o in objects):
                kwargs.setdefault("soft_wrap", True)
            super().print(*objects, **kwargs)

    return _LogConsole


def print_line(console: Console, text, **kwargs) -> None:
    """Print one line of free text (markup allowed): word-wrapped on a terminal, one physical
    line otherwise (no newlines inserted into a pipe or log)."""
    kwargs.setdefault("soft_wrap", not console.is_terminal)
    console.print(text, **kwargs)


def make_progress(*columns):
    """A transient rich progress display on stderr (so stdout stays the report), for long work.
    When stderr is not a terminal (a pipe, a CI log) it is disabled: nothing is written there,
    so a one-line error message stays one line."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True)
    return Progress(*columns, console=console, transient=True, disable=not console.is_terminal)
