"""Option defaults from [tool.pyfed] (pyproject.toml) or pyfed.toml, found upwards from the
working directory; the command line wins; unknown keys and bad values are refused (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyfed.cli import build_parser, main
from pyfed.config import defaults_for, find_config
from pyfed.errors import InputError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "statements"


def _check_parser():
    parser = build_parser(["check"])
    sub = next(a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    return sub.choices["check"]


def test_found_upwards_and_a_project_root_stops_the_search(tmp_path):
    (tmp_path / "pyfed.toml").write_text("quick = true\nseed = 4\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(deep) == tmp_path / "pyfed.toml"
    values, path = defaults_for("check", _check_parser(), deep)
    assert values == {"quick": True, "seed": 4} and path == tmp_path / "pyfed.toml"
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'x'\n")   # a root without [tool.pyfed]
    assert defaults_for("check", _check_parser(), deep) == ({}, tmp_path / "a" / "pyproject.toml")


def test_keys_are_checked_like_the_command_line(tmp_path):
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text('[tool.pyfed]\njunit-xml = "r.xml"\nk = "Young"\nbudget = 3\n')
    values, _ = defaults_for("check", _check_parser(), tmp_path)
    assert values == {"junit_xml": "r.xml", "select": "Young", "budget": 3}
    for bad, why in (("quik = true", "unknown key 'quik'"), ('seed = "x"', "seed: invalid value"),
                     ("quick = 1", "quick must be true or false"), ("json = true", "json takes a value")):
        cfg.write_text(f"[tool.pyfed]\n{bad}\n")
        with pytest.raises(InputError, match=why) as info:
            defaults_for("check", _check_parser(), tmp_path)
        assert str(cfg) in info.value.argument
    cfg.write_text("[tool.pyfed\n")
    with pytest.raises(InputError, match="not valid TOML"):
        defaults_for("check", _check_parser(), tmp_path)


def test_the_command_line_wins(tmp_path, monkeypatch, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.pyfed]\nquick = true\njson = "cfg.json"\n')
    monkeypatch.chdir(tmp_path)
    young = str(EXAMPLES / "young_small_constant.lean")
    assert main(["check", young, "--no-profile"]) == 1
    assert (tmp_path / "cfg.json").is_file()
    assert main(["check", young, "--no-profile", "--json", "cli.json"]) == 1
    assert (tmp_path / "cli.json").is_file()
    (tmp_path / "pyproject.toml").write_text("[tool.pyfed]\nnope = 1\n")
    assert main(["check", young]) == 2
    assert "unknown key 'nope'" in capsys.readouterr().err
