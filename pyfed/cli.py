"""Command line: ``pyfed check | search | lean | tightness | profile | worst-case | experiment | conform``.

A thin dispatcher: each subcommand's front end lives in :mod:`pyfed.commands` and exposes
``register(subparsers)``; this module builds the parser and maps outcomes to exit statuses
(README, "Exit statuses"):

=====  ==============================================================================
code   meaning
=====  ==============================================================================
0      ran; no verdict is violated
1      some verdict is violated (and nothing else)
2      bad input or usage error, or sizes beyond the resource limits (:mod:`pyfed.resources`): one
       line ``pyfed: error: <argument>: <why>`` on stderr (a Lean file with several unsupported
       constructs: one such line per construct, each ``file:line:col: …``)
3      internal error (a bug in pyfed): one line ``pyfed: internal error: <type>: <msg> ...``;
       ``PYFED_DEBUG=1`` also prints the traceback
4      a consistency check of pyfed's own artefacts failed (``pyfed lean --check``: stale
       generated Lean files; ``--drift``: Lean definitions disagree with ``pyfed.theory``)
130    interrupted (Ctrl-C)
=====  ==============================================================================
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from ._version import __version__
from .commands import SUBCOMMANDS
from .errors import EXIT_INPUT, EXIT_INTERNAL, InputError

__all__ = ["build_parser", "main", "UsageError"]


class UsageError(InputError):
    """A command-line usage error found by argparse, reported like any bad input (exit 2)."""


#: The argument list being parsed (to name an option the way the user typed it, e.g. ``-N``
#: rather than its long alias ``--clients``).
_ARGV: list = []


def _usage_error(message: str) -> UsageError:
    """argparse's message as InputError(argument, why), naming the argument as typed."""
    m = re.match(r"argument ([^:]+): (.*)$", message, re.S)
    if m:
        names = m.group(1).split("/")
        typed = [n for n in names if any(a == n or a.startswith(n + "=") for a in _ARGV)]
        flag = typed[0] if typed else next((n for n in names if n.startswith("--")), names[0])
        return UsageError(flag, m.group(2).strip())
    m = re.match(r"unrecognized arguments: (.*)$", message, re.S)
    if m:
        return UsageError(m.group(1).split()[0], f"unrecognized argument (got: {m.group(1).strip()}); "
                                                 "see pyfed --help")
    m = re.match(r"the following arguments are required: (.*)$", message, re.S)
    if m:
        return UsageError(m.group(1).split(",")[0].strip(), "required; see pyfed --help")
    return UsageError("pyfed", message.strip())


#: A command-line word that is a (negative) number, not an option: ``-3``, ``-1/2``, ``-0.5``,
#: ``-1e-3``, ``-.5``, ``-inf``, or a comma list starting with one (``-1/2,1``). argparse's own
#: pattern knows only ``-3`` and ``-0.5``, so ``--mu -1/2`` used to fail with "expected one
#: argument" instead of reaching the option's validation.
NEGATIVE_NUMBER = re.compile(r"^-(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?:/\d+)?|inf|infinity|nan)(?:,.*)?$",
                             re.IGNORECASE)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors raise :class:`UsageError` (one line, exit 2)
    instead of printing the usage block and exiting, and which takes a word matching
    :data:`NEGATIVE_NUMBER` as an option's value (``--mu -1/2``), to be validated as usual."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # argparse (3.11-3.13) decides "negative number or option?" with this attribute; no option
        # of pyfed looks like a negative number, so such words are always values.
        self._negative_number_matcher = NEGATIVE_NUMBER

    def error(self, message):  # noqa: D401 (argparse API)
        raise _usage_error(message)


def _chosen_command(argv) -> str | None:
    """The subcommand named by ``argv`` ("" when it names none: ``pyfed --help``, ``pyfed``, a
    misspelt command), or None for every subcommand (``argv`` None)."""
    if argv is None:
        return None
    names = {name for name, _, _ in SUBCOMMANDS}
    word = next((a for a in argv if not a.startswith("-")), "")
    return word if word in names else ""


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``pyfed`` argument parser. With ``argv`` None every subcommand of
    :data:`pyfed.commands.SUBCOMMANDS` is registered in full; otherwise only the one ``argv``
    names, the others as their one-line help (so ``pyfed --help`` and ``pyfed check`` import no
    other command's module, and nothing heavy)."""
    parser = _Parser(
        prog="pyfed",
        description="Verification companion for federated optimization theory (SCAFFOLD, FedAvg, Local SGD): "
                    "honest verdicts (holds / violated / inconclusive) on the Lean statements.",
        epilog="Exit statuses: 0 ran and nothing is violated; 1 some verdict is violated; 2 bad input "
               "(one line naming the argument); 3 internal error (please report; PYFED_DEBUG=1 shows the "
               "traceback); 4 pyfed lean --check/--drift found stale or drifted Lean files.")
    parser.add_argument("--version", action="version", version=f"pyfed {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    chosen = _chosen_command(argv)
    for name, module, text in SUBCOMMANDS:
        if chosen is None or name == chosen:
            importlib.import_module(module).register(sub)
        else:
            sub.add_parser(name, help=text)
    return parser


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pyfed`` console script; returns the exit status (see the module
    docstring): never a raw traceback, and exit 1 only for a violated verdict."""
    global _ARGV
    _ARGV = list(sys.argv[1:] if argv is None else argv)
    from .commands.display import safe_output
    safe_output()       # a console that cannot write UTF-8 gets ASCII spellings, not an error after the work
    try:
        parser = build_parser(_ARGV)
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)
    except InputError as exc:
        # several unsupported constructs of a Lean file: one line each, each file:line:col
        parts = [str(e) for e in getattr(exc, "errors", None) or [exc]]
        for part in parts:
            print(f"pyfed: error: {_one_line(part)}", file=sys.stderr)
        return EXIT_INPUT
    except SystemExit as exc:  # --help / --version (argparse), or a front end's explicit exit
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_INPUT)
    except MemoryError:   # an estimate (pyfed.resources) was too low, or the machine's memory shrank meanwhile
        print("pyfed: error: memory: the run ran out of memory; lower the sizes (see README, \"Big inputs\") or "
              "free memory", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("pyfed: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 -- the last line of defence: one line, distinct code
        if os.environ.get("PYFED_DEBUG", "").strip() not in ("", "0"):
            import traceback

            traceback.print_exc()
        print(f"pyfed: internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set PYFED_DEBUG=1 for the traceback; please report)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
