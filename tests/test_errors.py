"""pyfed.errors: the exit-status constants (documented in the README) and the output-file probe."""

from pathlib import Path

from pyfed.errors import EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_VIOLATED

ROOT = Path(__file__).resolve().parents[1]



def test_exit_status_constants_are_distinct_and_documented():
    from pyfed.errors import EXIT_INTERRUPTED, EXIT_NUMERICS
    codes = [EXIT_OK, EXIT_VIOLATED, EXIT_INPUT, EXIT_INTERNAL, EXIT_CHECK_FAILED, EXIT_NUMERICS, EXIT_INTERRUPTED]
    assert codes == [0, 1, 2, 3, 4, 5, 130]
    for page in (ROOT / "docs" / "reference" / "exit-statuses.md", ROOT / "README.md"):
        text = page.read_text(encoding="utf-8")
        table = text.split("xit statuses", 1)[1]
        for code in codes:
            assert f"| {code} |" in table, (page, code)


def test_check_json_probe_leaves_an_existing_file_alone(tmp_path, monkeypatch, capsys):
    from pyfed.errors import check_output_file
    f = tmp_path / "old.json"
    f.write_text("keep")
    assert check_output_file("--json", str(f)) == str(f) and f.read_text() == "keep"
    new = tmp_path / "new.json"
    check_output_file("--json", str(new))
    assert not new.exists()
