"""Helpers shared by the tests (imported as a plain module: pytest puts tests/ on sys.path)."""

import contextlib
import io

from pyfed.cli import main


def run_cli(argv):
    """(exit status, stdout, stderr) of ``pyfed`` with ``argv``, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def run_main(argv, capsys):
    """(exit status, stdout, stderr) of ``pyfed`` with ``argv``, the output read from pytest's
    ``capsys`` (so output written by code the test monkeypatched is captured too)."""
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str, argument: str) -> None:
    """Assert that ``err`` is exactly one line ``pyfed: error: <argument>: ...`` with no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"pyfed: error: {argument}: "), err
    assert "Traceback" not in err


def forbid(monkeypatch, target: str, name: str):
    """Replace ``target.name`` by a function that fails the test when called (the long work)."""
    def never(*a, **k):
        raise AssertionError(f"{target}.{name} was called: the input should have been rejected before the work")
    monkeypatch.setattr(f"{target}.{name}", never)


def json_strings(obj):
    """Every string inside the JSON-like ``obj`` (dict values and list items, recursively)."""
    if isinstance(obj, dict):
        for x in obj.values():
            yield from json_strings(x)
    elif isinstance(obj, list):
        for x in obj:
            yield from json_strings(x)
    elif isinstance(obj, str):
        yield obj
