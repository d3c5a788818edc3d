"""The SCAFFOLD model's vocabulary as the statement reader knows it.

Names, argument order and types follow the published model (``prove2me/formalpedia``,
``envs/c5ea003/Definitions/Def_SCAFFOLD_Model.lean``, namespace ``SCAFFOLD``), which
``lean/Pyfed/Scaffold/Model.lean`` mirrors. Each arithmetic definition is evaluated by its
:mod:`pyfed.theory` function (one place per formula; the drift check proves the Lean bodies
equal to them); each statistic of a ``Run`` by the engines (exact moments, Monte Carlo, PEP).

Kinds of values: ``nat`` (ℕ), ``real`` (ℝ), ``problem`` (``Problem d N``), ``clients``
(``P.f``), ``vector`` (``Space d``), ``controls`` (``Fin N → Space d``), ``run``
(``Run P ν S K T ηl ηg init``), ``init`` (``Initialization d N``: ``some c0`` / ``none``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ModelFunction", "FUNCTIONS", "PREDICATES", "FIELDS", "STATISTICS", "MATH_FUNCTIONS",
           "MODEL_CONSTANTS", "PROBABILITY_CLASSES", "NAMESPACE", "SUPPORTED_TERMS",
           "SUPPORTED_HYPOTHESES", "SUPPORTED_LEFT", "SUPPORTED_RIGHT", "MODEL_IMPORTS", "MODEL_TYPES",
           "MODEL_NAMES"]

NAMESPACE = "SCAFFOLD"

#: Imports that bring the model into scope (ours, and the published model file).
MODEL_IMPORTS = ("Pyfed", "Definitions.Def_SCAFFOLD_Model", "Definitions.Def_FedAvg_Model")


@dataclass(frozen=True)
class ModelFunction:
    """A model definition usable in a statement: explicit parameter kinds (in order), result
    kind, its :mod:`pyfed.theory` function (or the engine statistic) and the Lean signature."""

    name: str
    params: tuple
    result: str
    python: str
    signature: str


FUNCTIONS = {f.name: f for f in [
    ModelFunction("effectiveStep", ("nat", "real", "real"), "real", "pyfed.theory.effective_step",
                  "effectiveStep (K : ℕ) (ηl ηg : ℝ) : ℝ"),
    ModelFunction("roundTime", ("nat", "nat"), "nat", "pyfed.theory.round_time", "roundTime (K r : ℕ) : ℕ"),
    ModelFunction("weight", ("real", "real", "nat"), "real", "pyfed.theory.weight", "weight (μ h : ℝ) (r : ℕ) : ℝ"),
    ModelFunction("weightSum", ("real", "real", "nat"), "real", "pyfed.theory.weight_sum",
                  "weightSum (μ h : ℝ) (T : ℕ) : ℝ"),
    ModelFunction("initialControlError", ("problem", "controls", "vector"), "real",
                  "pyfed.theory.initial_control_error", "initialControlError P c0 xstar : ℝ"),
    ModelFunction("initialPotential", ("problem", "nat", "real", "controls", "vector"), "real",
                  "pyfed.theory.initial_potential", "initialPotential P S h c0 xstar : ℝ"),
    ModelFunction("convexRHS", ("problem", "nat", "nat", "nat", "real", "real", "real", "controls", "vector"),
                  "real", "pyfed.theory.convex_rhs", "convexRHS P S K T ηl ηg μ c0 xstar : ℝ"),
    ModelFunction("nonconvexRHS", ("problem", "nat", "nat", "nat", "real", "real", "real"), "real",
                  "pyfed.theory.nonconvex_rhs", "nonconvexRHS P S K T ηl ηg fLower : ℝ"),
    ModelFunction("objective", ("clients", "vector"), "real", "problem value F(x) = N⁻¹ ∑ᵢ fᵢ(x)",
                  "objective P.f x : ℝ"),
]}

#: Statistics of a run (the left side): name -> ModelFunction (parameters after the run).
STATISTICS = {f.name: f for f in [
    ModelFunction("expectedGap", ("run", "vector", "nat"), "real", "E[F(x_r)] - F(xstar)",
                  "expectedGap A xstar r : ℝ"),
    ModelFunction("weightedGap", ("run", "vector", "real"), "real", "W_T⁻¹ ∑_{r<T} w_r E[F(x_r) - F(xstar)]",
                  "weightedGap A xstar μ : ℝ"),
    ModelFunction("averageGradientSq", ("run",), "real", "T⁻¹ ∑_{r<T} E‖∇F(x_r)‖²",
                  "averageGradientSq A : ℝ"),
]}

#: Predicates (hypotheses about the clients).
PREDICATES = {
    "Convexity": ("problem", "real"),      # Convexity P μ
    "IsMinimizer": ("problem", "vector"),  # IsMinimizer P xstar
}

#: Fields of the problem ``P``: name -> kind.
FIELDS = {"β": "real", "σ": "real", "x0": "vector", "f": "clients"}

#: Mathlib functions: name -> (parameter kinds or None for "the max type of the arguments", arity).
MATH_FUNCTIONS = {"Real.rpow": (("real", "real"), 2), "Real.sqrt": (("real",), 1),
                  "min": (None, 2), "max": (None, 2)}

#: Numeric constants inside the model's right sides (the constant profile varies them):
#: (definition, key) -> (value, what it multiplies, pyfed.theory keyword).
MODEL_CONSTANTS = {
    ("convexRHS", "potential"): (9, "9 N h² C₀ / S inside V₀", "potential_constant"),
    ("convexRHS", "noise"): (12, "12 h σ² / (K S) (1 + S/ηg²)", "noise_constant"),
    ("initialPotential", "potential"): (9, "9 N h² C₀ / S", "constant"),
    ("nonconvexRHS", "gap"): (14, "14 (F(x0) - fLower) / (h T)", "gap_constant"),
    ("nonconvexRHS", "noise"): (70, "70 β h σ² / (K S) (1 + S/ηg²)", "noise_constant"),
}

#: Type classes of the probability space binders (accepted and not evaluated).
PROBABILITY_CLASSES = {"MeasurableSpace", "StandardBorelSpace", "IsProbabilityMeasure"}

SUPPORTED_TERMS = ("numerals, the statement's ℕ/ℝ parameters, P.β, P.σ, + - * / ^ ⁻¹, casts (x : ℝ), ↑x, "
                   "Real.rpow, Real.sqrt, min, max, ∑ r ∈ Finset.range T, let, effectiveStep, roundTime, weight, "
                   "weightSum, initialControlError, initialPotential, convexRHS, nonconvexRHS, "
                   "objective P.f x, ‖u - v‖, and the file's own arithmetic defs")
SUPPORTED_HYPOTHESES = ("comparisons ≤ < = ≠ ≥ > of ℕ/ℝ expressions, Convexity P μ, IsMinimizer P xstar, "
                        "∀ x, fLower ≤ objective P.f x, conjunctions ∧")
SUPPORTED_LEFT = ("weightedGap A xstar μ, averageGradientSq A, expectedGap A xstar r, arithmetic of these, "
                  "and the file's own defs combining them")
SUPPORTED_RIGHT = SUPPORTED_TERMS

#: Structures and types of the model (namespace SCAFFOLD) that statements' binders use.
MODEL_TYPES = ("Problem", "Run", "Space", "Initialization")

#: Every name the reader knows in namespace :data:`NAMESPACE`: a statement names them as Lean
#: would resolve them (``open SCAFFOLD``, ``namespace SCAFFOLD…``, or ``SCAFFOLD.name``).
MODEL_NAMES = frozenset(FUNCTIONS) | frozenset(STATISTICS) | frozenset(PREDICATES) | frozenset(MODEL_TYPES)
