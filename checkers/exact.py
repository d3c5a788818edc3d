"""Mutation lists of the cast theorems of ``lean/Pyfed/Exact.lean``: each says that the ℚ mirror
of an arithmetic definition (computable, so the generated Lean tests can evaluate it) casts to
the real definition. A mutation feeds the real side a wrong argument (a swapped step size, a
shifted index, a scaled count), so the equation fails wherever the two values differ; the search
decides both sides exactly (the mirrors over ℚ, the definitions from their Lean bodies)."""

from __future__ import annotations

from .mutations import MUTATIONS, TextMutation

M = TextMutation

MUTATIONS.update({
    "SCAFFOLD.effectiveStepQ_cast": [
        M("eta_g_replaced_by_eta_l", "effectiveStep K ηl ηl on the real side", "effectiveStep K (ηl : ℝ) (ηg : ℝ)",
          "effectiveStep K (ηl : ℝ) (ηl : ℝ)"),
    ],
    "SCAFFOLD.weightQ_cast": [
        M("index_shifted", "weight at r + 1 on the real side", "weight (μ : ℝ) (h : ℝ) r", "weight (μ : ℝ) (h : ℝ) (r + 1)"),
    ],
    "SCAFFOLD.weightSumQ_cast": [
        M("one_more_round", "weightSum over T + 1 rounds on the real side", "weightSum (μ : ℝ) (h : ℝ) T",
          "weightSum (μ : ℝ) (h : ℝ) (T + 1)"),
    ],
    "SCAFFOLD.initialPotentialQ_cast": [
        M("step_doubled", "initialPotential at 2 h on the real side", "initialPotential P S (h : ℝ) c0 xstar",
          "initialPotential P S (2 * (h : ℝ)) c0 xstar"),
    ],
    "SCAFFOLD.convexRHSQ_cast": [
        M("mu_doubled", "convexRHS at 2 μ on the real side", "(μ : ℝ) c0 xstar", "(2 * (μ : ℝ)) c0 xstar"),
    ],
    "SCAFFOLD.nonconvexRHSQ_cast": [
        M("one_more_round", "nonconvexRHS over T + 1 rounds", "nonconvexRHS P S K T (ηl : ℝ)",
          "nonconvexRHS P S K (T + 1) (ηl : ℝ)"),
    ],
    "FedAvg.driftRHSQ_cast": [
        M("one_more_local_step", "driftRHS at τ + 1", "driftRHS P τ (η : ℝ)", "driftRHS P (τ + 1) (η : ℝ)"),
    ],
    "FedAvg.convergenceRHSQ_cast": [
        M("step_doubled", "convergenceRHS at 2 η", "convergenceRHS P τ T (η : ℝ)", "convergenceRHS P τ T (2 * (η : ℝ))"),
    ],
})
