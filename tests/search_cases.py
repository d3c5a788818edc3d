"""What the tests of the search spaces assert of a statement of tests/data/search (one place): the
search row of ``pyfed check`` (the model's own search, then the search by optimisation), with the
default settings for a false statement and the --quick ones for a true one."""

from pyfed.check import default_budget
from pyfed.engines.search.run import search_statement

#: Checked end to end (pyfed check --out, then --replay) by tests/test_commands_replay.py.
REPLAYED = {"OneStepEighth", "GlobalStepUnbounded", "FedAvgDistanceNotSquared", "SamplingVarianceThreeHalves",
            "SumSquaresNarrow", "BregmanSymmetrised"}


def assert_caught_by_default(st) -> None:
    """The default settings catch ``st``: its search is violated and the witness re-checks exactly
    from its record alone."""
    v = search_statement(st, seed=0, budget=default_budget(False), quick=False).verdict
    assert v.status == "violated"
    assert st.model.recheck(st, v.witness).status == "violated"


def assert_never_violated(st) -> None:
    """The search (--quick settings) finds no violation of ``st`` and says how far it went."""
    v = search_statement(st, seed=0, budget=default_budget(True), quick=True).verdict
    assert v.status != "violated"
    assert "reach" in (v.details or {})
