"""The FedAvg model's vocabulary as the statement reader knows it (namespace ``FedAvg``).

Names, explicit arguments (in order) and kinds follow ``lean/Pyfed/FedAvg/Model.lean`` (the
published ``Definitions/Def_FedAvg_Model.lean`` of ``prove2me/formalpedia``): the problem
``Problem d M`` with the fields ``L σ ζ x0 xstar f``, the run ``Run P μ τ T η`` (``μ`` is the
probability *measure* of the sample space) and the definitions over them. Each arithmetic
definition is evaluated by its :mod:`pyfed.theory.fedavg` function (one place per formula; the
drift check :func:`pyfed.lean.drift.check_fedavg_drift` compares the Lean bodies with them);
each random variable of a run by the FedAvg engines (exact forms and moments, Monte Carlo,
deterministic runs).

Kinds of arguments: ``problem`` (``P``), ``run`` (``R``), ``nat`` (ℕ), ``real`` (ℝ), ``client``
(``Fin M``), ``omega`` (a point ``ω : Ω`` of the sample space), ``clients`` (``P.f``),
``point`` (``ModelSpace d``).

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section 6.1.
"""

from __future__ import annotations

from ...statements.model import ModelFunction

__all__ = ["NAMESPACE", "ModelDef", "FUNCTIONS", "RANDOM", "FIELDS", "TYPES", "MODEL_NAMES", "SUPPORTED_TERMS",
           "SUPPORTED_HYPOTHESES", "SUPPORTED_CONCLUSIONS", "SUPPORTED_BINDERS", "SUPPORTED_RANDOM", "CONDITIONAL",
           "POINT_FIELDS"]

NAMESPACE = "FedAvg"


#: A definition of the model usable in a statement (the SCAFFOLD model's record type: name, explicit
#: parameter kinds, result kind -- ``point`` for a random point of :data:`RANDOM` -- what evaluates
#: it, and the Lean signature).
ModelDef = ModelFunction


#: Deterministic definitions (functions of the problem and the run's parameters).
FUNCTIONS = {f.name: f for f in [
    ModelDef("driftRHS", ("problem", "nat", "real"), "real", "pyfed.theory.fedavg.drift_rhs",
             "driftRHS P (τ : ℕ) (η : ℝ) : ℝ"),
    ModelDef("convergenceRHS", ("problem", "nat", "nat", "real"), "real", "pyfed.theory.fedavg.convergence_rhs",
             "convergenceRHS P (τ T : ℕ) (η : ℝ) : ℝ"),
    ModelDef("optimizedStep", ("problem", "nat", "nat"), "real", "pyfed.theory.fedavg.optimized_step",
             "optimizedStep P (τ T : ℕ) : ℝ"),
    ModelDef("optimizedRHS", ("problem", "nat", "nat"), "real", "pyfed.theory.fedavg.optimized_rhs",
             "optimizedRHS P (τ T : ℕ) : ℝ"),
    ModelDef("distance", ("problem",), "real", "D = ‖x0 - xstar‖ (the instance's D²)", "distance P : ℝ"),
    ModelDef("objective", ("clients", "point"), "real", "F(x) = M⁻¹ ∑ᵢ Fᵢ(x) of the instance",
             "objective P.f (x : ModelSpace d) : ℝ"),
]}

#: Random variables of a run (explicit arguments after the run; the last one is ``ω``).
RANDOM = {f.name: f for f in [
    ModelDef("shadow", ("run", "nat", "nat", "omega"), "point", "x̄^{t,k} = M⁻¹ ∑ᵢ x t k i",
             "shadow R (t k : ℕ) (ω : Ω) : ModelSpace d"),
    ModelDef("roundLoss", ("run", "nat", "omega"), "real", "A_t = τ⁻¹ ∑_{k=1}^{τ} (F(x̄^{t,k}) - F(x⋆))",
             "roundLoss R (t : ℕ) (ω : Ω) : ℝ"),
    ModelDef("avgLoss", ("run", "omega"), "real", "A = T⁻¹ ∑_{t<T} A_t", "avgLoss R (ω : Ω) : ℝ"),
    ModelDef("shadowDistanceSq", ("run", "nat", "nat", "omega"), "real", "‖x̄^{t,k} - x⋆‖²",
             "shadowDistanceSq R (t k : ℕ) (ω : Ω) : ℝ"),
    ModelDef("clientDriftSq", ("run", "nat", "nat", "client", "omega"), "real", "‖x t k i - x̄^{t,k}‖²",
             "clientDriftSq R (t k : ℕ) (i : Fin M) (ω : Ω) : ℝ"),
    ModelDef("progressTerm", ("run", "nat", "omega"), "real", "pyfed.theory.fedavg.progress_term",
             "progressTerm R (t : ℕ) (ω : Ω) : ℝ"),
    ModelDef("deviationTerm", ("run", "nat", "omega"), "real", "pyfed.theory.fedavg.deviation_term",
             "deviationTerm R (t : ℕ) (ω : Ω) : ℝ"),
    ModelDef("progressRHS", ("run", "nat", "omega"), "real", "pyfed.theory.fedavg.progress_rhs",
             "progressRHS R (t : ℕ) (ω : Ω) : ℝ"),
]}

#: Random variables whose definition holds a conditional expectation given ``R.history (t * τ)``
#: (they are measurable with respect to it: they may stand on the right of a conditional statement).
CONDITIONAL = frozenset({"progressTerm", "deviationTerm", "progressRHS"})

#: Fields of the problem ``P``: name -> kind.
FIELDS = {"L": "real", "σ": "real", "ζ": "real", "x0": "point", "xstar": "point", "f": "clients"}

#: The problem's fields that are points.
POINT_FIELDS = ("x0", "xstar")

#: Structures and types of the model that statements' binders use.
TYPES = ("Problem", "Run", "ModelSpace")

#: Every name the reader knows in namespace :data:`NAMESPACE`.
MODEL_NAMES = frozenset(FUNCTIONS) | frozenset(RANDOM) | frozenset(TYPES)

SUPPORTED_TERMS = ("numerals, the statement's ℕ/ℝ parameters, P.L, P.σ, P.ζ, + - * / ^ ⁻¹, casts (x : ℝ), ↑x, "
                   "Real.sqrt, Real.rpow, min, max, |x|, ∑ k ∈ Finset.range n, ∑ i, let, driftRHS, convergenceRHS, "
                   "optimizedStep, optimizedRHS, distance P, objective P.f x, ‖u - v‖ of P.x0/P.xstar, and the file's "
                   "own defs")
SUPPORTED_RANDOM = ("roundLoss R t, avgLoss R, shadowDistanceSq R t k, clientDriftSq R t k i, progressTerm R t, "
                    "deviationTerm R t, progressRHS R t, objective P.f (shadow R t k ω), ‖shadow R t k ω - P.xstar‖ ^ 2, "
                    "‖R.x t k i ω - shadow R t k ω‖ ^ 2, μ[f | R.history (t * τ)], fun ω => …, fun _ => c, "
                    "arithmetic of these with deterministic factors, and the file's own defs")
SUPPORTED_HYPOTHESES = ("comparisons ≤ < = ≠ ≥ > of ℕ/ℝ expressions (parameters, P.L, P.σ, P.ζ, distance P, the "
                        "model's arithmetic definitions), conjunctions ∧, and bounds on the indices t, k, i of the "
                        "conclusion (t < T, k ≤ τ)")
SUPPORTED_CONCLUSIONS = ("(∫ ω, X ω ∂μ) ≤ RHS (also <, ≥, >) with X a random variable of the run, and "
                         "μ[X | R.history (t * τ)] ≤ᵐ[μ] Y with Y measurable for R.history (t * τ) (constants "
                         "fun _ => c, progressTerm/deviationTerm/progressRHS R t, conditional expectations, "
                         "statistics at local step 0)")
SUPPORTED_BINDERS = ("ℕ, ℝ, Fin M, Problem d M, Type u, Measure Ω, Run P μ τ T η, [MeasurableSpace Ω], "
                     "[StandardBorelSpace Ω], [IsProbabilityMeasure μ], hypotheses")
