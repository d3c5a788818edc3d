

def test_tightness_reports_progress():
    from pyfed.engines.tightness import default_instance, tightness_sweep
    labels = []
    res = tightness_sweep(default_instance(0), Fr(1, 2), S=2, K=2, T=3, mu=0, multiples=[1, 1024], bisect=2,
                          progress=labels.append)
    assert len(labels) == len(res.points) == 4 and sum("bisection" in x for x in labels) == 2

from fractions import Fraction as Fr
