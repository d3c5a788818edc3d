"""pyfed.conform.ladder: the rungs (rounds, sizes, step sizes, counts, dimensions) and the path plan
(every subset in every round)."""

from __future__ import annotations

from fractions import Fraction as Q

import numpy as np

from pyfed.conform import ladder, local_sgd_ladder
from pyfed.conform.ladder import draw_combinations, path_plan, subsets


def test_federated_ladder_is_wide():
    rungs = ladder("fedavg", mode="uniform")
    specs = [r.spec for r in rungs]
    assert all(s.T == 4 for s in specs)
    assert {s.S for s in specs if s.N == 4} == {1, 2, 3}                       # every subset size of N = 4
    assert len({s.eta_l for s in specs}) >= 4                                  # eta_l differs between rungs
    assert any(s.d == 3 for s in specs) and any(s.eta_g != 1 for s in specs)
    for s in specs:                                                            # counts sum to no constant
        assert sum(s.counts) not in (1 / s.eta_l, s.K, s.N, s.S) and len(set(s.counts)) == len(s.counts)
    A = rungs[4].problem.A_exact
    assert all(A[i][0][1] != 0 for i in range(4))                              # Hessians not diagonal
    declared = ladder("fedavg", mode="uniform", eta_g=1)
    assert all(r.spec.eta_g == 1 for r in declared)


def test_path_plan_covers_every_subset_in_every_round():
    subs = subsets(4, 2)
    assert len(subs) == 6 and sum(p for _, p in subs) == 1
    plan = path_plan(6, 4)
    assert len(plan) == 36 and len(set(plan)) == 36
    for r in range(4):
        assert {p[r] for p in plan} == set(range(6))
    assert path_plan(3, 1) == [(0,), (1,), (2,)]


def test_local_sgd_ladder_has_schedules_and_four_steps():
    rungs = local_sgd_ladder()
    assert all(r.T == 4 for r in rungs) and any(len(set(r.eta)) > 2 for r in rungs)
    draws = draw_combinations(2, 2, 2)
    assert len(draws) == 16 and sum(p for _, p in draws) == 1
    assert isinstance(draws[0][0], np.ndarray) and draws[0][1] == Q(1, 16)
