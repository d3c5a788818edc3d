"""pyfed.conform.adaptive: the server step of Reddi et al.'s Algorithm 2 against hand-derived exact
values (chosen so that sqrt(v_t) is rational), the rounding bound of x_{t+1}, and Flower's FedOpt
strategies characterised on the real package."""

from __future__ import annotations

from fractions import Fraction as Q

import pytest

from pyfed.conform import conform
from pyfed.conform.adaptive import arb_to_fraction, bias_correction, server_step, x_error_bound


def _contains(ball, q):
    """The ball's midpoint is within 1e-40 of q (exact comparison) and its radius below 1e-50."""
    return abs(arb_to_fraction(ball.mid()) - q) < Q(1, 10 ** 40) and arb_to_fraction(ball.rad()) < Q(1, 10 ** 50)


def test_fedadagrad_step_by_hand():
    """x = 2, m = 0, v = 9/16, Delta = 1, beta_1 = 1/2, eta = 1/2, tau = 1/4: m = 1/2,
    v = 9/16 + 1 = 25/16, x+ = 2 + (1/2)(1/2)/(5/4 + 1/4) = 13/6."""
    s = server_step("fedadagrad", [Q(2)], [Q(0)], [Q(9, 16)], [Q(1)], eta=Q(1, 2), beta_1=Q(1, 2), beta_2=Q(3, 4),
                    tau=Q(1, 4))
    assert s.m == [Q(1, 2)] and s.v == [Q(25, 16)]
    assert _contains(s.x[0], Q(13, 6))


def test_fedadam_step_by_hand():
    """v = (3/4) 0 + (1/4) 2^2 = 1, m = (1/2) 2 = 1, x+ = x + (1/2) 1/(1 + 1/4) = x + 2/5."""
    s = server_step("fedadam", [Q(-1), Q(3)], [Q(0), Q(0)], [Q(0), Q(0)], [Q(2), Q(-2)], eta=Q(1, 2),
                    beta_1=Q(1, 2), beta_2=Q(3, 4), tau=Q(1, 4))
    assert s.m == [Q(1), Q(-1)] and s.v == [Q(1), Q(1)]
    assert _contains(s.x[0], Q(-3, 5)) and _contains(s.x[1], Q(13, 5))


def test_fedyogi_step_by_hand_both_signs():
    """v0 = 1 < Delta^2 = 4: v = 1 + (3/4) 4 = 4 (sign -1); m = (1/2) 1 + (1/2) 2 = 3/2;
    x+ = x + 1 (3/2)/(2 + 1/2) = x + 3/5. v0 = 4 > Delta^2 = 1: v = 4 - 3/4 = 13/4 (sign +1);
    v0 = Delta^2: v unchanged (sign 0)."""
    s = server_step("fedyogi", [Q(0), Q(0), Q(0)], [Q(1), Q(0), Q(0)], [Q(1), Q(4), Q(1)], [Q(2), Q(1), Q(1)],
                    eta=Q(1), beta_1=Q(1, 2), beta_2=Q(1, 4), tau=Q(1, 2))
    assert s.v == [Q(4), Q(13, 4), Q(1)] and s.m[0] == Q(3, 2)
    assert _contains(s.x[0], Q(3, 5))
    assert arb_to_fraction(s.x[0].mid()) != 0


def test_bias_correction_and_rounding_bound():
    """sqrt(1 - (3/4)^1)/(1 - (1/2)^1) = (1/2)/(1/2) = 1; sqrt(1 - (3/4)^2)/(1 - (1/2)^2) = sqrt(7)/3.
    The bound of x+ grows with the moments' errors and is 0 only for exact inputs and u = 0."""
    assert _contains(bias_correction(Q(1, 2), Q(3, 4), 1), Q(1))
    b2 = bias_correction(Q(1, 2), Q(3, 4), 2)
    assert abs(float(b2.mid()) - 7 ** 0.5 / 3) < 1e-15
    e0 = x_error_bound([Q(2)], [Q(1, 2)], [Q(25, 16)], [Q(0)], [Q(0)], eta=Q(1, 2), tau=Q(1, 4), u=Q(1, 2 ** 53))
    e1 = x_error_bound([Q(2)], [Q(1, 2)], [Q(25, 16)], [Q(1, 2 ** 40)], [Q(1, 2 ** 40)], eta=Q(1, 2), tau=Q(1, 4),
                       u=Q(1, 2 ** 53))
    assert 0 < e0[0] < Q(1, 10 ** 14) < e1[0] < Q(1, 10 ** 11)


@pytest.mark.slow
def test_flower_fedopt_characterised():
    pytest.importorskip("flwr", reason="Flower (pip install 'pyfed[flower]') is not installed")
    from pyfed.conform.flower import fedadagrad, fedadam, fedadam_deployed, fedyogi

    assert conform(fedyogi, "fedyogi").conforms
    d = conform(fedadam, "fedadam", rungs=["one client"]).first_deviation
    assert d.quantity == "model x" and d.round == 1
    assert "Adam's bias correction with the exponent r + 1" in d.hint
    d = conform(fedadagrad, "fedadagrad", rungs=["one client"]).first_deviation
    assert d.quantity == "first moment m" and "beta_1 ignored" in d.hint
    d = conform(fedadam_deployed, "fedadam", rungs=["one client"]).first_deviation
    assert d.round == 0 and d.quantity == "second moment v_{-1}" and "starts from zeros" in d.hint
