"""pyfed.lean.paths: the default Lean directory is next to the nearest lakefile; without one (an
installed pyfed run outside a checkout) an input error, never a stray directory."""

import pytest

from pyfed.errors import InputError

from cli_helpers import run_main



def test_default_lean_dir_is_next_to_the_nearest_lakefile(tmp_path, monkeypatch):
    from pyfed.lean import drift, render
    root = tmp_path / "proj"
    (root / "a" / "b").mkdir(parents=True)
    (root / "lakefile.lean").write_text("-- test\n")
    monkeypatch.chdir(root / "a" / "b")
    assert render.default_lean_dir() == root.resolve() / "lean"
    assert drift.default_lean_dir() == root.resolve() / "lean"
    assert render.default_lean_dir(cwd=root) == root.resolve() / "lean"


def test_no_lakefile_is_an_input_error_not_a_stray_directory(tmp_path, monkeypatch, capsys):
    from pyfed.lean import drift, paths, render
    site = tmp_path / "site-packages" / "pyfed" / "lean"
    site.mkdir(parents=True)
    monkeypatch.setattr(paths, "__file__", str(site / "paths.py"))   # a non-editable install
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    for fn in (render.default_lean_dir, drift.default_lean_dir):
        with pytest.raises(InputError) as e:
            fn()
        assert e.value.argument == "--out" and "no lakefile.lean" in e.value.reason
    code, out, err = run_main(["lean"], capsys)  # rendering writes: only into a checkout
    assert code == 2 and err.startswith("pyfed: error: --out: no Lean project found"), err
    # the checks read the installed copy (tests/test_packaging.py); this fake installation has none
    for argv in (["lean", "--drift"], ["lean", "--check"]):
        code, out, err = run_main(argv, capsys)
        assert code == 2 and err.startswith("pyfed: error: lean: pyfed's Lean sources are missing"), err
        assert err.rstrip().endswith("reinstall pyfed") and out == ""
    assert not (tmp_path / "site-packages" / "lean").exists() and not (work / "lean").exists()
