"""pyfed.cli: usage errors (one line naming the argument, exit 2), internal errors (one line, exit 3),
an interrupt (exit 130), --help/--version, and the installed console script's exit statuses."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyfed import cli
from pyfed.errors import EXIT_INPUT, EXIT_INTERNAL

from cli_helpers import one_error_line, run_main



def test_internal_error_is_one_line_exit_3_never_exit_1(monkeypatch, capsys):
    import pyfed.check
    def boom(**kw):
        raise RuntimeError("boom\nsecond line")
    monkeypatch.setattr(pyfed.check, "run_check", boom)
    monkeypatch.delenv("PYFED_DEBUG", raising=False)
    code, out, err = run_main(["check", "--skip-statements"], capsys)
    assert code == EXIT_INTERNAL == 3
    lines = err.strip().splitlines()
    assert lines == ["pyfed: internal error: RuntimeError: boom second line "
                     "(set PYFED_DEBUG=1 for the traceback; please report)"]
    monkeypatch.setenv("PYFED_DEBUG", "1")
    code, out, err = run_main(["check", "--skip-statements"], capsys)
    assert code == 3 and "Traceback" in err and err.strip().splitlines()[-1].startswith("pyfed: internal error:")


def test_keyboard_interrupt_is_exit_130(monkeypatch, capsys):
    import pyfed.check
    def interrupted(**kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(pyfed.check, "run_check", interrupted)
    code, out, err = run_main(["check", "--skip-statements"], capsys)
    assert code == 130 and err.strip() == "pyfed: interrupted"


@pytest.mark.parametrize("argv, argument", [
    (["nope"], "command"),
    ([], "command"),
    (["check", "--budget", "x"], "--budget"),
    (["check", "--frobnicate"], "--frobnicate"),
    (["worst-case", "-N", "x"], "-N"),                 # named as typed (not its alias --clients)
    (["worst-case", "--clients", "x"], "--clients"),
    (["search", "YoungInner", "--seed", "1.5"], "--seed"),
])
def test_usage_errors_are_one_line_exit_2(argv, argument, capsys):
    code, out, err = run_main(argv, capsys)
    assert code == EXIT_INPUT
    one_error_line(err, argument)


def test_help_and_version_exit_0(capsys):
    assert cli.main(["--version"]) == 0
    assert "pyfed" in capsys.readouterr().out
    assert cli.main(["check", "--help"]) == 0
    assert "--budget" in capsys.readouterr().out


def _console_script():
    exe = Path(sys.executable).parent / "pyfed"
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "import sys; from pyfed.cli import main; "
                                                                  "sys.exit(main())"]


def test_console_script_exit_statuses(tmp_path):
    """The installed ``pyfed`` script returns main's status to the shell (2 bad input, 0 ran)."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    bad = subprocess.run(_console_script() + ["check", "--budget", "-5"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "pyfed: error: --budget: must be >= 1, got -5"
    ok = subprocess.run(_console_script() + ["search", "YoungInner", "--budget", "1", "--out", str(tmp_path)],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr == ""          # progress is not written to a non-terminal stderr
