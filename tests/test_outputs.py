"""Report files are checked before the run, written atomically, '-' is standard output, and a
report that cannot be written is saved elsewhere (never lost)."""

from __future__ import annotations

import os

import pytest

from pyfed.errors import InputError
from pyfed.outputs import OutputNotWritten, check_distinct, check_output, write_output


def test_write_is_atomic_and_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("old")
    assert write_output("--json", str(target), "new") == str(target)
    assert target.read_text() == "new" and sorted(os.listdir(tmp_path)) == ["r.json"]     # no temporary left

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OutputNotWritten) as info:
        write_output("--json", str(target), "the whole report")
    assert target.read_text() == "new"                       # a reader never sees half a report
    assert sorted(os.listdir(tmp_path)) == ["r.json"]
    saved = info.value.saved
    assert saved and open(saved, encoding="utf-8").read() == "the whole report"     # and it is not lost
    assert info.value.argument == "--json" and "No space left on device" in str(info.value) and saved in str(info.value)
    os.remove(saved)


def test_dash_is_standard_output(capsys):
    assert check_output("--json", "-") == "-"
    write_output("--json", "-", "{}\n")
    assert capsys.readouterr().out == "{}\n"


def test_checked_before_the_run(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        check_output("--html", str(tmp_path / "no" / "r.html"))
    with pytest.raises(InputError, match="is a directory"):
        check_output("--junit-xml", str(tmp_path))
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if not os.access(ro, os.W_OK):          # root writes anywhere: nothing to test then
            with pytest.raises(InputError, match="--json"):
                check_output("--json", str(ro / "r.json"))
    finally:
        ro.chmod(0o700)


def test_two_outputs_on_one_path_are_refused(tmp_path):
    x = str(tmp_path / "x")
    with pytest.raises(InputError, match="also given to --out") as info:
        check_distinct({"--json": x}, out_dir=x)          # --out X --json X used to lose the report
    assert info.value.argument == "--json"
    with pytest.raises(InputError, match="also given to --json"):
        check_distinct({"--json": x, "--html": x})
    with pytest.raises(InputError, match="only one output"):
        check_distinct({"--json": "-", "--junit-xml": "-"})
    check_distinct({"--json": "-", "--html": x + ".html"}, out_dir=x)
