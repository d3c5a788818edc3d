"""The ``pyfed check`` front end (pyfed.commands.check): progress on a terminal (pseudo-terminal)
and one line per finished stage on a pipe, output that survives an ASCII console with the JSON
written first, tables at any width (10, 80 and 140 columns), path-only options refused without a
path."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from fractions import Fraction as Fr
from pathlib import Path

import numpy as np
import pytest

from pyfed.cli import main
from pyfed.errors import EXIT_INPUT, EXIT_OK, EXIT_VIOLATED, Diverged

from cli_helpers import forbid, json_strings, one_error_line, run_cli, run_main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "statements"

#: ``pyfed check --skip-statements`` with the default suite replaced by two stages (labels with
#: non-ASCII symbols, a pause of argv[1] seconds each) and two verdicts whose text has them too.
DRIVER = r'''
import sys, time
from fractions import Fraction
import pyfed.check
from pyfed.verdicts import Holds, Violated

def fake_run_check(*, quick=False, seed=0, replicates=None, progress=None, **kw):
    for label in ("quadratic σ ≤ 1", "logistic × 2"):
        if progress:
            progress(label)
        time.sleep(float(sys.argv[1]))
    d = {"instance": "quadratic-rational-N8-d4 (σ = 1/2, h ≤ 1/(81 β))",
         "hypotheses": [{"statement": "h ≤ 1/(81 β)", "holds": True}]}
    return [Holds("ConvexFiniteRoundConvergence", Fraction(1, 3), Fraction(1, 2), True, d),
            Violated("ConvexFiniteRoundConvergence", Fraction(3), Fraction(2), True,
                     {"instance": "logistic-breast_cancer-dirichlet0.5 ± ζ", "witness_text": "lhs 3 > rhs 2 ⋆"})]

pyfed.check.run_check = fake_run_check
from pyfed.cli import main
sys.exit(main(sys.argv[2:]))
'''


def _driver(pause: float, *argv, env=None, **kw):
    env = dict(os.environ, PYTHONWARNINGS="ignore", **(env or {}))
    return subprocess.run([sys.executable, "-c", DRIVER, str(pause), "check", "--skip-statements", *argv],
                          env=env, timeout=120, **kw)


def _read_all(fd, proc) -> bytes:
    buf = b""
    while True:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:        # the child closed the terminal
                break
            if not data:
                break
            buf += data
        elif proc.poll() is not None:
            break
    return buf


@pytest.mark.slow
def test_progress_is_shown_on_a_terminal():
    """stderr a pseudo-terminal: a live display names the running stage (and no stage lines)."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONWARNINGS="ignore", COLUMNS="120")
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, "0.6", "check", "--skip-statements"],
                            stdin=slave, stdout=subprocess.PIPE, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    err = _read_all(master, proc).decode("utf-8", "replace")
    out = proc.stdout.read().decode("utf-8")
    assert proc.wait(timeout=60) == 1
    os.close(master)
    assert "pyfed check [1]: quadratic σ ≤ 1" in err
    assert "pyfed check [2]: logistic × 2" in err
    assert "\x1b[" in err                    # a live (terminal) display
    assert " done (" not in err
    assert "ConvexFiniteRoundConvergence" in out


@pytest.mark.slow
def test_a_pipe_gets_one_line_per_finished_stage():
    proc = _driver(0.0, capture_output=True, text=True)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    assert re.fullmatch(r"pyfed check: quadratic σ ≤ 1 done \(\d+\.\d s\)", lines[0])
    assert re.fullmatch(r"pyfed check: logistic × 2 done \(\d+\.\d s\)", lines[1])
    assert "\x1b[" not in proc.stdout


@pytest.mark.slow
def test_a_real_check_on_a_pipe_prints_one_line_per_stage():
    exe = Path(sys.executable).parent / "pyfed"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "pyfed.cli"]
    proc = subprocess.run(cmd + ["check", str(EXAMPLES / "convex_no_noise.lean"), "--quick", "--no-profile",
                                 "--budget", "1"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert [re.sub(r" done \(\d+\.\d s\)$", "", x) for x in lines] == [
        "pyfed check: ConvexWithoutNoiseTerm: quadratic-rational-N8-d4",
        "pyfed check: ConvexWithoutNoiseTerm: logistic-breast_cancer-dirichlet0.5",
        "pyfed check: ConvexWithoutNoiseTerm: adversarial search",
        "pyfed check: ConvexWithoutNoiseTerm: PEP worst case"]


@pytest.mark.slow
def test_with_several_files_each_stage_names_its_file(tmp_path):
    text = "import Pyfed\ntheorem A : ∀ (a b : ℝ), 2 * a * b ≤ a ^ 2 + b ^ 2 := by sorry\n"
    (tmp_path / "x.lean").write_text(text, encoding="utf-8")
    (tmp_path / "y.lean").write_text(text, encoding="utf-8")
    exe = Path(sys.executable).parent / "pyfed"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "pyfed.cli"]
    proc = subprocess.run(cmd + ["check", str(tmp_path / "x.lean"), str(tmp_path / "y.lean"), "--quick"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [re.sub(r" done \(\d+\.\d s\)$|, ETA \d+ s$", "", x) for x in proc.stderr.splitlines()]
    # each file's stages, named by the file: its adversarial search, then the search by optimisation's;
    # after each statement the count of statements done
    assert [x for x in lines if " statements done" in x] == ["pyfed check: 1 of 2 statements done",
                                                              "pyfed check: 2 of 2 statements done"]
    for name in ("x.lean", "y.lean"):
        mine = [x for x in lines if x.startswith(f"pyfed check: {name}: A: ")]
        assert mine[0] == f"pyfed check: {name}: A: adversarial search"
        assert any("search by optimisation: screening" in x for x in mine[1:])
    assert all(x.startswith(("pyfed check: x.lean: A: ", "pyfed check: y.lean: A: ")) or " statements done" in x
               for x in lines)


@pytest.mark.slow
def test_an_ascii_console_gets_ascii_spellings_and_the_json_first(tmp_path):
    """PYTHONIOENCODING=ascii: the run finishes (exit 1: a violated verdict), the JSON report is
    written, and the report is printed with ASCII spellings of the symbols."""
    rep = tmp_path / "report.json"
    proc = _driver(0.0, "--json", str(rep), env={"PYTHONIOENCODING": "ascii"}, capture_output=True)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout.decode("ascii")        # decodes: nothing but ASCII was written
    err = proc.stderr.decode("ascii")
    assert "quadratic sigma <= 1 done" in err
    assert "logistic-breast_cancer-dirichlet0.5 +/- zeta" in out.replace("\n", " ") or \
        "+/- zeta" in out
    assert "lhs 3 > rhs 2 *" in out
    assert json.loads(rep.read_text(encoding="utf-8"))["verdicts"][1]["status"] == "violated"


def test_json_is_written_before_the_tables(tmp_path, monkeypatch):
    """An error while printing (here: the table renderer fails) loses no finished result."""
    import pyfed.check
    import pyfed.commands.check as front
    from pyfed.verdicts import Holds
    from fractions import Fraction

    monkeypatch.setattr(pyfed.check, "run_check", lambda **kw: [Holds("S", Fraction(1), Fraction(2), True,
                                                                      {"instance": "i"})])

    def broken(*a, **k):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(front, "render_verdicts", broken)
    rep = tmp_path / "r.json"
    code, out, err = run_cli(["check", "--skip-statements", "--json", str(rep)])
    assert code == 3
    assert json.loads(rep.read_text(encoding="utf-8"))["verdicts"][0]["status"] == "holds"


def _fake_verdicts(monkeypatch):
    import pyfed.check
    from fractions import Fraction
    from pyfed.verdicts import Holds, Inconclusive

    d = {"instance": "logistic-breast_cancer-dirichlet0.5",
         "hypotheses": [{"statement": "effectiveStep K ηl ηg ≤ 1 / (81 * P.β)", "holds": False}]}
    vs = [Holds("ConvexFiniteRoundConvergence", Fraction(17213764849598353014546871, 710440501680448312373867446272),
                Fraction(1, 2), True, {"instance": "quadratic-rational-N8-d4", "arithmetic": "exact"}),
          Inconclusive("ConvexFiniteRoundConvergence", Fraction(1, 3), Fraction(1, 2), True, d,
                       reason="hypotheses fail: effectiveStep K ηl ηg ≤ 1 / (81 * P.β)")]
    monkeypatch.setattr(pyfed.check, "run_check", lambda **kw: vs)
    return vs


@pytest.mark.parametrize("columns", ["10", "80", "140"])
def test_tables_at_any_width(columns, monkeypatch):
    """COLUMNS=10 (a pipe): every row stacked as field: value lines, nothing empty; 80 and 140:
    columns, no word broken, nothing truncated."""
    _fake_verdicts(monkeypatch)
    monkeypatch.setenv("COLUMNS", columns)
    code, out, err = run_cli(["check", "--skip-statements"])
    assert code == 0
    words = ["quadratic-rational-N8-d4", "logistic-breast_cancer-dirichlet0.5", "inconclusive", "FAIL:",
             "effectiveStep", "(81"]
    tokens = {t for t in re.split(r"[\s│┃]+", out)}
    for w in words:
        assert w in tokens, (w, out)
    assert "…" not in out
    lines = out.splitlines()
    stacked = "instance: quadratic-rational-N8-d4" in lines and "verdict: inconclusive" in lines
    if columns == "10":
        assert stacked
    else:       # columns that fit, or (80: the longest words do not fit side by side) stacked rows
        table = [x for x in lines if x[:1] in "┃│┏┡└"]
        assert stacked or ("┃ instance" in out and max(len(x) for x in table) <= int(columns))
    if columns == "140":
        assert "┃ instance" in out


def test_statement_checker_table_in_a_pipe_is_never_truncated(monkeypatch):
    """140 columns (a pipe): long search results wrap between words instead of being cut."""
    import pyfed.search
    from fractions import Fraction
    from pyfed.verdicts import Inconclusive

    _fake_verdicts(monkeypatch)
    long = ("no counterexample among 1234 candidates: the tightest instance is the boundary of the step-size "
            "hypothesis with every client at its minimiser and the controls at their gradients")
    results = [("SamplingVarianceIdentity", Inconclusive("SamplingVarianceIdentity", Fraction(1), Fraction(1), True,
                                                         {"search_result": long, "holds": 1234, "drawn": 5678},
                                                         reason="r"))]
    monkeypatch.setattr(pyfed.search, "run_all", lambda **kw: results)
    monkeypatch.setenv("COLUMNS", "140")
    code, out, err = run_cli(["check"])
    assert code == 0
    flat = " ".join(out.replace("│", " ").split())
    assert "…" not in out
    for word in long.split():
        assert word in flat.split()


def test_no_profile_without_a_file_is_refused(capsys):
    code, out, err = run_cli(["check", "--no-profile"])
    assert code == 2
    assert err.strip() == "pyfed: error: --no-profile: only applies with a PATH.lean to check"


def test_limits_are_checked_before_a_file_is_run(tmp_path):
    code, out, err = run_cli(["check", str(EXAMPLES / "seed_convex.lean"), "--max-seconds", "1"])
    assert code == 2
    assert err.startswith("pyfed: error: --replicates: needs an estimated ") or \
        err.startswith("pyfed: error: --budget: needs an estimated ")
    assert "(--max-seconds)" in err


def test_violated_verdict_is_exit_1(monkeypatch, capsys):
    import pyfed.check
    from pyfed.verdicts import Violated
    v = Violated("ConvexFiniteRoundConvergence", Fr(2), Fr(1), True, {"instance": "fake"}, witness={})
    monkeypatch.setattr(pyfed.check, "run_check", lambda **kw: [v])
    code, out, err = run_main(["check", "--skip-statements"], capsys)
    assert code == EXIT_VIOLATED and "violated" in out


@pytest.mark.parametrize("argv, argument, why", [
    (["--json", "/proc/pyfed-report.json"], "--json", "cannot create file"),
    (["--json", "{tmp}"], "--json", "is a directory"),
    (["--json", ""], "--json", "is empty"),
    (["--json", "{tmp}/missing-dir/r.json"], "--json", "does not exist"),
    (["--budget", "-5"], "--budget", ">= 1"),
    (["--budget", "0"], "--budget", ">= 1"),
    (["--seed", "-1"], "--seed", ">= 0"),
    (["--replicates", "1"], "--replicates", ">= 2"),
])
def test_check_rejects_bad_input_before_running(argv, argument, why, tmp_path, monkeypatch, capsys):
    forbid(monkeypatch, "pyfed.check", "run_check")
    forbid(monkeypatch, "pyfed.search", "run_all")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = run_main(["check"] + argv, capsys)
    assert code == EXIT_INPUT
    one_error_line(err, argument)
    assert why in err
    assert not any(tmp_path.iterdir())      # nothing created (the probe file is removed)


@pytest.mark.slow
def test_cli_check_shows_the_divergence(monkeypatch, capsys):
    import pyfed.models.scaffold.montecarlo

    def diverging(*a, **k):
        raise Diverged(2, 3e55, threshold=1e50)
    monkeypatch.setattr(pyfed.models.scaffold.montecarlo, "scaffold_run", diverging)
    code, out, err = run_main(["check", "--quick", "--skip-statements"], capsys)
    assert code == EXIT_OK and "diverged at round 2" in out


@pytest.mark.slow
def test_quick_report_has_floats_beside_exact_numbers_and_no_giant_fractions(quick_check_cli):
    from pyfed.exact import REPORT_EXACT_CHARS
    code, _, err, report = quick_check_cli            # pyfed check --quick --seed 0 --json PATH
    assert code == EXIT_OK, err
    quad = next(v for v in report["verdicts"] if v["details"]["instance"].startswith("quadratic"))
    d = quad["details"]
    for key in ("dist_sq", "C0"):
        assert isinstance(d[key]["float"], float) and ("exact" in d[key] or "decimal" in d[key])
    for key in ("first", "noise"):
        assert isinstance(d["rhs_terms"][key]["float"], float)

    def walk(o):
        if isinstance(o, dict):
            if isinstance(o.get("exact"), str):     # an exact number (not the verdict's exact flag)
                assert "float" in o, o
                assert len(o["exact"]) <= REPORT_EXACT_CHARS
            for x in o.values():
                walk(x)
        elif isinstance(o, list):
            for x in o:
                walk(x)
        elif isinstance(o, float):
            assert np.isfinite(o)
    walk(report)
    assert max(len(s) for s in json_strings(report)) < 400


VACUOUS_HYPS = "effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →"


def test_vacuous_statement_prints_only_its_note(tmp_path, capsys):
    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8")
    assert VACUOUS_HYPS in text
    path = tmp_path / "vac.lean"
    path.write_text(text.replace(VACUOUS_HYPS, VACUOUS_HYPS + " ηl < ηg → ηg < ηl →", 1), encoding="utf-8")
    rep = tmp_path / "r.json"
    assert main(["check", str(path), "--quick", "--budget", "1", "--json", str(rep)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("vacuous: the linear hypotheses `ηg < ηl` and `ηl < ηg` have no common solution (Fourier–Motzkin "
            "elimination over the reals), so the hypotheses can never hold") in out
    for leftover in ("all met", "constant profile", "no PEP row", "adversarial search", "inconclusive"):
        assert leftover not in out.replace("0 inconclusive", "")
    assert "0 holds (0 certified, 0 numerical), 0 violated, 0 inconclusive; 1 vacuous (hypotheses never hold)" in out
    doc = json.loads(rep.read_text(encoding="utf-8"))
    (entry,) = doc["statements"]
    assert doc["verdicts"] == [] and entry["verdicts"] == [] and entry["vacuous"] is True and entry["profile"] is None
    # a vacuous statement holds (vacuously), proven by the elimination: counted as holding
    assert entry["pep"] == "no PEP row: the statement is vacuous" and entry["status"] == "holds"
    assert entry["holds"]["kind"] == "vacuous" and entry["holds"]["label"] == "holds (vacuously)"
    assert doc["summary"]["statements"]["holds_by_kind"] == {"vacuous": 1}


@pytest.mark.parametrize("argv, flag", [(["--workers", "0"], "--workers"), (["--out", ""], "--out")])
def test_path_only_options_are_refused_without_a_path_whatever_their_value(argv, flag, capsys):
    code, out, err = run_main(["check", "--quick", *argv], capsys)
    assert code == 2 and err.startswith(f"pyfed: error: {flag}: only applies with a PATH.lean to check")


@pytest.mark.parametrize("argv, message", [
    (["check", str(EXAMPLES / "young_small_constant.lean")], "pyfed: error: --out: is empty: give a directory such as out/"),
    (["search", "YoungInner", "--budget", "1"],
     "pyfed: error: --out: required: the directory for the counterexample files and the summary")])
@pytest.mark.parametrize("empty", ["", "  "])
def test_empty_out_is_refused_before_any_work(argv, message, empty, monkeypatch):
    """`--out ""` is a one-line error (exit 2) raised before the statements are read or searched."""
    import pyfed.commands.check as cmd_check
    import pyfed.commands.search as cmd_search

    def boom(*a, **k):
        raise AssertionError("work started")
    monkeypatch.setattr(cmd_check, "_read_all", boom)
    monkeypatch.setattr(cmd_search, "search_to_dir", boom)
    code, out, err = run_cli(argv + ["--out", empty])
    assert code == 2
    assert err.strip() == message


def test_the_default_report_counts_inconclusive_rows_as_its_json_and_file_reports_do(monkeypatch, tmp_path):
    # the statement searches' rows are inconclusive verdicts in the JSON summary; the text says so too
    import re
    import pyfed.search
    from pyfed.verdicts import Inconclusive
    _fake_verdicts(monkeypatch)            # 1 holds, 1 inconclusive
    searches = [(f"S{i}", Inconclusive(f"S{i}", details={"instance": "adversarial search", "decided": 3,
                                                        "candidates": 3, "search_result": "no counterexample"},
                                       reason="no counterexample among 3 decided")) for i in range(3)]
    monkeypatch.setattr(pyfed.search, "run_all", lambda **kw: searches)
    rep = tmp_path / "r.json"
    code, out, err = run_cli(["check", "--quick", "--json", str(rep)])
    assert code == 0, err
    summary = json.loads(rep.read_text(encoding="utf-8"))["summary"]["verdicts"]
    assert summary["inconclusive"] == 4 and summary["total"] == 5
    line = next(x for x in out.splitlines() if x.startswith("rows "))
    assert re.search(r"1 holds .*, 0 violated, 4 inconclusive$", line), line
    # the statements, counted as summary.statements counts them: none proven, so 3 inconclusive
    line = next(x for x in out.splitlines() if x.startswith("statements: "))
    assert "3 searched, 0 with a counterexample; 0 violated, 0 hold, 3 inconclusive" in line, line


@pytest.mark.slow
def test_a_file_summary_counts_statements_as_the_json_summary_does(tmp_path):
    import re
    f = tmp_path / "two.lean"
    f.write_text("import Pyfed\n"
                 "theorem Diag : ∀ (a b : ℝ), 2 * a * b + 1 / 1000 ≤ a ^ 2 + b ^ 2 := by sorry\n"
                 "theorem Young : ∀ (a b : ℝ), 2 * a * b ≤ a ^ 2 + b ^ 2 := by sorry\n", encoding="utf-8")
    rep = tmp_path / "r.json"
    code, out, err = run_cli(["check", str(f), "--quick", "--json", str(rep)])
    assert code == 1, err
    statements = json.loads(rep.read_text(encoding="utf-8"))["summary"]["statements"]
    # Young's 2ab ≤ a² + b² holds (decided symbolically); the other is violated
    assert statements == {"violated": 1, "holds": 1, "holds_by_kind": {"identity": 1}, "inconclusive": 0, "total": 2}
    line = next(x for x in out.splitlines() if x.startswith("2 statement(s) from"))
    assert re.search(r": 1 violated, 1 hold \(1 decided symbolically\), 0 inconclusive; rows: ", line), line


# ---------------------------------------------------------------- -k PATTERN, report outputs

def test_theorem_filter_reads_like_pytest_k():
    from pyfed.commands.check import theorem_filter
    from pyfed.errors import InputError

    sel = theorem_filter("young and not (relaxed or Half)")
    assert sel("YoungInner") and not sel("YoungHalf") and not sel("YoungRelaxed") and not sel("Convex")
    assert theorem_filter("Convex or Young")("SCAFFOLD.YoungInner")
    assert theorem_filter("scaffold")("X", "SCAFFOLD.X")             # the qualified name counts too
    for bad in ("", "and", "(Young", "Young)", "not"):
        with pytest.raises(InputError) as info:
            theorem_filter(bad)
        assert info.value.argument == "-k"


def test_k_selects_the_theorems_of_a_file(tmp_path, capsys):
    from pyfed.cli import main

    young = (EXAMPLES / "young_small_constant.lean").read_text(encoding="utf-8")
    extra = young.replace("theorem YoungHalfConstant", "theorem YoungFull").replace("a / 2 * ‖u‖", "a * ‖u‖")
    f = tmp_path / "two.lean"
    f.write_text(young.replace("end SCAFFOLD.Examples", extra.split("namespace SCAFFOLD.Examples", 1)[1]
                               .split("end SCAFFOLD.Examples")[0] + "end SCAFFOLD.Examples"), encoding="utf-8")
    assert main(["check", str(f), "--quick", "--no-profile", "-k", "full"]) == 0     # the false one is left out
    out = capsys.readouterr().out
    assert "YoungFull" in out and "YoungHalfConstant" not in out and "1 statement(s)" in out
    assert main(["check", str(f), "--quick", "-k", "nothing"]) == 2
    err = capsys.readouterr().err
    assert "-k: no theorem matches 'nothing'" in err and "YoungFull" in err


def test_reports_to_standard_output_and_one_path_twice(tmp_path, capsys):
    import json

    from pyfed.cli import main

    young = str(EXAMPLES / "young_small_constant.lean")
    assert main(["check", young, "--quick", "--json", "-"]) == 1
    cap = capsys.readouterr()
    assert json.loads(cap.out)["summary"]["statements"]["violated"] == 1      # stdout is the JSON alone
    assert "YoungHalfConstant" in cap.err                                     # the tables went to stderr
    assert not (Path.cwd() / "-").exists()
    x = str(tmp_path / "x")
    assert main(["check", young, "--quick", "--out", x, "--json", x]) == 2
    assert "--json:" in capsys.readouterr().err and not Path(x).exists()     # refused before the run


def test_a_report_that_cannot_be_written_after_the_run_is_saved_not_lost(tmp_path, capsys, monkeypatch):
    import json
    import os

    from pyfed.cli import main

    target = tmp_path / "r.json"

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", full_disk)
    code = main(["check", str(EXAMPLES / "young_small_constant.lean"), "--quick", "--json", str(target)])
    cap = capsys.readouterr()
    assert code == 2 and "YoungHalfConstant" in cap.out                  # the tables are still printed
    line = next(x for x in cap.err.splitlines() if x.startswith("pyfed: error: --json:"))
    saved = line.rsplit("the report was saved to ", 1)[1]
    assert json.loads(open(saved, encoding="utf-8").read())["summary"]["statements"]["violated"] == 1
    assert not target.exists()
    os.remove(saved)



HOLDS = Path(__file__).parent / "data" / "holds"


@pytest.mark.slow
def test_a_statement_that_holds_says_so_with_its_proof_in_the_text_and_the_json(tmp_path, capsys):
    rep = tmp_path / "r.json"
    assert main(["check", str(HOLDS / "true_am_gm.lean"), "--quick", "--budget", "1", "--json", str(rep)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "AmGm: holds (decided symbolically) — the conclusion follows from the hypotheses" in out
    assert "0 violated, 1 hold (1 decided symbolically), 0 inconclusive" in out
    doc = json.loads(rep.read_text(encoding="utf-8"))
    (entry,) = doc["statements"]
    assert entry["status"] == "holds" and entry["holds"]["kind"] == "identity"
    assert entry["holds"]["steps"][0]["certificate"]["identity"] == "a**2/2 - a*b + b**2/2 = 1/2·(b - a)²"
    assert doc["summary"]["statements"] == {"holds": 1, "holds_by_kind": {"identity": 1}, "inconclusive": 0,
                                            "total": 1, "violated": 0}


@pytest.mark.slow
def test_out_writes_the_certificates_of_a_pep_proof_each_stating_its_instance(tmp_path, capsys):
    from pyfed.lean.certificates import check_certificate_text
    out = tmp_path / "out"
    assert main(["check", str(HOLDS / "true_nonexpansive_shorter_step.lean"), "--quick", "--budget", "1",
                 "--no-profile", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "holds (PEP certificate over the region)" in text
    leans = sorted(out.glob("Certificate_NonexpansiveShorterStep_*.lean"))
    assert len(leans) == 2
    for p in leans:
        body = p.read_text(encoding="utf-8")
        assert "theorem instance_statement :" in body and "β = (1 : ℝ) →" in body
        assert check_certificate_text(body)["check"]
    corrupted = leans[1].read_text(encoding="utf-8").replace("(2 : ℚ))", "(3 : ℚ))", 1)
    assert not check_certificate_text(corrupted)["check"]
