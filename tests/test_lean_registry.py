"""Registry check: every Lean `theorem` has a checker of the same name and vice versa.

The cast theorems of lean/Pyfed/Exact.lean (`effectiveStepQ_cast`, ...) are not checker
statements: they relate the ℚ mirrors to the real definitions and are covered by the drift check
(tests/test_lean_drift.py), so they are excluded here and listed separately.

`pyfed.lean.inventory.PENDING_CHECKERS` must be exactly the set of Lean theorems without a checker;
it is empty since the four FedAvg statements (namespace `FedAvg`) have their checkers
(`checkers/fedavg.py`), and a new theorem without a checker fails here. The registry's
namespaces agree with the Lean declarations' (`test_registry_namespaces_match_the_lean_ones`).
"""

from __future__ import annotations

from pathlib import Path

from pyfed.lean import inventory

LEAN = Path(__file__).resolve().parents[1] / "lean"

#: The brief's list (namespace SCAFFOLD), used when `checkers.registry` cannot be imported.
BRIEF_NAMES = [
    "ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence", "GradientGrowth",
    "RelaxedTriangle", "YoungInner", "SumSquares", "MartingaleDifferenceBound",
    "StichWeightedAveraging", "StichWeightSumLowerBound", "UniformAveraging",
    "GeometricAveraging", "GradientStepNonexpansive", "SamplingVarianceIdentity",
    "SamplingVarianceBound", "SamplingSingleClient", "LocalSGDOneStep",
    "OptionTwoControlIsAverage", "ServerControlIsMean", "PerturbedStrongConvexity",
    "FiniteRoundConvergence",
    # namespace FedAvg (Field Guide, issue 12)
    "PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence", "TunedConvexFedAvgConvergence",
]
FEDAVG_THEOREMS = {"FedAvg.PerRoundProgress", "FedAvg.BoundedClientDrift",
                   "FedAvg.ConvexFedAvgConvergence", "FedAvg.TunedConvexFedAvgConvergence"}
EXACT_CASTS = {"effectiveStepQ_cast", "weightQ_cast", "weightSumQ_cast", "initialPotentialQ_cast",
               "convexRHSQ_cast", "nonconvexRHSQ_cast",
               # namespace FedAvg (issue 12): the polynomial right sides' mirrors
               "driftRHSQ_cast", "convergenceRHSQ_cast"}


def registry_names():
    """Names from `checkers.registry.names()`; falls back to the brief's list if the checkers
    package is not importable yet."""
    try:
        from pyfed.checkers import registry
    except ImportError:
        return list(BRIEF_NAMES)
    return list(registry.names())


def test_registry_is_the_brief_list():
    assert sorted(registry_names()) == sorted(BRIEF_NAMES)


def test_every_theorem_has_a_checker_and_back():
    statements, casts = inventory.theorem_names(LEAN)
    assert inventory.registry_mismatch(statements, registry_names(), inventory.PENDING_CHECKERS) == {
        "missing_checker": [], "missing_theorem": []}
    assert set(casts) == EXACT_CASTS


def test_pending_checkers_are_exactly_the_theorems_without_one():
    declared = inventory.theorem_declarations(LEAN)
    registry = set(registry_names())
    without = {q for q, rel in declared.items()
               if rel != inventory.EXACT_FILE and q.split(".")[-1] not in registry}
    assert set(inventory.PENDING_CHECKERS) == without
    # today: the four FedAvg statements of issue 12, whose Python checkers come later
    assert without <= FEDAVG_THEOREMS
    assert not registry & {p.split(".")[-1] for p in inventory.PENDING_CHECKERS}


def test_no_checker_is_pending_and_namespaces_match_the_lean_ones():
    assert inventory.PENDING_CHECKERS == ()
    from pyfed.checkers import registry
    declared = inventory.theorem_declarations(LEAN)
    statements = {q for q, rel in declared.items() if rel != inventory.EXACT_FILE}
    assert set(registry.qualified_names()) == statements
    for q in registry.qualified_names():
        assert registry.get(q).qualified_name == q


def test_a_new_theorem_without_checker_is_not_excused_by_pending():
    rel = "Pyfed/FedAvg/Theorems.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = text.replace("end FedAvg", "theorem ClientDriftZero : True := trivial\n\nend FedAvg")
    statements, _ = inventory.theorem_names(LEAN, sources={rel: broken})
    mm = inventory.registry_mismatch(statements, registry_names(), inventory.PENDING_CHECKERS)
    assert mm == {"missing_checker": ["ClientDriftZero"], "missing_theorem": []}


def test_theorems_are_namespace_qualified():
    declared = inventory.theorem_declarations(LEAN)
    assert declared["SCAFFOLD.PerturbedStrongConvexity"] == "Pyfed/Scaffold/Theorems.lean"
    assert declared["FedAvg.PerRoundProgress"] == "Pyfed/FedAvg/Theorems.lean"
    assert {q for q, rel in declared.items() if q.startswith("FedAvg.") and rel != inventory.EXACT_FILE} == FEDAVG_THEOREMS
    assert declared["FedAvg.driftRHSQ_cast"] == inventory.EXACT_FILE


def test_theorem_files():
    statements, _ = inventory.theorem_names(LEAN)
    assert statements["ConvexFiniteRoundConvergence"] == "Pyfed/Scaffold/Theorems.lean"
    assert statements["ServerControlIsMean"] == "Pyfed/Algorithms/Scaffold.lean"


def test_broken_copy_extra_theorem_fails():
    rel = "Pyfed/Lemmas/Inequalities.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = text.replace("end SCAFFOLD", "theorem ParallelogramLaw : True := trivial\n\nend SCAFFOLD")
    statements, _ = inventory.theorem_names(LEAN, sources={rel: broken})
    mm = inventory.registry_mismatch(statements, registry_names(), inventory.PENDING_CHECKERS)
    assert mm["missing_checker"] == ["ParallelogramLaw"] and mm["missing_theorem"] == []


def test_broken_copy_renamed_theorem_fails():
    rel = "Pyfed/Lemmas/Inequalities.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = text.replace("theorem YoungInner", "theorem YoungInequality")
    statements, _ = inventory.theorem_names(LEAN, sources={rel: broken})
    mm = inventory.registry_mismatch(statements, registry_names(), inventory.PENDING_CHECKERS)
    assert mm == {"missing_checker": ["YoungInequality"], "missing_theorem": ["YoungInner"]}


def test_commented_out_theorem_does_not_count():
    rel = "Pyfed/Lemmas/Inequalities.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = text.replace("theorem SumSquares", "-- theorem SumSquares\ntheorem SumSquares'")
    statements, _ = inventory.theorem_names(LEAN, sources={rel: broken})
    assert "SumSquares" not in statements and "SumSquares'" in statements
