"""What the reports of ``pyfed check`` print: verdict labels (certified vs numerical holds), the
digits of Monte Carlo estimates, user text kept verbatim through rich, several Lean files in one
run, table width off a terminal, parameter lines."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import pytest
from rich.console import Console

from pyfed.commands.render import render_profile, render_verdicts
from pyfed.verdicts import Holds, Inconclusive, Violated

from cli_helpers import run_cli

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "statements"


_run = run_cli


@pytest.fixture(scope="module")
def no_noise(no_noise_export):
    """One quick run on examples/statements/convex_no_noise.lean copied to a[red]b/[bold]no_noise.lean
    (rich markup in a path: must be printed, not eaten), its JSON report r[x].json: exact, Monte
    Carlo, search and PEP rows (≈ 4 s; the session's shared run, which also writes --out)."""
    code, out, _, _, rep, _ = no_noise_export
    return code, out, json.loads(rep.read_text())


# ---------------------------------------------------------------- 1. honest labels

def test_labels_of_hand_made_verdicts():
    est = {"mean": 1.0, "lower": 0.9, "upper": 1.1, "confidence": 0.999, "replicates": 64}
    exact = Holds("S", Fraction(1), Fraction(2), True)
    mc = Holds("S", 1.0, Fraction(2), False, {"estimate": est})
    assert (exact.certified, exact.label) == (True, "holds")
    assert (mc.certified, mc.label, mc.status) == (False, "holds (numerical)", "holds")
    assert Violated("S", Fraction(3), Fraction(2), True).label == "violated"
    assert Violated("S", 3.0, Fraction(2), False, {"estimate": est}).label == "violated (statistical)"
    assert Violated("S", 3.0, 2.0, False).label == "violated (numerical)"
    inc = Inconclusive("S", Fraction(1), Fraction(1), True, reason="x")
    assert (inc.certified, inc.label) == (False, "inconclusive")
    j = mc.to_json()
    assert (j["status"], j["certified"], j["label"]) == ("holds", False, "holds (numerical)")


@pytest.mark.slow
def test_monte_carlo_row_is_numerical_exact_and_pep_rows_certified(no_noise):
    code, out, report = no_noise
    assert code == 1
    rows = {v["details"]["instance"].split(" ")[0]: v for v in report["verdicts"]}
    assert rows["quadratic-rational-N8-d4"]["certified"] is True
    assert rows["quadratic-rational-N8-d4"]["label"] == "holds"
    mc = rows["logistic-breast_cancer-dirichlet0.5"]
    assert (mc["status"], mc["certified"], mc["label"]) == ("holds", False, "holds (numerical)")
    pep = rows["PEP"]
    assert (pep["status"], pep["certified"], pep["label"]) == ("holds", True, "holds")   # exact PEP certificate
    assert pep["evidence"] == "PEP certificate over the class" and pep["details"]["pep_certificate"]["verified"]
    search = rows["adversarial"]
    assert (search["status"], search["certified"], search["label"]) == ("violated", True, "violated")
    assert out.count("holds (numerical)") == 1
    assert "3 holds (2 certified, 1 numerical: 1 Monte Carlo), 1 violated, 0 inconclusive" in " ".join(out.split())


# ---------------------------------------------------------------- 2. Monte Carlo digits

@pytest.mark.parametrize("mean, half, shown", [
    (0.511315, 0.000152, "0.5113 ± 0.00016"),       # w up to 2 digits; m to w's leading digit (1e-4)
    (0.511315, 0.00015, "0.5113 ± 0.00015"),        # already 2 digits: unchanged
    (0.51135, 0.0000996, "0.5114 ± 0.00010"),       # w rounds up to 1.0e-4: m to 1e-4, half-even
    (0.51125, 0.0000996, "0.5112 ± 0.00010"),       # tie at 1e-4 goes to the even digit
    (12345.678, 37.2, "12350 ± 38"),
    (-0.25, 0.0123, "-0.25 ± 0.013"),
    (1.96, 0.95, "2.0 ± 0.95"),
    (0.003, 0.05, "0.00 ± 0.050"),
    (2.4123e-05, 1.52e-06, "(2.4 ± 0.16)e-05"),     # outside [1e-4, 1e6): one shared power of ten
    (123456789.0, 12345.0, "(1.2346 ± 0.00013)e+08"),
])
def test_format_estimate_prints_only_the_digits_the_interval_supports(mean, half, shown):
    from pyfed.exact import format_estimate
    assert format_estimate(mean, half) == shown


def test_format_estimate_zero_width_and_verdict_str():
    from pyfed.exact import format_estimate
    assert format_estimate(1.0, 0.0) == "1 ± 0"
    est = {"mean": 0.511315, "lower": 0.511315 - 0.000152, "upper": 0.511315 + 0.000152,
           "confidence": 0.999, "replicates": 64}
    v = Holds("S", 0.511315, Fraction(123), False, {"estimate": est})
    assert "lhs=0.5113 ± 0.00016 " in str(v) and "0.511315" not in str(v)


@pytest.mark.slow
def test_the_table_prints_the_monte_carlo_left_side_with_its_meaningful_digits(no_noise):
    _code, out, report = no_noise
    mc = next(v for v in report["verdicts"] if v["details"]["instance"].startswith("logistic"))
    est = mc["details"]["estimate"]
    from pyfed.exact import format_estimate
    shown = format_estimate(est["mean"], est["upper"] - est["mean"])
    assert shown in out and f"{est['mean']:.6g} ±" not in out


# ---------------------------------------------------------------- 3. user text is not markup

@pytest.mark.slow
def test_brackets_in_paths_are_printed_verbatim(no_noise):
    _code, out, report = no_noise
    flat = " ".join(out.split())
    assert "a[red]b/[bold]no_noise.lean:19" in flat               # table title: the statement's source
    assert "a[red]b/[bold]no_noise.lean: 1 violated, 0 hold, 0 inconclusive; rows: 3 holds" in flat   # summary
    assert "r[x].json" in flat                                     # "JSON report written to ..."
    assert all(v["source"].endswith("a[red]b/[bold]no_noise.lean:19") for v in report["verdicts"])


def test_brackets_in_names_reasons_and_hypotheses_survive_the_tables():
    import rich.console
    from pyfed.commands.render import render_statement_verdicts, render_verdicts
    v = Inconclusive("Foo", Fraction(1), Fraction(2), False,
                     {"instance": "inst[bold]1", "source": "dir[x]/f.lean:3", "parameters": {"w": "[1, 2]"},
                      "hypotheses": [{"statement": "h[i] <= 1", "holds": False}]}, reason="because [red]x[/red]")
    buf = io.StringIO()
    con = rich.console.Console(file=buf, width=200)
    render_verdicts(con, [v], "pyfed check [y].lean")
    render_statement_verdicts(con, [("Name[z]", v)])
    out = " ".join(buf.getvalue().split())
    for text in ("pyfed check [y].lean: Foo (dir[x]/f.lean:3)", "inst[bold]1", "FAIL: h[i] <= 1", "w=[1, 2]",
                 "because [red]x[/red]", "Name[z]"):
        assert text in out, text


# ---------------------------------------------------------------- 4. several Lean files

@pytest.mark.slow
def test_two_lean_files_one_report_exit_1_if_any_is_violated(tmp_path):
    rep = tmp_path / "r.json"
    a, b = str(EXAMPLES / "seed_convex.lean"), str(EXAMPLES / "convex_no_noise.lean")
    code, out, _ = _run(["check", a, b, "--quick", "--no-profile", "--budget", "1", "--json", str(rep)])
    assert code == 1                                       # the second file's search is violated
    report = json.loads(rep.read_text())
    assert report["files"] == [a, b]
    by = {}
    for v in report["verdicts"]:
        by.setdefault(v["statement"], set()).add(v["source"])
    assert by == {"SeedConvex": {f"{a}:17"}, "ConvexWithoutNoiseTerm": {f"{b}:19"}}
    assert [v["status"] for v in report["verdicts"] if v["statement"] == "SeedConvex"].count("violated") == 0
    flat = " ".join(out.split())
    assert f"1 statement(s) from {a}:" in flat and f"1 statement(s) from {b}:" in flat
    assert "all 2 files, 2 statement(s):" in flat and ", 1 violated," in flat.split("all 2 files")[1]


def _stub_check(calls):
    """A check_statement that records which statements it was given and decides nothing."""
    from types import SimpleNamespace

    from pyfed.check import StatementReport

    def check_statement(st, **kw):
        calls.append(st.name)
        return StatementReport(st, [Holds(st.name, Fraction(1), Fraction(2), True, {"instance": "stub"})],
                               search=SimpleNamespace(verdict=Holds(st.name)))
    return check_statement


def test_a_bad_second_file_exits_2_before_any_computation(tmp_path, monkeypatch):
    import pyfed.check
    calls = []
    monkeypatch.setattr(pyfed.check, "check_statement", _stub_check(calls))
    bad = tmp_path / "bad.lean"
    bad.write_text("import Pyfed\n\ntheorem Broken : (1 : ℕ) ≤ := by sorry\n", encoding="utf-8")
    code, _out, err = _run(["check", str(EXAMPLES / "seed_convex.lean"), str(bad), "--quick"])
    assert code == 2 and "bad.lean" in err and calls == []
    code, _out, err = _run(["check", str(EXAMPLES / "seed_convex.lean"), str(tmp_path / "missing.lean")])
    assert code == 2 and "missing.lean" in err and calls == []


def test_theorem_applies_to_every_file(tmp_path, monkeypatch):
    import pyfed.check
    calls = []
    monkeypatch.setattr(pyfed.check, "check_statement", _stub_check(calls))
    files = [str(EXAMPLES / n) for n in ("seed_convex.lean", "convex_no_noise.lean", "convex_last_iterate.lean")]
    code, out, _ = _run(["check", *files, "--theorem", "ConvexWithoutNoiseTerm", "--no-profile"])
    assert code == 0 and calls == ["ConvexWithoutNoiseTerm"]
    assert "no theorem ConvexWithoutNoiseTerm (nothing to check)" in " ".join(out.split())
    code, _out, err = _run(["check", *files, "--theorem", "Nope"])
    assert code == 2 and "--theorem" in err and "Nope" in err and calls == ["ConvexWithoutNoiseTerm"]


# ---------------------------------------------------------------- 5. width off a terminal

def test_pipe_width_is_wide_unless_columns_is_set(monkeypatch):
    from pyfed.commands import PIPE_WIDTH, make_console
    assert make_console().width == PIPE_WIDTH == 140          # conftest unsets COLUMNS; stdout is captured
    monkeypatch.setenv("COLUMNS", "100")
    assert make_console().width == 100
    monkeypatch.setenv("COLUMNS", "junk")
    assert make_console().width == PIPE_WIDTH


@pytest.mark.slow
def test_piped_report_keeps_names_numbers_and_parameter_lines_whole(no_noise):
    _code, out, _report = no_noise
    lines = out.splitlines()
    table = [ln for ln in lines if ln.startswith(("┃", "│", "┏", "└"))]
    assert table and all(len(ln) <= 140 for ln in table)
    assert any("│ logistic-breast_cancer-dirichlet0.5 " in ln for ln in table)   # not folded mid-word
    assert any(" ± " in ln for ln in table)                                  # the Monte Carlo row
    # free text is one physical line each (no newline inserted into a pipe)
    params = [ln for ln in lines if ln.startswith("  logistic-breast_cancer-dirichlet0.5: N=10")]
    assert len(params) == 1 and params[0].rstrip().endswith("controls=given c0 = grad f_i(x0)")


# ---------------------------------------------------------------- 6. parameter lines

@pytest.mark.parametrize("value, shown", [
    ("5.493258883212322", "5.49326"), (2.2092572915200575, "2.20926"), ("1e-06", "1e-06"), ("0.05", "0.05"),
    ("24659/6250000", "24659/6250000"), (Fraction(24659, 6250000), "24659/6250000"), ("8", "8"), (8, "8"),
    ("minibatch", "minibatch"), ("given c0 = grad f_i(x0)", "given c0 = grad f_i(x0)"),
])
def test_format_parameter_shortens_floats_and_keeps_rationals_exact(value, shown):
    from pyfed.exact import format_parameter
    assert format_parameter(value) == shown


@pytest.mark.slow
def test_parameter_lines_print_six_digit_floats(no_noise):
    _code, out, report = no_noise
    mc = next(v for v in report["verdicts"] if v["details"]["instance"].startswith("logistic"))
    beta = mc["details"]["parameters"]["beta"]
    assert len(beta) > 10                              # the JSON report keeps every digit of the float
    line = next(ln for ln in out.splitlines() if ln.startswith("  logistic-breast_cancer-dirichlet0.5: N=10"))
    assert f"beta={float(beta):.6g}," in line and beta not in line
    eta_l = mc["details"]["parameters"]["eta_l"]
    assert "/" in eta_l and f"eta_l={eta_l}," in line     # exact rationals stay exact


def test_a_search_that_drew_no_instance_shows_none_met_and_our_statements_their_source():
    from rich.console import Console

    from pyfed.commands.render import render_verdicts

    buf = io.StringIO()
    console = Console(file=buf, width=200)
    drew_none = Inconclusive("T.Odd", None, None, False, {"instance": "adversarial search", "decided": 0},
                             reason="no instance could be drawn")
    drew_some = Inconclusive("T.Odd", None, None, False, {"instance": "adversarial search", "decided": 3},
                             reason="no counterexample")
    ours = Inconclusive("ConvexFiniteRoundConvergence", None, None, False,
                        {"instance": "x", "source": "lean/Pyfed/Scaffold/Theorems.lean:31"}, reason="r")
    render_verdicts(console, [drew_none, drew_some, ours], "pyfed check")
    text = buf.getvalue()
    lines = text.splitlines()
    assert any("none met" in ln for ln in lines) and any("all met" in ln for ln in lines)
    title = " ".join(text.split())     # the title may wrap
    assert "pyfed check: SCAFFOLD.ConvexFiniteRoundConvergence (lean/Pyfed/Scaffold/Theorems.lean:31)" in title


def _text(con) -> str:
    return " ".join(con.export_text().split())


@pytest.mark.slow
def test_render_says_no_value_excludes_persistent_violations(no_noise_profile):
    _, prof = no_noise_profile
    con = Console(record=True, width=300)
    render_profile(con, prof)
    text = _text(con)
    assert "no value excludes the violations drawn (they persist at smaller steps)" in text
    assert "> 81" not in text


def test_verdict_table_prints_a_dash_for_a_ratio_without_digits():
    from pyfed.verdicts import Inconclusive
    est = {"mean": 0.3, "upper": 41.3, "confidence": 0.999, "replicates": 2}
    v = Inconclusive("T", 0.3, Fraction(3, 2), False, {"instance": "mc", "estimate": est, "hypotheses": []},
                     reason="interval contains the right side")
    w = Inconclusive("T", 0.51, Fraction(1), False,
                     {"instance": "mc2", "estimate": {**est, "mean": 0.51, "upper": 0.75}, "hypotheses": []},
                     reason="r")
    con = Console(record=True, width=250)
    render_verdicts(con, [v, w], "t")
    rows = [line for line in con.export_text().splitlines() if "± " in line]
    cells = [[c.strip() for c in line.split("│")] for line in rows]
    assert [(c[3], c[5]) for c in cells] == [("0 ± 41", "-"), ("0.5 ± 0.24", "0.5")]


def test_a_search_with_an_undecidable_conclusion_does_not_say_no_hypothesis_was_met():
    def table(details):
        console = Console(file=io.StringIO(), width=200)
        render_verdicts(console, [Inconclusive("T5", details=details, reason="nothing decided")], "t")
        return console.file.getvalue()

    base = {"instance": "adversarial search (0 exactly decided instances)", "decided": 0, "candidates": 108}
    assert "met on 72 of 108" in table(dict(base, in_hypotheses=72))
    out = table(dict(base, in_hypotheses=0))
    assert "none met" in out and "met on" not in out


def test_a_pep_violation_reverified_exactly_is_not_called_numerical():
    from pyfed.commands.render import evidence
    d = {"instance": "PEP worst case", "solver_tol": 1e-6, "reverification": {"reproduced": True, "dimension": 8}}
    v = Violated("S", Fraction(3), Fraction(2), True, d, witness={"instance": {}})
    assert evidence(v) == "PEP worst case, re-verified in exact rationals"
    # not reproduced: still the numerical SDP
    d2 = dict(d, reverification={"reproduced": False})
    assert evidence(Inconclusive("S", details=d2)) == "PEP SDP, numerical (tol 1e-06)"


def test_a_violated_row_prints_its_sides_apart():
    """3651.0721049… > 3651.0720564…: six digits print both as 3651.07 and the ratio as 1, so a
    violated row gets the digits it takes to tell them apart; a row that holds keeps six."""
    from fractions import Fraction

    from pyfed.commands.render import _apart
    lhs, rhs = Fraction(36510721049452, 10**10), Fraction(36510720564031, 10**10)
    assert _apart(lhs, rhs, lhs / rhs, False) == ("3651.07", "3651.07", "1")
    a, b, r = _apart(lhs, rhs, lhs / rhs, True)
    # 10 digits part the sides (3651.072105 vs 3651.072056) but the ratio, at 8, still reads 1: 14
    assert (a, b, r) == ("3651.0721049452", "3651.0720564031", "1.0000000133")
    assert _apart(Fraction(2), Fraction(1), Fraction(2), True) == ("2", "1", "2")
