"""The FedAvg adversarial search (pyfed.engines.statement.fedavg_search) and the FedAvg mutation
lists (pyfed.checkers.fedavg): every mutation of every FedAvg statement, applied to the Lean text and
read back by the reader, is violated with a witness that re-checks exactly; our statements are not;
candidates are a pure function of (statement, seed, index)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pyfed.checkers.fedavg import FEDAVG_MUTATIONS
from pyfed.checkers.mutations import MUTATIONS, mutated_statements
from pyfed.engines.statement.fedavg_exact import recheck
from pyfed.engines.statement.fedavg_families import instance_from_json
from pyfed.engines.statement.fedavg_search import candidate, search, structured_count
from pyfed.statements import read_file
from pyfed.statements import fedavg_theorems_path
from pyfed.verdicts import Evidence

CASES = [(name, m) for name, ms in FEDAVG_MUTATIONS.items() for m in ms]


def test_the_mutation_lists_are_registered_and_cover_todays_list():
    names = {k: [m.name for m in v] for k, v in FEDAVG_MUTATIONS.items()}
    assert names == {
        "FedAvg.PerRoundProgress": ["step_4_over_L", "drop_noise_term"],
        "FedAvg.BoundedClientDrift": ["step_4_over_L", "drop_heterogeneity_term", "drop_noise_term",
                                      "drift_constant_18_to_1"],
        "FedAvg.ConvexFedAvgConvergence": ["step_4_over_L", "drop_noise_terms", "drop_heterogeneity_term"],
        "FedAvg.TunedConvexFedAvgConvergence": ["step_4_over_L", "drop_noise_terms"]}
    assert all(MUTATIONS[k] == v for k, v in FEDAVG_MUTATIONS.items())


@pytest.mark.parametrize("name,mutation", CASES, ids=[f"{n.split('.')[1]}-{m.name}" for n, m in CASES])
def test_every_mutation_is_caught_through_the_lean_text(name, mutation):
    (st,) = mutated_statements(fedavg_theorems_path(), name.split(".")[1], mutation)
    assert st.shape == "fedavg_run"
    v = search(st, seed=0, budget=0).verdict       # the structured edge cases suffice
    assert v.status == "violated" and v.evidence == Evidence.SEARCH, (name, mutation.name, v)
    w = v.witness
    assert recheck(st, instance_from_json(w["instance"]), w)


@pytest.mark.parametrize("st", read_file(fedavg_theorems_path()), ids=lambda s: s.name)
def test_our_statements_hold_on_every_structured_candidate(st):
    res = search(st, seed=0, budget=0)
    assert res.verdict.status == "inconclusive"
    assert not any(r.status == "violated" for r in res.records)
    assert res.verdict.details["decided"] >= 4     # the tuned statement needs sigma, zeta, D > 0


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
