"""The adversarial search as the engines run it (pyfed.engines.search.run): the model's own search
first, the search by optimisation only when it found nothing, and what the report then says."""

from types import SimpleNamespace

from pyfed.engines.search.run import search_statement
from pyfed.engines.search.space import Axis, Config, NoSearchSpace, PointOutcome, SearchSpace
from pyfed.engines.statement.search import SearchResult
from pyfed.verdicts import Inconclusive, Violated


class _Model:
    def __init__(self, own_violation=False, space=True):
        self.own_violation, self.space, self.optimised = own_violation, space, False

    def search_pool(self, st):
        return False

    def search(self, st, *, seed=0, budget=24, pool=None):
        recs = [SimpleNamespace(index=k, status="holds") for k in range(5)]
        if self.own_violation:
            return SearchResult(recs, Violated(st.name, 2, 1, True, {"index": 4}), seed, budget, tried=5)
        return SearchResult(recs, Inconclusive(st.name, reason="no counterexample", details={"decided": 5}), seed,
                            budget, tried=5)

    def search_space(self, st, *, quick=False, seed=0):
        if not self.space:
            raise NoSearchSpace("no search space for a toy")
        self.optimised = True
        return SearchSpace([Config("c", {}, (Axis("x", 1.0, 10.0),))], ["f"], {}, [])

    def evaluate_point(self, st, config, values, *, index=0):
        bad = values["x"] > 5
        rec = SimpleNamespace(index=index, status="violated" if bad else "holds")
        return PointOutcome(rec.status, 0.5 if bad else -0.5, rec, "x")

    def search_verdict(self, st, records, *, seed, budget):
        r = next(r for r in records if r.status == "violated")
        return Violated(st.name, 6, 5, True, {"index": r.index}, witness={"index": r.index})

    def recheck(self, st, witness):
        return SimpleNamespace(status="violated")


def _st(m):
    return SimpleNamespace(name="Toy", model=m)


def test_own_violation_skips_the_optimiser():
    m = _Model(own_violation=True)
    res = search_statement(_st(m), quick=True)
    assert res.verdict.status == "violated" and not m.optimised and res.tried == 5


def test_optimiser_violation_continues_the_numbering():
    m = _Model()
    res = search_statement(_st(m), quick=True)
    assert res.verdict.status == "violated" and res.verdict.details["found_by"] == "search by optimisation"
    assert res.verdict.details["index"] >= 5 and res.tried > 5
    assert "reach" in res.verdict.details


def test_nothing_found_keeps_the_model_verdict_and_says_how_far():
    class _Holds(_Model):
        def evaluate_point(self, st, config, values, *, index=0):
            rec = SimpleNamespace(index=index, status="holds")
            return PointOutcome("holds", -0.5, rec, "x")
    res = search_statement(_st(_Holds()), quick=True)
    assert res.verdict.status == "inconclusive" and res.tried == 5
    assert res.verdict.details["decided"] == 5 and res.verdict.details["reach"]["points"] > 0
    res = search_statement(_st(_Model(space=False)), quick=True)
    assert res.verdict.details["reach"] == {"not_searched": "no search space for a toy"}
