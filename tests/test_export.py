"""Counterexample files of a violated `=` statement (pyfed.export): the Lean witness states the
instance's two exact sides differ (`lhs ≠ rhs`), the console and replay say so consistently."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from cli_helpers import run_cli

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
    from pyfed.export import render_statement_counterexample
    rec = {"statement": "E", "seed": 0, "index": 0, "relation": "=", "shape": "lemma", "instance": {},
           "lhs": {"exact": None, "lower": "1", "upper": "2"}, "rhs": {"exact": "3"}}
    with pytest.raises(InputError, match="both sides exact"):
        render_statement_counterexample(rec)
