"""The search by optimisation (pyfed.engines.search.optimise) on a model made for the test: a
one-dimensional margin whose only violations sit in a narrow interval far out on a log axis."""

from types import SimpleNamespace

import pytest

from pyfed.engines.search.optimise import optimise
from pyfed.engines.search.space import Axis, Config, NoSearchSpace, PointOutcome, SearchSpace, short_rational
from pyfed.verdicts import Inconclusive, Violated


class _Model:
    """Violated exactly where 120 < x < 130 (x on a log axis over [1, 1000]); the re-check agrees
    unless ``lie`` (then every violation is refused)."""

    def __init__(self, lie=False, configs=2):
        self.lie, self.calls, self.n = lie, 0, configs

    def search_space(self, st, *, quick=False, seed=0):
        cfgs = [Config(f"c{k}", {"k": k}, (Axis("x", 1.0, 1000.0), Axis("y", 0.0, 1.0, log=False)))
                for k in range(self.n)]
        return SearchSpace(cfgs, ["f"], {"k": f"0…{self.n - 1}"}, [])

    def evaluate_point(self, st, config, values, *, index=0):
        self.calls += 1
        x = short_rational(values["x"], bits=12)
        margin = float(1 - abs(x - 125) / 5) if config.data["k"] == 1 else -1.0
        status = "violated" if margin > 0 else "holds"
        rec = SimpleNamespace(index=index, status=status, x=x)
        return PointOutcome(status, max(-1.0, min(1.0, margin)), rec, f"x = {x}")

    def search_verdict(self, st, records, *, seed, budget):
        r = next((r for r in records if r.status == "violated"), None)
        if r is None:
            return Inconclusive(st.name, reason="none")
        return Violated(st.name, r.x, 125, True, {"x": str(r.x)}, witness={"x": str(r.x)})

    def recheck(self, st, witness):
        return SimpleNamespace(status="holds" if self.lie else "violated")


def _st(model):
    return SimpleNamespace(name="Toy", model=model)


def test_finds_the_narrow_far_violation_and_simplifies_it():
    m = _Model()
    out = optimise(_st(m), seed=0, budget=200)
    assert out.verdict is not None and out.verdict.status == "violated"
    x = out.verdict.lhs
    assert 120 < x < 130
    assert x.denominator <= 4               # the witness re-decided with simpler numbers
    assert out.evaluations <= 200 + 4


def test_reproducible_from_the_seed():
    a = optimise(_st(_Model()), seed=3, budget=120)
    b = optimise(_st(_Model()), seed=3, budget=120)
    assert [r.x for r in a.records] == [r.x for r in b.records]


def test_never_reports_a_violation_its_recheck_refuses():
    m = _Model(lie=True)
    out = optimise(_st(m), seed=0, budget=200)
    assert out.verdict is None and out.rejected > 0
    assert out.reach()["points"] == out.evaluations <= 200


def test_budget_is_respected_and_the_model_may_refuse():
    m = _Model(configs=1)                    # configuration 0 only: never violated
    out = optimise(_st(m), seed=0, budget=30)
    assert out.verdict is None and out.evaluations <= 30 and m.calls == out.evaluations
    assert out.reach()["closest"]["margin"] == -1.0

    class _None(_Model):
        def search_space(self, st, *, quick=False, seed=0):
            raise NoSearchSpace("nothing to search")
    with pytest.raises(NoSearchSpace):
        optimise(_st(_None()), seed=0)


def test_an_equation_that_held_everywhere_reports_no_closest_margin():
    """An inequality's reach names its closest point (a margin below 0); an equation that held at
    every decided point held exactly, so there is no margin to report (it read -1)."""
    from pathlib import Path

    from pyfed import read_file
    from pyfed.engines.search.optimise import optimise
    data = Path(__file__).resolve().parent / "data" / "holds"
    (eq,) = read_file(data / "true_parallelogram.lean")
    (ineq,) = read_file(data / "true_am_gm.lean")
    assert eq.relation == "=" and ineq.relation == "≤"
    out = optimise(eq, quick=True)
    assert out.verdict is None and out.evaluations > 0 and "closest" not in out.reach()
    assert optimise(ineq, quick=True).reach()["closest"]["margin"] < 0
