"""pyfed.verdicts: the wording of verdict phrases."""



def test_inequality_phrase_reads_as_english():
    from pyfed.verdicts import inequality_phrase
    assert [f"the inequality itself {inequality_phrase(s)}" for s in ("holds", "violated", "undecided")] == [
        "the inequality itself holds", "the inequality itself is violated", "the inequality itself is undecided"]
