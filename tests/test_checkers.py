"""Every registered checker: generators pass, the default search finds no counterexample to
the true statement, and every listed mutation is caught by the default search."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from pyfed.checkers.registry import REGISTRY, get, names
from pyfed.errors import InputError
from pyfed.verdicts import Holds, Inconclusive, Violated

BRIEF_NAMES = [
    "ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence", "GradientGrowth", "RelaxedTriangle",
    "YoungInner", "SumSquares", "MartingaleDifferenceBound", "StichWeightedAveraging",
    "StichWeightSumLowerBound", "UniformAveraging", "GeometricAveraging", "GradientStepNonexpansive",
    "SamplingVarianceIdentity", "SamplingVarianceBound", "SamplingSingleClient", "LocalSGDOneStep",
    "OptionTwoControlIsAverage", "ServerControlIsMean", "PerturbedStrongConvexity", "FiniteRoundConvergence",
]
#: Namespace FedAvg (Field Guide, issue 12), after the SCAFFOLD names in the registry's order.
FEDAVG_NAMES = ["PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence", "TunedConvexFedAvgConvergence"]
ALL_NAMES = BRIEF_NAMES + FEDAVG_NAMES

MUTATIONS = [(n, m) for n in ALL_NAMES for m in get(n).mutations]


def test_registry_is_the_brief_list():
    assert names() == ALL_NAMES
    assert set(REGISTRY) == set(BRIEF_NAMES)
    assert get("SCAFFOLD.YoungInner") is get("YoungInner")
    assert get("FedAvg.PerRoundProgress") is get("PerRoundProgress")
    assert get("PerRoundProgress").qualified_name == "FedAvg.PerRoundProgress"
    with pytest.raises(InputError) as e:   # a known bare name under the wrong namespace
        get("SCAFFOLD.PerRoundProgress")
    assert e.value.argument == "lean_name"
    with pytest.raises(InputError) as e:
        get("NoSuchLemma")
    assert e.value.argument == "lean_name"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_checker_interface_and_docstring(name):
    c = get(name)
    assert c.lean_name == name
    assert c.statement and c.source
    doc = type(c).__doc__
    assert doc and name in doc
    assert any(w in doc for w in ("Source", "source")), "docstring names its source"
    assert len(c.mutations) >= 1
    assert all(m.name == k for k, m in c.mutations.items())


@pytest.mark.parametrize("name", ALL_NAMES)
def test_structured_instances_hold(name):
    c = get(name)
    insts = c.structured()
    assert insts, "every checker has edge-case instances"
    for inst in insts:
        v = c.check(inst)
        assert isinstance(v, Holds), (inst, v)
        # every failing hypothesis would have been reported; all hold here
        assert all(h.holds for h in c.hypotheses(inst))


@pytest.mark.parametrize("name", ALL_NAMES)
def test_random_instances_hold_and_roundtrip_json(name):
    c = get(name)
    rng = np.random.default_rng(123)
    n_holds = 0
    for _ in range(6):
        inst = c.random(rng)
        back = json.loads(json.dumps(inst, sort_keys=True))
        assert back == inst
        v, w = c.check(inst), c.check(back)
        assert not isinstance(v, Violated), (inst, v)
        assert v.status == w.status and v.margin == w.margin
        n_holds += isinstance(v, Holds)
    assert n_holds >= 3


@pytest.mark.parametrize("name", ALL_NAMES)
def test_default_search_finds_no_counterexample(name):
    c = get(name)
    assert c.search(np.random.default_rng(2024), c.default_budget) == []


@pytest.mark.parametrize("name,mutation", MUTATIONS)
def test_default_search_catches_mutation(name, mutation):
    c = get(name)
    recs = c.search(np.random.default_rng(7), c.default_budget, mutate=mutation)
    assert recs, f"{name}: mutation {mutation} not caught"
    rec = recs[0]
    v = c.check(rec["instance"], mutate=mutation)
    assert isinstance(v, Violated)
    if v.exact and isinstance(v.margin, Fraction):   # certified-ball verdicts have float sides
        assert rec["margin"]["exact"] == f"{v.margin.numerator}/{v.margin.denominator}".removesuffix("/1")
    if not c.identity:
        assert rec["margin"]["float"] < 0
    # the counterexample violates the mutated statement only: hypotheses not dropped by the
    # mutation hold, so it is a genuine instance of the statement's setting
    dropped = set(c.mutations[mutation].relax)
    assert all(h.holds for h in c.hypotheses(rec["instance"]) if h.key not in dropped)


def test_unknown_mutation_and_relax_raise():
    c = get("YoungInner")
    with pytest.raises(InputError) as e:
        c.search(np.random.default_rng(0), 1, mutate="nope")
    assert e.value.argument == "mutate"
    with pytest.raises(InputError) as e:
        c.search(np.random.default_rng(0), 1, relax=("nope",))
    assert e.value.argument == "relax"
    with pytest.raises(InputError):
        c.search(np.random.default_rng(0), -1)


def test_failing_hypothesis_is_reported_not_judged():
    c = get("RelaxedTriangle")
    v = c.check({"a": "-1/2", "u": ["1"], "v": ["1"]})
    assert isinstance(v, Inconclusive) and "a > 0" in v.reason
    # relaxed: now judged (and false: 4 > (1/2) - 1)
    v = c.check({"a": "-1/2", "u": ["1"], "v": ["1"]}, relax=("a_positive",))
    assert isinstance(v, Violated) and v.lhs == 4 and v.rhs == Fraction(1, 2) - 1


def test_instances_reject_floats_and_malformed_input():
    c = get("YoungInner")
    with pytest.raises(InputError):
        c.check({"a": 0.5, "u": ["1"], "v": ["1"]})
    for name in ALL_NAMES:
        with pytest.raises(InputError) as e:
            get(name).check({"unexpected": "1"})
        assert e.value.argument == "instance"
    with pytest.raises(InputError):
        c.check([1, 2])


def test_relax_step_size_finds_what_the_hypothesis_protects():
    for name in ("ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence", "FiniteRoundConvergence"):
        c = get(name)
        recs = c.search(np.random.default_rng(1), 4, relax=("step_size",))
        assert recs
        bad = [h.key for h in c.hypotheses(recs[0]["instance"]) if not h.holds]
        assert bad == ["step_size"]
