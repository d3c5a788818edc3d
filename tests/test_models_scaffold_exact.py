"""The exact-moment memo of the statement engine (pyfed.models.scaffold.exact._run_moments): a
second run of the same instance data, from another instance object, gives the same exact moments
as the engine computed afresh, in lists of its own."""

from fractions import Fraction

from pyfed.engines.exact.arith import ExactField
from pyfed.models.scaffold import candidates as C
from pyfed.models.scaffold import exact as E
from pyfed.models.scaffold.exact import sides_exact
from pyfed.models.scaffold.model import our_statements


def test_the_same_instance_data_share_one_exact_run():
    st = our_statements()["ConvexFiniteRoundConvergence"]
    inst, _ = C.candidate(st, 0, 0)                     # x0 = x*, c0 = grad f_i(x*), sigma = 1, T = 4
    E._MOMENTS.clear()
    lhs, rhs, _ = sides_exact(st, inst)
    assert len(E._MOMENTS) == 1 and isinstance(lhs, Fraction) and isinstance(rhs, Fraction)
    twin, _ = C.candidate(st, 0, 0)                     # another object with the same exact data
    assert twin is not inst and E._moment_key(twin, int(twin.T), False) == E._moment_key(inst, int(inst.T), False)
    assert sides_exact(st, twin)[:2] == (lhs, rhs) and len(E._MOMENTS) == 1
    F = ExactField()
    a = E._run_moments(twin, F, twin.x0, twin.c0, int(twin.T), False)
    a.gaps[0] = None                                    # a caller's edit stays in its own copy
    b = E._run_moments(twin, F, twin.x0, twin.c0, int(twin.T), False)
    E._MOMENTS.clear()
    fresh = E._run_moments(twin, F, twin.x0, twin.c0, int(twin.T), False)
    assert b.gaps == fresh.gaps and b.grad_sq == fresh.grad_sq and len(b.gaps) == int(twin.T) + 1
    assert all(isinstance(g, Fraction) for g in b.gaps + b.grad_sq)
    # another step is another key
    other = C.candidate(st, 0, 0)[0]
    other.eta_l = other.eta_l / 2
    assert E._moment_key(other, int(other.T), False) != E._moment_key(twin, int(twin.T), False)
