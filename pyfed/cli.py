"""Command line: ``pyfed check | search | lean | tightness | profile | worst-case | experiment | conform``.

A thin dispatcher: each subcommand's front end lives in :mod:`pyfed.commands` and exposes
``register(subparsers)``; this module builds the parser and maps outcomes to exit statuses
(docs/reference/exit-statuses.md):

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
5      a numerical library failed (numpy/scipy ``LinAlgError``, a cvxpy ``SolverError``, a
       floating-point trap): one line ``pyfed: error: numerics: …``; no verdict was reached
130    interrupted (Ctrl-C)
=====  ==============================================================================

A closed standard output (``pyfed check | head -2``) is not an error: the rest of the report is
dropped and the status is the one the verdicts imply. The command runs in a thread with a stack of
:data:`STACK_BYTES` and a recursion limit of :data:`RECURSION_LIMIT`, so Lean terms up to
:data:`pyfed.resources.MAX_TERM_DEPTH` levels deep are read and evaluated (deeper ones are refused
at read time, exit 2). A process killed by a signal (an abort inside a native library, the
kernel's out-of-memory killer) has no status of its own: the shell reports 128 + the signal.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

from ._version import __version__
from .commands import SUBCOMMANDS
from .commands.display import safe_output
from .config import defaults_for
from .errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_NUMERICS, InputError

__all__ = ["build_parser", "main", "UsageError", "run_deep", "STACK_BYTES", "RECURSION_LIMIT"]

#: Stack of the thread a command runs in (virtual memory: only the pages used are committed).
STACK_BYTES = 512 * 2**20
#: Python's recursion limit while a command runs (terms :data:`pyfed.resources.MAX_TERM_DEPTH`
#: levels deep need a few Python frames per level in the reader and the evaluators).
RECURSION_LIMIT = 200_000


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


def _apply_config(parser, command) -> None:
    """Set the chosen command's option defaults from the configuration file (:mod:`pyfed.config`):
    options on the command line still win. ``pyfed --help`` reads no file."""
    if not command:
        return
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices.get(command)
    if sub is None or "-h" in _ARGV or "--help" in _ARGV:
        return
    values, _ = defaults_for(command, sub)
    if values:
        sub.set_defaults(**values)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def run_deep(fn, *args):
    """``fn(*args)`` in a thread with a stack of :data:`STACK_BYTES` and the recursion limit
    raised to :data:`RECURSION_LIMIT` (restored afterwards), so deep Lean terms are read and
    evaluated without ``RecursionError``; its value is returned and its exception re-raised here.
    Ctrl-C in the calling thread is passed on to it as :class:`KeyboardInterrupt`. Where no such
    thread can be started (an address-space limit), ``fn`` runs in the calling thread."""
    import threading

    box: dict = {}
    done = threading.Event()        # not Thread.join: a Ctrl-C inside join can mark a running thread stopped

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 -- handed to the caller
            box["error"] = exc
        finally:
            done.set()

    old_limit = sys.getrecursionlimit()
    try:
        old_size = threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):
        return fn(*args)
    worker = threading.Thread(target=target, name="pyfed-command", daemon=True)
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        try:
            worker.start()
        except RuntimeError:        # no memory for the stack: the calling thread's will do
            sys.setrecursionlimit(old_limit)
            threading.stack_size(old_size)
            return fn(*args)
        threading.stack_size(old_size)
        interrupted = False
        while not done.is_set():
            try:
                done.wait(0.2)
            except KeyboardInterrupt:
                if interrupted:         # a second Ctrl-C: stop waiting for a native call to return
                    print("pyfed: interrupted", file=sys.stderr)
                    return EXIT_INTERRUPTED
                interrupted = True
                import ctypes
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident),
                                                           ctypes.py_object(KeyboardInterrupt))
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]
    return box["value"]


class _QuietPipe:
    """Standard output that a closed reader does not break: the first ``BrokenPipeError``
    (``pyfed check | head -2``) points the file descriptor at ``/dev/null`` and every later write
    is dropped, so the command finishes and returns the status its verdicts imply (and Python's
    final flush does not fail)."""

    def __init__(self, stream):
        self._stream = stream
        self.closed_reader = False

    def _drop(self):
        self.closed_reader = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text):
        if self.closed_reader:
            return len(text)
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._drop()
            return len(text)

    def flush(self):
        if self.closed_reader:
            return None
        try:
            return self._stream.flush()
        except BrokenPipeError:
            self._drop()
            return None

    def __getattr__(self, name):
        return getattr(self._stream, name)


#: Exceptions of numerical libraries that stop a run without a verdict (exit 5), by the module
#: their class is defined in and its name; matched without importing the libraries.
_NUMERICS = {("numpy.linalg", "LinAlgError"), ("numpy.linalg.linalg", "LinAlgError"),
             ("numpy.linalg._linalg", "LinAlgError"), ("cvxpy.error", "SolverError"),
             ("scipy.sparse.linalg._eigen.arpack.arpack", "ArpackError"),
             ("scipy.sparse.linalg._eigen.arpack.arpack", "ArpackNoConvergence"),
             ("builtins", "FloatingPointError")}


def _numerical_failure(exc) -> str | None:
    """``module.Name`` of the numerical library's exception class ``exc`` is (or derives from),
    else None."""
    for cls in type(exc).__mro__:
        if (cls.__module__, cls.__name__) in _NUMERICS:
            mod = cls.__module__.split(".")[0]
            return "FloatingPointError" if mod == "builtins" else f"{mod}.{cls.__name__}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pyfed`` console script; returns the exit status (see the module
    docstring): never a raw traceback, and exit 1 only for a violated verdict. The command runs
    in a thread with a deep stack (:func:`run_deep`)."""
    stdout = sys.stdout
    guard = _QuietPipe(stdout) if hasattr(stdout, "fileno") and not isinstance(stdout, _QuietPipe) else None
    try:
        safe_output()       # a console that cannot write UTF-8 gets ASCII spellings, not an error after the work
        if guard is not None:
            guard._stream = sys.stdout
            sys.stdout = guard
        return run_deep(_main, argv)
    finally:
        if guard is not None and sys.stdout is guard:
            sys.stdout = guard._stream


def _main(argv: list[str] | None = None) -> int:
    """:func:`main` in the command's thread: parse, dispatch, map every outcome to its status."""
    global _ARGV
    _ARGV = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser(_ARGV)
        _apply_config(parser, _chosen_command(_ARGV))
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
        print("pyfed: error: memory: the run ran out of memory; lower the sizes (see the documentation, \"Bad input and big inputs\") or "
              "free memory", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("pyfed: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RecursionError:      # a term deeper than the stack holds: refused, not a bug report
        print("pyfed: error: term depth: a Lean term is nested too deeply for this run's stack (the command line "
              "reads terms up to pyfed.resources.MAX_TERM_DEPTH levels deep); split it with a def or a let",
              file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 -- the last line of defence: one line, distinct code
        library = _numerical_failure(exc)
        if library is not None:
            print(f"pyfed: error: numerics: {library}: {_one_line(exc)} (a numerical library failed; no verdict was "
                  "reached: see the exit statuses in the documentation)", file=sys.stderr)
            return EXIT_NUMERICS
        if os.environ.get("PYFED_DEBUG", "").strip() not in ("", "0"):
            import traceback

            traceback.print_exc()
        print(f"pyfed: internal error: {type(exc).__name__}: {_one_line(exc)} "
              "(set PYFED_DEBUG=1 for the traceback; please report)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
