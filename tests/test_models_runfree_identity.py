"""Identities and inequalities decided symbolically on the unrolled definitions
(pyfed.models.runfree.identity): every d when the terms depend on the Gram matrix alone, sizes up
to a stated bound unless the hypotheses fix them, equalities modulo the equality hypotheses."""

from __future__ import annotations

from pyfed.models.registry import read_text
from pyfed.models.runfree.identity import BOUND, identity_proof

HEAD = "import Pyfed\nopen SCAFFOLD\n"


def _st(body):
    (st,) = read_text(HEAD + body)
    return st


def test_a_vector_identity_holds_for_every_dimension():
    p = identity_proof(_st("theorem Par {d : ℕ} (u v : Space d) :\n"
                           "    ‖u + v‖ ^ 2 + ‖u - v‖ ^ 2 = 2 * ‖u‖ ^ 2 + 2 * ‖v‖ ^ 2 := by sorry\n"))
    assert p.complete and p.kind == "identity" and "every d" in p.steps[0].claim


def test_a_size_left_free_is_covered_up_to_the_bound_only():
    p = identity_proof(_st("theorem L {d workers : ℕ} (x g : Fin workers → Space d) (η : ℝ) :\n"
                           "    workerMean (fun k => x k - η • g k) = workerMean x - η • workerMean g := by sorry\n"))
    assert not p.complete and p.scope == f"workers ≤ {BOUND} for every d"
    assert p.label == f"holds for workers ≤ {BOUND} for every d only"
    assert len(p.steps) == BOUND + 1          # workers = 0, 1, …, BOUND


def test_a_size_fixed_by_a_hypothesis_is_covered_completely():
    p = identity_proof(_st("theorem W {d N : ℕ} (hN : N = 3) (v : Fin N → Space d) :\n"
                           "    clientAverage v = (N : ℝ)⁻¹ • ∑ i, v i := by sorry\n"))
    assert p.complete and [s.claim for s in p.steps] == ["at N = 3, every d"]


def test_an_equality_modulo_the_hypotheses_and_without_them():
    body = ("theorem V {d : ℕ} (w : Fin 3 → ℝ) (v : Fin 3 → Space d)HYP :\n"
            "    ∑ i, w i * ‖v i - ∑ j, w j • v j‖ ^ 2 = ∑ i, w i * ‖v i‖ ^ 2 - ‖∑ j, w j • v j‖ ^ 2 := by sorry\n")
    p = identity_proof(_st(body.replace("HYP", " (hw : ∑ i, w i = 1)")))
    assert p.complete and "Gröbner" in p.steps[0].detail
    att = identity_proof(_st(body.replace("HYP", "")))
    assert att.kind == "identity" and "the difference is" in att.reason


def test_an_inequality_gets_an_exact_certificate_and_a_false_one_does_not():
    body = "theorem R {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :\n    ‖u + v‖ ^ 2 ≤ (1 + a) * ‖u‖ ^ 2 + RHS := by sorry\n"
    p = identity_proof(_st(body.replace("RHS", "(1 + a⁻¹) * ‖v‖ ^ 2")))
    assert p.complete and "·(" in p.steps[0].detail        # the certificate's identity
    att = identity_proof(_st(body.replace("RHS", "‖v‖ ^ 2")))
    assert "no exact certificate" in att.reason


def test_a_divisor_must_be_nonzero_on_the_hypotheses():
    att = identity_proof(_st("theorem Z {d : ℕ} (u : Space d) (a : ℝ) :\n    a * a⁻¹ * ‖u‖ ^ 2 = ‖u‖ ^ 2 := by sorry\n"))
    assert att is not None and "a ≠ 0" in att.reason or "sign" in att.reason
