"""The FedAvg ``ridge`` family (pyfed.models.fedavg.families): clients whose average is not
quadratic, their problem hypotheses decided exactly, runs exact or in certified balls."""

from fractions import Fraction as F

from pyfed.models.fedavg.families import family_formula, instance_from_json
from pyfed.models.fedavg.scalars import Scalars


def _inst(**kw):
    base = {"family": "ridge", "profile": "huber", "Q": [["0"]], "b": [["1/2"], ["-1/2"]], "rows": [["1"]],
            "offsets": ["0"], "weights": ["1"], "delta": "1", "c": "0", "L": "1", "sigma": "0", "zeta_sq": "1/4",
            "tau": "2", "T": "1", "eta": "1/4", "x0": ["3"]}
    base.update(kw)
    return instance_from_json(base)


def test_ridge_family_hypotheses_hold_exactly():
    inst = _inst()
    assert all(h.holds for h in inst.hypotheses)
    assert inst.family == "deterministic" and inst.exact and inst.zeta_sq == F(1, 4)
    S = Scalars("exact")
    assert inst.clients.grad(0, [F(3)], S) == [F(1, 2)]                 # H'(3) - 1/2
    assert inst.clients.value([F(3)], S) == F(5, 2)                     # F = H_1: 3 - 1/2
    assert "ridge family" in family_formula({"family": "ridge"})


def test_ridge_family_refuses_what_it_cannot_certify():
    bad = {h.key for h in _inst(L="1/2").hypotheses if not h.holds}
    assert "smooth" in bad
    bad = {h.key for h in _inst(zeta_sq="1/8").hypotheses if not h.holds}
    assert "heterogeneity" in bad
    bad = {h.key for h in _inst(b=[["1"], ["0"]]).hypotheses if not h.holds}
    assert "family_mean" in bad


def test_log_cosh_clients_run_in_balls():
    inst = _inst(profile="logcosh", delta="1")
    assert all(h.holds for h in inst.hypotheses) and not inst.exact
    g = inst.clients.grad(0, [F(3)], Scalars("ball"))[0]
    import math
    assert g.contains(math.tanh(3) - 0.5)
