"""Lean artefacts of what holds (pyfed.engines.proof.lean): renaming, the lemma instance a
certificate proves, the proof skeleton of a reduction and of a published statement."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyfed.engines.proof.engine import prove_statement
from pyfed.engines.proof.lean import instance_statement, lean_number, proof_skeleton, rename, statement_parts
from pyfed.models.registry import published_proof_forms, read_file, read_text

DATA = Path(__file__).parent / "data" / "holds"


def test_rename_touches_identifiers_only():
    assert rename("ηl ≤ 1 / (81 * P.β) ∧ ηlx = 0", {"ηl": "a", "P": "Q"}) == "a ≤ 1 / (81 * Q.β) ∧ ηlx = 0"
    assert rename("x", {}) == "x"


def test_lean_numbers_are_exact():
    assert lean_number(3, "nat") == "3" and lean_number(2) == "(2 : ℝ)"
    from fractions import Fraction
    assert lean_number(Fraction(1, 162)) == "(1 / 162 : ℝ)"


def test_an_instance_statement_fixes_the_parameters_by_equalities():
    (st,) = read_text("import Pyfed\nopen SCAFFOLD\ntheorem Y {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :\n"
                      "    2 * |inner ℝ u v| ≤ a * ‖u‖ ^ 2 + a⁻¹ * ‖v‖ ^ 2 := by sorry\n")
    binders, names, body = statement_parts(st)
    assert binders == ["{d : ℕ}", "(u : Space d)", "(v : Space d)", "(a : ℝ)", "(ha : 0 < a)"]
    assert names == ["d", "u", "v", "a", "ha"] and body.startswith("2 * |inner")
    text = instance_statement(st, {"a": 2})
    assert text == ("theorem instance_statement :\n    ∀ {d : ℕ} (u : Space d) (v : Space d) (a : ℝ) (ha : 0 < a), "
                    "a = (2 : ℝ) → 2 * |inner ℝ u v| ≤ a * ‖u‖ ^ 2 + a⁻¹ * ‖v‖ ^ 2 := by sorry")
    # read back by pyfed's reader: the instance is a statement of the same lemma
    (back,) = read_text("import Pyfed\nopen SCAFFOLD\n" + text.replace("instance_statement", "Inst") + "\n")
    assert sorted(h.text for h in back.hypotheses) == ["0 < a", "a = (2 : ℝ)"]


@pytest.mark.slow
def test_the_skeleton_of_a_reduction_applies_the_published_theorem_with_named_haves():
    (st,) = read_file(DATA / "true_convex_stricter_step.lean")
    proof = prove_statement(st, forms=published_proof_forms()).proof
    text = proof_skeleton(st, proof)
    assert "theorem ConvexStricterStep_proof : ∀ (d : ℕ) (N : ℕ)" in text
    assert "intro d N P Ω _ _ ν _ S K T ηl ηg μ c0 xstar hyp1 hyp2 hyp3 hyp4 hyp5 hyp6 A" in text
    assert "have h_step_size : effectiveStep K ηl ηg ≤ 1 / (81 * P.β) := by" in text
    assert "81/100·(-100*K*P.β*ηg*ηl + 1) + 19/100·1" in text
    assert "have h_published := SCAFFOLD.ConvexFiniteRoundConvergence (d := d) (N := N)" in text
    assert "Sol_SCAFFOLD_ConvexFiniteRoundConvergence.lean" in text and text.count("sorry") >= 2


def test_the_skeleton_of_a_published_statement_is_the_published_proof_term():
    (st,) = read_file(DATA / "true_fedavg_drift_times_two.lean")
    text = (Path(__file__).parent.parent / "lean" / "PyfedPublished" / "FedAvg.lean").read_text(encoding="utf-8")
    sts = [s for s in read_text(text.replace("import Pyfed.FedAvg.Model", "import Pyfed")) if s.name == "BoundedClientDrift"]
    proof = prove_statement(sts[0], forms=published_proof_forms()).proof
    out = proof_skeleton(sts[0], proof)
    assert proof.kind == "published" and out.rstrip().endswith("FedAvg.BoundedClientDrift\n\nend FedAvg")
