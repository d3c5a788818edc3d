"""README: its two set-up commands are the ones CI and users run, its first statement is checked
with the output it shows, it stays short (under 250 lines) and links into the documentation; what
it used to say at length is in the documentation pages (tests/test_docs.py builds them)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _text():
    return README.read_text(encoding="utf-8")


def _commands():
    return re.findall(r"```sh\n(.+?)\n```", _text(), re.S)


def test_readme_has_the_two_setup_commands():
    cmds = _commands()
    assert any(c.endswith("pyfed check") and "pip install ." in c and "\n" not in c for c in cmds)
    assert any("pytest" in c and "pip install" in c and "[test]" in c for c in cmds)


def test_ci_runs_the_readme_test_command_in_a_fresh_venv():
    test_cmd = next(c for c in _commands() if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_cmd in ci
    assert "rm -rf .venv" in ci.split(test_cmd)[0]
    # the browser step may run again (CI, a second run) and may fail (no root) without failing the command
    first = test_cmd.splitlines()[0]
    assert first.startswith("command -v chromium") and first.endswith("|| true")


def test_readme_is_short_and_starts_with_a_statement():
    text = _text()
    assert len(text.splitlines()) < 250
    assert text.index("## Your first statement") < 60 * 80          # within the first screens
    assert "theorem YoungHalf" in text and "left side 2 > right side 3/2" in text


def test_readme_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)\)", _text()):
        if "://" not in target:
            assert (ROOT / target).is_file(), target


def test_readme_first_statement_output_is_what_pyfed_prints(tmp_path, capsys, monkeypatch):
    """The output shown is the command's output (at 100 columns), line for line."""
    from pyfed.cli import main

    text = _text()
    lean = re.search(r"```lean\n(.+?)\n```", text, re.S).group(1) + "\n"
    shown = re.search(r"```console\n\$ \.venv/bin/pyfed check first\.lean\n(.+?)\n```", text, re.S).group(1)
    (tmp_path / "first.lean").write_text(lean, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["check", "first.lean"]) == 1
    out = capsys.readouterr().out
    assert [line.rstrip() for line in out.splitlines()] == [line.rstrip() for line in shown.splitlines()]
