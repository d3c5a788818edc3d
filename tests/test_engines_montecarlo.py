"""pyfed.engines.montecarlo: Monte Carlo sides are labelled estimates with their intervals."""

import json
from fractions import Fraction as Fr

import numpy as np
import pytest



def test_monte_carlo_sides_are_labelled_estimates():
    from pyfed.engines.montecarlo import Estimate, decide
    est = Estimate.from_samples(np.array([1.0, 1.2, 0.8, 1.1, 0.9]))
    v = decide("ConvexFiniteRoundConvergence", est, Fr(10))
    j = v.to_json()
    assert j["lhs"]["kind"].startswith("Monte Carlo estimate") and j["lhs"]["estimate"] == pytest.approx(1.0)
    lo, hi = j["lhs"]["interval"]
    assert lo < 1 < hi and j["margin"]["interval"] == [pytest.approx(10 - hi), pytest.approx(10 - lo)]
    assert j["rhs"] == {"exact": "10", "float": 10.0}
    assert "mpmath" not in json.dumps(j)
