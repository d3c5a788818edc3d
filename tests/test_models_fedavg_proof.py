"""The scalar reading of a FedAvg run statement (pyfed.models.fedavg.proof)."""

from __future__ import annotations

import sympy

from pyfed.lean.paths import source_lean_dir
from pyfed.models.fedavg.proof import proof_form
from pyfed.models.registry import read_file


def test_the_drift_lemma_read_as_scalars():
    st = next(s for s in read_file(source_lean_dir() / "PyfedPublished" / "FedAvg.lean") if s.name == "BoundedClientDrift")
    f = proof_form(st)
    tau, eta, s, z = sympy.symbols("tau eta σ ζ")
    assert f.relation == "≤ᵐ" and f.shape == "FedAvg Run (conditional, given round t)"
    assert sympy.expand(f.rhs - (18 * tau ** 2 * eta ** 2 * z ** 2 + 4 * tau * eta ** 2 * s ** 2)) == 0
    assert [h.text for h in f.hypotheses] == ["0 < τ", "0 < T", "0 < η", "η ≤ 1 / (4 * P.L)", "t < T", "k ≤ τ"]
    (lhs,) = f.lhs_atoms
    assert str(lhs) == "condexp(stat[clientDriftSq](t, k, i), t)"
    assert any(af.why.endswith("≥ 0") and af.fact.lhs == lhs for af in f.facts)      # a conditional variance


def test_the_tuned_run_has_its_step_in_its_shape():
    st = next(s for s in read_file(source_lean_dir() / "PyfedPublished" / "FedAvg.lean")
              if s.name == "TunedConvexFedAvgConvergence")
    assert "step fn[optimizedStep](tau, T)" in proof_form(st).shape
