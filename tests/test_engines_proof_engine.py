"""Statement-level proofs (pyfed.engines.proof.engine) on the variants of tests/data/holds: every
true variant holds with the kind of proof it should get and its reason; no false variant (each one
edit away from a true one) holds. Variants about runs take about a second each (marked slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyfed.engines.proof.engine import combine_proofs, prove_statement
from pyfed.models.registry import published_proof_forms, read_file

DATA = Path(__file__).parent / "data" / "holds"

#: true variant -> the kind of proof it gets
TRUE = {
    "true_convex_stricter_step": "reduction", "true_convex_rhs_times_two": "reduction",
    "true_convex_rhs_plus_noise": "reduction", "true_convex_rhs_unfolded": "reduction",
    "true_nonconvex_stricter_step": "reduction", "true_nonconvex_rhs_three_halves": "reduction",
    "true_fedavg_drift_times_two": "reduction", "true_fedavg_convergence_step_and_term": "reduction",
    "true_fedavg_drift_unfolded": "reduction", "true_gradient_growth_three": "reduction",
    "true_perturbed_eighth": "reduction", "true_nonexpansive_shorter_step": "certificate",
    "true_nonexpansive_weaker_constant": "certificate", "true_parallelogram": "identity",
    "true_weighted_variance_signed": "identity", "true_local_sgd_mean_step": "identity",
    "true_vacuous_scalars": "vacuous", "true_vacuous_run": "vacuous", "true_closed": "closed",
    "true_relaxed_triangle_weaker": "identity", "true_am_gm": "identity",
    "true_convex_noise_factor_without_server_step": "reduction", "true_vacuous_step_lower_bounds": "vacuous",
}
FALSE = sorted(p.stem for p in DATA.glob("false_*.lean"))
#: variants whose statements are about a SCAFFOLD or FedAvg run (slower: marked slow)
RUNS = ("convex", "nonconvex", "fedavg")


def _param(name):
    slow = any(name.split("_", 1)[1].startswith(r) for r in RUNS) or "nonexpansive" in name or "gradient_growth" in name
    return pytest.param(name, marks=pytest.mark.slow) if slow else name


def _outcome(name):
    (st,) = read_file(DATA / f"{name}.lean")
    return st, prove_statement(st, forms=published_proof_forms())


def test_the_variant_sets_are_as_the_issue_asks():
    trues = sorted(p.stem for p in DATA.glob("true_*.lean"))
    assert trues == sorted(TRUE) and len(trues) >= 15 and len(FALSE) >= 15
    kinds = set(TRUE.values())
    assert {"reduction", "certificate", "identity", "vacuous", "closed"} <= kinds


@pytest.mark.parametrize("name", [_param(n) for n in sorted(TRUE)])
def test_every_true_variant_holds_with_its_reason(name):
    st, out = _outcome(name)
    assert out.proof is not None and out.proof.complete, [a.reason for a in out.attempts]
    assert out.proof.kind == TRUE[name]
    assert out.proof.summary and out.proof.label.startswith("holds")
    assert all(s.ok for s in out.proof.steps)


@pytest.mark.parametrize("name", [_param(n) for n in FALSE])
def test_no_false_variant_holds(name):
    st, out = _outcome(name)
    assert out.proof is None
    assert out.attempts       # and it says what was tried and why it failed


@pytest.mark.slow
def test_a_corrupted_side_condition_makes_the_reduction_fail_at_that_step():
    """The convex statement with the looser step h ≤ 1/(60 β): the reduction stops at the step
    hypothesis, which is named, and nothing after it is claimed."""
    st, out = _outcome("false_convex_looser_step")
    (att,) = [a for a in out.attempts if a.against == "SCAFFOLD.ConvexFiniteRoundConvergence"]
    assert att.reason.startswith("hypothesis implication undecided: `effectiveStep K ηl ηg ≤ 1 / (81 * P.β)`")
    assert [s.ok for s in att.steps][-1] is False
    assert not any("right side" in s.claim for s in att.steps)


def test_combined_proofs_need_every_conjunct():
    st, out = _outcome("true_am_gm")
    assert combine_proofs("X", [out.proof, out.proof]).kind == "identity"
    assert combine_proofs("X", [out.proof, None]) is None
