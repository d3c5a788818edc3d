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
