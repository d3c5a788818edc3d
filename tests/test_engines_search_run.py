"""The adversarial search as the engines run it (pyfed.engines.search.run): the model's own search
first, the search by optimisation only when it found nothing, and what the report then says; on the
statements of tests/data/search, every false one caught with the default settings and no true one
violated."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from pyfed.check import default_budget
from pyfed.engines.search.run import search_statement
from pyfed.engines.search.space import Axis, Config, NoSearchSpace, PointOutcome, SearchSpace
from pyfed.engines.statement.search import SearchResult
from pyfed.models.registry import read_file
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


def _toy(m):
    return SimpleNamespace(name="Toy", model=m)


def test_own_violation_skips_the_optimiser():
    m = _Model(own_violation=True)
    res = search_statement(_toy(m), quick=True)
    assert res.verdict.status == "violated" and not m.optimised and res.tried == 5


def test_optimiser_violation_continues_the_numbering():
    m = _Model()
    res = search_statement(_toy(m), quick=True)
    assert res.verdict.status == "violated" and res.verdict.details["found_by"] == "search by optimisation"
    assert res.verdict.details["index"] >= 5 and res.tried > 5
    assert "reach" in res.verdict.details


def test_nothing_found_keeps_the_model_verdict_and_says_how_far():
    class _Holds(_Model):
        def evaluate_point(self, st, config, values, *, index=0):
            rec = SimpleNamespace(index=index, status="holds")
            return PointOutcome("holds", -0.5, rec, "x")
    res = search_statement(_toy(_Holds()), quick=True)
    assert res.verdict.status == "inconclusive" and res.tried == 5
    assert res.verdict.details["decided"] == 5 and res.verdict.details["reach"]["points"] > 0
    res = search_statement(_toy(_Model(space=False)), quick=True)
    assert res.verdict.details["reach"] == {"not_searched": "no search space for a toy"}


# --------------------------------------------------------------------------- the search statements

DATA = Path(__file__).parent / "data" / "search"

#: Checked end to end (pyfed check --out, then --replay) by tests/test_commands_replay.py.
REPLAYED = {"OneStepEighth", "GlobalStepUnbounded", "FedAvgDistanceNotSquared", "SamplingVarianceThreeHalves",
            "SumSquaresNarrow", "BregmanSymmetrised"}


def _statements(truth: str) -> list:
    """(file, theorem) of every statement of tests/data/search whose docstring starts with ``truth``."""
    out = []
    for path in sorted(DATA.glob("*.lean")):
        for doc, name in re.findall(r"/--(.*?)-/\s*theorem\s+(\S+)", path.read_text(encoding="utf-8"), flags=re.S):
            if doc.strip().lower().startswith(truth):
                out.append((path.name, name))
    return out


def _st(file, name):
    return next(s for s in read_file(DATA / file) if s.name == name)


def test_the_search_statements_are_many_and_of_every_shape():
    false, true = _statements("false"), _statements("true")
    assert len(false) + len(true) >= 24 and len(false) >= 11
    assert {f for f, _ in false} == {"scaffold.lean", "fedavg.lean", "lemmas.lean", "local_sgd.lean"}


@pytest.mark.slow
@pytest.mark.parametrize("file,name", [fn for fn in _statements("false") if fn[1] not in REPLAYED])
def test_every_false_statement_is_caught_by_default(file, name):
    """The default settings catch it: the search row is violated and its witness re-checks exactly
    from its record alone (its witness is checked by hand in the model's space tests)."""
    st = _st(file, name)
    v = search_statement(st, seed=0, budget=default_budget(False), quick=False).verdict
    assert v.status == "violated"
    assert st.model.recheck(st, v.witness).status == "violated"


@pytest.mark.slow
@pytest.mark.parametrize("file,name", _statements("true"))
def test_no_true_statement_is_violated(file, name):
    v = search_statement(_st(file, name), seed=0, budget=default_budget(True), quick=True).verdict
    assert v.status != "violated" and "reach" in (v.details or {})
