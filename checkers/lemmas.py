"""Mutation lists of the seed-002 lemmas: ``lean/Pyfed/Lemmas/*.lean`` and the procedures of
``lean/Pyfed/Algorithms/*.lean`` (namespace SCAFFOLD).

Each mutation is a deliberately wrong edit of the theorem's Lean text (:class:`TextMutation`): a
constant changed, a term dropped, an index range shifted, a hypothesis removed or loosened.

Sources: seed 002 (federated averaging, local SGD and SCAFFOLD); Karimireddy et al., SCAFFOLD,
Appendix B (relaxed triangle and Young inequalities, sum of squares, Lemma 4 martingale bound,
the averaging lemmas), Appendix C Lemma 6 (nonexpansive gradient step), Algorithm 1 (the control
updates); Stich, *Local SGD Converges Fast and Communicates Little* (Lemma 3.1 and the weighted
averaging lemma).
"""

from __future__ import annotations

from .mutations import MUTATIONS, TextMutation

M = TextMutation

MUTATIONS.update({
    # ---- lean/Pyfed/Lemmas/Inequalities.lean
    "SCAFFOLD.RelaxedTriangle": [
        M("u_constant_a", "(1+a) replaced by a: ||u+v||^2 <= a||u||^2 + (1+1/a)||v||^2", "(1 + a) * ‖u‖ ^ 2",
          "a * ‖u‖ ^ 2"),
        M("v_constant_1_over_a", "(1+1/a) replaced by 1/a", "(1 + a⁻¹) * ‖v‖ ^ 2", "a⁻¹ * ‖v‖ ^ 2"),
        M("drop_a_positive", "hypothesis a > 0 dropped", " (ha : 0 < a)", ""),
    ],
    "SCAFFOLD.YoungInner": [
        M("u_constant_halved", "a||u||^2 replaced by (a/2)||u||^2", "a * ‖u‖ ^ 2", "a / 2 * ‖u‖ ^ 2"),
        M("factor_3", "left side 3|<u,v>| instead of 2|<u,v>|", "2 * |inner ℝ u v|", "3 * |inner ℝ u v|"),
        M("drop_a_positive", "hypothesis a > 0 dropped", " (ha : 0 < a)", ""),
    ],
    "SCAFFOLD.SumSquares": [
        M("factor_m_minus_1", "m replaced by m - 1", "(m : ℝ) * ∑ j, ‖u j‖ ^ 2", "((m : ℝ) - 1) * ∑ j, ‖u j‖ ^ 2"),
        M("drop_factor_m", "the factor m dropped: ||sum u_j||^2 <= sum ||u_j||^2", "(m : ℝ) * ∑ j, ‖u j‖ ^ 2",
          "∑ j, ‖u j‖ ^ 2"),
    ],
    "SCAFFOLD.GradientStepNonexpansive": [
        M("eta_up_to_3_over_beta", "step range 0 <= eta <= 3/beta", "(hη : η ≤ 2 / β)", "(hη : η ≤ 3 / β)"),
        M("drop_convexity", "h only smooth (convexity dropped)",
          "\n    (hconv : ∀ x y : Space d, h x + inner ℝ (gradient h x) (y - x) ≤ h y)", ""),
    ],
    # ---- lean/Pyfed/Lemmas/Averaging.lean
    "SCAFFOLD.StichWeightedAveraging": [
        M("u0_term_halved", "mu a^3 u_0/(4 S_T) replaced by mu a^3 u_0/(8 S_T)",
          "μ * a ^ 3 / (4 * stichWeightSum a T) * u 0", "μ * a ^ 3 / (8 * stichWeightSum a T) * u 0"),
        M("B_term_halved", "2T(T+2a)B/(mu S_T) replaced by T(T+2a)B/(mu S_T)", "2 * (T : ℝ) * ((T : ℝ) + 2 * a)",
          "(T : ℝ) * ((T : ℝ) + 2 * a)"),
    ],
    "SCAFFOLD.StichWeightSumLowerBound": [
        M("cube_over_2", "T^3/2 <= S_T (constant 1/3 made larger)", "(T : ℝ) ^ 3 / 3", "(T : ℝ) ^ 3 / 2"),
        M("drop_a", "w_t = t^2 (the shift a dropped from the weights)", "stichWeightSum a T",
          "∑ t ∈ Finset.range T, ((t : ℝ) + 1) ^ 2 / 2"),
    ],
    "SCAFFOLD.UniformAveraging": [
        M("d0_halved", "d_0/(a eta R) replaced by d_0/(2 a eta R)", "dist 0 / (a * η * (R : ℝ))",
          "dist 0 / (2 * a * η * (R : ℝ))"),
        M("drop_c_term", "(b eta + c eta^2)/a replaced by b eta/a", "(b * η + c * η ^ 2) / a", "(b * η) / a"),
    ],
    "SCAFFOLD.GeometricAveraging": [
        M("d0_halved", "d_0/(a eta W_R) replaced by d_0/(2 a eta W_R)", "dist 0 / (a * η * ∑",
          "dist 0 / (2 * a * η * ∑"),
        M("weight_sum_index_shift", "W_R summed over r < R - 1 in the first term's denominator",
          "dist 0 / (a * η * ∑ r ∈ Finset.range R,", "dist 0 / (a * η * ∑ r ∈ Finset.range (R - 1),"),
    ],
    # ---- lean/Pyfed/Lemmas/Sampling.lean
    "SCAFFOLD.SamplingVarianceIdentity": [
        M("N_instead_of_N_minus_1", "1/(S(N-1)) replaced by 1/(S N)", "((S : ℝ) * ((N : ℝ) - 1))⁻¹",
          "((S : ℝ) * (N : ℝ))⁻¹"),
        M("drop_finite_population_factor", "factor (1 - S/N) dropped", "(1 - (S : ℝ) / (N : ℝ)) * ((S", "((S"),
        M("mean_over_S_plus_1", "vbar_S = (S+1)^-1 sum_{i in S} v_i (mean identity)",
          "uniformSampleMean S (fun B => sampleAverage S v B) = clientAverage v",
          "uniformSampleMean S (fun B => sampleAverage (S + 1) v B) = clientAverage v"),
    ],
    "SCAFFOLD.SamplingVarianceBound": [
        M("factor_2_to_1", "constant 2 replaced by 1", "2 * (1 - (S : ℝ) / (N : ℝ))", "(1 - (S : ℝ) / (N : ℝ))"),
        M("S_squared", "1/S replaced by 1/S^2", "(S : ℝ)⁻¹ * (N : ℝ)⁻¹", "((S : ℝ) ^ 2)⁻¹ * (N : ℝ)⁻¹"),
    ],
    "SCAFFOLD.SamplingSingleClient": [
        M("mean_over_S_plus_1", "vbar_S = (S+1)^-1 sum_{i in S} v_i", "sampleAverage S v B = clientAverage v",
          "sampleAverage (S + 1) v B = clientAverage v"),
    ],
    # ---- lean/Pyfed/Lemmas/Martingale.lean
    "SCAFFOLD.MartingaleDifferenceBound": [
        M("constants_2_to_1", "both factors 2 replaced by 1",
          "2 * ∫ ω, ‖∑ j ∈ Finset.range m, MeasureTheory.condExp (F j) ν (Z (j + 1)) ω‖ ^ 2 ∂ν +\n        2 * ∑",
          "∫ ω, ‖∑ j ∈ Finset.range m, MeasureTheory.condExp (F j) ν (Z (j + 1)) ω‖ ^ 2 ∂ν +\n        ∑"),
        M("index_shift", "variance sum over j = 2..m instead of 1..m",
          "2 * ∑ j ∈ Finset.range m, ∫ ω, v (j + 1) ω ∂ν", "2 * ∑ j ∈ Finset.range (m - 1), ∫ ω, v (j + 2) ω ∂ν"),
        M("drop_variance_bound", "hypothesis E[||xi_j||^2 | F_{j-1}] <= v_j dropped", "(hvar : ∀ j < m,",
          "(hvar : ∀ j < 0,"),
    ],
    # ---- lean/Pyfed/Algorithms/LocalSGD.lean
    "SCAFFOLD.LocalSGDOneStep": [
        M("contraction_doubled", "(1 - mu eta_t) replaced by (1 - 2 mu eta_t)", "(1 - μ * η) *", "(1 - 2 * μ * η) *"),
        M("drop_noise_term", "eta_t^2 E||g_t - gbar_t||^2 dropped",
          "η ^ 2 * ∫ ω, ‖workerMean (fun k => g k ω) -\n          workerMean (fun k => gradient (objective fs) (x k ω))‖ ^ 2 ∂ν -",
          "0 -"),
    ],
    # ---- lean/Pyfed/Algorithms/Scaffold.lean
    "SCAFFOLD.OptionTwoControlIsAverage": [
        M("K_plus_1", "(K eta_l)^-1 replaced by ((K+1) eta_l)^-1", "(K : ℝ)⁻¹ • ∑ k ∈ Finset.range K",
          "((K : ℝ) + 1)⁻¹ • ∑ k ∈ Finset.range K"),
    ],
    "SCAFFOLD.ServerControlIsMean": [
        M("mean_over_N_plus_1", "the server control compared with (N+1)^-1 sum_i c_i",
          "(N : ℝ)⁻¹ • ∑ i, (scaffold opt S K ηl ηg oracle samples x0 c0 r).ci i",
          "((N : ℝ) + 1)⁻¹ • ∑ i, (scaffold opt S K ηl ηg oracle samples x0 c0 r).ci i"),
    ],
})
