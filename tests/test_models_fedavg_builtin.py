"""The FedAvg engines (pyfed.models.fedavg.exact, fedavg_montecarlo, fedavg_engines) on
statements read from Lean: the default report's FedAvg rows equal the stored ones; exact values
against hand derivations and an independent brute-force run; false variants violated with a witness
that re-checks exactly, true variants never; `pyfed check FILE.lean` exit codes."""

from __future__ import annotations

import json
from fractions import Fraction as Fr
from pathlib import Path

import pytest

from pyfed.cli import main
from pyfed.engines.exact.fedavg import fedavg_shadow_moments
from pyfed.models.fedavg.builtin import run_builtin
from pyfed.models.fedavg.exact import decide_instance, recheck
from pyfed.models.fedavg.families import instance_from_json
from pyfed.models.fedavg.montecarlo import decide_montecarlo
from pyfed import read_file, read_text
from pyfed.suites.fedavg import fedavg_suite
from pyfed.theory import fedavg as th
from pyfed.verdicts import Evidence

ROOT = Path(__file__).resolve().parent.parent
THEOREMS = ROOT / "lean" / "Pyfed" / "FedAvg" / "Theorems.lean"
PUBLISHED = ROOT / "lean" / "PyfedPublished" / "FedAvg.lean"
EXAMPLE = ROOT / "examples" / "statements" / "fedavg_drift_small_constant.lean"
BASELINE = Path(__file__).resolve().parent / "data" / "default_fedavg_28be5d8.json"
NAMES = ["PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence", "TunedConvexFedAvgConvergence"]


def _ours():
    return {s.name: s for s in read_file(THEOREMS)}


def _variant(name, old, new):
    """Our theorem ``name`` with ``old`` replaced by ``new`` in its text (a user's variant)."""
    text = THEOREMS.read_text(encoding="utf-8")
    a = text.index(f"theorem {name}")
    b = text.index(":= by sorry", a)
    assert old in text[a:b]
    (st,) = read_text(text[:a] + text[a:b].replace(old, new, 1) + text[b:], "variant.lean", theorem=name)
    return st


# ---------------------------------------------------------------- the default report's rows

def _same(new, old, rel):
    if "exact" in old:
        return new.get("exact") == old["exact"] if isinstance(new, dict) else False
    if "exact_sha256" in old:
        return new.get("exact_sha256") == old["exact_sha256"]
    if "estimate" in old:
        return abs(new["estimate"] - old["estimate"]) <= rel * abs(old["estimate"])
    return abs(new["float"] - old["float"]) <= rel * max(abs(old["float"]), 1e-300)


def _rows(quick, seed, exact_only=False):
    sts = _ours()
    out = []
    for name in NAMES:
        for inst in fedavg_suite(quick=quick, seed=seed):
            if exact_only and not inst.exact:
                continue
            v = run_builtin(sts[name], inst, replicates=64 if quick else 256, seed=seed, name=f"FedAvg.{name}")
            out.append(json.loads(json.dumps(v.to_json(), default=str)))
    return out


def test_default_rows_on_the_exact_instance_equal_the_stored_report():
    base = [r for r in json.loads(BASELINE.read_text())["quick=True,seed=0"] if r["exact"]]
    new = _rows(True, 0, exact_only=True)
    assert [r["statement"] for r in new] == [r["statement"] for r in base] == [f"FedAvg.{n}" for n in NAMES]
    for n, o in zip(new, base):
        assert n["status"] == o["status"] == "holds" and n["exact"]
        for side in ("lhs", "rhs", "margin", "ratio"):
            assert _same(n[side], o[side], 1e-12), (n["statement"], side)
    evidence = [r["evidence"] for r in new]
    assert evidence[:3] == [Evidence.EXACT.value] * 3 and evidence[3] == Evidence.BALL.value


@pytest.mark.slow
@pytest.mark.parametrize("key", ["quick=True,seed=0", "quick=True,seed=3", "quick=False,seed=0"])
def test_default_fedavg_rows_reproduce_the_stored_report(key, default_check):
    base = json.loads(BASELINE.read_text())[key]
    quick = key.startswith("quick=True")
    seed = int(key.rsplit("=", 1)[1])
    vs = default_check(quick, seed)                   # run_check(quick=quick, seed=seed, replicates=64 if quick else 256)
    new = [json.loads(json.dumps(v.to_json(), default=str)) for v in vs if v.statement.startswith("FedAvg.")]
    assert [r["statement"] for r in new] == [r["statement"] for r in base]
    for n, o in zip(new, base):
        assert n["status"] == o["status"] and n["exact"] == o["exact"]
        for side in ("lhs", "rhs", "margin", "ratio"):
            assert _same(n[side], o[side], 1e-9), (n["statement"], side, n[side], o[side])


# ---------------------------------------------------------------- exact values

FLAT = {"A": [["1", "0"], ["0", "1/1000"]], "b": [["0", "1"], ["0", "-1"]], "L": "1", "sigma": "0", "tau": "4",
        "T": "1", "eta": "1/4", "x0": ["0", "0"]}


def test_drift_along_a_flat_direction_is_the_geometric_sum():
    """Two clients with b = ±e₂ and curvature 1/1000 along e₂ from a common start: each client's
    e₂ coordinate follows x ← (1 − η/1000) x ± η, the mean stays, so the drift after k steps is
    (η (1 − rᵏ)/(1 − r))² with r = 1 − η/1000, at every round start (σ = 0)."""
    st = _ours()["BoundedClientDrift"]
    out = decide_instance(st, instance_from_json(FLAT))
    eta, r = Fr(1, 4), 1 - Fr(1, 4000)
    assert out.status == "holds" and out.verdict.evidence == Evidence.EXACT
    assert out.lhs == (eta * (1 - r ** 4) / (1 - r)) ** 2
    assert out.rhs == th.drift_rhs(4, eta, sigma_sq=0, zeta_sq=1) == 18 * 16 * eta ** 2
    assert out.verdict.details["tightest_label"] == "t=0, k=4, i=0"


def test_expectation_equals_the_exact_moments_and_the_theory_rhs():
    inst = {"A": [["1"]], "b": [["1/2"], ["-1/2"]], "L": "1", "sigma": "1/2", "tau": "2", "T": "3", "eta": "1/4",
            "x0": ["1"]}
    ri = instance_from_json(inst)
    out = decide_instance(_ours()["ConvexFedAvgConvergence"], ri)
    m = fedavg_shadow_moments(ri.problem, Fr(1, 2), tau=2, T=3, eta=Fr(1, 4), x0=[1])
    assert out.status == "holds" and out.lhs == m.avg_loss
    assert out.rhs == th.convergence_rhs(dist_sq=1, M=2, tau=2, T=3, eta=Fr(1, 4), L=1, sigma_sq=Fr(1, 4),
                                         zeta_sq=Fr(1, 4))
    tuned = decide_instance(_ours()["TunedConvexFedAvgConvergence"], instance_from_json(dict(inst, sigma="2")))
    assert tuned.status == "holds" and tuned.verdict.evidence == Evidence.BALL


def _brute_huber_drift(inst):
    """Client drifts after τ local steps of the huber clients, in Fractions (independent code)."""
    Q = [[Fr(v) for v in r] for r in inst["Q"]]
    b = [[Fr(v) for v in r] for r in inst["b"]]
    c = [[Fr(v) for v in r] for r in inst["c"]]
    u = [[Fr(v) for v in r] for r in inst["u"]]
    eta = Fr(inst["eta"])
    xs = [[Fr(v) for v in inst["x0"]] for _ in b]
    for _ in range(int(inst["tau"])):
        new = []
        for i, x in enumerate(xs):
            g = [sum(Q[r][j] * x[j] for j in range(2)) - b[i][r] for r in range(2)]
            for m, um in enumerate(u):
                s = max(Fr(-1), min(Fr(1), um[0] * x[0] + um[1] * x[1]))
                g = [g[r] + c[i][m] * s * um[r] for r in range(2)]
            new.append([x[r] - eta * g[r] for r in range(2)])
        xs = new
    mean = [sum(x[r] for x in xs) / len(xs) for r in range(2)]
    return [sum((x[r] - mean[r]) ** 2 for r in range(2)) for x in xs]


def test_huber_clients_drift_above_tau2_eta2_zeta2_exactly():
    """The anisotropic huber instance: the engine's drift equals an independent brute-force run,
    exceeds τ²η²ζ² (so Lemma 2 with 18 → 1 is false) and is far below the published bound."""
    from pyfed.checkers.fedavg import DRIFT_HUBER_INSTANCE as H

    ri = instance_from_json(H)
    assert all(h.holds for h in ri.hypotheses) and ri.zeta_sq == 1
    drift = max(_brute_huber_drift(H))
    eta = Fr(4, 25)
    assert drift > 36 * eta ** 2 and drift / (36 * eta ** 2) > Fr(1016, 1000)
    st1 = _variant("BoundedClientDrift", "driftRHS P τ η", "1 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2")
    out = decide_instance(st1, ri)
    assert out.status == "violated" and out.lhs == drift and out.rhs == 36 * eta ** 2
    assert recheck(st1, ri, out.witness)
    assert decide_instance(_ours()["BoundedClientDrift"], ri).status == "holds"


def test_conditional_violation_has_an_exact_witness_start_that_rechecks():
    """PerRoundProgress without its noise term: from the optimum of one noisy client A_t > 0 while
    the right side is negative; the witness start re-checks exactly."""
    st = _variant("PerRoundProgress", "progressRHS R t", "progressTerm R t")
    ri = instance_from_json({"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1", "tau": "2", "T": "1",
                             "eta": "1/4", "x0": ["0"]})
    out = decide_instance(st, ri)
    assert out.status == "violated" and out.lhs > out.rhs and out.verdict.exact
    assert recheck(st, ri, out.witness)
    y = [Fr(v) for v in out.witness["round_start"]]
    again = decide_instance(st, instance_from_json({**ri.extra["json"], "x0": [str(v) for v in y]}))
    assert again.status == "violated"


def test_failing_hypothesis_is_reported_with_the_inequality():
    st = _ours()["PerRoundProgress"]
    ri = instance_from_json({"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "0", "tau": "2", "T": "1", "eta": "4",
                             "x0": ["1"]})
    out = decide_instance(st, ri)
    assert out.status == "outside" and out.verdict.status == "inconclusive"
    assert out.verdict.details["inequality"] == "violated" and "η ≤ 1 / (4 * P.L)" in out.verdict.reason


def test_monte_carlo_agrees_with_the_exact_expectation():
    inst = {"A": [["1", "0"], ["0", "2"]], "b": [["1", "0"], ["-1", "1"], ["0", "-1"]], "L": "2", "sigma": "1/2",
            "tau": "3", "T": "3", "eta": "1/8", "x0": ["1", "-1"]}
    ri = instance_from_json(inst)
    st = _variant("ConvexFedAvgConvergence", "convergenceRHS P τ T η", "0")    # E[A] ≤ 0: the estimate itself
    exact = decide_instance(st, ri)
    mc = decide_montecarlo(st, ri, replicates=4000, seed=5, confidence=0.9999)
    est = mc.details["estimate"]
    assert est["lower"] <= float(exact.lhs) <= est["upper"]
    assert mc.evidence == Evidence.MONTE_CARLO and exact.status == "violated" and mc.status == "violated"


# ---------------------------------------------------------------- variants (a user's statements)

FALSE_VARIANTS = [
    ("BoundedClientDrift", "driftRHS P τ η",
     "(1 / 2) * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"),          # a constant too small
    ("ConvexFedAvgConvergence", "convergenceRHS P τ T η",
     "distance P ^ 2 / (2 * η * (τ : ℝ) * (T : ℝ)) + 18 * (τ : ℝ) ^ 2 * η ^ 2 * P.L * P.ζ ^ 2"),  # terms dropped
    ("PerRoundProgress", "η ≤ 1 / (4 * P.L)", "η ≤ 2 / P.L"),                                  # hypothesis loosened
]
TRUE_VARIANTS = [
    ("BoundedClientDrift", "driftRHS P τ η", "2 * driftRHS P τ η"),                            # right side enlarged
    ("ConvexFedAvgConvergence", "η ≤ 1 / (4 * P.L)", "η ≤ 1 / (8 * P.L)"),                     # hypothesis tightened
]


@pytest.mark.slow
@pytest.mark.parametrize("name,old,new", FALSE_VARIANTS, ids=["drift-half", "convex-no-noise", "progress-2-over-L"])
def test_false_variants_are_violated_with_a_witness_that_rechecks(name, old, new):
    from pyfed.models.fedavg.search import search

    st = _variant(name, old, new)
    v = search(st, seed=0, budget=2).verdict
    assert v.status == "violated" and v.evidence == Evidence.SEARCH
    w = v.witness
    assert recheck(st, instance_from_json(w["instance"]), w)


@pytest.mark.slow
@pytest.mark.parametrize("name,old,new", TRUE_VARIANTS, ids=["drift-doubled", "convex-step-1-over-8L"])
def test_true_variants_are_never_violated(name, old, new):
    from pyfed.models.fedavg.search import search

    st = _variant(name, old, new)
    res = search(st, seed=1, budget=6)
    assert res.verdict.status == "inconclusive" and res.verdict.details["decided"] >= 10
    assert not any(r.status == "violated" for r in res.records)
    quad = next(i for i in fedavg_suite(quick=True) if i.exact)
    v = run_builtin(st, quad)
    assert v.status == "holds"
    if "8 * P.L" in new:      # the built-in step 1/(4L) is halved to satisfy the tighter hypothesis
        assert "halved 1 time" in v.details["step_fitted"]


# ---------------------------------------------------------------- pyfed check FILE.lean

def test_cli_reads_every_fedavg_theorem_before_any_work(tmp_path, capsys):
    bad = tmp_path / "bad.lean"
    bad.write_text(THEOREMS.read_text(encoding="utf-8").replace("R.history (t * τ)]", "R.history (t * τ + 1)]", 1),
                   encoding="utf-8")
    assert main(["check", str(bad), "--quick"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:" in err and "conditioning on" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("path", [THEOREMS, PUBLISHED], ids=["ours", "published"])
def test_cli_decides_every_fedavg_theorem(path, theorem_file_check):
    code, _, _, rep = theorem_file_check(path)       # pyfed check PATH --quick --no-profile --json R
    assert code == 0
    assert [s["read"]["name"] for s in rep["statements"]] == NAMES
    assert all(s["read"]["shape"] == "fedavg_run" for s in rep["statements"])
    assert all(v["status"] != "violated" for v in rep["verdicts"])
    assert sum(v["status"] == "holds" for v in rep["verdicts"]) == 8     # the two built-in rows of each


@pytest.mark.slow
def test_cli_exit_codes_of_the_example_and_a_true_variant(tmp_path, capsys):
    assert main(["check", str(EXAMPLE), "--quick", "--no-profile", "--budget", "1"]) == 1
    out = capsys.readouterr().out
    assert "violated" in out and "at the round start y" in out
    text = EXAMPLE.read_text(encoding="utf-8").replace("(1 / 2) * (τ : ℝ)", "36 * (τ : ℝ)")
    ok = tmp_path / "ok.lean"
    ok.write_text(text, encoding="utf-8")
    assert main(["check", str(ok), "--quick", "--no-profile", "--budget", "1"]) == 0


def test_a_sqrt_instance_is_decided_in_balls_and_keeps_them():
    """The sqrt family is irrational: decide_instance returns arb balls as the sides (not their
    float midpoints) and the verdict carries the balls of lhs, rhs, margin; with x0 at the optimum
    the left side of eq. (15)'s average loss is positive while dist² = σ = 0."""
    from flint import arb

    from pyfed.checkers.fedavg import FEDAVG_MUTATIONS
    from pyfed.checkers.mutations import mutated_statements
    from pyfed.models.fedavg.model import theorems_path as fedavg_theorems_path

    mut = next(m for m in FEDAVG_MUTATIONS["FedAvg.ConvexFedAvgConvergence"] if m.name == "drop_heterogeneity_term")
    (st,) = mutated_statements(fedavg_theorems_path(), "ConvexFedAvgConvergence", mut)
    inst = instance_from_json({"family": "sqrt", "a": "1", "b": ["1", "-1"], "c": ["1", "-1"], "L": "2",
                               "sigma": "0", "zeta_sq": "4", "tau": "4", "T": "2", "x0": ["0"], "eta": "1/8"})
    out = decide_instance(st, inst, gate=False)
    assert out.status == "violated" and isinstance(out.lhs, arb) and isinstance(out.rhs, arb)
    v = out.verdict
    assert v.evidence == Evidence.BALL and v.certified and "certified balls" in v.details["arithmetic"]
    assert "lhs_exact" not in v.details and v.balls["margin"] < 0 and v.balls["rhs"] == 0
    assert v.balls["lhs"].overlaps(arb("0.002660833175193891076588464063653838")) and v.balls["lhs"].rad() < 1e-30
