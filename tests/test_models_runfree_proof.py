"""The scalar reading of a run-free statement (pyfed.models.runfree.proof): names by first
occurrence, so two statements with other names share their atoms; closed statements."""

from __future__ import annotations

from pyfed.models.registry import read_text
from pyfed.models.runfree.proof import closed_proof, proof_form

HEAD = "import Pyfed\nopen SCAFFOLD\n"


def test_renamed_statements_share_their_atoms():
    a = read_text(HEAD + "theorem A {d : ℕ} (u v : Space d) : inner ℝ u v ≤ ‖u‖ ^ 2 + ‖v‖ ^ 2 := by sorry\n")[0]
    b = read_text(HEAD + "theorem B {d : ℕ} (x y : Space d) : inner ℝ x y ≤ ‖x‖ ^ 2 + ‖y‖ ^ 2 := by sorry\n")[0]
    fa, fb = proof_form(a), proof_form(b)
    assert fa.lhs == fb.lhs and fa.rhs == fb.rhs
    assert fa.display[next(iter(fa.lhs.free_symbols))] == "inner ℝ u v"


def test_a_closed_statement_is_decided_exactly_and_a_false_one_is_not_proven():
    (st,) = read_text(HEAD + "theorem C : (2 : ℝ) ^ 3 ^ 2 = 512 := by sorry\n")
    p = closed_proof(st)
    assert p.kind == "closed" and "512 = right side 512" in p.summary
    (st,) = read_text(HEAD + "theorem D : (2 : ℝ) ^ 3 ^ 2 = 64 := by sorry\n")
    assert closed_proof(st) is None
