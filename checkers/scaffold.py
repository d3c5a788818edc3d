"""Mutation lists of the statements of ``lean/Pyfed/Scaffold/Theorems.lean`` (namespace SCAFFOLD).

Each mutation is a deliberately wrong edit of the theorem's Lean text (:class:`TextMutation`),
read back by the same reader and decided by the same engines as any user's statement; the
registry-wide test requires every one of them to be caught (violated, with a witness that
re-checks exactly).

Sources: Karimireddy et al., SCAFFOLD, arXiv:1910.06378v4: Appendix E.1 (Lemma 15, the convex
finite-round bound), Appendix E.2 (Lemma 19, the nonconvex one), Appendix B.1 inequality (9)
(``GradientGrowth``), Appendix C Lemma 5 (``PerturbedStrongConvexity``).
"""

from __future__ import annotations

from .mutations import MUTATIONS, TextMutation

FILE = "Pyfed/Scaffold/Theorems.lean"

_CONVEX_STEP = "effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →\n    "
_NONCONVEX_STEP = "effectiveStep K ηl ηg ≤\n      Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β) →\n    "
_CONVEX_NO_NOISE = ("initialPotential P S (effectiveStep K ηl ηg) c0 xstar /\n        "
                    "(effectiveStep K ηl ηg * weightSum μ (effectiveStep K ηl ηg) T)")
_NONCONVEX_NO_NOISE = "14 * (objective P.f P.x0 - fLower) / (effectiveStep K ηl ηg * (T : ℝ))"

MUTATIONS.update({
    "SCAFFOLD.ConvexFiniteRoundConvergence": [
        TextMutation("drop_step_size", "hypothesis h <= 1/(81 beta) dropped", _CONVEX_STEP, ""),
        TextMutation("drop_noise_term", "the noise term 12 h sigma^2/(KS)(1 + S/eta_g^2) dropped",
                     "convexRHS P S K T ηl ηg μ c0 xstar", _CONVEX_NO_NOISE),
    ],
    "SCAFFOLD.NonconvexFiniteRoundConvergence": [
        TextMutation("drop_step_size", "hypothesis h <= (S/N)^(2/3)/(24 beta) dropped", _NONCONVEX_STEP, ""),
        TextMutation("drop_noise_term", "the noise term 70 beta h sigma^2/(KS)(1 + S/eta_g^2) dropped",
                     "nonconvexRHS P S K T ηl ηg fLower", _NONCONVEX_NO_NOISE),
    ],
    "SCAFFOLD.FiniteRoundConvergence": [
        TextMutation("drop_step_size", "each conjunct's step-size hypothesis dropped", _CONVEX_STEP, "", count=0),
        TextMutation("drop_noise_term", "each conjunct's noise term dropped",
                     "convexRHS P S K T ηl ηg μ c0 xstar", _CONVEX_NO_NOISE, count=0),
    ],
    "SCAFFOLD.GradientGrowth": [
        TextMutation("beta_halved", "2 beta replaced by beta", "2 * P.β *", "P.β *"),
        TextMutation("drop_convexity", "clients only smooth (convexity of each f_i dropped; F convex)",
                     "Convexity P 0 → ", ""),
    ],
    "SCAFFOLD.PerturbedStrongConvexity": [
        TextMutation("mu_quarter_to_mu", "(mu/4)||y - z||^2 replaced by mu ||y - z||^2", "μ / 4 * ‖y - z‖ ^ 2",
                     "μ * ‖y - z‖ ^ 2"),
        TextMutation("drop_beta_term", "the term - beta ||z - x||^2 dropped", " - P.β * ‖z - x‖ ^ 2", ""),
    ],
})
