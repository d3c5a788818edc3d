"""pyfed.cli: usage errors (one line naming the argument, exit 2), internal errors (one line, exit 3),
an interrupt (exit 130), --help/--version, and the installed console script's exit statuses."""

import argparse
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


def test_top_level_help_lists_every_command_and_imports_nothing_heavy():
    """``pyfed --help`` (a fresh process) lists each subcommand with the help line its module
    registers, and imports none of numpy, rich, mpmath, sympy or python-flint (the start-up
    target of benchmarks/bench_start.py rests on this)."""
    from pyfed.commands import SUBCOMMANDS

    code = ("import sys\nfrom pyfed.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'rich', 'mpmath', 'sympy', 'flint'})\n"
            "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, COLUMNS="400"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "HEAVY []"
    full = cli.build_parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    listed = {a.dest: a.help for a in sub._choices_actions}
    for name, _, text in SUBCOMMANDS:
        assert listed[name] == text     # the registered help line is the table's
        assert " ".join(text.split()) in " ".join(out.stdout.split())


def test_a_parser_built_for_one_command_parses_it_like_the_full_parser():
    argv = ["worst-case", "-N", "3", "--quick"]
    assert vars(cli.build_parser(argv).parse_args(argv)) == vars(cli.build_parser().parse_args(argv))


def _console_script():
    exe = Path(sys.executable).parent / "pyfed"
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "import sys; from pyfed.cli import main; "
                                                                  "sys.exit(main())"]


@pytest.mark.slow
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


@pytest.mark.parametrize("command", ["search", "lean", "tightness", "worst-case"])
def test_help_has_no_rst_markup(command):
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = sub.choices[command].format_help()
    for markup in ("``", ":func:", ":mod:", ":data:"):
        assert markup not in text, (command, markup)


@pytest.mark.parametrize("command", ["tightness", "worst-case"])
def test_out_that_cannot_be_created(command, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    extra = ["--quick"] if command == "worst-case" else []
    code, out, err = run_main([command, "--out", str(blocker / "sub")] + extra, capsys)
    assert code == 2 and err.startswith("pyfed: error: --out: cannot create directory")
    assert "Not a directory" in err


@pytest.mark.parametrize("argv, message", [
    (["tightness", "--mu", "-1/2"], "--mu: must be >= 0, got -1/2"),
    (["tightness", "--mu", "-3"], "--mu: must be >= 0, got -3"),
    (["tightness", "--mu", "-1e-3"], "--mu: must be >= 0, got -1e-3"),
    (["tightness", "--sigma", "-1/2"], "--sigma: noise level must be >= 0, got -1/2"),
    (["tightness", "--eta-g", "-1/2"], "--eta-g: global step must be >= 1 (hypothesis of the theorem), got -1/2"),
    (["worst-case", "--eta-g", "-3"], "--eta-g: must be >= 1 (hypothesis of the theorem), got -3"),
    (["worst-case", "--eta-g", "-1/2"], "--eta-g: must be >= 1 (hypothesis of the theorem), got -1/2"),
    (["experiment", "--target", "-1/2"], "--target: must be an accuracy in (0, 1], got -1/2"),
    (["check", "--seed", "-1/2"], "--seed: invalid int value: '-1/2'"),
    (["tightness", "--mu", "-inf"], "--mu: must be a rational number such as 1/2, got '-inf'"),
])
def test_negative_option_values_reach_validation(argv, message, capsys, tmp_path):
    """``--opt -1/2`` is the option's value (argparse alone reads it as an unknown option and
    says "expected one argument"): it gets the option's own one-line error, exit 2."""
    code, out, err = run_main(argv + ["--out", str(tmp_path / "o")], capsys)
    assert code == 2
    assert err == f"pyfed: error: {message}\n"
    assert not (tmp_path / "o").exists()  # rejected before any work


def test_an_option_word_after_an_option_is_still_a_missing_value(capsys, tmp_path):
    code, out, err = run_main(["tightness", "--mu", "-x", "--out", str(tmp_path)], capsys)
    assert (code, err) == (2, "pyfed: error: --mu: expected one argument\n")
    code, out, err = run_main(["tightness", "--mu", "--out", str(tmp_path)], capsys)
    assert (code, err) == (2, "pyfed: error: --mu: expected one argument\n")


@pytest.mark.parametrize("word, number", [
    ("-3", True), ("-1/2", True), ("-0.5", True), ("-.5", True), ("-1e-3", True), ("-2E+4/3", True),
    ("-inf", True), ("-1/2,1", True), ("-x", False), ("--mu", False), ("-N", False), ("-", False),
    ("-1/", False), ("-/2", False), ("1/2", False)])
def test_negative_number_pattern(word, number):
    assert bool(cli.NEGATIVE_NUMBER.match(word)) is number


# ---------------------------------------------------------------- descriptions, exit statuses

@pytest.mark.parametrize("command, words", [("check", ["holds", "violated", "inconclusive", "[tool.pyfed]"]),
                                            ("conform", ["adapter", "exact law", "Exit status"])])
def test_check_and_conform_help_have_descriptions(command, words):
    parser = cli.build_parser([command])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = sub.choices[command].format_help()
    usage_end = text.index("\n\n")
    description = text[usage_end:text.index("options:")]
    for w in words:
        assert w in description, (command, w)


@pytest.mark.slow
def test_a_numerical_library_failure_is_exit_5_not_1(monkeypatch, capsys):
    import numpy as np

    import pyfed.commands.check as check_cmd

    def singular(*a, **kw):
        raise np.linalg.LinAlgError("Singular matrix")
    monkeypatch.setattr(check_cmd, "run_file", singular)
    code, out, err = run_main(["check", "x.lean"], capsys)
    assert code == 5
    assert err.strip() == ("pyfed: error: numerics: numpy.LinAlgError: Singular matrix (a numerical library failed; "
                           "no verdict was reached: see the exit statuses in the documentation)")

    def solver(*a, **kw):
        import cvxpy
        raise cvxpy.error.SolverError("Solver 'CLARABEL' failed")
    monkeypatch.setattr(check_cmd, "run_file", solver)
    code, out, err = run_main(["check", "x.lean"], capsys)
    assert code == 5 and "cvxpy.SolverError" in err


def test_the_command_runs_with_a_deep_stack_and_restores_the_limit():
    import sys

    before = sys.getrecursionlimit()

    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)
    assert cli.run_deep(depth, 20_000) == 20_000         # beyond Python's default limit of 1000
    assert sys.getrecursionlimit() == before
    with pytest.raises(ZeroDivisionError):
        cli.run_deep(lambda: 1 / 0)


@pytest.mark.slow
def test_a_closed_pipe_exits_quietly_with_the_verdicts_status():
    """`pyfed check FILE | head -2`: the reader goes away, the status stays 1 (violated), no traceback."""
    young = Path(__file__).resolve().parents[1] / "examples" / "statements" / "young_small_constant.lean"
    proc = subprocess.Popen(_console_script() + ["check", str(young), "--quick"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ, COLUMNS="60", PYTHONUNBUFFERED="1"))
    proc.stdout.readline()
    proc.stdout.close()                              # as `head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def test_a_closed_reader_does_not_turn_the_status_into_an_error(monkeypatch, capsys):
    import io

    read_end, write_end = os.pipe()
    os.close(read_end)                                # the reader is gone before the report is printed
    stream = io.TextIOWrapper(os.fdopen(write_end, "wb", buffering=0), encoding="utf-8", write_through=True)
    monkeypatch.setattr(sys, "stdout", stream)
    young = Path(__file__).resolve().parents[1] / "examples" / "statements" / "young_small_constant.lean"
    assert cli.main(["check", str(young), "--quick", "--no-profile"]) == 1      # the verdicts' status
    assert sys.stdout is stream
    stream.write("after\n")                           # the descriptor now points at /dev/null
    stream.flush()
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.slow
def test_ctrl_c_reaches_the_command_thread_and_exits_130():
    """The command runs in its own thread (deep stack); Ctrl-C, delivered to the main thread, is
    passed on to it: one line, exit 130, within seconds."""
    import signal
    import time

    young = Path(__file__).resolve().parents[1] / "examples" / "statements" / "nonconvex_small_constant.lean"
    proc = subprocess.Popen(_console_script() + ["check", str(young)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    time.sleep(6)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    err = proc.stderr.read().decode()
    assert err.rstrip().endswith("pyfed: interrupted") and "Traceback" not in err, err
