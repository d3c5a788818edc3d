"""Exact formulas and hypothesis checks of the SCAFFOLD theorems and of the FedAvg statements of
the Field Guide (one place per formula; :mod:`pyfed.theory.fedavg` for the latter)."""

from .bounds import (
                     contraction,
                     convex_rhs,
                     effective_step,
                     initial_control_error,
                     initial_potential,
                     noise_term,
                     noise_variance,
                     nonconvex_rhs,
                     round_time,
                     squared_distance,
                     weight,
                     weight_sum,
                     weights,
)
from .fedavg import (
                     convergence_rhs,
                     deviation_term,
                     drift_rhs,
                     fedavg_hypotheses,
                     optimized_rhs,
                     optimized_step,
                     optimized_step_choice,
                     progress_rhs,
                     progress_term,
                     tuned_hypotheses,
)
from .hypotheses import Hypothesis, convex_hypotheses, failing, nonconvex_hypotheses

__all__ = [
    "contraction", "convex_rhs", "effective_step", "initial_control_error", "initial_potential",
    "noise_term", "noise_variance", "nonconvex_rhs", "round_time", "squared_distance", "weight", "weight_sum",
    "weights", "Hypothesis", "convex_hypotheses", "failing", "nonconvex_hypotheses",
    # FedAvg (Field Guide, Section 6.1.2)
    "drift_rhs", "convergence_rhs", "progress_term", "deviation_term", "progress_rhs", "optimized_step",
    "optimized_step_choice", "optimized_rhs", "fedavg_hypotheses", "tuned_hypotheses",
]
