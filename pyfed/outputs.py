"""Output files of the commands: checked before the run, written atomically after it, ``-`` for
standard output, and never lost.

* :func:`check_output` validates a path given to ``--json``, ``--junit-xml`` or ``--html`` before
  any work (its directory exists, a file can be created *there*, since the file is written as a
  temporary file beside it and renamed), or accepts ``-`` (standard output);
* :func:`check_distinct` refuses two outputs on one path (``--json r --html r``, ``--out X --json X``)
  and more than one ``-``;
* :func:`write_output` writes one: to standard output for ``-``, else to a temporary file in the
  same directory, flushed to disk, then renamed over the target (:func:`os.replace`), so a reader
  never sees half a report and a failure leaves the previous file intact. When the write fails
  (a full disk, the directory removed meanwhile), the text is saved under the system's temporary
  directory instead and :class:`OutputNotWritten` names both paths: the report is never lost.
"""

from __future__ import annotations

import os
import sys
import tempfile

from .errors import InputError, check_output_file

__all__ = ["STDOUT", "OutputNotWritten", "check_output", "check_distinct", "write_output"]

#: The path that means standard output.
STDOUT = "-"


class OutputNotWritten(InputError):
    """An output could not be written after the run (exit 2); ``saved`` is where its text was
    saved instead (None if nowhere could take it: then it went to standard error)."""

    def __init__(self, flag: str, path: str, why: str, saved: str | None):
        where = f"the report was saved to {saved}" if saved else "the report was written to standard error"
        super().__init__(flag, f"cannot write {path!r}: {why}; {where}")
        self.path, self.saved = path, saved


def check_output(flag: str, path) -> str:
    """Validate an output path before the run: ``-`` (standard output) as is, else
    :func:`pyfed.errors.check_output_file` and a probe that a temporary file can be created in its
    directory (where :func:`write_output` writes). Returns the path; InputError(flag) otherwise."""
    if path == STDOUT:
        return path
    path = check_output_file(flag, path)
    parent = os.path.dirname(os.path.abspath(path))
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".pyfed-probe-")
        os.close(fd)
        os.remove(probe)
    except OSError as exc:
        raise InputError(flag, f"{path!r}: cannot create a file in {parent!r}: {exc.strerror or exc}") from None
    return path


def check_distinct(outputs: dict, out_dir=None) -> None:
    """Refuse two outputs on one file, an output file that is the ``--out`` directory, and more than
    one output on standard output. ``outputs``: {flag: path or None}."""
    given = {flag: p for flag, p in outputs.items() if p is not None}
    dashes = [flag for flag, p in given.items() if p == STDOUT]
    if len(dashes) > 1:
        raise InputError(dashes[1], f"only one output can go to standard output ('-'); {dashes[0]} already does")
    seen: dict = {}
    if out_dir is not None and str(out_dir).strip():
        seen[os.path.realpath(out_dir)] = "--out"
    for flag, p in given.items():
        if p == STDOUT:
            continue
        real = os.path.realpath(p)
        if real in seen:
            raise InputError(flag, f"{p!r} is also given to {seen[real]}: give each output its own path")
        seen[real] = flag


def _fallback(path: str, text: str) -> str | None:
    """Save ``text`` under the temporary directory (named after ``path``); its path, or None."""
    base = os.path.basename(path) or "report"
    try:
        fd, saved = tempfile.mkstemp(prefix=f"pyfed-unsaved-{base}.", dir=tempfile.gettempdir())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        return saved
    except OSError:
        return None


def write_output(flag: str, path: str, text: str) -> str:
    """Write ``text`` to ``path`` atomically (see the module docstring), or to standard output for
    ``-``. Returns the path written. Raises :class:`OutputNotWritten` (the text saved elsewhere,
    or written to standard error) when the file cannot be written."""
    if path == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return path
    parent = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)       # as an ordinary new file, not mkstemp's 0600
        os.replace(tmp, path)
        return path
    except OSError as exc:
        if tmp is not None:
            try:
                os.remove(tmp)
            except OSError:
                pass
        saved = _fallback(path, text)
        if saved is None:
            sys.stderr.write(text)
        raise OutputNotWritten(flag, path, exc.strerror or str(exc), saved) from None
