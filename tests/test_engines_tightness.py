

def test_tightness_reports_progress():
    from pyfed.engines.tightness import default_instance, tightness_sweep
    labels = []
    res = tightness_sweep(default_instance(0), Fr(1, 2), S=2, K=2, T=3, mu=0, multiples=[1, 1024], bisect=2,
                          progress=labels.append)
    assert len(labels) == len(res.points) == 4 and sum("bisection" in x for x in labels) == 2

from fractions import Fraction as Fr

import pytest

from cli_helpers import run_main


def test_status_label_wording():
    from pyfed.engines.tightness import status_label
    assert status_label("holds", True) == "holds"
    assert status_label("violated", True) == "violated"
    assert status_label("inconclusive", False, "violated") == "violated (beyond hyp.)"
    assert status_label("inconclusive", False, "holds") == "holds (beyond hyp.)"
    assert status_label("inconclusive", False, "undecided") == "inconclusive (beyond hyp.)"
    assert status_label("inconclusive", False) == "inconclusive (beyond hyp.)"   # older verdicts
    assert status_label("inconclusive", True, "undecided") == "inconclusive"
    assert status_label("violated", False) == "violated (beyond hyp.)"   # older verdicts
    assert status_label("undefined", False) == "undefined (q <= 0)"


def test_tightness_points_beyond_hypotheses_say_what_the_inequality_does():
    from pyfed.engines.tightness import default_instance, tightness_sweep
    P = default_instance(0)
    res = tightness_sweep(P, Fr(1, 2), S=2, K=2, T=4, mu=0, multiples=[1, 1024], bisect=0)
    inside, far = res.points
    assert inside.hypotheses_hold and inside.failing == () and inside.label == "holds"
    assert inside.ratio < 1
    # h = 1024/(81 beta): only the step-size hypothesis fails; LHS > RHS there (exact)
    assert far.failing == ("step_size",) and far.ratio > 1
    assert far.inequality == "violated" and far.label == "violated (beyond hyp.)"
    assert res.first_crossing is far


@pytest.mark.slow
def test_tightness_mu_above_the_problems_strong_convexity_fails_convexity(capsys, tmp_path):
    from pyfed.engines.tightness import default_instance, tightness_sweep
    P = default_instance(0)
    assert P.mu < 1
    res = tightness_sweep(P, Fr(1, 2), S=2, K=2, T=4, mu=1, multiples=[Fr(1, 2)], bisect=0)
    (p,) = res.points
    assert p.failing == ("convexity",) and not p.hypotheses_hold
    assert p.ratio < 1 and p.label == "holds (beyond hyp.)"
    # the weights mu = P.mu itself: convexity holds
    (q,) = tightness_sweep(P, Fr(1, 2), S=2, K=2, T=4, mu=P.mu, multiples=[Fr(1, 2)], bisect=0).points
    assert "convexity" not in q.failing and q.hypotheses_hold
    code, out, _ = run_main(["tightness", "--out", str(tmp_path), "--T", "3", "--max-multiple", "1", "--mu", "1"],
                         capsys)
    assert code == 0 and "convexity" in out and "exceeds the problem's certified strong convexity" in out
