"""pyfed.engines.pep.direct: the direct Clarabel solve, the client-symmetric reduction of SCAFFOLD /
FedAvg and its relaxation agree with the full PEPit formulation; certificates found through the
reduction verify on the full problem."""

from fractions import Fraction

import pytest

from pyfed.engines.pep import worst_case_scaffold
from pyfed.engines.pep.certificate import find_certificate, verify_certificate
from pyfed.engines.pep.direct import BlockPEP, lift_multipliers, neighbour_pair, solve_direct
from pyfed.engines.pep.scaffold import scaffold_exact, scaffold_gram_size, scaffold_symmetric
from pyfed.engines.pep.solver import _check_common

# relative agreement asked between formulations: the solver tolerance is 1e-6 on these
# degenerate SDPs, values agree to ~1e-5 relative; the verdicts' ratio tolerance is 1e-4
REL = 5e-5


def _pq(N, K, T, mu=0):
    *_, pq = _check_common(N, K, T, Fraction(1, 81 * K), 1, 1, mu)
    return {**pq, "T": T}


@pytest.mark.parametrize("N,K,T", [(1, 1, 2), (2, 1, 2), (2, 2, 2), (3, 1, 3)])
def test_symmetric_reduction_and_relaxation_equal_the_full_problem(N, K, T):
    pq = _pq(N, K, T)
    full = solve_direct(scaffold_exact(N, K, pq, controls=True))
    red = solve_direct(scaffold_symmetric(N, K, pq, controls=True, relaxed=False))
    rel = solve_direct(scaffold_symmetric(N, K, pq, controls=True, relaxed=True))
    assert full.status == red.status == rel.status == "optimal"
    assert red.worst == pytest.approx(full.worst, rel=REL)
    assert rel.worst == pytest.approx(full.worst, rel=REL)
    assert red.block_sizes == ([2 + 1 + K * (T - 1) + 1, 2 + K * (T - 1) + 1] if N > 1 else [2 + 1 + K * (T - 1) + 1])


def test_strongly_convex_relaxation_and_constraint_generation_equal_the_full_problem():
    pq = _pq(2, 2, 3, mu=Fraction(1, 10))
    full = solve_direct(scaffold_exact(2, 2, pq, controls=True))
    rel = solve_direct(scaffold_symmetric(2, 2, pq, controls=True, relaxed=True))
    gen = solve_direct(scaffold_symmetric(2, 2, pq, controls=True, relaxed=False), generate=True)
    assert rel.worst == pytest.approx(full.worst, rel=REL)
    assert gen.status == "optimal" and gen.worst == pytest.approx(full.worst, rel=REL)
    assert gen.generation["rows"] <= gen.generation["inequalities"]


@pytest.mark.slow
def test_direct_solve_equals_pepit_on_small_instances():
    for N, K, T in [(2, 1, 2), (2, 2, 2)]:
        a = worst_case_scaffold(N, K, T, Fraction(1, 81 * K), 1, verify=False, certify=False)
        b = worst_case_scaffold(N, K, T, Fraction(1, 81 * K), 1, verify=False, certify=False, formulation="pepit")
        assert a.details["formulation"].startswith("client-symmetric")
        assert b.details["formulation"].startswith("full")
        assert a.worst == pytest.approx(b.worst, rel=REL)
        assert a.gram_size == b.gram_size == scaffold_gram_size(N, K, T)
        assert a.verdict.status == b.verdict.status == "holds"


def test_fedavg_reduction_equals_the_full_problem():
    pq = _pq(2, 2, 2)
    full = solve_direct(scaffold_exact(2, 2, pq, controls=False))
    red = solve_direct(scaffold_symmetric(2, 2, pq, controls=False, relaxed=False))
    assert red.worst == pytest.approx(full.worst, rel=REL)


def test_block_structure_and_lifting():
    pq = _pq(3, 1, 2)
    red = scaffold_symmetric(3, 1, pq, controls=True, relaxed=False)
    assert isinstance(red, BlockPEP) and len(red.blocks()) == 2
    # no form couples the two blocks
    for _, f in red.constraints + [("metric", red.metric), ("init", red.init)]:
        assert all(red.block_of[a] == red.block_of[b] for a, b in f.gram)
    full = scaffold_exact(3, 1, pq, controls=True)
    lam = [Fraction(k + 1) for k in range(len(red.constraints))]
    lifted = lift_multipliers(red, full, lam)
    assert len(lifted) == 3 * len(lam) and lifted[:len(lam)] == [v / 3 for v in lam] == lifted[-len(lam):]
    with pytest.raises(ValueError):
        lift_multipliers(red, scaffold_exact(2, 1, _pq(2, 1, 2), controls=True), lam)


def test_neighbour_pairs():
    assert neighbour_pair(0, 5) and neighbour_pair(5, 0) and neighbour_pair(3, 4) and neighbour_pair(4, 3)
    assert not neighbour_pair(2, 4)


def test_non_optimal_direct_status_is_reported_not_raised():
    sol = solve_direct(scaffold_symmetric(2, 2, _pq(2, 2, 3), controls=True), options={"max_iter": 2})
    assert sol.status != "optimal" and sol.worst is None


def test_certificate_through_the_reduction_verifies_on_the_full_problem():
    N, K, T = 2, 2, 2
    pq = _pq(N, K, T)
    full = scaffold_exact(N, K, pq, controls=True, relaxed=True)
    red = scaffold_symmetric(N, K, pq, controls=True)
    tau = Fraction(81, 2)   # the theorem's bound 1/(h W_T) at h = 1/81, T = 2, mu = 0 (W_T = 2)
    cert, why = find_certificate(full, tau, reduced=red)
    assert cert is not None, why
    assert verify_certificate(full, cert).ok
    # corrupt one nonzero multiplier: the exact verification refuses
    k = next(i for i, v in enumerate(cert.multipliers) if v != 0)
    cert.multipliers[k] += Fraction(1, 10**6)
    assert not verify_certificate(full, cert).ok


def test_symmetric_path_certifies_a_hold():
    r = worst_case_scaffold(2, 2, 2, Fraction(1, 162), 1)
    assert r.verdict.status == "holds"
    assert r.details["pep_certificate"]["verified"] is True
