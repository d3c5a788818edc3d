"""``pyfed lean [--out DIR] [--check] [--drift] [--certificates] [--verify-certificates DIR]``: render the Lean
test library, or check it.

* default: (re)write ``<DIR>/PyfedTest/Generated/*.lean`` and ``<DIR>/PyfedTest.lean`` (the
  certificate files ``Certificate_*.lean`` from the ``Certificate_*.json`` beside them);
* ``--certificates``: first solve, verify exactly and write the PEP certificates' JSON
  (:mod:`pyfed.certificates`; the numbers come from a floating-point oracle and may differ
  between machines, every written certificate verifies);
* ``--check``: write nothing; exit 4 if the committed files differ from a fresh rendering or a
  committed ``Certificate_*.json`` does not verify exactly;
* ``--verify-certificates DIR``: write nothing; re-verify every ``Certificate_*.json`` of DIR
  exactly (e.g. the ones ``--certificates --out DIR`` wrote); exit 4 if one fails;
* ``--drift``: write nothing; run the Lean <-> pyfed.theory drift check (exit 4 on a mismatch),
  with progress on stderr. ``--check --drift`` runs both checks.

A check never writes: only the plain ``pyfed lean`` renders files. Exit status 4 (not 1) for a
stale file or a drift: these are failed consistency checks of pyfed's own artefacts, not
violated verdicts about a theorem (exit 1 is reserved for those); see the exit-status
table (docs/reference/exit-statuses.md).

``DIR`` is the Lean source directory (default: ``lean/`` next to the nearest ``lakefile.lean``
at or above the current directory; see :func:`pyfed.lean.render.default_lean_dir`). ``--drift``
reads the Lean definitions from the same directory. Rendering writes, so without ``--out`` it
needs a checkout (exit 2 otherwise); ``--check`` / ``--drift`` outside any Lean project read the
copy of ``lean/`` installed with pyfed (:func:`pyfed.lean.render.checked_lean_dir`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import EXIT_CHECK_FAILED, EXIT_OK
from . import COMMAND_HELP

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run"]


def register(subparsers) -> None:
    """Add the ``lean`` subcommand to an argparse ``subparsers`` object (sets ``func=run``)."""
    p = subparsers.add_parser(
        "lean", help=COMMAND_HELP["lean"],
        description="Render the Lean files of lean/PyfedTest/Generated from pyfed's exact values. --check and --drift "
                    "only check (they write nothing; exit status 4 when stale / drifted).")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="Lean source directory holding Pyfed/ and PyfedTest/ (default: lean/ next to "
                        "the nearest lakefile.lean at or above the current directory; rendering needs a "
                        "checkout, --check/--drift elsewhere read the copy installed with pyfed)")
    p.add_argument("--check", action="store_true",
                   help="do not write; exit 4 if committed files differ from a fresh rendering")
    p.add_argument("--certificates", action="store_true",
                   help="also solve and write the exact PEP certificates (Certificate_<lemma>.json) before rendering")
    p.add_argument("--verify-certificates", metavar="DIR", default=None,
                   help="do not write; re-verify every Certificate_<lemma>.json of DIR (or of DIR/PyfedTest/Generated, "
                        "e.g. written by --certificates --out DIR) exactly, in rational arithmetic (exit 4 if one "
                        "fails)")
    p.add_argument("--drift", action="store_true",
                   help="do not write; check the Lean arithmetic definitions against pyfed.theory (exit 4 on "
                        "a mismatch)")
    p.set_defaults(func=run)


def run(args) -> int:
    """Execute ``pyfed lean``; returns the process exit code (0 ok / written, 4 out of date or drift).

    Raises InputError(argument="--out") when no Lean project is found, or when ``--check`` /
    ``--drift`` is given a directory that does not exist (or, for ``--drift``, has no ``Pyfed/``).
    """
    from ..errors import InputError
    from ..lean import drift, render
    from . import make_progress

    checking, drifting = getattr(args, "check", False), getattr(args, "drift", False)
    verify_dir = getattr(args, "verify_certificates", None)
    if verify_dir is not None:
        return _verify_certificates(args, verify_dir)
    if getattr(args, "out", None):
        lean_dir = Path(args.out)
    elif checking or drifting:  # reads only: outside a checkout, the copy installed with pyfed
        lean_dir = render.checked_lean_dir()
    else:  # rendering writes: only into a checkout (never into the installed copy)
        lean_dir = render.default_lean_dir()
    if (checking or drifting) and not lean_dir.is_dir():
        raise InputError("--out", f"directory not found: {lean_dir}")
    if drifting and not (lean_dir / "Pyfed").is_dir():
        raise InputError("--out", f"{lean_dir} holds no Pyfed/ Lean sources to check for drift")
    if not (checking or drifting):  # rendering writes: the directory must be creatable and writable
        from ..errors import prepare_output_dir

        prepare_output_dir("--out", str(lean_dir))
    code = EXIT_OK
    if drifting:  # first: a missing Lean source is bad input, reported before any other output
        try:
            with make_progress() as progress:
                task = progress.add_task("drift check", total=None)
                bad = drift.check_drift(
                    lean_dir, progress=lambda label: progress.update(task, description=f"drift check: {label}"))
        except FileNotFoundError as exc:
            raise InputError("--out", f"Lean source not found: {exc.filename or exc}") from None
        if bad:
            for m in bad:
                print(f"drift: {m}", file=sys.stderr)
            code = EXIT_CHECK_FAILED
        else:
            print("drift check: Lean definitions agree with pyfed.theory")
    if checking:
        stale = render.check_all(lean_dir)
        if stale:
            print("out of date (run `pyfed lean`): " + ", ".join(stale), file=sys.stderr)
            code = EXIT_CHECK_FAILED
        else:
            print(f"generated Lean files in {lean_dir} are up to date")
        # the committed certificates' numbers are data, not a rendering: re-verified exactly
        from ..certificates import verify_certificate_files
        results = verify_certificate_files(lean_dir)
        failed = [(p, why) for p, ok, why in results if not ok]
        for path, why in failed:
            print(f"certificate {path.name}: {why}", file=sys.stderr)
            code = EXIT_CHECK_FAILED
        if results and not failed:
            print(f"{len(results)} PEP certificate(s) re-verified exactly")
    elif not drifting:  # a check never writes: only the plain command renders
        if getattr(args, "certificates", False):
            from ..certificates import write_certificates
            for path in write_certificates(lean_dir):
                if path.suffix == ".json":
                    print(f"wrote {path}")
        for path in render.write_all(lean_dir):
            print(f"wrote {path}")
    return code


def _verify_certificates(args, directory) -> int:
    """``pyfed lean --verify-certificates DIR``: re-verify every ``Certificate_*.json`` of DIR
    exactly (:func:`pyfed.certificates.verify_certificate_files`); one line per file; exit 4 when
    one fails, InputError (exit 2) for a missing directory or one without certificates or with
    another mode."""
    from ..certificates import verify_certificate_files
    from ..errors import InputError

    for flag, given in (("--check", getattr(args, "check", False)), ("--drift", getattr(args, "drift", False)),
                        ("--certificates", getattr(args, "certificates", False)),
                        ("--out", getattr(args, "out", None))):
        if given:
            raise InputError(flag, "does not combine with --verify-certificates DIR (which only reads DIR)")
    d = Path(directory)
    if not d.is_dir():
        raise InputError("--verify-certificates", f"directory not found: {directory}")
    results = verify_certificate_files(d)
    if not results:
        raise InputError("--verify-certificates", f"no Certificate_*.json in {directory} nor in "
                                                  f"{d / 'PyfedTest' / 'Generated'}")
    code = EXIT_OK
    for path, ok, why in results:
        print(f"{path}: {'verified exactly' if ok else 'FAILED: ' + why}")
        if not ok:
            code = EXIT_CHECK_FAILED
    return code
