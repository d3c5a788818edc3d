"""`pyfed check`: the main job returns honest verdicts on the default suite."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from pyfed.suites.scaffold import (CONVEX, NONCONVEX, convex_step, default_suite, instance_hypotheses,
                                   instance_rhs, nonconvex_step, round_down)
from pyfed.cli import main
from pyfed.errors import Diverged, InputError
from pyfed import read_text
from pyfed.theory import failing

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "statements"


def test_round_down_is_below_and_close():
    for v in [1 / 81, 0.0123456789, 3.0, 1e-7]:
        r = round_down(v)
        assert isinstance(r, Fraction)
        assert r <= Fraction(v) and float(r) >= v * (1 - 2e-5)
    with pytest.raises(InputError, match="value"):
        round_down(-1)


def test_step_choices_meet_hypotheses_exactly():
    eta = convex_step(Fraction(3), Fraction(1, 10), 10, 5, 4)
    assert 4 * eta <= Fraction(1, 81 * 3)
    eta = nonconvex_step(Fraction(2), 8, 1, 1)
    assert (24 * 2 * eta) ** 3 <= Fraction(1, 64)


@pytest.fixture(scope="module")
def suite():
    return default_suite(quick=True, seed=0)


def test_default_suite_covers_both_theorems_on_real_data(suite):
    theorems = [inst.theorem for inst in suite]
    assert theorems.count(CONVEX) >= 2 and theorems.count(NONCONVEX) >= 1
    assert any("breast_cancer" in inst.name for inst in suite if inst.theorem == CONVEX)
    for inst in suite:
        assert failing(instance_hypotheses(inst)) == [], inst.name
        assert inst.S < inst.problem.N
    nonconvex = [inst for inst in suite if inst.theorem == NONCONVEX]
    assert all(inst.c0 is None for inst in nonconvex)  # warm start, as the theorem requires


def test_quadratic_instance_rhs_is_exact(suite):
    q = next(inst for inst in suite if inst.name.startswith("quadratic"))
    assert isinstance(instance_rhs(q), Fraction)


@pytest.mark.slow
def test_pyfed_check_quick_holds_everywhere(quick_check_cli):
    status, text, _, report = quick_check_cli
    # the built-in instances' verdicts: those that belong to no statement of the catalogue
    searched = {i for s in report["statements"] for i in s["verdicts"]}
    builtin = [v for i, v in enumerate(report["verdicts"]) if i not in searched]
    statuses = [v["status"] for v in builtin]
    assert statuses and all(s == "holds" for s in statuses), text
    assert status == 0
    assert "holds" in text
    for v in builtin:
        r = v["ratio"]
        if "estimate" in r:     # Monte Carlo: an estimate with its interval, labelled as such
            lo, hi = r["interval"]
            assert 0 <= lo <= r["estimate"] <= hi < 1 and r["kind"].startswith("Monte Carlo")
            assert isinstance(v["lhs"]["replicates"], int) and v["lhs"]["replicates"] >= 2
        else:
            assert 0 <= r["float"] < 1
    # the statement table has one row per checker, the published SCAFFOLD statements included
    rows = {s["lean_name"]: s for s in report["statements"]}
    assert {"PerturbedStrongConvexity", "FiniteRoundConvergence", "GradientGrowth"} <= set(rows)
    assert all(s["status"] != "violated" for s in rows.values())
    assert "PerturbedStrongConvexity" in text and "FiniteRoundConvergence" in text



def test_check_rejects_bad_seed_and_json_path_before_running(capsys):
    assert main(["check", "--seed", "-1"]) == 2
    assert "--seed" in capsys.readouterr().err
    assert main(["check", "--json", "/nonexistent-dir/x.json"]) == 2
    assert "--json" in capsys.readouterr().err


@pytest.mark.slow
def test_quadratic_instance_reports_the_convexity_hypothesis_and_exact_rhs(suite, default_check):
    q = next(inst for inst in suite if inst.name.startswith("quadratic"))
    keys = {h.key: h for h in instance_hypotheses(q)}
    assert keys["convexity"].holds            # A_i - mu I PSD, decided exactly
    # run_instance(q, seed=0, statement=statement_of(q.theorem)), as run_check(quick=True, seed=0) computes it
    (v,) = [v for v in default_check(True, 0) if v.details["instance"] == q.name]
    assert v.details["method"] == "exact-moments" and "replicates" not in v.details
    rhs = instance_rhs(q)
    assert isinstance(v.rhs, Fraction) and v.rhs == rhs
    assert v.details["rhs_exact"]["float"] == float(rhs)            # correctly rounded
    j = v.details["rhs_exact"]                                      # exact "p/q" or, if long, its digest
    assert Fraction(j["exact"]) == rhs if "exact" in j else abs(Fraction(j["decimal"]) - rhs) < rhs * Fraction(1, 10**16)


@pytest.mark.slow
def test_each_verdict_names_its_evidence(default_check, capsys):
    from pyfed.commands.render import evidence
    verdicts = default_check(True, 0)                 # run_check(quick=True, seed=0)
    ev = {v.details["instance"]: evidence(v) for v in verdicts}
    assert ev["quadratic-rational-N8-d4"] == "exact moments, exact rationals"
    assert ev["logistic-breast_cancer-dirichlet0.5"].startswith("Monte Carlo 99.9% t-interval, R=64")
    assert any(e == "PEP certificate over the class, exact" for e in ev.values())   # the PEP row, certified
    assert main(["check", "--replicates", "1"]) == 2
    assert "--replicates" in capsys.readouterr().err


def test_monte_carlo_verdict_reports_divergence_inside_the_hypotheses(monkeypatch):
    """pyfed check's Monte Carlo rows: a run that diverges is "diverged at round r" (inconclusive),
    flagged as an anomaly because every hypothesis holds there; never "more replicates needed"."""
    from pyfed.models.scaffold import montecarlo
    from pyfed.models.scaffold.builtin import run_instance
    from pyfed.models.scaffold.model import statement_of
    from pyfed.suites.scaffold import default_suite

    def diverging(*a, **k):
        raise Diverged(3, float("inf"), replicate=1, threshold=1e50)
    monkeypatch.setattr(montecarlo, "scaffold_run", diverging)
    inst = next(i for i in default_suite(quick=True) if i.name.startswith("logistic"))
    v = run_instance(inst, replicates=8, statement=statement_of(inst.theorem))
    assert v.status == "inconclusive" and v.reason.startswith("diverged at round 3")
    assert "inside the hypotheses" in v.reason and "more replicates" not in v.reason
    assert v.details["diverged"]["round"] == 3 and "anomaly" in v.details
    assert json.dumps(v.to_json(), default=str)


VACUOUS_HYPS = "effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →"


def test_check_statement_of_a_vacuous_statement_runs_nothing():
    from pyfed.check import check_statement
    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8")
    (st,) = read_text(text.replace(VACUOUS_HYPS, VACUOUS_HYPS + " ηl ≤ 0 →", 1), "v.lean")
    rep = check_statement(st, quick=True, budget=1)
    assert rep.verdicts == [] and rep.search is None and rep.profile is None and not rep.no_instance
    assert rep.vacuous == "no value of ηl satisfies `0 < ηl` and `ηl ≤ 0`"


@pytest.mark.slow
def test_quick_replicates_are_as_the_readme_says(quick_check_cli):
    # --quick: 64 replicates per Monte Carlo row; the conditional FedAvg lemmas run half of them
    # from each of their 3 round starts (the README's `R=32, 3 round starts (joint)`)
    from pathlib import Path
    _, _, _, report = quick_check_cli
    per_start = {v["statement"]: v["details"]["replicates_per_start"] for v in report["verdicts"]
                 if "replicates_per_start" in (v.get("details") or {})}
    assert set(per_start) == {"FedAvg.PerRoundProgress", "FedAvg.BoundedClientDrift"}
    assert set(per_start.values()) == {32}
    whole = {v["lhs"]["replicates"] for v in report["verdicts"]
             if isinstance(v.get("lhs"), dict) and "replicates" in v["lhs"]
             and "replicates_per_start" not in (v.get("details") or {})}
    assert whole == {64}
    readme = " ".join((Path(__file__).resolve().parents[1] / "docs" / "explanation" / "model.md")
                      .read_text(encoding="utf-8").split())
    assert "64 replicates" in readme and "their rows read `R=32, 3 round starts (joint)` with `--quick`" in readme


def test_a_proven_statement_is_searched_only_as_a_cross_check_unless_a_budget_is_given():
    """A statement with a complete proof gets the search by optimisation of --quick (it can only
    cross-check the proof), and the report says so; --budget asks for the full search."""
    from pyfed import read_file
    from pyfed.check import check_statement
    from pyfed.engines.search.optimise import DEFAULT_DECISIONS, QUICK_DECISIONS
    (st,) = read_file(Path(__file__).resolve().parent / "data" / "holds" / "true_am_gm.lean")
    rep = check_statement(st, profile=False)
    reach = rep.search.verdict.details["reach"]
    assert rep.status == "holds" and "cross-checks the proof" in reach["cross_check"]
    assert 0 < reach["points"] <= QUICK_DECISIONS
    full = check_statement(st, profile=False, budget=24).search.verdict.details["reach"]
    assert "cross_check" not in full and QUICK_DECISIONS < full["points"] <= DEFAULT_DECISIONS
