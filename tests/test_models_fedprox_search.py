"""The FedProx search (:mod:`pyfed.models.fedprox.search`) on the example statements: the true ones
(μ = 0 is FedAvg, one round in closed form, the contraction) are never violated on instances
decided exactly inside their hypotheses; the false K-step rate is violated by a witness whose sides
are derived by hand, that re-checks exactly (and the hand-derived instance of the example's
docstring too), replays with ``pyfed check --replay`` and is written as a Lean file."""

from __future__ import annotations

import json
from fractions import Fraction as Fr
from pathlib import Path

import pytest

from cli_helpers import run_cli
from pyfed import read_file
from pyfed.models.protocol import RecheckError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "statements"


def _statements(name):
    return {st.name: st for st in read_file(EXAMPLES / name)}


@pytest.mark.parametrize("file,name", [("fedprox_mu_zero_is_fedavg.lean", "FedProxZeroIsFedAvg"),
                                       ("fedprox_one_round.lean", "FedProxOneLocalStep"),
                                       ("fedprox_one_round.lean", "FedProxTwoLocalSteps"),
                                       ("fedprox_contraction.lean", "FedProxContraction")])
def test_true_statements_are_never_violated(file, name):
    st = _statements(file)[name]
    res = st.model.search(st, seed=0, budget=4)
    v = res.verdict
    assert v.status == "inconclusive" and v.exact and v.details["violated"] == 0
    assert v.details["decided"] >= 16 and v.details["in_hypotheses"] == v.details["decided"]
    assert v.details["engine"] == "adversarial search (FedProx procedure lemma, decided exactly)"
    if name == "FedProxContraction":        # the bound is attained (r = 0) and never exceeded
        assert all(r.lhs <= r.rhs for r in res.records if r.status == "holds")
        assert Fr(v.details["lhs_exact"]) == Fr(v.details["rhs_exact"])


def test_the_local_steps_rate_is_violated_where_the_hand_computation_says():
    """Candidate 0: one client, a = m = 1/2, μ = 1/2, ηl = 1/4, K = 2, r = 1, ‖x0 − x⋆‖² = 25/4.
    q = 1 − ηl (a + μ) = 3/4 and a round multiplies x − x⋆ by ρ = (μ + a q²)/(a + μ) = 25/32:
    left side (25/32)² · 25/4 = 15625/4096 > right side (1 − ηl m)^4 · 25/4 = (7/8)^4 · 25/4 = 60025/16384."""
    st = _statements("fedprox_local_rate.lean")["FedProxLocalStepsRate"]
    v = st.model.search(st, seed=0, budget=4).verdict
    assert v.status == "violated" and v.certified and v.witness["index"] == 0
    assert (v.details["lhs_exact"], v.details["rhs_exact"]) == ("15625/4096", "60025/16384")
    again = st.model.recheck(st, v.witness)
    assert (again.status, again.lhs, again.rhs) == ("violated", Fr(15625, 4096), Fr(60025, 16384))


def test_the_docstring_s_instance_rechecks_exactly():
    # d = 1, N = S = 1, a = m = 1, μ = 1, ηl = 1/2, K = 2, x⋆ = 0, x0 = 1, r = 1: y1 = y2 = 1/2,
    # left side 1/4, right side (1/2)^4 = 1/16
    st = _statements("fedprox_local_rate.lean")["FedProxLocalStepsRate"]
    inst = {"d": 1, "N": 1, "S": 1, "K": 2, "ηl": "1/2", "μ": "1", "m": "1", "a": {"family": "fin", "values": ["1"]},
            "xstar": {"vec": ["0"]}, "x0": {"vec": ["1"]}, "samples": {"family": "samples", "values": [[0]]}, "r": 1,
            "__nat_bound__": 3}
    rec = st.model.recheck(st, {"instance": inst})
    assert (rec.status, rec.lhs, rec.rhs) == ("violated", Fr(1, 4), Fr(1, 16))
    true = _statements("fedprox_contraction.lean")["FedProxContraction"]
    rec = true.model.recheck(true, {"instance": inst})           # the true bound: 1/4 ≤ (1/2)^2 = 1/4
    assert (rec.status, rec.lhs, rec.rhs) == ("holds", Fr(1, 4), Fr(1, 4))
    with pytest.raises(RecheckError, match="no value for a"):
        st.model.recheck(st, {"instance": {k: v for k, v in inst.items() if k != "a"}})


def test_the_witness_replays_and_its_lean_file_lists_the_instance(tmp_path):
    path = EXAMPLES / "fedprox_local_rate.lean"
    code, out, err = run_cli(["check", str(path), "--quick", "--budget", "2", "--out", str(tmp_path / "out"),
                              "--json", str(tmp_path / "r.json")])
    assert code == 1, err
    files = sorted((tmp_path / "out").iterdir())
    assert [f.suffix for f in files] == [".json", ".lean"]
    rec = json.loads(files[0].read_text(encoding="utf-8"))
    assert rec["shape"] == "fedprox_procedure" and rec["decided_by"].startswith("pyfed.statements.interpret")
    lean = files[1].read_text(encoding="utf-8")
    for line in ("def a : List ℚ := [1 / 2]", "def samples : List (List ℕ) := [[0], [0], [0], [0]]",
                 "def lhs : ℚ := 15625 / 4096", "def rhs : ℚ := 60025 / 16384", "#guard rhs < lhs"):
        assert line in lean
    code, out, err = run_cli(["check", "--replay", str(files[0])])
    assert code == 1 and "both sides equal the recorded ones exactly" in out
    assert "FedProx procedure evaluated from its Lean body" in out


SERVER_STEP_UNBOUNDED = """import Pyfed
open SCAFFOLD (Space LocalOracle)
open FedProxProcedure

/-- False: with N = S = K = 1, a = 1, μ = 0, ηl = 1 the local step lands on x⋆, so a round maps
x₀ - x⋆ to (1 - ηg)(x₀ - x⋆); ηg = 3 doubles the distance (4 > 1 for x₀ - x⋆ = 1). Nothing
bounds ηg above. -/
theorem ServerStepUnbounded {d N : ℕ} (S K : ℕ) (ηl ηg μ : ℝ) (a : Fin N → ℝ)
    (xstar x0 : Space d) (samples : ℕ → Finset (Fin N)) (r : ℕ)
    (hμ : 0 ≤ μ) (ha : ∀ i, 0 ≤ a i) (hηl : 0 < ηl) (hstep : ∀ i, ηl * (a i + μ) ≤ 1)
    (hηg : 0 < ηg) (hK : 1 ≤ K) (hS : 0 < S) (hcard : ∀ t, (samples t).card = S) :
    ‖fedProx S K ηl ηg μ (fun _ i _ y => a i • (y - xstar)) samples x0 r - xstar‖ ^ 2 ≤
      ‖x0 - xstar‖ ^ 2 := by
  sorry
"""


def test_a_statement_false_only_for_a_large_server_step_is_violated(tmp_path):
    """The server step ηg is drawn beyond 2 when no hypothesis bounds it (up to 1000): the
    statement holds for ηg ≤ 2 (the round is a contraction times 1 - ηg(1 - c) with c in [0, 1])
    and fails beyond; the witness re-checks exactly."""
    path = tmp_path / "server_step.lean"
    path.write_text(SERVER_STEP_UNBOUNDED, encoding="utf-8")
    (st,) = read_file(path)
    res = st.model.search(st, seed=0, budget=24)
    v = res.verdict
    assert v.status == "violated" and v.exact and Fr(v.details["lhs_exact"]) > Fr(v.details["rhs_exact"])
    assert Fr(v.witness["instance"]["ηg"]) > 2
    assert st.model.recheck(st, v.witness).status == "violated"
