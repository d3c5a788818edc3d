"""pyfed.models.scaffold.montecarlo: hypotheses decided before simulating, divergence reported."""

import numpy as np



def test_montecarlo_decides_the_hypotheses_before_simulating_and_reports_divergence(monkeypatch):
    """A step far above 1/(81 beta): the statement's own hypothesis fails, so nothing is simulated
    (inconclusive, naming it); with that hypothesis relaxed the run is inside the relaxed
    statement's hypotheses, and its divergence is an inconclusive anomaly naming the round."""
    import pyfed.models.scaffold.montecarlo
    from pyfed.checkers.registry import statements_of
    from pyfed.models.scaffold.instance import RunInstance
    from pyfed.models.scaffold.montecarlo import decide_montecarlo
    from pyfed.problems.quadratic import QuadraticProblem

    P = QuadraticProblem(np.array([[[1.0]], [[1.0]]]), np.array([[0.0], [0.0]]))
    inst = RunInstance(name="diverging", problem=P, sigma=0.0, S=1, K=1, T=400, eta_l=3.0, eta_g=1.0,
                       x0=np.array([1.0]), c0=np.zeros((2, 1)), mu=0, description="x <- -2x each step")
    (st,) = statements_of("ConvexFiniteRoundConvergence")
    real = pyfed.models.scaffold.montecarlo.scaffold_run

    def forbidden(*a, **k):
        raise AssertionError("simulated although a hypothesis fails")
    monkeypatch.setattr(pyfed.models.scaffold.montecarlo, "scaffold_run", forbidden)
    v = decide_montecarlo(st, inst, replicates=4)
    assert v.status == "inconclusive" and v.reason.startswith("hypotheses fail") and "81" in v.reason
    monkeypatch.setattr(pyfed.models.scaffold.montecarlo, "scaffold_run", real)
    (relaxed,) = statements_of("ConvexFiniteRoundConvergence", relax=("step_size",))
    v = decide_montecarlo(relaxed, inst, replicates=4)
    assert v.status == "inconclusive" and "diverged at round" in v.reason
    assert v.details["diverged"]["round"] <= 400 and "anomaly" in v.details
