"""The ``pyfed lean`` front end (pyfed.commands.lean): drift mismatch is exit 4, ``--drift`` writes
nothing, a bad ``--out`` is refused before any work."""

from pathlib import Path

import pytest

from pyfed.errors import EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_OK

from cli_helpers import forbid, one_error_line, run_main

ROOT = Path(__file__).resolve().parents[1]



def test_lean_drift_mismatch_is_exit_4(monkeypatch, capsys):
    from pyfed.lean import drift
    monkeypatch.setattr(drift, "check_drift", lambda lean_dir=None, **kw: ["convexRHS: 12 vs 13"])
    code, out, err = run_main(["lean", "--drift"], capsys)
    assert code == EXIT_CHECK_FAILED and "drift: convexRHS: 12 vs 13" in err


@pytest.mark.slow
def test_lean_drift_writes_nothing(tmp_path, capsys):
    import shutil
    lean = tmp_path / "lean"
    shutil.copytree(ROOT / "lean", lean)
    before = {p: p.read_bytes() for p in lean.rglob("*") if p.is_file()}
    gen = lean / "PyfedTest" / "Generated" / "ExactValues.lean"
    gen.write_text(gen.read_text(encoding="utf-8") + "\n-- stale\n", encoding="utf-8")
    before[gen] = gen.read_bytes()
    code, out, err = run_main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == EXIT_OK and "agree" in out
    after = {p: p.read_bytes() for p in lean.rglob("*") if p.is_file()}
    assert after == before                          # nothing rewritten, nothing added
    code, out, err = run_main(["lean", "--check", "--out", str(lean)], capsys)
    assert code == EXIT_CHECK_FAILED and "ExactValues.lean" in err


@pytest.mark.parametrize("argv", [["--out", "/proc/pyfed-lean"], ["--out", str(ROOT / "README.md")]])
def test_bad_output_is_refused_before_work(argv, monkeypatch, capsys):
    forbid(monkeypatch, "pyfed.commands.tightness", "tightness_sweep")
    forbid(monkeypatch, "pyfed.engines.pep", "sweep_scaffold")
    forbid(monkeypatch, "pyfed.lean.render", "write_all")
    code, out, err = run_main(["lean"] + argv, capsys)
    assert code == EXIT_INPUT
    one_error_line(err, "--out")


def test_lean_check_on_missing_directory(tmp_path, capsys):
    missing = tmp_path / "nope"
    code, out, err = run_main(["lean", "--check", "--out", str(missing)], capsys)
    assert code == 2 and "directory not found" in err and "out of date" not in err
    assert not missing.exists()


def test_lean_drift_reads_the_out_directory(tmp_path, monkeypatch, capsys):
    from pyfed.lean import drift
    seen = []
    monkeypatch.setattr(drift, "check_drift", lambda lean_dir=None, **kw: seen.append(Path(lean_dir)) or [])
    lean = tmp_path / "lean"
    code, out, err = run_main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == 2 and "directory not found" in err and not seen and not lean.exists()
    lean.mkdir()
    code, out, err = run_main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == 2 and "no Pyfed/" in err and not seen      # no Lean sources there
    (lean / "Pyfed").mkdir()
    code, out, err = run_main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == 0 and seen == [lean]
    assert not (lean / "PyfedTest.lean").exists()            # a check never writes (issue 9)
    assert sorted(p.name for p in lean.iterdir()) == ["Pyfed"]
    monkeypatch.undo()
    code, out, err = run_main(["lean", "--drift", "--check", "--out", str(lean)], capsys)   # Pyfed/ is empty
    assert code == 2 and err.startswith("pyfed: error: --out: Lean source not found:") and "Pyfed" in err


def test_verify_certificates_reverifies_a_directory_of_certificate_json(tmp_path, capsys):
    import json
    import shutil
    gen = ROOT / "lean" / "PyfedTest" / "Generated"
    for p in gen.glob("Certificate_*.json"):
        shutil.copy(p, tmp_path / p.name)
    code, out, err = run_main(["lean", "--verify-certificates", str(tmp_path)], capsys)
    assert code == EXIT_OK and out.count("verified exactly") == 4 and err == ""
    # one altered multiplier: that file fails, exit 4 (a failed check of pyfed's artefacts)
    p = tmp_path / "Certificate_GradientStepNonexpansive.json"
    rec = json.loads(p.read_text(encoding="utf-8"))
    rec["Q"][0][0] = str(-1)
    p.write_text(json.dumps(rec), encoding="utf-8")
    code, out, err = run_main(["lean", "--verify-certificates", str(tmp_path)], capsys)
    assert code == EXIT_CHECK_FAILED and out.count("verified exactly") == 3
    assert f"{p}: FAILED: " in out
    # bad input: no certificates, or another mode with it
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = run_main(["lean", "--verify-certificates", str(empty)], capsys)
    assert code == EXIT_INPUT and "no Certificate_*.json" in err
    code, out, err = run_main(["lean", "--check", "--verify-certificates", str(tmp_path)], capsys)
    assert code == EXIT_INPUT and err.startswith("pyfed: error: --check: ")


@pytest.mark.slow
def test_check_reverifies_the_committed_certificates_exactly(tmp_path, capsys):
    import json
    import shutil
    lean = tmp_path / "lean"
    shutil.copytree(ROOT / "lean", lean)
    code, out, err = run_main(["lean", "--check", "--out", str(lean)], capsys)
    assert code == EXIT_OK and "4 PEP certificate(s) re-verified exactly" in out
    # a certificate JSON altered (negative slack): the exact re-verification names it
    p = lean / "PyfedTest" / "Generated" / "Certificate_GradientGrowth.json"
    rec = json.loads(p.read_text(encoding="utf-8"))
    rec["slack"] = "-1"
    p.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    code, out, err = run_main(["lean", "--check", "--out", str(lean)], capsys)
    assert code == EXIT_CHECK_FAILED and "certificate Certificate_GradientGrowth.json: " in err
