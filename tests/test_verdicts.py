"""pyfed.verdicts: the wording of verdict phrases and of violations for each relation."""

from pyfed.verdicts import violation_wording


def test_inequality_phrase_reads_as_english():
    from pyfed.verdicts import inequality_phrase
    assert [f"the inequality itself {inequality_phrase(s)}" for s in ("holds", "violated", "undecided")] == [
        "the inequality itself holds", "the inequality itself is violated", "the inequality itself is undecided"]


def test_violation_wording_per_relation():
    assert violation_wording("≤", "9", "1", False) == "left side 9 > right side 1"
    assert violation_wording("<", "1", "1", True) == "left side = right side = 1, strict < fails"
    # `=`: the sides differ, whichever is larger (never ">" for a left side below the right one)
    assert violation_wording("=", "1", "8", False) == "left side 1 ≠ right side 8"
    assert violation_wording("=", "8", "1", False) == "left side 8 ≠ right side 1"


def test_facts_read_every_kind_of_details_typed():
    from pyfed.verdicts import Inconclusive, Violated, facts_of

    mc = facts_of({"estimate": {"mean": 0.5, "lower": 0.4, "upper": 0.6, "confidence": 0.999, "replicates": 64},
                   "starts": 3, "joint_confidence": 0.997, "instance": "logistic", "source": "f.lean:3",
                   "hypotheses": [{"key": "h", "statement": "0 < ηl", "holds": True}], "arithmetic": ""})
    assert mc.monte_carlo.replicates == 64 and mc.monte_carlo.level == 0.997 and mc.monte_carlo.starts == 3
    assert abs(mc.monte_carlo.half_width - 0.1) < 1e-12 and mc.search is None and mc.pep is None
    assert mc.instance.instance == "logistic" and mc.instance.hypotheses[0].holds and mc.source == "f.lean:3"
    s = facts_of({"engine": "adversarial search (exact moments, exact rationals)", "candidates": 20, "decided": 7,
                  "holds": 7, "search_result": "no counterexample among 7 decided", "tightest_exact": True})
    assert (s.search.candidates, s.search.decided, s.search.holds, s.search.tightest_exact) == (20, 7, 7, True)
    assert s.monte_carlo is None and s.instance.arithmetic == ""
    p = facts_of({"solver_tol": 1e-7, "reverification": {"reproduced": True}})
    assert p.pep.solver_tol == 1e-7 and p.pep.reproduced and p.search is None
    v = Violated("X", 2, 1, True, {"witness_text": "left side 2 > right side 1", "engine": "adversarial search"})
    assert v.facts.witness_text == "left side 2 > right side 1" and v.facts.search is not None
    assert Inconclusive("Y").facts.instance.instance is None


def test_the_renderers_read_verdicts_only_through_their_facts():
    """The report never reads an engine's details by key: the renderers use ``Verdict.facts``."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "pyfed" / "commands" / "render.py").read_text(encoding="utf-8")
    assert ".details" not in text
