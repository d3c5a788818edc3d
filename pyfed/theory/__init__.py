"""Exact formulas and hypothesis checks of the SCAFFOLD theorems (one place per formula)."""

from .bounds import (contraction, convex_rhs, effective_step, initial_control_error,
                     initial_potential, noise_term, noise_variance, nonconvex_rhs, round_time,
                     squared_distance, weight, weight_sum, weights)
from .hypotheses import Hypothesis, convex_hypotheses, failing, nonconvex_hypotheses

__all__ = [
    "contraction", "convex_rhs", "effective_step", "initial_control_error", "initial_potential",
    "noise_term", "noise_variance", "nonconvex_rhs", "round_time", "squared_distance", "weight", "weight_sum",
    "weights", "Hypothesis", "convex_hypotheses", "failing", "nonconvex_hypotheses",
]
