"""Mutation lists of the statements of ``lean/Pyfed/FedAvg/Theorems.lean`` (namespace FedAvg, the
Field Guide's Lemma 1, Lemma 2 and Theorem 1), as data.

Each mutation is a deliberately wrong edit of the theorem's Lean text (:class:`TextMutation`),
read back by the same reader and decided by the same engines as any user's statement
(:mod:`pyfed.models.fedavg.search`); the registry-wide test requires every one of them
to be caught (violated, with a witness that re-checks exactly). A mutation that drops a term
replaces the model's definition by its body without the term (the edited theorem's right side is
the definition's body, inlined).

What each instance family can catch. With a shared Hessian A the shadow iterate is SGD on F
itself (heterogeneity never moves it) and client i's drift after k local steps is at most
k²η²‖bᵢ − b̄‖² + (1 − 1/M) k η² σ² ≤ τ²η²ζ² + τη²σ²: the constant 18 of ``driftRHS`` cannot be
lowered to 1 on that class, nor on one-dimensional clients (there the client farthest from the
mean moves away from it by at most η ζ per step when η ≤ 1/L). Clients with different curvature
in two dimensions can: three ``huber`` clients with an anisotropic common quadratic and two
ridges of opposite sign (:data:`DRIFT_HUBER_INSTANCE`, a structured candidate of the search)
have a drift of 1.0168 τ²η²ζ² at τ = 6, exactly decided, so ``drift_constant_18_to_1`` is caught.
The one-dimensional ``sqrt`` family (different curvatures, started at the optimum without noise)
moves the shadow, which catches dropping the ζ term of eq. (15).

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.2, PDF p. 41 (Lemma 1, Lemma 2, Theorem 1 eqs. (15)-(17)); Appendix D.1-D.2, PDF pp. 86-88.
"""

from __future__ import annotations

from .mutations import MUTATIONS, TextMutation

__all__ = ["FEDAVG_MUTATIONS", "DRIFT_HUBER_INSTANCE", "FILE"]

FILE = "Pyfed/FedAvg/Theorems.lean"

# --------------------------------------------------------------------------- mutations (data)

_STEP = ("η ≤ 1 / (4 * P.L)", "η ≤ 4 / P.L")
_DRIFT_BODY = "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"
_DEVIATION_NO_NOISE = ("fun ω => progressTerm R t ω + P.L / ((M : ℝ) * (τ : ℝ)) * ∑ i, ∑ k ∈ Finset.range τ, "
                       "MeasureTheory.condExp (R.history (t * τ)) μ (clientDriftSq R t k i) ω")
_CONVERGENCE_TERMS = ("distance P ^ 2 / (2 * η * (τ : ℝ) * (T : ℝ))", "η * P.σ ^ 2 / (M : ℝ)",
                      "4 * (τ : ℝ) * η ^ 2 * P.L * P.σ ^ 2", "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.L * P.ζ ^ 2")
_STEP_BODY = ("min (1 / (4 * P.L)) (min (Real.sqrt (M : ℝ) * distance P / (Real.sqrt (τ : ℝ) * Real.sqrt (T : ℝ) * P.σ)) "
              "(min (Real.rpow (distance P) (2 / 3 : ℝ) / (Real.rpow (τ : ℝ) (2 / 3 : ℝ) * Real.rpow (T : ℝ) (1 / 3 : ℝ) * "
              "Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.σ (2 / 3 : ℝ))) (Real.rpow (distance P) (2 / 3 : ℝ) / ((τ : ℝ) * "
              "Real.rpow (T : ℝ) (1 / 3 : ℝ) * Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.ζ (2 / 3 : ℝ)))))")
_TUNED_RHS_NO_NOISE = ("(2 * P.L * distance P ^ 2 / ((τ : ℝ) * (T : ℝ)) + 19 * Real.rpow P.L (1 / 3 : ℝ) * "
                       "Real.rpow P.ζ (2 / 3 : ℝ) * Real.rpow (distance P) (4 / 3 : ℝ) / Real.rpow (T : ℝ) (2 / 3 : ℝ))")

#: Qualified Lean name -> its mutations (registered in :data:`pyfed.checkers.mutations.MUTATIONS`).
FEDAVG_MUTATIONS = {
    "FedAvg.PerRoundProgress": [
        TextMutation("step_4_over_L", "the step-size hypothesis η ≤ 1/(4L) replaced by η ≤ 4/L", *_STEP),
        TextMutation("drop_noise_term", "the noise term η σ²/M of deviationTerm dropped (progressRHS replaced by "
                     "its body without it)", "progressRHS R t", _DEVIATION_NO_NOISE),
    ],
    "FedAvg.BoundedClientDrift": [
        TextMutation("step_4_over_L", "the step-size hypothesis η ≤ 1/(4L) replaced by η ≤ 4/L", *_STEP),
        TextMutation("drop_heterogeneity_term", "the term 18 τ² η² ζ² of driftRHS dropped", "driftRHS P τ η",
                     "4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"),
        TextMutation("drop_noise_term", "the term 4 τ η² σ² of driftRHS dropped", "driftRHS P τ η",
                     "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2"),
        TextMutation("drift_constant_18_to_1", "the constant 18 of driftRHS replaced by 1", "driftRHS P τ η",
                     _DRIFT_BODY.replace("18 *", "1 *")),
    ],
    "FedAvg.ConvexFedAvgConvergence": [
        TextMutation("step_4_over_L", "the step-size hypothesis η ≤ 1/(4L) replaced by η ≤ 4/L", *_STEP),
        TextMutation("drop_noise_terms", "the noise terms η σ²/M + 4 τ η² L σ² of convergenceRHS dropped",
                     "convergenceRHS P τ T η", f"{_CONVERGENCE_TERMS[0]} + {_CONVERGENCE_TERMS[3]}"),
        TextMutation("drop_heterogeneity_term", "the term 18 τ² η² L ζ² of convergenceRHS dropped",
                     "convergenceRHS P τ T η", " + ".join(_CONVERGENCE_TERMS[:3])),
        TextMutation("drop_noise_over_M", "the term η σ²/M of convergenceRHS dropped (caught at a small step and a "
                     "long horizon: the term is first order in η, the other noise term second order)",
                     "convergenceRHS P τ T η", " + ".join(_CONVERGENCE_TERMS[i] for i in (0, 2, 3))),
    ],
    "FedAvg.TunedConvexFedAvgConvergence": [
        TextMutation("step_4_over_L", "the first term 1/(4L) of optimizedStep replaced by 4/L",
                     "Run P μ τ T (optimizedStep P τ T)",
                     "Run P μ τ T (" + _STEP_BODY.replace("min (1 / (4 * P.L))", "min (4 / P.L)") + ")"),
        TextMutation("drop_noise_terms", "the noise terms 2 σ D/√(M τ T) and 5 L^(1/3) σ^(2/3) D^(4/3)/(τ^(1/3) "
                     "T^(2/3)) of optimizedRHS dropped", "optimizedRHS P τ T", _TUNED_RHS_NO_NOISE),
    ],
}
MUTATIONS.update(FEDAVG_MUTATIONS)

#: Three clients with different curvature (``huber`` family) whose drift at k = τ = 6 is
#: 1.0168 τ²η²ζ² (exact): it exceeds what shared-Hessian clients can reach.
DRIFT_HUBER_INSTANCE = {
    "family": "huber", "Q": [["1/64", "0"], ["0", "6/5"]], "b": [["1", "0"], ["-1/2", "-3/5"], ["-1/2", "3/5"]],
    "c": [["0", "0"], ["1/25", "-1/25"], ["-1/25", "1/25"]], "u": [["-1/2", "3"], ["-1/2", "-3"]], "L": "25/16",
    "sigma": "0", "zeta_sq": "1", "tau": "6", "T": "1", "eta": "4/25", "x0": ["1/64", "-1/50"]}
