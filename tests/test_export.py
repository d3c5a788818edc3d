"""Counterexample records (pyfed.export): sides decided in certified balls are written as exact
rational bounds, never as a rounded value called exact; a violated `=` statement's Lean witness
states that the instance's exact sides differ (`lhs ≠ rhs`), and the console and replay say so."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from flint import arb

from cli_helpers import run_cli
from pyfed.exact import precision
from pyfed.export import ball_side_json


def test_a_ball_side_is_its_certified_rational_bounds():
    with precision(128):
        third = arb(1) / 3
    side = ball_side_json(third)
    assert side["exact"] is None and set(side) == {"exact", "lower", "upper"}
    lo, hi = Fraction(side["lower"]), Fraction(side["upper"])
    assert lo < Fraction(1, 3) < hi and hi - lo < Fraction(1, 2 ** 120)
    assert "." not in side["lower"] + side["upper"]


def test_a_ball_of_radius_zero_is_its_exact_value():
    assert ball_side_json(arb(0)) == {"exact": "0"}
    assert ball_side_json(arb(3) / 8) == {"exact": "3/8"}
    assert ball_side_json(arb(-5) * 2 ** 70) == {"exact": str(-5 * 2 ** 70)}


EQ = "import Pyfed\n\ntheorem EqFalse (a : ℝ) (ha : 1 ≤ a) : a * a + 1 = a + 7 := by sorry\n"


@pytest.fixture
def eq_export(tmp_path):
    src = tmp_path / "eq.lean"
    src.write_text(EQ, encoding="utf-8")
    out = tmp_path / "ce"
    code, stdout, err = run_cli(["check", str(src), "--quick", "--no-profile", "--out", str(out)])
    assert code == 1, err
    (jpath,) = out.glob("*.json")
    return jpath, stdout


def test_equality_witness_is_a_disequality_of_the_exact_sides(eq_export):
    jpath, stdout = eq_export
    rec = json.loads(jpath.read_text(encoding="utf-8"))
    a = Fraction(rec["instance"]["a"])
    lhs, rhs = Fraction(rec["lhs"]["exact"]), Fraction(rec["rhs"]["exact"])
    assert (lhs, rhs) == (a * a + 1, a + 7) and lhs != rhs          # the statement's sides, by hand
    assert rec["relation"] == "="
    lean = jpath.with_suffix(".lean").read_text(encoding="utf-8")
    assert f"def lhs : ℚ := {lhs}" in lean and f"def rhs : ℚ := {rhs}" in lean    # integers at this instance
    assert "example : lhs ≠ rhs := by norm_num [lhs, rhs]" in lean and "#guard lhs ≠ rhs" in lean
    assert "rhs ≤ lhs" not in lean and "rhs < lhs" not in lean and "strict" not in lean
    assert f"left side {lhs} ≠ right side {rhs}" in stdout and ">" not in stdout.split("counterexample (")[1].split("\n")[0]


def test_equality_replay_margin_line_says_what_equality_needs(eq_export):
    jpath, _ = eq_export
    rec = json.loads(jpath.read_text(encoding="utf-8"))
    margin = Fraction(rec["rhs"]["exact"]) - Fraction(rec["lhs"]["exact"])
    code, out, err = run_cli(["check", "--replay", str(jpath)])
    assert code == 1
    assert f"margin rhs - lhs = {margin} (= needs the margin = 0)" in out
    assert "≥ 0" not in out


def test_inexact_equality_sides_are_refused():
    from pyfed.errors import InputError
    from pyfed.models.registry import model_by_tag
    rec = {"statement": "E", "seed": 0, "index": 0, "relation": "=", "shape": "lemma", "instance": {},
           "lhs": {"exact": None, "lower": "1", "upper": "2"}, "rhs": {"exact": "3"}}
    with pytest.raises(InputError, match="both sides exact"):
        model_by_tag(rec.get("shape", "scaffold_run")).render_counterexample(rec)


BIGSTEP = __import__("pathlib").Path(__file__).resolve().parent / "data" / "statements" / "scaffold_bigstep.lean"


@pytest.mark.slow
def test_a_reverified_pep_violation_gets_a_counterexample_file_that_replays(tmp_path):
    # h ≤ 3/β (gradient descent diverges beyond 2/β): the PEP row is violated, re-verified exactly
    from pyfed.models.scaffold.pep import pep_row
    from pyfed.export import is_reverified_pep_violation, pep_counterexample_record, write_statement_counterexample
    from pyfed import read_file

    (st,) = read_file(BIGSTEP)
    v = pep_row(st)
    assert v.status == "violated" and is_reverified_pep_violation(v)
    rec = pep_counterexample_record(st, v, seed=0, budget=8)
    assert rec["index"] == "pep" and rec["exact"]
    lhs, rhs = Fraction(rec["lhs"]["exact"]), Fraction(rec["rhs"]["exact"])
    assert (lhs, rhs) == (v.lhs, v.rhs) and lhs > rhs and Fraction(rec["margin"]["exact"]) == rhs - lhs
    paths = write_statement_counterexample(rec, str(tmp_path), statement=st)
    assert [p.rsplit(".", 1)[1] for p in paths] == ["json", "lean"]
    assert "rhs < lhs" in open(paths[1], encoding="utf-8").read()
    code, out, _ = run_cli(["check", "--replay", paths[0]])
    assert code == 1 and "verdict: violated" in out and "equal the recorded ones exactly" in out


@pytest.mark.slow
def test_a_fedavg_counterexample_names_its_clients_and_sits_in_the_scaffold_files_namespace(tmp_path):
    from pyfed.check import check_statement
    from pyfed import read_file
    (st,) = read_file(BIGSTEP.parent / "fedavg_nozeta.lean")        # the ζ term dropped: false
    rep = check_statement(st, quick=True, seed=0, budget=None, profile=False, out=str(tmp_path))
    jpath = next(p for p in rep.exports if p.endswith(".json"))
    lpath = next(p for p in rep.exports if p.endswith(".lean"))
    rec = json.loads(open(jpath, encoding="utf-8").read())
    fam = rec["instance"].get("family", "quadratic")
    assert rec["clients"].startswith(f"{fam} family: Fᵢ(x) = ")
    text = open(lpath, encoding="utf-8").read()
    ident = f"{rec['statement']}_s{rec['seed']}_c{rec['index']}"
    assert f"namespace PyfedCounterexample.{ident}\n" in text
    assert f"Clients: {rec['clients']}" in " ".join(text.split())
    assert "which hypotheses hold" not in text or "-- hypothesis:" in text
