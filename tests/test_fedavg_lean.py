"""FedAvg on the Lean side of pyfed: the drift check of the FedAvg right sides and their ℚ mirrors
against pyfed.theory.fedavg, and the generated Lean files (instances, counterexamples)."""

import types
from fractions import Fraction as Fr
from pathlib import Path

import pytest

from pyfed.lean import drift, render
from pyfed.theory import fedavg as th

LEAN = Path(__file__).resolve().parents[1] / "lean"
MODEL = "Pyfed/FedAvg/Model.lean"
EXACT = "Pyfed/Exact.lean"
THEOREMS = "Pyfed/FedAvg/Theorems.lean"


def _text(rel):
    return (LEAN / rel).read_text(encoding="utf-8")


def test_fedavg_definitions_are_in_sync_with_pyfed_theory():
    assert drift.check_fedavg_drift(LEAN, points=12) == []
    # and check_drift runs the FedAvg half by default
    assert drift.check_drift(LEAN, points=4) == []


def test_a_changed_lean_constant_is_drift():
    old = "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"
    assert old in _text(MODEL)
    broken = _text(MODEL).replace(old, "17 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={MODEL: broken})}
    assert {"driftRHS", "driftRHS vs driftRHSQ"} <= bad
    # a cube root turned into a square root in the tuned step
    old = "Real.rpow P.ζ (2 / 3 : ℝ)))))"
    assert old in _text(MODEL)
    broken = _text(MODEL).replace(old, "Real.rpow P.ζ (1 / 2 : ℝ)))))")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={MODEL: broken})}
    assert "optimizedStep" in bad


def test_a_changed_mirror_is_drift():
    old = "distSq / (2 * η * (τ : ℚ) * (T : ℚ))"
    assert old in _text(EXACT)
    broken = _text(EXACT).replace(old, "distSq / (η * (τ : ℚ) * (T : ℚ))")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={EXACT: broken})}
    assert {"convergenceRHSQ", "convergenceRHS vs convergenceRHSQ"} <= bad


def test_a_changed_python_formula_is_drift():
    patched = types.SimpleNamespace(**{k: getattr(th, k) for k in dir(th) if not k.startswith("__")})
    patched.drift_rhs = lambda tau, eta, **kw: th.drift_rhs(tau, eta, **kw) + (eta**2 if tau else 0)
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, theory=patched)}
    assert {"driftRHS", "driftRHSQ"} <= bad


def test_a_changed_hypothesis_is_drift():
    old = "0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →\n    ∀ R : Run P μ τ T η, (∫ ω"
    assert old in _text(THEOREMS)
    broken = _text(THEOREMS).replace(old, "0 < τ → 0 < T → 0 < η → η ≤ 1 / (2 * P.L) →\n    ∀ R : Run P μ τ T η, (∫ ω")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={THEOREMS: broken})}
    assert bad == {"ConvexFedAvgConvergence hypothesis eta <= 1/(4L)"}
    broken = _text(THEOREMS).replace("0 < P.σ → 0 < P.ζ →", "0 < P.ζ →")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={THEOREMS: broken})}
    assert bad == {"TunedConvexFedAvgConvergence hypothesis 0 < P.σ"}


# ------------------------------------------------------------------------------------------ rendering

def test_fedavg_instances_file_states_exact_values_and_hypotheses():
    text = render.render_fedavg_instances()
    assert "open FedAvg" in text and "driftRHSQ" in text and "convergenceRHSQ" in text
    for inst in render.fedavg_instances():
        for fact in render.fedavg_value_facts(inst):
            assert fact["exact"] == (th.drift_rhs(inst["tau"], inst["eta"], sigma_sq=inst["sigma_sq"],
                                                  zeta_sq=inst["zeta_sq"]) if fact["name"] == "driftRHSQ" else
                                     th.convergence_rhs(dist_sq=inst["dist_sq"], M=inst["M"], tau=inst["tau"],
                                                        T=inst["T"], eta=inst["eta"], L=inst["L"],
                                                        sigma_sq=inst["sigma_sq"], zeta_sq=inst["zeta_sq"]))
            assert render.rat(fact["exact"]) in text
        assert all(f["holds"] for f in render.fedavg_hypothesis_facts(inst))


def test_committed_generated_files_are_in_sync():
    assert render.check_all(LEAN) == []


def test_fedavg_counterexample_file_rederives_the_right_side(tmp_path):
    from pyfed.search import search_to_dir

    paths = search_to_dir("FedAvg.BoundedClientDrift", seed=0, budget=2, out=str(tmp_path), relax=("step_size",))
    assert paths
    lean = sorted(p for p in tmp_path.iterdir() if p.suffix == ".lean")
    assert lean
    text = lean[0].read_text()
    assert "open FedAvg" in text and "driftRHSQ" in text and "NOT a counterexample" in text
    # a record whose right side disagrees with the mirror is rejected
    rec = {"lean_name": "FedAvg.BoundedClientDrift", "lhs": "2", "rhs": "1",
           "instance": {"M": "2", "tau": "1", "T": "1", "eta": "1/4", "L": "1", "sigma": "0", "zeta_sq": "1",
                        "dist_sq": "1"}}
    from pyfed.errors import InputError
    with pytest.raises(InputError) as e:
        render.render_counterexample(rec)
    assert e.value.argument == "rhs"
    rec["rhs"] = str(th.drift_rhs(1, Fr(1, 4), sigma_sq=0, zeta_sq=1))
    assert "driftRHSQ 1 (1/4 : ℚ)" in render.render_counterexample(rec)
