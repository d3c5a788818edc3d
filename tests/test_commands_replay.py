"""``pyfed check --replay`` (pyfed.commands.replay): a search record without its Lean file names the
command that reproduces it; a FedAvg counterexample whose sides were decided in certified balls
replays, unedited, with the same certified bounds."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from cli_helpers import run_main
from pyfed.cli import main

#: Eq. (15) of the Field Guide without its heterogeneity term 18 τ² η² L ζ² (false: the sqrt family
#: started at the optimum makes every remaining term 0 while the clients drift apart).
NO_ZETA = """import Pyfed

open MeasureTheory

namespace FedAvg.Trial

universe u

noncomputable def noZetaRHS {d M : ℕ} (P : Problem d M) (τ T : ℕ) (η : ℝ) : ℝ :=
  distance P ^ 2 / (2 * η * (τ : ℝ) * (T : ℝ)) + η * P.σ ^ 2 / (M : ℝ) +
    4 * (τ : ℝ) * η ^ 2 * P.L * P.σ ^ 2

theorem ConvexFedAvgNoZeta :
  ∀ (d M : ℕ) (P : Problem d M) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (μ : Measure Ω) [IsProbabilityMeasure μ]
    (τ T : ℕ) (η : ℝ),
    0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →
    ∀ R : Run P μ τ T η, (∫ ω, avgLoss R ω ∂μ) ≤ noZetaRHS P τ T η := by sorry

end FedAvg.Trial
"""


@pytest.mark.slow
def test_a_ball_witness_is_labelled_as_such_written_in_lean_and_replays(tmp_path, capsys):
    path = tmp_path / "no_zeta.lean"
    path.write_text(NO_ZETA, encoding="utf-8")
    out = tmp_path / "ce"
    assert main(["check", str(path), "--quick", "--no-profile", "--out", str(out)]) == 1
    text = " ".join(capsys.readouterr().out.split())
    assert "(certified ball enclosures; the JSON report has their bounds)" in text
    assert "(exact; the JSON report has every digit)" not in text
    (jpath,) = out.glob("*.json")
    raw = jpath.read_text(encoding="utf-8")
    rec = json.loads(raw)
    # no rounded value called exact: the left side is an enclosure by exact rational bounds
    assert rec["exact"] is False and rec["lhs"]["exact"] is None and rec["margin"]["exact"] is None
    lo, hi = Fraction(rec["lhs"]["lower"]), Fraction(rec["lhs"]["upper"])
    assert Fraction(266083317519389, 10 ** 17) < lo < hi < Fraction(266083317519390, 10 ** 17)
    assert "10^18" not in raw and "1000000000000000000" not in raw
    # the Lean file states the certified lower bound of the left side above the exact right side
    lean = jpath.with_suffix(".lean").read_text(encoding="utf-8")
    assert "certified lower bound" in lean
    assert f"#guard (0/1 : ℚ) < ({lo.numerator}/{lo.denominator} : ℚ)" in lean
    # the unedited record replays: violated again, the same certified bounds, exit 1
    assert main(["check", "--replay", str(jpath)]) == 1
    text = " ".join(capsys.readouterr().out.split())
    assert "verdict: violated" in text and "certified ball" in text
    assert "both sides' certified bounds equal the recorded ones exactly" in text and "differ" not in text
    # an edited bound is noticed
    rec["lhs"]["lower"] = str(lo - 1)
    jpath.write_text(json.dumps(rec), encoding="utf-8")
    assert main(["check", "--replay", str(jpath)]) == 1
    assert "certified bounds differ from the recorded ones" in " ".join(capsys.readouterr().out.split())


def test_replay_of_a_search_record_names_the_command_that_reproduces_it(tmp_path, capsys):
    rec = {"statement": "ConvexFiniteRoundConvergence", "lean_declaration": "SCAFFOLD.ConvexFiniteRoundConvergence",
           "seed": 3, "budget": 16, "relax": ["step_size"], "mutate": None, "instance": {}, "index": 0}
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    code, out, err = run_main(["check", "--replay", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "a record of `pyfed search ConvexFiniteRoundConvergence`" in err
    assert "`pyfed search ConvexFiniteRoundConvergence --seed 3 --budget 16 --relax step_size --out DIR`" in err
    assert "give PATH.lean" not in err


def test_long_or_irrational_sides_are_shown_with_their_certified_decimal_first():
    import sympy
    from fractions import Fraction
    from pyfed.commands.replay import _full
    assert _full(Fraction(3, 4)) == "3/4"
    big = Fraction(10 ** 60 + 1, 3 * 10 ** 63)
    assert _full(big) == f"0.000333333333333 (exactly {big.numerator}/{big.denominator})"
    assert _full(sympy.Rational(3, 4) - sympy.log(4)) == "-0.636294361120 (exactly 3/4 - log(4))"


# ---------------------------------------------------------------- paths and options

def _young_record(tmp_path, capsys):
    from pathlib import Path
    src = Path(__file__).resolve().parents[1] / "examples" / "statements" / "young_small_constant.lean"
    work = tmp_path / "work"
    work.mkdir()
    (work / "young.lean").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["check", str(work / "young.lean"), "--quick", "--no-profile", "--out", str(work / "ce")]) == 1
    capsys.readouterr()
    return work, work / "ce" / "YoungHalfConstant-s0-c0.json"


def test_the_record_names_its_statement_file_relative_to_itself(tmp_path, capsys, monkeypatch):
    work, record = _young_record(tmp_path, capsys)
    assert json.loads(record.read_text())["file"]["path"] == "../young.lean"
    moved = tmp_path / "elsewhere"
    work.rename(moved)                                # record and statement moved together
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--replay", str(moved / "ce" / record.name), "--json", str(tmp_path / "r.json")]) == 1
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["schema"] == "pyfed-replay/1" and doc["verdict"]["status"] == "violated"
    assert (doc["verdict"]["lhs"], doc["verdict"]["rhs"], doc["sides_equal_recorded"]) == ("2", "3/2", True)


@pytest.mark.parametrize("option", [["--seed", "3"], ["--quick"], ["--theorem", "X"], ["--out", "d"],
                                    ["--budget", "2"], ["-k", "Young"], ["--html", "r.html"]])
def test_every_option_a_replay_does_not_take_is_refused(tmp_path, capsys, option):
    record = tmp_path / "any.json"            # refused before the record is read (they used to be ignored)
    code, out, err = run_main(["check", "--replay", str(record)] + option, capsys)
    assert code == 2 and err.startswith(f"pyfed: error: {option[0]}: does not apply with --replay")


#: The five special cases of the search by optimisation (tests/data/search): false only on
#: non-quadratic functions, only at a global step above 100, only from a far start, only at N = 2,
#: only along a narrow direction of a vector family.
SPECIAL = [("scaffold.lean", "OneStepEighth"), ("scaffold.lean", "GlobalStepUnbounded"),
           ("fedavg.lean", "FedAvgDistanceNotSquared"), ("lemmas.lean", "SamplingVarianceThreeHalves"),
           ("lemmas.lean", "SumSquaresNarrow"), ("lemmas.lean", "BregmanSymmetrised")]


@pytest.mark.slow
@pytest.mark.parametrize("file,theorem", SPECIAL)
def test_special_cases_are_caught_by_default_and_replay(file, theorem, tmp_path, capsys):
    from pathlib import Path
    data = Path(__file__).parent / "data" / "search" / file
    out = tmp_path / "out"
    code, _, _ = run_main(["check", str(data), "--theorem", theorem, "--no-profile", "--out", str(out)], capsys)
    assert code == 1
    records = sorted(out.glob("*.json"))
    assert records and sorted(out.glob("*.lean"))
    for rec in records:
        code, text, _ = run_main(["check", "--replay", str(rec)], capsys)
        assert code == 1 and "both sides equal the recorded ones exactly" in text


POINTS = """import Pyfed
open SCAFFOLD (Space)

/-- False: u + v = v - u only when u = 0; at u = (1, 0), v = 0 the sides are (1, 0) and (-1, 0). -/
theorem SumIsDifference {d : ℕ} (u v : Space d) : u + v = v - u := by sorry
"""


def test_a_false_identity_between_points_is_written_and_replayed_with_both_vectors(tmp_path, capsys):
    """Sides that are points, not numbers: --out writes the record (no Lean file: its sides are
    not rationals) with both exact vectors, exit 1; --replay re-decides it from the record and
    finds the same vectors."""
    path = tmp_path / "points.lean"
    path.write_text(POINTS, encoding="utf-8")
    out = tmp_path / "out"
    code, text, err = run_main(["check", str(path), "--quick", "--no-profile", "--out", str(out)], capsys)
    assert code == 1, err
    (rec_path,) = out.glob("*.json")
    assert not list(out.glob("*.lean"))
    rec = json.loads(rec_path.read_text(encoding="utf-8"))
    lhs, rhs = rec["lhs"]["vector"], rec["rhs"]["vector"]
    u = [Fraction(x) for x in rec["instance"]["u"]["vec"]]
    v = [Fraction(x) for x in rec["instance"]["v"]["vec"]]
    assert [Fraction(x) for x in lhs] == [a + b for a, b in zip(u, v)] != [Fraction(x) for x in rhs]
    assert [Fraction(x) for x in rhs] == [b - a for a, b in zip(u, v)] and rec["exact"]
    code, text, err = run_main(["check", "--replay", str(rec_path)], capsys)
    assert code == 1 and "both sides equal the recorded ones exactly" in text
