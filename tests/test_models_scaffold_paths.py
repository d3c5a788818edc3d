"""Every sample path of the SCAFFOLD Run on exact client sets (pyfed.models.scaffold.paths): the
expectations agree with the exact-moment engine on quadratic clients (full and partial
participation, warm start), and one step on a Huber client is the gradient step worked by hand."""

from fractions import Fraction as F

import numpy as np
import pytest

from pyfed.errors import InputError
from pyfed.models.scaffold.paths import path_moments
from pyfed.problems.clients import ClientSet
from pyfed.problems.quadratic import QuadraticProblem
from pyfed.problems.ridge import RidgeFunction


def _pair():
    A = [[[F(1), F(0)], [F(0), F(2)]], [[F(3), F(1)], [F(1), F(2)]], [[F(1, 2), F(0)], [F(0), F(1)]]]
    b = [[F(1), F(0)], [F(0), F(1)], [F(-1), F(-1)]]
    qp = QuadraticProblem(np.array(A, dtype=object), np.array(b, dtype=object))
    cs = ClientSet([RidgeFunction.make(Ai, bi) for Ai, bi in zip(A, b)], list(qp.x_star_exact))
    return qp, cs


@pytest.mark.parametrize("S,warm", [(3, False), (1, False), (2, True)])
def test_paths_agree_with_exact_moments_on_quadratics(S, warm):
    from pyfed.engines.exact.propagation import scaffold_run_moments
    qp, cs = _pair()
    x0 = [F(1), F(-1)]
    c0 = [[F(1, 2), F(0)], [F(0), F(0)], [F(-1, 4), F(1)]]
    if warm:           # the warm start with exact gradients: c_i^0 = grad f_i(x0)
        c0_ref = [list(row) for row in qp.grads_exact(np.array(x0, dtype=object))]
        ours = path_moments(cs, S=S, K=2, T=3, eta_l=F(1, 10), eta_g=F(3, 2), x0=x0, c0=None)
    else:
        c0_ref = c0
        ours = path_moments(cs, S=S, K=2, T=3, eta_l=F(1, 10), eta_g=F(3, 2), x0=x0, c0=c0)
    ref = scaffold_run_moments(qp, 0, S=S, K=2, T=3, eta_l=F(1, 10), eta_g=F(3, 2), x0=x0, c0=c0_ref)
    assert ours.gaps == ref.gaps and ours.grad_sq == ref.grad_sq


def test_one_step_on_a_huber_client_by_hand():
    f = RidgeFunction.make([[0]], [0], [[1]], [0], [1], "huber", F(1, 3))
    cs = ClientSet([f], [0])
    res = path_moments(cs, S=1, K=1, T=1, eta_l=1, eta_g=1, x0=[1], c0=[[0]])
    assert res.gaps == [F(5, 18), F(1, 6)]            # H(1) = 1/3 - 1/18, H(2/3) = 2/9 - 1/18
    assert res.grad_sq == [F(1, 9), F(1, 9)]


def test_too_many_sample_paths_are_refused(monkeypatch):
    from pyfed.models.scaffold import paths
    monkeypatch.setattr(paths, "MAX_STATES", 50)
    qp, cs = _pair()
    with pytest.raises(InputError):
        path_moments(cs, S=1, K=1, T=12, eta_l=F(1, 7), eta_g=F(5, 3), x0=[F(1, 3), F(2, 7)],
                     c0=[[F(1), F(2)], [F(3), F(-1)], [F(1, 5), F(0)]])
