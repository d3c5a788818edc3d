"""README: its two set-up commands are the ones CI and users run; the tables and notes other
parts of pyfed rely on (exit statuses, bad input, budget, sigma_sq, divergence) are there."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_readme_has_the_two_setup_commands():
    cmds = _commands()
    assert any(c.endswith("pyfed check") and "pip install" in c for c in cmds)
    assert any("pytest" in c and "pip install" in c and "[test]" in c for c in cmds)


def test_ci_runs_the_readme_test_command_in_a_fresh_venv():
    test_cmd = next(c for c in _commands() if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_cmd in ci
    assert "rm -rf .venv" in ci.split(test_cmd)[0]


def test_readme_documents_errors_budget_sigma_sq_and_divergence():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    bad = text.split("## Bad input", 1)[1].split("\n## ", 1)[0]
    for flag in ("--json", "--out", "--budget", "--seed", "--replicates"):
        assert flag in bad, flag
    assert "random draw" in text and "sigma_sq" in text and "diverged at round" in text
    assert "DIVERGENCE_THRESHOLD" in text
