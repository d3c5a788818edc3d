"""The FedAvg adversarial search (pyfed.models.fedavg.search) and the FedAvg mutation
lists (pyfed.checkers.fedavg): every mutation of every FedAvg statement, applied to the Lean text and
read back by the reader, is violated with a witness that re-checks exactly; our statements are not;
candidates are a pure function of (statement, seed, index)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pyfed.checkers.fedavg import FEDAVG_MUTATIONS
from pyfed.checkers.mutations import MUTATIONS, mutated_statements
from pyfed.models.fedavg.exact import recheck
from pyfed.models.fedavg.families import instance_from_json
from pyfed.models.fedavg.search import candidate, search, structured_count
from pyfed import read_file
from pyfed.models.fedavg.model import theorems_path as fedavg_theorems_path
from pyfed.verdicts import Evidence

CASES = [(name, m) for name, ms in FEDAVG_MUTATIONS.items() for m in ms]


def test_the_mutation_lists_are_registered_and_cover_todays_list():
    names = {k: [m.name for m in v] for k, v in FEDAVG_MUTATIONS.items()}
    assert names == {
        "FedAvg.PerRoundProgress": ["step_4_over_L", "drop_noise_term"],
        "FedAvg.BoundedClientDrift": ["step_4_over_L", "drop_heterogeneity_term", "drop_noise_term",
                                      "drift_constant_18_to_1"],
        "FedAvg.ConvexFedAvgConvergence": ["step_4_over_L", "drop_noise_terms", "drop_heterogeneity_term",
                                           "drop_noise_over_M"],
        "FedAvg.TunedConvexFedAvgConvergence": ["step_4_over_L", "drop_noise_terms"]}
    assert all(MUTATIONS[k] == v for k, v in FEDAVG_MUTATIONS.items())


@pytest.mark.slow
@pytest.mark.parametrize("name,mutation", CASES, ids=[f"{n.split('.')[1]}-{m.name}" for n, m in CASES])
def test_every_mutation_is_caught_through_the_lean_text(name, mutation):
    (st,) = mutated_statements(fedavg_theorems_path(), name.split(".")[1], mutation)
    assert st.shape == "fedavg_run"
    v = search(st, seed=0, budget=0).verdict       # the structured edge cases suffice
    # decided exactly (rationals), or in certified balls (the sqrt family, an irrational tuned step)
    assert v.status == "violated" and v.certified, (name, mutation.name, v)
    if v.evidence == Evidence.BALL:
        assert v.balls["margin"] < 0 and "lhs_exact" not in v.details and "margin_exact" not in v.details
    else:
        assert v.evidence == Evidence.SEARCH and Fraction(v.details["margin_exact"]) < 0
    w = v.witness
    assert recheck(st, instance_from_json(w["instance"]), w)


@pytest.mark.slow
@pytest.mark.parametrize("st", read_file(fedavg_theorems_path()), ids=lambda s: s.name)
def test_our_statements_hold_on_every_structured_candidate(st):
    res = search(st, seed=0, budget=0)
    assert res.verdict.status == "inconclusive"
    assert not any(r.status == "violated" for r in res.records)
    assert res.verdict.details["decided"] >= 4     # the tuned statement needs sigma, zeta, D > 0


@pytest.mark.slow
def test_candidates_are_reproducible_and_inside_the_step_hypothesis():
    st = [s for s in read_file(fedavg_theorems_path()) if s.name == "ConvexFedAvgConvergence"][0]
    n = structured_count()
    for j in range(n, n + 6):
        a, b = candidate(st, 7, j), candidate(st, 7, j)
        assert a == b
        inst, _, _ = a
        if inst is not None:
            assert Fraction(inst["eta"]) <= 1 / (4 * Fraction(inst["L"]))
    # the structured candidates take the largest admissible step: the boundary 1/(4L)
    inst, _, _ = candidate(st, 0, 0)
    assert Fraction(inst["eta"]) == Fraction(1, 4)


# ------------------------------------------------------------ witnesses decided in certified balls

def _sqrt_fedavg_avg_loss(a, b, c, eta, tau, T, x0, dps=60):
    """Independent mpmath reference for the sqrt family (F_i(x) = a x^2/2 - b_i x + c_i sqrt(1+x^2),
    sum b_i = sum c_i = 0, so F = a x^2/2 and F* = 0): deterministic FedAvg, the average over
    rounds t < T of (1/tau) sum_{k=1..tau} F(shadow after k local steps)."""
    import mpmath
    with mpmath.workdps(dps):
        a, eta = mpmath.mpf(a), mpmath.mpf(Fraction(eta).numerator) / Fraction(eta).denominator
        b, c = [mpmath.mpf(v) for v in b], [mpmath.mpf(v) for v in c]
        M = len(b)
        y, total = mpmath.mpf(x0), mpmath.mpf(0)
        for _t in range(T):
            xs = [y] * M
            for _k in range(tau):
                xs = [x - eta * (a * x - b[i] + c[i] * x / mpmath.sqrt(1 + x * x)) for i, x in enumerate(xs)]
                total += a * (sum(xs) / M) ** 2 / 2 / tau
            y = sum(xs) / M
        return total / T


def _no_zeta_statement():
    (st,) = mutated_statements(fedavg_theorems_path(), "ConvexFedAvgConvergence",
                               next(m for m in FEDAVG_MUTATIONS["FedAvg.ConvexFedAvgConvergence"]
                                    if m.name == "drop_heterogeneity_term"))
    return st


@pytest.mark.slow
def test_a_witness_decided_in_balls_is_never_reported_exact():
    """Eq. (15) without its zeta term is violated first by the sqrt family (candidate 5, x0 at the
    optimum, so every right-side term is 0): the left side is irrational, so the verdict carries
    certified balls (evidence BALL), no `*_exact` value, and a left side ball that contains an
    independent 60-digit evaluation."""
    import mpmath
    st = _no_zeta_statement()
    v = search(st, seed=0, budget=0).verdict
    assert v.status == "violated" and v.details["index"] == 5 and v.evidence == Evidence.BALL and v.certified
    for key in ("lhs_exact", "rhs_exact", "margin_exact"):
        assert key not in v.details
    assert "ball" in v.details["arithmetic"] and v.details["decided_in_balls"] >= 1
    assert "exactly or in certified balls" in v.details["engine"]
    ref = _sqrt_fedavg_avg_loss(1, [1, -1], [1, -1], Fraction(1, 8), 4, 2, 0)
    lhs, rhs = v.balls["lhs"], v.balls["rhs"]
    lo, hi = (mpmath.mpf(x.str(50, radius=False)) for x in (lhs.lower(), lhs.upper()))
    assert lo <= ref <= hi and float(ref) > 0.00266
    assert rhs.is_exact() and rhs == 0 and v.balls["margin"] < 0
    j = v.to_json()
    assert "exact" not in j["lhs"] and j["lhs"]["decimal"].startswith("0.0026608331751938")
    assert j["evidence"] == Evidence.BALL.value and j["certified"] is True


@pytest.mark.slow
def test_the_lean_record_of_a_ball_witness_states_certified_bounds():
    """lean_record of a ball witness: the lower end of the left side's ball and the right side
    (exact 0: a ball of radius 0 is its value), flagged; both exact rationals with rhs < lhs."""
    import mpmath
    from pyfed.models.fedavg.search import lean_record
    st = _no_zeta_statement()
    v = search(st, seed=0, budget=0).verdict
    rec = lean_record(st, v, lean_name=st.qualified_name)
    assert rec["lhs_bound"] is True and rec["rhs_bound"] is False and rec["rhs"] == "0"
    lo = Fraction(rec["lhs"])
    ref = _sqrt_fedavg_avg_loss(1, [1, -1], [1, -1], Fraction(1, 8), 4, 2, 0)
    with mpmath.workdps(60):
        assert 0 < lo and mpmath.mpf(lo.numerator) / lo.denominator <= ref
        assert ref - mpmath.mpf(lo.numerator) / lo.denominator < mpmath.mpf(10) ** -30


def test_a_search_decided_in_balls_never_calls_its_tightest_instance_exact():
    """The tuned step of eq. (16) is irrational, so every candidate of TunedConvexFedAvgConvergence
    is decided in certified balls: the tightest instance is given by its balls, not as exact."""
    (st,) = [s for s in read_file(fedavg_theorems_path()) if s.name == "TunedConvexFedAvgConvergence"]
    v = search(st, seed=0, budget=0).verdict
    d = v.details
    assert v.status == "inconclusive" and d["decided_in_balls"] == d["decided"] >= 4
    assert d["tightest_exact"] is False and "lhs_exact" not in d and d["lhs_ball"].startswith("[")
    assert "decided (exactly or in certified balls)" in v.reason and "exactly decided" not in v.reason


def test_every_family_has_its_client_formula_in_the_counterexample_record():
    from pyfed.models.fedavg.families import FAMILIES, FAMILY_FORMULAS, family_formula
    from pyfed.errors import InputError
    assert set(FAMILY_FORMULAS) == set(FAMILIES)
    assert family_formula({"family": "sqrt"}).startswith("sqrt family: Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²)")
    assert family_formula({}).startswith("quadratic family: Fᵢ(x) = ½ xᵀ A x − ⟨bᵢ, x⟩")
    with pytest.raises(InputError, match="unknown family 'cubic'"):
        family_formula({"family": "cubic"})


def test_the_noise_floor_case_catches_a_dropped_first_order_noise_term():
    """η σ²/M is first order in η, 4 τ η² L σ² second order: the structured case at 1/25 of the
    largest step (η = 1/100, one client f = x²/2 from x⋆ = 0, σ = 1, τ = 1, T = 64) shows it. Its
    left side by hand: x_{t+1} = (1 - η) x_t - η ξ_t, so v_t = E x_t² = η² (1 - (1-η)^{2t})/(1 - (1-η)²)
    and E[A] = (1/T) Σ_{t=1..T} v_t / 2 (``roundLoss`` reads the iterate after the step, k + 1);
    the right side without the term is 4 η² = 1/2500."""
    (st,) = mutated_statements(fedavg_theorems_path(), "ConvexFedAvgConvergence",
                               next(m for m in FEDAVG_MUTATIONS["FedAvg.ConvexFedAvgConvergence"]
                                    if m.name == "drop_noise_over_M"))
    v = search(st, seed=0, budget=0).verdict
    assert v.status == "violated" and "noise floor" in v.details["description"]
    eta, T = Fraction(1, 100), 64
    r = (1 - eta) ** 2
    lhs = sum(eta ** 2 * (1 - r ** t) / (1 - r) for t in range(1, T + 1)) / (2 * T)
    assert Fraction(v.details["lhs_exact"]) == lhs and Fraction(v.details["rhs_exact"]) == Fraction(1, 2500)
