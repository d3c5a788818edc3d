"""Helpers shared by the CLI tests (imported as a plain module: pytest puts tests/ on sys.path)."""

import contextlib
import io

from pyfed.cli import main


def run_cli(argv):
    """(exit status, stdout, stderr) of ``pyfed`` with ``argv``, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()
