"""``pyfed check PATH.lean`` on statements whose hypotheses are tighter than the seed's (trial 2,
problems 1 and 2): the built-in instances get a smaller local step, exactly, and the rows that are
still skipped say why truthfully."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from pyfed.check import check_statement

from pyfed.models.scaffold.builtin import fit_instance_step
from pyfed.models.scaffold.hypotheses import evaluate_hypotheses, fit_step
from pyfed.models.scaffold.builtin import to_run_instance
from pyfed.suites.scaffold import default_suite
from pyfed import read_text
from pyfed.theory import effective_step

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "statements"
SEED = (EXAMPLES / "seed_convex.lean").read_text()
STEP = "effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →"


def _statement(step=None, extra=""):
    assert STEP in SEED
    text = SEED.replace(STEP, (step if step is not None else STEP) + extra)
    (st,) = read_text(text, "variant.lean")
    return st


@pytest.fixture(scope="module")
def c100():
    st = _statement("effectiveStep K ηl ηg ≤ 1 / (100 * P.β) →")
    return st, check_statement(st, quick=True, profile=False, budget=1)


def _row(rep, name):
    (v,) = [v for v in rep.verdicts if v.details.get("instance") == name]
    return v


@pytest.mark.slow
def test_tighter_step_gives_a_decided_exact_row_inside_the_hypothesis(c100):
    st, rep = c100
    quad = default_suite(quick=True)[0]
    v = _row(rep, quad.name)
    assert v.status == "holds" and v.certified and v.details["method"] == "exact-moments"
    red = v.details["step_reduced"]
    eta_l = Fraction(red["to"])
    # 1/(81 beta) > 1/(100 beta) >= h: one exact halving of the seed's step suffices here
    assert red["halvings"] == 1 and Fraction(red["from"]) == quad.eta_l and eta_l == quad.eta_l / 2
    h = effective_step(quad.K, eta_l, quad.eta_g)
    assert Fraction(v.details["parameters"]["h"]) == h == Fraction(red["h"])
    assert h <= Fraction(1, 100) / Fraction(quad.problem.beta)
    assert quad.K * quad.eta_l * quad.eta_g > Fraction(1, 100) / Fraction(quad.problem.beta)   # the seed's step fails
    assert all(hy["holds"] for hy in v.details["hypotheses"])
    assert "ηl reduced from" in v.details["description"] and "to satisfy the statement's hypotheses" in \
        v.details["description"]


@pytest.mark.slow
def test_tighter_step_runs_the_monte_carlo_row(c100):
    st, rep = c100
    lg = default_suite(quick=True)[1]
    v = _row(rep, lg.name)
    assert v.details["method"] == "montecarlo" and v.details["replicates"] == 64
    assert v.status == "holds"
    eta_l = Fraction(v.details["step_reduced"]["to"])
    assert eta_l == lg.eta_l / 2 ** v.details["step_reduced"]["halvings"]
    assert Fraction(v.details["parameters"]["eta_l"]) == eta_l
    assert all(hy["holds"] for hy in v.details["hypotheses"])


@pytest.mark.slow
def test_tiny_step_bound_gets_decided_rows_and_a_pep_row():
    st = _statement("effectiveStep K ηl ηg ≤ 1 / (10000000000 * P.β) →")
    rep = check_statement(st, quick=True, profile=False, budget=1)
    quad = default_suite(quick=True)[0]
    v = _row(rep, quad.name)
    assert v.status == "holds" and v.details["step_reduced"]["halvings"] == 27    # 2^27 > 10^10/81 > 2^26
    h = Fraction(v.details["step_reduced"]["h"])
    assert h <= Fraction(1, 10 ** 10) / Fraction(quad.problem.beta) < 2 * h
    pep = [v for v in rep.verdicts if v.details.get("engine", "").startswith("PEP")]
    assert len(pep) == 1 and rep.pep_note == ""
    # the largest admissible step is found below 2^-20/β too: the PEP row sits on the boundary
    assert Fraction(pep[0].details["parameters"]["h"]) == Fraction(1, 10 ** 10)          # beta = 1 in the PEP row
    assert Fraction(pep[0].details["parameters"]["eta_l"]) == Fraction(1, 2 * 10 ** 10)  # K = 2, eta_g = 1
    assert not rep.no_instance and rep.vacuity_note() == ""
    # the search draws its steps below the tight boundary too (the largest admissible step is
    # found below 2^-20/β): it decides instances instead of none
    (search,) = [v for v in rep.verdicts if v.details.get("instance", "").startswith("adversarial search")]
    assert search.details["decided"] > 0


@pytest.mark.slow
def test_large_horizon_pep_skip_names_the_size_limit_and_the_note_is_not_a_vacuity_claim():
    st = _statement(extra=" (T : ℝ) ≥ 100000 → (N : ℝ) ≥ 50 →")
    rep = check_statement(st, quick=True, profile=False, budget=1)
    note = rep.pep_note
    assert "problem size" in note and "N = 2, K = 2, T = 2" in note
    assert "(T : ℝ) ≥ 100000" in note and "(N : ℝ) ≥ 50" in note
    assert "the hypotheses exclude σ = 0, S = N:" not in note and "no step size is admitted" not in note
    # the built-in instances fail a hypothesis that is not about the step: no step reduction, inconclusive
    rows = [v for v in rep.verdicts if v.details.get("method") in ("exact-moments", "montecarlo")
            or "hypotheses fail" in (getattr(v, "reason", "") or "")]
    assert rows and all(v.status == "inconclusive" and "step_reduced" not in v.details for v in rows)
    assert rep.no_instance
    text = rep.vacuity_note()
    n = len(rows) + rep.search.verdict.details["candidates"] + 1        # + the PEP row's instance
    assert rep.tried == n and f"none of the {n} instances tried satisfies the hypotheses" in text
    assert "possibly vacuous" not in text and "vacuity is not proven" in text


@pytest.mark.slow
def test_fit_step_only_for_step_hypotheses_and_gives_up_honestly():
    quad = default_suite(quick=True)[0]
    ri = to_run_instance(quad)
    # a lower bound on the step: halving never helps; the instance is returned unchanged (None)
    st = _statement(extra=" 1 ≤ ηl →")
    fitted, k, hyps = fit_step(st, ri)
    assert fitted is None and k == 0 and [h.statement for h in hyps if not h.holds] == ["1 ≤ ηl"]
    assert ri.eta_l == quad.eta_l
    inst, note = fit_instance_step(st, quad)
    assert inst is quad and note is None
    rep = check_statement(st, quick=True, profile=False, budget=1)
    v = _row(rep, quad.name)
    assert v.status == "inconclusive" and "1 ≤ ηl" in v.reason
    # the seed's hypotheses hold: nothing changes
    seed = _statement()
    fitted, k, hyps = fit_step(seed, ri)
    assert fitted is ri and k == 0 and all(h.holds for h in hyps)
    # a bound that needs several halvings: the smallest k that works, all hypotheses re-decided
    st3 = _statement("effectiveStep K ηl ηg ≤ 1 / (1000 * P.β) →")
    fitted, k, hyps = fit_step(st3, ri)
    assert fitted.eta_l == ri.eta_l / 2 ** k and all(h.holds for h in evaluate_hypotheses(st3, fitted))
    prev = effective_step(ri.K, ri.eta_l / 2 ** (k - 1), ri.eta_g)
    assert prev > Fraction(1, 1000) / Fraction(quad.problem.beta) >= effective_step(ri.K, fitted.eta_l, ri.eta_g)


@pytest.mark.slow
def test_cli_prints_the_step_reduction(tmp_path, capsys):
    from pyfed.cli import main
    path = tmp_path / "c100.lean"
    path.write_text(SEED.replace(STEP, "effectiveStep K ηl ηg ≤ 1 / (100 * P.β) →"))
    code = main(["check", str(path), "--quick", "--no-profile", "--budget", "1", "--skip-statements"])
    out = capsys.readouterr().out
    quad = default_suite(quick=True)[0]
    assert code == 0
    assert f"quadratic-rational-N8-d4: ηl reduced from {quad.eta_l} to {quad.eta_l / 2} (halved once)" in out
    assert "possibly vacuous" not in out and "FAIL" not in out
